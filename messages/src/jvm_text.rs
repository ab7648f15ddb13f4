//! How the JVM prints values in the texts Spark and Hadoop write: Java's `Double.toString` and
//! `String.format("%.Nf")`, Spark's `Utils.bytesToString` and `Utils.msDurationToString`, Scala's
//! `FiniteDuration.toString` and Scala 2.13's collection `toString`s (`List(...)`,
//! `HashSet(...)`), `seq.toMap`'s iteration order, `String.hashCode` and `Utils.splitCommandString`. One home, so a log line,
//! an exception text and the event log print a value the same way (issue 29 item 5). Pure
//! functions; the tests take their expected texts from a JVM (OpenJDK 17.0.15, `javac` + `java`
//! on this project's machine) and Spark's own sources.

/// An unsigned integer in decimal, as `Long.toString` (and Rust's `{}`) prints it, made without
/// `core::fmt`'s padding machinery: captured log lines print several ids each (task names, TIDs)
/// and that machinery was most of a line's cost.
pub struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    pub fn new(mut n: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        Decimal { digits, start }
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.digits[self.start..]).expect("ASCII digits")
    }

    /// The digits as characters, for pushing one by one where a `&str` would be checked as
    /// UTF-8 and copied with a call to `memcpy` (more than a few digits cost).
    pub fn chars(&self) -> impl Iterator<Item = char> + '_ {
        self.digits[self.start..].iter().map(|&d| char::from(d))
    }
}

/// Java's `Double.toString`: the fewest digits that read back to the same double, the closest
/// such decimal (a tie to the even digit), in plain notation for magnitudes in [1e-3, 1e7) and
/// as `d.dddE[-]n` otherwise, always with a fraction. Checked against OpenJDK 17.0.15 on 700,000
/// doubles (random bits, thousandths, binary fractions, floats): identical for every magnitude
/// below 1e13; above it JDK 17's `FloatingDecimal` sometimes prints one more digit
/// (`-2.31845256772633248E17`, and `9.999999999999999E22` for `1.0E23`), which JDK 19+ does not.
pub fn double_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let a = x.abs();
    if a == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    if (1e-3..1e7).contains(&a) {
        return plain(&scientific(x));
    }
    let s = scientific(x);
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    if mantissa.contains('.') {
        format!("{mantissa}E{exp}")
    } else {
        format!("{mantissa}.0E{exp}")
    }
}

/// `x` as `d.ddde[-]n` with Java's digits: the fewest that read back to `x` (Rust's `{:e}`),
/// and of those the decimal closest to `x`, an exact tie going to the even digit (Rust's
/// shortest form breaks such a tie upwards: `0.5579605102539063` where Java prints `...062`).
fn scientific(x: f64) -> String {
    let shortest = format!("{x:e}");
    let digits = shortest
        .split('e')
        .next()
        .map_or(0, |m| m.bytes().filter(u8::is_ascii_digit).count());
    // `{:.N e}` is exact and rounds half to even: the closest decimal of that many digits.
    let closest = format!("{x:.*e}", digits.saturating_sub(1));
    if closest.parse::<f64>() == Ok(x) {
        closest
    } else {
        shortest
    }
}

