//! `org.apache.spark.examples.SparkPi`: `slices` tasks throw darts at the unit square and count
//! those inside the unit circle. The partitions and element counts are Spark's own
//! (`ParallelCollectionRDD.slice` of `1 until n`); each task's darts come from a ChaCha RNG seeded
//! by the run seed and the partition, so a run is a real and reproducible computation.

use super::program::{Program, ProgramPlan};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sparkyard_messages::task::{JobSpec, StageLineage, StageSpec, TaskResultData, TaskWork};

pub const CLASS: &str = "org.apache.spark.examples.SparkPi";
pub const CALL_SITE: &str = "reduce at SparkPi.scala:38";
pub const RDD: &str = "MapPartitionsRDD[1] at map at SparkPi.scala:34";

/// `val slices = if (args.length > 0) args(0).toInt else 2`, with Java's `NumberFormatException`.
pub fn parse_slices(args: &[String]) -> Result<u32, String> {
    let Some(a) = args.first() else { return Ok(2) };
    match a.parse::<i64>() {
        Ok(n) if (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&n) => {
            if n < 1 {
                Err(
                    "java.lang.IllegalArgumentException: Positive number of partitions required"
                        .into(),
                )
            } else {
                Ok(n as u32)
            }
        }
        _ => Err(format!(
            "java.lang.NumberFormatException: For input string: \"{a}\""
        )),
    }
}

/// `n = math.min(100000L * slices, Int.MaxValue).toInt`.
pub fn total_darts(slices: u32) -> u64 {
    (100_000u64 * u64::from(slices)).min(i32::MAX as u64)
}

/// The job `reduce` submits: one ResultStage over `1 until n` in `slices` partitions.
pub fn job(slices: u32, seed: u64) -> JobSpec {
    let elements = Elements {
        first: 1,
        len: total_darts(slices) - 1,
    };
    darts_job(
        slices,
        elements,
        seed,
        RDD.into(),
        lineage(),
        CALL_SITE.into(),
    )
}

/// The elements `first..first + len` a dart-throwing job parallelizes (one dart each).
#[derive(Clone, Copy, Debug)]
pub struct Elements {
    pub first: u64,
    pub len: u64,
}

/// The one ResultStage SparkPi's and JavaSparkPi's `reduce` submit: `slices` tasks over
/// `elements`, cut as `ParallelCollectionRDD.slice` cuts a Range or a Seq (task `i` takes the
/// positions `i * len / slices` until `(i + 1) * len / slices`), each a dart per element.
pub fn darts_job(
    slices: u32,
    elements: Elements,
    seed: u64,
    rdd_description: String,
    lineage: StageLineage,
    call_site: String,
) -> JobSpec {
    let (s, len) = (u64::from(slices), elements.len);
    let tasks = (0..s)
        .map(|i| {
            let (start, end) = ((i * len) / s, ((i + 1) * len) / s);
            TaskWork::SparkPiDarts {
                first: elements.first + start,
                darts: end - start,
                seed,
            }
        })
        .collect();
    let stage = StageSpec {
        rdd_description,
        num_partitions: slices,
        parents: Vec::new(),
        tasks,
        shuffle_write: Default::default(),
        input: Default::default(),
        lineage: Some(Box::new(lineage)),
        preferred_hosts: Vec::new(),
        input_path: None,
        result_bytes: Default::default(),
        barrier: false,
    };
    JobSpec {
        call_site,
        stages: vec![stage],
    }
}

/// The ResultStage's RDDs (`parallelize` is scope 0, `map` 1, the `reduce` action 2) and its
/// call site's long form (`RDD.reduce` at RDD.scala:1130 in Spark 4.0.0).
pub fn lineage() -> StageLineage {
    StageLineage {
        rdds: vec![
            super::rdd(
                1,
                "MapPartitionsRDD",
                "map at SparkPi.scala:34",
                (1, "map"),
                &[0],
            ),
            super::rdd(
                0,
                "ParallelCollectionRDD",
                "parallelize at SparkPi.scala:34",
                (0, "parallelize"),
                &[],
            ),
        ],
        details: super::call_site_long_form(
            "org.apache.spark.rdd.RDD.reduce(RDD.scala:1130)",
            "org.apache.spark.examples.SparkPi",
            "SparkPi.scala",
            38,
        ),
        action_scope: Some(super::scope_of((2, "reduce"))),
        shuffle_id: None,
    }
}

