//! Spark 4.0's default event-log layout, mirroring `RollingEventLogFilesWriter`
//! (deploy/history/EventLogFileWriters.scala): one folder per attempt,
//! `eventlog_v2_<appId>_<attempt>/`, holding `events_<n>_<appId>_<attempt>[.<codec>]` files
//! that roll over at `spark.eventLog.rolling.maxFileSize`, and the zero-byte
//! `appstatus_<appId>_<attempt>[.inprogress]` whose suffix tells the History Server whether the
//! attempt completed.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `java.io.StreamEncoder`'s byte buffer in Java 17 (`DEFAULT_BYTE_BUFFER_SIZE`): the
/// `OutputStreamWriter` under Spark's `PrintWriter` hands bytes to the `CountingOutputStream`
/// only when this buffer is full or the writer is flushed.
const ENCODER_BUFFER: u64 = 8192;

/// `EventLogFileWriter.LOG_FOLDER_PERMISSIONS` in Spark 4.0.0 (770; the files get 660).
const FOLDER_MODE: u32 = 0o770;

/// What Hadoop's `ChecksumFileSystem` writes beside the zero-byte app status file (created
/// through `FileSystem.create`, unlike the event files Spark opens with a plain
/// `FileOutputStream`): the `crc\0` magic and 512 bytes per checksum, no checksums.
const EMPTY_CRC: [u8; 8] = [b'c', b'r', b'c', 0, 0, 0, 2, 0];

/// The attempt's folder: `getAppEventLogDirPath` (`eventlog_v2_` + `nameForAppAndAttempt`).
pub fn app_dir(log_dir: &Path, name: &str) -> PathBuf {
    log_dir.join(format!("eventlog_v2_{name}"))
}

/// `getAppStatusFilePath`.
fn app_status_name(name: &str, in_progress: bool) -> String {
    let suffix = if in_progress { ".inprogress" } else { "" };
    format!("appstatus_{name}{suffix}")
}

/// `getEventLogFilePath`.
fn events_name(index: u64, name: &str, codec: Option<&str>) -> String {
    let codec = codec.map(|c| format!(".{c}")).unwrap_or_default();
    format!("events_{index}_{name}{codec}")
}

/// The rolling writer of one attempt: `start`, `write_event` per JSON line, `stop`.
pub struct RollingFiles {
    dir: PathBuf,
    name: String,
    codec: Option<&'static str>,
    max_file_size: u64,
    /// `spark.io.compression.zstd.level` (1 unless set).
    zstd_level: i32,
    index: u64,
    /// Bytes of the current file the `CountingOutputStream` has seen (Spark's `currentLen`).
    counted: u64,
    /// Bytes still in the encoder's buffer, not yet counted.
    pending: u64,
    /// Lines not yet handed to the file (written in chunks of [`super::eventlog_file_writer::CHUNK`]).
    text: String,
    out: Option<Box<dyn Write>>,
}

impl RollingFiles {
    /// `RollingEventLogFilesWriter.start` once the caller has dealt with an existing folder:
    /// the folder (770), `appstatus_<name>.inprogress`, then `events_1_<name>`; `codec` is
    /// the file extension, compressed with zstd at `zstd_level` when set.
    pub fn start(
        dir: PathBuf,
        name: &str,
        codec: Option<&'static str>,
        zstd_level: i32,
        max_file_size: u64,
    ) -> std::io::Result<Self> {
        std::fs::create_dir_all(&dir)?;
        set_mode(&dir, FOLDER_MODE)?;
        let status = dir.join(app_status_name(name, true));
        std::fs::File::create(&status)?;
        super::eventlog_file_writer::set_log_permissions(&status)?;
        let crc = crc_path(&status);
        std::fs::write(&crc, EMPTY_CRC)?;
        super::eventlog_file_writer::set_log_permissions(&crc)?;
        let mut files = RollingFiles {
            dir,
            name: name.to_string(),
            codec,
            max_file_size,
            zstd_level,
            index: 0,
            counted: 0,
            pending: 0,
            text: String::with_capacity(super::eventlog_file_writer::CHUNK + 64 * 1024),
            out: None,
        };
        files.roll()?;
        Ok(files)
    }

    /// `writeEvent`: rolls over first when the counted bytes plus the line's `String.length`
    /// exceed the maximum (the newline is not part of the check), then `println`s the line;
    /// `flush` is EventLoggingListener's `flushLogger` for this event.
    pub fn write_event(&mut self, line: &str, flush: bool) -> std::io::Result<()> {
        if self.counted + java_length(line) > self.max_file_size {
            self.roll()?;
        }
        self.text.push_str(line);
        self.text.push('\n');
        self.pending += line.len() as u64 + 1;
        // StreamEncoder writes its full buffer out when the next bytes do not fit.
        if self.pending > ENCODER_BUFFER {
            let full = (self.pending - 1) / ENCODER_BUFFER;
            self.counted += full * ENCODER_BUFFER;
            self.pending -= full * ENCODER_BUFFER;
        }
        if flush {
            self.counted += self.pending;
            self.pending = 0;
        }
        if self.text.len() >= super::eventlog_file_writer::CHUNK {
            self.write_text()?;
        }
        Ok(())
    }

