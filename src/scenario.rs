//! Scenario files (TOML): a cluster, a spark-submit line, an optional synthetic workload, the
//! faults with their triggers, and the expectations that must hold at the end. Parsed raw (serde,
//! unknown keys refused with their line), then validated into the simulator's types with errors
//! that name the file, the line and the key. Each table has its room: `cluster`, `submit`,
//! `workload`, `fault_entry` / `fault_kinds` / `fault_plan` (`[[faults]]`; every kind declared
//! once in `fault_kinds`), `chaos`, `expect`, `arrivals` (`[[workload.applications]]`, run by
//! `crate::arrivals`); `fired` says what the faults that fired did. The raw types derive
//! `schemars::JsonSchema`, so `config/scenario.schema.json` (module `schema`) follows every key
//! added here; `docs/scenarios.md` documents them. `shrink` minimises a seed's fault
//! schedule into a plain scenario file.

/// A string schema named `$schema` whose values are one of a list (the kinds' enums of the
/// schema).
macro_rules! string_enum_schema {
    ($(#[$doc:meta])* $name:ident, $schema:literal, $values:expr) => {
        $(#[$doc])*
        pub(super) struct $name;

        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $schema.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": $values })
            }
        }
    };
}
use string_enum_schema;

pub mod arrivals;
pub mod chaos;
pub mod cluster;
pub mod expect;
pub mod fault_entry;
pub mod fault_kinds;
pub mod fault_plan;
pub mod fired;
pub mod schema;
pub mod shrink;
pub mod submit;
pub mod workload;

use crate::conf::cluster::{ClusterConfig, read_config_file};
use crate::conf::submit::{DefaultsFile, SubmitArgs};
use crate::error::UserError;
use crate::pipeline::{ClusterChoice, CompletedRun, RunPlan, Settled, Submission};
use chaos::RawChaos;
use fault_entry::RawFault;
use fault_plan::{Planned, check_keys, fault, fault_keys};
use schemars::JsonSchema;
use serde::Deserialize;
use sparkyard_actors::simulation::config::UserProgram;
use sparkyard_actors::simulation::faults::{FaultController, PlannedDriverFault, PlannedFault};
use std::path::{Path, PathBuf};
use submit::RawSubmit;
use toml::Spanned;
use workload::RawWorkload;

pub use chaos::CHAOS_LABEL;
pub use expect::{Expectations, check};
pub use fired::FiredFault;
pub use submit::SubmitOverrides;
pub use workload::SYNTHETIC_CLASS;

/// A sparkyard scenario: a cluster, a spark-submit line, an optional synthetic workload, faults
/// and the expectations checked at the end (docs/scenarios.md).
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "sparkyard scenario")]
pub(crate) struct RawScenario {
    /// The scenario's name, printed by `sparkyard run`.
    name: String,
    /// What the scenario shows (free text).
    #[serde(default)]
    description: String,
    /// The seed every random choice derives from (default 42); `run --seed N` overrides it.
    seed: Option<u64>,
    /// Virtual time after which a run that has not ended is a hang, ms (default: one day, or
    /// `[chaos].deadline_ms`).
    deadline_ms: Option<u64>,
    /// A cluster file (path relative to this file); give it or a `[cluster]` table, not both.
    /// Default: the embedded config/cluster.toml (8 NodeManagers on two racks).
    cluster_file: Option<String>,
    /// The cluster, written inline (the keys of a cluster file).
    cluster: Option<crate::conf::cluster::RawCluster>,
    /// The spark-submit line (`--master yarn --deploy-mode cluster` is implied); left out when
    /// `[[workload.applications]]` say what runs.
    #[serde(default)]
    submit: RawSubmit,
    /// A synthetic application (jobs of stages of sleeping tasks) run as the user class.
    workload: Option<RawWorkload>,
    /// Faults, each with one trigger.
    #[serde(default)]
    #[schemars(with = "Vec<RawFault>")]
    faults: Vec<Spanned<RawFault>>,
    /// What must hold at the end of the run.
    #[serde(default)]
    expect: Expectations,
    /// Random faults drawn per seed (`sparkyard sweep`, `sparkyard shrink`).
    chaos: Option<RawChaos>,
}