/// One task's hits: darts `first..first+darts`, the RNG seeded by (seed, first element).
pub fn count_hits(first: u64, darts: u64, seed: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ first.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut hits = 0;
    for _ in 0..darts {
        let x: f64 = rng.random::<f64>() * 2.0 - 1.0;
        let y: f64 = rng.random::<f64>() * 2.0 - 1.0;
        if x * x + y * y <= 1.0 {
            hits += 1;
        }
    }
    hits
}

/// The hits `darts` darts make on average (π/4 of them, rounded): `[costs]
/// sparkpi_real_darts = false` counts these instead of throwing the darts.
pub fn expected_hits(darts: u64) -> u64 {
    (darts as f64 * std::f64::consts::FRAC_PI_4).round() as u64
}

/// The hits the tasks' results count (the `reduce(_ + _)` both Pi programs end with).
pub fn total_hits(results: &[TaskResultData]) -> u64 {
    results
        .iter()
        .map(|r| match r {
            TaskResultData::Count(c) => *c,
            _ => 0,
        })
        .sum()
}

/// `4.0 * count / (n - 1)` from the tasks' results.
pub fn estimate(slices: u32, results: &[TaskResultData]) -> f64 {
    4.0 * total_hits(results) as f64 / (total_darts(slices) - 1) as f64
}

/// SparkPi: one job of `slices` tasks; `main` prints the estimate (JavaSparkPi, its Java twin,
/// is `java_spark_pi.rs`).
#[derive(Default)]
pub struct SparkPi {
    slices: u32,
}

impl Program for SparkPi {
    fn app_name(&self) -> String {
        "Spark Pi".into()
    }

    fn plan(&mut self, args: &[String], seed: u64) -> ProgramPlan {
        ProgramPlan::quiet(parse_slices(args).map(|slices| {
            self.slices = slices;
            vec![job(slices, seed)]
        }))
    }

    fn after_job(&self, _k: usize, results: &[TaskResultData], _last: bool) -> Vec<String> {
        let pi = estimate(self.slices, results);
        vec![format!(
            "Pi is roughly {}",
            sparkyard_messages::jvm_text::double_to_string(pi)
        )]
    }

    fn stop_site(&self, _jobs: &[JobSpec]) -> String {
        "stop at SparkPi.scala:40".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_cover_one_until_n() {
        let j = job(3, 1);
        let darts: u64 = j.stages[0]
            .tasks
            .iter()
            .map(|t| {
                if let TaskWork::SparkPiDarts { darts, .. } = t {
                    *darts
                } else {
                    0
                }
            })
            .sum();
        assert_eq!(darts, total_darts(3) - 1);
        assert_eq!(j.stages[0].num_partitions, 3);
    }

    #[test]
    fn slices_parse_like_scala() {
        assert_eq!(parse_slices(&[]), Ok(2));
        assert_eq!(parse_slices(&["1000".into()]), Ok(1000));
        assert_eq!(
            parse_slices(&["x".into()]),
            Err("java.lang.NumberFormatException: For input string: \"x\"".into())
        );
        assert!(
            parse_slices(&["0".into()])
                .unwrap_err()
                .contains("Positive number of partitions required")
        );
        assert!(
            parse_slices(&["99999999999".into()])
                .unwrap_err()
                .contains("NumberFormatException")
        );
    }

    #[test]
    fn estimate_is_close_and_deterministic() {
        let hits = count_hits(1, 1_000_000, 7);
        assert_eq!(hits, count_hits(1, 1_000_000, 7));
        let pi = 4.0 * hits as f64 / 1_000_000.0;
        assert!((pi - std::f64::consts::PI).abs() < 0.01, "{pi}");
        assert_eq!(total_darts(100_000), i32::MAX as u64);
    }
}
