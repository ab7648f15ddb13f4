//! Reading a Spark event log as Spark writes it: a single file or a rolling directory
//! (`eventlog_v2_*` with `events_N_*` and `appstatus_*`, Spark's `RollingEventLogFilesWriter`),
//! plain or compressed by the codec its file name ends with (`EventLogFileReader.codecName`:
//! zstd, lz4, snappy; lzf is named but not read here), one JSON event per line. Mirrors Spark's
//! `EventLogFileReader`, `CompressionCodec` and `ReplayListenerBus.replay` (line by line,
//! streaming; unknown events skipped and counted).

use crate::error::UserError;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// `EventLogFileWriter.IN_PROGRESS`.
pub const IN_PROGRESS: &str = ".inprogress";
/// `RollingEventLogFilesWriter.EVENT_LOG_DIR_NAME_PREFIX`.
pub const ROLLING_DIR_PREFIX: &str = "eventlog_v2_";
/// `RollingEventLogFilesWriter.EVENT_LOG_FILE_NAME_PREFIX`.
pub const ROLLING_FILE_PREFIX: &str = "events_";
/// `RollingEventLogFilesWriter.APPSTATUS_FILE_NAME_PREFIX`.
pub const APPSTATUS_PREFIX: &str = "appstatus_";
/// `EventLogFileWriter.COMPACTED`: the History Server's `EventLogFileCompactor` replaces a
/// rolling log's first files by one `events_<index>_<appId>[.<codec>].compact`.
pub const COMPACTED: &str = ".compact";

/// Spark's compression codecs by their short names (`CompressionCodec.shortCompressionCodecNames`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    None,
    Zstd,
    Lz4,
    Snappy,
}

/// `EventLogFileReader.codecName`: the last dot-suffix of the name without `.inprogress`.
pub fn codec_of(path: &Path) -> Result<Codec, UserError> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let name = name.unwrap_or_default();
    let name = name.strip_suffix(IN_PROGRESS).unwrap_or(&name);
    let Some((_, ext)) = name.split_once('.') else {
        return Ok(Codec::None);
    };
    let ext = ext.rsplit('.').next().unwrap_or(ext);
    match ext {
        "zstd" => Ok(Codec::Zstd),
        "lz4" => Ok(Codec::Lz4),
        "snappy" => Ok(Codec::Snappy),
        "lzf" => Err(UserError::file(
            path.display().to_string(),
            "the lzf codec (Spark's LZFCompressionCodec) is not supported by sparkyard; decompress the log with Spark or write it with spark.eventLog.compression.codec=zstd",
        )),
        other => Err(UserError::file(
            path.display().to_string(),
            format!(
                "unknown compression codec '{other}' in the file name (Spark's event-log codecs are zstd, lz4, snappy and lzf; a plain log has no extension)"
            ),
        )),
    }
}

/// The files of one event log, in the order their events were written.
#[derive(Debug)]
pub struct LogFiles {
    /// What the user named (for messages).
    pub label: String,
    pub files: Vec<PathBuf>,
}

/// Finds the files of the log at `path`: a single file, or a rolling directory's event files
/// sorted by their index (`RollingEventLogFilesFileReader.listEventLogFiles`). An application
/// still running (`.inprogress` file, or an in-progress `appstatus_` file) is refused.
pub fn locate(path: &Path) -> Result<LogFiles, UserError> {
    let label = path.display().to_string();
    let meta = std::fs::metadata(path)
        .map_err(|e| UserError::file(&label, format!("cannot read the event log: {e}")))?;
    if meta.is_dir() {
        return rolling(path, label);
    }
    if label.ends_with(IN_PROGRESS) {
        return Err(in_progress(&label));
    }
    Ok(LogFiles {
        label,
        files: vec![path.to_path_buf()],
    })
}

fn in_progress(label: &str) -> UserError {
    UserError::file(
        label,
        "the application has not ended: Spark is still writing this log (.inprogress); replay the log once the application has stopped",
    )
}

