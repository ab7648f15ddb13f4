//! `spark.scheduler.allocation.file`: reads a fair scheduler pools file as Spark 4.0.0's
//! `FairSchedulableBuilder.buildFairSchedulerPool` does (`org.apache.spark.scheduler`,
//! SchedulableBuilder.scala) into typed pool configurations; the driver prints Spark's lines
//! from them (`spark_core::scheduler::pool`). A file Spark could not open or parse fails the
//! SparkContext; sparkyard refuses it at submission.

use crate::error::UserError;
use sparkyard_actors::simulation::config::{
    AllocationFile, PoolConfig, ReplacedPoolValue, SchedulingMode,
};
use std::path::Path;

/// `FairSchedulableBuilder`'s XML names: `POOLS_PROPERTY`, `POOL_NAME_PROPERTY` (an
/// attribute), `SCHEDULING_MODE_PROPERTY`, `MINIMUM_SHARES_PROPERTY`, `WEIGHT_PROPERTY`.
const POOL: &str = "pool";
const NAME: &str = "name";
const SCHEDULING_MODE: &str = "schedulingMode";
const MIN_SHARE: &str = "minShare";
const WEIGHT: &str = "weight";

/// Reads the file the property names: a relative path from `dir` (the working directory of a
/// `submit`, the scenario file's directory of a `run`), `file:` stripped; the value itself is
/// what the driver's lines print.
pub fn read(value: &str, dir: Option<&Path>) -> Result<AllocationFile, UserError> {
    let local = value.strip_prefix("file:").unwrap_or(value);
    if local.contains("://") {
        return Err(UserError::file(
            value,
            "spark.scheduler.allocation.file: sparkyard reads the pools file from the local file system; give a local path (relative to the working directory, or to the scenario's directory in a scenario)",
        ));
    }
    let path = match dir {
        Some(d) if Path::new(local).is_relative() => d.join(local),
        _ => Path::new(local).to_path_buf(),
    };
    // Hadoop's RawLocalFileSystem.open: `java.io.FileNotFoundException: File <path> does not
    // exist` (a real 4.0.0 run: buildPools logs `Error while building the fair scheduler pools`
    // and the SparkContext fails with it).
    let text = std::fs::read_to_string(&path).map_err(|_| UserError::Java {
        class: "java.io.FileNotFoundException",
        message: format!(
            "File {value} does not exist (spark.scheduler.allocation.file, read in FAIR mode: give an existing pools XML file, see docs/scenarios.md)"
        ),
    })?;
    let pools = parse(&text, value)?;
    Ok(AllocationFile {
        path: value.to_string(),
        pools,
    })
}

/// `buildFairSchedulerPool`: every `pool` element of the document (`xml \\ "pool"`, in
/// document order), each read with Spark's defaults for a blank or invalid value.
pub fn parse(text: &str, label: &str) -> Result<Vec<PoolConfig>, UserError> {
    // Spark's XML.load throws a SAXParseException (`Error while building the fair scheduler
    // pools from <file>`), which fails the SparkContext.
    let doc = roxmltree::Document::parse(text).map_err(|e| {
        UserError::file(
            label,
            format!(
                "spark.scheduler.allocation.file: not XML ({e}); Spark's SparkContext fails on it (`Error while building the fair scheduler pools from {label}`, org.xml.sax.SAXParseException). Fix the file: <allocations><pool name=\"p\"><schedulingMode>FAIR</schedulingMode><minShare>0</minShare><weight>1</weight></pool></allocations>"
            ),
        )
    })?;
    Ok(doc
        .root()
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == POOL)
        .map(pool)
        .collect())
}

/// One pool: `(poolNode \ "@name").text` (empty when missing), then its three values in the
/// order Spark reads (and warns of) them.
fn pool(node: roxmltree::Node<'_, '_>) -> PoolConfig {
    let mut replaced = Vec::new();
    let mode_text = java_trim(&child_text(node, SCHEDULING_MODE)).to_uppercase();
    // `SchedulingMode.withName`: FAIR and FIFO; NONE (a value of the enumeration) and anything
    // else take the default FIFO with a warning.
    let mode = match mode_text.as_str() {
        "FAIR" => SchedulingMode::Fair,
        "FIFO" => SchedulingMode::Fifo,
        _ => {
            replaced.push(ReplacedPoolValue::SchedulingMode { found: mode_text });
            SchedulingMode::Fifo
        }
    };
    let min_share = int_value(node, MIN_SHARE).unwrap_or_else(|found| {
        replaced.push(ReplacedPoolValue::MinShare { found });
        0
    });
    let weight = int_value(node, WEIGHT).unwrap_or_else(|found| {
        replaced.push(ReplacedPoolValue::Weight { found });
        1
    });
    PoolConfig {
        name: node.attribute(NAME).unwrap_or("").to_string(),
        mode,
        min_share,
        weight,
        replaced,
    }
}

