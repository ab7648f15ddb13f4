//! `org.apache.spark.examples.JavaSparkPi` (Spark 4.0.0's `examples/.../JavaSparkPi.java`):
//! SparkPi written in Java, with Java's own arithmetic. It takes its slice count only when given
//! exactly one argument, computes `n = 100000 * slices` in a wrapping `int`, builds a driver-side
//! `ArrayList` of `0..n`, and `parallelize`s that list, so its partitions hold `n` elements (not
//! SparkPi's `n - 1`), its estimate divides by `n`, and its call sites are JavaSparkPi.java's.
//! Each task's darts come from the same seeded RNG as SparkPi's ([`super::spark_pi::count_hits`]).

use super::program::{Program, ProgramPlan};
use super::spark_pi::{Elements, darts_job, total_hits};
use sparkyard_messages::task::{JobSpec, StageLineage, TaskResultData};

pub const CLASS: &str = "org.apache.spark.examples.JavaSparkPi";
/// The lines of JavaSparkPi.java's calls: `jsc.parallelize(l, slices)`, `dataSet.map(...)`,
/// `.reduce(...)` and `spark.stop()`, in the text Spark has shipped since its examples took
/// lambdas (imports `JavaRDD`, `JavaSparkContext`, `SparkSession`, `ArrayList`, `List`; darts
/// from `Math.random()`). A later text that imports `ThreadLocalRandom` moves each one line
/// down; the examples jar is not in pyspark, so 4.0.0's own copy could not be read.
const PARALLELIZE_LINE: u32 = 48;
const MAP_LINE: u32 = 50;
const REDUCE_LINE: u32 = 54;
const STOP_LINE: u32 = 58;
/// `JavaRDD.reduce` is the forwarder `AbstractJavaRDDLike` gets from the `JavaRDDLike` trait:
/// `Utils.getCallSite` skips the `org.apache.spark.api.java` frames for the short form, and the
/// long form starts at this one (its line is the class's in spark-core 4.0.0).
const SPARK_FRAME: &str =
    "org.apache.spark.api.java.AbstractJavaRDDLike.reduce(JavaRDDLike.scala:46)";

/// `int slices = (args.length == 1) ? Integer.parseInt(args[0]) : 2;`: no argument, or two and
/// more, mean 2. `Integer.parseInt` takes an optional sign and decimal digits within an `int`
/// (Rust's `i32` parse is the same for ASCII; Java's `Character.digit` would also take other
/// scripts' decimal digits, which no one passes as a slice count).
pub fn parse_slices(args: &[String]) -> Result<i32, String> {
    match args {
        [a] => a
            .parse::<i32>()
            .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{a}\"")),
        _ => Ok(2),
    }
}

/// `int n = 100000 * slices;`: Java's `int` product wraps (21475 slices give -2147467296,
/// 42950 give 32704), where SparkPi takes `math.min(100000L * slices, Int.MaxValue)`.
pub fn total_elements(slices: i32) -> i32 {
    100_000i32.wrapping_mul(slices)
}

/// What `main` does before its job: `new ArrayList<>(n)` refuses a negative `n`
/// (`IllegalArgumentException: Illegal Capacity: n`), then `reduce` asks the
/// ParallelCollectionRDD for its partitions and `slice` refuses fewer than one. `Ok`: `(slices,
/// n)`, both positive.
pub fn checked(slices: i32) -> Result<(u32, u64), String> {
    let n = total_elements(slices);
    if n < 0 {
        return Err(format!(
            "java.lang.IllegalArgumentException: Illegal Capacity: {n}"
        ));
    }
    match u32::try_from(slices) {
        Ok(s) if s >= 1 => Ok((s, n as u64)),
        _ => {
            Err("java.lang.IllegalArgumentException: Positive number of partitions required".into())
        }
    }
}

/// The darts JavaSparkPi's job throws for `args` (one per list element), or the exception
/// `main` throws first.
pub fn total_darts(args: &[String]) -> Result<u64, String> {
    parse_slices(args).and_then(checked).map(|(_, n)| n)
}

