//! The `sparkyard` command: `sparkyard submit ...` takes spark-submit's flags and runs the
//! application on the simulated YARN cluster. Exit codes follow spark-submit: 0 when the
//! application ends FINISHED/SUCCEEDED, 1 for a failed, killed or undefined application and for
//! every usage or validation error.

use clap::{Args, Parser, Subcommand};
use sparkyard::conf::submit::{SubmitAction, SubmitArgs, SubmitRequest};
use sparkyard::error::UserError;
use sparkyard::outputs::OutputArgs;
use sparkyard::pipeline::{self, RunPlan, Submission};
use sparkyard::runner::{RunOptions, RunResult};
use sparkyard::{logging, report};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

// jemalloc (feature `jemalloc`, the default): a large run spends ~40 % of its time in glibc's
// malloc as the heap grows; BENCHMARKS.md has the figures.
#[cfg(feature = "jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[derive(Parser)]
#[command(
    name = "sparkyard",
    version,
    about = "A deterministic simulator of Apache Spark on YARN in cluster mode"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up: the size difference between the variants costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Submit an application as `spark-submit --master yarn --deploy-mode cluster` would.
    Submit(SubmitCommand),
    /// Run a scenario file: a cluster, a submission, faults and the expectations to check.
    Run(RunCommand),
    /// Run a scenario under many seeds (random faults from its [chaos] table) and check Spark's
    /// and YARN's invariants after each run.
    Sweep(SweepCommand),
    /// Find a minimal fault schedule that still shows a seed's violation, outcome or failed
    /// expectation, and write it as a plain scenario file.
    Shrink(ShrinkCommand),
    /// Merge the JSON outputs of `sweep --shard K/N` into the report of the whole sweep.
    SweepMerge(SweepMergeCommand),
    /// Print the scenario file's JSON Schema (config/scenario.schema.json).
    #[command(hide = true)]
    Schema,
    /// Replay a Spark event log on the simulated cluster and compare it with the recording.
    Replay(ReplayCommand),
    /// Replay a Spark event log for every configuration of a grid under many seeds.
    WhatIf(WhatIfCommand),
    /// Replay many Spark event logs together on one simulated YARN cluster (a day of the
    /// cluster): each at its recorded time, by its user, to its queue.
    ReplayCluster(ReplayClusterCommand),
    /// Replay a day of many Spark event logs on one simulated YARN cluster for every
    /// configuration of a grid (cluster, queue and Spark keys) under many seeds.
    WhatIfCluster(WhatIfClusterCommand),
    /// List every Spark, Hadoop and YARN key sparkyard reads: its default, the class it comes
    /// from, and whether sparkyard simulates it, only records it, or refuses it.
    Keys(KeysCommand),
}

#[derive(Args)]
struct KeysCommand {
    /// Only the keys of this status.
    #[arg(long, value_name = "STATUS", value_parser = ["simulated", "recorded", "refused"])]
    status: Option<String>,
}

#[derive(Args)]
struct ReplayCommand {
    /// The event log: a file or a rolling directory (eventlog_v2_*), plain or zstd/lz4/snappy.
    eventlog: std::path::PathBuf,
    /// A scenario file whose faults the replay gets (its [chaos] faults drawn from --seed).
    #[arg(long, value_name = "FILE")]
    scenario: Option<std::path::PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// spark-submit options that override the log's (e.g. --num-executors 80 --conf K=V) and
    /// sparkyard's --cluster / --seed, before or after the event log; the replay's own options
    /// (--scenario, --json) may go anywhere among them.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    words: Vec<String>,
}

#[derive(Args)]
struct ReplayClusterCommand {
    #[command(flatten)]
    day: DayArgs,
    /// The seed every random choice derives from.
    #[arg(long, value_name = "N", default_value_t = sparkyard::conf::submit::DEFAULT_SEED)]
    seed: u64,
    /// KEY=VALUE: a Spark property every application gets (spark-submit's --conf), e.g.
    /// spark.eventLog.enabled=true with spark.eventLog.dir=DIR writes each one's event log.
    #[arg(long = "conf", value_name = "KEY=VALUE")]
    conf: Vec<String>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Write an SVG plot of each queue's memory held (against its guarantee) and containers
    /// pending over the day to FILE (no plot without it).
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
}

/// What a day of the cluster is made of (replay-cluster's and what-if-cluster's).
#[derive(Args)]
struct DayArgs {
    /// Event logs: files, rolling directories (eventlog_v2_*), or directories holding them.
    #[arg(required = true, value_name = "LOGS")]
    logs: Vec<std::path::PathBuf>,
    /// The cluster file (its [[queues]] are the queues applications go to).
    #[arg(long, value_name = "FILE")]
    cluster: Option<std::path::PathBuf>,
    /// A scenario file whose faults the day gets (its [chaos] faults drawn from the seed); its
    /// [cluster] is the day's without --cluster.
    #[arg(long, value_name = "FILE")]
    scenario: Option<std::path::PathBuf>,
    /// OLD=NEW: submit the applications recorded in queue OLD to the cluster's queue NEW.
    #[arg(long = "queue-map", value_name = "OLD=NEW")]
    queue_map: Vec<String>,
    /// Report an unreadable log (or a second log of one application) and go on without it.
    #[arg(long = "skip-bad")]
    skip_bad: bool,
    /// APP_NAME_GLOB=HH:MM (a time of day, UTC, on the logs' clock) or APP_NAME_GLOB=DURATION
    /// (after the application's submission, e.g. 90min): whether each application whose name
    /// matches ended by then; repeat for more.
    #[arg(long, value_name = "GLOB=WHEN")]
    deadline: Vec<String>,
}