/// A validated scenario.
pub struct Scenario {
    pub name: String,
    pub description: String,
    pub path: PathBuf,
    pub seed: Option<u64>,
    pub cluster: ClusterConfig,
    /// The spark-submit words (`--master yarn --deploy-mode cluster ...`).
    pub submit_words: Vec<String>,
    /// The `[workload]` drawn from the file's seed (the default seed when it has none); a run
    /// under another seed draws its own (`program`).
    pub synthetic: Option<UserProgram>,
    /// The `[workload]` table as written: every run draws its tasks from its own seed.
    workload: Option<std::sync::Arc<RawWorkload>>,
    pub faults: Vec<PlannedFault>,
    pub driver_faults: Vec<PlannedDriverFault>,
    pub expect: Expectations,
    chaos: Option<RawChaos>,
    /// The `[submit]` table (the run's overrides are applied to it).
    submit: RawSubmit,
    /// The `[[faults]]` entries as written, in order (shrink rebuilds schedules from them).
    raw_faults: Vec<RawFault>,
    /// The `kind` of each entry of `faults`, in the same order.
    pub fault_kinds: Vec<String>,
    /// The top-level `deadline_ms`.
    deadline: Option<u64>,
    /// Things the user should know about how the file was read (printed by `run`).
    pub notes: Vec<String>,
    /// `[[workload.applications]]`: the applications that arrive on the cluster (the scenario
    /// then runs them, not a `[submit]` line).
    pub arrivals: Option<arrivals::Arrivals>,
    /// Test-only (no scenario key sets it): `RunOptions::panic_at_ms` for every run of it.
    #[doc(hidden)]
    pub panic_at_ms: Option<u64>,
}

impl Scenario {
    /// Whether the scenario draws random faults per seed.
    pub fn has_chaos(&self) -> bool {
        self.chaos.is_some()
    }

    /// The faults of one run under `seed`: the planned ones, the `[chaos]` ones drawn from the
    /// seed, and the `[chaos]` deadline (what `run` uses; `sparkyard replay --scenario` too).
    pub fn fault_plan(&self, seed: u64) -> Result<(FaultController, Option<u64>), UserError> {
        self.fault_plan_for(seed, self.applications(seed))
    }

    /// [`Scenario::fault_plan`] for a run of `applications` applications given from outside
    /// the file (`replay-cluster`'s logs): with several, `[chaos]` aims each fault at a running
    /// one.
    pub fn fault_plan_for(
        &self,
        seed: u64,
        applications: usize,
    ) -> Result<(FaultController, Option<u64>), UserError> {
        let mut planned = self.faults.clone();
        let drawn = self.chaos_planned(seed, applications)?;
        planned.extend(drawn.into_iter().map(|(_, p)| p));
        Ok((
            FaultController::new(planned, self.driver_faults.clone()),
            self.deadline_ms(),
        ))
    }

    /// The faults of a run under `seed` (the planned ones, then `[chaos]`'s), each with its kind.
    fn planned_faults(&self, seed: u64) -> Result<(Vec<PlannedFault>, Vec<String>), UserError> {
        let mut planned = self.faults.clone();
        let mut kinds = self.fault_kinds.clone();
        for (kind, p) in self.chaos_planned(seed, self.applications(seed))? {
            planned.push(p);
            kinds.push(kind);
        }
        Ok((planned, kinds))
    }

    /// The faults that fired in `r`, a run under `seed`, each with its kind and what it did (as
    /// `run` reports them; a sweep of a many-application scenario records them so).
    pub fn fired_in(
        &self,
        seed: u64,
        r: &crate::record::RunResult,
    ) -> Result<Vec<FiredFault>, UserError> {
        let (planned, kinds) = self.planned_faults(seed)?;
        Ok(fired::fired_faults(&planned, &kinds, r))
    }

    /// How many applications a run under `seed` submits: each `[[workload.applications]]`
    /// entry's arrivals, else the one.
    pub fn applications(&self, seed: u64) -> usize {
        let Some(a) = &self.arrivals else {
            return 1;
        };
        a.entries
            .iter()
            .enumerate()
            .map(|(i, e)| arrivals::arrival_times(&e.times, seed, i).len())
            .sum()
    }

