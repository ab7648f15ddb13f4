//! No import circles at any level of the three source trees (`actors/src`, `messages/src`,
//! `src`): between the files of a room, and between the rooms of a tree (a room is a tree's
//! top-level folder or file). `layering.rs` fixes the order of the actors crate's rooms; this
//! test keeps every tree, and the inside of every room, free of circles as well.
//!
//! A file's module is read from its path; an import is a `crate::`, `super::` or `self::` path
//! (comments left out), resolved to the deepest file module it names. A folder's door (`mod.rs`,
//! `lib.rs`, or `x.rs` beside a folder `x/`) declares and re-exports its children, so the edges
//! between a door and the modules below it are Rust's module tree, not imports, and are not
//! counted; every other edge is.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

mod source_walk;
use source_walk::rust_files;

/// One source file: its module path (`["spark_core", "scheduler", "task_set_manager"]`), whether
/// it is a door, and its code.
struct Source {
    name: String,
    module: Vec<String>,
    door: bool,
    code: String,
}

/// The sources of a tree rooted at `src`, leaving out the crate roots in `skip` (a binary's
/// `main.rs` uses the library by its name, not `crate::`).
fn sources(src: &Path, skip: &[&str]) -> Vec<Source> {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    paths
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(src).ok()?.to_path_buf();
            let rel_str = rel.to_str()?.to_string();
            if skip.contains(&rel_str.as_str()) {
                return None;
            }
            let mut module: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_str().unwrap_or("").to_string())
                .collect();
            let last = module.pop()?;
            let stem = last.strip_suffix(".rs")?.to_string();
            let door = matches!(stem.as_str(), "mod" | "lib") || p.with_extension("").is_dir();
            if !matches!(stem.as_str(), "mod" | "lib") {
                module.push(stem);
            }
            let code = std::fs::read_to_string(&p).expect("a source file is readable");
            Some(Source {
                name: rel_str,
                module,
                door,
                code,
            })
        })
        .collect()
}

/// The module paths a file's code names, resolved against its own module (and the inline
/// modules, such as `mod tests { use super::*; }`, that a `super::` is written in).
fn imports(file: &[String], code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    // The inline modules open at this point, with the brace depth each opened at.
    let mut inline: Vec<(String, i64)> = Vec::new();
    let mut depth: i64 = 0;
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let here: Vec<String> = file
            .iter()
            .cloned()
            .chain(inline.iter().map(|(m, _)| m.clone()))
            .collect();
        for (start, path) in paths_in(line) {
            let resolved = match start {
                Start::Crate => Some(path),
                Start::Super(n) if n <= here.len() => {
                    let mut base = here[..here.len() - n].to_vec();
                    base.extend(path);
                    Some(base)
                }
                Start::Super(_) => None,
                Start::SelfMod => {
                    let mut base = here.clone();
                    base.extend(path);
                    Some(base)
                }
            };
            out.extend(resolved);
        }
        if let Some(name) = inline_module(line) {
            inline.push((name, depth));
        }
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        while inline.last().is_some_and(|(_, d)| depth <= *d) {
            inline.pop();
        }
    }
    out
}

/// `mod name {` on a line: an inline module opens.
fn inline_module(line: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t.strip_prefix("pub ").unwrap_or(t);
    let t = t.strip_prefix("pub(crate) ").unwrap_or(t);
    let rest = t.strip_prefix("mod ")?;
    let name = segment(rest);
    rest[name.len()..]
        .trim_start()
        .starts_with('{')
        .then_some(name)
}

enum Start {
    Crate,
    Super(usize),
    SelfMod,
}

/// Every `crate::`, `super::` and `self::` path on a line, grouped imports
/// (`crate::{a::X, b}`) split, with where it starts.
fn paths_in(line: &str) -> Vec<(Start, Vec<String>)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < line.len() {
        let rest = &line[i..];
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let starts = ["crate::", "super::", "self::"];
        let Some(kw) = starts
            .iter()
            .find(|k| rest.starts_with(*k))
            .filter(|_| boundary)
        else {
            i += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        if i > 0 && bytes[i - 1] == b'$' {
            i += kw.len(); // `$crate::` inside a macro: resolved where the macro is used.
            continue;
        }
        let mut start = match *kw {
            "crate::" => Start::Crate,
            "super::" => Start::Super(1),
            _ => Start::SelfMod,
        };
        let mut tail = &rest[kw.len()..];
        while let Some(t) = tail.strip_prefix("super::") {
            if let Start::Super(n) = start {
                start = Start::Super(n + 1);
            }
            tail = t;
        }
        let consumed = rest.len() - tail.len();
        for path in expand(tail) {
            out.push((clone_start(&start), path));
        }
        i += consumed;
    }
    out
}

fn clone_start(s: &Start) -> Start {
    match s {
        Start::Crate => Start::Crate,
        Start::Super(n) => Start::Super(*n),
        Start::SelfMod => Start::SelfMod,
    }
}

/// The segments of a path, or of each item of a `{...}` group (one level of nesting).
fn expand(tail: &str) -> Vec<Vec<String>> {
    if let Some(group) = tail.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        return group[..end]
            .split(',')
            .map(|item| segments(item.trim()))
            .filter(|s| !s.is_empty())
            .collect();
    }
    let mut prefix = Vec::new();
    let mut rest = tail;
    loop {
        let seg = segment(rest);
        if seg.is_empty() {
            break;
        }
        prefix.push(seg.clone());
        rest = &rest[seg.len()..];
        match rest.strip_prefix("::") {
            Some(r) if r.starts_with('{') => {
                return expand(r)
                    .into_iter()
                    .map(|s| prefix.iter().cloned().chain(s).collect())
                    .collect();
            }
            Some(r) => rest = r,
            None => break,
        }
    }
    if prefix.is_empty() {
        Vec::new()
    } else {
        vec![prefix]
    }
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(segment)
        .take_while(|s| !s.is_empty())
        .collect()
}

