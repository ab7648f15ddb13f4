//! The one-way stairs of `actors/src` (its `lib.rs` draws them): every `crate::` path a room's
//! file names must lead to the same room or to one the room is allowed to stand on. A path that
//! goes up, or sideways between YARN's daemons and Spark core, fails here and so in CI.

use std::collections::BTreeMap;
use std::path::Path;

mod source_walk;
use source_walk::rust_files;

/// Each room and the rooms below it that it may import. `boot` may name every role;
/// `simulation` (the front door) stands on `boot` and re-exports `facts` (what the root crate
/// reads of the roles) and the data rooms.
const ROOMS: &[(&str, &[&str])] = &[
    ("kernel", &[]),
    ("rpc", &["kernel"]),
    ("faults", &["kernel", "rpc"]),
    ("examples", &[]),
    ("world", &["kernel", "rpc", "faults", "examples"]),
    ("hadoop_yarn", &["kernel", "rpc", "faults", "world"]),
    (
        "spark_core",
        &["kernel", "rpc", "faults", "world", "examples"],
    ),
    (
        "spark_yarn",
        &["kernel", "rpc", "faults", "world", "examples", "spark_core"],
    ),
    (
        "boot",
        &[
            "kernel",
            "rpc",
            "faults",
            "world",
            "examples",
            "hadoop_yarn",
            "spark_core",
            "spark_yarn",
        ],
    ),
    (
        "facts",
        &["examples", "hadoop_yarn", "spark_core", "spark_yarn"],
    ),
    // The door also re-exports `facts` beside the data rooms (the root crate names no other).
    (
        "simulation",
        &["kernel", "rpc", "faults", "world", "boot", "facts"],
    ),
];

/// A file's room: its first folder under `src`, or its name for a top-level file (`boot.rs`).
fn room_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    let room = first.strip_suffix(".rs").unwrap_or(first);
    (room != "lib").then(|| room.to_string())
}

/// The first path segment after every `crate::` in `code` (comments left out), with grouped
/// imports (`crate::{a::X, b}`) split.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(i) = rest.find("crate::") {
            let preceded_by_dollar = i > 0 && rest.as_bytes()[i - 1] == b'$';
            rest = &rest[i + "crate::".len()..];
            if preceded_by_dollar {
                continue; // `$crate::` inside a macro: resolved where the macro is used.
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    out.push(first_segment(item.trim()));
                }
            } else {
                out.push(first_segment(rest));
            }
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// `#[macro_export]` macros live at the crate root; each belongs to the room that defines it.
fn macro_rooms(files: &[(String, String)]) -> BTreeMap<String, String> {
    let mut rooms = BTreeMap::new();
    for (room, code) in files {
        for part in code.split("macro_rules!").skip(1) {
            rooms.insert(first_segment(part.trim_start()), room.clone());
        }
    }
    rooms
}

/// Every import that breaks the stairs, as `file: room -> target`.
fn violations(files: &[(String, String, String)]) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = ROOMS.iter().copied().collect();
    let pairs: Vec<(String, String)> = files
        .iter()
        .map(|(_, room, code)| (room.clone(), code.clone()))
        .collect();
    let macros = macro_rooms(&pairs);
    let mut out = Vec::new();
    for (name, room, code) in files {
        let Some(may) = allowed.get(room.as_str()) else {
            out.push(format!(
                "{name}: room `{room}` is not in the layering table"
            ));
            continue;
        };
        for seg in crate_paths(code) {
            let target = macros.get(&seg).cloned().unwrap_or(seg);
            if target != *room && !may.contains(&target.as_str()) {
                out.push(format!("{name}: {room} -> {target}"));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Every source file of `actors/src` with its room: (path, room, code).
fn sources() -> Vec<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths
        .iter()
        .filter_map(|p| {
            let room = room_of(&src, p)?;
            let code = std::fs::read_to_string(p).expect("a source file is readable");
            Some((p.display().to_string(), room, code))
        })
        .collect()
}

#[test]
fn imports_go_one_way() {
    let files = sources();
    assert!(files.len() > 20, "the walk found the sources");
    let bad = violations(&files);
    assert!(
        bad.is_empty(),
        "imports that go the wrong way:\n{}",
        bad.join("\n")
    );
}

/// The check itself can fail: an upward path, a grouped one and a macro's room are all caught.
#[test]
fn the_check_catches_an_upward_import() {
    let file = |name: &str, room: &str, code: &str| (name.into(), room.into(), code.into());
    let files = vec![
        file("k.rs", "kernel", "use crate::world::context::SimContext;"),
        file(
            "r.rs",
            "rpc",
            "use crate::{kernel::clock, spark_yarn::client};",
        ),
        file(
            "s.rs",
            "spark_core",
            "crate::boom!(x); // crate::boot is fine in a comment",
        ),
        file(
            "y.rs",
            "spark_yarn",
            "macro_rules! boom { () => { $crate::kernel::x } }",
        ),
        file(
            "h.rs",
            "hadoop_yarn",
            "use crate::spark_core::driver::Driver;",
        ),
        file("w.rs", "world", "use crate::kernel::clock; use super::x;"),
    ];
    assert_eq!(
        violations(&files),
        vec![
            "h.rs: hadoop_yarn -> spark_core",
            "k.rs: kernel -> world",
            "r.rs: rpc -> spark_yarn",
            "s.rs: spark_core -> spark_yarn",
        ]
    );
}

/// The rooms of Spark's and YARN's roles, which talk to the network only through their RpcEnv.
const ROLE_ROOMS: &[&str] = &["hadoop_yarn", "spark_core", "spark_yarn", "examples"];

/// Lines of role code that reach for the Dispatcher itself (comments left out).
fn dispatcher_uses(files: &[(String, String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, room, code) in files {
        if !ROLE_ROOMS.contains(&room.as_str()) {
            continue;
        }
        for (i, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            if line.contains("dispatcher") || line.contains("Dispatcher") {
                out.push(format!("{name}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    out
}

#[test]
fn roles_reach_the_network_only_through_their_rpc_env() {
    let files = sources();
    let bad = dispatcher_uses(&files);
    assert!(
        bad.is_empty(),
        "role code using the Dispatcher:\n{}",
        bad.join("\n")
    );
    let probe = vec![(
        "x.rs".to_string(),
        "spark_core".to_string(),
        "self.sim.dispatcher.exit_process(p, 1); // a comment on dispatcher".to_string(),
    )];
    assert_eq!(
        dispatcher_uses(&probe).len(),
        1,
        "the check itself can fail"
    );
}
