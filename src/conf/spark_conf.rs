//! The merged Spark properties of one submission and their typed getters: owns key lookup with
//! deprecated alternates and the texts of bad values; mirrors `org.apache.spark.SparkConf` and
//! the value converters of `org.apache.spark.internal.config.ConfigBuilder` (Spark 4.0).

use std::collections::BTreeMap;

use super::memory::{self, ByteUnit, TimeUnit};
use crate::error::UserError;

/// New key -> older keys Spark still reads (`ConfigBuilder.withAlternative` and
/// `SparkConf.configsWithAlternatives`). The new key wins when both are set.
const ALTERNATES: &[(&str, &[&str])] = &[
    (
        "spark.executor.maxNumFailures",
        &["spark.yarn.max.executor.failures"],
    ),
    (
        "spark.executor.failuresValidityInterval",
        &["spark.yarn.executor.failuresValidityInterval"],
    ),
    (
        "spark.executor.memoryOverhead",
        &["spark.yarn.executor.memoryOverhead"],
    ),
    (
        "spark.driver.memoryOverhead",
        &["spark.yarn.driver.memoryOverhead"],
    ),
    ("spark.memory.offHeap.enabled", &["spark.unsafe.offHeap"]),
    (
        "spark.excludeOnFailure.enabled",
        &["spark.blacklist.enabled"],
    ),
    (
        "spark.excludeOnFailure.timeout",
        &["spark.blacklist.timeout"],
    ),
    (
        "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
        &["spark.blacklist.application.maxFailedExecutorsPerNode"],
    ),
    (
        "spark.yarn.executor.launch.excludeOnFailure.enabled",
        &["spark.yarn.blacklist.executor.launch.blacklisting.enabled"],
    ),
    (
        "spark.scheduler.executorTaskExcludeOnFailureTime",
        &["spark.scheduler.executorTaskBlacklistTime"],
    ),
    // The rest of `withAlternative` of Spark 4.0.0's exclusion keys (internal/config/package$).
    (
        "spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor",
        &["spark.blacklist.task.maxTaskAttemptsPerExecutor"],
    ),
    (
        "spark.excludeOnFailure.task.maxTaskAttemptsPerNode",
        &["spark.blacklist.task.maxTaskAttemptsPerNode"],
    ),
    (
        "spark.excludeOnFailure.application.maxFailedTasksPerExecutor",
        &["spark.blacklist.application.maxFailedTasksPerExecutor"],
    ),
    (
        "spark.excludeOnFailure.stage.maxFailedTasksPerExecutor",
        &["spark.blacklist.stage.maxFailedTasksPerExecutor"],
    ),
    (
        "spark.excludeOnFailure.stage.maxFailedExecutorsPerNode",
        &["spark.blacklist.stage.maxFailedExecutorsPerNode"],
    ),
    (
        "spark.excludeOnFailure.killExcludedExecutors",
        &["spark.blacklist.killBlacklistedExecutors"],
    ),
    (
        "spark.excludeOnFailure.application.fetchFailure.enabled",
        &["spark.blacklist.application.fetchFailure.enabled"],
    ),
    (
        "spark.scheduler.excludeOnFailure.unschedulableTaskSetTimeout",
        &["spark.scheduler.blacklist.unschedulableTaskSetTimeout"],
    ),
    // SparkConf.configsWithAlternatives (Spark 4.0.0's jar: AlternateConfig of 1.4).
    (
        "spark.reducer.maxSizeInFlight",
        &["spark.reducer.maxMbInFlight"],
    ),
];

/// The older keys standing in for `key`, if any.
fn alternates(key: &str) -> &'static [&'static str] {
    ALTERNATES
        .iter()
        .find(|(new, _)| *new == key)
        .map_or(&[], |(_, old)| old)
}

/// `ConfigHelpers.toNumber` / `toBoolean`: IllegalArgumentException naming the key and the raw
/// (untrimmed) value.
fn type_mismatch(key: &str, value: &str, config_type: &str) -> UserError {
    UserError::illegal_argument(format!("{key} should be {config_type}, but was {value}"))
}

/// `SparkConf.catchIllegalValue`: prefixes the key to a unit-parsing error, keeping its class.
fn illegal_value(key: &str, err: UserError) -> UserError {
    match err {
        UserError::Java { class, message } => UserError::Java {
            class,
            message: format!("Illegal value for config key {key}: {message}"),
        },
        other => other,
    }
}