/// `d.ddde[-]n` in plain notation with at least one fraction digit (`1.5e2` -> `150.0`).
fn plain(scientific: &str) -> String {
    let (mantissa, exp) = scientific.split_once('e').unwrap_or((scientific, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exp + 1; // digits before the decimal point
    let (int, frac) = if point <= 0 {
        (
            "0".to_string(),
            format!("{}{digits}", "0".repeat((-point) as usize)),
        )
    } else if point as usize >= digits.len() {
        let zeros = "0".repeat(point as usize - digits.len());
        (format!("{digits}{zeros}"), String::new())
    } else {
        let (i, f) = digits.split_at(point as usize);
        (i.to_string(), f.to_string())
    };
    let frac = if frac.is_empty() {
        "0".to_string()
    } else {
        frac
    };
    format!("{sign}{int}.{frac}")
}

/// Java's `String.format(Locale.US, "%.<decimals>f", x)`: `java.util.Formatter` rounds the
/// value's `Double.toString` digits half up (`RoundingMode.HALF_UP`), so `0.25` prints `0.3` and
/// `2.675` prints `2.68` where Rust's `{:.1}` / `{:.2}` (half-even on the binary value) print
/// `0.2` and `2.67`. A `float` argument is widened to `double` first (`print(float)` calls
/// `print((double) value)`): pass `f32 as f64`, so `1.05f` prints `1.0`.
pub fn format_fixed(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return double_to_string(x);
    }
    let (negative, digits, exp) = shortest_digits(x);
    // The value is 0.d1d2d3... x 10^exp; keep `exp + decimals` digits, rounding half up.
    let keep = exp + decimals as i64;
    let mut kept: Vec<u8> = if keep <= 0 {
        Vec::new()
    } else {
        let k = keep as usize;
        let mut v: Vec<u8> = digits.iter().copied().take(k).collect();
        v.resize(k, 0);
        v
    };
    let next = if keep < 0 {
        0
    } else {
        digits.get(keep as usize).copied().unwrap_or(0)
    };
    let mut int_len = exp.max(0) as usize;
    if next >= 5 {
        if increment(&mut kept) {
            kept.insert(0, 1);
            int_len += 1;
        }
        if keep <= 0 && !kept.is_empty() {
            // Rounding up from below the last kept place: the value became 10^-decimals.
            int_len = 0;
        }
    }
    let total = int_len + decimals;
    let mut all = vec![0u8; total.saturating_sub(kept.len())];
    all.extend(kept);
    let (int_part, frac_part) = all.split_at(all.len() - decimals);
    let text = |d: &[u8]| d.iter().map(|&b| (b'0' + b) as char).collect::<String>();
    let int_text = if int_part.is_empty() {
        "0".to_string()
    } else {
        text(int_part)
    };
    let sign = if negative { "-" } else { "" };
    if decimals == 0 {
        format!("{sign}{int_text}")
    } else {
        format!("{sign}{int_text}.{}", text(frac_part))
    }
}

/// Adds one at the last digit; true when it carries out of the first.
fn increment(digits: &mut [u8]) -> bool {
    for d in digits.iter_mut().rev() {
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            return false;
        }
    }
    true
}

/// The sign, the shortest decimal digits and the exponent `e` of `x` = 0.d1d2... x 10^e
/// (zero: no digits).
fn shortest_digits(x: f64) -> (bool, Vec<u8>, i64) {
    let negative = x.is_sign_negative() && x != 0.0;
    if x == 0.0 {
        return (false, Vec::new(), 0);
    }
    let s = scientific(x.abs());
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: Vec<u8> = mantissa
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    let exp: i64 = exp.parse().unwrap_or(0);
    (negative, digits, exp + 1)
}

/// Spark's `Utils.bytesToString`: the largest binary unit of which `size` is at least two, one
/// decimal rounded half up (`"%.1f %s"` of a BigDecimal), e.g. `434.4 MiB`, `4.6 GiB`.
pub fn bytes_to_string(size: u64) -> String {
    const UNITS: [(u32, &str); 6] = [
        (60, "EiB"),
        (50, "PiB"),
        (40, "TiB"),
        (30, "GiB"),
        (20, "MiB"),
        (10, "KiB"),
    ];
    let (shift, unit) = UNITS
        .iter()
        .copied()
        .find(|(shift, _)| u128::from(size) >= 2u128 << shift)
        .unwrap_or((0, "B"));
    let unit_bytes = 1u128 << shift;
    // Tenths of a unit, rounded half up: floor((20 x size + unit) / (2 x unit)).
    let tenths = (20 * u128::from(size) + unit_bytes) / (2 * unit_bytes);
    format!("{}.{} {unit}", tenths / 10, tenths % 10)
}

