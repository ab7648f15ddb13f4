//! The operator's toolkit (issue 15): the scenario schema kept in step with the parser and the
//! docs, sweeps that explain themselves (JSON lines, shards merged into the same report bytes,
//! `--expect`), `run --conf`, `shrink`, and the scenario errors and notes a newcomer meets.

use crate::common::{TestDir, binary, text};
use serde_json::Value;
use sparkyard::scenario;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const SCHEMA: &str = "config/scenario.schema.json";

/// `body` written to `name` in `dir`; its path.
fn write(dir: &TestDir, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).expect("write");
    p
}

/// The message of a scenario that does not load.
fn load_error(name: &str, body: &str) -> String {
    let dir = TestDir::new("toolkit");
    match scenario::load(&write(&dir, name, body)) {
        Ok(_) => panic!("{name} loaded:\n{body}"),
        Err(e) => e.to_string(),
    }
}

// ----- The schema -----

/// The shipped schema is the one the parser's types generate. To regenerate after changing the
/// scenario types: `scripts/regen-scenario-schema.sh` (or run this test with SPARKYARD_BLESS=1).
#[test]
fn scenario_schema_shipped_is_the_generated_one() {
    let generated = sparkyard::scenario::schema::scenario_schema_json();
    if std::env::var_os("SPARKYARD_BLESS").is_some() {
        std::fs::write(SCHEMA, &generated).expect("write the schema");
    }
    let shipped = std::fs::read_to_string(SCHEMA).expect("the shipped schema");
    assert!(
        shipped == generated,
        "{SCHEMA} is out of date with the scenario types: run scripts/regen-scenario-schema.sh"
    );
}

fn schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string(SCHEMA).expect("schema")).expect("JSON")
}

/// Resolves `$ref` (only `#/$defs/...`, what schemars writes).
fn resolve<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.strip_prefix("#/$defs/").expect("a local $ref");
            resolve(root, &root["$defs"][name])
        }
        None => s,
    }
}

/// A small validator for the keywords schemars writes (type, properties, required,
/// additionalProperties, items, minItems, maxItems, enum, anyOf, minimum); returns the errors.
fn validate(root: &Value, s: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    let s = resolve(root, s);
    if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
        let ok = any.iter().any(|alt| {
            let mut e = Vec::new();
            validate(root, alt, v, at, &mut e);
            e.is_empty()
        });
        if !ok {
            errors.push(format!("{at}: matches no alternative"));
        }
    }
    if let Some(t) = s.get("type") {
        let types: Vec<&str> = match t {
            Value::String(x) => vec![x.as_str()],
            Value::Array(xs) => xs.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let fits = types.iter().any(|t| match *t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            _ => false,
        });
        if !fits {
            errors.push(format!("{at}: {v} is not of type {types:?}"));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        errors.push(format!("{at}: {v} is not one of {e:?}"));
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        errors.push(format!("{at}: {n} < {min}"));
    }
    if let Some(items) = v.as_array() {
        let len = items.len() as u64;
        if s.get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| len < m)
            || s.get("maxItems")
                .and_then(Value::as_u64)
                .is_some_and(|m| len > m)
        {
            errors.push(format!("{at}: {len} items"));
        }
        if let Some(item) = s.get("items") {
            for (i, x) in items.iter().enumerate() {
                validate(root, item, x, &format!("{at}[{i}]"), errors);
            }
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for req in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !obj.contains_key(req.as_str().unwrap_or_default()) {
                errors.push(format!("{at}: missing {req}"));
            }
        }
        for (k, x) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(root, ps, x, &format!("{at}.{k}"), errors),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => errors.push(format!("{at}: unknown key {k}")),
                    Some(extra @ Value::Object(_)) => {
                        validate(root, extra, x, &format!("{at}.{k}"), errors)
                    }
                    _ => {}
                },
            }
        }
    }
}

fn toml_as_json(path: &Path) -> Value {
    let t: toml::Table =
        toml::from_str(&std::fs::read_to_string(path).expect("read")).expect("toml");
    serde_json::to_value(t).expect("json")
}

#[test]
fn every_bundled_scenario_validates_against_the_schema_and_a_broken_one_does_not() {
    let tmp = TestDir::new("toolkit");
    let root = schema();
    let mut n = 0;
    for f in std::fs::read_dir("config/scenarios").expect("dir") {
        let p = f.expect("entry").path();
        let mut errors = Vec::new();
        validate(&root, &root, &toml_as_json(&p), "", &mut errors);
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
        n += 1;
    }
    assert!(n >= 20, "{n}");
    // The validator is not blind: a misspelt key and a wrong kind are refused.
    let bad = write(
        &tmp,
        "bad-for-schema.toml",
        "name = \"x\"\n[submit]\nclass = \"X\"\nnum_executor = 2\n[[faults]]\nkind = \"meteor\"\nat_ms = 1\n",
    );
    let mut errors = Vec::new();
    validate(&root, &root, &toml_as_json(&bad), "", &mut errors);
    assert_eq!(errors.len(), 2, "{errors:?}");
}