/// `getIntValue`: the trimmed text as `String.toInt` (Java's `Integer.parseInt`: an optional
/// sign, then decimal digits, within an Int), else the trimmed text for the warning.
fn int_value(node: roxmltree::Node<'_, '_>, name: &str) -> Result<i32, String> {
    let data = java_trim(&child_text(node, name)).to_string();
    data.parse::<i32>().map_err(|_| data)
}

/// `(node \ name).text`: the text of every child element so named, concatenated (each
/// element's text is all the text inside it, CDATA included).
fn child_text(node: roxmltree::Node<'_, '_>, name: &str) -> String {
    let mut out = String::new();
    for child in node
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == name)
    {
        for t in child.descendants().filter(|d| d.is_text()) {
            out.push_str(t.text().unwrap_or(""));
        }
    }
    out
}

/// Java's `String.trim`: removes leading and trailing characters up to U+0020.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pools(xml: &str) -> Vec<PoolConfig> {
        parse(xml, "pools.xml").expect("parses")
    }

    /// The file of a real Spark 4.0.0 run (`local-cluster[1,2,1024]`, /tmp/ff/pools.xml in the
    /// report): `etl` FAIR 1/2; `adhoc` `fifo` (upper-cased) with no minShare (blank: the
    /// default 0 with a warning); `odd` NONE (not a mode a pool takes: FIFO with a warning),
    /// minShare `x` (0, warned), weight ` 3 ` (trimmed: 3). SchedulableBuilder.scala
    /// `buildFairSchedulerPool` / `getSchedulingModeValue` / `getIntValue`.
    #[test]
    fn pools_are_read_in_file_order_with_spark_defaults_for_bad_values() {
        let p = pools(
            r#"<?xml version="1.0"?>
<allocations>
  <pool name="etl"><schedulingMode>FAIR</schedulingMode><weight>2</weight><minShare>1</minShare></pool>
  <pool name="adhoc"><schedulingMode>fifo</schedulingMode><weight>1</weight></pool>
  <pool name="odd"><schedulingMode>NONE</schedulingMode><minShare>x</minShare><weight> 3 </weight></pool>
</allocations>"#,
        );
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["etl", "adhoc", "odd"]);
        assert_eq!(
            (p[0].mode, p[0].min_share, p[0].weight),
            (SchedulingMode::Fair, 1, 2)
        );
        assert!(p[0].replaced.is_empty());
        assert_eq!(
            (p[1].mode, p[1].min_share, p[1].weight),
            (SchedulingMode::Fifo, 0, 1)
        );
        assert_eq!(
            p[1].replaced,
            [ReplacedPoolValue::MinShare {
                found: String::new()
            }]
        );
        assert_eq!(
            (p[2].mode, p[2].min_share, p[2].weight),
            (SchedulingMode::Fifo, 0, 3)
        );
        assert_eq!(
            p[2].replaced,
            [
                ReplacedPoolValue::SchedulingMode {
                    found: "NONE".into()
                },
                ReplacedPoolValue::MinShare { found: "x".into() },
            ]
        );
    }

    /// `xml \\ "pool"` finds pools at any depth; a pool with nothing set is FIFO 0 1 with the
    /// three warnings (a blank schedulingMode is `withName("")`'s NoSuchElementException); an
    /// Int out of range is invalid (`Integer.parseInt`), a sign is not.
    #[test]
    fn nested_and_empty_pools_and_int_limits() {
        let p = pools(
            r#"<allocations><group><pool name="a"/></group><pool name="b"><minShare>+2</minShare><weight>2147483648</weight></pool></allocations>"#,
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].replaced.len(), 3);
        assert_eq!(p[1].min_share, 2);
        assert_eq!(
            p[1].replaced.last(),
            Some(&ReplacedPoolValue::Weight {
                found: "2147483648".into()
            })
        );
    }

    /// A file that is not XML fails the SparkContext in Spark (a real 4.0.0 run:
    /// `SAXParseException; lineNumber: 1; columnNumber: 1; Content is not allowed in prolog.`);
    /// a missing one with Hadoop's `File <path> does not exist`.
    #[test]
    fn unreadable_files_are_refused() {
        let e = parse("not xml at all", "bad.xml").unwrap_err().to_string();
        assert!(e.contains("bad.xml") && e.contains("not XML"), "{e}");
        let e = read("/nonexistent/pools.xml", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("Exception in thread \"main\" java.io.FileNotFoundException: File /nonexistent/pools.xml does not exist"),
            "{e}"
        );
        let e = read("hdfs://nn:8020/pools.xml", None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("local file system"), "{e}");
    }
}
