//! The submit pipeline, written once: what a user gives (spark-submit's arguments, the
//! spark-defaults source, a cluster, a seed, output options, an optional synthetic workload and
//! fault plan) becomes a validated [`Submission`], then a [`PreparedRun`] (cluster, Spark
//! settings, simulation config), then a [`CompletedRun`]. `sparkyard submit`, `run` and `sweep`
//! (through [`crate::scenario::run`]), the tests and the scale bench all go through it.
//!
//! The stages are separate so each caller can act between them, in spark-submit's order:
//! `submit` prints the request's warnings before the cluster file is read, and the bench builds
//! the run outside its stopwatch. Every error is a [`UserError`].

use crate::conf::cluster::{ClusterConfig, ClusterSource, load_cluster};
use crate::conf::settings::spark_settings;
use crate::conf::submit::{DefaultsFile, SubmitArgs, SubmitRequest};
use crate::error::UserError;
use crate::runner::{self, RunOptions, RunResult};
use sparkyard_actors::simulation::config::{SimConfig, SparkSettings, UserProgram};
use sparkyard_actors::simulation::faults::FaultController;

/// `$SPARK_CONF_DIR/spark-defaults.conf` when `SPARK_CONF_DIR` is set (as spark-submit reads
/// it), else the defaults file that ships with sparkyard.
pub fn defaults_from_env() -> DefaultsFile {
    match std::env::var_os("SPARK_CONF_DIR") {
        Some(dir) => DefaultsFile::Path(std::path::Path::new(&dir).join("spark-defaults.conf")),
        None => DefaultsFile::embedded(),
    }
}

/// Where the simulated cluster comes from.
// Made once per run: the size difference between the variants costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum ClusterChoice {
    /// The submission's `--cluster FILE`, else the embedded default (as `sparkyard submit`).
    FromSubmission,
    /// A cluster already loaded (a scenario's, the bench's).
    Loaded(Box<ClusterConfig>),
}

/// Everything of a run that is not in the spark-submit arguments.
pub struct RunPlan {
    pub cluster: ClusterChoice,
    /// The seed every random choice derives from; `None`: the submission's `--seed`.
    pub seed: Option<u64>,
    /// How the run is observed and recorded. Its `seed` is replaced by the run's seed, and
    /// `record_events` is turned on when the settings enable the event log (which needs them).
    pub options: RunOptions,
    /// A synthetic workload standing in for the user class.
    pub synthetic: Option<UserProgram>,
    pub faults: FaultController,
}

impl Default for RunPlan {
    fn default() -> Self {
        RunPlan {
            cluster: ClusterChoice::FromSubmission,
            seed: None,
            options: RunOptions::default(),
            synthetic: None,
            faults: FaultController::default(),
        }
    }
}

/// Stage 1: a validated spark-submit request.
pub struct Submission {
    pub request: SubmitRequest,
}

/// Stage 1, settled: a validated request with the Spark settings derived from it, the same for
/// every seed of a sweep ([`Submission::settle`]).
#[derive(Clone)]
pub struct Settled {
    pub request: SubmitRequest,
    pub spark: SparkSettings,
}

/// Stage 2: everything the simulation is built from, not yet run.
pub struct PreparedRun {
    pub request: SubmitRequest,
    pub spark: SparkSettings,
    pub config: SimConfig,
    pub options: RunOptions,
    pub faults: FaultController,
}

/// Stage 3: a run that ended, with what it was made from.
pub struct CompletedRun {
    pub request: SubmitRequest,
    pub spark: SparkSettings,
    pub result: RunResult,
}

impl Submission {
    /// Merges and validates spark-submit's arguments with the defaults file, as spark-submit does.
    pub fn from_args(args: SubmitArgs, defaults: DefaultsFile) -> Result<Self, UserError> {
        Ok(Submission {
            request: args.into_request(defaults)?,
        })
    }

    /// [`Submission::from_args`] on spark-submit's words, parsed with spark-submit's grammar.
    pub fn from_words<I, T>(words: I, defaults: DefaultsFile) -> Result<Self, UserError>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<str>,
    {
        Self::from_args(SubmitArgs::from_words(words)?, defaults)
    }

    /// Loads the cluster, derives the Spark settings and builds the simulation's config.
    pub fn prepare(self, mut plan: RunPlan) -> Result<PreparedRun, UserError> {
        // The cluster file is read before the settings are derived (their errors in that order).
        let cluster = plan.take_cluster(&self.request)?;
        let settled = self.settle()?;
        Ok(settled.build(cluster, plan))
    }

    /// Derives the Spark settings (and the event log directory's state): what every run of the
    /// same submission shares, so a sweep does it once for all its seeds.
    pub fn settle(self) -> Result<Settled, UserError> {
        let mut spark = spark_settings(&self.request)?;
        spark.event_log_dir_error = crate::conf::event_log_dir::log_dir_error(&spark)?;
        Ok(Settled {
            request: self.request,
            spark,
        })
    }

