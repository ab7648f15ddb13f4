//! The Spark properties a JVM was handed (an executor's fetched `SparkAppConfig.sparkProperties`)
//! read back into the typed values a role needs; mirrors the getters of
//! `org.apache.spark.SparkConf` (`getTimeAsMs`, `getTimeAsSeconds`) and `RpcUtils`'s timeouts.
//! The root crate validated every value at submission, so a value that does not parse here
//! falls back to the default.

/// `Utils.REDACTION_REPLACEMENT_TEXT`.
pub const REDACTION_REPLACEMENT_TEXT: &str = "*********(redacted)";

/// `spark.redaction.regex`'s default (`SECRET_REDACTION_PATTERN`).
pub const DEFAULT_REDACTION_REGEX: &str = "(?i)secret|password|token|access[.]?key";

/// `Utils.redact(conf, kvs)`: a value is replaced when `spark.redaction.regex` is found in its
/// key or in the value itself (a command line can carry `--conf k=secret`).
#[derive(Clone, Debug)]
pub struct Redactor(regex::Regex);

impl Redactor {
    /// The pattern of `spark.redaction.regex` (its default when unset); an invalid pattern is
    /// the error text of the regex engine (the root crate refuses it at submission).
    pub fn new(pattern: Option<&str>) -> Result<Redactor, String> {
        let p = pattern.unwrap_or(DEFAULT_REDACTION_REGEX);
        compiled(p).map(Redactor)
    }

    /// From a property list; falls back to the default pattern if the set one is invalid.
    pub fn from_properties<'a>(props: impl IntoIterator<Item = (&'a str, &'a str)>) -> Redactor {
        let pattern = props
            .into_iter()
            .filter(|(k, _)| *k == "spark.redaction.regex")
            .last()
            .map(|(_, v)| v);
        Redactor::new(pattern)
            .or_else(|_| Redactor::new(None))
            .expect("the default pattern compiles")
    }

    pub fn is_sensitive(&self, key: &str, value: &str) -> bool {
        self.0.is_match(key) || self.0.is_match(value)
    }

    /// The value to show for `key`.
    pub fn redact<'v>(&self, key: &str, value: &'v str) -> &'v str {
        if self.is_sensitive(key, value) {
            REDACTION_REPLACEMENT_TEXT
        } else {
            value
        }
    }
}

thread_local! {
    /// Patterns compiled on this thread: a sweep builds a Redactor for every run, and compiling
    /// the default pattern cost more than a small simulation (17 % of a chaos sweep's
    /// instructions); a `Regex` clone shares the compiled program.
    static COMPILED: std::cell::RefCell<std::collections::BTreeMap<String, regex::Regex>> =
        const { std::cell::RefCell::new(std::collections::BTreeMap::new()) };
}

/// `pattern` compiled, from this thread's cache when it was compiled before.
fn compiled(pattern: &str) -> Result<regex::Regex, String> {
    if let Some(r) = COMPILED.with_borrow(|c| c.get(pattern).cloned()) {
        return Ok(r);
    }
    let r = regex::Regex::new(pattern).map_err(|e| e.to_string())?;
    COMPILED.with_borrow_mut(|c| c.insert(pattern.to_string(), r.clone()));
    Ok(r)
}

/// A read-only view of `(key, value)` properties, looked up by key (the last one set wins).
#[derive(Clone, Copy, Debug)]
pub struct SparkConfView<'a>(pub &'a [(String, String)]);

impl<'a> SparkConfView<'a> {
    pub fn get(&self, key: &str) -> Option<&'a str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `getTimeAsMs(key, default)`.
    pub fn time_as_ms(&self, key: &str, default: &str) -> u64 {
        let v = self.get(key).unwrap_or(default);
        time_string_as_micros(v, 1_000)
            .or_else(|| time_string_as_micros(default, 1_000))
            .unwrap_or(0)
            / 1_000
    }

