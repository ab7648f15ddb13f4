//! The virtual clock: one paused current-thread tokio runtime drives every actor, so time only
//! moves when every actor is idle. Times people see are the virtual clock from a fixed epoch.

use std::cell::Cell;
use std::time::Duration;

thread_local! {
    static ORIGIN: Cell<Option<tokio::time::Instant>> = const { Cell::new(None) };
    static EPOCH_MS: Cell<u64> = const { Cell::new(0) };
    /// The last reading of the clock, good until the runtime next parks (`None`: read it).
    static READING: Cell<Option<u64>> = const { Cell::new(None) };
    /// Whether this thread's runtime tells [`READING`] when it parks (the hooks of
    /// [`paused_runtime`] have run): only then may a reading be kept.
    static PARK_HOOKED: Cell<bool> = const { Cell::new(false) };
}

/// Builds the paused runtime the simulation's actix `System` runs on. Its clock only moves
/// when the runtime parks with nothing left to run (tokio's auto-advance), so the park hooks
/// are where a kept reading of the clock goes stale.
///
/// Only the time driver: nothing in a simulation does I/O through tokio (no sockets, no
/// signals), and with the I/O driver every advance of the paused clock polled it with an
/// `epoll_wait(0)` system call. A day of 1,000 NodeManagers heartbeating each second at their
/// own phase advances the clock 86.4 million times; that call was 14 % of the run
/// (BENCHMARKS.md, "A 24-hour day"). Without it the park returns at once and the clock
/// advances the same way: which timers fire, and in which order, does not change.
pub fn paused_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    forget_reading();
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .on_thread_park(time_may_move)
        .on_thread_unpark(time_may_move)
        .build()
}

/// The park hooks: virtual time may move from here on; keep readings from now on.
fn time_may_move() {
    PARK_HOOKED.set(true);
    forget_reading();
}

fn forget_reading() {
    READING.set(None);
}

/// Marks virtual time zero (call once inside the runtime) and the epoch it shows as.
pub fn start(epoch_ms: u64) {
    forget_reading();
    ORIGIN.with(|o| o.set(Some(tokio::time::Instant::now())));
    EPOCH_MS.with(|e| e.set(epoch_ms));
}

/// `tokio::time::advance` for tests that move the paused clock by hand (it does not park):
/// the kept reading goes with it.
pub async fn advance(d: Duration) {
    tokio::time::advance(d).await;
    forget_reading();
}

/// Virtual milliseconds since `start`; 0 outside a simulation. Virtual time only moves while
/// the runtime parks, never between two parks, so one reading serves every handler in
/// between (a task's end for dynamic allocation, then the offer that launches the next task):
/// a tokio clock read (a lock and `Instant` arithmetic, about 150 instructions) once per
/// instant instead of once per task.
#[inline]
pub fn now_ms() -> u64 {
    match READING.get() {
        Some(ms) => ms,
        None => read_and_keep(),
    }
}

#[inline(never)]
fn read_and_keep() -> u64 {
    let ms = read_ms();
    if PARK_HOOKED.get() {
        READING.set(Some(ms));
    }
    ms
}

fn read_ms() -> u64 {
    ORIGIN.with(|o| match o.get() {
        Some(origin) => tokio::time::Instant::now()
            .saturating_duration_since(origin)
            .as_millis() as u64,
        None => 0,
    })
}

/// Virtual wall-clock time, epoch milliseconds (what Spark and YARN print as timestamps).
pub fn now_epoch_ms() -> u64 {
    EPOCH_MS.with(|e| e.get()) + now_ms()
}

/// The epoch of virtual time zero.
pub fn epoch_ms() -> u64 {
    EPOCH_MS.with(|e| e.get())
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// `yy/MM/dd HH:mm:ss` in UTC, log4j's default layout date.
pub fn format_log4j(epoch_ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(epoch_ms);
    format!(
        "{:02}/{:02}/{:02} {:02}:{:02}:{:02}",
        y % 100,
        mo,
        d,
        h,
        mi,
        s
    )
}

/// `yyyy-MM-dd HH:mm:ss.SSS`, the stamp YARN puts in container diagnostics.
pub fn format_yarn(epoch_ms: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(epoch_ms);
    format!(
        "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}.{:03}",
        epoch_ms % 1000
    )
}

/// Splits epoch ms into UTC calendar fields (Howard Hinnant's days-to-civil algorithm).
fn civil(epoch_ms: u64) -> (i64, u32, u32, u64, u64, u64) {
    let secs = epoch_ms / 1000;
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_log4j_and_yarn() {
        // 2025-03-10 14:59:36.804 UTC
        let t = 1_741_618_776_804;
        assert_eq!(format_log4j(t), "25/03/10 14:59:36");
        assert_eq!(format_yarn(t), "2025-03-10 14:59:36.804");
        assert_eq!(format_log4j(0), "70/01/01 00:00:00");
        assert_eq!(format_log4j(951_782_400_000), "00/02/29 00:00:00");
    }

    // A reading is kept until the runtime parks (virtual time moves only then) or a test
    // moves the clock by hand; the reading after either is the new time.
    #[test]
    fn a_reading_lasts_until_the_clock_can_move() {
        let rt = paused_runtime().expect("runtime");
        rt.block_on(async {
            start(0);
            advance(ms(5)).await;
            assert_eq!((now_ms(), now_ms()), (5, 5));
            advance(ms(10)).await;
            assert_eq!(now_ms(), 15);
            // A sleep parks the runtime, which moves the clock to its deadline.
            tokio::time::sleep(ms(7)).await;
            assert_eq!(now_ms(), 22);
            tokio::time::sleep(ms(1)).await;
            assert_eq!(now_ms(), 23);
        });
        // A new runtime (a new simulation on this thread) starts from no reading.
        let rt = paused_runtime().expect("runtime");
        rt.block_on(async {
            start(0);
            assert_eq!(now_ms(), 0);
            tokio::time::sleep(ms(3)).await;
            assert_eq!(now_ms(), 3);
        });
    }
}

/// `EEE MMM dd HH:mm:ss Z yyyy` (UTC), the date YARN's scheduler puts in diagnostics.
pub fn format_java_date(epoch_ms: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, mo, d, h, mi, s) = civil(epoch_ms);
    let weekday = DAYS[((epoch_ms / 86_400_000) % 7) as usize];
    format!(
        "{weekday} {} {d:02} {h:02}:{mi:02}:{s:02} +0000 {y}",
        MONTHS[(mo - 1) as usize]
    )
}

#[cfg(test)]
mod java_date_tests {
    #[test]
    fn java_date() {
        assert_eq!(
            super::format_java_date(1_741_618_776_804),
            "Mon Mar 10 14:59:36 +0000 2025"
        );
    }
}