    /// [`Submission::prepare`], then [`PreparedRun::run`].
    pub fn run(self, plan: RunPlan) -> Result<CompletedRun, UserError> {
        self.prepare(plan)?.run()
    }
}

impl RunPlan {
    /// The plan's cluster, loaded (the plan keeps `FromSubmission` in its place).
    fn take_cluster(&mut self, request: &SubmitRequest) -> Result<ClusterConfig, UserError> {
        match std::mem::replace(&mut self.cluster, ClusterChoice::FromSubmission) {
            ClusterChoice::Loaded(cluster) => Ok(*cluster),
            ClusterChoice::FromSubmission => match &request.cluster {
                Some(path) => load_cluster(ClusterSource::Path(path.clone())),
                None => load_cluster(ClusterSource::Embedded),
            },
        }
    }
}

impl Settled {
    /// Loads the cluster and builds the simulation's config ([`Submission::prepare`] of a
    /// settled submission).
    pub fn prepare(self, mut plan: RunPlan) -> Result<PreparedRun, UserError> {
        let cluster = plan.take_cluster(&self.request)?;
        Ok(self.build(cluster, plan))
    }

    fn build(self, cluster: ClusterConfig, plan: RunPlan) -> PreparedRun {
        let Settled { request, spark } = self;
        let mut options = plan.options;
        options.seed = plan.seed.unwrap_or(request.seed);
        options.record_events |= spark.event_log_enabled;
        let config = SimConfig {
            spark: spark.clone(),
            yarn: cluster.yarn,
            nodes: cluster.nodes,
            costs: cluster.costs,
            rm_host: cluster.rm_host,
            rm_start_time_ms: cluster.rm_start_time_ms,
            // SparkSubmit.submit: with --proxy-user the Client runs in the proxy user's doAs,
            // so YARN sees that user (reports, staging dir, container log paths).
            user: request.parsed.proxy_user.clone().unwrap_or(cluster.user),
            seed: options.seed,
            capture_container_logs: options.capture_logs,
            synthetic: plan.synthetic,
            recorded_placement: None,
        };
        PreparedRun {
            request,
            spark,
            config,
            options,
            faults: plan.faults,
        }
    }
}

impl PreparedRun {
    /// Runs the simulation to its end on the virtual clock.
    pub fn run(self) -> Result<CompletedRun, UserError> {
        let result = runner::run(self.config, &self.options, self.faults)?;
        Ok(CompletedRun {
            request: self.request,
            spark: self.spark,
            result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(extra: &[&str]) -> Result<Submission, UserError> {
        let base = [
            "--master",
            "yarn",
            "--deploy-mode",
            "cluster",
            "--class",
            "X",
        ];
        let words = base.iter().chain(extra).chain(&["app.jar"]);
        Submission::from_words(words, DefaultsFile::Embedded(""))
    }

    fn prepare(extra: &[&str], plan: RunPlan) -> Result<PreparedRun, UserError> {
        submission(extra)?.prepare(plan)
    }

    #[test]
    fn the_seed_is_the_plans_else_the_submissions() {
        let run = prepare(&["--seed", "7"], RunPlan::default()).expect("prepared");
        assert_eq!((run.options.seed, run.config.seed), (7, 7));
        let plan = RunPlan {
            seed: Some(3),
            ..RunPlan::default()
        };
        let run = prepare(&["--seed", "7"], plan).expect("prepared");
        assert_eq!((run.options.seed, run.config.seed), (3, 3));
    }

    #[test]
    fn an_event_log_turns_on_event_recording() {
        let plain = prepare(&[], RunPlan::default()).expect("prepared");
        assert!(!plain.options.record_events);
        let logged = prepare(
            &["--conf", "spark.eventLog.enabled=true"],
            RunPlan::default(),
        );
        assert!(logged.expect("prepared").options.record_events);
    }

    #[test]
    fn the_cluster_is_the_plans_else_the_submissions_else_the_embedded_one() {
        let embedded = load_cluster(ClusterSource::Embedded).expect("embedded");
        let run = prepare(&[], RunPlan::default()).expect("prepared");
        assert_eq!(run.config.nodes.len(), embedded.nodes.len());
        let one = crate::conf::cluster::parse_cluster("[[nodes]]\n", "one").expect("one node");
        let plan = RunPlan {
            cluster: ClusterChoice::Loaded(Box::new(one)),
            ..RunPlan::default()
        };
        let run = prepare(&["--cluster", "/nonexistent/c.toml"], plan).expect("prepared");
        assert_eq!(run.config.nodes.len(), 1);
        let missing = prepare(&["--cluster", "/nonexistent/c.toml"], RunPlan::default());
        assert!(matches!(missing, Err(UserError::File { .. })));
    }

    #[test]
    fn every_refusal_is_a_user_error() {
        assert!(matches!(
            submission(&["--no-such-flag"]),
            Err(UserError::Launcher { .. })
        ));
        assert!(matches!(
            prepare(&["--conf", "spark.executor.memory=zz"], RunPlan::default()),
            Err(UserError::Java { .. })
        ));
    }
}
