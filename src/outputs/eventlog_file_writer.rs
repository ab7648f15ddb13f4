//! What Spark's `EventLogFileWriter` base class gives both writers
//! (core/.../deploy/history/EventLogFileWriters.scala): the files' permissions and how much of a
//! log is built in memory before it goes to the file. Below `eventlog` (the single-file writer and
//! the events' JSON) and `eventlog_rolling` (`RollingEventLogFilesWriter`).

use std::path::Path;

/// How much of a log is built in memory before it goes to the file, bytes.
pub(super) const CHUNK: usize = 1 << 20;

/// `EventLogFileWriter.LOG_FILE_PERMISSIONS`: 660 in Spark 4.0.0 (`Integer.parseInt("660", 8)`
/// in the jar's `EventLogFileWriter$`; the folder of a rolling log gets 770).
pub(super) fn set_log_permissions(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o660))?;
    }
    let _ = path;
    Ok(())
}
