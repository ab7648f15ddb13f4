//! Tests of the key registry: its order, what warns, the README's copy, and that no key the
//! code reads is missing from it (a scan of the source's key literals, and the keys the
//! settings actually ask a SparkConf for).

use super::*;
use crate::conf::DefaultsFile;
use std::path::Path;

const NAMESPACES: [&str; 7] = [
    "spark.",
    "yarn.",
    "hadoop.",
    "fs.",
    "ipc.",
    "mapreduce.",
    "dfs.",
];

/// `KEYS` and `FAMILIES` are sorted and unique (`lookup` binary-searches `KEYS`).
#[test]
fn keys_are_sorted_and_unique() {
    for table in [KEYS, FAMILIES] {
        for pair in table.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} then {}",
                pair[0].name,
                pair[1].name
            );
        }
    }
}

/// Every template stands for registered keys or families.
#[test]
fn templates_expand_to_registered_keys() {
    for (template, expansions) in TEMPLATES {
        for k in *expansions {
            assert!(lookup(k).is_some(), "{template}: {k} is not registered");
        }
    }
}

#[test]
fn lookup_prefers_the_key_then_the_longest_family() {
    assert_eq!(
        lookup("spark.rpc.askTimeout").unwrap().status,
        KeyStatus::Simulated
    );
    assert_eq!(lookup("spark.rpc.io.threads").unwrap().name, "spark.rpc");
    assert_eq!(
        lookup("spark.executorEnv.FOO").unwrap().status,
        KeyStatus::Simulated
    );
    assert_eq!(
        lookup("spark.hadoop.fs.s3a.endpoint").unwrap().name,
        "spark.hadoop."
    );
    assert!(lookup("spark.sql.shuffle.partitions").is_none());
}

fn strings(pairs: &[&str]) -> Vec<String> {
    pairs.iter().map(|s| s.to_string()).collect()
}

/// A recorded key and a key sparkyard never reads warn, once each; simulated, refused and
/// already-warned keys do not.
#[test]
fn only_keys_the_run_does_not_act_on_warn() {
    let props = strings(&[
        "spark.cores.max",
        "spark.driver.port",
        "spark.eventLog.enabled",
        "spark.excludeOnFailure.enabled",
        "spark.jars.packages",
        "spark.sql.shuffle.partitions",
        "spark.yarn.am.resource.memory.amount",
    ]);
    let notices = not_simulated(&props);
    let names: Vec<&str> = notices.iter().map(|n| n.key.as_str()).collect();
    assert_eq!(
        names,
        vec!["spark.driver.port", "spark.sql.shuffle.partitions"]
    );
    assert_eq!(
        notices[0].warning(),
        "Warning: spark.driver.port is not simulated by sparkyard yet (sparkyard picks the \
         driver's port); it has no effect on this run"
    );
    assert_eq!(
        notices[1].warning(),
        "Warning: spark.sql.shuffle.partitions is not read by sparkyard; it has no effect on \
         this run (it is only recorded in the event log's environment)"
    );
    let mut map = BTreeMap::new();
    for k in &props {
        map.insert(k.clone(), "v".to_string());
    }
    assert_eq!(
        summary_note(&map).as_deref(),
        Some(
            "keys set but not simulated (no effect on this run): spark.driver.port, \
             spark.sql.shuffle.partitions"
        )
    );
    map.remove("spark.driver.port");
    map.remove("spark.sql.shuffle.partitions");
    assert_eq!(summary_note(&map), None);
}

