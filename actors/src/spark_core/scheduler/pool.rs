//! Spark 4.0.0's scheduling pools under `spark.scheduler.mode=FAIR` (`Pool`,
//! `FairSchedulingAlgorithm`, `FIFOSchedulingAlgorithm` and `FairSchedulableBuilder` in
//! `org.apache.spark.scheduler`): the root pool, FAIR, holds the allocation file's pools, a
//! `default` pool and one pool per `spark.scheduler.pool` a job names; each job's task sets join
//! its pool; each round of offers walks the task sets in the order the pools' algorithms sort
//! them (`rootPool.getSortedTaskSetQueue`). FIFO mode, Spark's default, builds no pools: the
//! root pool holds the task sets themselves in FIFO order, which is TaskSchedulerImpl's own walk.
//!
//! `buildPools` with `spark.scheduler.allocation.file` (read at submission,
//! `conf::allocation_file`) creates its pools in file order, then `default` (FIFO, minShare 0,
//! weight 1) unless the file has one. Without a file (no `fairscheduler.xml` is on a simulated
//! classpath) it creates `default` with the application's own mode, FAIR: concurrent jobs share
//! the executors. A pool a job names that does not exist is created FIFO, minShare 0, weight 1,
//! with Spark's warning.

use super::events::TsKey;
use crate::kernel::logs::ProcessLog;
pub use crate::world::config::SchedulingMode;
use crate::world::config::{AllocationFile, PoolConfig, ReplacedPoolValue};
use crate::{info, warn};
use std::cmp::Ordering;
use std::collections::BTreeMap;

const FSB: &str = "driver::FairSchedulableBuilder";
/// `FairSchedulableBuilder.DEFAULT_POOL_NAME`.
pub const DEFAULT_POOL: &str = "default";

/// `buildPools`' lines (`TaskSchedulerImpl.initialize`, right after `Created
/// YarnClusterScheduler` in a YARN application's driver): without an allocation file, `default`
/// with the application's mode; with one, each pool's warnings and line in file order, then
/// `buildDefaultPool`'s when the file made no `default`. Texts: Spark 4.0.0's jar
/// (SchedulableBuilder.scala) and a real run.
pub fn log_built_pools(log: &ProcessLog, file: Option<&AllocationFile>) {
    let Some(file) = file else {
        info!(
            log,
            FSB,
            "Fair scheduler configuration not found, created default pool: {DEFAULT_POOL}, schedulingMode: {}, minShare: 0, weight: 1",
            SchedulingMode::Fair.name()
        );
        return;
    };
    let path = &file.path;
    info!(log, FSB, "Creating Fair Scheduler pools from {path}");
    for pool in &file.pools {
        for replaced in &pool.replaced {
            log_replaced(log, path, &pool.name, replaced);
        }
        info!(
            log,
            FSB,
            "Created pool: {}, schedulingMode: {}, minShare: {}, weight: {}",
            pool.name,
            pool.mode.name(),
            pool.min_share,
            pool.weight
        );
    }
    if !file.pools.iter().any(|p| p.name == DEFAULT_POOL) {
        info!(
            log,
            FSB,
            "Created default pool: {DEFAULT_POOL}, schedulingMode: FIFO, minShare: 0, weight: 1"
        );
    }
}

/// `getSchedulingModeValue` / `getIntValue`'s warning for a value the default replaced.
fn log_replaced(log: &ProcessLog, path: &str, pool: &str, replaced: &ReplacedPoolValue) {
    let (property, found, default) = match replaced {
        ReplacedPoolValue::SchedulingMode { found } => {
            warn!(
                log,
                FSB,
                "Unsupported schedulingMode: {found} found in Fair Scheduler configuration file: {path}, using the default schedulingMode: FIFO for pool: {pool}"
            );
            return;
        }
        ReplacedPoolValue::MinShare { found } => ("minShare", found, 0),
        ReplacedPoolValue::Weight { found } => ("weight", found, 1),
    };
    warn!(
        log,
        FSB,
        "Error while loading fair scheduler configuration from {path}: {property} is blank or invalid: {found}, using the default {property}: {default} for pool: {pool}"
    );
}

/// What `FairSchedulingAlgorithm.comparator` reads of a `Schedulable` (a pool or a
/// TaskSetManager).
#[derive(Clone, Copy, Debug)]
struct Share<'a> {
    name: &'a str,
    running: u32,
    min_share: i32,
    weight: i32,
}