/// A scenario that reaches every table of the parser, each in a valid form.
const EVERY_TABLE: &str = r#"
name = "every table"
[cluster.resourcemanager]
[cluster.yarn]
[cluster.costs]
[[cluster.nodes]]
host = "nm-{n}.x"
[[cluster.queues]]
name = "default"
capacity = 100
[[cluster.tenants]]
user = "u"
duration_ms = 1
[submit]
[workload]
[[workload.jobs]]
call_site = "c"
[[workload.jobs.stages]]
name = "s"
tasks = 1
duration = { fixed_ms = 1 }
fail = { indices = [0], message = "m" }
shuffle_write = { bytes_per_task = 1 }
[[workload.applications]]
queue = "default"
poisson = { per_hour = 1, until_ms = 2 }
[[workload.applications.jobs]]
call_site = "c"
[[workload.applications.jobs.stages]]
name = "s"
tasks = 1
duration = { fixed_ms = 1 }
[[faults]]
kind = "kill-am"
at_ms = 1
[expect]
[chaos]
window_ms = [0, 1]
kinds = ["kill-am"]
"#;

/// Inserts `__probe__ = 1` into the table at `path` (array steps take the first element).
fn probe(doc: &mut toml::Value, path: &[String]) {
    let mut at = doc;
    for step in path {
        at = if step == "[]" {
            &mut at.as_array_mut().expect("an array")[0]
        } else {
            at.as_table_mut()
                .expect("a table")
                .entry(step.clone())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()))
        };
    }
    at.as_table_mut()
        .expect("a table")
        .insert("__probe__".into(), toml::Value::Integer(1));
}

/// The keys the parser accepts in the table at `path`, from its unknown-key error.
fn parser_keys(path: &[String]) -> BTreeSet<String> {
    let mut doc: toml::Value = toml::from_str(EVERY_TABLE).expect("every table");
    probe(&mut doc, path);
    let text = toml::to_string(&doc).expect("toml");
    let e = load_error("probe.toml", &text);
    // serde's texts: "expected `a`", "expected `a` or `b`", "expected one of `a`, `b`, `c`".
    let list = e
        .split("unknown field `__probe__`, expected ")
        .nth(1)
        .unwrap_or_else(|| panic!("{path:?}: no key list in {e}"));
    let list = list.lines().next().unwrap_or_default();
    let list = list.strip_prefix("one of ").unwrap_or(list);
    list.split(", ")
        .flat_map(|k| k.split(" or "))
        .map(|k| k.trim().trim_matches('`').to_string())
        .collect()
}

/// Every table of the schema (with its TOML path) whose keys are closed.
fn schema_tables(root: &Value, s: &Value, path: Vec<String>, out: &mut Vec<(Vec<String>, Value)>) {
    let s = resolve(root, s);
    for alt in s
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        schema_tables(root, alt, path.clone(), out);
    }
    if let Some(items) = s.get("items") {
        let mut p = path.clone();
        p.push("[]".into());
        schema_tables(root, items, p, out);
    }
    if let Some(props) = s.get("properties").and_then(Value::as_object) {
        out.push((path.clone(), s.clone()));
        for (k, sub) in props {
            let mut p = path.clone();
            p.push(k.clone());
            schema_tables(root, sub, p, out);
        }
    }
}

/// The schema and the parser agree on the keys of every table: for each table of the schema,
/// the parser's unknown-key error lists exactly the schema's properties. Keys added to the
/// parser's types need no change here (only the regenerated schema).
#[test]
fn scenario_schema_and_parser_accept_the_same_keys_in_every_table() {
    let root = schema();
    let mut tables = Vec::new();
    schema_tables(&root, &root, Vec::new(), &mut tables);
    assert!(tables.len() >= 12, "{}", tables.len());
    for (path, table) in &tables {
        let schema_keys: BTreeSet<String> = table["properties"]
            .as_object()
            .expect("properties")
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            parser_keys(path),
            schema_keys,
            "table {path:?}: the parser and {SCHEMA} disagree"
        );
    }
}

/// Every fault kind of the schema is one the parser knows, and is documented.
#[test]
fn every_fault_kind_of_the_schema_is_parsed_and_documented() {
    let tmp = TestDir::new("toolkit");
    let root = schema();
    let kinds = root["$defs"]["FaultKind"]["enum"]
        .as_array()
        .expect("the kinds")
        .clone();
    let docs = std::fs::read_to_string("docs/scenarios.md").expect("docs");
    for k in &kinds {
        let k = k.as_str().expect("a string");
        let body = format!("name = \"k\"\n[submit]\nclass = \"X\"\n[[faults]]\nkind = \"{k}\"\n");
        if let Err(e) = scenario::load(&write(&tmp, "kind.toml", &body)) {
            assert!(!e.to_string().contains("unknown fault kind"), "{k}: {e}");
        }
        assert!(
            docs.contains(&format!("`{k}`")),
            "docs/scenarios.md does not document kind `{k}`"
        );
    }
}

/// docs/scenarios.md names every key of every table of the schema.
#[test]
fn docs_name_every_key_of_the_schema() {
    let root = schema();
    let mut tables = Vec::new();
    schema_tables(&root, &root, Vec::new(), &mut tables);
    let docs = std::fs::read_to_string("docs/scenarios.md").expect("docs");
    for (path, table) in &tables {
        for k in table["properties"].as_object().expect("properties").keys() {
            assert!(
                docs.contains(&format!("`{k}`")),
                "docs/scenarios.md does not document `{k}` (table {path:?})"
            );
        }
    }
}

// ----- Errors and notes -----

const HEAD: &str = "name = \"t\"\n[submit]\nclass = \"org.apache.spark.examples.SparkPi\"\n";

