//! What the structure tests (`layering.rs`, `circles.rs`) share: the `.rs` files of a source
//! tree, in path order (so their findings print the same way every run).

use std::path::{Path, PathBuf};

/// Every `.rs` file below `dir`, depth first, each folder's entries sorted by path.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("a source folder is readable")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