impl DayArgs {
    /// The day's setup, with `seed` and the `--conf`s.
    fn setup(
        &self,
        seed: u64,
        conf: Vec<String>,
    ) -> Result<sparkyard::replay::cluster::DaySetup, UserError> {
        use sparkyard::replay::{cluster, cluster_deadline};
        Ok(cluster::DaySetup {
            cluster: self.cluster.clone(),
            scenario: load_scenario(self.scenario.as_deref())?,
            seed,
            queue_map: cluster::parse_queue_map(&self.queue_map)?,
            skip_bad: self.skip_bad,
            deadlines: cluster_deadline::parse_deadlines(&self.deadline)?,
            conf,
        })
    }
}

#[derive(Args)]
#[command(after_help = sparkyard::replay::cluster_whatif::CHEAPEST_RULE)]
struct WhatIfClusterCommand {
    #[command(flatten)]
    day: DayArgs,
    /// [APP_GLOB:]KEY=V1,V2,...: a cluster key (nodes, yarn.nodemanager.resource.memory-mb,
    /// yarn.nodemanager.resource.cpu-vcores), a queue's field (queue.NAME.FIELD, FIELD one of
    /// capacity, maximum-capacity, maximum-am-resource-percent, user-limit-factor,
    /// minimum-user-limit-percent; the queues whose capacity the grid leaves share the rest of
    /// 100 % in their own proportions, each maximum-capacity raised to at least its capacity),
    /// or a Spark property or spark-submit option
    /// (num-executors, executor-cores, executor-memory, driver-memory, driver-cores) for every
    /// application, or with APP_GLOB: for those whose name matches (e.g.
    /// 'etl-*:num-executors=4,8'); repeat for more keys.
    #[arg(long, value_name = "KEY=V1,V2")]
    grid: Vec<String>,
    /// The seeds: A..B (B excluded) or A..=B.
    #[arg(long, value_name = "A..B", default_value = "1..2")]
    seeds: String,
    /// KEY=VALUE: a Spark property every application gets (spark-submit's --conf).
    #[arg(long = "conf", value_name = "KEY=VALUE")]
    conf: Vec<String>,
    /// Simulations run at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Write an SVG plot of the day's length (p10/p50/p90) against the first grid key to FILE
    /// (no plot without it).
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    /// Print the table as JSON, every row with each seed's day (only JSON on stdout).
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct WhatIfCommand {
    /// The event log: a file or a rolling directory (eventlog_v2_*), plain or zstd/lz4/snappy.
    eventlog: std::path::PathBuf,
    /// KEY=V1,V2,...: a Spark property or spark-submit option (num-executors, executor-cores,
    /// executor-memory, driver-memory) or a cluster key (nodes,
    /// yarn.nodemanager.resource.memory-mb, yarn.nodemanager.resource.cpu-vcores); repeat for
    /// more keys.
    #[arg(long, value_name = "KEY=V1,V2")]
    grid: Vec<String>,
    /// The seeds: A..B (B excluded) or A..=B.
    #[arg(long, value_name = "A..B", default_value = "1..2")]
    seeds: String,
    /// A scenario file whose faults every run gets ([chaos] faults drawn per seed).
    #[arg(long, value_name = "FILE")]
    scenario: Option<std::path::PathBuf>,
    /// Simulations run at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Mark the cheapest configuration whose p90 runtime is at most this: a duration with a
    /// unit, as Spark reads time strings (us, ms, s, m or min, h, d: 90s, 30min, 2h); a bare
    /// number is refused (Spark would read it as milliseconds).
    #[arg(long = "target-p90", value_name = "DURATION")]
    target_p90: Option<String>,
    /// Price of one executor core-hour (0 or more).
    #[arg(
        long = "price-core-hour",
        value_name = "X",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    price_core_hour: f64,
    /// Price of one executor GB-hour (container memory; 0 or more).
    #[arg(
        long = "price-gb-hour",
        value_name = "Y",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    price_gb_hour: f64,
    /// Write an SVG plot of p10/p50/p90 and the band against the first grid key to FILE
    /// (no plot without it).
    #[arg(long, value_name = "FILE")]
    plot: Option<std::path::PathBuf>,
    /// After the table, explain row ROW (as numbered in the table): per seed, slowest first,
    /// the end time, the outcome and why it failed, the faults fired with their times and
    /// targets, executors over time and the critical path. With --json every row carries its
    /// seeds' runs; --explain then prints only that row, as JSON.
    #[arg(long, value_name = "ROW")]
    explain: Option<usize>,
    /// Print the table as JSON (only JSON on stdout).
    #[arg(long)]
    json: bool,
    /// spark-submit options every configuration starts from (e.g. --conf K=V) and sparkyard's
    /// --cluster; after the what-if's own options.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    words: Vec<String>,
}

#[derive(Args)]
struct ShrinkCommand {
    /// The scenario file (TOML), e.g. config/scenarios/chaos.toml.
    file: PathBuf,
    /// The seed to shrink.
    #[arg(long, value_name = "N")]
    seed: u64,
    /// What the shrunk schedule must keep showing: violation, expect, or outcome=STATE
    /// (default: the seed's violation, else its failed expectation).
    #[arg(long, value_name = "WHAT")]
    until: Option<String>,
    /// Where to write the shrunk scenario (default: <name>-seed-<N>-shrunk.toml here).
    #[arg(long, short = 'o', value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args)]
struct SweepMergeCommand {
    /// The outputs of `sparkyard sweep --shard K/N`, one per shard, in any order.
    #[arg(required = true, value_name = "SHARD.jsonl")]
    files: Vec<PathBuf>,
}

#[derive(Args)]
struct SweepCommand {
    /// The scenario file (TOML), e.g. config/scenarios/chaos.toml.
    file: std::path::PathBuf,
    /// The seeds: A..B (B excluded) or A..=B.
    #[arg(long, value_name = "A..B")]
    seeds: String,
    /// Simulations run at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Also check the scenario's [expect] table on every seed (a failure is reported like a
    /// violation, and makes the exit code 1).
    #[arg(long)]
    expect: bool,
    /// Print JSON lines instead of the report: a header, then one line per seed (seed, outcome,
    /// end time, faults fired, violations, failed expectations, fingerprint).
    #[arg(long)]
    json: bool,
    /// Run only the K-th of N parts of the seed range and print its JSON lines (merge the N
    /// outputs with `sparkyard sweep-merge`).
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Never draw the progress bar (drawn on stderr only when it is a terminal).
    #[arg(long = "no-progress")]
    no_progress: bool,
}

#[derive(Args)]
struct RunCommand {
    /// The scenario file (TOML); bundled ones are in config/scenarios/.
    file: std::path::PathBuf,
    /// The seed every random choice derives from (default: the scenario's own, else 42).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Where container logs are written (the event log goes to spark.eventLog.dir).
    #[arg(long = "log-dir", value_name = "DIR", default_value = "sparkyard-logs")]
    log_dir: std::path::PathBuf,
    /// Show the AM, driver and executor lines on the console too.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Only spark-submit's warnings and errors on the console, then the summary.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    submit: RunSubmitOverrides,
    #[command(flatten)]
    outputs: OutputArgs,
}

/// spark-submit's flags that `run` applies on top of the scenario's [submit] table.
#[derive(Args)]
#[command(next_help_heading = "Overrides of the scenario's [submit]")]
struct RunSubmitOverrides {
    /// A Spark property, e.g. --conf spark.eventLog.enabled=true (repeatable).
    #[arg(long, value_name = "KEY=VALUE")]
    conf: Vec<String>,
    /// The application's name (spark.app.name).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    /// Executors to request (spark.executor.instances).
    #[arg(long = "num-executors", value_name = "N")]
    num_executors: Option<u32>,
    /// Memory per executor, e.g. 2g (spark.executor.memory).
    #[arg(long = "executor-memory", value_name = "MEM")]
    executor_memory: Option<String>,
    /// Cores per executor (spark.executor.cores).
    #[arg(long = "executor-cores", value_name = "N")]
    executor_cores: Option<u32>,
    /// Memory of the driver, e.g. 2g (spark.driver.memory).
    #[arg(long = "driver-memory", value_name = "MEM")]
    driver_memory: Option<String>,
    /// Cores of the driver (spark.driver.cores).
    #[arg(long = "driver-cores", value_name = "N")]
    driver_cores: Option<u32>,
    /// The YARN queue (spark.yarn.queue).
    #[arg(long, value_name = "QUEUE")]
    queue: Option<String>,
}

impl RunSubmitOverrides {
    fn to_overrides(&self) -> sparkyard::scenario::SubmitOverrides {
        sparkyard::scenario::SubmitOverrides {
            conf: self.conf.clone(),
            name: self.name.clone(),
            num_executors: self.num_executors,
            executor_memory: self.executor_memory.clone(),
            executor_cores: self.executor_cores,
            driver_memory: self.driver_memory.clone(),
            driver_cores: self.driver_cores,
            queue: self.queue.clone(),
        }
    }
}

// spark-submit's words go through spark-submit's own grammar (`conf::option_parser`), not clap:
// clap only takes them all here, and later parses sparkyard's own flags among them.
#[derive(Args)]
#[command(disable_help_flag = true, disable_version_flag = true)]
struct SubmitCommand {
    /// spark-submit's options, the application jar and its arguments, and sparkyard's simulator
    /// and output options (`sparkyard submit --help` lists them).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    words: Vec<String>,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(own_options_first(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    if let Err(e) = logging::check_env() {
        eprintln!("{e}");
        return ExitCode::from(1);
    }
    let outcome = match cli.command {
        Command::Submit(cmd) => submit_words(cmd.words),
        Command::Run(cmd) => run_scenario(cmd),
        Command::Sweep(cmd) => sweep(cmd),
        Command::Shrink(cmd) => shrink(cmd),
        Command::SweepMerge(cmd) => sweep_merge(cmd),
        Command::Schema => {
            print!("{}", sparkyard::scenario::schema::scenario_schema_json());
            return ExitCode::SUCCESS;
        }
        Command::Replay(cmd) => replay(cmd),
        Command::WhatIf(cmd) => what_if(cmd),
        Command::ReplayCluster(cmd) => replay_cluster(cmd),
        Command::WhatIfCluster(cmd) => what_if_cluster(cmd),
        Command::Keys(cmd) => keys(cmd),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// `replay` and `what-if` take sparkyard's own options anywhere: before or after the event
/// log, among spark-submit's options. clap reads a command's options only before its first
/// positional word, and everything after the log goes to spark-submit's grammar (which refuses
/// `--scenario` as `Unrecognized option`), so the command's own options (with their values) are
/// moved first and the event log after them; spark-submit's and the simulator's words keep their
/// order after it. Every other command's words are left as they are.
fn own_options_first(argv: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    let Some(name) = argv.get(1).and_then(|w| w.to_str()) else {
        return argv;
    };
    let command = Cli::command();
    let Some(sub) = command
        .get_subcommands()
        .find(|c| c.get_name() == name && matches!(name, "replay" | "what-if"))
    else {
        return argv;
    };
    let words: Option<Vec<String>> = argv[2..]
        .iter()
        .map(|w| w.to_str().map(String::from))
        .collect();
    let Some(words) = words else {
        return argv;
    };
    let own = long_options(sub);
    let sim = long_options(&sparkyard::conf::submit::sim_command(clap::Command::new(
        "sim",
    )));
    let reordered = split_own_words(&words, &own, &sim);
    argv[..2]
        .iter()
        .cloned()
        .chain(reordered.into_iter().map(Into::into))
        .collect()
}

/// A command's long options: (`--name`, whether it takes a value), `--help` included.
fn long_options(command: &clap::Command) -> Vec<(String, bool)> {
    let mut out: Vec<(String, bool)> = command
        .get_arguments()
        .filter_map(|a| {
            let takes = a.get_action().takes_values();
            a.get_long().map(|l| (format!("--{l}"), takes))
        })
        .collect();
    out.push(("--help".into(), false));
    out.push(("-h".into(), false));
    out
}

/// The words of `replay` / `what-if` with the command's `own` options first, then the event log
/// (the first word that is no option and no option's value), then the rest in their order.
/// spark-submit's options that take a value (`option_parser::OPTS`) and the simulator's `sim`
/// options keep their values with them; an unknown option stays where it is for spark-submit's
/// parser to refuse in Spark's words.
fn split_own_words(
    words: &[String],
    own: &[(String, bool)],
    sim: &[(String, bool)],
) -> Vec<String> {
    use sparkyard::conf::option_parser::OPTS;
    let takes_value = |table: &[(String, bool)], name: &str| {
        table.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    };
    let (mut first, mut log, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let (name, attached) = match word.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n, true),
            _ => (word.as_str(), false),
        };
        let spark = OPTS.iter().any(|aliases| aliases.contains(&name));
        let (to, value) = match (takes_value(own, name), takes_value(sim, name)) {
            (Some(v), _) => (&mut first, v),
            (None, Some(v)) => (&mut rest, v),
            (None, None) if spark => (&mut rest, true),
            (None, None) if word == "--" || !word.starts_with('-') => {
                if log.is_empty() && word != "--" {
                    log.push(word.clone());
                } else {
                    rest.push(word.clone());
                }
                i += 1;
                continue;
            }
            (None, None) => (&mut rest, false),
        };
        to.push(word.clone());
        if value && !attached && i + 1 < words.len() {
            i += 1;
            to.push(words[i].clone());
        }
        i += 1;
    }
    first.into_iter().chain(log).chain(rest).collect()
}

/// spark-submit's `--version` banner, naming the Spark version sparkyard mirrors.
fn spark_banner() -> String {
    let v = sparkyard_actors::simulation::facts::SPARK_VERSION;
    format!(
        "Welcome to\n      ____              __\n     / __/__  ___ _____/ /__\n    _\\ \\/ _ \\/ _ `/ __/  '_/\n   /___/ .__/\\_,_/_/ /_/\\_\\   version {v}\n      /_/\n\nUsing Scala version 2.13.16, OpenJDK 64-Bit Server VM, 17.0.15\nBranch HEAD\nCompiled by user sparkyard {} (a simulator)\nType --help for more information.\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The run summary's line naming the keys the user set that the run did not act on (each
/// also warned on the console by spark-submit's checks).
fn print_key_note(spark: &sparkyard_actors::simulation::config::SparkSettings) {
    if let Some(note) = sparkyard::conf::keys::summary_note(&spark.properties) {
        println!("{note}");
    }
}

/// `sparkyard keys [--status S]`: the key registry as a Markdown table (the README's copy).
fn keys(cmd: KeysCommand) -> Result<ExitCode, UserError> {
    use sparkyard::conf::keys::{KeyStatus, markdown_table};
    let status = cmd.status.as_deref().and_then(KeyStatus::parse);
    print!("{}", markdown_table(status));
    Ok(ExitCode::SUCCESS)
}

/// `sparkyard submit WORDS`: spark-submit's actions (`--help`, `--version`), else a submission.
fn submit_words(words: Vec<String>) -> Result<ExitCode, UserError> {
    use clap::{Args, FromArgMatches};
    let outputs_command = OutputArgs::augment_args(clap::Command::new("sparkyard submit"));
    let (args, matches) = SubmitArgs::from_words_with(words, outputs_command)?;
    let outputs =
        OutputArgs::from_arg_matches(&matches).map_err(|e| UserError::usage(e.to_string()))?;
    match args.action {
        SubmitAction::PrintVersion => {
            print!("{}", spark_banner());
            Ok(ExitCode::SUCCESS)
        }
        SubmitAction::Usage { exit_code } => {
            eprint!("{}", submit_usage());
            Ok(ExitCode::from(exit_code))
        }
        _ => submit(args, &outputs),
    }
}

/// spark-submit's usage, then sparkyard's own options of `submit`.
fn submit_usage() -> String {
    use clap::Args;
    let outputs = OutputArgs::augment_args(clap::Command::new("sparkyard submit"));
    let mut sim = sparkyard::conf::submit::sim_command(outputs)
        .help_template("{all-args}")
        .override_usage("");
    format!(
        "{}\nsparkyard's own options (not spark-submit's):\n\n{}\n",
        sparkyard::conf::option_parser::USAGE,
        sim.render_help()
    )
}

fn submit(args: SubmitArgs, outputs: &OutputArgs) -> Result<ExitCode, UserError> {
    logging::init(args.verbose, args.sim.quiet);
    let submission = Submission::from_args(args, pipeline::defaults_from_env())?;
    let req = &submission.request;
    for w in &req.warnings {
        eprintln!("{w}");
    }
    if let Some(w) = sparkyard::conf::submit::class_warning(&req.main_class) {
        eprintln!("{w}");
    }
    if req.verbose {
        eprintln!("{}", req.verbose_report());
    }
    outputs.check_paths()?;
    let mut prepared = submission.prepare(RunPlan {
        options: RunOptions {
            record_events: outputs.wants_events(),
            capture_logs: outputs.keeps_container_logs(),
            ..RunOptions::default()
        },
        ..RunPlan::default()
    })?;
    let req = &prepared.request;
    let real_darts = prepared.config.costs.sparkpi_real_darts;
    if let Some(note) =
        report::sparkpi_note(&req.main_class, &req.app_args).filter(|_| !req.quiet && real_darts)
    {
        eprintln!("{note}");
    }
    // The bar is made once the submission is known to be valid (none on an error).
    prepared.options.progress = outputs.progress(prepared.request.quiet);
    let run = prepared.run()?;
    let (req, result) = (&run.request, &run.result);
    let written = close_run(result, outputs, req.quiet, &req.log_dir)?;
    let written_outputs = outputs.write(result, &run.spark)?;
    print!(
        "{}",
        report::summary(result, written.as_deref(), &reproduce(req))
    );
    if let Some(note) = report::unallocated(result, &run.spark) {
        println!("{note}");
    }
    print_key_note(&run.spark);
    for line in written_outputs {
        println!("{line}");
    }
    Ok(if result.outcome.exception.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// After a run: clears the progress bar, prints spark-submit's closing lines and writes the
/// container logs under `log_dir`; returns where they went.
fn close_run(
    result: &RunResult,
    outputs: &OutputArgs,
    quiet: bool,
    log_dir: &Path,
) -> Result<Option<PathBuf>, UserError> {
    outputs.finish_progress();
    eprint!("{}", report::closing_stderr(result, quiet));
    if !outputs.keeps_container_logs() {
        // Nothing was kept to write: an earlier run's logs in `log_dir` stay as they are.
        return Ok(None);
    }
    let cannot = |e: std::io::Error| {
        UserError::file(
            log_dir.display().to_string(),
            format!("cannot write container logs: {e}"),
        )
    };
    let removed = report::clear_previous_logs(result, log_dir).map_err(cannot)?;
    if let Some(notice) = report::replaced_logs_notice(&removed) {
        eprintln!("{notice}");
    }
    report::write_logs(result, log_dir).map_err(|e| {
        UserError::file(
            log_dir.display().to_string(),
            format!("cannot write container logs: {e}"),
        )
    })
}

fn run_scenario(cmd: RunCommand) -> Result<ExitCode, UserError> {
    let mut scenario = sparkyard::scenario::load(&cmd.file)?;
    scenario.apply_overrides(&cmd.submit.to_overrides())?;
    if scenario.arrivals.is_some() {
        // Many applications' consoles would interleave: their report is the output.
        logging::init_with(logging::SILENT_FILTER);
        return run_arrivals(&cmd, &scenario);
    }
    logging::init(cmd.verbose, cmd.quiet);
    cmd.outputs.check_paths()?;
    cmd.outputs.check_scenario(&scenario)?;
    for note in &scenario.notes {
        eprintln!("{note}");
    }
    let opts = RunOptions {
        record_events: cmd.outputs.wants_events(),
        capture_logs: cmd.outputs.keeps_container_logs(),
        progress: cmd.outputs.progress(cmd.quiet),
        ..RunOptions::default()
    };
    let run = sparkyard::scenario::run(&scenario, cmd.seed, opts)?;
    let written = close_run(&run.result, &cmd.outputs, cmd.quiet, &cmd.log_dir)?;
    let again = run_reproduce(&cmd, run.seed);
    println!("scenario: {}", scenario.name);
    print!(
        "{}",
        report::summary(&run.result, written.as_deref(), &again)
    );
    if let Some(note) = report::unallocated(&run.result, &run.spark) {
        println!("{note}");
    }
    print_key_note(&run.spark);
    print!("{}", report::recovery(&run.result, &run.fired));
    for line in cmd.outputs.write(&run.result, &run.spark)? {
        println!("{line}");
    }
    if run.failures.is_empty() {
        println!("expectations: all met");
        return Ok(ExitCode::SUCCESS);
    }
    for f in &run.failures {
        println!("expectation failed: {f}");
    }
    Ok(ExitCode::from(1))
}

/// `run` of a scenario with `[[workload.applications]]`: every application in one simulation,
/// the per-application report, what each application writes (as a single run: container logs,
/// event logs, its timeline and diagram), the `[expect]` counts.
fn run_arrivals(
    cmd: &RunCommand,
    scenario: &sparkyard::scenario::Scenario,
) -> Result<ExitCode, UserError> {
    use sparkyard::arrivals::{ArrivalsOptions, run_scenario_with};
    cmd.outputs.check_paths()?;
    cmd.outputs.check_scenario(scenario)?;
    let drawn = cmd.outputs.trace.is_some() || cmd.outputs.sequence.is_some();
    let opts = ArrivalsOptions {
        capture_logs: cmd.outputs.keeps_container_logs(),
        event_logs: true,
        listener_events: cmd.outputs.wants_events(),
        // The fingerprint always (as a single run prints it); the events only when drawn.
        trace: true,
        keep_trace: drawn,
        skip_fault_cost: false,
    };
    let done = run_scenario_with(scenario, cmd.seed, opts)?;
    println!("scenario: {}", scenario.name);
    print!("{}", sparkyard::arrivals::report_text(&done.run));
    println!("trace fingerprint: {:016x}", done.run.fingerprint);
    println!("reproduce: {}", run_reproduce(cmd, done.run.seed));
    for line in arrivals_outputs(cmd, &done)? {
        println!("{line}");
    }
    if done.failures.is_empty() {
        println!("expectations: all met");
        return Ok(ExitCode::SUCCESS);
    }
    for f in &done.failures {
        println!("expectation failed: {f}");
    }
    Ok(ExitCode::from(1))
}

/// Writes what each application of an arrivals run writes as a single run would, and says
/// where: the container logs under `--log-dir` (each under its application id), the event logs
/// (their `spark.eventLog.dir`), and `--trace` / `--sequence` once per application, its id
/// before the file's extension.
fn arrivals_outputs(
    cmd: &RunCommand,
    done: &sparkyard::arrivals::ArrivalsOutcome,
) -> Result<Vec<String>, UserError> {
    use sparkyard::arrivals::outputs::{application_view, per_application_path};
    let ran = &done.ran.result;
    let mut lines = Vec::new();
    if cmd.outputs.keeps_container_logs() {
        let dir = &cmd.log_dir;
        let cannot = |e: std::io::Error| {
            UserError::file(
                dir.display().to_string(),
                format!("cannot write container logs: {e}"),
            )
        };
        let apps: Vec<String> = done
            .run
            .applications
            .iter()
            .filter_map(|a| a.yarn_app_id.clone())
            .collect();
        let removed = report::clear_previous_cluster_logs(&ran.logs, dir, &apps).map_err(cannot)?;
        if let Some(notice) = report::replaced_logs_notice(&removed) {
            eprintln!("{notice}");
        }
        if let Some(d) = report::write_cluster_logs(&ran.logs, dir).map_err(cannot)? {
            lines.push(format!(
                "container logs: {}/<host>/userlogs/<applicationId>/ ({} applications)",
                d.display(),
                apps.len()
            ));
        }
    }
    for a in &done.run.applications {
        for w in &a.event_logs {
            lines.push(sparkyard::outputs::eventlog::written_line(
                &w.path,
                w.refused.as_deref(),
            ));
        }
    }
    let (mut timelines, mut diagrams) = (0, 0);
    for (i, a) in done.run.applications.iter().enumerate() {
        let (Some(id), Some(view)) = (&a.yarn_app_id, application_view(ran, i, done.ran.costs))
        else {
            continue;
        };
        if let Some(path) = &cmd.outputs.trace {
            sparkyard::outputs::write_chrome_trace(&view, &per_application_path(path, id))?;
            timelines += 1;
        }
        if let Some(path) = &cmd.outputs.sequence {
            let path = per_application_path(path, id);
            sparkyard::outputs::write_sequence(&view, &path, &cmd.outputs.filter())?;
            diagrams += 1;
        }
    }
    let each = |p: &Path| {
        per_application_path(p, "<applicationId>")
            .display()
            .to_string()
    };
    if let Some(path) = &cmd.outputs.trace {
        lines.push(format!(
            "timeline: {} ({timelines} applications; open in https://ui.perfetto.dev or chrome://tracing)",
            each(path)
        ));
    }
    if let Some(path) = &cmd.outputs.sequence {
        lines.push(format!(
            "sequence diagram: {} ({diagrams} applications)",
            each(path)
        ));
    }
    Ok(lines)
}

/// The `run` command line that reproduces this run: the file, the seed made explicit, and
/// every `[submit]` override given (a secret `--conf` redacted as `reproduce` does).
fn run_reproduce(cmd: &RunCommand, seed: u64) -> String {
    let o = &cmd.submit;
    let mut words = vec![
        "run".to_string(),
        cmd.file.display().to_string(),
        "--seed".into(),
        seed.to_string(),
    ];
    let mut flag = |name: &str, v: Option<String>| {
        if let Some(v) = v {
            words.extend([name.to_string(), v]);
        }
    };
    flag("--name", o.name.clone());
    flag("--num-executors", o.num_executors.map(|n| n.to_string()));
    flag("--executor-memory", o.executor_memory.clone());
    flag("--executor-cores", o.executor_cores.map(|n| n.to_string()));
    flag("--driver-memory", o.driver_memory.clone());
    flag("--driver-cores", o.driver_cores.map(|n| n.to_string()));
    flag("--queue", o.queue.clone());
    let r = sparkyard_actors::simulation::spark_conf::Redactor::from_properties(
        o.conf.iter().filter_map(|kv| kv.split_once('=')),
    );
    for kv in &o.conf {
        let shown = match kv.split_once('=') {
            Some((k, v)) if r.is_sensitive(k, v) => format!("{k}={}", r.redact(k, v)),
            _ => kv.clone(),
        };
        words.extend(["--conf".to_string(), shown]);
    }
    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
    format!("sparkyard {}", quoted.join(" "))
}

fn sweep(cmd: SweepCommand) -> Result<ExitCode, UserError> {
    use sparkyard::sweep::{Shard, SweepConfig, SweepHeader};
    // The runs' own console lines would interleave across threads: only warnings and up.
    logging::init_with(logging::SILENT_FILTER);
    let seeds = sparkyard::sweep::parse_seeds(&cmd.seeds)?;
    let shard = cmd.shard.as_deref().map(Shard::parse).transpose()?;
    let scenario = sparkyard::scenario::load(&cmd.file)?;
    let jobs = cmd
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let whole = shard.unwrap_or(Shard { index: 1, count: 1 });
    let json = cmd.json || shard.is_some();
    let config = SweepConfig {
        jobs,
        expect: cmd.expect,
        progress: !cmd.no_progress,
        // Only the JSON lines show fingerprints.
        fingerprints: json,
    };
    let reports = if scenario.arrivals.is_some() {
        sparkyard::arrivals::probes::sweep(&scenario, whole.part(&seeds), &config)?
    } else {
        sparkyard::sweep::sweep_with(&scenario, whole.part(&seeds), &config)?
    };
    let file = shell_quote(&cmd.file.display().to_string());
    let (text, broken) = sparkyard::sweep::report_with(&file, &reports);
    if json {
        let header = SweepHeader {
            scenario: file,
            seeds: [seeds.start, seeds.end],
            shard: whole,
            expect: cmd.expect,
        };
        print!("{}", sparkyard::sweep::json_lines(&header, &reports));
    } else {
        print!("{text}");
    }
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn sweep_merge(cmd: SweepMergeCommand) -> Result<ExitCode, UserError> {
    let mut outputs = Vec::new();
    for f in &cmd.files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(f)
            .map_err(|e| UserError::file(&name, format!("cannot read the shard output: {e}")))?;
        outputs.push((
            name.clone(),
            sparkyard::sweep::parse_json_lines(&name, &text)?,
        ));
    }
    let (header, reports) = sparkyard::sweep::merge(outputs)?;
    let (text, broken) = sparkyard::sweep::report_with(&header.scenario, &reports);
    print!("{text}");
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn shrink(cmd: ShrinkCommand) -> Result<ExitCode, UserError> {
    use sparkyard::scenario::shrink::{Until, scenario_file, shrink};
    logging::init_with(logging::SILENT_FILTER);
    let until = cmd.until.as_deref().map(Until::parse).transpose()?;
    let scenario = sparkyard::scenario::load(&cmd.file)?;
    let shrunk = if scenario.arrivals.is_some() {
        sparkyard::arrivals::probes::shrink(&scenario, cmd.seed, until)?
    } else {
        shrink(&scenario, cmd.seed, until)?
    };
    let out = cmd.out.unwrap_or_else(|| {
        PathBuf::from(format!("{}-seed-{}-shrunk.toml", scenario.name, cmd.seed))
    });
    let text = std::fs::read_to_string(&cmd.file)
        .map_err(|e| UserError::file(cmd.file.display().to_string(), e.to_string()))?;
    let file = scenario_file(&scenario, &text, cmd.seed, &shrunk, &out)?;
    std::fs::write(&out, file)
        .map_err(|e| UserError::file(out.display().to_string(), format!("cannot write: {e}")))?;
    println!(
        "shrink: seed {} of {}: {} of {} fault(s) still show `{}` ({} runs); it ends {}/{} (trace fingerprint: {:016x})",
        cmd.seed,
        cmd.file.display(),
        shrunk.faults.len(),
        shrunk.original.len(),
        shrunk.until,
        shrunk.runs,
        shrunk.state,
        shrunk.final_status,
        shrunk.fingerprint
    );
    if let Some(a) = &shrunk.application {
        println!("  application kept: {a}");
    }
    for f in &shrunk.faults {
        println!(
            "  fault: {}",
            f.label.clone().unwrap_or_else(|| f.kind.clone())
        );
    }
    println!("wrote {}", out.display());
    println!(
        "reproduce: sparkyard run {}",
        shell_quote(&out.display().to_string())
    );
    Ok(ExitCode::SUCCESS)
}

/// The command line that reproduces this run (the seed made explicit).
fn reproduce(req: &SubmitRequest) -> String {
    let mut words: Vec<String> = std::env::args().skip(1).collect();
    if !words
        .iter()
        .any(|w| w == "--seed" || w.starts_with("--seed="))
    {
        let at = words
            .iter()
            .position(|w| w == "submit")
            .map_or(0, |i| i + 1);
        words.insert(at, format!("--seed={}", req.seed));
    }
    // Utils.redactCommandLineArgs: a `key=value` word whose key or value is sensitive shows
    // Spark's replacement text (rerun it with the secret put back).
    let r = sparkyard_actors::simulation::spark_conf::Redactor::from_properties(
        req.conf
            .as_map()
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let quoted: Vec<String> = words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) if r.is_sensitive(k, v) => shell_quote(&format!("{k}={}", r.redact(k, v))),
            _ => shell_quote(w),
        })
        .collect();
    format!("sparkyard {}", quoted.join(" "))
}

fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,@%+".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A scenario for `--scenario`, shared by every run of a replay.
fn load_scenario(
    path: Option<&Path>,
) -> Result<Option<std::sync::Arc<sparkyard::scenario::Scenario>>, UserError> {
    path.map(|p| sparkyard::scenario::load_for_faults(p).map(std::sync::Arc::new))
        .transpose()
}

/// A replay runs the log's application: words after the log would be an application jar and
/// its arguments, which nothing would read.
fn no_app_words(args: &SubmitArgs) -> Result<(), UserError> {
    if args.app.is_empty() {
        return Ok(());
    }
    Err(UserError::usage(format!(
        "unexpected argument(s) after the event log: {} (a replay runs the application the log records; give spark-submit options before or after the log, but no application jar)",
        args.app.join(" ")
    )))
}

fn replay(cmd: ReplayCommand) -> Result<ExitCode, UserError> {
    logging::init_with(logging::SILENT_FILTER);
    let args = sparkyard::replay::simulate::user_submit_args_for("replay", &cmd.words)?;
    no_app_words(&args)?;
    let verbose = args.verbose;
    let setup = sparkyard::replay::simulate::ReplaySetup {
        submit: args,
        scenario: load_scenario(cmd.scenario.as_deref())?,
    };
    let report = sparkyard::replay::replay_inspecting(&cmd.eventlog, &setup, |prepared| {
        if verbose {
            eprintln!("{}", sparkyard::replay::simulate::verbose_report(prepared)?);
        }
        Ok(())
    })?;
    for (name, n) in &report.log.unknown_events {
        eprintln!(
            "warning: skipped {n} unknown event(s) {name} (a newer Spark or another listener wrote them)"
        );
    }
    if cmd.json {
        println!("{}", sparkyard::replay::report::json(&report));
    } else {
        print!("{}", sparkyard::replay::report::table(&report));
    }
    // A simulation that could not run the application is an error, with Spark's or YARN's
    // reason (in the JSON's `error` too).
    if let Some(e) = &report.error {
        eprintln!(
            "error: {}: the simulated application could not run: {e}",
            cmd.eventlog.display()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn replay_cluster(cmd: ReplayClusterCommand) -> Result<ExitCode, UserError> {
    use sparkyard::replay::{cluster, cluster_report};
    logging::init_with(logging::SILENT_FILTER);
    let setup = cmd.day.setup(cmd.seed, cmd.conf)?;
    let report = cluster::replay_cluster(&cmd.day.logs, &setup)?;
    if cmd.json {
        println!("{}", cluster_report::json(&report));
    } else {
        print!("{}", cluster_report::table(&report));
    }
    if let Some(plot) = &cmd.plot {
        sparkyard::replay::cluster_plot::write_svg(&report, plot)?;
        if !cmd.json {
            println!("plot: {}", plot.display());
        }
    }
    // An application the simulation could not run is an error naming its log.
    let not_run: Vec<_> = report
        .applications
        .iter()
        .filter(|a| a.not_run.is_some())
        .collect();
    for a in &not_run {
        eprintln!(
            "error: {}: the simulated application could not run: {}",
            a.path,
            a.not_run.as_deref().unwrap_or("")
        );
    }
    Ok(if not_run.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn what_if_cluster(cmd: WhatIfClusterCommand) -> Result<ExitCode, UserError> {
    use sparkyard::replay::{cluster_grid, cluster_whatif, cluster_whatif_report};
    logging::init_with(logging::SILENT_FILTER);
    for kv in &cmd.conf {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        if let Some(why) = sparkyard::replay::whatif::event_log_refusal(k, &[v.to_string()]) {
            return Err(cluster_grid::usage_error(format!("--conf {kv}: {why}")));
        }
    }
    let request = cluster_whatif::DayWhatIf {
        grid: cluster_grid::parse(&cmd.grid)?,
        seeds: crate::sweep_seeds(&cmd.seeds).map_err(cluster_grid::usage_error)?,
        jobs: cmd
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    // Each application's start-up is calibrated under replay-cluster's default seed.
    let setup = cmd
        .day
        .setup(sparkyard::conf::submit::DEFAULT_SEED, cmd.conf)?;
    let table = cluster_whatif::run(&cmd.day.logs, &setup, &request)?;
    if cmd.json {
        println!("{}", cluster_whatif::json(&table));
    } else {
        print!("{}", cluster_whatif_report::text(&table));
    }
    if let Some(plot) = &cmd.plot {
        sparkyard::replay::plot::draw(&cluster_whatif_report::plot(&table), plot)?;
        if !cmd.json {
            println!("plot: {}", plot.display());
        }
    }
    let refused = table.rows.iter().filter(|r| r.refused.is_some()).count();
    if refused == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "what-if-cluster: {refused} of {} configurations could not run (see the table's rows)",
        table.rows.len()
    );
    Ok(ExitCode::from(1))
}

/// `--seeds A..B` or `A..=B`.
fn sweep_seeds(text: &str) -> Result<std::ops::Range<u64>, String> {
    sparkyard::sweep::parse_seed_range(text)
}

fn what_if(cmd: WhatIfCommand) -> Result<ExitCode, UserError> {
    use sparkyard::replay::whatif;
    logging::init_with(logging::SILENT_FILTER);
    // spark-submit's usage errors end with a hint to its --verbose, which what-if refuses:
    // what-if's own hint instead.
    let own_words = |e: UserError| match e {
        UserError::Usage(m) => whatif::usage_error(m),
        e => e,
    };
    let args = sparkyard::replay::simulate::user_submit_args_for("what-if", &cmd.words)
        .map_err(own_words)?;
    no_app_words(&args).map_err(own_words)?;
    let seeds = whatif::parse_seeds(&cmd.seeds)?;
    let jobs = cmd
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let request = whatif::WhatIf {
        grid: whatif::parse_grid(&cmd.grid)?,
        seeds,
        jobs,
        target_p90_ms: cmd
            .target_p90
            .as_deref()
            .map(whatif::parse_target_p90)
            .transpose()?,
        price_core_hour: whatif::check_price("--price-core-hour", cmd.price_core_hour)?,
        price_gb_hour: whatif::check_price("--price-gb-hour", cmd.price_gb_hour)?,
    };
    let rows: usize = request.grid.iter().map(|k| k.values.len()).product();
    if let Some(row) = cmd.explain.filter(|r| !(1..=rows).contains(r)) {
        return Err(whatif::usage_error(format!(
            "--explain {row}: the grid has rows 1 to {rows}"
        )));
    }
    let setup = sparkyard::replay::simulate::ReplaySetup {
        submit: args,
        scenario: load_scenario(cmd.scenario.as_deref())?,
    };
    let table = whatif::run(&cmd.eventlog, &setup, &request).map_err(own_words)?;
    match (cmd.json, cmd.explain) {
        (true, None) => println!("{}", whatif::json(&table)),
        (true, Some(row)) => println!(
            "{}",
            serde_json::to_string_pretty(whatif::explained_row(&table, row)?)
                .map_err(|e| UserError::file("what-if", e.to_string()))?
        ),
        (false, explain) => {
            print!("{}", whatif::text(&table));
            if let Some(row) = explain {
                print!("{}", whatif::explain(&table, row)?);
            }
        }
    }
    if let Some(plot) = &cmd.plot {
        sparkyard::replay::plot::write_svg(&table, plot)?;
        if !cmd.json {
            println!("plot: {}", plot.display());
        }
    }
    let refused: Vec<String> = table
        .refused()
        .map(|(row, why)| format!("row {row}: {why}"))
        .collect();
    if refused.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "what-if: {} of {} configurations could not run (the other rows are above):\n  {}",
        refused.len(),
        table.rows.len(),
        refused.join("\n  ")
    );
    Ok(ExitCode::from(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| w.to_string()).collect()
    }

    /// sparkyard's own options move first with their values, the event log follows, and
    /// spark-submit's and the simulator's words keep their order (values that look like options
    /// included, as spark-submit's grammar takes the next word whatever it is).
    #[test]
    fn own_options_move_first_and_the_log_follows() {
        let own = vec![
            ("--scenario".to_string(), true),
            ("--json".to_string(), false),
        ];
        let sim = vec![
            ("--seed".to_string(), true),
            ("--cluster".to_string(), true),
        ];
        let got = split_own_words(
            &words(&[
                "--driver-java-options",
                "-Xss4m",
                "LOG",
                "--num-executors",
                "3",
                "--scenario",
                "s.toml",
                "--seed",
                "7",
                "--json",
                "--conf=a=b",
            ]),
            &own,
            &sim,
        );
        assert_eq!(
            got,
            words(&[
                "--scenario",
                "s.toml",
                "--json",
                "LOG",
                "--driver-java-options",
                "-Xss4m",
                "--num-executors",
                "3",
                "--seed",
                "7",
                "--conf=a=b",
            ])
        );
        // Words after the log that are no option stay after it (a replay refuses them).
        let extra = split_own_words(&words(&["LOG", "app.jar", "--json"]), &own, &sim);
        assert_eq!(extra, words(&["--json", "LOG", "app.jar"]));
    }

    #[test]
    fn other_commands_are_left_alone() {
        let argv: Vec<std::ffi::OsString> = ["sparkyard", "run", "f.toml", "--seed", "3"]
            .iter()
            .map(Into::into)
            .collect();
        assert_eq!(own_options_first(argv.clone()), argv);
    }
}