/// Spark's `Utils.msDurationToString`: `%d ms` under a second, then `%.1f s`, `%.1f m` and
/// `%.2f h` of `ms.toFloat / unit` (a float, widened to double by the Formatter).
pub fn ms_duration_to_string(ms: u64) -> String {
    const SECOND: u64 = 1000;
    const MINUTE: u64 = 60 * SECOND;
    const HOUR: u64 = 60 * MINUTE;
    let float = |unit: u64| f64::from(ms as f32 / unit as f32);
    match ms {
        t if t < SECOND => format!("{t} ms"),
        t if t < MINUTE => format!("{} s", format_fixed(float(SECOND), 1)),
        t if t < HOUR => format!("{} m", format_fixed(float(MINUTE), 1)),
        _ => format!("{} h", format_fixed(float(HOUR), 2)),
    }
}

/// Scala's `FiniteDuration.toString` for a whole number of ms, as Spark's `RpcTimeout` prints
/// it: `120 seconds`, `1 second`, `1500 milliseconds`.
pub fn finite_duration(ms: u64) -> String {
    let plural = |n: u64, unit: &str| {
        if n == 1 {
            format!("1 {unit}")
        } else {
            format!("{n} {unit}s")
        }
    };
    if ms.is_multiple_of(1000) {
        plural(ms / 1000, "second")
    } else {
        plural(ms, "millisecond")
    }
}

/// Scala 2.13's `toString` of a sequence: `List(a, b)`, `ArrayBuffer(a, b)`, `Vector()`...
/// (`IterableOnceOps.mkString(className + "(", ", ", ")")`).
pub fn scala_seq<S: AsRef<str>>(class: &str, items: impl IntoIterator<Item = S>) -> String {
    let items: Vec<S> = items.into_iter().collect();
    let parts: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    format!("{class}({})", parts.join(", "))
}

/// `List(a, b)`: Scala 2.13's `List.toString`.
pub fn scala_list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    scala_seq("List", items)
}

/// Scala 2.13's `mutable.HashSet.toString` of elements whose `hashCode` is the given int (a
/// Spark `Stage` hashes to its id), in the set's iteration order (`scala_hash_order`); this
/// takes the table the current size needs (a set that once held more elements keeps its larger
/// table in Scala).
pub fn scala_mutable_hash_set<S: AsRef<str>>(
    elements: impl IntoIterator<Item = (i32, S)>,
) -> String {
    let elements: Vec<(i32, S)> = elements.into_iter().collect();
    let entries = elements.len();
    let ordered = scala_hash_order(elements, entries);
    scala_seq("HashSet", ordered.iter().map(AsRef::as_ref))
}

/// The buckets of a Scala 2.13 `mutable.HashMap` / `HashSet` after `entries` single adds: 16,
/// doubled before the add that brings the size to 0.75 of the table (`put0` and `add` in
/// scala-library 2.13.16: `if (contentSize + 1 >= threshold) growTable(length * 2)`).
pub fn scala_hash_table_size(entries: usize) -> usize {
    let mut table = 16usize;
    while entries >= table / 4 * 3 {
        table *= 2;
    }
    table
}

/// The iteration order of a Scala 2.13 mutable hash table (HashSet, HashMap) whose keys hash to
/// the given ints and which has held `entries` keys: buckets in index order, a key's bucket its
/// improved hash (`h ^ (h >>> 16)`) masked by the table's size, a bucket's keys in ascending
/// improved hash.
pub fn scala_hash_order<T>(keys: Vec<(i32, T)>, entries: usize) -> Vec<T> {
    let mask = (scala_hash_table_size(entries.max(keys.len())) - 1) as u32;
    let mut keyed: Vec<(u32, T)> = keys
        .into_iter()
        .map(|(h, t)| {
            let h = h as u32;
            (h ^ (h >> 16), t)
        })
        .collect();
    keyed.sort_by_key(|(h, _)| (h & mask, *h));
    keyed.into_iter().map(|(_, t)| t).collect()
}

