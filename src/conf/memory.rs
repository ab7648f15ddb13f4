//! Byte strings (`512m`, `2g`) and time strings (`100s`, `200ms`): owns Spark's unit parsing and
//! its error texts; mirrors `org.apache.spark.network.util.JavaUtils.byteStringAs` /
//! `timeStringAs` and `ByteUnit.convertTo` (Spark 4.0).

use crate::error::UserError;

/// The first line of every byte-string error, exactly as `JavaUtils.byteStringAs` composes it.
const BYTE_ERROR: &str = "Size must be specified as bytes (b), kibibytes (k), mebibytes (m), \
gibibytes (g), tebibytes (t), or pebibytes(p). E.g. 50b, 100k, or 250m.";

/// The first line of every time-string error, exactly as `JavaUtils.timeStringAs` composes it.
const TIME_ERROR: &str = "Time must be specified as seconds (s), milliseconds (ms), \
microseconds (us), minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us.";

/// Java's `Long.MAX_VALUE`: Spark parses into a signed 64-bit long, so nothing above it exists.
const LONG_MAX: u64 = i64::MAX as u64;

/// Binary size units (`org.apache.spark.network.util.ByteUnit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteUnit {
    Byte,
    KiB,
    MiB,
    GiB,
    TiB,
    PiB,
}

impl ByteUnit {
    /// Bytes in one unit.
    pub const fn multiplier(self) -> u64 {
        match self {
            ByteUnit::Byte => 1,
            ByteUnit::KiB => 1 << 10,
            ByteUnit::MiB => 1 << 20,
            ByteUnit::GiB => 1 << 30,
            ByteUnit::TiB => 1 << 40,
            ByteUnit::PiB => 1 << 50,
        }
    }

    /// The Java enum constant's name, which Spark puts in its overflow message.
    pub const fn java_name(self) -> &'static str {
        match self {
            ByteUnit::Byte => "BYTE",
            ByteUnit::KiB => "KiB",
            ByteUnit::MiB => "MiB",
            ByteUnit::GiB => "GiB",
            ByteUnit::TiB => "TiB",
            ByteUnit::PiB => "PiB",
        }
    }

    /// `JavaUtils.byteSuffixes`: lower-case, binary, with and without the trailing `b`.
    fn from_suffix(suffix: &str) -> Option<ByteUnit> {
        Some(match suffix {
            "b" => ByteUnit::Byte,
            "k" | "kb" => ByteUnit::KiB,
            "m" | "mb" => ByteUnit::MiB,
            "g" | "gb" => ByteUnit::GiB,
            "t" | "tb" => ByteUnit::TiB,
            "p" | "pb" => ByteUnit::PiB,
            _ => return None,
        })
    }

    /// The unit a suffix names, the caller's unit when there is no suffix, `None` if unknown.
    fn from_suffix_or_default(suffix: &str, default: ByteUnit) -> Option<ByteUnit> {
        if suffix.is_empty() {
            Some(default)
        } else {
            ByteUnit::from_suffix(suffix)
        }
    }

    /// `ByteUnit.convertTo(d, to)` with `self` as the unit `d` is in: truncates when going to a
    /// larger unit, refuses (IllegalArgumentException, not wrapped by byteStringAs) past Long.MAX.
    fn convert_to(self, d: u64, to: ByteUnit) -> Result<u64, UserError> {
        if self.multiplier() > to.multiplier() {
            let ratio = self.multiplier() / to.multiplier();
            if LONG_MAX / ratio < d {
                return Err(UserError::illegal_argument(format!(
                    "Conversion of {d} exceeds Long.MAX_VALUE in {}. \
                     Try a larger unit (e.g. MiB instead of KiB)",
                    self.java_name()
                )));
            }
            Ok(d * ratio)
        } else {
            Ok(d / (to.multiplier() / self.multiplier()))
        }
    }
}

/// Time units Spark's time strings can name (`java.util.concurrent.TimeUnit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Microseconds,
    Milliseconds,
    Seconds,
    Minutes,
    Hours,
    Days,
}

impl TimeUnit {
    /// Microseconds in one unit (the finest unit Spark's suffixes name).
    const fn micros(self) -> i128 {
        match self {
            TimeUnit::Microseconds => 1,
            TimeUnit::Milliseconds => 1_000,
            TimeUnit::Seconds => 1_000_000,
            TimeUnit::Minutes => 60_000_000,
            TimeUnit::Hours => 3_600_000_000,
            TimeUnit::Days => 86_400_000_000,
        }
    }

