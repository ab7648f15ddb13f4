//! `org.apache.spark.examples.SparkTC [slices]`: the transitive closure of a random graph of
//! 200 edges over 100 vertices (`new Random(42)`), by iterated joins until the path count stops
//! growing. Job 0 counts the cached edges; each round `tc.union(tc.join(edges).map(...))
//! .distinct().cache()` is counted (a job with three new shuffles: the join's two sides and
//! distinct's reduceByKey, over the earlier rounds' shuffles, which are skipped while their map
//! outputs live); a last count prints `TC has N edges.`. The join takes the larger side's
//! partition count (`Partitioner.defaultPartitioner`, no `spark.default.parallelism`), so each
//! round doubles the partitions, as on a cluster. Counts come from the real graph; call sites,
//! scopes and RDDs are Spark's (SparkTC.scala since 2.0; `RDD.scala` lines from the 4.0.0 jar).

use super::call_site_long_form;
use super::java_random::JavaRandom;
use super::program::{Program, ProgramPlan};
use super::rdd_graph::{Dep, Rdd, RddGraph, StageWork, rdd_spec};
use sparkyard_messages::task::TaskResultData;
use sparkyard_messages::task::{DeterministicLevel, JobSpec, ShuffleWriteSize};
use std::collections::{BTreeMap, BTreeSet};

pub const CLASS: &str = "org.apache.spark.examples.SparkTC";
/// `SparkSession.builder.appName("SparkTC")`.
pub const APP_NAME: &str = "SparkTC";
const FILE: &str = "SparkTC.scala";
/// `var tc = spark.sparkContext.parallelize(generateGraph, slices).cache()`.
const PARALLELIZE_LINE: u32 = 50;
/// `val edges = tc.map(x => (x._2, x._1))`.
const EDGES_LINE: u32 = 58;
/// `var nextCount = tc.count()`.
const FIRST_COUNT_LINE: u32 = 62;
/// `tc = tc.union(tc.join(edges).map(x => (x._2._2, x._2._1))).distinct().cache()`.
const LOOP_LINE: u32 = 67;
/// `nextCount = tc.count()`.
const LOOP_COUNT_LINE: u32 = 68;
/// `println("TC has " + tc.count() + " edges.")` and `spark.stop()`.
const LAST_COUNT_LINE: u32 = 71;
const STOP_LINE: u32 = 72;

/// `val numEdges = 200`, `val numVertices = 100`.
const NUM_EDGES: usize = 200;
const NUM_VERTICES: i32 = 100;

/// A serialised `(Int, Int)` record in a shuffle file (Kryo-less JavaSerializer stream), bytes.
const RECORD_BYTES: u64 = 24;
/// Records a task reads, joins or dedups and writes per ms on one core.
const RECORDS_PER_MS: u64 = 2_000;

/// `if (args.length > 0) args(0).toInt else 2`; `Err` is Java's NumberFormatException, or
/// ParallelCollectionRDD's refusal of a count below 1.
pub fn parse_slices(args: &[String]) -> Result<u32, String> {
    let n = match args.first() {
        None => 2,
        Some(a) => a
            .parse::<i32>()
            .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{a}\""))?,
    };
    u32::try_from(n).ok().filter(|n| *n >= 1).ok_or_else(|| {
        "java.lang.IllegalArgumentException: Positive number of partitions required".into()
    })
}

/// `generateGraph`: `rand.nextInt(numVertices)` pairs until 200 distinct edges without loops.
fn generate_graph() -> BTreeSet<(i32, i32)> {
    let mut rand = JavaRandom::new(42);
    let mut edges = BTreeSet::new();
    while edges.len() < NUM_EDGES {
        let from = rand.next_int(NUM_VERTICES);
        let to = rand.next_int(NUM_VERTICES);
        if from != to {
            edges.insert((from, to));
        }
    }
    edges
}

/// One round of the loop: the paths before it, the join's output pairs, the paths after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    pub before: u64,
    pub joined: u64,
    pub after: u64,
}

/// The rounds the do-while runs: until a round adds no path (the last round adds none).
pub fn rounds() -> Vec<Round> {
    let edges = generate_graph();
    let mut tc = edges.clone();
    let mut out = Vec::new();
    loop {
        let mut by_src: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        for (y, z) in &tc {
            by_src.entry(*y).or_default().push(*z);
        }
        let mut joined = 0u64;
        let mut next = tc.clone();
        for (x, y) in &edges {
            for z in by_src.get(y).into_iter().flatten() {
                joined += 1;
                next.insert((*x, *z));
            }
        }
        let r = Round {
            before: tc.len() as u64,
            joined,
            after: next.len() as u64,
        };
        out.push(r);
        if r.after == r.before {
            return out;
        }
        tc = next;
    }
}

