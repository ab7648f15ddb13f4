//! The example applications a submission can name (Spark: `examples/`): SparkPi, GroupByTest,
//! SkewedGroupByTest, SparkLR and SparkTC.

pub mod group_by_test;
pub mod java_random;
pub mod rdd_graph;
pub mod spark_lr;
pub mod spark_pi;
pub mod spark_tc;

use sparkyard_messages::task::{RddScope, RddSpec};

/// `Utils.getCallSite`'s long form (a stage's `Details`): the last Spark frame (e.g.
/// `org.apache.spark.rdd.RDD.reduce(RDD.scala:1130)`, lines from the Spark 4.0.0 jars), the
/// user's `main` at `file:line` and its static forwarder, then the frames of the AM's user-class
/// thread on Java 17 (`ApplicationMaster$$anon$2.run` invokes `main` by reflection at
/// ApplicationMaster.scala:743 in spark-yarn 4.0.0).
pub fn call_site_long_form(spark_frame: &str, class: &str, file: &str, line: u32) -> String {
    [
        spark_frame.to_string(),
        format!("{class}$.main({file}:{line})"),
        format!("{class}.main({file})"),
        "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)".into(),
        "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)".into(),
        "java.base/jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)".into(),
        "java.base/java.lang.reflect.Method.invoke(Method.java:569)".into(),
        "org.apache.spark.deploy.yarn.ApplicationMaster$$anon$2.run(ApplicationMaster.scala:743)".into(),
    ]
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

/// Every `--class` sparkyard runs as a real program (the registry the console's warning names).
pub const SIMULATED_CLASSES: &[&str] = &[
    spark_pi::CLASS,
    spark_pi::JAVA_CLASS,
    group_by_test::CLASS,
    group_by_test::SKEWED_CLASS,
    spark_lr::CLASS,
    spark_tc::CLASS,
];
