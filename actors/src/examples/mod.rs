//! The programs a driver runs: the example applications a submission can name (Spark:
//! `examples/`): SparkPi, JavaSparkPi, GroupByTest, SkewedGroupByTest, SparkLR and SparkTC,
//! each a [`program::Program`] in its own file, found by its class in [`EXAMPLES`] (adding an
//! example is its file and one entry there); a scenario's synthetic workload (`synthetic.rs`) and a
//! replayed application (`replayed.rs`), each a program in its own file too.

pub mod group_by_test;
pub mod java_random;
pub mod java_spark_pi;
pub mod program;
pub mod rdd_graph;
pub mod replayed;
pub mod spark_lr;
pub mod spark_pi;
pub mod spark_tc;
pub mod synthetic;

use sparkyard_messages::task::{RddScope, RddSpec};

/// `Utils.getCallSite`'s long form (a stage's `Details`) for a Scala object's `main`: the last
/// Spark frame (e.g. `org.apache.spark.rdd.RDD.reduce(RDD.scala:1130)`, lines from the Spark
/// 4.0.0 jars), the object's `main` at `file:line` and its static forwarder, then
/// [`MAIN_CALLERS`].
pub fn call_site_long_form(spark_frame: &str, class: &str, file: &str, line: u32) -> String {
    let user = [
        format!("{class}$.main({file}:{line})"),
        format!("{class}.main({file})"),
    ];
    long_form(spark_frame, &user)
}

/// [`call_site_long_form`] for a Java class's `main`: one user frame, `Class.main(File:line)`
/// (a real JavaSparkPi run's Details on Spark 4.0.0).
pub fn java_call_site_long_form(spark_frame: &str, class: &str, file: &str, line: u32) -> String {
    long_form(spark_frame, &[format!("{class}.main({file}:{line})")])
}

/// The frames below the user's `main`: the AM's user-class thread on Java 17
/// (`ApplicationMaster$$anon$2.run` invokes `main` by reflection at ApplicationMaster.scala:743
/// in spark-yarn 4.0.0).
const MAIN_CALLERS: [&str; 5] = [
    "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
    "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)",
    "java.base/jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)",
    "java.base/java.lang.reflect.Method.invoke(Method.java:569)",
    "org.apache.spark.deploy.yarn.ApplicationMaster$$anon$2.run(ApplicationMaster.scala:743)",
];

fn long_form(spark_frame: &str, user: &[String]) -> String {
    std::iter::once(spark_frame)
        .chain(user.iter().map(String::as_str))
        .chain(MAIN_CALLERS)
        .collect::<Vec<_>>()
        .join("\n")
}

/// An RDD made inside the top-level operation `scope` (`RDD.withScope`).
pub fn rdd(id: u32, name: &str, callsite: &str, scope: (u32, &str), parents: &[u32]) -> RddSpec {
    RddSpec {
        id,
        name: name.into(),
        callsite: callsite.into(),
        scope: Some(scope_of(scope)),
        parent_ids: parents.to_vec(),
        cached: false,
        deterministic_level: Default::default(),
    }
}

pub fn scope_of((id, name): (u32, &str)) -> RddScope {
    RddScope {
        id,
        name: name.into(),
    }
}

/// An example a `--class` runs: its classes and how its program is made from the class.
pub struct Example {
    pub classes: &'static [&'static str],
    make: fn(class: &str) -> Box<dyn program::Program>,
}

/// Every example sparkyard runs as a real program.
pub const EXAMPLES: &[Example] = &[
    Example {
        classes: &[spark_pi::CLASS],
        make: |_| Box::new(spark_pi::SparkPi::default()),
    },
    Example {
        classes: &[java_spark_pi::CLASS],
        make: |_| Box::new(java_spark_pi::JavaSparkPi::default()),
    },
    Example {
        classes: &[group_by_test::CLASS, group_by_test::SKEWED_CLASS],
        make: |class| {
            let skewed = class == group_by_test::SKEWED_CLASS;
            Box::new(group_by_test::GroupByTest::new(skewed))
        },
    },
    Example {
        classes: &[spark_lr::CLASS],
        make: |_| Box::new(spark_lr::SparkLr::default()),
    },
    Example {
        classes: &[spark_tc::CLASS],
        make: |_| Box::new(spark_tc::SparkTc::default()),
    },
];

/// The program `--class` names, if it is an example.
pub fn example(class: &str) -> Option<Box<dyn program::Program>> {
    EXAMPLES
        .iter()
        .find(|e| e.classes.contains(&class))
        .map(|e| (e.make)(class))
}

/// Every `--class` sparkyard runs as a real program (the registry the console's warning names).
pub fn simulated_classes() -> impl Iterator<Item = &'static str> {
    EXAMPLES.iter().flat_map(|e| e.classes.iter().copied())
}

#[cfg(test)]
mod program_tests {
    use super::*;

    /// Every example's class makes its program, which plans jobs from no arguments (each
    /// example's default) and names its application.
    #[test]
    fn every_example_class_plans_its_jobs() {
        for class in EXAMPLES.iter().flat_map(|e| e.classes) {
            let mut p = example(class).expect("an example");
            let plan = p.plan(&[], 1);
            let jobs = plan.jobs.unwrap_or_default();
            assert!(!jobs.is_empty(), "{class}");
            assert!(!p.app_name().is_empty() && p.stop_site(&jobs).starts_with("stop at "));
        }
        assert!(example("org.example.Missing").is_none());
    }

    /// SparkLR prints `w` before its first job and `On iteration 1` before `slice` refuses a
    /// count below 1 (ParallelCollectionRDD.slice), then `main` throws.
    #[test]
    fn sparklr_prints_before_it_throws_on_no_slices() {
        let mut p = example(spark_lr::CLASS).expect("SparkLR");
        let plan = p.plan(&["0".to_string()], 1);
        assert_eq!(
            plan.stdout,
            vec![spark_lr::initial_w_line(), spark_lr::iteration_line(1)]
        );
        assert!(
            plan.jobs
                .is_err_and(|e| e.contains("Positive number of partitions"))
        );
        assert_eq!(p.before_context(), Some(spark_lr::WARNING));
        let bad = p.plan(&["x".to_string()], 1);
        assert!(bad.stdout.is_empty() && bad.jobs.is_err());
    }

    /// The skewed GroupByTest prints its count after its second job only.
    #[test]
    fn group_by_test_prints_after_its_second_job() {
        let mut p = example(group_by_test::SKEWED_CLASS).expect("GroupByTest");
        let _ = p.plan(&[], 1);
        assert!(p.after_job(0, &[], false).is_empty());
        assert_eq!(p.after_job(1, &[], true).len(), 1);
    }
}