    /// `JavaUtils.timeSuffixes`.
    fn from_suffix(suffix: &str) -> Option<TimeUnit> {
        Some(match suffix {
            "us" => TimeUnit::Microseconds,
            "ms" => TimeUnit::Milliseconds,
            "s" => TimeUnit::Seconds,
            "m" | "min" => TimeUnit::Minutes,
            "h" => TimeUnit::Hours,
            "d" => TimeUnit::Days,
            _ => return None,
        })
    }

    /// `TimeUnit.convert`: truncates toward zero and saturates at Long.MAX_VALUE, as Java does.
    fn convert_from(self, value: i64, from: TimeUnit) -> i64 {
        let converted = i128::from(value) * from.micros() / self.micros();
        converted.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }
}

/// Java's `String.toLowerCase(Locale.ROOT).trim()`: `trim` drops every char <= U+0020.
fn java_lower_trim(input: &str) -> String {
    input
        .to_lowercase()
        .trim_matches(|c: char| c <= ' ')
        .to_string()
}

/// Splits a leading run of ASCII digits from the rest: `("512", "mb")`.
fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at(end)
}

/// True for the optional `([a-z]+)?` group of Spark's patterns.
fn is_suffix(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_lowercase())
}

/// `Long.parseLong` on a run of digits (optionally signed), with Java's overflow message.
fn parse_java_long(digits: &str) -> Result<i64, String> {
    digits
        .parse::<i64>()
        .map_err(|_| format!("For input string: \"{digits}\""))
}

/// `BYTE_STRING_FRACTION_PATTERN` `([0-9]+\.[0-9]+)([a-z]+)?`: returns the number part.
fn fractional_number(lower: &str) -> Option<&str> {
    let (int_part, rest) = split_digits(lower);
    let frac = rest.strip_prefix('.')?;
    let (frac_digits, suffix) = split_digits(frac);
    let ok = !int_part.is_empty() && !frac_digits.is_empty() && is_suffix(suffix);
    ok.then(|| &lower[..int_part.len() + 1 + frac_digits.len()])
}

/// Converts a byte string (`50b`, `100k`, `250m`, `2G`) to `unit`; a bare number is already in
/// `unit`. Mirrors `JavaUtils.byteStringAs`, including its two-line NumberFormatException texts.
pub fn byte_string_as(input: &str, unit: ByteUnit) -> Result<u64, UserError> {
    let lower = java_lower_trim(input);
    let (digits, suffix) = split_digits(&lower);
    let second_line = if !digits.is_empty() && is_suffix(suffix) {
        match ByteUnit::from_suffix_or_default(suffix, unit) {
            Some(from) => match parse_java_long(digits) {
                // A matched digit run is never negative, so the cast cannot wrap.
                Ok(value) => return from.convert_to(value as u64, unit),
                Err(message) => message,
            },
            None => format!("Invalid suffix: \"{suffix}\""),
        }
    } else if let Some(number) = fractional_number(&lower) {
        format!("Fractional values are not supported. Input was: {number}")
    } else {
        format!("Failed to parse byte string: {input}")
    };
    Err(UserError::number_format(format!(
        "{BYTE_ERROR}\n{second_line}"
    )))
}

/// `JavaUtils.byteStringAsBytes`: a bare number is bytes.
pub fn byte_string_as_bytes(input: &str) -> Result<u64, UserError> {
    byte_string_as(input, ByteUnit::Byte)
}

/// `JavaUtils.byteStringAsKb`: a bare number is KiB.
pub fn byte_string_as_kb(input: &str) -> Result<u64, UserError> {
    byte_string_as(input, ByteUnit::KiB)
}

/// `JavaUtils.byteStringAsMb`: a bare number is MiB (the unit of `spark.executor.memory`).
pub fn byte_string_as_mb(input: &str) -> Result<u64, UserError> {
    byte_string_as(input, ByteUnit::MiB)
}

/// `JavaUtils.byteStringAsGb`: a bare number is GiB.
pub fn byte_string_as_gb(input: &str) -> Result<u64, UserError> {
    byte_string_as(input, ByteUnit::GiB)
}