/// `FairSchedulingAlgorithm.comparator(s1, s2)`: a schedulable below its minShare ("needy")
/// comes first; two needy ones by running tasks over minShare, two others by running tasks over
/// weight; equal ratios by name (`String.<`).
fn fair_less(s1: Share<'_>, s2: Share<'_>) -> bool {
    let needy1 = (s1.running as i64) < i64::from(s1.min_share);
    let needy2 = (s2.running as i64) < i64::from(s2.min_share);
    let compare = match (needy1, needy2) {
        (true, false) => return true,
        (false, true) => return false,
        (true, true) => {
            let r1 = f64::from(s1.running) / f64::from(s1.min_share).max(1.0);
            let r2 = f64::from(s2.running) / f64::from(s2.min_share).max(1.0);
            java_double_compare(r1, r2)
        }
        (false, false) => {
            let r1 = f64::from(s1.running) / f64::from(s1.weight);
            let r2 = f64::from(s2.running) / f64::from(s2.weight);
            java_double_compare(r1, r2)
        }
    };
    match compare {
        Ordering::Less => true,
        Ordering::Greater => false,
        Ordering::Equal => s1.name < s2.name,
    }
}

/// `java.lang.Double.compare` (Scala's `Double.compareTo`): every NaN equal and above all
/// else (a pool of weight 0 with no running task is 0/0), -0.0 below 0.0.
fn java_double_compare(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.total_cmp(&b),
    }
}

/// Scala's `sortWith(lt)`: a stable sort by `Ordering.fromLessThan(lt)`.
fn sort_with<T>(items: &mut [T], lt: impl Fn(&T, &T) -> bool) {
    items.sort_by(|a, b| {
        if lt(a, b) {
            Ordering::Less
        } else if lt(b, a) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    });
}

/// `FIFOSchedulingAlgorithm.comparator` of two task sets: the lower priority (job id), then the
/// lower stage id.
fn fifo_less(a: &TsKey, b: &TsKey) -> bool {
    (a.0, a.1) < (b.0, b.1)
}

/// A pool: its configuration and its task sets in the order they joined (`schedulableQueue`).
#[derive(Clone, Debug)]
struct Pool {
    name: String,
    mode: SchedulingMode,
    min_share: i32,
    weight: i32,
    sets: Vec<TsKey>,
}

impl Pool {
    fn new(name: &str, mode: SchedulingMode) -> Pool {
        Pool {
            name: name.to_string(),
            mode,
            min_share: 0,
            weight: 1,
            sets: Vec::new(),
        }
    }

    /// A pool of the allocation file.
    fn configured(c: &PoolConfig) -> Pool {
        Pool {
            name: c.name.clone(),
            mode: c.mode,
            min_share: c.min_share,
            weight: c.weight,
            sets: Vec::new(),
        }
    }
}

/// The pools of one SparkContext in FAIR mode, and which job names which pool.
pub struct FairPools {
    log: ProcessLog,
    /// The root pool's queue, in the order the pools were added.
    pools: Vec<Pool>,
    /// Each job's `spark.scheduler.pool` property (a job that names none is in `default`).
    job_pools: BTreeMap<u32, String>,
    /// The pool each registered task set is in.
    set_pool: BTreeMap<TsKey, usize>,
    /// `getSortedTaskSetQueue`'s pool order (reused).
    order: Vec<usize>,
}

impl FairPools {
    /// `FairSchedulableBuilder.buildPools` (Spark 4.0.0): the allocation file's pools in its
    /// order, then `default` FIFO if the file made none; without a file, `default` takes the
    /// application's scheduling mode, FAIR. The lines are [`log_built_pools`]'s, which the
    /// SparkContext's start logs where `TaskSchedulerImpl.initialize` runs.
    pub fn new(log: ProcessLog, file: Option<&AllocationFile>) -> FairPools {
        let pools = match file {
            None => vec![Pool::new(DEFAULT_POOL, SchedulingMode::Fair)],
            Some(f) => {
                let mut pools: Vec<Pool> = f.pools.iter().map(Pool::configured).collect();
                if !pools.iter().any(|p| p.name == DEFAULT_POOL) {
                    pools.push(Pool::new(DEFAULT_POOL, SchedulingMode::Fifo));
                }
                pools
            }
        };
        FairPools {
            log,
            pools,
            job_pools: BTreeMap::new(),
            set_pool: BTreeMap::new(),
            order: Vec::new(),
        }
    }