#[test]
fn scenario_errors_name_the_key_the_shape_and_the_valid_values() {
    let cases: Vec<(String, &str)> = vec![
        (
            "name = \"t\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 1\nduration = 5000\n[submit]\n".into(),
            "expected a table with one distribution: { fixed_ms = 5000 }",
        ),
        (
            format!("{HEAD}[[faults]]\nkind = \"kill-node\"\nat_ms = 1\nhost = \"nm-3\"\n"),
            "host: `nm-3` is not a NodeManager of this cluster; give a full host name: nm-1.sparkyard.internal",
        ),
        (
            format!("{HEAD}[[faults]]\nkind = \"meteor\"\nat_ms = 1\n"),
            "unknown fault kind `meteor`; valid kinds: kill-executor, kill-am",
        ),
        (
            "name = \"t\"\n[submit]\nclass = \"X\"\n[cluster]\nnodes = 10\n".into(),
            "line 5",
        ),
        (
            "name = \"t\"\n[submit]\n".into(),
            "submit.class: missing; give the user class",
        ),
    ];
    for (body, needle) in &cases {
        let e = load_error("errors.toml", body);
        assert!(e.contains(needle), "expected {needle:?} in:\n{e}");
    }
}

#[test]
fn silent_traps_are_errors_now() {
    let count = load_error(
        "count.toml",
        &format!(
            "{HEAD}[[faults]]\nkind = \"kill-executor\"\nat_ms = 1\nexecutor = 1\ncount = 2\n"
        ),
    );
    assert!(count.contains("kind 'kill-executor' does not use `count` (it kills one executor: write one [[faults]] entry per executor); besides its trigger it takes: executor, exit, status"), "{count}");
    let driver_time = load_error(
        "driver.toml",
        &format!("{HEAD}[[faults]]\nkind = \"user-class-throws\"\nat_ms = 5\n"),
    );
    assert!(
        driver_time
            .contains("does not use `at_ms` (a driver fault fires when its AM attempt starts"),
        "{driver_time}"
    );
    let orphan = load_error(
        "orphan.toml",
        "name = \"t\"\n[submit]\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"a\"\ntasks = 100\nduration = { fixed_ms = 1 }\n[[workload.jobs.stages]]\nname = \"b\"\ntasks = 20\nduration = { fixed_ms = 1 }\n",
    );
    assert!(orphan.contains("workload.jobs[0].stages[0] (`a`) is not an ancestor of the job's last stage (stages[1]), so it would never run"), "{orphan}");
}

#[test]
fn a_workload_without_a_class_runs_as_the_synthetic_job_and_says_so() {
    let tmp = TestDir::new("toolkit");
    let s = scenario::load(&write(
        &tmp,
        "synthetic.toml",
        "name = \"t\"\n[submit]\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"a\"\ntasks = 2\nduration = { fixed_ms = 1 }\n",
    ))
    .expect("loads");
    assert_eq!(
        s.notes,
        vec!["note: the [workload] runs as --class org.sparkyard.examples.SyntheticJob"]
    );
    let e = load_error(
        "synthetic-other.toml",
        "name = \"t\"\n[submit]\nclass = \"com.x.App\"\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"a\"\ntasks = 2\nduration = { fixed_ms = 1 }\n",
    );
    assert!(
        e.contains("leave `class` out or drop the [workload] table"),
        "{e}"
    );
}

#[test]
fn a_kill_node_on_an_empty_node_and_an_armed_network_rule_say_so() {
    let tmp = TestDir::new("toolkit");
    let body = format!(
        "{HEAD}args = [\"2\"]\nnum_executors = 1\n[[faults]]\nkind = \"kill-node\"\nat_ms = 100\nhost = \"nm-8.sparkyard.internal\"\n[[faults]]\nkind = \"drop\"\nat_ms = 0\nmessage = \"StatusUpdate\"\nprobability = 0.0\n"
    );
    let s = scenario::load(&write(&tmp, "empty-node.toml", &body)).expect("loads");
    let run = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    let notes: Vec<(String, Option<String>)> = run
        .fired
        .iter()
        .map(|f| (f.kind.clone(), f.note.clone()))
        .collect();
    assert_eq!(
        notes,
        vec![
            (
                "drop".into(),
                Some(
                    "network rule armed; it acts on each StatusUpdate message from then on".into()
                )
            ),
            (
                "kill-node".into(),
                Some(
                    "no container of the application was running on nm-8.sparkyard.internal".into()
                )
            ),
        ]
    );
}

// ----- run --conf -----

