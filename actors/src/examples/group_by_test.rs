//! `org.apache.spark.examples.GroupByTest` and `SkewedGroupByTest`: `numMappers` tasks make
//! `numKVPairs` random (Int, Array[Byte](valSize)) pairs each and cache them (`pairs1.count()`,
//! job 0), then `pairs1.groupByKey(numReducers).count()` (job 1: a ShuffleMapStage over the
//! cached pairs and a ResultStage over the ShuffledRDD). SkewedGroupByTest's mapper `p` makes
//! `(p + 1) / numMappers` of `numKVPairs` pairs (its map outputs grow linearly). Sizes, records
//! and durations come from the arguments (the data model below); the RDDs, scopes and call
//! sites are Spark's (lines: Spark's examples since 2.0, `RDD.scala` lines from the 4.0.0 jar).

use super::program::{Program, ProgramPlan};
use super::{call_site_long_form, rdd, scope_of};
use sparkyard_messages::task::TaskResultData;
use sparkyard_messages::task::{
    CachedRddRead, DeterministicLevel, InputSize, JobSpec, ShuffleWriteSize, StageLineage,
    StageSpec, StageTasks, TaskWork,
};

pub const CLASS: &str = "org.apache.spark.examples.GroupByTest";
pub const SKEWED_CLASS: &str = "org.apache.spark.examples.SkewedGroupByTest";
/// Both set `appName("GroupBy Test")`.
pub const APP_NAME: &str = "GroupBy Test";

/// Generating random bytes (`Random.nextBytes`) into the cache: bytes per ms on one core.
const GENERATE_BYTES_PER_MS: u64 = 200_000;
/// Serialising cached pairs into shuffle files: bytes per ms on one core.
const MAP_BYTES_PER_MS: u64 = 400_000;
/// Fetching and grouping (`Aggregator.combineValuesByKey`): bytes per ms on one core.
const REDUCE_BYTES_PER_MS: u64 = 100_000;
/// A pair's serialised size besides its value (JavaSerializer's Tuple2, boxed Int and the
/// byte array's header), bytes.
const PAIR_OVERHEAD: u64 = 40;

/// The arguments, with the examples' defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Args {
    pub num_mappers: u32,
    pub num_kv_pairs: u32,
    pub val_size: u32,
    pub num_reducers: u32,
}

/// The program's source lines (their call sites).
struct Source {
    class: &'static str,
    file: &'static str,
    /// `parallelize(...).flatMap` / `pairs1.count()` / `groupByKey(numReducers).count()` /
    /// `spark.stop()`.
    flat_map: u32,
    first_count: u32,
    group_by: u32,
    stop: u32,
}

const GROUP_BY: Source = Source {
    class: CLASS,
    file: "GroupByTest.scala",
    flat_map: 40,
    first_count: 51,
    group_by: 53,
    stop: 55,
};

const SKEWED: Source = Source {
    class: SKEWED_CLASS,
    file: "SkewedGroupByTest.scala",
    flat_map: 40,
    first_count: 55,
    group_by: 57,
    stop: 59,
};

fn source(skewed: bool) -> &'static Source {
    if skewed { &SKEWED } else { &GROUP_BY }
}

/// `args(i).toInt` with Java's `NumberFormatException`; `numReducers` defaults to `numMappers`.
pub fn parse_args(args: &[String]) -> Result<Args, String> {
    let int = |i: usize, default: u32| -> Result<u32, String> {
        let Some(a) = args.get(i) else {
            return Ok(default);
        };
        match a.parse::<i32>() {
            Ok(n) if n >= 0 => Ok(n as u32),
            Ok(_) if i == 0 || i == 3 => Err(
                "java.lang.IllegalArgumentException: Positive number of partitions required".into(),
            ),
            Ok(_) => Err(format!("java.lang.NegativeArraySizeException: {a}")),
            Err(_) => Err(format!(
                "java.lang.NumberFormatException: For input string: \"{a}\""
            )),
        }
    };
    let num_mappers = int(0, 2)?;
    let a = Args {
        num_mappers,
        num_kv_pairs: int(1, 1000)?,
        val_size: int(2, 1000)?,
        num_reducers: int(3, num_mappers)?,
    };
    if a.num_mappers == 0 || a.num_reducers == 0 {
        return Err(
            "java.lang.IllegalArgumentException: Positive number of partitions required".into(),
        );
    }
    Ok(a)
}

/// The pairs mapper `p` makes: all of `numKVPairs`, or SkewedGroupByTest's
/// `(1.0 * (p + 1) / numMappers * numKVPairs).toInt`.
pub fn pairs_of(a: &Args, skewed: bool, p: u32) -> u64 {
    if skewed {
        ((f64::from(p + 1) / f64::from(a.num_mappers)) * f64::from(a.num_kv_pairs)) as u64
    } else {
        u64::from(a.num_kv_pairs)
    }
}

/// A cached pair's estimated size in the MemoryStore (`SizeEstimator` with compressed oops:
/// the Tuple2 24 B, the boxed Integer 16 B, the byte array's 16 B header and its values
/// rounded up to 8, and the 4 B reference in the unrolled values array); a model, not measured.
fn cached_pair_bytes(a: &Args) -> u64 {
    60 + u64::from(a.val_size).div_ceil(8) * 8
}

