//! The `sparkyard` command: `sparkyard submit ...` takes spark-submit's flags and runs the
//! application on the simulated YARN cluster. Exit codes follow spark-submit: 0 when the
//! application ends FINISHED/SUCCEEDED, 1 for a failed, killed or undefined application and for
//! every usage or validation error.

use clap::{Args, Parser, Subcommand};
use sparkyard::conf::submit::{SubmitArgs, SubmitRequest};
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
    /// Replay a Spark event log on the simulated cluster and compare it with the recording.
    Replay(ReplayCommand),
    /// Replay a Spark event log for every configuration of a grid under many seeds.
    WhatIf(WhatIfCommand),
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
    #[command(flatten)]
    args: SubmitArgs,
}

#[derive(Args)]
struct WhatIfCommand {
    /// The event log: a file or a rolling directory (eventlog_v2_*), plain or zstd/lz4/snappy.
    eventlog: std::path::PathBuf,
    /// KEY=V1,V2,...: a Spark property or spark-submit option (num-executors, executor-cores,
    /// executor-memory, driver-memory); repeat for more keys.
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
    /// Mark the cheapest configuration whose p90 runtime is at most this (e.g. 30min, 90s).
    #[arg(long = "target-p90", value_name = "DURATION")]
    target_p90: Option<String>,
    /// Price of one executor core-hour.
    #[arg(long = "price-core-hour", value_name = "X", default_value_t = 0.0)]
    price_core_hour: f64,
    /// Price of one executor GB-hour (container memory).
    #[arg(long = "price-gb-hour", value_name = "Y", default_value_t = 0.0)]
    price_gb_hour: f64,
    /// Where the plot (SVG) is written.
    #[arg(long, value_name = "FILE", default_value = "what-if.svg")]
    plot: std::path::PathBuf,
    /// Print the table as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    args: SubmitArgs,
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
}

#[derive(Args)]
struct RunCommand {
    /// The scenario file (TOML); bundled ones are in config/scenarios/.
    file: std::path::PathBuf,
    /// The seed every random choice derives from (default: the scenario's own, else 42).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Where container logs are written.
    #[arg(long = "log-dir", value_name = "DIR", default_value = "sparkyard-logs")]
    log_dir: std::path::PathBuf,
    /// Show the AM, driver and executor lines on the console too.
    #[arg(long, short = 'v')]
    verbose: bool,
    /// Only spark-submit's warnings and errors on the console.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    outputs: OutputArgs,
}