    /// The job's local property `spark.scheduler.pool`, as `submitJob` passes it on to the
    /// job's task sets.
    pub fn set_job_pool(&mut self, job_id: u32, pool: Option<&str>) {
        if let Some(p) = pool {
            self.job_pools.insert(job_id, p.to_string());
        }
    }

    /// `FairSchedulableBuilder.addTaskSetManager`: the set joins its job's pool, which is
    /// created FIFO (minShare 0, weight 1) with Spark's warning when nothing configured it.
    pub fn add_task_set(&mut self, key: TsKey) {
        let name = self
            .job_pools
            .get(&key.0)
            .map_or(DEFAULT_POOL, String::as_str);
        // `getSchedulableByName`: a name the file gave twice maps to its last pool (each
        // `addSchedulable` puts into the name map), though both stay in the queue.
        let index = match self.pools.iter().rposition(|p| p.name == name) {
            Some(i) => i,
            None => {
                // Spark 4.0.0 prints this warning without its closing parenthesis.
                warn!(
                    self.log,
                    FSB,
                    "A job was submitted with scheduler pool {name}, which has not been configured. This can happen when the file that pools are read from isn't set, or when that file doesn't contain {name}. Created {name} with default configuration (schedulingMode: FIFO, minShare: 0, weight: 1"
                );
                self.pools.push(Pool::new(name, SchedulingMode::Fifo));
                self.pools.len() - 1
            }
        };
        self.pools[index].sets.push(key);
        self.set_pool.insert(key, index);
        let (stage, attempt) = (key.1, key.2);
        info!(
            self.log,
            FSB,
            "Added task set TaskSet_{stage}.{attempt} tasks to pool {}",
            self.pools[index].name
        );
    }

    /// The pool a registered task set is in (`manager.parent.name`).
    pub fn pool_of(&self, key: TsKey) -> &str {
        self.set_pool
            .get(&key)
            .map_or(DEFAULT_POOL, |&i| self.pools[i].name.as_str())
    }

    /// `taskSetFinished`: the set leaves its pool (`manager.parent.removeSchedulable`); it
    /// keeps its `parent`, which a second `Removed TaskSet` line still names.
    pub fn remove_task_set(&mut self, key: TsKey) {
        if let Some(&i) = self.set_pool.get(&key) {
            self.pools[i].sets.retain(|k| *k != key);
        }
    }

    /// `rootPool.getSortedTaskSetQueue`: the pools sorted by the FAIR algorithm (a pool's
    /// running tasks are its sets'), each pool's sets by its own algorithm, into `out` in that
    /// order. `running` is a set's `runningTasks`; the caller keeps only schedulable sets.
    pub fn sorted_task_sets(&mut self, running: &dyn Fn(TsKey) -> u32, out: &mut Vec<TsKey>) {
        let totals: Vec<u32> = self
            .pools
            .iter()
            .map(|p| p.sets.iter().map(|k| running(*k)).sum())
            .collect();
        let share = |i: usize| Share {
            name: &self.pools[i].name,
            running: totals[i],
            min_share: self.pools[i].min_share,
            weight: self.pools[i].weight,
        };
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(0..self.pools.len());
        sort_with(&mut order, |a, b| fair_less(share(*a), share(*b)));
        for &i in &order {
            let start = out.len();
            out.extend_from_slice(&self.pools[i].sets);
            let sets = &mut out[start..];
            match self.pools[i].mode {
                SchedulingMode::Fifo => sort_with(sets, fifo_less),
                SchedulingMode::Fair => sort_fair(sets, running),
            }
        }
        self.order = order;
    }
}

/// A FAIR pool's task sets: each a `Schedulable` of minShare 0 and weight 1 named
/// `TaskSet_<stage>.<attempt>`, so the fewest running tasks first, then the name in string
/// order (`TaskSet_10.0` before `TaskSet_9.0`).
fn sort_fair(sets: &mut [TsKey], running: &dyn Fn(TsKey) -> u32) {
    let mut named: Vec<(TsKey, String, u32)> = sets
        .iter()
        .map(|k| (*k, format!("TaskSet_{}.{}", k.1, k.2), running(*k)))
        .collect();
    sort_with(&mut named, |a, b| {
        fair_less(task_set_share(a), task_set_share(b))
    });
    for (slot, (k, _, _)) in sets.iter_mut().zip(named) {
        *slot = k;
    }
}

