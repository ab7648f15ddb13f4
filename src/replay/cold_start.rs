//! A dynamic-allocation log's cold starts: a job submitted after every executor had gone (idle
//! timeout) waited for Spark's `ExecutorAllocationManager` to ask YARN again, so its first
//! executor's registration times one executor's start-up from a job's submission, where the
//! application's first executors also carry whatever its start cost the cluster. The replay's
//! calibration (`simulate::calibrate`, which runs the probe) times the per-executor start-up on
//! these and gives the rest of the first executors' start-up to them alone
//! (`CostModel::first_executors_extra`).

use super::model::{Application, ExecutorSpan, OriginalConfig};
use crate::conf::submit::SubmitArgs;

pub const INITIAL_EXECUTORS: &str = "spark.dynamicAllocation.initialExecutors";
const MIN_EXECUTORS: &str = "spark.dynamicAllocation.minExecutors";
const EXECUTOR_INSTANCES: &str = "spark.executor.instances";
/// The keys Spark's initial target under dynamic allocation comes from.
pub const INITIAL_TARGET_KEYS: [&str; 3] = [MIN_EXECUTORS, INITIAL_EXECUTORS, EXECUTOR_INSTANCES];

/// Spark's initial executor target under dynamic allocation from the log's properties:
/// max(minExecutors, initialExecutors, spark.executor.instances)
/// (`Utils.getDynamicAllocationInitialExecutors`).
pub fn initial_target(c: &OriginalConfig) -> u32 {
    let prop = |k: &str| {
        c.properties
            .get(k)
            .and_then(|v| v.trim().parse::<u32>().ok())
            .unwrap_or(0)
    };
    prop(MIN_EXECUTORS)
        .max(prop(INITIAL_EXECUTORS))
        .max(c.executor_instances.unwrap_or(0))
}

/// Spark's initial target under dynamic allocation from the run's arguments: as
/// [`initial_target`], `--num-executors` for `spark.executor.instances` (SparkSubmit's
/// OptionAssigner sets the key from it), the last `--conf` of a key winning.
pub fn submitted_initial_target(args: &SubmitArgs) -> u32 {
    let last = |key: &str| args.conf_value(key).map(|v| v.parse::<u32>().unwrap_or(0));
    let instances = args
        .num_executors
        .as_deref()
        .and_then(|n| n.trim().parse::<u32>().ok())
        .or_else(|| last(EXECUTOR_INSTANCES));
    last(MIN_EXECUTORS)
        .unwrap_or(0)
        .max(last(INITIAL_EXECUTORS).unwrap_or(0))
        .max(instances.unwrap_or(0))
}

/// The log's cold-start time: the (lower) median of its [`ColdStart`]s' waits, ms. `None` without
/// dynamic allocation or such a job.
pub fn recorded_cold_start_ms(app: &Application) -> Option<u64> {
    median_wait_ms(&recorded_cold_starts(app))
}

/// The executors that came first after a job found every executor gone, one per such job
/// (empty without dynamic allocation).
pub fn recorded_cold_start_executors(app: &Application) -> Vec<&ExecutorSpan> {
    recorded_cold_starts(app)
        .into_iter()
        .map(|c| c.executor)
        .collect()
}

/// A job submitted when no executor was alive and an earlier one had been removed: the time to
/// the next executor's `SparkListenerExecutorAdded`, and that executor.
struct ColdStart<'a> {
    wait_ms: u64,
    executor: &'a ExecutorSpan,
}

/// The log's cold starts ([`ColdStart`]; none without dynamic allocation or in local mode).
fn recorded_cold_starts(app: &Application) -> Vec<ColdStart<'_>> {
    let c = &app.config;
    if !c.dynamic_allocation || c.is_local() {
        return Vec::new();
    }
    let executors: Vec<&ExecutorSpan> = app.executors.iter().filter(|e| !e.is_driver()).collect();
    cold_starts(app.jobs.iter().map(|j| j.submitted_ms), &executors)
}

/// The (lower) median of the cold starts' waits, ms.
fn median_wait_ms(starts: &[ColdStart]) -> Option<u64> {
    let mut waits: Vec<u64> = starts.iter().map(|c| c.wait_ms).collect();
    waits.sort_unstable();
    waits.get(waits.len().checked_sub(1)? / 2).copied()
}