    /// `RpcUtils`' timeouts (`RpcTimeout.apply(conf, Seq(key, spark.network.timeout), "120s")`):
    /// the first of `key`, `spark.network.timeout` that is set, in whole seconds, and its name.
    pub fn rpc_timeout(&self, key: &str) -> (u64, String) {
        let property = [key, "spark.network.timeout"]
            .into_iter()
            .find(|k| self.get(k).is_some())
            .unwrap_or(key);
        let v = self.get(property).unwrap_or("120s");
        let micros = time_string_as_micros(v, 1_000_000).unwrap_or(120_000_000);
        (
            (micros / 1_000_000).saturating_mul(1000),
            property.to_string(),
        )
    }
}

/// `JavaUtils.timeStringAs` for a valid, non-negative string, in microseconds; a bare number is
/// in the unit of `default_unit_micros`. `None` for anything else.
fn time_string_as_micros(input: &str, default_unit_micros: u64) -> Option<u64> {
    let lower = input.to_lowercase();
    let lower = lower.trim_matches(|c: char| c <= ' ');
    let end = lower
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (digits, suffix) = lower.split_at(end);
    let value: u64 = digits.parse().ok()?;
    let unit = match suffix {
        "" => default_unit_micros,
        "us" => 1,
        "ms" => 1_000,
        "s" => 1_000_000,
        "m" | "min" => 60_000_000,
        "h" => 3_600_000_000,
        "d" => 86_400_000_000,
        _ => return None,
    };
    let micros = u128::from(value) * u128::from(unit);
    Some(micros.min(u128::from(i64::MAX as u64)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn times_with_units_and_defaults() {
        let p = props(&[
            ("spark.executor.heartbeatInterval", "2s"),
            ("a", "250"),
            ("b", " 1MIN "),
            ("c", "1500us"),
        ]);
        let c = SparkConfView(&p);
        assert_eq!(
            c.time_as_ms("spark.executor.heartbeatInterval", "10s"),
            2_000
        );
        assert_eq!(c.time_as_ms("a", "10s"), 250);
        assert_eq!(c.time_as_ms("b", "10s"), 60_000);
        assert_eq!(c.time_as_ms("c", "10s"), 1);
        assert_eq!(c.time_as_ms("unset", "10s"), 10_000);
    }

    #[test]
    fn rpc_timeouts_fall_back_to_the_network_timeout() {
        let none = props(&[]);
        assert_eq!(
            SparkConfView(&none).rpc_timeout("spark.rpc.askTimeout"),
            (120_000, "spark.rpc.askTimeout".into())
        );
        let net = props(&[("spark.network.timeout", "300")]);
        assert_eq!(
            SparkConfView(&net).rpc_timeout("spark.rpc.askTimeout"),
            (300_000, "spark.network.timeout".into())
        );
        let both = props(&[
            ("spark.network.timeout", "300"),
            ("spark.rpc.askTimeout", "1500ms"),
        ]);
        assert_eq!(
            SparkConfView(&both).rpc_timeout("spark.rpc.askTimeout"),
            (1_000, "spark.rpc.askTimeout".into())
        );
    }

    // Utils.redact / UtilsSuite "redact sensitive information": key or value matching
    // spark.redaction.regex (default (?i)secret|password|token|access[.]?key).
    #[test]
    fn redaction_by_key_or_value_and_custom_regex() {
        let r = Redactor::new(None).unwrap();
        assert_eq!(
            r.redact(
                "spark.executorEnv.HADOOP_CREDSTORE_PASSWORD",
                "secret_password"
            ),
            REDACTION_REPLACEMENT_TEXT
        );
        assert_eq!(
            r.redact("spark.hadoop.fs.s3a.access.key", "AK"),
            REDACTION_REPLACEMENT_TEXT
        );
        assert_eq!(
            r.redact("sun.java.command", "--conf x.Token=1"),
            REDACTION_REPLACEMENT_TEXT
        );
        assert_eq!(r.redact("spark.app.name", "Pi"), "Pi");
        let custom = Redactor::new(Some("(?i)mykey")).unwrap();
        assert_eq!(
            custom.redact("spark.myKey", "v"),
            REDACTION_REPLACEMENT_TEXT
        );
        assert_eq!(custom.redact("spark.password", "v"), "v");
        assert!(Redactor::new(Some("(")).is_err());
    }
}