/// The program: its RDD graph and jobs.
pub struct Plan {
    pub jobs: Vec<JobSpec>,
    /// `TC has N edges.`
    pub edges: u64,
}

/// Per RDD: records per partition of what it computes, and what a stage over it costs.
struct Sizes {
    records: BTreeMap<u32, u64>,
}

fn ms_for(records: u64) -> u64 {
    records / RECORDS_PER_MS
}

/// The jobs SparkTC runs with `slices` partitions.
pub fn plan(slices: u32) -> Plan {
    let rounds = rounds();
    let mut g = RddGraph::default();
    let site = |op: &str, line: u32| format!("{op} at {FILE}:{line}");
    let mut sizes = Sizes {
        records: BTreeMap::new(),
    };
    let mut tc0 = rdd_spec(
        0,
        "ParallelCollectionRDD",
        site("parallelize", PARALLELIZE_LINE),
        (0, "parallelize"),
        vec![],
    );
    tc0.cached = true;
    let mut tc = g.add(Rdd {
        spec: tc0,
        deps: vec![],
        partitions: slices,
    });
    sizes.records.insert(tc, NUM_EDGES as u64);
    let edges = g.add(Rdd {
        spec: rdd_spec(
            1,
            "MapPartitionsRDD",
            site("map", EDGES_LINE),
            (1, "map"),
            vec![0],
        ),
        deps: vec![Dep::Narrow(0)],
        partitions: slices,
    });
    sizes.records.insert(edges, NUM_EDGES as u64);
    let mut finals = vec![(tc, site("count", FIRST_COUNT_LINE), FIRST_COUNT_LINE, 2)];
    let mut scope = 3;
    let mut shuffle = 0;
    for r in &rounds {
        let p_tc = g.rdds[tc as usize].partitions;
        let p_join = p_tc.max(slices);
        let next_id = |g: &RddGraph| g.rdds.len() as u32;
        let join_site = site("join", LOOP_LINE);
        let cg = g.add(Rdd {
            spec: rdd_spec(
                next_id(&g),
                "CoGroupedRDD",
                join_site.clone(),
                (scope, "join"),
                vec![tc, edges],
            ),
            deps: vec![
                Dep::Shuffle {
                    parent: tc,
                    shuffle,
                },
                Dep::Shuffle {
                    parent: edges,
                    shuffle: shuffle + 1,
                },
            ],
            partitions: p_join,
        });
        let narrow = |g: &mut RddGraph,
                      name: &str,
                      cs: String,
                      sc: (u32, &str),
                      parents: Vec<u32>,
                      partitions: u32| {
            let deps = parents.iter().map(|p| Dep::Narrow(*p)).collect();
            g.add(Rdd {
                spec: rdd_spec(g.rdds.len() as u32, name, cs, sc, parents),
                deps,
                partitions,
            })
        };
        let mv = narrow(
            &mut g,
            "MapPartitionsRDD",
            join_site.clone(),
            (scope, "join"),
            vec![cg],
            p_join,
        );
        let fmv = narrow(
            &mut g,
            "MapPartitionsRDD",
            join_site,
            (scope, "join"),
            vec![mv],
            p_join,
        );
        let mapped = narrow(
            &mut g,
            "MapPartitionsRDD",
            site("map", LOOP_LINE),
            (scope + 1, "map"),
            vec![fmv],
            p_join,
        );
        let p_union = p_tc + p_join;
        let union = narrow(
            &mut g,
            "UnionRDD",
            site("union", LOOP_LINE),
            (scope + 2, "union"),
            vec![tc, mapped],
            p_union,
        );
        let distinct_site = site("distinct", LOOP_LINE);
        let pairs = narrow(
            &mut g,
            "MapPartitionsRDD",
            distinct_site.clone(),
            (scope + 3, "distinct"),
            vec![union],
            p_union,
        );
        let mut shuffled_spec = rdd_spec(
            g.rdds.len() as u32,
            "ShuffledRDD",
            distinct_site.clone(),
            (scope + 3, "distinct"),
            vec![pairs],
        );
        // RDD.getOutputDeterministicLevel: a shuffle with an aggregator and no key ordering.
        shuffled_spec.deterministic_level = DeterministicLevel::Unordered;
        let shuffled = g.add(Rdd {
            spec: shuffled_spec,
            deps: vec![Dep::Shuffle {
                parent: pairs,
                shuffle: shuffle + 2,
            }],
            partitions: p_union,
        });
        let mut out_spec = rdd_spec(
            g.rdds.len() as u32,
            "MapPartitionsRDD",
            distinct_site,
            (scope + 3, "distinct"),
            vec![shuffled],
        );
        out_spec.cached = true;
        out_spec.deterministic_level = DeterministicLevel::Unordered;
        let out = g.add(Rdd {
            spec: out_spec,
            deps: vec![Dep::Narrow(shuffled)],
            partitions: p_union,
        });
        sizes.records.insert(mapped, r.joined);
        sizes.records.insert(pairs, r.before + r.joined);
        sizes.records.insert(out, r.after);
        finals.push((
            out,
            site("count", LOOP_COUNT_LINE),
            LOOP_COUNT_LINE,
            scope + 4,
        ));
        tc = out;
        scope += 5;
        shuffle += 3;
    }
    let last = rounds.last().map_or(NUM_EDGES as u64, |r| r.after);
    finals.push((tc, site("count", LAST_COUNT_LINE), LAST_COUNT_LINE, scope));
    let work = |rdd: u32| stage_work(&g, &sizes, rdd);
    let jobs = finals
        .into_iter()
        .map(|(rdd, call_site, line, action)| {
            let details = |r: u32, is_result: bool| details_of(&g, r, is_result, line);
            g.job(call_site, rdd, (action, "count"), &work, &details)
        })
        .collect();
    Plan { jobs, edges: last }
}

