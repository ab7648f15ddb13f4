//! Console logging: `log` + `env_logger`, formatted like Spark's log4j layout
//! (`yy/MM/dd HH:mm:ss INFO Client: ...`) on the virtual clock. Targets are
//! `<process kind>::<logger>` (`submit::Client`, `am::YarnAllocator`), so the default shows what
//! spark-submit shows and `--verbose` or `RUST_LOG` opens up the AM, driver and executor lines.

use crate::error::UserError;
use crate::outputs::progress::ConsoleWriter;
use std::io::Write;

/// The process kinds that prefix every log target (`am::YarnAllocator`): what `RUST_LOG` can
/// name. `sparkyard*` and `actix*` are the simulator's own crates.
pub const TARGETS: [&str; 6] = ["submit", "am", "driver", "executor", "yarn", "spark"];
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// Refuses a `RUST_LOG` that names no target sparkyard logs to (`bogus=info`) or no level, so
/// a typo does not silently show nothing.
pub fn check_env() -> Result<(), UserError> {
    match std::env::var("RUST_LOG") {
        Ok(v) => check_filter(&v),
        Err(_) => Ok(()),
    }
}

/// [`check_env`] on one filter text (env_logger's `target=level,...[/regex]`).
pub fn check_filter(filter: &str) -> Result<(), UserError> {
    let spec = filter.split('/').next().unwrap_or("");
    let bad = |m: String| {
        UserError::file(
            format!("RUST_LOG={filter}"),
            format!(
                "{m}; targets are {} (optionally with the logger, e.g. am::YarnAllocator), levels {}; e.g. RUST_LOG=submit=info,am=debug",
                TARGETS.join(", "),
                LEVELS.join(", ")
            ),
        )
    };
    for d in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let (target, level) = match d.split_once('=') {
            Some((t, l)) => (Some(t.trim()), Some(l.trim())),
            None if LEVELS.contains(&d.to_ascii_lowercase().as_str()) => (None, Some(d)),
            None => (Some(d), None),
        };
        if let Some(l) = level.filter(|l| !LEVELS.contains(&l.to_ascii_lowercase().as_str())) {
            return Err(bad(format!("`{l}` is not a log level")));
        }
        if let Some(t) = target {
            let kind = t.split("::").next().unwrap_or("");
            let own = kind.starts_with("sparkyard") || kind == "actix";
            if !TARGETS.contains(&kind) && !own {
                return Err(bad(format!("`{t}` is not a sparkyard log target")));
            }
        }
    }
    Ok(())
}

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
        .target(env_logger::Target::Pipe(Box::new(ConsoleWriter)))
        .try_init();
}

fn format(buf: &mut env_logger::fmt::Formatter, record: &log::Record<'_>) -> std::io::Result<()> {
    let now = sparkyard_actors::simulation::clock::now_epoch_ms();
    let logger = sparkyard_actors::simulation::logs::logger_name(record.target());
    let line = sparkyard_actors::simulation::logs::format_line(
        now,
        record.level(),
        logger,
        *record.args(),
    );
    buf.write_all(line.as_bytes())
}

/// Installs the logger; `RUST_LOG` overrides the filter.
pub fn init(verbose: bool, quiet: bool) {
    init_with(if quiet {
        QUIET_FILTER
    } else if verbose {
        VERBOSE_FILTER
    } else {
        DEFAULT_FILTER
    });
}

#[cfg(test)]
mod tests {
    use super::check_filter;

    #[test]
    fn rust_log_names_a_known_target_and_level() {
        for ok in [
            "info",
            "submit=info",
            "am::YarnAllocator=debug,driver=warn",
            "yarn",
            "off",
            "info/Client",
        ] {
            assert!(check_filter(ok).is_ok(), "{ok}");
        }
        for bad in ["bogus=info", "submit=loud", "nothing"] {
            let e = check_filter(bad).expect_err(bad).to_string();
            assert!(
                e.contains("targets are submit, am, driver, executor, yarn, spark"),
                "{e}"
            );
        }
    }
}
