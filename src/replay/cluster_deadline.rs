//! `replay-cluster --deadline GLOB=HH:MM|DURATION`: which applications of the day must end by
//! when (a time of day, UTC, on the day's recorded clock, or a duration after the application's
//! own submission), and whether each met it.

use crate::error::UserError;
use serde::Serialize;

/// What replay-cluster's errors are about when no file is (the command).
pub const COMMAND: &str = "replay-cluster";

/// A day in ms.
const DAY_MS: u64 = 86_400_000;

/// When an application must end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Due {
    /// By this time of day, UTC, ms after midnight (`HH:MM`).
    TimeOfDay { ms_after_midnight: u64 },
    /// Within this long of its own submission (`90min`, `2h`: Spark's time strings).
    Within { ms: u64 },
}

/// One `--deadline GLOB=WHEN`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// The application names it applies to (`*` any run of characters, `?` one).
    pub glob: String,
    pub due: Due,
    /// The words as given, for the report.
    pub text: String,
}

/// An application's deadline and whether it met it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DeadlineOutcome {
    /// The `--deadline` it falls under, as given.
    pub deadline: String,
    /// When it had to end, ms after the day's first submission.
    pub due_at_ms: u64,
    /// It ended (whatever its outcome) by then.
    pub met: bool,
}

fn usage(text: &str, why: &str) -> UserError {
    UserError::file(
        COMMAND,
        format!(
            "--deadline {text}: {why} (expected APP_NAME_GLOB=HH:MM, a time of day UTC, or APP_NAME_GLOB=DURATION such as 90min or 2h)"
        ),
    )
}

/// Parses `--deadline` values.
pub fn parse_deadlines(words: &[String]) -> Result<Vec<Deadline>, UserError> {
    words.iter().map(|w| parse_deadline(w)).collect()
}

fn parse_deadline(text: &str) -> Result<Deadline, UserError> {
    let (glob, when) = text
        .rsplit_once('=')
        .filter(|(g, w)| !g.is_empty() && !w.is_empty())
        .ok_or_else(|| usage(text, "no GLOB=WHEN"))?;
    let due = match when.split_once(':') {
        Some((h, m)) => time_of_day(h, m).ok_or_else(|| usage(text, "not a time of day"))?,
        None => Due::Within {
            ms: crate::replay::whatif::parse_target_p90(when)
                .map_err(|_| usage(text, "not a duration with a unit"))?,
        },
    };
    Ok(Deadline {
        glob: glob.to_string(),
        due,
        text: text.to_string(),
    })
}

fn time_of_day(h: &str, m: &str) -> Option<Due> {
    let digits = |s: &str| s.len() == 2 && s.chars().all(|c| c.is_ascii_digit());
    if !digits(h) || !digits(m) {
        return None;
    }
    let (h, m): (u64, u64) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60).then_some(Due::TimeOfDay {
        ms_after_midnight: (h * 60 + m) * 60_000,
    })
}

/// Whether `name` matches `glob` (`*` any run of characters, `?` one character).
pub fn glob_matches(glob: &str, name: &str) -> bool {
    let (g, n): (Vec<char>, Vec<char>) = (glob.chars().collect(), name.chars().collect());
    let (mut gi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match g.get(gi) {
            Some('*') => {
                star = Some((gi, ni));
                gi += 1;
            }
            Some(&c) if c == '?' || c == n[ni] => {
                gi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sg, sn)) => {
                    gi = sg + 1;
                    ni = sn + 1;
                    star = Some((sg, sn + 1));
                }
                None => return false,
            },
        }
    }
    g[gi..].iter().all(|&c| c == '*')
}

/// The deadline application `name` falls under: none, or one; two that match it is an error
/// naming both and the log.
pub fn deadline_of<'a>(
    deadlines: &'a [Deadline],
    name: &str,
    path: &str,
) -> Result<Option<&'a Deadline>, UserError> {
    let mut matching = deadlines.iter().filter(|d| glob_matches(&d.glob, name));
    let first = matching.next();
    if let (Some(a), Some(b)) = (first, matching.next()) {
        return Err(UserError::file(
            COMMAND,
            format!(
                "--deadline {} and --deadline {} both match application '{name}' ({path}); give each application one deadline",
                a.text, b.text
            ),
        ));
    }
    Ok(first)
}

/// When an application with `deadline`, submitted `submitted_ms` after the day's first
/// submission (recorded at `first_submit_epoch_ms`), had to end, in ms after that first
/// submission: a time of day is the first such time at or after the day's start.
pub fn due_at_ms(deadline: &Deadline, first_submit_epoch_ms: u64, submitted_ms: u64) -> u64 {
    match deadline.due {
        Due::Within { ms } => submitted_ms + ms,
        Due::TimeOfDay { ms_after_midnight } => {
            let into_day = first_submit_epoch_ms % DAY_MS;
            (ms_after_midnight + DAY_MS - into_day) % DAY_MS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_is_a_time_of_day_or_a_duration_with_a_unit() {
        let d = parse_deadlines(&["nightly-*=06:00".into(), "adhoc?=90min".into()]).unwrap();
        assert_eq!(
            d[0].due,
            Due::TimeOfDay {
                ms_after_midnight: 6 * 3_600_000
            }
        );
        assert_eq!(d[1].due, Due::Within { ms: 90 * 60_000 });
        for bad in ["x=25:00", "x=6:00", "x=90", "=06:00", "x="] {
            let e = parse_deadlines(&[bad.into()]).unwrap_err().to_string();
            assert!(e.contains(&format!("--deadline {bad}")), "{e}");
        }
    }

    #[test]
    fn a_glob_matches_any_run_with_a_star_and_one_character_with_a_question_mark() {
        assert!(glob_matches("sparkyard-*", "sparkyard-skew"));
        assert!(glob_matches("*skew", "sparkyard-skew"));
        assert!(glob_matches("s?ew", "skew"));
        assert!(!glob_matches("s?ew", "sparkyard-skew"));
        assert!(glob_matches("*", ""));
        assert!(!glob_matches("etl-*-daily", "etl-x-weekly"));
    }

    #[test]
    fn two_deadlines_of_one_application_are_refused_naming_both_and_its_log() {
        let d = parse_deadlines(&["sparkyard-*=06:00".into(), "*skew=1h".into()]).unwrap();
        let e = deadline_of(&d, "sparkyard-skew", "a.zstd")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sparkyard-*=06:00") && e.contains("*skew=1h") && e.contains("a.zstd"),
            "{e}"
        );
        assert_eq!(
            deadline_of(&d, "sparkyard-multijob", "b").unwrap(),
            Some(&d[0])
        );
    }

    #[test]
    fn a_time_of_day_is_the_next_such_time_after_the_days_first_submission() {
        let d = parse_deadlines(&["*=06:00".into()]).unwrap();
        // First submission at 23:00 UTC: 06:00 is seven hours later, the next morning.
        let eleven_pm = 20 * DAY_MS + 23 * 3_600_000;
        assert_eq!(due_at_ms(&d[0], eleven_pm, 5_000), 7 * 3_600_000);
        // At 05:00: one hour later, the same morning.
        assert_eq!(due_at_ms(&d[0], 20 * DAY_MS + 5 * 3_600_000, 0), 3_600_000);
        let within = parse_deadlines(&["*=2h".into()]).unwrap();
        assert_eq!(
            due_at_ms(&within[0], eleven_pm, 5_000),
            5_000 + 2 * 3_600_000
        );
    }
}
