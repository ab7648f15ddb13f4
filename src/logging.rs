//! Console logging: `log` + `env_logger`, formatted like Spark's log4j layout
//! (`yy/MM/dd HH:mm:ss INFO Client: ...`) on the virtual clock. Targets are
//! `<process kind>::<logger>` (`submit::Client`, `am::YarnAllocator`), so the default shows what
//! spark-submit shows and `--verbose` or `RUST_LOG` opens up the AM, driver and executor lines.

use std::io::Write;

/// What the console shows when neither `--verbose` nor `RUST_LOG` says otherwise.
pub const DEFAULT_FILTER: &str = "submit=info";
/// `--verbose`: every process's INFO lines.
pub const VERBOSE_FILTER: &str = "info";
/// `--quiet`: only spark-submit's warnings and errors.
pub const QUIET_FILTER: &str = "submit=warn";

/// Sweeps: nothing from the runs themselves (their lines would interleave across threads).
pub const SILENT_FILTER: &str = "off";

/// Installs the logger with an explicit default filter; `RUST_LOG` overrides it.
pub fn init_with(filter: &str) {
    let env = env_logger::Env::default().filter_or("RUST_LOG", filter);
    let _ = env_logger::Builder::from_env(env)
        .format(format)
        .target(env_logger::Target::Stderr)
        .try_init();
}

fn format(buf: &mut env_logger::fmt::Formatter, record: &log::Record<'_>) -> std::io::Result<()> {
    let now = sparkyard_actors::kernel::clock::now_epoch_ms();
    let logger = sparkyard_actors::kernel::logs::logger_name(record.target());
    let line =
        sparkyard_actors::kernel::logs::format_line(now, record.level(), logger, *record.args());
    buf.write_all(line.as_bytes())
}

/// Installs the logger; `RUST_LOG` overrides the filter.
pub fn init(verbose: bool, quiet: bool) {
    let filter = if quiet {
        QUIET_FILTER
    } else if verbose {
        VERBOSE_FILTER
    } else {
        DEFAULT_FILTER
    };
    let env = env_logger::Env::default().filter_or("RUST_LOG", filter);
    let _ = env_logger::Builder::from_env(env)
        .format(|buf, record| {
            let now = sparkyard_actors::kernel::clock::now_epoch_ms();
            let logger = sparkyard_actors::kernel::logs::logger_name(record.target());
            let line = sparkyard_actors::kernel::logs::format_line(
                now,
                record.level(),
                logger,
                *record.args(),
            );
            buf.write_all(line.as_bytes())
        })
        .target(env_logger::Target::Stderr)
        .try_init();
}