/// A `Long` key's hash in Scala (`Statics.anyHash` -> `longHash`): the int itself when the
/// value fits one, else `java.lang.Long.hashCode`.
pub fn scala_long_hash(v: i64) -> i32 {
    match i32::try_from(v) {
        Ok(i) => i,
        Err(_) => ((v as u64) ^ ((v as u64) >> 32)) as i32,
    }
}

/// The iteration order of `seq.toMap` in Scala 2.13.16 for distinct string keys: up to 4
/// entries a `Map1`..`Map4` keeps the sequence's order; beyond, an `immutable.HashMap` (CHAMP
/// trie) yields, node by node from the root, the node's own entries by their 5-bit hash chunk,
/// then its sub-nodes by chunk, depth first. A key's hash is `Hashing.improve(String.hashCode)`
/// and each level reads the next 5 bits from the lowest; keys whose whole hashes collide stay
/// in insertion order.
pub fn scala_map_order<K: AsRef<str>, V>(pairs: Vec<(K, V)>) -> Vec<(K, V)> {
    if pairs.len() <= 4 {
        return pairs;
    }
    let hashed: Vec<(u32, (K, V))> = pairs
        .into_iter()
        .map(|p| (improve(java_string_hash(p.0.as_ref()) as u32), p))
        .collect();
    let mut out = Vec::with_capacity(hashed.len());
    champ_order(hashed, 0, &mut out);
    out
}

/// One trie node holding `entries` (all sharing the chunks above `shift`).
fn champ_order<T>(entries: Vec<(u32, T)>, shift: u32, out: &mut Vec<T>) {
    if shift >= 32 {
        out.extend(entries.into_iter().map(|(_, t)| t));
        return;
    }
    let mut by_chunk: std::collections::BTreeMap<u32, Vec<(u32, T)>> =
        std::collections::BTreeMap::new();
    for (h, t) in entries {
        by_chunk.entry((h >> shift) & 31).or_default().push((h, t));
    }
    let mut nodes = Vec::new();
    for group in by_chunk.into_values() {
        if group.len() == 1 {
            out.extend(group.into_iter().map(|(_, t)| t));
        } else {
            nodes.push(group);
        }
    }
    for group in nodes {
        champ_order(group, shift + 5, out);
    }
}