fn rolling(dir: &Path, label: String) -> Result<LogFiles, UserError> {
    let read = std::fs::read_dir(dir)
        .map_err(|e| UserError::file(&label, format!("cannot list the directory: {e}")))?;
    let mut events: Vec<(u64, PathBuf)> = Vec::new();
    let mut status = None;
    for entry in read {
        let entry = entry.map_err(|e| UserError::file(&label, e.to_string()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(ROLLING_FILE_PREFIX) && name.ends_with(COMPACTED) {
            return Err(compacted(&label, &name));
        }
        if name.starts_with(APPSTATUS_PREFIX) {
            status = Some(name);
        } else if let Some(rest) = name.strip_prefix(ROLLING_FILE_PREFIX) {
            let index = rest.split('_').next().and_then(|i| i.parse::<u64>().ok());
            match index {
                Some(i) => events.push((i, entry.path())),
                None => {
                    return Err(UserError::file(
                        &label,
                        format!("'{name}' is not named events_<index>_<appId>"),
                    ));
                }
            }
        }
    }
    let is_rolling = dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(ROLLING_DIR_PREFIX));
    if events.is_empty() {
        let what = if is_rolling {
            "this rolling event-log directory has no events_<index>_<appId> file"
        } else {
            "a directory is read as a rolling event log (eventlog_v2_<appId>), but this one has no events_<index>_<appId> file"
        };
        return Err(UserError::file(&label, what));
    }
    match status {
        Some(s) if s.ends_with(IN_PROGRESS) => return Err(in_progress(&label)),
        Some(_) => {}
        None => {
            return Err(UserError::file(
                &label,
                "the rolling event log has no appstatus_<appId> file (Spark writes it first): the directory is incomplete",
            ));
        }
    }
    events.sort();
    Ok(LogFiles {
        label,
        files: events.into_iter().map(|(_, p)| p).collect(),
    })
}

/// A rolling log the History Server compacted: `EventLogFileCompactor` keeps only the events of
/// what was still live (`BasicEventFilter`: a finished job's job, stage and task events are
/// dropped), so the log no longer records what the application ran.
fn compacted(label: &str, name: &str) -> UserError {
    UserError::file(
        label,
        format!(
            "'{name}' is a History Server compaction (spark.history.fs.eventLog.rolling.maxFilesToRetain): it dropped the job, stage and task events of every job that had finished, so the log no longer records what the application ran; replay the event files as Spark wrote them, before the History Server compacted them"
        ),
    )
}

/// Opens one event file, decompressing it by its codec.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, UserError> {
    let label = path.display().to_string();
    let codec = codec_of(path)?;
    let file = std::fs::File::open(path)
        .map_err(|e| UserError::file(&label, format!("cannot open: {e}")))?;
    let raw = BufReader::with_capacity(1 << 16, file);
    decoder(codec, raw).map_err(|e| UserError::file(&label, e))
}

fn invalid(msg: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.into())
}

/// Reads exactly `buf.len()` bytes; `Ok(false)` at a clean end of input before the first byte.
fn read_full(r: &mut impl Read, buf: &mut [u8], what: &str) -> std::io::Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(invalid(format!("the log is truncated inside {what}"))),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// lz4-java's `LZ4BlockOutputStream` stream (what Spark's `LZ4CompressionCodec` writes): blocks
/// of `"LZ4Block"` + token (method | level) + compressed length + original length + checksum
/// (little-endian ints), then the block; a block with both lengths 0 ends a stream, and streams
/// may follow each other. Every block's checksum is verified as `LZ4BlockInputStream.refill` does.
pub struct Lz4BlockReader<R> {
    inner: R,
    out: Vec<u8>,
    pos: usize,
    ended: bool,
    /// Whether the last stream was closed with its end block.
    closed: bool,
    /// Blocks read so far (for messages).
    blocks: u64,
}

const LZ4_MAGIC: &[u8; 8] = b"LZ4Block";
const LZ4_METHOD_RAW: u8 = 0x10;
const LZ4_METHOD_LZ4: u8 = 0x20;
/// lz4-java's largest block (`LZ4BlockOutputStream`: 32 MB).
const LZ4_MAX_BLOCK: usize = 1 << 25;
/// `LZ4BlockOutputStream.DEFAULT_SEED`, the seed Spark's `LZ4CompressionCodec` gives its
/// `XXHashFactory.newStreamingHash32(defaultSeed).asChecksum`.
const LZ4_CHECKSUM_SEED: u32 = 0x9747_b28c;

/// The checksum lz4-java stores for a block: XXHash32 of the decoded bytes, through
/// `StreamingXXHash32.asChecksum`, whose `getValue` keeps the low 28 bits (`& 0xFFFFFFF`).
pub fn lz4_block_checksum(decoded: &[u8]) -> u32 {
    xxhash_rust::xxh32::xxh32(decoded, LZ4_CHECKSUM_SEED) & 0x0FFF_FFFF
}