fn segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The file a module path names: the deepest file module that is a prefix of it.
fn resolve(modules: &BTreeMap<Vec<String>, usize>, path: &[String]) -> Option<usize> {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]).copied())
}

/// The file-to-file import edges of a tree, door edges left out.
fn file_edges(files: &[Source]) -> BTreeSet<(usize, usize)> {
    let modules: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let mut edges = BTreeSet::new();
    for (i, f) in files.iter().enumerate() {
        for path in imports(&f.module, &f.code) {
            let Some(j) = resolve(&modules, &path) else {
                continue;
            };
            let g = &files[j];
            let below = |a: &Source, b: &Source| a.door && b.module.starts_with(&a.module);
            if i != j && !below(f, g) && !below(g, f) {
                edges.insert((i, j));
            }
        }
    }
    edges
}

/// The strongly connected parts of more than one node (Tarjan), each sorted, in order.
fn circles(nodes: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); nodes];
    for &(a, b) in edges {
        adj[a].push(b);
    }
    struct T<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on[v] = true;
        for k in 0..t.adj[v].len() {
            let w = t.adj[v][k];
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on[w] => t.low[v] = t.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut part = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on[w] = false;
                part.push(w);
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                part.sort();
                t.out.push(part);
            }
        }
    }
    let mut t = T {
        adj: &adj,
        index: vec![None; nodes],
        low: vec![0; nodes],
        on: vec![false; nodes],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..nodes {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// Every circle of a tree, between files and between rooms, as readable lines.
fn tree_circles(files: &[Source]) -> Vec<String> {
    let edges = file_edges(files);
    let mut out: Vec<String> = circles(files.len(), &edges)
        .into_iter()
        .map(|part| {
            let names: Vec<&str> = part.iter().map(|&i| files[i].name.as_str()).collect();
            format!("files: {}", names.join(" <-> "))
        })
        .collect();
    let room = |f: &Source| f.module.first().cloned().unwrap_or_default();
    let rooms: BTreeSet<String> = files.iter().map(room).filter(|r| !r.is_empty()).collect();
    let rooms: Vec<String> = rooms.into_iter().collect();
    let index = |r: &str| rooms.iter().position(|x| x == r);
    let room_edges: BTreeSet<(usize, usize)> = edges
        .iter()
        .filter_map(|&(a, b)| Some((index(&room(&files[a]))?, index(&room(&files[b]))?)))
        .filter(|(a, b)| a != b)
        .collect();
    out.extend(circles(rooms.len(), &room_edges).into_iter().map(|part| {
        let names: Vec<&str> = part.iter().map(|&i| rooms[i].as_str()).collect();
        format!("rooms: {}", names.join(" <-> "))
    }));
    out
}

fn tree(rel: &str, skip: &[&str]) -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    let files = sources(&root, skip);
    assert!(files.len() > 10, "the walk found the sources of {rel}");
    files
}

/// Circles known today and being taken apart. Empty since the run's record moved below the
/// runner (`src/record.rs`, issue 29); a new circle fails.
const KNOWN: &[&str] = &[];

#[test]
fn no_import_circles_in_any_tree() {
    let mut found = Vec::new();
    for (rel, skip) in [
        ("actors/src", &[][..]),
        ("messages/src", &[][..]),
        ("src", &["main.rs"][..]),
    ] {
        for c in tree_circles(&tree(rel, skip)) {
            found.push(format!("{rel}: {c}"));
        }
    }
    let new: Vec<&String> = found
        .iter()
        .filter(|c| !KNOWN.contains(&c.as_str()))
        .collect();
    let gone: Vec<&&str> = KNOWN
        .iter()
        .filter(|k| !found.iter().any(|c| c == *k))
        .collect();
    assert!(
        new.is_empty(),
        "import circles:\n{}",
        new.iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        gone.is_empty(),
        "circles gone, remove them from KNOWN: {gone:?}"
    );
}

/// The check itself can fail: a circle between two siblings through `super::`, one through a
/// grouped `crate::` import, and one between two rooms are all found; a door's edges to its
/// children and a test module's `use super::*` are not circles.
#[test]
fn the_check_finds_circles() {
    let file = |name: &str, module: &[&str], door: bool, code: &str| Source {
        name: name.into(),
        module: module.iter().map(|s| s.to_string()).collect(),
        door,
        code: code.into(),
    };
    let files = vec![
        file(
            "a/mod.rs",
            &["a"],
            true,
            "mod b; mod c; use b::X; use c::Y;",
        ),
        file(
            "a/b.rs",
            &["a", "b"],
            false,
            "use super::c::Y; use super::Z;",
        ),
        file(
            "a/c.rs",
            &["a", "c"],
            false,
            "fn f() { crate::a::{b::X, d}; }\nmod tests {\n    use super::*;\n}",
        ),
        file("a/d.rs", &["a", "d"], false, "use crate::e::W;"),
        file("e.rs", &["e"], false, "use crate::a::d::V;"),
        file(
            "f.rs",
            &["f"],
            false,
            "use crate::a::d::V; // crate::e in a comment",
        ),
    ];
    assert_eq!(
        tree_circles(&files),
        vec![
            "files: a/b.rs <-> a/c.rs",
            "files: a/d.rs <-> e.rs",
            "rooms: a <-> e",
        ]
    );
}
