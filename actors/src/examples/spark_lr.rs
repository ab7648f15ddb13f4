//! `org.apache.spark.examples.SparkLR [partitions]`: logistic regression by gradient descent.
//! `main` prints a warning on stderr, parallelizes N = 10,000 random points of D = 10
//! dimensions into `partitions` slices (default 2) and caches them, then runs ITERATIONS = 5
//! jobs `points.map(gradient).reduce(_ + _)` over the cached RDD (the first computes and caches
//! the partitions, the others read them from memory), printing `Initial w`, `On iteration i`
//! and `Final w` with the values the program computes from its `new Random(42)`. Call sites and
//! scopes are Spark's (SparkLR.scala since 2.0; `RDD.scala` lines from the 4.0.0 jar).

use super::java_random::JavaRandom;
use super::program::{Program, ProgramPlan};
use super::{call_site_long_form, rdd, scope_of};
use sparkyard_messages::jvm_text::double_to_string;
use sparkyard_messages::task::TaskResultData;
use sparkyard_messages::task::{
    CachedRddRead, InputSize, JobSpec, ShuffleWriteSize, StageLineage, StageSpec, TaskWork,
};

pub const CLASS: &str = "org.apache.spark.examples.SparkLR";
/// `SparkSession.builder.appName("SparkLR")`.
pub const APP_NAME: &str = "SparkLR";
const FILE: &str = "SparkLR.scala";
/// `val points = spark.sparkContext.parallelize(generateData, numSlices).cache()`.
const PARALLELIZE_LINE: u32 = 72;
/// `val gradient = points.map { p =>` ... `}.reduce(_ + _)`.
const MAP_LINE: u32 = 80;
const REDUCE_LINE: u32 = 82;
/// `spark.stop()`.
const STOP_LINE: u32 = 88;

/// `val N = 10000`, `val D = 10`, `val R = 0.7`, `val ITERATIONS = 5`.
const N: usize = 10_000;
const D: usize = 10;
const R: f64 = 0.7;
pub const ITERATIONS: u32 = 5;

/// What `showWarning()` prints with `System.err.println` before the SparkSession exists (the
/// string's last line, `      """.stripMargin`, keeps its indentation).
pub const WARNING: &str = "WARN: This is a naive implementation of Logistic Regression and is given as an example!\nPlease use org.apache.spark.ml.classification.LogisticRegression\nfor more conventional use.\n      ";

/// A `DataPoint(x, y)` as JavaSerializer writes it inside a ParallelCollectionPartition: the
/// case class, breeze's DenseVector (data array, offset, stride, length) and D doubles, bytes.
const POINT_BYTES: u64 = 8 * D as u64 + 48;
/// A cached point's estimated size in the MemoryStore (`SizeEstimator` with compressed oops:
/// the DataPoint object 24 B, its DenseVector 32 B, the `double[10]` 96 B, and the reference in
/// the unrolled values array 4 B); a model, not measured on a JVM.
const CACHED_POINT_BYTES: u64 = 156;
/// Deserialising a task's points (the partition travels in the task) and caching them: bytes
/// per ms on one core.
const DESERIALIZE_BYTES_PER_MS: u64 = 100_000;
/// One point's gradient (a 10-dimension dot product, `exp`, two vector scalings and the sum):
/// points per ms on one core.
const POINTS_PER_MS: u64 = 20_000;

/// `if (args.length > 0) args(0).toInt else 2`; `Err` is Java's NumberFormatException.
pub fn parse_slices(args: &[String]) -> Result<i32, String> {
    match args.first() {
        None => Ok(2),
        Some(a) => a
            .parse::<i32>()
            .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{a}\"")),
    }
}

/// `ParallelCollectionRDD.slice`: a slice count below 1 fails when the first job asks for the
/// partitions.
pub fn check_slices(slices: i32) -> Result<u32, String> {
    u32::try_from(slices)
        .ok()
        .filter(|s| *s >= 1)
        .ok_or_else(|| {
            "java.lang.IllegalArgumentException: Positive number of partitions required".into()
        })
}

/// `ParallelCollectionRDD.slice`'s positions: slice `i` holds `[i * n / s, (i + 1) * n / s)`.
fn slice_range(i: usize, slices: usize) -> std::ops::Range<usize> {
    (i * N / slices)..((i + 1) * N / slices)
}

/// The five jobs, one ResultStage each over `MapPartitionsRDD[i]` <- the cached
/// ParallelCollectionRDD[0].
pub fn jobs(slices: u32) -> Vec<JobSpec> {
    (1..=ITERATIONS).map(|i| job(i, slices)).collect()
}