/// The iteration order of a `java.util.concurrent.ConcurrentHashMap` of string keys put in
/// `pairs`' order (no removals): bin by bin, a bin's index the key's `spread` hash (`h ^ (h >>>
/// 16)`) masked by the table's size (16, doubled when the count reaches three quarters of it),
/// a bin's keys in the order they were put (new nodes go at its list's tail). Spark's
/// `ExecutorResourceRequests` / `TaskResourceRequests` keep their requests in one.
pub fn java_concurrent_map_order<K: AsRef<str>, V>(pairs: Vec<(K, V)>) -> Vec<(K, V)> {
    let mut table = 16usize;
    while pairs.len() >= table / 4 * 3 {
        table *= 2;
    }
    let mask = (table - 1) as u32;
    let mut keyed: Vec<(u32, (K, V))> = pairs
        .into_iter()
        .map(|p| {
            let h = java_string_hash(p.0.as_ref()) as u32;
            ((h ^ (h >> 16)) & mask, p)
        })
        .collect();
    // A stable sort: a bin keeps its keys in the order they were put.
    keyed.sort_by_key(|(bin, _)| *bin);
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// `java.lang.String.hashCode`: `31 * h + c` over UTF-16 code units.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// `scala.collection.Hashing.improve` (scala-library 2.13.16).
fn improve(hcode: u32) -> u32 {
    let mut h = hcode.wrapping_add(!(hcode << 9));
    h ^= h >> 14;
    h = h.wrapping_add(h << 4);
    h ^ (h >> 10)
}

/// `Utils.splitCommandString`: words split on whitespace, single and double quotes grouping
/// (and removed), a backslash in double quotes taking the next character as is.
pub fn split_command_string(s: &str) -> Vec<String> {
    // Without quotes (Spark's default executor options, read at every AM attempt) the words
    // are the whitespace-separated runs; building them a char at a time cost far more.
    if !s.contains(['"', '\'']) {
        return s.split_whitespace().map(str::to_owned).collect();
    }
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut in_word, mut single, mut double) = (false, false, false);
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if double {
            match c {
                '"' => double = false,
                '\\' => word.extend(chars.next()),
                _ => word.push(c),
            }
        } else if single {
            match c {
                '\'' => single = false,
                _ => word.push(c),
            }
        } else if c == '"' || c == '\'' {
            in_word = true;
            double = c == '"';
            single = c == '\'';
        } else if !c.is_whitespace() {
            word.push(c);
            in_word = true;
        } else if in_word {
            words.push(std::mem::take(&mut word));
            in_word = false;
        }
    }
    if in_word || single || double {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Long.toString` of non-negative longs (what `{}` prints), at every digit count.
    #[test]
    fn decimals_print_as_long_to_string() {
        let mut n = 0u64;
        for digits in 1..=20 {
            for v in [n, n.saturating_add(7), n.saturating_mul(9).max(9)] {
                assert_eq!(Decimal::new(v).as_str(), v.to_string(), "{digits} digits");
            }
            n = if n == 0 { 10 } else { n.saturating_mul(10) };
        }
        assert_eq!(Decimal::new(u64::MAX).as_str(), "18446744073709551615");
    }

    /// `Double.toString` on OpenJDK 17.0.15 (`System.out.println(Double.toString(x))`).
    #[test]
    fn doubles_print_as_java_prints_them() {
        let cases: &[(f64, &str)] = &[
            (1.0, "1.0"),
            (-0.5, "-0.5"),
            (1.5e-5, "1.5E-5"),
            (12345678.9, "1.23456789E7"),
            (0.001, "0.001"),
            (1e7, "1.0E7"),
            (9999999.0, "9999999.0"),
            (10000000.0, "1.0E7"),
            (3084.0, "3084.0"),
            (1500.5, "1500.5"),
            (2e7, "2.0E7"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (123456.789e3, "1.23456789E8"),
            (4.35, "4.35"),
            (1.7976931348623157E308, "1.7976931348623157E308"),
            // A tie between two 16-digit decimals goes to the even digit, as in Java.
            (0.5579605102539063, "0.5579605102539062"),
            (1.8358230590820312E-4, "1.8358230590820312E-4"),
            (192.59500122070312, "192.59500122070312"),
            (0.0123, "0.0123"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(x, text) in cases {
            assert_eq!(double_to_string(x), text, "{x:?}");
        }
    }

    /// `String.format(Locale.US, "%.1f" / "%.2f", x)` on OpenJDK 17.0.15: half up on the
    /// decimal digits, a float widened to double.
    #[test]
    fn fixed_decimals_round_half_up_as_java_formatter() {
        let cases: &[(f64, &str, &str)] = &[
            (0.25, "0.3", "0.25"),
            (1.25, "1.3", "1.25"),
            (0.05, "0.1", "0.05"),
            (2.675, "2.7", "2.68"),
            (1.5, "1.5", "1.50"),
            (0.125, "0.1", "0.13"),
            (1023.95, "1024.0", "1023.95"),
            (1.2499999, "1.2", "1.25"),
            (0.35, "0.4", "0.35"),
            (2.0 / 3.0, "0.7", "0.67"),
            (1e7, "10000000.0", "10000000.00"),
            (123456.75, "123456.8", "123456.75"),
            (0.0, "0.0", "0.00"),
            (9.95, "10.0", "9.95"),
            (99.95, "100.0", "99.95"),
            (f64::from(1.45f32), "1.5", "1.45"),
            (f64::from(1.05f32), "1.0", "1.05"),
            (f64::from(59.95f32), "60.0", "59.95"),
            (0.004, "0.0", "0.00"),
            (0.005, "0.0", "0.01"),
            (-1.25, "-1.3", "-1.25"),
        ];
        for &(x, one, two) in cases {
            assert_eq!(format_fixed(x, 1), one, "{x:?} %.1f");
            assert_eq!(format_fixed(x, 2), two, "{x:?} %.2f");
        }
        assert_eq!(format_fixed(2.5, 0), "3");
    }

    /// `Utils.msDurationToString`, its branches computed on OpenJDK 17.0.15 as Spark's code does.
    #[test]
    fn ms_durations_as_spark_utils() {
        let cases: &[(u64, &str)] = &[
            (0, "0 ms"),
            (999, "999 ms"),
            (1000, "1.0 s"),
            (1050, "1.0 s"),
            (1051, "1.1 s"),
            (1250, "1.3 s"),
            (59949, "59.9 s"),
            (59950, "60.0 s"),
            (60000, "1.0 m"),
            (90000, "1.5 m"),
            (3599999, "60.0 m"),
            (3600000, "1.00 h"),
            (5400000, "1.50 h"),
            (86400000, "24.00 h"),
            (1234567890, "342.94 h"),
        ];
        for &(ms, text) in cases {
            assert_eq!(ms_duration_to_string(ms), text, "{ms}");
        }
    }

    /// `Utils.bytesToString`'s thresholds (two of a unit) and its half-up rounding.
    #[test]
    fn bytes_as_spark_utils() {
        assert_eq!(bytes_to_string(0), "0.0 B");
        assert_eq!(bytes_to_string(2047), "2047.0 B");
        assert_eq!(bytes_to_string(2048), "2.0 KiB");
        assert_eq!(bytes_to_string((2 << 20) - 1), "2048.0 KiB");
        assert_eq!(bytes_to_string(2 << 20), "2.0 MiB");
        assert_eq!(bytes_to_string((2 << 20) + (1 << 18)), "2.3 MiB");
        assert_eq!(bytes_to_string(2_464_153), "2.3 MiB"); // 2.34999... MiB
        assert_eq!(bytes_to_string(1 << 41), "2.0 TiB");
        assert_eq!(bytes_to_string(u64::MAX), "16.0 EiB");
    }

    #[test]
    fn scala_texts() {
        assert_eq!(finite_duration(120_000), "120 seconds");
        assert_eq!(finite_duration(1000), "1 second");
        assert_eq!(finite_duration(1500), "1500 milliseconds");
        assert_eq!(scala_list(["a", "b"]), "List(a, b)");
        assert_eq!(scala_list(Vec::<String>::new()), "List()");
        assert_eq!(scala_seq("ArrayBuffer", ["x"]), "ArrayBuffer(x)");
    }

    /// `scala.collection.mutable.HashSet[Integer]` of scala-library 2.13.16 (the jar pyspark 4.0.0
    /// ships), its `toString` printed from Java after adding the elements in the order given:
    /// 16 and 1 share no bucket of 16 and bucket 0 comes first; 17, 1 and 33 share bucket 1 in
    /// ascending hash; 70000's improved hash is 70001 (bucket 1, after 1); with 13 elements the
    /// table is 32 buckets and 16 sorts after 15.
    #[test]
    fn mutable_hash_sets_iterate_in_bucket_order() {
        let set = |ids: &[i32]| scala_mutable_hash_set(ids.iter().map(|&i| (i, i.to_string())));
        assert_eq!(set(&[3, 1, 2]), "HashSet(1, 2, 3)");
        assert_eq!(set(&[1, 16]), "HashSet(16, 1)");
        let many: Vec<i32> = (4..=16).collect();
        assert_eq!(
            set(&many),
            "HashSet(4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)"
        );
        assert_eq!(set(&[]), "HashSet()");
        assert_eq!(set(&[17, 1, 33, 2]), "HashSet(1, 17, 33, 2)");
        assert_eq!(set(&[70000, 1]), "HashSet(1, 70000)");
    }

    /// scala-library 2.13.16, run from Java 17 (`new mutable.HashSet`, `add` one at a time;
    /// `new mutable.HashMap[Long, _]`, `update`): the table doubles before the add that brings
    /// the size to 12 of 16 (`contentSize + 1 >= threshold`), so 16, 1..11 print in a table of
    /// 32 (`HashSet(1, ..., 11, 16)`, not `HashSet(16, 1, ...)`), and a HashMap of task ids
    /// 31, 32, 33 iterates `32, 33, 31` (32 and 33 in buckets 0 and 1, 31 in bucket 15).
    #[test]
    fn the_table_grows_before_the_add_that_reaches_three_quarters() {
        let mut twelve = vec![16];
        twelve.extend(1..=11);
        let set = scala_mutable_hash_set(twelve.iter().map(|&i| (i, i.to_string())));
        assert_eq!(set, "HashSet(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16)");
        assert_eq!(
            (scala_hash_table_size(11), scala_hash_table_size(12)),
            (16, 32)
        );
        assert_eq!(scala_hash_table_size(24), 64);
        let tids = [31i64, 32, 33].map(|t| (scala_long_hash(t), t));
        assert_eq!(scala_hash_order(tids.to_vec(), 3), vec![32, 33, 31]);
        assert_eq!(scala_long_hash(1 << 32), 1);
    }

    /// Utils.scala splitCommandString (UtilsSuite "splitCommandString").
    #[test]
    fn split_command_string_as_spark() {
        assert_eq!(split_command_string("a b c"), ["a", "b", "c"]);
        assert_eq!(split_command_string("a  b\tc"), ["a", "b", "c"]);
        assert_eq!(split_command_string(" \n a\rb \r\n"), ["a", "b"]);
        assert!(split_command_string("").is_empty());
        assert!(split_command_string(" \t ").is_empty());
        assert_eq!(split_command_string("a 'b c'"), ["a", "b c"]);
        assert_eq!(split_command_string("a 'b\" c'"), ["a", "b\" c"]);
        assert_eq!(split_command_string("a \"b c\""), ["a", "b c"]);
        assert_eq!(split_command_string("a \"b' c\""), ["a", "b' c"]);
        assert_eq!(split_command_string("a \"b\\\" c\""), ["a", "b\" c"]);
        assert_eq!(split_command_string("\"\""), [""]);
        assert_eq!(split_command_string("a ''"), ["a", ""]);
        assert!(split_command_string("").is_empty());
    }

    /// A real pyspark 4.0.0 driver's default profile (`--conf spark.executor.cores=4
    /// --conf spark.executor.resource.gpu.amount=1 --conf spark.task.resource.gpu.amount=0.5`,
    /// local-cluster, 2026-12-06) printed `Map(cores, memory, offHeap, gpu)` and `Map(cpus,
    /// gpu)`: bins 3, 3, 10, 13 and 5, 13 of the requests' 16-bin ConcurrentHashMaps; with
    /// `memoryOverhead` (bin 2) it comes first (the line spark_env's tests hold).
    #[test]
    fn concurrent_map_order_is_by_bin_then_insertion() {
        let keys = |v: Vec<(&'static str, ())>| v.into_iter().map(|(k, _)| k).collect::<Vec<_>>();
        let exec = vec![("cores", ()), ("memory", ()), ("offHeap", ()), ("gpu", ())];
        assert_eq!(
            keys(java_concurrent_map_order(exec)),
            ["cores", "memory", "offHeap", "gpu"]
        );
        let task = vec![("gpu", ()), ("cpus", ())];
        assert_eq!(keys(java_concurrent_map_order(task)), ["cpus", "gpu"]);
        let with_overhead = vec![
            ("cores", ()),
            ("memory", ()),
            ("memoryOverhead", ()),
            ("offHeap", ()),
        ];
        assert_eq!(
            keys(java_concurrent_map_order(with_overhead)),
            ["memoryOverhead", "cores", "memory", "offHeap"]
        );
    }
}