fn pair_bytes(a: &Args) -> u64 {
    u64::from(a.val_size) + PAIR_OVERHEAD
}

/// The two jobs `main` runs.
pub fn jobs(a: &Args, skewed: bool) -> Vec<JobSpec> {
    let src = source(skewed);
    let maps = a.num_mappers;
    let bytes = |p: u32| pairs_of(a, skewed, p) * pair_bytes(a);
    let sleep = |ms: u64| TaskWork::Sleep {
        duration_ms: ms.max(1),
        fail: None,
    };
    // Both jobs' first stages read the cached flatMap RDD[1]'s block of their partition
    // (`rdd_1_<p>`); a task that finds none generates the pairs and stores them.
    let cached = |p: u32, work_ms: u64| {
        TaskWork::CachedRdd(Box::new(CachedRddRead {
            rdd_id: 1,
            block_bytes: pairs_of(a, skewed, p) * cached_pair_bytes(a),
            records: pairs_of(a, skewed, p),
            compute_ms: (bytes(p) / GENERATE_BYTES_PER_MS).max(1),
            work_ms,
            location: None,
        }))
    };
    let pairs1 = || {
        vec![
            rdd_cached(src),
            rdd(
                0,
                "ParallelCollectionRDD",
                &format!("parallelize at {}:{}", src.file, src.flat_map),
                (0, "parallelize"),
                &[],
            ),
        ]
    };
    // Both jobs' first stages are over the cached flatMap RDD.
    let flat_map_rdd = format!(
        "MapPartitionsRDD[1] at flatMap at {}:{}",
        src.file, src.flat_map
    );
    let count0 = StageSpec {
        rdd_description: flat_map_rdd.clone(),
        num_partitions: maps,
        parents: Vec::new(),
        tasks: (0..maps).map(|p| cached(p, 0)).collect(),
        shuffle_write: ShuffleWriteSize::default(),
        preferred_hosts: Vec::new(),
        input_path: None,
        input: Default::default(),
        lineage: Some(Box::new(StageLineage {
            rdds: pairs1(),
            details: long_form(
                src,
                "org.apache.spark.rdd.RDD.count(RDD.scala:1304)",
                src.first_count,
            ),
            action_scope: Some(scope_of((2, "count"))),
            shuffle_id: None,
        })),
        result_bytes: Default::default(),
        barrier: false,
    };
    // The map side writes every pair; a skewed run writes its mappers' average (the
    // MapStatus sizes are per stage).
    let total: u64 = (0..maps).map(|p| pairs_of(a, skewed, p)).sum();
    let per_map = total / u64::from(maps);
    let map = StageSpec {
        rdd_description: flat_map_rdd,
        num_partitions: maps,
        parents: Vec::new(),
        tasks: (0..maps)
            .map(|p| cached(p, (bytes(p) / MAP_BYTES_PER_MS).max(1)))
            .collect(),
        shuffle_write: ShuffleWriteSize {
            bytes_per_task: per_map * pair_bytes(a),
            records_per_task: per_map,
            hot: Default::default(),
        },
        preferred_hosts: Vec::new(),
        input_path: None,
        // RDD.getOrCompute's readCachedBlock: the map side reads its cached block (a skewed
        // run reports its mappers' average, as its shuffle sizes).
        input: InputSize {
            bytes_per_task: per_map * cached_pair_bytes(a),
            records_per_task: per_map,
            hot: Default::default(),
        },
        lineage: Some(Box::new(StageLineage {
            rdds: pairs1(),
            details: long_form(
                src,
                "org.apache.spark.rdd.RDD.flatMap(RDD.scala:433)",
                src.flat_map,
            ),
            action_scope: None,
            shuffle_id: None,
        })),
        result_bytes: Default::default(),
        barrier: false,
    };
    let reducers = a.num_reducers;
    let reduce_ms = total * pair_bytes(a) / u64::from(reducers) / REDUCE_BYTES_PER_MS;
    let mut shuffled = rdd(
        2,
        "ShuffledRDD",
        &format!("groupByKey at {}:{}", src.file, src.group_by),
        (3, "groupByKey"),
        &[1],
    );
    // RDD.getOutputDeterministicLevel: a shuffle with an aggregator and no key ordering.
    shuffled.deterministic_level = DeterministicLevel::Unordered;
    let reduce = StageSpec {
        rdd_description: format!(
            "ShuffledRDD[2] at groupByKey at {}:{}",
            src.file, src.group_by
        ),
        num_partitions: reducers,
        parents: vec![0],
        tasks: StageTasks::same(sleep(reduce_ms), reducers),
        shuffle_write: ShuffleWriteSize::default(),
        preferred_hosts: Vec::new(),
        input_path: None,
        input: Default::default(),
        lineage: Some(Box::new(StageLineage {
            rdds: vec![shuffled],
            details: long_form(
                src,
                "org.apache.spark.rdd.RDD.count(RDD.scala:1304)",
                src.group_by,
            ),
            action_scope: Some(scope_of((4, "count"))),
            shuffle_id: None,
        })),
        result_bytes: Default::default(),
        barrier: false,
    };
    vec![
        JobSpec {
            call_site: format!("count at {}:{}", src.file, src.first_count),
            stages: vec![count0],
        },
        JobSpec {
            call_site: format!("count at {}:{}", src.file, src.group_by),
            stages: vec![map, reduce],
        },
    ]
}