/// Splits `TIME_STRING_PATTERN` `(-?[0-9]+)([a-z]+)?` into (signed number, suffix).
fn split_time(lower: &str) -> Option<(&str, &str)> {
    let unsigned = lower.strip_prefix('-').unwrap_or(lower);
    let (digits, suffix) = split_digits(unsigned);
    let sign_len = lower.len() - unsigned.len();
    let ok = !digits.is_empty() && is_suffix(suffix);
    ok.then(|| (&lower[..sign_len + digits.len()], suffix))
}

/// The second line of a time-string error, or the parsed value (still signed).
fn parse_time(input: &str, lower: &str, unit: TimeUnit) -> Result<i64, String> {
    let Some((number, suffix)) = split_time(lower) else {
        return Err(format!("Failed to parse time string: {input}"));
    };
    let value = parse_java_long(number)?;
    let from = if suffix.is_empty() {
        unit
    } else {
        TimeUnit::from_suffix(suffix).ok_or_else(|| format!("Invalid suffix: \"{suffix}\""))?
    };
    Ok(unit.convert_from(value, from))
}

/// Converts a time string (`50s`, `100ms`, `250us`, `5min`) to `unit`; a bare number is already
/// in `unit`. Mirrors `JavaUtils.timeStringAs`. Spark accepts a leading `-`; sparkyard has no use
/// for negative durations, so they are refused with the same first line and a plain second one.
pub fn time_string_as(input: &str, unit: TimeUnit) -> Result<u64, UserError> {
    let lower = java_lower_trim(input);
    let second_line = match parse_time(input, &lower, unit) {
        Ok(value) if value >= 0 => return Ok(value as u64),
        Ok(_) => format!("Negative durations are not supported by sparkyard: {input}"),
        Err(message) => message,
    };
    Err(UserError::number_format(format!(
        "{TIME_ERROR}\n{second_line}"
    )))
}

/// `JavaUtils.timeStringAsMs`: a bare number is milliseconds.
pub fn time_string_as_ms(input: &str) -> Result<u64, UserError> {
    time_string_as(input, TimeUnit::Milliseconds)
}