/// spark-submit: every way a user sets a key (`--conf`, a properties file, spark-defaults, a
/// scenario's `[submit] conf`, which becomes `--conf`) reaches the same one warning.
#[test]
fn a_submission_warns_once_per_key_not_simulated() {
    let dir = crate::test_dir::TestDir::new("keys");
    let file = dir.join("props.conf");
    std::fs::write(&file, "spark.sql.adaptive.enabled true\n").unwrap();
    let args = crate::conf::submit::tests::parse(&[
        "--conf",
        "spark.driver.port=7078",
        "--conf",
        "spark.driver.port=7078",
        "--properties-file",
        file.to_str().unwrap(),
        "a.jar",
    ]);
    let defaults = "spark.driver.extraLibraryPath /opt/native\n";
    let req = args
        .into_request(DefaultsFile::Embedded(defaults))
        .expect("request");
    let key_warnings: Vec<&String> = req
        .warnings
        .iter()
        .filter(|w| w.contains("has no effect on this run"))
        .collect();
    assert_eq!(key_warnings.len(), 2, "{:?}", req.warnings);
    assert!(key_warnings[0].contains("spark.driver.port"));
    assert!(key_warnings[1].contains("spark.sql.adaptive.enabled"));
    // The properties file replaces spark-defaults (as in Spark), so the library path is
    // not set; with --load-spark-defaults it is, and warns too.
    let args = crate::conf::submit::tests::parse(&[
        "--properties-file",
        file.to_str().unwrap(),
        "--load-spark-defaults",
        "a.jar",
    ]);
    let req = args.into_request(DefaultsFile::Embedded(defaults)).unwrap();
    assert!(
        req.warnings
            .iter()
            .any(|w| w.starts_with("Warning: spark.driver.extraLibraryPath is not simulated")),
        "{:?}",
        req.warnings
    );
}

/// The README's key table is the registry's (`sparkyard keys`), between its markers.
#[test]
fn readme_table_is_the_registry() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme.find(README_BEGIN).expect("begin marker") + README_BEGIN.len();
    let end = readme.find(README_END).expect("end marker");
    assert_eq!(
        readme[start..end].trim(),
        markdown_table(None).trim(),
        "regenerate the README table with `sparkyard keys`"
    );
}

#[test]
fn the_table_filters_by_status() {
    let refused = markdown_table(Some(KeyStatus::Refused));
    assert!(refused.contains("`spark.remote`"));
    assert!(!refused.contains("`spark.eventLog.enabled`"));
    assert!(markdown_table(None).contains("`spark.executorEnv.*`"));
    assert_eq!(KeyStatus::parse("recorded"), Some(KeyStatus::Recorded));
    assert_eq!(KeyStatus::parse("ignored"), None);
}