fn job(iteration: u32, slices: u32) -> JobSpec {
    let s = slices as usize;
    let tasks = (0..s)
        .map(|p| {
            let points = slice_range(p, s).len() as u64;
            let work_ms = (points / POINTS_PER_MS).max(1);
            // Computing the cached partition: deserialising the task's points (the
            // partition travels in the task) into the block.
            let read = points * POINT_BYTES / DESERIALIZE_BYTES_PER_MS;
            let compute_ms = (read + points / POINTS_PER_MS).max(1) - work_ms;
            TaskWork::CachedRdd(Box::new(CachedRddRead {
                rdd_id: 0,
                block_bytes: points * CACHED_POINT_BYTES,
                records: points,
                compute_ms,
                work_ms,
                location: None,
            }))
        })
        .collect();
    // RDD.getOrCompute: a task that finds its block reports the block's size and records as
    // its input (`readCachedBlock`); the first job computes the blocks and reports none.
    let points = (N / s) as u64;
    let input = if iteration == 1 {
        InputSize::default()
    } else {
        InputSize {
            bytes_per_task: points * CACHED_POINT_BYTES,
            records_per_task: points,
            hot: Default::default(),
        }
    };
    // Scopes: parallelize 0, then each iteration's map and reduce (`RDD.withScope`).
    let map_scope = 2 * iteration - 1;
    let mut points = rdd(
        0,
        "ParallelCollectionRDD",
        &format!("parallelize at {FILE}:{PARALLELIZE_LINE}"),
        (0, "parallelize"),
        &[],
    );
    points.cached = true;
    let map = rdd(
        iteration,
        "MapPartitionsRDD",
        &format!("map at {FILE}:{MAP_LINE}"),
        (map_scope, "map"),
        &[0],
    );
    let stage = StageSpec {
        rdd_description: format!("MapPartitionsRDD[{iteration}] at map at {FILE}:{MAP_LINE}"),
        num_partitions: slices,
        parents: Vec::new(),
        tasks,
        shuffle_write: ShuffleWriteSize::default(),
        preferred_hosts: Vec::new(),
        input_path: None,
        input,
        lineage: Some(Box::new(StageLineage {
            rdds: vec![map, points],
            details: call_site_long_form(
                "org.apache.spark.rdd.RDD.reduce(RDD.scala:1130)",
                CLASS,
                FILE,
                REDUCE_LINE,
            ),
            action_scope: Some(scope_of((map_scope + 1, "reduce"))),
            ..StageLineage::default()
        })),
        result_bytes: Default::default(),
        barrier: false,
    };
    JobSpec {
        call_site: format!("reduce at {FILE}:{REDUCE_LINE}"),
        stages: vec![stage],
    }
}

/// `spark.stop()`'s call site.
pub fn stop_site() -> String {
    format!("stop at {FILE}:{STOP_LINE}")
}

/// `generateData` then `w = DenseVector.fill(D) {2 * rand.nextDouble - 1}`: the program's
/// points (x, y) and its initial w, from the one `new Random(42)`.
fn data_and_initial_w() -> (Vec<([f64; D], f64)>, [f64; D]) {
    let mut rand = JavaRandom::new(42);
    let points = (0..N)
        .map(|i| {
            let y = if i % 2 == 0 { -1.0 } else { 1.0 };
            let mut x = [0.0; D];
            for v in &mut x {
                *v = rand.next_gaussian() + y * R;
            }
            (x, y)
        })
        .collect();
    let mut w = [0.0; D];
    for v in &mut w {
        *v = 2.0 * rand.next_double() - 1.0;
    }
    (points, w)
}

/// breeze's `DenseVector.toString`: `DenseVector(a, b, ...)` with Java's doubles.
fn dense_vector(v: &[f64; D]) -> String {
    let parts: Vec<String> = v.iter().map(|x| double_to_string(*x)).collect();
    format!("DenseVector({})", parts.join(", "))
}

/// `println(s"Initial w: $w")`.
pub fn initial_w_line() -> String {
    format!("Initial w: {}", dense_vector(&data_and_initial_w().1))
}

/// `println(s"On iteration $i")`.
pub fn iteration_line(i: u32) -> String {
    format!("On iteration {i}")
}

/// `println(s"Final w: $w")` after the five `w -= gradient`: each partition sums its points'
/// gradients in order, and `reduce` merges the partitions' sums in partition order. Math.exp and
/// breeze's dot product are the JVM's own, so the last digits can differ from a JVM's.
pub fn final_w_line(slices: u32) -> String {
    let (points, mut w) = data_and_initial_w();
    let s = slices.max(1) as usize;
    for _ in 0..ITERATIONS {
        let mut gradient = [0.0; D];
        for p in 0..s {
            let mut part: Option<[f64; D]> = None;
            for (x, y) in &points[slice_range(p, s)] {
                let dot: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
                let scale = 1.0 / (1.0 + (-y * dot).exp()) - 1.0;
                let g = x.map(|v| v * scale * y);
                part = Some(match part {
                    None => g,
                    Some(acc) => std::array::from_fn(|k| acc[k] + g[k]),
                });
            }
            if let Some(part) = part {
                gradient = if p == 0 {
                    part
                } else {
                    std::array::from_fn(|k| gradient[k] + part[k])
                };
            }
        }
        for k in 0..D {
            w[k] -= gradient[k];
        }
    }
    format!("Final w: {}", dense_vector(&w))
}

