//! Test support, compiled only into tests: `TestDir`, a test's own directory under the system
//! temp dir, gone when the test ends. Mirrors no Spark or Hadoop class. One file serves the
//! crate's unit tests (`#[cfg(test)] mod test_dir` in lib.rs) and the integration tests
//! (`tests/sparkyard/common.rs` names this file with `#[path]`), so there is one copy.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Set (to anything) to keep every test's directory, for looking at its files after a failure:
/// `SPARKYARD_KEEP_TEST_DIRS=1 cargo test <name>`; each test's path is `sparkyard-<name>-...`.
const KEEP: &str = "SPARKYARD_KEEP_TEST_DIRS";

/// Numbers the directories of one process: tests run in parallel threads and a test may ask
/// for several, so a name and the process id alone would collide.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// A fresh, empty directory `<temp>/sparkyard-<name>-<pid>-<n>`, removed with all it holds
/// when dropped (on a panic too, as the stack unwinds), unless `SPARKYARD_KEEP_TEST_DIRS` is set.
/// Bind it for as long as the test uses its paths: `let dir = TestDir::new("x");`.
pub struct TestDir {
    path: PathBuf,
}

impl TestDir {
    /// Creates the directory; `name` says which test it is (shown in the path).
    pub fn new(name: &str) -> TestDir {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = format!("sparkyard-{name}-{}-{n}", std::process::id());
        let path = std::env::temp_dir().join(dir);
        // A directory of the same name can only be left from an earlier process that had the
        // same id and kept its directories: start empty all the same.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a test's temp dir");
        TestDir { path }
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A path inside the directory (nothing is created).
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path.join(rel)
    }
}

/// So a `&TestDir` goes wherever std takes a path (`read_dir`, `current_dir`, ...).
impl AsRef<Path> for TestDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        if std::env::var_os(KEEP).is_none() {
            // Errors are ignored: a test that removed its directory itself is fine, and a
            // cleanup failure must not turn a passing test into a failing one.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two directories of one name are two, each starts empty, and a dropped one is gone with
    /// what was written inside it (unless the run keeps them).
    #[test]
    fn each_dir_is_fresh_and_gone_after_drop() {
        let a = TestDir::new("guard");
        let b = TestDir::new("guard");
        assert_ne!(a.path(), b.path());
        assert_eq!(std::fs::read_dir(a.path()).expect("exists").count(), 0);
        std::fs::create_dir_all(a.join("inner")).expect("mkdir");
        std::fs::write(a.join("inner/file"), "x").expect("write");
        let path = a.path().to_path_buf();
        drop(a);
        assert_eq!(path.exists(), std::env::var_os(KEEP).is_some(), "{path:?}");
        assert!(b.path().is_dir(), "the other one stays");
    }
}