/// Each job submitted (at `submissions`) as a [`ColdStart`].
fn cold_starts<'a>(
    submissions: impl Iterator<Item = u64>,
    executors: &[&'a ExecutorSpan],
) -> Vec<ColdStart<'a>> {
    let cold = |&t: &u64| {
        let alive = executors
            .iter()
            .any(|e| e.added_ms <= t && e.removed_ms.is_none_or(|r| r > t));
        let gone = executors
            .iter()
            .any(|e| e.removed_ms.is_some_and(|r| r <= t));
        !alive && gone
    };
    submissions
        .filter(cold)
        .filter_map(|t| {
            let next = executors
                .iter()
                .filter(|e| e.added_ms > t)
                .min_by_key(|e| e.added_ms)?;
            Some(ColdStart {
                wait_ms: next.added_ms - t,
                executor: next,
            })
        })
        .collect()
}

/// The arguments of the probe that times the simulation's own cold start: the run's, with no
/// initial executors, so its job asks for one as a later job of the log did (after
/// `schedulerBacklogTimeout`).
pub fn cold_probe_args(own: &SubmitArgs) -> SubmitArgs {
    let mut a = own.clone();
    // --num-executors would win over the conf (SparkSubmit's OptionAssigner), and Spark refuses
    // it at 0: the probe leaves it unset, so the initial target is the conf's 0.
    a.num_executors = None;
    a.conf.retain(|kv| {
        kv.split_once('=')
            .is_none_or(|(k, _)| k.trim() != EXECUTOR_INSTANCES)
    });
    a.conf.push(format!("{INITIAL_EXECUTORS}=0"));
    a.conf.push(format!("{MIN_EXECUTORS}=0"));
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executor(added_ms: u64, removed_ms: Option<u64>) -> ExecutorSpan {
        ExecutorSpan {
            executor_id: "1".into(),
            host: "h".into(),
            cores: 4,
            added_ms,
            removed_ms,
            removed_reason: None,
            resources: Default::default(),
            resource_profile_id: 0,
        }
    }

    fn cold(jobs: &[u64], executors: &[ExecutorSpan]) -> Option<u64> {
        let e: Vec<&ExecutorSpan> = executors.iter().collect();
        median_wait_ms(&cold_starts(jobs.iter().copied(), &e))
    }

    /// The eventlog_4nodes_8cores_dynamic_alloc.zstd shape: two executors at the start, gone
    /// by their idle timeout, then jobs with none alive wait 10 s for the next one.
    #[test]
    fn a_job_after_every_executor_went_times_the_cold_start() {
        let executors = [
            executor(20_866, Some(44_664)),
            executor(24_956, Some(48_187)),
            executor(103_160, None),
            executor(105_138, None),
            executor(112_747, None),
        ];
        // Jobs 0 and 1 found none alive (10.221 s and 10.055 s to the next executor); job 2
        // found executors alive. The lower median of the two.
        assert_eq!(cold(&[92_939, 93_105, 111_453], &executors), Some(10_055));
    }

    #[test]
    fn no_cold_start_while_executors_live_or_before_any_went() {
        // Executors alive at the job, or none removed yet (the start-up path, not a cold start
        // after an idle timeout).
        assert_eq!(cold(&[5_000], &[executor(1_000, None)]), None);
        assert_eq!(cold(&[3_000], &[executor(6_000, None)]), None);
        // None came after it.
        assert_eq!(cold(&[50_000], &[executor(1_000, Some(10_000))]), None);
    }

    /// The committed GPU log's own cold start (jobs 0 and 1 at 92.9 s, executor 4 at 103.2 s),
    /// and none in a fixed-executor log.
    #[test]
    fn the_committed_logs_cold_starts() {
        let load = |p: &str| crate::replay::model::load(std::path::Path::new(p)).unwrap();
        let gpu = load("tests/data/eventlogs/rapids/eventlog_4nodes_8cores_dynamic_alloc.zstd");
        assert_eq!(recorded_cold_start_ms(&gpu), Some(10_055));
        assert_eq!(initial_target(&gpu.config), 2);
        let sql = load("tests/data/eventlogs/sql_n2_r1.zstd");
        assert_eq!(recorded_cold_start_ms(&sql), None);
    }
}