/// The job `reduce` submits: one ResultStage over the list `0..n` in `slices` partitions
/// (`ParallelCollectionRDD.slice` of a non-Range Seq cuts its array at `i * n / slices`).
pub fn job(slices: u32, n: u64, seed: u64) -> JobSpec {
    let elements = Elements { first: 0, len: n };
    let rdd = format!("MapPartitionsRDD[1] at {}", map_site());
    darts_job(slices, elements, seed, rdd, lineage(), call_site())
}

/// `reduce at JavaSparkPi.java:54`.
pub fn call_site() -> String {
    format!("reduce at JavaSparkPi.java:{REDUCE_LINE}")
}

fn map_site() -> String {
    format!("map at JavaSparkPi.java:{MAP_LINE}")
}

/// The ResultStage's RDDs (`parallelize` is scope 0, `map` 1, the `reduce` action 2) and its
/// call site's long form (a Java class: one `main` frame, no Scala object forwarder).
pub fn lineage() -> StageLineage {
    StageLineage {
        rdds: vec![
            super::rdd(1, "MapPartitionsRDD", &map_site(), (1, "map"), &[0]),
            super::rdd(
                0,
                "ParallelCollectionRDD",
                &format!("parallelize at JavaSparkPi.java:{PARALLELIZE_LINE}"),
                (0, "parallelize"),
                &[],
            ),
        ],
        details: super::java_call_site_long_form(
            SPARK_FRAME,
            CLASS,
            "JavaSparkPi.java",
            REDUCE_LINE,
        ),
        action_scope: Some(super::scope_of((2, "reduce"))),
        shuffle_id: None,
    }
}

/// `"Pi is roughly " + 4.0 * count / n`: divided by `n`, the list's size.
pub fn estimate(n: u64, results: &[TaskResultData]) -> f64 {
    4.0 * total_hits(results) as f64 / n as f64
}

/// JavaSparkPi: one job of `slices` tasks over the list; `main` prints the estimate.
#[derive(Default)]
pub struct JavaSparkPi {
    n: u64,
}

impl Program for JavaSparkPi {
    fn app_name(&self) -> String {
        "JavaSparkPi".into()
    }

    fn plan(&mut self, args: &[String], seed: u64) -> ProgramPlan {
        ProgramPlan::quiet(parse_slices(args).and_then(checked).map(|(slices, n)| {
            self.n = n;
            vec![job(slices, n, seed)]
        }))
    }

    fn after_job(&self, _k: usize, results: &[TaskResultData], _last: bool) -> Vec<String> {
        let pi = estimate(self.n, results);
        vec![format!(
            "Pi is roughly {}",
            sparkyard_messages::jvm_text::double_to_string(pi)
        )]
    }