/// The string literals of Rust source text with their line numbers: `"..."` (with escapes)
/// and `r#"..."#`, outside `//` comments and char literals.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    while i < b.len() {
        match b[i] {
            b'\n' => line += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                // A char literal ('"', '\"'): skip to its closing quote.
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'r' if b.get(i + 1) == Some(&b'#') && b.get(i + 2) == Some(&b'"') => {
                let close = text[i + 3..].find("\"#").map_or(b.len(), |n| i + 3 + n);
                out.push((line, text[i + 3..close].to_string()));
                line += text[i..close].matches('\n').count();
                i = close + 2;
                continue;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push((line, text[i + 1..j.min(b.len())].to_string()));
                line += text[i..j.min(b.len())].matches('\n').count();
                i = j + 1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// A literal that names a key (or a key prefix or template): a namespace, then key characters.
fn is_key_like(s: &str) -> bool {
    NAMESPACES.iter().any(|n| s.starts_with(n))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-{}/".contains(c))
}

/// The text of a non-test source file up to its inline test module (sparkyard's files keep
/// `#[cfg(test)] mod tests { ... }` last); `None` for a test file.
fn production_text(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if name == "tests.rs" || name.ends_with("_tests.rs") || name == "keys.rs" {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|l| {
                    let l = l.trim_start();
                    (l.starts_with("mod ") || l.contains(") mod ") || l.starts_with("pub mod "))
                        && l.ends_with('{')
                })
        })
        .unwrap_or(lines.len());
    Some(lines[..end].join("\n"))
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("source dir")
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Key-like literals that are not keys: YARN's resource names (`ResourceInformation.GPU_URI`,
/// `FPGA_URI`), the defaults of `spark.yarn.resource{Gpu,Fpga}DeviceName`.
const NOT_KEYS: [&str; 2] = ["yarn.io/gpu", "yarn.io/fpga"];

/// Whether a key-like literal is in the registry: a key, a family's prefix, a template, or a
/// bare namespace (`spark.`: the filter of properties files; `yarn.`: the replay's filter of a
/// log's Hadoop properties).
fn registered(literal: &str) -> bool {
    literal == "spark."
        || literal == "yarn."
        || NOT_KEYS.contains(&literal)
        || KEYS.iter().any(|k| k.name == literal)
        || FAMILIES.iter().any(|f| f.name == literal)
        || TEMPLATES.iter().any(|(t, _)| *t == literal)
}

/// Every key-like string literal in the production source of `src/` and `actors/src/` is a
/// registered key, family prefix or template: a key read that is not in the registry fails
/// here (keys are written as whole literals; the few built at run time are TEMPLATES).
#[test]
fn registry_covers_every_key_literal_in_the_source() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("actors/src"), &mut files);
    let mut missing = Vec::new();
    let mut seen = 0;
    for f in &files {
        let Some(text) = production_text(f) else {
            continue;
        };
        for (line, lit) in string_literals(&text) {
            if !is_key_like(&lit) {
                continue;
            }
            seen += 1;
            if !registered(&lit) {
                missing.push(format!(
                    "{}:{line}: {lit}",
                    f.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(seen > 150, "the scan found only {seen} key literals");
    assert!(
        missing.is_empty(),
        "keys read but not in src/conf/keys.rs:\n{}",
        missing.join("\n")
    );
}

/// The scanner itself: escapes, raw strings, comments and char literals.
#[test]
fn the_scanner_reads_literals_as_rust_does() {
    let text = "let a = \"spark.x\"; // \"spark.comment\"\nlet c = '\"'; let b = r#\"spark.\"raw\"#;\nf(\"a \\\" spark.no\", \"yarn.y\")";
    let lits: Vec<(usize, String)> = string_literals(text);
    assert_eq!(
        lits,
        vec![
            (1, "spark.x".to_string()),
            (2, "spark.\"raw".to_string()),
            (3, "a \\\" spark.no".to_string()),
            (3, "yarn.y".to_string()),
        ]
    );
    assert!(is_key_like("spark.yarn.driver.resource.yarn.io/gpu.amount"));
    assert!(!is_key_like("spark.executor.memory must be set"));
}

/// The keys the settings actually ask a SparkConf for (including the few built at run time),
/// over submissions that take every branch, are all registered.
#[test]
fn every_key_the_settings_read_is_registered() {
    let submissions: &[&[&str]] = &[
        &[],
        &[
            "--conf",
            "spark.dynamicAllocation.enabled=true",
            "--conf",
            "spark.speculation=true",
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            "spark.memory.offHeap.enabled=true",
            "--conf",
            "spark.memory.offHeap.size=1g",
            "--conf",
            "spark.decommission.enabled=true",
            "--conf",
            "spark.redaction.regex=secret",
            "--conf",
            "spark.yarn.executor.nodeLabelExpression=gpu",
        ],
    ];
    crate::conf::spark_conf::keys_read::take();
    for extra in submissions {
        let words: Vec<&str> = extra.iter().copied().chain(["app.jar", "10"]).collect();
        let args = crate::conf::submit::tests::parse(&words);
        let req = args
            .into_request(DefaultsFile::Embedded(""))
            .expect("request");
        crate::conf::settings::spark_settings(&req).expect("settings");
    }
    let read = crate::conf::spark_conf::keys_read::take();
    assert!(read.len() > 80, "only {} keys read", read.len());
    let missing: Vec<&String> = read.iter().filter(|k| lookup(k).is_none()).collect();
    assert!(missing.is_empty(), "read but not registered: {missing:?}");
}

/// A flag that sets a recorded key (`--principal` is `spark.kerberos.principal`) warns as the
/// key would: the check runs on the final conf, after the flags are assigned.
#[test]
fn a_flag_that_sets_a_recorded_key_warns_too() {
    let args = crate::conf::submit::tests::parse(&["--driver-class-path", "/opt/x.jar", "a.jar"]);
    let req = args.into_request(DefaultsFile::Embedded("")).unwrap();
    assert_eq!(
        req.warnings,
        vec![
            "Warning: spark.driver.extraClassPath is not simulated by sparkyard yet \
             (--driver-class-path: shown by --verbose and in the event log); it has no effect \
             on this run"
                .to_string()
        ]
    );
}