impl<R: Read> Lz4BlockReader<R> {
    pub fn new(inner: R) -> Self {
        Lz4BlockReader {
            inner,
            out: Vec::new(),
            pos: 0,
            ended: false,
            closed: true,
            blocks: 0,
        }
    }

    fn next_block(&mut self) -> std::io::Result<()> {
        let mut header = [0u8; 21];
        if !read_full(&mut self.inner, &mut header, "an lz4 block header")? {
            if !self.closed {
                return Err(invalid(
                    "the lz4 stream ends without its end block: the log is truncated",
                ));
            }
            self.ended = true;
            return Ok(());
        }
        if &header[..8] != LZ4_MAGIC {
            return Err(invalid(
                "not an lz4 stream as Spark writes it (no LZ4Block magic)",
            ));
        }
        let int = |at: usize| {
            u32::from_le_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
                as usize
        };
        let (method, compressed, original) = (header[8] & 0xF0, int(9), int(13));
        let check = int(17) as u32;
        self.blocks += 1;
        self.out.clear();
        self.pos = 0;
        if compressed == 0 && original == 0 {
            // LZ4BlockInputStream.refill: an end block's checksum must be 0.
            if check != 0 {
                return Err(self.corrupt("its end block has a non-zero checksum"));
            }
            self.closed = true;
            return Ok(());
        }
        self.closed = false;
        if compressed > LZ4_MAX_BLOCK || original > LZ4_MAX_BLOCK {
            return Err(invalid("an lz4 block is larger than lz4-java writes"));
        }
        let mut block = vec![0u8; compressed];
        if !read_full(&mut self.inner, &mut block, "an lz4 block")? {
            return Err(invalid("the log is truncated after an lz4 block header"));
        }
        match method {
            LZ4_METHOD_RAW if compressed == original => self.out = block,
            LZ4_METHOD_LZ4 => {
                self.out = lz4_flex::block::decompress(&block, original)
                    .map_err(|e| invalid(format!("corrupt lz4 block: {e}")))?;
                if self.out.len() != original {
                    return Err(invalid("an lz4 block has the wrong length"));
                }
            }
            _ => return Err(invalid("an lz4 block has an unknown compression method")),
        }
        let actual = lz4_block_checksum(&self.out);
        if actual != check {
            return Err(self.corrupt(&format!(
                "the XXHash32 checksum of its block {} is {actual:#09x}, the block header says {check:#09x}",
                self.blocks
            )));
        }
        Ok(())
    }

    /// lz4-java's own text for a failed check is "Stream is corrupted".
    fn corrupt(&self, what: &str) -> std::io::Error {
        invalid(format!(
            "the lz4 stream is corrupted ({what}; lz4-java: Stream is corrupted): the log was damaged after Spark wrote it"
        ))
    }
}

/// A stream decoded one block at a time (lz4-java's and snappy-java's framings): `read` serves
/// the current block, then decodes the next until the stream ends.
trait BlockStream {
    /// The decoded block, the read position in it, and whether the stream has ended.
    fn block(&mut self) -> (&[u8], &mut usize, bool);
    fn next(&mut self) -> std::io::Result<()>;
}

fn read_blocks(s: &mut impl BlockStream, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        let (out, pos, ended) = s.block();
        if *pos < out.len() {
            let n = buf.len().min(out.len() - *pos);
            buf[..n].copy_from_slice(&out[*pos..*pos + n]);
            *pos += n;
            return Ok(n);
        }
        if ended {
            return Ok(0);
        }
        s.next()?;
    }
}

impl<R: Read> BlockStream for Lz4BlockReader<R> {
    fn block(&mut self) -> (&[u8], &mut usize, bool) {
        (&self.out, &mut self.pos, self.ended)
    }
    fn next(&mut self) -> std::io::Result<()> {
        self.next_block()
    }
}

impl<R: Read> Read for Lz4BlockReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        read_blocks(self, buf)
    }
}

/// snappy-java's `SnappyOutputStream` stream (what Spark's `SnappyCompressionCodec` writes; not
/// the framing format): a 16-byte header (`\x82SNAPPY\0`, version, compatible version), then
/// chunks of a big-endian length and a raw snappy block. Headers may repeat (concatenated streams).
pub struct SnappyStreamReader<R> {
    inner: R,
    out: Vec<u8>,
    pos: usize,
    ended: bool,
    started: bool,
    decoder: snap::raw::Decoder,
}