/// A task set as a `Schedulable`: minShare 0, weight 1.
fn task_set_share(x: &(TsKey, String, u32)) -> Share<'_> {
    Share {
        name: &x.1,
        running: x.2,
        min_share: 0,
        weight: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::logs::LogStore;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn pools() -> (FairPools, Rc<RefCell<LogStore>>) {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("driver", store.clone());
        log_built_pools(&log, None);
        (FairPools::new(log, None), store)
    }

    /// The driver's captured lines, each from its level on (the date and time left out).
    fn lines(store: &Rc<RefCell<LogStore>>) -> Vec<String> {
        let store = store.borrow();
        let out = store.output("driver").map_or("", |o| o.stderr.as_str());
        out.lines()
            .map(|l| l.splitn(3, ' ').nth(2).unwrap_or(l).to_string())
            .collect()
    }

    fn sorted(p: &mut FairPools, running: &BTreeMap<TsKey, u32>) -> Vec<TsKey> {
        let mut out = Vec::new();
        p.sorted_task_sets(&|k| running.get(&k).copied().unwrap_or(0), &mut out);
        out
    }

    /// Spark 4.0.0's FairSchedulableBuilder.buildPools without an allocation file: `default`
    /// takes spark.scheduler.mode (checked in a real 4.0.0 run: `Fair scheduler configuration
    /// not found, created default pool: default, schedulingMode: FAIR, minShare: 0, weight: 1`).
    #[test]
    fn the_default_pool_is_fair_and_said_so() {
        let (_, store) = pools();
        let lines = lines(&store);
        assert!(lines.iter().any(|l| l.ends_with(
            "Fair scheduler configuration not found, created default pool: default, schedulingMode: FAIR, minShare: 0, weight: 1"
        )), "{lines:?}");
    }

    /// PoolSuite "FAIR Scheduler Test": in a FAIR pool the set with fewer running tasks comes
    /// first, equal ones by name (Spark's `TaskSet_<id>` strings: "TaskSet_10.0" < "TaskSet_2.0").
    #[test]
    fn a_fair_pool_sorts_by_running_tasks_then_name() {
        let (mut p, _) = pools();
        for key in [(0, 2, 0), (1, 10, 0), (2, 3, 0)] {
            p.add_task_set(key);
        }
        let running = BTreeMap::from([((0, 2, 0), 2), ((1, 10, 0), 2), ((2, 3, 0), 1)]);
        assert_eq!(
            sorted(&mut p, &running),
            vec![(2, 3, 0), (1, 10, 0), (0, 2, 0)]
        );
    }

    /// A pool nothing configured is created FIFO with Spark 4.0.0's warning (seen in a real run,
    /// its closing parenthesis missing), and its sets go in job then stage order; the root pool
    /// shares by the pools' running tasks (PoolSuite "Nested Pool Test": the pool with fewer
    /// running tasks is offered first).
    #[test]
    fn an_unconfigured_pool_is_fifo_and_pools_share_by_running_tasks() {
        let (mut p, store) = pools();
        p.set_job_pool(1, Some("p1"));
        p.add_task_set((0, 0, 0));
        p.add_task_set((1, 2, 0));
        p.add_task_set((1, 1, 0));
        assert_eq!(p.pool_of((1, 1, 0)), "p1");
        let lines = lines(&store);
        assert!(lines.iter().any(|l| l.ends_with(
            "WARN FairSchedulableBuilder: A job was submitted with scheduler pool p1, which has not been configured. This can happen when the file that pools are read from isn't set, or when that file doesn't contain p1. Created p1 with default configuration (schedulingMode: FIFO, minShare: 0, weight: 1"
        )), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.ends_with(
                "INFO FairSchedulableBuilder: Added task set TaskSet_2.0 tasks to pool p1"
            )),
            "{lines:?}"
        );
        // default runs 2, p1 runs 1: p1 first, its sets FIFO (stage 1 before stage 2).
        let running = BTreeMap::from([((0, 0, 0), 2), ((1, 2, 0), 1)]);
        assert_eq!(
            sorted(&mut p, &running),
            vec![(1, 1, 0), (1, 2, 0), (0, 0, 0)]
        );
        // default runs 1, p1 runs 2: default first.
        let running = BTreeMap::from([((0, 0, 0), 1), ((1, 1, 0), 2)]);
        assert_eq!(
            sorted(&mut p, &running),
            vec![(0, 0, 0), (1, 1, 0), (1, 2, 0)]
        );
        // Equal shares: by pool name, "default" < "p1".
        assert_eq!(sorted(&mut p, &BTreeMap::new())[0], (0, 0, 0));
    }

    #[test]
    fn a_finished_set_leaves_its_pool() {
        let (mut p, _) = pools();
        p.add_task_set((0, 0, 0));
        p.add_task_set((1, 1, 0));
        p.remove_task_set((0, 0, 0));
        assert_eq!(sorted(&mut p, &BTreeMap::new()), vec![(1, 1, 0)]);
    }

    /// FairSchedulingAlgorithm: a schedulable under its minShare comes before one that is not,
    /// two needy ones by running / minShare, two others by running / weight, then by name
    /// (PoolSuite "Nested Pool Test" and "FAIR Scheduler Test" weigh pools so).
    #[test]
    fn needy_schedulables_come_first_then_running_over_weight() {
        let s = |name, running, min_share, weight| Share {
            name,
            running,
            min_share,
            weight,
        };
        // Needy (1 < 2) before not needy, whatever the running counts.
        assert!(fair_less(s("b", 1, 2, 1), s("a", 0, 0, 1)));
        assert!(!fair_less(s("a", 0, 0, 1), s("b", 1, 2, 1)));
        // Both needy: 1/4 before 1/2.
        assert!(fair_less(s("b", 1, 4, 1), s("a", 1, 2, 1)));
        // Neither needy: 4 running at weight 2 (2.0) before 3 at weight 1 (3.0).
        assert!(fair_less(s("b", 4, 0, 2), s("a", 3, 0, 1)));
        // Equal ratios: by name.
        assert!(fair_less(s("a", 2, 0, 1), s("b", 2, 0, 1)));
        assert!(!fair_less(s("b", 2, 0, 1), s("a", 2, 0, 1)));
    }

    /// `spark.scheduler.mode` is upper-cased before `SchedulingMode.withName`; another value
    /// fails the SparkContext with SparkCoreErrors' text (a real 4.0.0 run with `fair2`:
    /// `Unrecognized spark.scheduler.mode: FAIR2`).
    #[test]
    fn the_mode_is_read_as_spark_reads_it() {
        assert_eq!(SchedulingMode::parse("fair"), Ok(SchedulingMode::Fair));
        assert_eq!(SchedulingMode::parse("FIFO"), Ok(SchedulingMode::Fifo));
        assert_eq!(
            SchedulingMode::parse("fair2"),
            Err("Unrecognized spark.scheduler.mode: FAIR2".to_string())
        );
    }

    /// The pools file of a real Spark 4.0.0 run (`local-cluster[1,2,1024]`, the report's
    /// pools.xml): `etl` FAIR minShare 1 weight 2, `adhoc` FIFO with minShare blank, `odd`
    /// NONE/`x`/3; buildPools' lines as that run printed them, then `buildDefaultPool`'s.
    fn file() -> AllocationFile {
        let pool = |name: &str, mode, min_share, weight, replaced| PoolConfig {
            name: name.into(),
            mode,
            min_share,
            weight,
            replaced,
        };
        AllocationFile {
            path: "/tmp/ff/pools.xml".into(),
            pools: vec![
                pool("etl", SchedulingMode::Fair, 1, 2, vec![]),
                pool(
                    "adhoc",
                    SchedulingMode::Fifo,
                    0,
                    1,
                    vec![ReplacedPoolValue::MinShare {
                        found: String::new(),
                    }],
                ),
                pool(
                    "odd",
                    SchedulingMode::Fifo,
                    0,
                    3,
                    vec![
                        ReplacedPoolValue::SchedulingMode {
                            found: "NONE".into(),
                        },
                        ReplacedPoolValue::MinShare { found: "x".into() },
                    ],
                ),
            ],
        }
    }

    /// SchedulableBuilder.scala `buildPools` / `buildFairSchedulerPool` / `buildDefaultPool`
    /// with a file (the lines of the real run, MDC pieces concatenated).
    #[test]
    fn a_pools_file_is_said_as_spark_says_it() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("driver", store.clone());
        log_built_pools(&log, Some(&file()));
        let f = "/tmp/ff/pools.xml";
        assert_eq!(
            lines(&store),
            [
                format!("INFO FairSchedulableBuilder: Creating Fair Scheduler pools from {f}"),
                "INFO FairSchedulableBuilder: Created pool: etl, schedulingMode: FAIR, minShare: 1, weight: 2".into(),
                format!("WARN FairSchedulableBuilder: Error while loading fair scheduler configuration from {f}: minShare is blank or invalid: , using the default minShare: 0 for pool: adhoc"),
                "INFO FairSchedulableBuilder: Created pool: adhoc, schedulingMode: FIFO, minShare: 0, weight: 1".into(),
                format!("WARN FairSchedulableBuilder: Unsupported schedulingMode: NONE found in Fair Scheduler configuration file: {f}, using the default schedulingMode: FIFO for pool: odd"),
                format!("WARN FairSchedulableBuilder: Error while loading fair scheduler configuration from {f}: minShare is blank or invalid: x, using the default minShare: 0 for pool: odd"),
                "INFO FairSchedulableBuilder: Created pool: odd, schedulingMode: FIFO, minShare: 0, weight: 3".into(),
                "INFO FairSchedulableBuilder: Created default pool: default, schedulingMode: FIFO, minShare: 0, weight: 1".into(),
            ]
        );
        // A file with its own `default`: no default pool line.
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("driver", store.clone());
        let mut own = file();
        own.pools[0].name = DEFAULT_POOL.into();
        log_built_pools(&log, Some(&own));
        assert!(
            !lines(&store)
                .iter()
                .any(|l| l.contains("Created default pool"))
        );
    }

    /// The file's pools sort by FairSchedulingAlgorithm (PoolSuite "Fair Scheduler Test" /
    /// "Nested Pool Test"): `etl` (minShare 1) is needy with no task running and goes first;
    /// once it runs 1 and `adhoc` 0, neither is needy and `adhoc` (0/1) precedes `etl` (1/2);
    /// `etl` 2 and `adhoc` 1 tie (2/2, 1/1) and the name decides; `etl` 2 (2/2) precedes `adhoc`
    /// 2 (2/1). A job that names no pool joins `default` (FIFO, created after the file's).
    #[test]
    fn the_files_pools_sort_by_min_share_and_weight() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let mut p = FairPools::new(ProcessLog::new("driver", store.clone()), Some(&file()));
        p.set_job_pool(0, Some("adhoc"));
        p.set_job_pool(1, Some("etl"));
        p.add_task_set((0, 0, 0));
        p.add_task_set((1, 1, 0));
        p.add_task_set((2, 2, 0));
        assert_eq!(p.pool_of((2, 2, 0)), DEFAULT_POOL);
        assert!(
            !lines(&store)
                .iter()
                .any(|l| l.contains("has not been configured"))
        );
        let r = |adhoc, etl| BTreeMap::from([((0, 0, 0), adhoc), ((1, 1, 0), etl), ((2, 2, 0), 5)]);
        assert_eq!(sorted(&mut p, &r(3, 0))[0], (1, 1, 0));
        assert_eq!(sorted(&mut p, &r(0, 1))[0], (0, 0, 0));
        assert_eq!(sorted(&mut p, &r(1, 2))[0], (0, 0, 0));
        assert_eq!(sorted(&mut p, &r(2, 2))[0], (1, 1, 0));
    }

    /// `Double.compareTo` as FairSchedulingAlgorithm compares: a pool of weight 0 with nothing
    /// running is 0/0 = NaN, after every number (Rust's `total_cmp` would put a negative NaN
    /// first).
    #[test]
    fn a_weight_of_zero_sorts_as_java_compares_doubles() {
        let s = |name, running, weight| Share {
            name,
            running,
            min_share: 0,
            weight,
        };
        // A NaN with its sign bit set, as x86 makes 0.0 / 0.0 at run time.
        let nan = -f64::NAN;
        assert_eq!(java_double_compare(nan, 1.0), Ordering::Greater);
        assert_eq!(java_double_compare(1.0, f64::NAN), Ordering::Less);
        assert!(fair_less(s("b", 5, 1), s("a", 0, 0)));
        assert!(!fair_less(s("a", 0, 0), s("b", 5, 1)));
    }
}