/// A stage's tasks: records through its partitions (the cached RDDs' and the shuffles' records
/// spread evenly by the hash partitioner), and on a map stage what it writes.
fn stage_work(g: &RddGraph, sizes: &Sizes, rdd: u32) -> StageWork {
    let partitions = u64::from(g.rdds[rdd as usize].partitions.max(1));
    let records = sizes.records.get(&rdd).copied().unwrap_or_else(|| {
        // edges' map stage, or a cached tc read again: its records as recorded for the RDD.
        sizes.records.get(&0).copied().unwrap_or(0)
    });
    let per_task = records.div_ceil(partitions);
    StageWork {
        task_ms: vec![ms_for(per_task); partitions as usize],
        shuffle_write: ShuffleWriteSize {
            bytes_per_task: per_task * RECORD_BYTES,
            records_per_task: per_task,
            hot: Default::default(),
        },
    }
}

/// `Details`: a ShuffleMapStage's RDD's creation site, the ResultStage's job call site (`count`
/// at the action's line). Lines of the 4.0.0 jars: `RDD.count` 1304, `RDD.map` 424,
/// `RDD.distinct()` 473 (its `withScope` call), `SparkContext.parallelize` 1007.
fn details_of(g: &RddGraph, rdd: u32, is_result: bool, action_line: u32) -> String {
    if is_result {
        let frame = "org.apache.spark.rdd.RDD.count(RDD.scala:1304)";
        return call_site_long_form(frame, CLASS, FILE, action_line);
    }
    let spec = &g.rdds[rdd as usize].spec;
    let (frame, line) = match spec.callsite.split(' ').next().unwrap_or_default() {
        "parallelize" => (
            "org.apache.spark.SparkContext.parallelize(SparkContext.scala:1007)",
            PARALLELIZE_LINE,
        ),
        "map" => ("org.apache.spark.rdd.RDD.map(RDD.scala:424)", EDGES_LINE),
        _ => (
            "org.apache.spark.rdd.RDD.distinct(RDD.scala:473)",
            LOOP_LINE,
        ),
    };
    call_site_long_form(frame, CLASS, FILE, line)
}

/// `spark.stop()`'s call site.
pub fn stop_site() -> String {
    format!("stop at {FILE}:{STOP_LINE}")
}

/// SparkTC: the transitive closure's rounds; `main` prints the edges it found.
#[derive(Default)]
pub struct SparkTc {
    edges: u64,
}

impl Program for SparkTc {
    fn app_name(&self) -> String {
        APP_NAME.into()
    }

    fn plan(&mut self, args: &[String], _seed: u64) -> ProgramPlan {
        ProgramPlan::quiet(parse_slices(args).map(|s| {
            let p = plan(s);
            self.edges = p.edges;
            p.jobs
        }))
    }

    fn after_job(&self, _k: usize, _results: &[TaskResultData], last: bool) -> Vec<String> {
        match last {
            true => vec![format!("TC has {} edges.", self.edges)],
            false => Vec::new(),
        }
    }