    fn stop_site(&self, _jobs: &[JobSpec]) -> String {
        format!("stop at JavaSparkPi.java:{STOP_LINE}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparkyard_messages::task::TaskWork;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn darts_of(j: &JobSpec) -> Vec<(u64, u64)> {
        j.stages[0]
            .tasks
            .iter()
            .map(|t| match t {
                TaskWork::SparkPiDarts { first, darts, .. } => (*first, *darts),
                _ => (0, 0),
            })
            .collect()
    }

    /// JavaSparkPi.java: `(args.length == 1) ? Integer.parseInt(args[0]) : 2`; the messages
    /// are Java 17's `Integer.parseInt` (run on this machine's JDK 17).
    #[test]
    fn slices_come_from_exactly_one_argument() {
        assert_eq!(parse_slices(&[]), Ok(2));
        assert_eq!(parse_slices(&args(&["7"])), Ok(7));
        assert_eq!(parse_slices(&args(&["3", "5"])), Ok(2), "two arguments: 2");
        assert_eq!(parse_slices(&args(&["+5"])), Ok(5));
        assert_eq!(parse_slices(&args(&["-1"])), Ok(-1));
        for bad in ["x", "", " 5", "2147483648"] {
            assert_eq!(
                parse_slices(&args(&[bad])),
                Err(format!(
                    "java.lang.NumberFormatException: For input string: \"{bad}\""
                ))
            );
        }
    }

    /// JavaSparkPi.java `int n = 100000 * slices;` wraps as Java's int does (values printed by
    /// JDK 17), and `new ArrayList<>(n)` refuses a negative capacity
    /// (`IllegalArgumentException: Illegal Capacity: -100000`, ArrayList's own message).
    #[test]
    fn n_wraps_like_java_int_and_a_negative_n_fails_the_list() {
        assert_eq!(total_elements(21474), 2_147_400_000);
        assert_eq!(total_elements(21475), -2_147_467_296);
        assert_eq!(total_elements(42950), 32704);
        assert_eq!(total_elements(100_000), 1_410_065_408);
        assert_eq!(
            checked(-1),
            Err("java.lang.IllegalArgumentException: Illegal Capacity: -100000".into())
        );
        assert_eq!(
            checked(21475),
            Err("java.lang.IllegalArgumentException: Illegal Capacity: -2147467296".into())
        );
        // 0 slices: an empty list, then ParallelCollectionRDD.slice refuses it at `reduce`.
        assert!(
            checked(0)
                .unwrap_err()
                .ends_with("Positive number of partitions required")
        );
        assert_eq!(checked(42950), Ok((42950, 32704)));
        assert_eq!(total_darts(&args(&["3", "5"])), Ok(200_000));
    }

    /// ParallelCollectionRDD.slice of the list `0..n` (a non-Range Seq: its array cut at
    /// `i * n / slices`): n elements, the first partition starting at element 0; with more
    /// slices than elements (42950 slices wrap n to 32704) some partitions are empty.
    #[test]
    fn partitions_cut_the_list_zero_until_n() {
        let j = job(3, 300_000, 1);
        assert_eq!(
            darts_of(&j),
            [(0, 100_000), (100_000, 100_000), (200_000, 100_000)]
        );
        let (s, n) = checked(42950).expect("positive");
        let d = darts_of(&job(s, n, 1));
        assert_eq!(d.iter().map(|(_, k)| k).sum::<u64>(), 32704);
        assert!(d.iter().any(|(_, k)| *k == 0));
    }

    /// Call sites and RDD names of a real run (Spark 4.0.0 `spark-submit` of JavaSparkPi.java
    /// compiled against pyspark 4.0.0's jars): `reduce at JavaSparkPi.java:54`,
    /// `MapPartitionsRDD[1] at map at JavaSparkPi.java:50`, `parallelize at
    /// JavaSparkPi.java:48`, `stop at JavaSparkPi.java:58`; the stage's Details start at
    /// `AbstractJavaRDDLike.reduce(JavaRDDLike.scala:46)`, then the one `main` frame.
    #[test]
    fn call_sites_are_java_spark_pi_dot_java_s() {
        let mut p = JavaSparkPi::default();
        let jobs = p.plan(&[], 1).jobs.expect("jobs");
        assert_eq!(jobs[0].call_site, "reduce at JavaSparkPi.java:54");
        let stage = &jobs[0].stages[0];
        assert_eq!(
            stage.rdd_description,
            "MapPartitionsRDD[1] at map at JavaSparkPi.java:50"
        );
        let lineage = stage.lineage.as_deref().expect("lineage");
        assert_eq!(
            lineage.rdds[1].callsite,
            "parallelize at JavaSparkPi.java:48"
        );
        let frames: Vec<&str> = lineage.details.lines().take(3).collect();
        assert_eq!(
            frames,
            [
                "org.apache.spark.api.java.AbstractJavaRDDLike.reduce(JavaRDDLike.scala:46)",
                "org.apache.spark.examples.JavaSparkPi.main(JavaSparkPi.java:54)",
                "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            ]
        );
        assert_eq!(p.stop_site(&jobs), "stop at JavaSparkPi.java:58");
        assert_eq!(p.app_name(), "JavaSparkPi");
    }

    /// `"Pi is roughly " + 4.0 * count / n`: 157138 hits of 200000 print `3.14276` (JDK 17's
    /// `Double.toString`, the line of the real run with 2 slices).
    #[test]
    fn the_estimate_divides_by_n() {
        let mut p = JavaSparkPi::default();
        let _ = p.plan(&[], 1);
        let results = [TaskResultData::Count(78_000), TaskResultData::Count(79_138)];
        assert_eq!(p.after_job(0, &results, true), ["Pi is roughly 3.14276"]);
    }
}