#[derive(Args)]
struct SubmitCommand {
    /// Print the version of the Spark that sparkyard simulates.
    #[arg(long = "version", help_heading = "Spark options")]
    spark_version: bool,
    #[command(flatten)]
    args: SubmitArgs,
    #[command(flatten)]
    outputs: OutputArgs,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    let outcome = match cli.command {
        Command::Submit(cmd) if cmd.spark_version => {
            print!("{}", spark_banner());
            return ExitCode::SUCCESS;
        }
        Command::Submit(cmd) => submit(cmd.args, &cmd.outputs),
        Command::Run(cmd) => run_scenario(cmd),
        Command::Sweep(cmd) => sweep(cmd),
        Command::Replay(cmd) => replay(cmd),
        Command::WhatIf(cmd) => what_if(cmd),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// spark-submit's `--version` banner, naming the Spark version sparkyard mirrors.
fn spark_banner() -> String {
    let v = sparkyard_actors::spark_core::driver::SPARK_VERSION;
    format!(
        "Welcome to\n      ____              __\n     / __/__  ___ _____/ /__\n    _\\ \\/ _ \\/ _ `/ __/  '_/\n   /___/ .__/\\_,_/_/ /_/\\_\\   version {v}\n      /_/\n\nUsing Scala version 2.13.16, OpenJDK 64-Bit Server VM, 17.0.15\nBranch HEAD\nCompiled by user sparkyard {} (a simulator)\nType --help for more information.\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn submit(args: SubmitArgs, outputs: &OutputArgs) -> Result<ExitCode, UserError> {
    logging::init(args.verbose, args.quiet);
    let submission = Submission::from_args(args, pipeline::defaults_from_env())?;
    let req = &submission.request;
    for w in &req.warnings {
        eprintln!("{w}");
    }
    if req.verbose {
        eprintln!("{}", req.verbose_report());
    }
    let mut prepared = submission.prepare(RunPlan {
        options: RunOptions {
            record_events: outputs.wants_events(),
            ..RunOptions::default()
        },
        ..RunPlan::default()
    })?;
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
    report::write_logs(result, log_dir).map_err(|e| {
        UserError::file(
            log_dir.display().to_string(),
            format!("cannot write container logs: {e}"),
        )
    })
}

fn run_scenario(cmd: RunCommand) -> Result<ExitCode, UserError> {
    logging::init(cmd.verbose, cmd.quiet);
    let scenario = sparkyard::scenario::load(&cmd.file)?;
    let opts = RunOptions {
        record_events: cmd.outputs.wants_events(),
        progress: cmd.outputs.progress(cmd.quiet),
        ..RunOptions::default()
    };
    let run = sparkyard::scenario::run(&scenario, cmd.seed, opts)?;
    let written = close_run(&run.result, &cmd.outputs, cmd.quiet, &cmd.log_dir)?;
    let again = format!(
        "sparkyard run {} --seed {}",
        shell_quote(&cmd.file.display().to_string()),
        run.seed
    );
    println!("scenario: {}", scenario.name);
    print!(
        "{}",
        report::summary(&run.result, written.as_deref(), &again)
    );
    print!("{}", report::recovery(&run.result));
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

fn sweep(cmd: SweepCommand) -> Result<ExitCode, UserError> {
    // The runs' own console lines would interleave across threads: only warnings and up.
    logging::init_with(logging::SILENT_FILTER);
    let seeds = sparkyard::sweep::parse_seeds(&cmd.seeds)?;
    let scenario = sparkyard::scenario::load(&cmd.file)?;
    let jobs = cmd
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let reports = sparkyard::sweep::sweep(&scenario, seeds, jobs)?;
    let (text, broken) =
        sparkyard::sweep::report(&shell_quote(&cmd.file.display().to_string()), &reports);
    print!("{text}");
    Ok(if broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
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
    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
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
    path.map(|p| sparkyard::scenario::load(p).map(std::sync::Arc::new))
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
    no_app_words(&cmd.args)?;
    let setup = sparkyard::replay::simulate::ReplaySetup {
        submit: cmd.args,
        scenario: load_scenario(cmd.scenario.as_deref())?,
    };
    let report = sparkyard::replay::replay(&cmd.eventlog, &setup)?;
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
    Ok(ExitCode::SUCCESS)
}

fn what_if(cmd: WhatIfCommand) -> Result<ExitCode, UserError> {
    logging::init_with(logging::SILENT_FILTER);
    no_app_words(&cmd.args)?;
    let seeds = sparkyard::sweep::parse_seeds(&cmd.seeds)?;
    let jobs = cmd
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let request = sparkyard::replay::whatif::WhatIf {
        grid: sparkyard::replay::whatif::parse_grid(&cmd.grid)?,
        seeds,
        jobs,
        target_p90_ms: cmd
            .target_p90
            .as_deref()
            .map(sparkyard::replay::whatif::parse_duration)
            .transpose()?,
        price_core_hour: cmd.price_core_hour,
        price_gb_hour: cmd.price_gb_hour,
    };
    let setup = sparkyard::replay::simulate::ReplaySetup {
        submit: cmd.args,
        scenario: load_scenario(cmd.scenario.as_deref())?,
    };
    let table = sparkyard::replay::whatif::run(&cmd.eventlog, &setup, &request)?;
    if cmd.json {
        println!("{}", sparkyard::replay::whatif::json(&table));
    } else {
        print!("{}", sparkyard::replay::whatif::text(&table));
    }
    sparkyard::replay::plot::write_svg(&table, &cmd.plot)?;
    println!("plot: {}", cmd.plot.display());
    Ok(ExitCode::SUCCESS)
}