    fn stop_site(&self, _jobs: &[JobSpec]) -> String {
        stop_site()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SparkTC.scala: 200 edges over 100 vertices from `new Random(42)`; the do-while runs until
    // a round adds no path: 12 rounds, `TC has 6254 edges.` (the program's known output).
    #[test]
    fn the_closure_of_the_seed_42_graph() {
        let r = rounds();
        assert_eq!(r.len(), 12);
        assert_eq!(r[0].before, 200);
        assert_eq!(r[0].after, 633);
        assert_eq!(r[11].after, 6254);
        assert_eq!(r[11].before, r[11].after);
        assert_eq!(plan(2).edges, 6254);
    }

    fn names(j: &JobSpec) -> Vec<String> {
        j.stages.iter().map(|s| s.rdd_description.clone()).collect()
    }

    // A real SparkTC event log on YARN with 1 slice (Spark 2.x, whose SparkTC had the same
    // lines 50/58/62): job 1 has stages 1-4 (parallelize at :50 and map at :58 for the join,
    // distinct, the count); job 2 stages 5-11: 5 parallelize, 6 map, 7 distinct (the first
    // round's, skipped), 8 map at :58 and 9 distinct (the second join's two sides), 10 the
    // second distinct, 11 the count; the join takes 2 partitions, the union 4.
    #[test]
    fn rounds_make_the_stages_of_a_real_log() {
        let p = plan(1);
        assert_eq!(p.jobs.len(), 14);
        assert_eq!(p.jobs[0].call_site, "count at SparkTC.scala:62");
        assert_eq!(
            names(&p.jobs[1]),
            [
                "ParallelCollectionRDD[0] at parallelize at SparkTC.scala:50",
                "MapPartitionsRDD[1] at map at SparkTC.scala:58",
                "MapPartitionsRDD[7] at distinct at SparkTC.scala:67",
                "MapPartitionsRDD[9] at distinct at SparkTC.scala:67",
            ]
        );
        assert_eq!(p.jobs[1].call_site, "count at SparkTC.scala:68");
        assert_eq!(p.jobs[1].stages[2].parents, vec![0, 1]);
        let j2 = &p.jobs[2];
        assert_eq!(
            names(j2),
            [
                "ParallelCollectionRDD[0] at parallelize at SparkTC.scala:50",
                "MapPartitionsRDD[1] at map at SparkTC.scala:58",
                "MapPartitionsRDD[7] at distinct at SparkTC.scala:67",
                "MapPartitionsRDD[1] at map at SparkTC.scala:58",
                "MapPartitionsRDD[9] at distinct at SparkTC.scala:67",
                "MapPartitionsRDD[15] at distinct at SparkTC.scala:67",
                "MapPartitionsRDD[17] at distinct at SparkTC.scala:67",
            ]
        );
        let shuffles: Vec<Option<u32>> = j2
            .stages
            .iter()
            .map(|s| s.lineage.as_ref().and_then(|l| l.shuffle_id))
            .collect();
        assert_eq!(
            shuffles,
            [Some(0), Some(1), Some(2), Some(4), Some(3), Some(5), None]
        );
        assert_eq!(j2.stages[5].parents, vec![2, 3, 4]);
        assert_eq!(j2.stages[5].num_partitions, 4);
        assert_eq!(j2.stages[4].num_partitions, 2);
        // The second distinct's RDDs: 15 <- union 14 <- (9, 13), the join 10 over (9, 1).
        let l = j2.stages[5].lineage.as_ref().expect("lineage");
        let ids: Vec<u32> = l.rdds.iter().map(|r| r.id).collect();
        assert_eq!(ids[0], 15);
        let cg = l
            .rdds
            .iter()
            .find(|r| r.name == "CoGroupedRDD")
            .expect("join");
        assert_eq!((cg.id, cg.parent_ids.clone()), (10, vec![9, 1]));
        assert_eq!(cg.scope.as_ref().map(|s| s.id), Some(8));
        // The last count reads the cached closure: every shuffle of the 12 rounds is skipped.
        let last = p.jobs.last().expect("last job");
        assert_eq!(last.call_site, "count at SparkTC.scala:71");
        assert_eq!(last.stages.len(), 3 * 12 + 1);
    }

    #[test]
    fn slices_parse_as_the_program_does() {
        assert_eq!(parse_slices(&[]), Ok(2));
        assert!(parse_slices(&["0".into()]).is_err());
        assert!(
            parse_slices(&["x".into()])
                .unwrap_err()
                .contains("NumberFormatException")
        );
    }
}