const SNAPPY_MAGIC: &[u8; 8] = b"\x82SNAPPY\x00";
/// A chunk larger than this is corrupt (snappy-java's blocks are at most a few MB).
const SNAPPY_MAX_CHUNK: usize = 1 << 28;

impl<R: Read> SnappyStreamReader<R> {
    pub fn new(inner: R) -> Self {
        SnappyStreamReader {
            inner,
            out: Vec::new(),
            pos: 0,
            ended: false,
            started: false,
            decoder: snap::raw::Decoder::new(),
        }
    }

    fn next_chunk(&mut self) -> std::io::Result<()> {
        let mut len = [0u8; 4];
        if !read_full(&mut self.inner, &mut len, "a snappy chunk length")? {
            if !self.started {
                return Err(invalid("the snappy stream is empty"));
            }
            self.ended = true;
            return Ok(());
        }
        if len == SNAPPY_MAGIC[..4] {
            let mut rest = [0u8; 12];
            read_full(&mut self.inner, &mut rest, "the snappy stream header")?;
            if rest[..4] != SNAPPY_MAGIC[4..] {
                return Err(invalid("not a snappy-java stream (bad header)"));
            }
            self.started = true;
            self.out.clear();
            self.pos = 0;
            return Ok(());
        }
        if !self.started {
            return Err(invalid(
                "not a snappy-java stream as Spark writes it (no \\x82SNAPPY header)",
            ));
        }
        let n = u32::from_be_bytes(len) as usize;
        if n > SNAPPY_MAX_CHUNK {
            return Err(invalid("a snappy chunk is impossibly large"));
        }
        let mut chunk = vec![0u8; n];
        if !read_full(&mut self.inner, &mut chunk, "a snappy chunk")? && n > 0 {
            return Err(invalid("the log is truncated after a snappy chunk length"));
        }
        self.out = self
            .decoder
            .decompress_vec(&chunk)
            .map_err(|e| invalid(format!("corrupt snappy chunk: {e}")))?;
        self.pos = 0;
        Ok(())
    }
}

impl<R: Read> BlockStream for SnappyStreamReader<R> {
    fn block(&mut self) -> (&[u8], &mut usize, bool) {
        (&self.out, &mut self.pos, self.ended)
    }
    fn next(&mut self) -> std::io::Result<()> {
        self.next_chunk()
    }
}

impl<R: Read> Read for SnappyStreamReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        read_blocks(self, buf)
    }
}

/// One line of the log, as `ReplayListenerBus` sees it.
pub struct Line<'a> {
    /// 1-based, counted across a rolling log's files.
    pub number: u64,
    pub file: &'a Path,
    pub text: &'a [u8],
    /// Whether the file ended without a newline after this line (a cut-off last line).
    pub unterminated: bool,
}

/// Streams every line of every file of the log to `each`, one buffer reused throughout.
pub fn for_each_line(
    log: &LogFiles,
    mut each: impl FnMut(Line<'_>) -> Result<(), UserError>,
) -> Result<(), UserError> {
    let mut number = 0u64;
    for file in &log.files {
        let reader = open(file)?;
        lines_of(reader, file, &mut number, &mut each)?;
    }
    Ok(())
}

/// Wraps decompressed bytes in the reader of `codec` (what [`open`] does to a file).
pub fn decoder<'a>(codec: Codec, raw: impl BufRead + 'a) -> Result<Box<dyn BufRead + 'a>, String> {
    Ok(match codec {
        Codec::None => Box::new(raw),
        Codec::Zstd => Box::new(BufReader::new(
            zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| format!("zstd: {e}"))?,
        )),
        Codec::Lz4 => Box::new(BufReader::new(Lz4BlockReader::new(raw))),
        Codec::Snappy => Box::new(BufReader::new(SnappyStreamReader::new(raw))),
    })
}