/// Scala's `String.toBoolean`: `true`/`false` in any case, nothing else.
pub(crate) fn parse_bool(s: &str) -> Option<bool> {
    if s.eq_ignore_ascii_case("true") {
        Some(true)
    } else if s.eq_ignore_ascii_case("false") {
        Some(false)
    } else {
        None
    }
}

/// Java's `String.trim` (chars <= U+0020), which ConfigBuilder applies before converting.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Test-only: every key a [`SparkConf`] getter was asked for on this thread, so a test can check
/// that each key the settings read is in the key registry (src/conf/keys.rs), including keys
/// the code builds at run time.
#[cfg(test)]
pub(crate) mod keys_read {
    use std::cell::RefCell;
    use std::collections::BTreeSet;

    thread_local! {
        static READ: RefCell<BTreeSet<String>> = const { RefCell::new(BTreeSet::new()) };
    }

    pub(crate) fn note(key: &str) {
        READ.with(|r| {
            r.borrow_mut().insert(key.to_string());
        });
    }

    /// The keys read since the last call, and forgets them.
    pub(crate) fn take() -> BTreeSet<String> {
        READ.with(|r| std::mem::take(&mut *r.borrow_mut()))
    }
}

/// The Spark properties of one application, ordered by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SparkConf {
    entries: BTreeMap<String, String>,
}

impl SparkConf {
    pub fn new() -> Self {
        Self::default()
    }

    /// Wraps an already merged map.
    pub fn from_map(entries: BTreeMap<String, String>) -> Self {
        Self { entries }
    }

    /// Sets a property, replacing any earlier value of the same key.
    pub fn set(&mut self, key: impl Into<String>, value: impl Into<String>) -> &mut Self {
        self.entries.insert(key.into(), value.into());
        self
    }

    /// Sets a property only if the key is not there yet (`SparkConf.setIfMissing`).
    pub fn set_if_missing(
        &mut self,
        key: impl Into<String>,
        value: impl Into<String>,
    ) -> &mut Self {
        self.entries
            .entry(key.into())
            .or_insert_with(|| value.into());
        self
    }

    pub fn remove(&mut self, key: &str) -> Option<String> {
        self.entries.remove(key)
    }

    /// The value of `key`, else of its first deprecated alternate that is set.
    pub fn get(&self, key: &str) -> Option<&str> {
        #[cfg(test)]
        keys_read::note(key);
        let direct = self.entries.get(key);
        let alt = || {
            alternates(key)
                .iter()
                .find_map(|old| self.entries.get(*old))
        };
        direct.or_else(alt).map(String::as_str)
    }