/// `JavaUtils.timeStringAsSec`: a bare number is seconds.
pub fn time_string_as_sec(input: &str) -> Result<u64, UserError> {
    time_string_as(input, TimeUnit::Seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nfe(second_line: &str, first: &str) -> UserError {
        UserError::number_format(format!("{first}\n{second_line}"))
    }

    fn byte_err(second_line: &str) -> UserError {
        nfe(second_line, BYTE_ERROR)
    }

    #[test]
    fn byte_error_first_line_is_spark_text() {
        assert_eq!(
            BYTE_ERROR,
            "Size must be specified as bytes (b), kibibytes (k), mebibytes (m), gibibytes (g), \
             tebibytes (t), or pebibytes(p). E.g. 50b, 100k, or 250m."
        );
    }

    #[test]
    fn memory_strings_with_suffixes() {
        assert_eq!(byte_string_as_mb("2g"), Ok(2048));
        assert_eq!(byte_string_as_mb("2G"), Ok(2048));
        assert_eq!(byte_string_as_mb("2gb"), Ok(2048));
        assert_eq!(byte_string_as_mb(" 512M "), Ok(512));
        assert_eq!(byte_string_as_mb("512m"), Ok(512));
        assert_eq!(byte_string_as_bytes("1k"), Ok(1024));
        assert_eq!(byte_string_as_mb("1t"), Ok(1024 * 1024));
        assert_eq!(byte_string_as_gb("1p"), Ok(1024 * 1024));
    }

    #[test]
    fn bare_number_uses_default_unit() {
        assert_eq!(byte_string_as_mb("1024"), Ok(1024));
        assert_eq!(byte_string_as_bytes("1024"), Ok(1024));
        assert_eq!(byte_string_as_kb("7"), Ok(7));
    }

    #[test]
    fn smaller_unit_truncates_like_java() {
        assert_eq!(byte_string_as_mb("1000k"), Ok(0));
        assert_eq!(byte_string_as_mb("1536k"), Ok(1));
        assert_eq!(byte_string_as_gb("1536m"), Ok(1));
    }

    #[test]
    fn fraction_is_refused() {
        assert_eq!(
            byte_string_as_mb("1.5g"),
            Err(byte_err(
                "Fractional values are not supported. Input was: 1.5"
            ))
        );
    }

    #[test]
    fn negative_and_garbage_fail_to_parse() {
        assert_eq!(
            byte_string_as_mb("-1g"),
            Err(byte_err("Failed to parse byte string: -1g"))
        );
        assert_eq!(
            byte_string_as_mb(""),
            Err(byte_err("Failed to parse byte string: "))
        );
        assert_eq!(
            byte_string_as_mb("g"),
            Err(byte_err("Failed to parse byte string: g"))
        );
        assert_eq!(
            byte_string_as_mb("1 g"),
            Err(byte_err("Failed to parse byte string: 1 g"))
        );
    }

    #[test]
    fn original_input_is_quoted() {
        assert_eq!(
            byte_string_as_mb(" X1 "),
            Err(byte_err("Failed to parse byte string:  X1 "))
        );
    }

    #[test]
    fn bad_suffixes() {
        assert_eq!(
            byte_string_as_mb("10q"),
            Err(byte_err("Invalid suffix: \"q\""))
        );
        assert_eq!(
            byte_string_as_mb("1gi"),
            Err(byte_err("Invalid suffix: \"gi\""))
        );
        assert_eq!(
            byte_string_as_mb("1GiB"),
            Err(byte_err("Invalid suffix: \"gib\""))
        );
    }

    #[test]
    fn huge_numbers_are_errors() {
        assert_eq!(
            byte_string_as_mb("99999999999999999999g"),
            Err(byte_err("For input string: \"99999999999999999999\""))
        );
        assert_eq!(
            byte_string_as_bytes("9223372036854775807"),
            Ok(9223372036854775807)
        );
        assert_eq!(
            byte_string_as_bytes("9000000p"),
            Err(UserError::illegal_argument(
                "Conversion of 9000000 exceeds Long.MAX_VALUE in PiB. \
                 Try a larger unit (e.g. MiB instead of KiB)"
            ))
        );
        assert_eq!(byte_string_as_mb("8191p"), Ok(8191 << 30));
    }

    fn time_err(second_line: &str) -> UserError {
        nfe(second_line, TIME_ERROR)
    }

    #[test]
    fn time_strings() {
        assert_eq!(time_string_as_ms("100s"), Ok(100_000));
        assert_eq!(time_string_as_ms("200ms"), Ok(200));
        assert_eq!(time_string_as_ms("1500us"), Ok(1));
        assert_eq!(time_string_as_ms("2m"), Ok(120_000));
        assert_eq!(time_string_as_ms("2min"), Ok(120_000));
        assert_eq!(time_string_as_ms("1h"), Ok(3_600_000));
        assert_eq!(time_string_as_ms("1d"), Ok(86_400_000));
        assert_eq!(time_string_as_ms(" 3S "), Ok(3000));
        assert_eq!(time_string_as_ms("250"), Ok(250));
        assert_eq!(time_string_as_sec("120"), Ok(120));
        assert_eq!(time_string_as_sec("1500ms"), Ok(1));
    }

    #[test]
    fn time_saturates_like_java() {
        assert_eq!(
            time_string_as(&format!("{}d", i64::MAX), TimeUnit::Microseconds),
            Ok(LONG_MAX)
        );
    }

    #[test]
    fn time_errors() {
        assert_eq!(
            time_string_as_ms("10x"),
            Err(time_err("Invalid suffix: \"x\""))
        );
        assert_eq!(
            time_string_as_ms("1.5s"),
            Err(time_err("Failed to parse time string: 1.5s"))
        );
        assert_eq!(
            time_string_as_ms(""),
            Err(time_err("Failed to parse time string: "))
        );
        assert_eq!(
            time_string_as_ms("99999999999999999999s"),
            Err(time_err("For input string: \"99999999999999999999\""))
        );
        assert_eq!(
            time_string_as_ms("-1s"),
            Err(time_err(
                "Negative durations are not supported by sparkyard: -1s"
            ))
        );
        assert_eq!(time_string_as_ms("-0s"), Ok(0));
    }

    #[test]
    fn time_error_first_line_is_spark_text() {
        assert_eq!(
            TIME_ERROR,
            "Time must be specified as seconds (s), milliseconds (ms), microseconds (us), \
             minutes (m or min), hour (h), or day (d). E.g. 50s, 100ms, or 250us."
        );
    }
}