#[test]
fn run_takes_conf_and_submit_overrides_on_top_of_the_scenario() {
    let tmp = TestDir::new("toolkit");
    let dir = tmp.join("conf-events");
    let events = dir.join("events");
    std::fs::create_dir_all(&events).expect("dir");
    let logs = dir.join("logs").display().to_string();
    let conf_dir = format!("spark.eventLog.dir={}", events.display());
    let out = binary(&[
        "run",
        "config/scenarios/executor-sigkill.toml",
        "--log-dir",
        &logs,
        "--no-progress",
        "--conf",
        "spark.eventLog.enabled=true",
        "--conf",
        &conf_dir,
        "--num-executors",
        "3",
    ]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("event log: "),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(&events).expect("events").count(), 1);
    let bad = binary(&[
        "run",
        "config/scenarios/executor-sigkill.toml",
        "--conf",
        "novalue",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("`novalue`: expected KEY=VALUE"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn output_paths_are_checked_before_the_run() {
    let out = binary(&[
        "run",
        "config/scenarios/executor-sigkill.toml",
        "--trace",
        "/nonexistent/x.json",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr
            .contains("--trace: the directory /nonexistent does not exist (checked before the run"),
        "{stderr}"
    );
    assert!(
        !text(&out.stdout).contains("sparkyard: application_"),
        "the run did not start"
    );
}

#[test]
fn rust_log_with_an_unknown_target_is_refused() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sparkyard"))
        .args(["run", "config/scenarios/executor-sigkill.toml"])
        .env("RUST_LOG", "bogus=info")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("`bogus` is not a sparkyard log target"),
        "{}",
        text(&out.stderr)
    );
}

// ----- Sweeps -----

#[test]
fn sweep_names_the_seeds_of_each_outcome_and_the_faults_by_kind() {
    let s = scenario::load(Path::new("config/scenarios/chaos.toml")).expect("loads");
    let reports = sparkyard::sweep::sweep(&s, 115..125, 2).expect("runs");
    let (text, broken) = sparkyard::sweep::report("chaos.toml", &reports);
    assert_eq!(broken, 0, "{text}");
    assert!(text.contains("outcome FAILED/FAILED: 1 seed(s): 121\n  reproduce: sparkyard run chaos.toml --seed 121\n"), "{text}");
    assert!(
        text.contains(
            "outcome FINISHED/SUCCEEDED: 9 seed(s): 115, 116, 117, 118, 119, 120, 122, 123, 124\n"
        ),
        "{text}"
    );
    assert!(text.contains("faults fired: "), "{text}");
    let fired: usize = reports.values().map(|r| r.faults_fired.len()).sum();
    assert!(text.contains(&format!("faults fired: {fired} (")), "{text}");
}

#[test]
fn sweep_expect_reports_a_failed_expectation_like_a_violation() {
    let tmp = TestDir::new("toolkit");
    // node-lost expects FINISHED; under the chaos of another seed's workload it still must, but
    // an expectation that cannot hold shows how a failure is reported.
    let body = std::fs::read_to_string("config/scenarios/node-lost.toml")
        .expect("read")
        .replace("executors_lost = 2", "executors_lost = 3");
    let s = scenario::load(&write(&tmp, "node-lost-3.toml", &body)).expect("loads");
    let config = sparkyard::sweep::SweepConfig {
        jobs: 1,
        expect: true,
        progress: false,
        fingerprints: true,
    };
    let reports = sparkyard::sweep::sweep_with(&s, 1..3, &config).expect("runs");
    let (text, broken) = sparkyard::sweep::report_with("n.toml", &reports);
    assert_eq!(broken, 2, "{text}");
    assert!(text.contains("seed 1: expectation failed: expected executors lost 3, got 2\n  reproduce: sparkyard run n.toml --seed 1\n"), "{text}");
    assert!(
        text.contains("0 invariant violation(s), 2 failed expectation(s)"),
        "{text}"
    );
    // Without --expect the same sweep is clean.
    let plain = sparkyard::sweep::sweep(&s, 1..3, 1).expect("runs");
    assert_eq!(sparkyard::sweep::report("n.toml", &plain).1, 0);
}

#[test]
fn sweep_json_has_one_line_per_seed_and_shards_merge_into_the_unsharded_report_bytes() {
    let tmp = TestDir::new("toolkit");
    let whole = binary(&[
        "sweep",
        "config/scenarios/chaos.toml",
        "--seeds",
        "1..13",
        "--no-progress",
    ]);
    assert_eq!(whole.status.code(), Some(0), "{}", text(&whole.stderr));
    let json = binary(&[
        "sweep",
        "config/scenarios/chaos.toml",
        "--seeds",
        "1..13",
        "--json",
        "--no-progress",
    ]);
    let lines: Vec<Value> = text(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 13, "a header and 12 seeds");
    assert_eq!(lines[0]["sweep"]["scenario"], "config/scenarios/chaos.toml");
    for (i, l) in lines[1..].iter().enumerate() {
        assert_eq!(l["seed"], (i + 1) as u64);
        for key in [
            "outcome",
            "end_ms",
            "faults_fired",
            "violations",
            "expectation_failures",
            "fingerprint",
        ] {
            assert!(l.get(key).is_some(), "{key} in {l}");
        }
        assert_eq!(l["fingerprint"].as_str().map(str::len), Some(16));
    }
    // A seed's fingerprint is the one `run` prints for it.
    let run = binary(&[
        "run",
        "config/scenarios/chaos.toml",
        "--seed",
        "3",
        "--log-dir",
        &tmp.join("fp-logs").display().to_string(),
        "--no-progress",
    ]);
    let fp = lines[3]["fingerprint"].as_str().expect("fp");
    assert!(
        text(&run.stdout).contains(&format!("trace fingerprint: {fp}")),
        "{}",
        text(&run.stdout)
    );
    // Three shards, merged in any order, print the unsharded report byte for byte.
    let mut files = Vec::new();
    for k in [3, 1, 2] {
        let out = binary(&[
            "sweep",
            "config/scenarios/chaos.toml",
            "--seeds",
            "1..13",
            "--shard",
            &format!("{k}/3"),
            "--no-progress",
        ]);
        assert_eq!(out.status.code(), Some(0));
        files.push(
            write(&tmp, &format!("shard-{k}.jsonl"), &text(&out.stdout))
                .display()
                .to_string(),
        );
    }
    let mut args = vec!["sweep-merge"];
    args.extend(files.iter().map(String::as_str));
    let merged = binary(&args);
    assert_eq!(merged.status.code(), Some(0), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&whole.stdout));
    // A missing shard is refused.
    let partial = binary(&["sweep-merge", &files[0], &files[1]]);
    assert_eq!(partial.status.code(), Some(1));
    assert!(
        text(&partial.stderr).contains("missing shard(s) 2/3"),
        "{}",
        text(&partial.stderr)
    );
}

// ----- Shrink -----

/// Seed 121 of chaos.toml ends FAILED (both AM attempts killed, plus an executor exit that
/// never fires); shrink keeps the two AM kills, and `run` reproduces the outcome from the file.
#[test]
fn shrink_reduces_a_failed_chaos_seed_to_a_plain_scenario_that_run_reproduces() {
    let tmp = TestDir::new("toolkit");
    let out_file = tmp.join("chaos-121-shrunk.toml");
    let out = binary(&[
        "shrink",
        "config/scenarios/chaos.toml",
        "--seed",
        "121",
        "--until",
        "outcome=FAILED",
        "-o",
        &out_file.display().to_string(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("2 of 3 fault(s) still show `outcome=FAILED`"),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&out_file).expect("written");
    assert!(!written.contains("[chaos]"), "{written}");
    assert_eq!(written.matches("[[faults]]").count(), 2, "{written}");
    assert_eq!(
        written.matches("kind = \"kill-am\"").count(),
        2,
        "{written}"
    );
    let s = scenario::load(&out_file).expect("the shrunk file loads");
    assert!(!s.has_chaos());
    let run = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    assert_eq!(
        run.result.outcome.state.map(|s| s.to_string()).as_deref(),
        Some("FAILED")
    );
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    // A seed that shows nothing cannot be shrunk.
    let nothing = binary(&["shrink", "config/scenarios/chaos.toml", "--seed", "1"]);
    assert_eq!(nothing.status.code(), Some(1));
    assert!(
        text(&nothing.stderr).contains("breaks no invariant and meets every expectation"),
        "{}",
        text(&nothing.stderr)
    );
}

/// The example of issue 15, written from docs/scenarios.md alone: kill 2 of 5 executors at
/// 30 s, lose a node at 60 s, 10 nodes, 3 stages.
#[test]
fn the_newcomers_scenario_from_the_docs_runs() {
    let p = Path::new("docs/examples/newcomer.toml");
    let s = scenario::load(p).expect("loads");
    let run = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    assert!(run.failures.is_empty(), "{:?}", run.failures);
    let kinds: Vec<&str> = run.fired.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(kinds, ["kill-executor", "kill-executor", "kill-node"]);
    // Issue 30, item 7: the node lost at 60 s holds the application's executors (its target
    // is the node of the first running executor), so it costs executors.
    let node = &run.fired[2];
    assert!(node.no_effect.is_none(), "{node:?}");
    let note = node.note.as_deref().unwrap_or_default();
    assert!(note.starts_with("on nm-"), "{note}");
    assert!(!note.contains("no container"), "{note}");
    assert!(
        run.result.counters.executors_lost.len() > 2,
        "{:?}",
        run.result.counters.executors_lost
    );
}

// ----- The run's seed reaches every draw (issue 30, item 1) -----

/// A workload with random durations and no faults: only the run's seed can vary it.
const RANDOM_DURATIONS: &str = r#"
name = "random-durations"
seed = 5

[submit]
num_executors = 2

[workload]
[[workload.jobs]]
call_site = "count at Random.scala:1"
[[workload.jobs.stages]]
name = "map at Random.scala:1"
tasks = 6
duration = { lognormal_median_ms = 40000, lognormal_sigma = 1.0 }
"#;

/// `--seeds` used to change nothing in a workload drawn at parse time from the file's `seed =`:
/// 20 seeds ran the same durations. Now each seed draws its own (the one stage's length is the
/// application's run time, so distinct end times are distinct stage durations), and a seed's
/// run is the same bytes every time, the file's own seed included.
#[test]
fn a_sweeps_seeds_draw_different_task_durations_and_a_seed_repeats_itself() {
    let tmp = TestDir::new("toolkit");
    let s = scenario::load(&write(&tmp, "random-durations.toml", RANDOM_DURATIONS)).expect("loads");
    let reports = sparkyard::sweep::sweep(&s, 1..21, 2).expect("runs");
    let ends: BTreeSet<u64> = reports.values().map(|r| r.end_ms).collect();
    assert!(
        ends.len() >= 15,
        "20 seeds, {} distinct durations: {ends:?}",
        ends.len()
    );
    let again = sparkyard::sweep::sweep(&s, 1..21, 1).expect("runs");
    assert_eq!(reports, again, "the same seeds give the same records");
    // The file's seed is the default: `run` without --seed is seed 5's run.
    let default = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    let five = sparkyard::sweep::sweep(&s, 5..6, 1).expect("runs");
    assert_eq!(
        Some(format!("{:016x}", default.result.fingerprint)),
        five[&5].fingerprint
    );
    // The same seed on the command line gives the same bytes.
    let file = tmp.join("random-durations.toml").display().to_string();
    let logs = tmp.join("random-logs").display().to_string();
    let cli = || {
        binary(&[
            "run",
            &file,
            "--seed",
            "9",
            "--log-dir",
            &logs,
            "--no-progress",
        ])
    };
    let (a, b) = (cli(), cli());
    assert_eq!(a.status.code(), Some(0), "{}", text(&a.stderr));
    assert_eq!(text(&a.stdout), text(&b.stdout));
}

/// The `reproduce:` line of a `run` with `[submit]` overrides carries them (issue 30, item 3):
/// running it gives the same trace fingerprint, which the scenario's own submission does not.
#[test]
fn run_reproduce_line_keeps_the_overrides_and_reruns_to_the_same_fingerprint() {
    let tmp = TestDir::new("toolkit");
    let logs = tmp.join("reproduce-logs").display().to_string();
    let line = |out: &std::process::Output, prefix: &str| -> String {
        let stdout = text(&out.stdout);
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in {stdout}{}", text(&out.stderr)))
            .to_string()
    };
    let first = binary(&[
        "run",
        "config/scenarios/executor-sigkill.toml",
        "--log-dir",
        &logs,
        "--no-progress",
        "--num-executors",
        "3",
        "--conf",
        "spark.task.maxFailures=6",
        "--conf",
        "spark.my.password=hunter2",
    ]);
    let again = line(&first, "reproduce: ");
    assert_eq!(
        again,
        "sparkyard run config/scenarios/executor-sigkill.toml --seed 42 --num-executors 3 --conf spark.task.maxFailures=6 --conf 'spark.my.password=*********(redacted)'"
    );
    let words: Vec<String> = shell_words(&again.replace("*********(redacted)", "hunter2"));
    let mut args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
    args.extend(["--log-dir", &logs, "--no-progress"]);
    let rerun = binary(&args);
    let fp = line(&first, "trace fingerprint: ");
    assert_eq!(line(&rerun, "trace fingerprint: "), fp);
    let plain = binary(&[
        "run",
        "config/scenarios/executor-sigkill.toml",
        "--log-dir",
        &logs,
        "--no-progress",
    ]);
    assert_ne!(
        line(&plain, "trace fingerprint: "),
        fp,
        "the overrides change the run"
    );
}

/// Words of a command line as `reproduce:` quotes them (plain words and '...' quoting only).
fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => out.push(std::mem::take(&mut word)),
            c => word.push(c),
        }
    }
    out.push(word);
    out
}

/// `run --no-container-logs` keeps nothing to write, so it leaves an earlier run's container
/// logs of the same application id in place (issue 30, item 8).
#[test]
fn no_container_logs_leaves_an_earlier_runs_logs_alone() {
    let tmp = TestDir::new("toolkit");
    let logs = tmp.join("kept-logs");
    let _ = std::fs::remove_dir_all(&logs);
    let dir = logs.display().to_string();
    let file = write(&tmp, "kept-logs.toml", RANDOM_DURATIONS)
        .display()
        .to_string();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", &file, "--log-dir", &dir, "--no-progress"];
        args.extend(extra);
        binary(&args)
    };
    assert_eq!(run(&[]).status.code(), Some(0));
    let count = || walk(&logs).iter().filter(|p| p.ends_with("stderr")).count();
    let before = count();
    assert!(before > 2, "{before} container logs");
    let second = run(&["--no-container-logs"]);
    assert_eq!(second.status.code(), Some(0), "{}", text(&second.stderr));
    assert!(
        !text(&second.stderr).contains("were replaced"),
        "{}",
        text(&second.stderr)
    );
    assert_eq!(count(), before, "the first run's logs are still there");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Every shrunk file reproduces its seed (issue 30, item 2): shrink wrote `seed = N`, which drew
/// the workload from N where the sweep's run had drawn it from the file's seed, so `run` of the
/// result could end otherwise. Several failing seeds of a chaos scenario (an expectation no kill
/// lets hold), each shrunk and its file run: the same outcome and trace fingerprint as shrink's
/// own last run, and no label keeps a drawn time or the `chaos: ` prefix.
#[test]
fn shrunk_files_of_several_seeds_run_to_the_same_outcome_and_fingerprint() {
    let tmp = TestDir::new("toolkit");
    use sparkyard::scenario::shrink::{Until, scenario_file, shrink};
    let body = std::fs::read_to_string("config/scenarios/chaos.toml")
        .expect("read")
        .replace(
            "[chaos]",
            "[expect]\nam_exit_codes = [0]\nexecutors_lost = 0\n\n[chaos]",
        );
    let path = write(&tmp, "chaos-expect.toml", &body);
    let s = scenario::load(&path).expect("loads");
    let config = sparkyard::sweep::SweepConfig {
        jobs: 2,
        expect: true,
        progress: false,
        fingerprints: true,
    };
    let reports = sparkyard::sweep::sweep_with(&s, 1..40, &config).expect("runs");
    let failing: Vec<u64> = reports
        .values()
        .filter(|r| !r.expectation_failures.is_empty())
        .map(|r| r.seed)
        .take(4)
        .collect();
    assert_eq!(failing.len(), 4, "{reports:?}");
    for seed in failing {
        let shrunk = shrink(&s, seed, Some(Until::Expect)).expect("shrinks");
        let out = tmp.join(format!("chaos-expect-{seed}-shrunk.toml"));
        let file = scenario_file(&s, &body, seed, &shrunk, &out).expect("file");
        std::fs::write(&out, &file).expect("write");
        for f in &shrunk.faults {
            let label = f.label.clone().unwrap_or_default();
            assert!(!label.starts_with("chaos: "), "{label}");
            if let Some(at) = f.at_ms {
                assert!(label.ends_with(&format!(" at {at} ms")), "{label}");
            }
        }
        let again = scenario::load(&out).expect("the shrunk file loads");
        let run =
            scenario::run(&again, None, sparkyard::runner::RunOptions::default()).expect("runs");
        let o = &run.result.outcome;
        let outcome = (
            o.state.map_or("NOT-SUBMITTED".into(), |x| x.to_string()),
            o.final_status.map_or("NONE".into(), |x| x.to_string()),
        );
        assert_eq!(
            outcome,
            (shrunk.state.clone(), shrunk.final_status.clone()),
            "seed {seed}:\n{file}"
        );
        assert_eq!(
            run.result.fingerprint, shrunk.fingerprint,
            "seed {seed}:\n{file}"
        );
        assert!(
            !run.expect_failures.is_empty(),
            "seed {seed} still fails its [expect]"
        );
    }
}

// ----- Faults aimed at the application (issue 30, items 10 and 11) -----

/// A synthetic job long enough for faults at 20 s to find its executors running.
fn aimed(faults: &str) -> String {
    format!(
        "name = \"aimed\"\n[submit]\nnum_executors = 3\n[workload]\n[[workload.jobs]]\ncall_site = \"c\"\n[[workload.jobs.stages]]\nname = \"s\"\ntasks = 12\nduration = {{ fixed_ms = 30000 }}\n{faults}"
    )
}

/// Node faults take `target` instead of `host`: the AM's node, executor N's node, the node of
/// the K-th running executor, each resolved when the fault fires and reported as the node it
/// hit (typed: the run's `Firing` record, not a log line); the kill costs the executors there.
#[test]
fn node_faults_aimed_at_the_application_hit_its_nodes_and_say_which() {
    let tmp = TestDir::new("toolkit");
    let body = aimed(
        "[[faults]]\nkind = \"kill-node\"\ntarget = \"executor:2\"\nat_ms = 20000\n[[faults]]\nkind = \"kill-shuffle-service\"\ntarget = \"am\"\nat_ms = 21000\n[[faults]]\nkind = \"slow-node\"\ntarget = \"running-executor:2\"\nfactor = 2\nat_ms = 22000\n",
    );
    let s = scenario::load(&write(&tmp, "aimed.toml", &body)).expect("loads");
    let run = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    let r = &run.result;
    let exec_host = |n: u32| -> String {
        r.trace
            .iter()
            .find_map(|e| match &e.kind {
                sparkyard_actors::simulation::trace::TraceKind::State(
                    sparkyard_actors::simulation::trace::StateChange::ContainerLocalizing {
                        host,
                        executor: Some(x),
                        ..
                    },
                ) if x.0 == n => Some(host.clone()),
                _ => None,
            })
            .expect("executor launched")
    };
    use sparkyard_actors::simulation::trace::FaultTarget;
    let hosts: Vec<FaultTarget> = run.fired.iter().map(|f| f.target.clone()).collect();
    assert_eq!(hosts[0], FaultTarget::Node(exec_host(2)), "{:?}", run.fired);
    assert!(matches!(&hosts[1], FaultTarget::Node(h) if h.starts_with("nm-")));
    // The service stops, but without spark.shuffle.service.enabled the application used none
    // (BlockManager): the fault hit its node and says Spark saw nothing.
    let why = |i: usize| run.fired[i].no_effect.as_deref();
    assert_eq!((why(0), why(2)), (None, None), "{:?}", run.fired);
    assert!(
        why(1).is_some_and(|w| w.contains("spark.shuffle.service.enabled is false")),
        "{:?}",
        run.fired
    );
    let note = run.fired[0].note.as_deref().unwrap_or_default();
    assert_eq!(note, format!("on {}", exec_host(2)));
    assert!(
        !r.counters.executors_lost.is_empty(),
        "the node's executor is lost"
    );
    // Bad targets are refused at load with the valid ones.
    for (t, needle) in [
        ("executor:0", "needs a number from 1"),
        ("driver", "is not one of am (the AM's node), executor:N"),
    ] {
        let e = load_error(
            "bad-target.toml",
            &aimed(&format!(
                "[[faults]]\nkind = \"kill-node\"\ntarget = \"{t}\"\nat_ms = 1\n"
            )),
        );
        assert!(e.contains(needle), "{e}");
    }
    let both = load_error(
        "both.toml",
        &aimed(
            "[[faults]]\nkind = \"kill-node\"\ntarget = \"am\"\nhost = \"nm-1.sparkyard.internal\"\nat_ms = 1\n",
        ),
    );
    assert!(both.contains("not both"), "{both}");
}

/// A fault that fires and cannot act says exactly why, in the run's record and the summary:
/// an executor never launched, an executor that already ended, no executor running.
#[test]
fn a_fault_that_cannot_act_says_exactly_why() {
    let tmp = TestDir::new("toolkit");
    let body = aimed(
        "[[faults]]\nkind = \"kill-executor\"\nexecutor = 9\nat_ms = 20000\n[[faults]]\nkind = \"kill-executor\"\nexecutor = 1\nat_ms = 20000\n[[faults]]\nkind = \"kill-executor\"\nexecutor = 1\nat_ms = 25000\n[[faults]]\nkind = \"kill-node\"\ntarget = \"running-executor\"\nat_ms = 500\n",
    );
    let s = scenario::load(&write(&tmp, "idle-faults.toml", &body)).expect("loads");
    let run = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    let why: Vec<Option<String>> = run.fired.iter().map(|f| f.no_effect.clone()).collect();
    assert_eq!(
        why,
        [
            Some("no AM attempt had started yet, so no executor was running".to_string()),
            Some("executor 9 of AM attempt 1 was never launched (by then)".to_string()),
            None,
            Some(format!(
                "executor 1 of AM attempt 1 had already ended (container {})",
                match &run.fired[2].target {
                    sparkyard_actors::simulation::trace::FaultTarget::Container(c) => c.to_string(),
                    t => panic!("{t:?}"),
                }
            )),
        ]
    );
    let summary = sparkyard::report::recovery(&run.result, &run.fired);
    assert!(
        summary
            .contains("(it did nothing: executor 9 of AM attempt 1 was never launched (by then))"),
        "{summary}"
    );
}

/// `[chaos]` kill-node draws a node of the application (the node of a running executor when it
/// fires), so most kills cost executors; the sweep's JSON gives each fault's resolved target.
#[test]
fn chaos_kill_node_hits_a_node_of_the_application() {
    let tmp = TestDir::new("toolkit");
    let body = std::fs::read_to_string("config/scenarios/chaos.toml")
        .expect("read")
        .replace(
            "kinds = [\"kill-executor\", \"nm-kill\", \"kill-am\", \"kill-node\", \"delay\", \"partition\", \"launch-failure\"]",
            "kinds = [\"kill-node\"]",
        )
        .replace("faults = [1, 3]", "faults = [1, 1]");
    assert!(body.contains("kinds = [\"kill-node\"]"));
    let s = scenario::load(&write(&tmp, "chaos-kill-node.toml", &body)).expect("loads");
    let reports = sparkyard::sweep::sweep(&s, 1..21, 2).expect("runs");
    let (mut hit, mut fired) = (0, 0);
    // A seed whose application ends before the drawn time fires nothing.
    for r in reports.values().filter(|r| !r.faults_fired.is_empty()) {
        fired += 1;
        let f = &r.faults_fired[0];
        assert!(f.label.contains("the node of running executor #"), "{f:?}");
        if f.no_effect.is_none() {
            assert!(
                f.target.as_deref().is_some_and(|t| t.starts_with("nm-")),
                "{f:?}"
            );
            hit += 1;
        }
    }
    assert!(fired >= 15, "{fired} of 20 seeds fired");
    assert!(
        hit + 1 >= fired,
        "{hit} of {fired} kills hit a node of the application"
    );
}

/// A planned event fault that never fired says why (issue 30, item 17): the AM attempt its
/// trigger waits in ended before the event (a kill of attempt 1; attempt 2 ran the task), or
/// never came.
#[test]
fn an_unfired_fault_names_the_am_attempt_it_waited_for() {
    let tmp = TestDir::new("toolkit");
    let body = aimed(
        "[[faults]]\nkind = \"kill-am\"\nat_ms = 20000\n[[faults]]\nkind = \"kill-executor\"\nlabel = \"late task\"\nexecutor = 1\non_task_started = [0, 11]\n[[faults]]\nkind = \"kill-executor\"\nlabel = \"third attempt\"\nexecutor = 1\nattempt = 3\non_task_started = [0, 0]\n",
    );
    let s = scenario::load(&write(&tmp, "unfired.toml", &body)).expect("loads");
    let run = scenario::run(&s, None, sparkyard::runner::RunOptions::default()).expect("runs");
    assert_eq!(run.result.counters.am_attempts, 2, "{:?}", run.failures);
    let unfired: Vec<&String> = run
        .expect_failures
        .iter()
        .filter(|f| f.contains("never fired"))
        .collect();
    assert_eq!(
        unfired,
        [
            "fault `late task` never fired: it waited for task 11 of stage 0 starting in AM attempt 1, but AM attempt 1 ended (exit code 137) before that happened; attempt 2 does not fire it (its `attempt` key names the attempt)",
            "fault `third attempt` never fired: it waited for task 0 of stage 0 starting in AM attempt 3, but AM attempt 3 never came (the application ran 2 AM attempt(s))",
        ]
    );
}

/// A scenario given to `replay --scenario` only for its faults needs no `[submit] class` (the
/// event log names the application; issue 30, item 17); `run` still asks for one.
#[test]
fn a_scenario_used_for_its_faults_in_a_replay_needs_no_class() {
    let tmp = TestDir::new("toolkit");
    let body = "name = \"faults only\"\n[submit]\n[[faults]]\nkind = \"kill-executor\"\nexecutor = 1\nat_ms = 3000\n";
    let p = write(&tmp, "faults-only.toml", body);
    assert!(scenario::load_for_faults(&p).is_ok());
    let e = load_error("faults-only-run.toml", body);
    assert!(e.contains("submit.class: missing"), "{e}");
    let out = binary(&[
        "replay",
        "tests/data/eventlogs/multijob_n2_r1.zstd",
        "--scenario",
        &p.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}
