//! Where the event log goes (`spark.eventLog.dir`) and whether Spark's writer accepts it:
//! `EventLogFileWriter.requireLogBaseDirAsDirectory` (Spark 4.0.0), which the SparkContext's
//! constructor runs before anything is logged to it.

use crate::error::UserError;
use sparkyard_actors::simulation::config::SparkSettings;
use std::path::PathBuf;

/// `spark.eventLog.dir`.
pub const DIR_KEY: &str = "spark.eventLog.dir";

/// `EventLogFileWriter.requireLogBaseDirAsDirectory`, which the SparkContext's constructor
/// runs when `spark.eventLog.enabled` (EventLoggingListener.start): a directory that does not
/// exist is Hadoop's `FileNotFoundException`, anything else there Spark's
/// `IllegalArgumentException` (the 4.0.0 jar's texts; a real local run printed the first).
/// `None` when the directory is there or event logging is off; a value sparkyard cannot write
/// to at all (another filesystem) is a usage error, as before.
pub fn log_dir_error(spark: &SparkSettings) -> Result<Option<String>, UserError> {
    if !spark.event_log_enabled {
        return Ok(None);
    }
    let dir = log_dir(&spark.event_log_dir)?;
    let shown = dir.display();
    Ok(match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => None,
        Ok(_) => Some(format!(
            "java.lang.IllegalArgumentException: Log directory {} is not a directory.",
            spark.event_log_dir.trim()
        )),
        Err(_) => Some(format!(
            "java.io.FileNotFoundException: File file:{shown} does not exist"
        )),
    })
}

pub fn log_dir(value: &str) -> Result<PathBuf, UserError> {
    let v = value.trim();
    let path = if let Some(rest) = v.strip_prefix("file://") {
        rest
    } else if let Some(rest) = v.strip_prefix("file:") {
        rest
    } else if v.contains("://") {
        return Err(UserError::file(
            DIR_KEY,
            format!(
                "{v}: sparkyard writes event logs to the local file system only (file:/path or a plain path)"
            ),
        ));
    } else {
        v
    };
    if path.is_empty() {
        return Err(UserError::file(DIR_KEY, "the directory is empty"));
    }
    Ok(PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: &str) -> SparkSettings {
        let conf = format!("spark.eventLog.dir={dir}");
        let words = [
            "--class",
            "org.apache.spark.examples.SparkPi",
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            &conf,
            "app.jar",
        ];
        let args = crate::conf::submit::tests::parse(&words);
        let req = args
            .into_request(crate::conf::submit::DefaultsFile::Embedded(""))
            .expect("request");
        crate::conf::settings::spark_settings(&req).expect("settings")
    }

    /// The texts SparkContext's constructor fails with (Spark 4.0.0: a real local run printed
    /// `java.io.FileNotFoundException: File file:/tmp/... does not exist` from
    /// EventLogFileWriter.requireLogBaseDirAsDirectory; the jar's constant `Log directory \u0001
    /// is not a directory.` for a file there).
    #[test]
    fn a_missing_or_non_directory_event_log_dir_is_sparks_exception() {
        let tmp = crate::test_dir::TestDir::new("evdir");
        let base = tmp.path();
        let missing = base.join("missing");
        let got = log_dir_error(&settings(&format!("file://{}", missing.display())));
        let want = format!(
            "java.io.FileNotFoundException: File file:{} does not exist",
            missing.display()
        );
        assert_eq!(got.expect("a local dir"), Some(want));
        let file = base.join("a-file");
        std::fs::write(&file, "x").expect("file");
        let value = format!("file://{}", file.display());
        let got = log_dir_error(&settings(&value)).expect("a local dir");
        assert_eq!(
            got,
            Some(format!(
                "java.lang.IllegalArgumentException: Log directory {value} is not a directory."
            ))
        );
        assert_eq!(
            log_dir_error(&settings(&base.display().to_string())).expect("ok"),
            None
        );
        assert!(!missing.exists(), "the check creates nothing");
    }
}