    /// `stop`: closes the last file and, when the attempt ended, renames the app status file
    /// (and its checksum) to its completed name.
    pub fn stop(mut self, completed: bool) -> std::io::Result<()> {
        self.close()?;
        if completed {
            let from = self.dir.join(app_status_name(&self.name, true));
            let to = self.dir.join(app_status_name(&self.name, false));
            std::fs::rename(crc_path(&from), crc_path(&to))?;
            std::fs::rename(&from, &to)?;
        }
        Ok(())
    }

    /// `rollEventLogFile`: closes the current file and opens the next index (660).
    fn roll(&mut self) -> std::io::Result<()> {
        self.close()?;
        self.index += 1;
        let path = self
            .dir
            .join(events_name(self.index, &self.name, self.codec));
        let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
        super::eventlog_file_writer::set_log_permissions(&path)?;
        self.out = Some(if self.codec.is_some() {
            Box::new(zstd::stream::write::Encoder::new(file, self.zstd_level)?.auto_finish())
        } else {
            Box::new(file)
        });
        self.counted = 0;
        self.pending = 0;
        Ok(())
    }

    fn write_text(&mut self) -> std::io::Result<()> {
        if let Some(out) = &mut self.out {
            out.write_all(self.text.as_bytes())?;
        }
        self.text.clear();
        Ok(())
    }

    fn close(&mut self) -> std::io::Result<()> {
        self.write_text()?;
        if let Some(mut out) = self.out.take() {
            out.flush()?;
        }
        Ok(())
    }
}

/// Java's `String.length()`: UTF-16 code units (bytes for the ASCII lines Spark mostly writes).
fn java_length(line: &str) -> u64 {
    if line.is_ascii() {
        line.len() as u64
    } else {
        line.encode_utf16().count() as u64
    }
}

/// `ChecksumFileSystem.getChecksumFile`: `.<name>.crc` beside the file.
fn crc_path(file: &Path) -> PathBuf {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.with_file_name(format!(".{name}.crc"))
}

fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    let _ = (path, mode);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_dir::TestDir;

    fn listing(dir: &Path) -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = std::fs::read_dir(dir)
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| {
                let len = e.metadata().map(|m| m.len()).unwrap_or(0);
                (e.file_name().to_string_lossy().into_owned(), len)
            })
            .collect();
        v.sort();
        v
    }

    // EventLogFileWriters.scala RollingEventLogFilesWriter.writeEvent: roll when
    // `countingOutputStream.getByteCount + eventJson.length > eventFileMaxLength`; the count
    // lags behind the file by what the writer has not flushed (Java 17's 8 KiB encoder buffer).
    #[test]
    fn files_roll_when_the_counted_bytes_plus_the_line_exceed_the_maximum() {
        // The writer makes the log's folder itself: hand it one that does not exist yet.
        let tmp = TestDir::new("rolling-roll");
        let dir = tmp.join("log");
        let line = "x".repeat(999); // 1000 bytes with its newline
        let mut f = RollingFiles::start(dir.clone(), "app_1", None, 1, 20_000).expect("start");
        // Flushed lines are counted at once: 20 fill 20,000 bytes, and 20,000 + 999 > 20,000
        // rolls the 21st into events_2.
        for _ in 0..21 {
            f.write_event(&line, true).expect("write");
        }
        // Unflushed lines are counted in 8 KiB steps: before the 25th, 1,000 + 24,000 bytes
        // are in events_2 but only 1,000 + 16,384 counted, so it still fits (no events_3).
        for _ in 0..25 {
            f.write_event(&line, false).expect("write");
        }
        f.stop(true).expect("stop");
        assert_eq!(
            listing(&dir),
            vec![
                (".appstatus_app_1.crc".to_string(), 8),
                ("appstatus_app_1".to_string(), 0),
                ("events_1_app_1".to_string(), 20_000),
                ("events_2_app_1".to_string(), 1000 + 25_000),
            ]
        );
    }

    // RollingEventLogFilesWriter.start / createAppStatusFile / stop; EventLogFileWriter$ in the
    // 4.0.0 jar: LOG_FOLDER_PERMISSIONS 770, LOG_FILE_PERMISSIONS 660.
    #[cfg(unix)]
    #[test]
    fn an_unfinished_attempt_keeps_its_inprogress_status_and_modes_are_sparks() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = TestDir::new("rolling-modes");
        let dir = tmp.join("log");
        let mut f =
            RollingFiles::start(dir.clone(), "a_1", Some("zstd"), 1, 1 << 20).expect("start");
        f.write_event("{}", true).expect("write");
        f.stop(false).expect("stop");
        let names: Vec<String> = listing(&dir).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [
                ".appstatus_a_1.inprogress.crc",
                "appstatus_a_1.inprogress",
                "events_1_a_1.zstd"
            ]
        );
        let mode = |p: &Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o770);
        assert_eq!(mode(&dir.join("events_1_a_1.zstd")), 0o660);
        assert_eq!(mode(&dir.join("appstatus_a_1.inprogress")), 0o660);
    }

    #[test]
    fn java_length_counts_utf16_units() {
        assert_eq!(java_length("abc"), 3);
        assert_eq!(java_length("é😀"), 3);
    }
}