/// Streams the lines of one decompressed file; `number` counts on across files.
pub fn lines_of(
    mut reader: impl BufRead,
    file: &Path,
    number: &mut u64,
    each: &mut impl FnMut(Line<'_>) -> Result<(), UserError>,
) -> Result<(), UserError> {
    let mut buf = Vec::with_capacity(1 << 12);
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| {
            UserError::file(
                file.display().to_string(),
                format!("cannot read after line {number}: {e}"),
            )
        })?;
        if n == 0 {
            return Ok(());
        }
        *number += 1;
        let unterminated = buf.last() != Some(&b'\n');
        let text = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        each(Line {
            number: *number,
            file,
            text,
            unterminated,
        })?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codec_names_are_sparks_short_names() {
        // EventLogFileReader.codecName: the last dot-suffix, without .inprogress.
        let c = |n: &str| codec_of(Path::new(n));
        assert_eq!(c("app-1").ok(), Some(Codec::None));
        assert_eq!(c("application_1_0001_1.zstd").ok(), Some(Codec::Zstd));
        assert_eq!(c("events_1_app-1.lz4").ok(), Some(Codec::Lz4));
        assert_eq!(c("events_1_app-1.snappy").ok(), Some(Codec::Snappy));
        assert!(c("app.lzf").is_err());
        assert!(c("app.gz").is_err());
    }

    #[test]
    fn an_lz4_block_stream_decodes_and_a_missing_end_block_is_truncation() {
        let text = b"{\"Event\":\"SparkListenerLogStart\"}\n".repeat(50);
        let block = lz4_flex::block::compress(&text);
        let mut s = Vec::new();
        let header = |s: &mut Vec<u8>, method: u8, c: usize, o: usize, check: u32| {
            s.extend_from_slice(LZ4_MAGIC);
            s.push(method);
            s.extend_from_slice(&(c as u32).to_le_bytes());
            s.extend_from_slice(&(o as u32).to_le_bytes());
            s.extend_from_slice(&check.to_le_bytes());
        };
        let check = lz4_block_checksum(&text);
        header(&mut s, LZ4_METHOD_LZ4, block.len(), text.len(), check);
        s.extend_from_slice(&block);
        let open_stream = s.clone();
        header(&mut s, LZ4_METHOD_RAW, 0, 0, 0);
        let mut out = Vec::new();
        Lz4BlockReader::new(&s[..])
            .read_to_end(&mut out)
            .expect("decodes");
        assert_eq!(out, text);
        let err = Lz4BlockReader::new(&open_stream[..]).read_to_end(&mut Vec::new());
        assert!(err.is_err());
    }

    #[test]
    fn an_lz4_block_whose_checksum_does_not_match_is_a_corrupt_stream() {
        // lz4-java LZ4BlockInputStream.refill: "Stream is corrupted" when the XXHash32 of the
        // decoded block differs from the header's, and when an end block's checksum is not 0.
        let text = b"{\"Event\":\"SparkListenerLogStart\"}\n".repeat(10);
        let stream = |check: u32, end_check: u32| {
            let mut s = LZ4_MAGIC.to_vec();
            s.push(LZ4_METHOD_RAW);
            s.extend_from_slice(&(text.len() as u32).to_le_bytes());
            s.extend_from_slice(&(text.len() as u32).to_le_bytes());
            s.extend_from_slice(&check.to_le_bytes());
            s.extend_from_slice(&text);
            s.extend_from_slice(LZ4_MAGIC);
            s.push(LZ4_METHOD_RAW);
            s.extend_from_slice(&[0; 8]);
            s.extend_from_slice(&end_check.to_le_bytes());
            s
        };
        let read = |s: Vec<u8>| Lz4BlockReader::new(&s[..]).read_to_end(&mut Vec::new());
        let good = lz4_block_checksum(&text);
        assert!(read(stream(good, 0)).is_ok());
        let bad = read(stream(good ^ 1, 0)).expect_err("a wrong checksum is refused");
        assert!(bad.to_string().contains("Stream is corrupted"), "{bad}");
        assert!(bad.to_string().contains("block 1"), "{bad}");
        assert!(read(stream(good, 7)).is_err());
    }

    #[test]
    fn a_snappy_java_stream_decodes() {
        let text = b"{\"Event\":\"SparkListenerLogStart\"}\n".repeat(50);
        let mut s = SNAPPY_MAGIC.to_vec();
        s.extend_from_slice(&1u32.to_be_bytes());
        s.extend_from_slice(&1u32.to_be_bytes());
        let block = snap::raw::Encoder::new()
            .compress_vec(&text)
            .expect("compresses");
        s.extend_from_slice(&(block.len() as u32).to_be_bytes());
        s.extend_from_slice(&block);
        let mut out = Vec::new();
        SnappyStreamReader::new(&s[..])
            .read_to_end(&mut out)
            .expect("decodes");
        assert_eq!(out, text);
        let bad = SnappyStreamReader::new(&b"{\"Event\"}"[..]).read_to_end(&mut Vec::new());
        assert!(bad.is_err());
    }
}