/// `pairs1`: the flatMap's MapPartitionsRDD, `.cache()`d (MEMORY_ONLY).
fn rdd_cached(src: &Source) -> sparkyard_messages::task::RddSpec {
    let mut r = rdd(
        1,
        "MapPartitionsRDD",
        &format!("flatMap at {}:{}", src.file, src.flat_map),
        (1, "flatMap"),
        &[0],
    );
    r.cached = true;
    r
}

fn long_form(src: &Source, spark_frame: &str, line: u32) -> String {
    call_site_long_form(spark_frame, src.class, src.file, line)
}

/// `spark.stop()`'s call site.
pub fn stop_site(skewed: bool) -> String {
    let src = source(skewed);
    format!("stop at {}:{}", src.file, src.stop)
}

/// What `println(pairs1.groupByKey(numReducers).count())` prints: the distinct keys among the
/// pairs' `nextInt(Int.MaxValue)` keys, at their expected value (`n - n(n-1) / 2m` for `n`
/// keys drawn from `m`), as the program's unseeded Random makes no run reproducible anyway.
pub fn distinct_keys(a: &Args, skewed: bool) -> u64 {
    let n: u64 = (0..a.num_mappers).map(|p| pairs_of(a, skewed, p)).sum();
    let m = i32::MAX as f64;
    let nf = n as f64;
    (nf - nf * (nf - 1.0) / (2.0 * m)).round() as u64
}

/// GroupByTest and SkewedGroupByTest: a cached pairs RDD counted, then grouped and counted;
/// `main` prints the second count.
pub struct GroupByTest {
    pub skewed: bool,
    args: Option<Args>,
}

impl GroupByTest {
    pub fn new(skewed: bool) -> Self {
        GroupByTest { skewed, args: None }
    }
}

impl Program for GroupByTest {
    fn app_name(&self) -> String {
        APP_NAME.into()
    }

    fn plan(&mut self, args: &[String], _seed: u64) -> ProgramPlan {
        ProgramPlan::quiet(parse_args(args).map(|a| {
            let jobs = jobs(&a, self.skewed);
            self.args = Some(a);
            jobs
        }))
    }

    /// `println(pairs1.groupByKey(numReducers).count())` after its second job.
    fn after_job(&self, k: usize, _results: &[TaskResultData], _last: bool) -> Vec<String> {
        match (&self.args, k) {
            (Some(a), 1) => vec![distinct_keys(a, self.skewed).to_string()],
            _ => Vec::new(),
        }
    }

    fn stop_site(&self, _jobs: &[JobSpec]) -> String {
        stop_site(self.skewed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // GroupByTest.scala: numMappers 2, numKVPairs 1000, valSize 1000, numReducers = numMappers.
    #[test]
    fn defaults_and_errors_are_the_examples() {
        let d = parse_args(&[]).expect("defaults");
        assert_eq!(
            d,
            Args {
                num_mappers: 2,
                num_kv_pairs: 1000,
                val_size: 1000,
                num_reducers: 2
            }
        );
        let a = parse_args(&["4".into(), "10".into(), "100".into()]).expect("args");
        assert_eq!(a.num_reducers, 4);
        assert!(
            parse_args(&["x".into()])
                .unwrap_err()
                .contains("NumberFormatException: For input string: \"x\"")
        );
    }

    // SkewedGroupByTest.scala: `numKVPairs = (1.0 * (p + 1) / numMappers * numKVPairs).toInt`.
    #[test]
    fn skewed_mappers_grow_linearly() {
        let a = parse_args(&["4".into(), "1000".into()]).expect("args");
        let sizes: Vec<u64> = (0..4).map(|p| pairs_of(&a, true, p)).collect();
        assert_eq!(sizes, [250, 500, 750, 1000]);
        assert_eq!(pairs_of(&a, false, 0), 1000);
    }

    #[test]
    fn two_jobs_with_spark_call_sites_and_a_shuffle() {
        let a = parse_args(&[]).expect("defaults");
        let j = jobs(&a, false);
        assert_eq!(j[0].call_site, "count at GroupByTest.scala:51");
        assert_eq!(j[1].call_site, "count at GroupByTest.scala:53");
        assert_eq!(j[1].stages[0].shuffle_write.records_per_task, 1000);
        assert_eq!(j[1].stages[0].shuffle_write.bytes_per_task, 1000 * 1040);
        assert_eq!(j[1].stages[1].parents, vec![0]);
        let l = j[1].stages[1].lineage.as_ref().expect("lineage");
        assert_eq!(l.rdds[0].parent_ids, vec![1]);
        assert_eq!(distinct_keys(&a, false), 2000);
    }
}