/// SparkLR: `ITERATIONS` jobs over `slices` partitions, printing `w` before and after and each
/// iteration's number before its job.
#[derive(Default)]
pub struct SparkLr {
    slices: u32,
}

impl Program for SparkLr {
    fn app_name(&self) -> String {
        APP_NAME.into()
    }

    /// `showWarning()` runs before its SparkSession.
    fn before_context(&self) -> Option<&'static str> {
        Some(WARNING)
    }

    /// `generateData` and `w` come before the first job; `slice` refuses a count below 1 only
    /// when that job asks for the partitions (after `On iteration 1`).
    fn plan(&mut self, args: &[String], _seed: u64) -> ProgramPlan {
        let slices = match parse_slices(args) {
            Ok(s) => s,
            Err(e) => return ProgramPlan::quiet(Err(e)),
        };
        let mut stdout = vec![initial_w_line()];
        let jobs = check_slices(slices).map(|s| {
            self.slices = s;
            jobs(s)
        });
        if jobs.is_err() {
            stdout.push(iteration_line(1));
        }
        ProgramPlan { stdout, jobs }
    }

    fn before_job(&self, k: usize) -> Option<String> {
        Some(iteration_line(k as u32 + 1))
    }

    fn after_job(&self, _k: usize, _results: &[TaskResultData], last: bool) -> Vec<String> {
        match last {
            true => vec![final_w_line(self.slices)],
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

    // SparkLR.scala: `numSlices = if (args.length > 0) args(0).toInt else 2`; ITERATIONS = 5
    // jobs `reduce at SparkLR.scala:82` over `map at SparkLR.scala:80` of the cached
    // `parallelize at SparkLR.scala:72`.
    #[test]
    fn five_reduce_jobs_over_the_cached_points() {
        assert_eq!(parse_slices(&[]), Ok(2));
        assert!(
            parse_slices(&["x".into()])
                .unwrap_err()
                .contains("NumberFormatException: For input string: \"x\"")
        );
        assert!(check_slices(0).is_err());
        let j = jobs(3);
        assert_eq!(j.len(), 5);
        assert!(
            j.iter()
                .all(|j| j.call_site == "reduce at SparkLR.scala:82")
        );
        let last = &j[4].stages[0];
        assert_eq!(
            last.rdd_description,
            "MapPartitionsRDD[5] at map at SparkLR.scala:80"
        );
        assert_eq!(last.tasks.len(), 3);
        let l = last.lineage.as_ref().expect("lineage");
        assert_eq!(l.rdds[1].callsite, "parallelize at SparkLR.scala:72");
        assert!(l.rdds[1].cached);
        assert_eq!(l.action_scope.as_ref().map(|s| s.id), Some(10));
        // Every job reads the cached ParallelCollectionRDD[0]'s block of its partition
        // (`rdd_0_<p>`); computing it (a task that finds no block) takes longer than the work.
        let TaskWork::CachedRdd(read) = &j[1].stages[0].tasks[2] else {
            panic!("a cached read: {:?}", j[1].stages[0].tasks[2]);
        };
        assert_eq!((read.rdd_id, read.records), (0, 3334));
        assert_eq!(read.block_bytes, 3334 * CACHED_POINT_BYTES);
        assert!(read.compute_ms > read.work_ms);
        assert_eq!(read.location, None, "the driver fills it in at launch");
        // RDD.getOrCompute's readCachedBlock: only jobs reading the cache report input.
        assert_eq!(j[0].stages[0].input, InputSize::default());
        assert_eq!(j[1].stages[0].input.records_per_task, 3333);
    }

    // The data and the initial w come from `new Random(42)`: `generateData` draws its 100,000
    // Gaussians first (StrictMath.log inside nextGaussian), then w its 10 doubles. The line is
    // the one a JVM prints (SparkLR / LocalLR outputs quoted in public code carry these values).
    #[test]
    fn initial_w_is_the_jvms_and_final_w_has_ten_values() {
        let init = initial_w_line();
        assert_eq!(
            init,
            "Initial w: DenseVector(-0.8066603352924779, -0.5488747509304204, \
             -0.7351625370864459, 0.8228539509375878, -0.6662446067860872, \
             -0.33245457898921527, 0.9664202269036932, -0.20407887461434115, \
             0.4120993933386614, -0.8125908063470539)"
        );
        let fin = final_w_line(2);
        assert!(fin.starts_with("Final w: DenseVector("), "{fin}");
        assert_ne!(fin["Final w: ".len()..], init["Initial w: ".len()..]);
    }
}