    /// True when `key` or one of its alternates is set.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// All properties as set (alternates are not folded), ordered by key.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// True when some key set starts with `prefix` (alternates are not folded).
    pub fn has_key_with_prefix(&self, prefix: &str) -> bool {
        let from = (
            std::ops::Bound::Included(prefix),
            std::ops::Bound::Unbounded,
        );
        let first = self.entries.range::<str, _>(from).next();
        first.is_some_and(|(key, _)| key.starts_with(prefix))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn as_map(&self) -> &BTreeMap<String, String> {
        &self.entries
    }

    pub fn into_map(self) -> BTreeMap<String, String> {
        self.entries
    }

    /// A string entry read through Spark's `ConfigReader` (what `SparkConf.get(entry)` does):
    /// `${spark.KEY}` references are replaced by their values, recursively. References with a
    /// prefix (`${env:X}`, `${system:X}`) or to keys not set stay as written: the simulated
    /// JVMs have no environment or system properties to read them from.
    pub fn get_substituted(&self, key: &str) -> Result<Option<String>, UserError> {
        self.get(key)
            .map(|v| self.substitute(v, &mut Vec::new()))
            .transpose()
    }

    /// `ConfigReader.substitute(input, usedRefs)`: `require(!usedRefs.contains(ref),
    /// s"Circular reference in $input: $ref")`.
    fn substitute(&self, input: &str, used: &mut Vec<String>) -> Result<String, UserError> {
        let mut out = String::new();
        let mut rest = input;
        while let Some((before, reference, after)) = next_reference(rest) {
            out.push_str(before);
            let (prefix, name) = reference;
            // ConfigReader.getOrDefault: the set value, else the registered ConfigEntry's
            // default (`ConfigEntry.findEntry(key).defaultValueString`).
            let value = match prefix {
                None if name.starts_with("spark.") => {
                    self.get(name).or_else(|| entry_default(name))
                }
                _ => None,
            };
            match value {
                Some(v) => {
                    if used.iter().any(|u| u == name) {
                        return Err(UserError::illegal_argument(format!(
                            "requirement failed: Circular reference in {input}: {name}"
                        )));
                    }
                    used.push(name.to_string());
                    let v = self.substitute(v, used)?;
                    used.pop();
                    out.push_str(&v);
                }
                None => out.push_str(&rest[before.len()..rest.len() - after.len()]),
            }
            rest = after;
        }
        out.push_str(rest);
        Ok(out)
    }

    /// A string property with a default.
    pub fn get_string(&self, key: &str, default: &str) -> String {
        self.get(key).unwrap_or(default).to_string()
    }

    /// `booleanConf`: `<key> should be boolean, but was <v>`.
    pub fn get_bool(&self, key: &str, default: bool) -> Result<bool, UserError> {
        self.get_bool_opt(key).map(|v| v.unwrap_or(default))
    }

    pub fn get_bool_opt(&self, key: &str) -> Result<Option<bool>, UserError> {
        self.get_typed(key, "boolean", parse_bool)
    }

    /// The value of `key` (trimmed as Java trims) through `parse`; a value it refuses is
    /// `<key> should be <config_type>, but was <v>`, as Spark's typed `ConfigBuilder`s say.
    fn get_typed<T>(
        &self,
        key: &str,
        config_type: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, UserError> {
        self.get(key)
            .map(|v| parse(java_trim(v)).ok_or_else(|| type_mismatch(key, v, config_type)))
            .transpose()
    }

    /// `intConf` (a Java int): `<key> should be int, but was <v>`.
    pub fn get_int(&self, key: &str, default: i32) -> Result<i32, UserError> {
        self.get_int_opt(key).map(|v| v.unwrap_or(default))
    }

    pub fn get_int_opt(&self, key: &str) -> Result<Option<i32>, UserError> {
        self.get_typed(key, "int", |v| v.parse().ok())
    }

    /// An `intConf` sparkyard needs non-negative (counts, cores): parsed as Spark does, then a
    /// negative value is refused naming the key.
    pub fn get_u32(&self, key: &str, default: u32) -> Result<u32, UserError> {
        self.get_u32_opt(key).map(|v| v.unwrap_or(default))
    }

    pub fn get_u32_opt(&self, key: &str) -> Result<Option<u32>, UserError> {
        let Some(value) = self.get_int_opt(key)? else {
            return Ok(None);
        };
        u32::try_from(value).map(Some).map_err(|_| {
            UserError::illegal_argument(format!("{key} must not be negative, but was {value}"))
        })
    }

    /// `doubleConf`: `<key> should be double, but was <v>`.
    pub fn get_double(&self, key: &str, default: f64) -> Result<f64, UserError> {
        self.get_double_opt(key).map(|v| v.unwrap_or(default))
    }

    pub fn get_double_opt(&self, key: &str) -> Result<Option<f64>, UserError> {
        self.get_typed(key, "double", |v| v.parse().ok())
    }

    /// `SparkConf.getSizeAsMb(key, default)`: a memory string, bare numbers in MiB; errors are
    /// `Illegal value for config key <key>: <JavaUtils text quoting the value>`.
    pub fn get_size_as_mb(&self, key: &str, default: &str) -> Result<u64, UserError> {
        self.size_as(key, default, ByteUnit::MiB)
    }

    pub fn get_size_as_mb_opt(&self, key: &str) -> Result<Option<u64>, UserError> {
        self.size_as_opt(key, ByteUnit::MiB)
    }

    /// `SparkConf.getSizeAsBytes(key, default)`: bare numbers are bytes.
    pub fn get_size_as_bytes(&self, key: &str, default: &str) -> Result<u64, UserError> {
        self.size_as(key, default, ByteUnit::Byte)
    }

    fn size_as(&self, key: &str, default: &str, unit: ByteUnit) -> Result<u64, UserError> {
        let value = self.get(key).unwrap_or(default);
        memory::byte_string_as(value, unit).map_err(|e| illegal_value(key, e))
    }

    fn size_as_opt(&self, key: &str, unit: ByteUnit) -> Result<Option<u64>, UserError> {
        let parse = |v| memory::byte_string_as(v, unit).map_err(|e| illegal_value(key, e));
        self.get(key).map(parse).transpose()
    }

    /// A `bytesConf(unit)` entry read with `conf.get(entry)` (ConfigHelpers.byteFromString,
    /// Spark 4.0.0's spark-common-utils jar): a leading `-` negates the rest, which is
    /// `JavaUtils.byteStringAs` in `unit`; its NumberFormatException is not wrapped with the
    /// key (only `getSizeAs*` is).
    pub fn get_bytes_conf(
        &self,
        key: &str,
        default: &str,
        unit: ByteUnit,
    ) -> Result<i64, UserError> {
        let value = self.get(key).unwrap_or(default);
        let (digits, sign) = match value.strip_prefix('-') {
            Some(rest) => (rest, -1),
            None => (value, 1),
        };
        // byteStringAs never passes Long.MAX_VALUE, so the value fits an i64.
        memory::byte_string_as(digits, unit).map(|v| sign * v as i64)
    }

    /// `SparkConf.getTimeAsMs(key, default)`: bare numbers are milliseconds.
    pub fn get_time_as_ms(&self, key: &str, default: &str) -> Result<u64, UserError> {
        self.time_as(key, default, TimeUnit::Milliseconds)
    }

    /// An optional `timeConf(MILLISECONDS)`.
    pub fn get_time_as_ms_opt(&self, key: &str) -> Result<Option<u64>, UserError> {
        let parse = |v| memory::time_string_as_ms(v).map_err(|e| illegal_value(key, e));
        self.get(key).map(parse).transpose()
    }

    /// `SparkConf.getTimeAsSeconds(key, default)`: bare numbers are seconds.
    pub fn get_time_as_sec(&self, key: &str, default: &str) -> Result<u64, UserError> {
        self.time_as(key, default, TimeUnit::Seconds)
    }

    /// An optional `timeConf(SECONDS)`: bare numbers are seconds.
    pub fn get_time_as_sec_opt(&self, key: &str) -> Result<Option<u64>, UserError> {
        let parse =
            |v| memory::time_string_as(v, TimeUnit::Seconds).map_err(|e| illegal_value(key, e));
        self.get(key).map(parse).transpose()
    }

    fn time_as(&self, key: &str, default: &str, unit: TimeUnit) -> Result<u64, UserError> {
        let value = self.get(key).unwrap_or(default);
        memory::time_string_as(value, unit).map_err(|e| illegal_value(key, e))
    }

    /// `stringConf.toSequence`: comma-separated, items trimmed, empty items dropped.
    pub fn get_seq(&self, key: &str) -> Vec<String> {
        let items = self.get(key).unwrap_or("").split(',').map(str::trim);
        items
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// The defaults of the registered `ConfigEntry`s a `${spark.KEY}` reference falls back to when
/// the key is unset (ConfigReader.getOrDefault, Spark 4.0.0's jar), for the keys a reference in
/// a value sparkyard acts on is known to use; any other unset reference stays as written.
const ENTRY_DEFAULTS: &[(&str, &str)] = &[
    // History.HISTORY_SERVER_UI_PORT, createWithDefault(18080): the usual reference in
    // spark.yarn.historyServer.address (`host:${spark.history.ui.port}`).
    ("spark.history.ui.port", "18080"),
];

fn entry_default(key: &str) -> Option<&'static str> {
    ENTRY_DEFAULTS
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
}

/// The first match of `ConfigReader.REF_RE` (`\$\{(?:(\w+?):)?(\S+?)\}`) in `text`: the text
/// before it, its (prefix, name) and the text after it.
type Reference<'t> = (&'t str, (Option<&'t str>, &'t str), &'t str);
/// The `${env:X}` / `${system:X}` references in `value` (ConfigReader's `env` and `system`
/// bindings: the environment and system properties of the JVM that reads the key), as written.
pub fn environment_references(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some((_, (prefix, name), after)) = next_reference(rest) {
        if let Some(p @ ("env" | "system")) = prefix {
            out.push(format!("${{{p}:{name}}}"));
        }
        rest = after;
    }
    out
}

fn next_reference(text: &str) -> Option<Reference<'_>> {
    let mut from = 0;
    while let Some(i) = text[from..].find("${") {
        let start = from + i;
        let body = &text[start + 2..];
        // `(\S+?)\}`: the shortest run of non-blanks closed by `}`.
        let close = body.find(|c: char| c == '}' || c.is_whitespace());
        match close {
            Some(end) if end > 0 && body[end..].starts_with('}') => {
                let inner = &body[..end];
                let word = |s: &str| {
                    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                };
                let (prefix, name) = match inner.split_once(':') {
                    Some((p, n)) if word(p) && !n.is_empty() => (Some(p), n),
                    _ => (None, inner),
                };
                return Some((&text[..start], (prefix, name), &body[end + 1..]));
            }
            _ => from = start + 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(pairs: &[(&str, &str)]) -> SparkConf {
        let mut c = SparkConf::new();
        for (k, v) in pairs {
            c.set(*k, *v);
        }
        c
    }

    // ConfigReader.scala substitute: REF_RE `\$\{(?:(\w+?):)?(\S+?)\}`, the null prefix binds
    // SparkConfigProvider (keys starting with `spark.` only), unresolved references stay,
    // `require(!usedRefs.contains(ref), s"Circular reference in $input: $ref")`.
    #[test]
    fn config_reader_substitutes_spark_references() {
        let c = conf(&[
            ("spark.yarn.historyServer.address", "${spark.my.host}:18080"),
            ("spark.my.host", "${spark.my.domain}"),
            ("spark.my.domain", "hs.example"),
            (
                "spark.keep",
                "${hadoopconf-yarn.x}/${env:HOME}/${x.y}/${ spark.a}/${spark.unset}",
            ),
            ("spark.loop", "a${spark.loop2}"),
            ("spark.loop2", "${spark.loop}"),
        ]);
        let get = |k: &str| c.get_substituted(k);
        assert_eq!(
            get("spark.yarn.historyServer.address").unwrap().as_deref(),
            Some("hs.example:18080")
        );
        assert_eq!(
            get("spark.keep").unwrap().as_deref(),
            Some("${hadoopconf-yarn.x}/${env:HOME}/${x.y}/${ spark.a}/${spark.unset}")
        );
        assert_eq!(get("spark.none").unwrap(), None);
        // An unset reference takes its ConfigEntry's default (ConfigReader.getOrDefault).
        let c = conf(&[(
            "spark.yarn.historyServer.address",
            "hs.example:${spark.history.ui.port}",
        )]);
        assert_eq!(
            c.get_substituted("spark.yarn.historyServer.address")
                .unwrap()
                .as_deref(),
            Some("hs.example:18080")
        );
        let e = get("spark.loop").unwrap_err().to_string();
        assert!(
            e.contains("requirement failed: Circular reference in a${spark.loop2}: spark.loop2"),
            "{e}"
        );
    }

    #[test]
    fn set_get_contains_iter() {
        let mut c = conf(&[("spark.b", "2"), ("spark.a", "1")]);
        c.set("spark.a", "3")
            .set_if_missing("spark.a", "4")
            .set_if_missing("spark.c", "5");
        assert_eq!(c.get("spark.a"), Some("3"));
        assert!(c.contains("spark.c"));
        assert!(!c.contains("spark.z"));
        let keys: Vec<_> = c.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, vec!["spark.a", "spark.b", "spark.c"]);
    }

    #[test]
    fn booleans() {
        let c = conf(&[
            ("spark.x", " TRUE "),
            ("spark.y", "False"),
            ("spark.z", "yes"),
        ]);
        assert_eq!(c.get_bool("spark.x", false), Ok(true));
        assert_eq!(c.get_bool("spark.y", true), Ok(false));
        assert_eq!(c.get_bool("spark.unset", true), Ok(true));
        assert_eq!(
            c.get_bool("spark.z", false),
            Err(UserError::illegal_argument(
                "spark.z should be boolean, but was yes"
            ))
        );
    }

    #[test]
    fn ints() {
        let c = conf(&[
            ("spark.n", " 7 "),
            ("spark.neg", "-2"),
            ("spark.bad", "2.5"),
        ]);
        assert_eq!(c.get_int("spark.n", 0), Ok(7));
        assert_eq!(c.get_int("spark.neg", 0), Ok(-2));
        assert_eq!(c.get_u32("spark.unset", 4), Ok(4));
        assert_eq!(
            c.get_int("spark.bad", 0),
            Err(UserError::illegal_argument(
                "spark.bad should be int, but was 2.5"
            ))
        );
        assert_eq!(
            c.get_u32("spark.bad", 0),
            Err(UserError::illegal_argument(
                "spark.bad should be int, but was 2.5"
            ))
        );
        assert_eq!(
            c.get_u32("spark.neg", 0),
            Err(UserError::illegal_argument(
                "spark.neg must not be negative, but was -2"
            ))
        );
    }

    #[test]
    fn int_overflow_is_a_type_error() {
        let c = conf(&[("spark.n", "3000000000")]);
        assert_eq!(
            c.get_int("spark.n", 0),
            Err(UserError::illegal_argument(
                "spark.n should be int, but was 3000000000"
            ))
        );
    }

    #[test]
    fn doubles() {
        let c = conf(&[("spark.r", "0.5"), ("spark.bad", "half")]);
        assert_eq!(c.get_double("spark.r", 0.8), Ok(0.5));
        assert_eq!(c.get_double("spark.unset", 0.8), Ok(0.8));
        assert_eq!(
            c.get_double("spark.bad", 0.0),
            Err(UserError::illegal_argument(
                "spark.bad should be double, but was half"
            ))
        );
    }

    #[test]
    fn sizes_name_key_and_value() {
        let c = conf(&[
            ("spark.executor.memory", "4g"),
            ("spark.driver.memory", "10q"),
        ]);
        assert_eq!(c.get_size_as_mb("spark.executor.memory", "1g"), Ok(4096));
        assert_eq!(c.get_size_as_mb("spark.unset", "1g"), Ok(1024));
        assert_eq!(c.get_size_as_bytes("spark.unset", "2m"), Ok(2 << 20));
        assert_eq!(
            c.get_size_as_mb("spark.driver.memory", "1g"),
            Err(UserError::number_format(
                "Illegal value for config key spark.driver.memory: Size must be specified as \
                 bytes (b), kibibytes (k), mebibytes (m), gibibytes (g), tebibytes (t), or \
                 pebibytes(p). E.g. 50b, 100k, or 250m.\nInvalid suffix: \"q\""
            ))
        );
    }

    #[test]
    fn times() {
        let c = conf(&[("spark.t", "100s"), ("spark.bad", "soon")]);
        assert_eq!(c.get_time_as_ms("spark.t", "1s"), Ok(100_000));
        assert_eq!(c.get_time_as_sec("spark.unset", "120s"), Ok(120));
        assert_eq!(c.get_time_as_ms_opt("spark.unset"), Ok(None));
        assert_eq!(c.get_time_as_ms_opt("spark.t"), Ok(Some(100_000)));
        assert_eq!(
            c.get_time_as_ms("spark.bad", "1s"),
            Err(UserError::number_format(
                "Illegal value for config key spark.bad: Time must be specified as seconds (s), \
                 milliseconds (ms), microseconds (us), minutes (m or min), hour (h), or day (d). \
                 E.g. 50s, 100ms, or 250us.\nFailed to parse time string: soon"
            ))
        );
    }

    #[test]
    fn deprecated_alternates_lose_to_new_key() {
        let old_only = conf(&[("spark.yarn.executor.memoryOverhead", "512")]);
        assert_eq!(old_only.get("spark.executor.memoryOverhead"), Some("512"));
        let both = conf(&[
            ("spark.yarn.max.executor.failures", "5"),
            ("spark.executor.maxNumFailures", "9"),
        ]);
        assert_eq!(
            both.get_u32_opt("spark.executor.maxNumFailures"),
            Ok(Some(9))
        );
        let pairs = [
            (
                "spark.yarn.executor.failuresValidityInterval",
                "spark.executor.failuresValidityInterval",
            ),
            (
                "spark.yarn.driver.memoryOverhead",
                "spark.driver.memoryOverhead",
            ),
            (
                "spark.yarn.max.executor.failures",
                "spark.executor.maxNumFailures",
            ),
        ];
        for (old, new) in pairs {
            assert_eq!(conf(&[(old, "1")]).get(new), Some("1"), "{old} -> {new}");
        }
    }

    #[test]
    fn sequences() {
        let c = conf(&[("spark.yarn.exclude.nodes", " a, ,b ,")]);
        assert_eq!(c.get_seq("spark.yarn.exclude.nodes"), vec!["a", "b"]);
        assert!(c.get_seq("spark.unset").is_empty());
    }
}