    /// The `[chaos]` faults drawn from `seed`, planned (kind as drawn, fault).
    fn chaos_planned(
        &self,
        seed: u64,
        apps: usize,
    ) -> Result<Vec<(String, PlannedFault)>, UserError> {
        let Some(c) = &self.chaos else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (kind, raw) in chaos::chaos_faults_for(c, seed, &self.cluster, apps) {
            match fault(&raw, &self.cluster) {
                Ok(Planned::Fault(p)) => out.push((kind, p)),
                other => {
                    let why = other.err().unwrap_or_else(|| "not a timed fault".into());
                    return Err(UserError::file(
                        self.path.display().to_string(),
                        format!("[chaos] drew a fault sparkyard cannot plan ({why}): {raw:?}"),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The synthetic application of a run under `seed`: its task durations and block placement
    /// drawn from that seed (the file's `seed =` is only the default), so the seeds of a sweep
    /// run different workloads where the durations are random.
    pub fn program(&self, seed: u64) -> Result<Option<UserProgram>, UserError> {
        let Some(w) = &self.workload else {
            return Ok(None);
        };
        if seed == self.seed.unwrap_or(crate::conf::submit::DEFAULT_SEED) {
            return Ok(self.synthetic.clone());
        }
        workload::workload(w, seed, &self.cluster)
            .map(Some)
            .map_err(|m| UserError::file(self.path.display().to_string(), m))
    }

    /// The virtual deadline for one run (a run past it is a hang).
    pub fn deadline_ms(&self) -> Option<u64> {
        self.deadline.or(self.chaos.as_ref().map(|c| c.deadline_ms))
    }

    /// Applies `sparkyard run`'s submit overrides on top of the `[submit]` table.
    pub fn apply_overrides(&mut self, o: &SubmitOverrides) -> Result<(), UserError> {
        if let Some(a) = &mut self.arrivals {
            let only_conf = SubmitOverrides {
                conf: Vec::new(),
                ..o.clone()
            };
            if !only_conf.is_empty() {
                return Err(UserError::file(
                    self.path.display().to_string(),
                    "spark-submit options on the command line: this scenario's applications come from [[workload.applications]], each with its own settings; set them in its entries (num_executors, executor_memory, conf, ...); only --conf applies to every application",
                ));
            }
            // Every application's spark-submit gets the `--conf`s after its entry's own, so the
            // command line's value wins, as a later --conf does in spark-submit
            // (`spark.eventLog.enabled=true` writes each application's event log).
            for e in &mut a.entries {
                for kv in &o.conf {
                    e.flags.extend(["--conf".to_string(), kv.clone()]);
                }
            }
            return Ok(());
        }
        self.submit.apply(o)?;
        self.submit_words = submit::submit_words(&self.submit, self.synthetic.is_some());
        Ok(())
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|b| *b == b'\n')
        .count()
        + 1
}

/// Loads and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario, UserError> {
    load_with(path, Use::Run)
}

/// Loads a scenario whose faults (its `[[faults]]`, `[chaos]`, cluster and deadline) go to a
/// replay or what-if of an event log, which runs the log's application: `[submit] class` may be
/// left out (the log names the application).
pub fn load_for_faults(path: &Path) -> Result<Scenario, UserError> {
    load_with(path, Use::FaultsOnly)
}

/// What a scenario is loaded for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Use {
    /// `run`, `sweep`, `shrink`: its submission runs.
    Run,
    /// `replay` / `what-if --scenario`: only its faults are used.
    FaultsOnly,
}

fn load_with(path: &Path, purpose: Use) -> Result<Scenario, UserError> {
    let label = path.display().to_string();
    let text = read_config_file(path, &label, "scenario")?;
    if text.trim().is_empty() {
        return Err(UserError::file(
            &label,
            "the file is empty; a scenario needs at least `name` and a [submit] table",
        ));
    }
    let raw: RawScenario = toml::from_str(&text).map_err(|e| {
        let message = plain_types(&e.to_string());
        let hint = crate::conf::cluster::toml_hint(&message);
        UserError::file(
            &label,
            format!(
                "{}{hint}\n(every table and key, with its type: docs/scenarios.md)",
                message.trim_end()
            ),
        )
    })?;
    let err = |m: String| UserError::file(&label, m);
    let dir = path.parent().unwrap_or(Path::new("."));
    let cluster = cluster::resolve(
        raw.cluster_file.as_deref(),
        raw.cluster.as_ref(),
        &text,
        &label,
        dir,
    )?;
    let seed = raw.seed.unwrap_or(crate::conf::submit::DEFAULT_SEED);
    let arrivals = load_arrivals(&raw, &cluster, dir, purpose).map_err(err)?;
    let synthetic = raw
        .workload
        .as_ref()
        .filter(|_| arrivals.is_none())
        .map(|w| workload::workload(w, seed, &cluster))
        .transpose()
        .map_err(err)?;
    let mut notes = Vec::new();
    match (raw.submit.class(), synthetic.is_some()) {
        _ if arrivals.is_some() => {}
        (Some(c), true) if c != SYNTHETIC_CLASS => {
            return Err(err(format!(
                "submit.class: a [workload] runs as `{SYNTHETIC_CLASS}` (the class that plays the workload), not `{c}`; leave `class` out or drop the [workload] table to run `{c}`"
            )));
        }
        (None, true) => notes.push(format!(
            "note: the [workload] runs as --class {SYNTHETIC_CLASS}"
        )),
        (None, false) if purpose == Use::Run => {
            return Err(err(
                "submit.class: missing; give the user class (e.g. class = \"org.apache.spark.examples.SparkPi\") or a [workload] table".into(),
            ));
        }
        _ => {}
    }
    if let Some(w) = raw.workload.as_ref().filter(|_| synthetic.is_some()) {
        notes.extend(workload::empty_shuffle_notes(w));
    }
    let keys = fault_keys(&text);
    let mut faults = Vec::new();
    let mut fault_kinds = Vec::new();
    let mut driver_faults = Vec::new();
    for (i, f) in raw.faults.iter().enumerate() {
        let line = line_of(&text, f.span().start);
        let at = format!("line {line}: faults[{i}]");
        let given = keys.get(i).map(Vec::as_slice).unwrap_or_default();
        check_keys(f.get_ref(), given).map_err(|m| err(format!("{at}: {m}")))?;
        match fault(f.get_ref(), &cluster).map_err(|m| err(format!("{at}: {m}")))? {
            Planned::Fault(p) => {
                faults.push(p);
                fault_kinds.push(f.get_ref().kind.clone());
            }
            Planned::Driver(d) => driver_faults.push(d),
        }
    }
    expect::validate_expectations(&raw.expect, arrivals.is_some()).map_err(err)?;
    if let Some(c) = &raw.chaos {
        chaos::validate_chaos(c).map_err(|m| err(format!("chaos.{m}")))?;
    }
    if raw.deadline_ms == Some(0) {
        return Err(err("deadline_ms: must be positive".into()));
    }
    Ok(Scenario {
        name: raw.name,
        description: raw.description,
        path: path.to_path_buf(),
        seed: raw.seed,
        cluster,
        submit_words: submit::submit_words(&raw.submit, synthetic.is_some()),
        synthetic,
        workload: raw.workload.map(std::sync::Arc::new),
        faults,
        driver_faults,
        expect: raw.expect,
        chaos: raw.chaos,
        submit: raw.submit,
        raw_faults: raw.faults.into_iter().map(Spanned::into_inner).collect(),
        fault_kinds,
        deadline: raw.deadline_ms,
        notes,
        arrivals,
        panic_at_ms: None,
    })
}

/// The `[[workload.applications]]`, validated, when the file has some: then `[submit]` and
/// `[[workload.jobs]]` must be left out (each entry says what it runs, with its own settings),
/// and the file is for `run` (a replay's faults go to its log's application).
fn load_arrivals(
    raw: &RawScenario,
    cluster: &ClusterConfig,
    dir: &Path,
    purpose: Use,
) -> Result<Option<arrivals::Arrivals>, String> {
    let Some(w) = raw.workload.as_ref().filter(|w| !w.applications.is_empty()) else {
        return Ok(None);
    };
    if purpose == Use::FaultsOnly {
        return Err("workload.applications: a replay or what-if runs its event log's application; run this scenario with `sparkyard run`, or give replay-cluster the logs".into());
    }
    if !w.jobs.is_empty() {
        return Err("workload.jobs: with [[workload.applications]] each entry carries its own `jobs`; move the jobs into an entry".into());
    }
    if !raw.submit.is_empty() {
        return Err("submit: with [[workload.applications]] each entry carries its own spark-submit settings (class, num_executors, executor_memory, conf, ...); remove the [submit] table".into());
    }
    arrivals::arrivals(&w.applications, cluster, dir).map(Some)
}

/// serde's Rust type names in a TOML error, in the words of a TOML file.
fn plain_types(message: &str) -> String {
    const WORDS: [(&str, &str); 9] = [
        ("expected u64", "expected a non-negative integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected usize", "expected a non-negative integer"),
        ("expected i32", "expected an integer"),
        ("expected i64", "expected an integer"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected an array"),
        ("expected a boolean", "expected true or false"),
        (
            "expected an array of length 2",
            "expected an array of two values, [a, b]",
        ),
    ];
    let mut out = message.to_string();
    for (rust, toml) in WORDS {
        out = out.replace(rust, toml);
    }
    out
}

/// A scenario that ran: what happened and which expectations failed.
pub struct ScenarioRun {
    pub result: crate::record::RunResult,
    /// The Spark settings the run used (the event log needs them).
    pub spark: sparkyard_actors::simulation::config::SparkSettings,
    /// Expectations that failed (the `[expect]` table's, unfired faults) and broken invariants.
    pub failures: Vec<String>,
    /// The `[expect]` failures alone (no invariants).
    pub expect_failures: Vec<String>,
    pub seed: u64,
    /// The faults that fired, in order, with their kinds.
    pub fired: Vec<FiredFault>,
}

/// Runs the scenario under `seed` (the file's own seed when `None`) and checks its expectations.
pub fn run(
    s: &Scenario,
    seed: Option<u64>,
    opts: crate::runner::RunOptions,
) -> Result<ScenarioRun, UserError> {
    run_read(s, &SubmitRead::of(s), seed, opts)
}

/// A scenario's `[submit]` line read once for every seed that runs it (a sweep's): spark-submit's
/// parse and the Spark settings derived from it do not depend on the seed.
// Made once per sweep: the size difference between the variants costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum SubmitRead {
    /// spark-submit refused the words (a run's first error).
    Unparsed(UserError),
    /// The settings derived from the parse, or their error (which comes after the seed's own
    /// faults and workload are drawn, as in a run).
    Parsed(Result<Settled, UserError>),
}

impl SubmitRead {
    pub fn of(s: &Scenario) -> Self {
        let submission = SubmitArgs::from_words(s.submit_words.iter().cloned())
            .map_err(|e| UserError::file(s.path.display().to_string(), format!("[submit]: {e}")))
            .and_then(|args| Submission::from_args(args, DefaultsFile::embedded()))
            .map(|mut submission| {
                // A relative spark.scheduler.allocation.file is the scenario's neighbour.
                let dir = s.path.parent().unwrap_or(Path::new("."));
                submission.request.files_dir = Some(dir.to_path_buf());
                submission
            });
        match submission {
            Ok(submission) => SubmitRead::Parsed(submission.settle()),
            Err(e) => SubmitRead::Unparsed(e),
        }
    }
}

/// `run` runs one application; a `[[workload.applications]]` scenario is run by the arrivals
/// room.
fn check_one_application(s: &Scenario) -> Result<(), UserError> {
    if s.arrivals.is_some() {
        return Err(UserError::file(
            s.path.display().to_string(),
            "workload.applications: this scenario runs many applications in one simulation; `sparkyard run`, `sweep` and `shrink` run it (`sparkyard::arrivals`), this command runs one application",
        ));
    }
    Ok(())
}

/// [`run`] with the `[submit]` line already read ([`SubmitRead::of`] of the same scenario).
pub fn run_read(
    s: &Scenario,
    submit: &SubmitRead,
    seed: Option<u64>,
    mut opts: crate::runner::RunOptions,
) -> Result<ScenarioRun, UserError> {
    let seed = seed.or(s.seed).unwrap_or(crate::conf::submit::DEFAULT_SEED);
    check_one_application(s)?;
    let settled = match submit {
        SubmitRead::Unparsed(e) => return Err(e.clone()),
        SubmitRead::Parsed(settled) => settled,
    };
    opts.panic_at_ms = opts.panic_at_ms.or(s.panic_at_ms);
    let (planned, kinds) = s.planned_faults(seed)?;
    if let Some(ms) = s.deadline_ms() {
        opts.deadline_ms = ms;
    }
    let plan = RunPlan {
        cluster: ClusterChoice::Loaded(Box::new(s.cluster.clone())),
        seed: Some(seed),
        options: opts,
        synthetic: s.program(seed)?,
        faults: FaultController::new(planned.clone(), s.driver_faults.clone()),
    };
    let prepared = settled.clone()?.prepare(plan)?;
    let planned_copy = planned;
    let limits = crate::invariants::Limits::of(&prepared.config);
    let CompletedRun {
        spark, mut result, ..
    } = prepared.run()?;
    let end = crate::invariants::check(&result, &limits);
    result.violations.extend(end);
    let mut failures = check(&s.expect, &result);
    let expect_failures = failures.clone();
    let fired = fired::fired_faults(&planned_copy, &kinds, &result);
    failures.extend(
        result
            .violations
            .iter()
            .map(|v| format!("invariant {} broken: {}", v.invariant, v.detail)),
    );
    Ok(ScenarioRun {
        result,
        spark,
        failures,
        expect_failures,
        seed,
        fired,
    })
}
