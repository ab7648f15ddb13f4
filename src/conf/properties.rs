//! The Java properties grammar of `spark-defaults.conf` and `--properties-file`: owns parsing and
//! loading such files; mirrors `java.util.Properties.load` (LineReader + loadConvert) and Spark's
//! `Utils.getPropertiesFromFile` / `trimExceptCRLF` (Spark 4.0).

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::UserError;

/// The message `Properties.loadConvert` throws (IllegalArgumentException) for a bad `\u` escape.
const MALFORMED_UNICODE: &str = "Malformed \\uxxxx encoding.";

/// Whitespace as `Properties.load` sees it (line terminators are handled separately).
fn is_prop_space(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\x0c'
}

/// Splits text into natural lines on `\n`, `\r\n` or a lone `\r`, as LineReader does.
fn natural_lines(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(pos) = rest.find(['\n', '\r']) {
        lines.push(&rest[..pos]);
        let skip = if rest[pos..].starts_with("\r\n") {
            2
        } else {
            1
        };
        rest = &rest[pos + skip..];
    }
    if !rest.is_empty() {
        lines.push(rest);
    }
    lines
}

/// True when the line ends in an odd number of backslashes, i.e. continues on the next line.
fn continues(line: &str) -> bool {
    line.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1
}

/// Joins natural lines into logical lines: comments and blank lines dropped, continuation lines
/// appended without their leading whitespace (a continuation line is never a comment).
fn logical_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for raw in natural_lines(text) {
        let line = raw.trim_start_matches(is_prop_space);
        if current.is_none() && (line.is_empty() || line.starts_with(['#', '!'])) {
            continue;
        }
        let buf = current.get_or_insert_with(String::new);
        if continues(line) {
            buf.push_str(&line[..line.len() - 1]);
        } else {
            buf.push_str(line);
            out.extend(current.take());
        }
    }
    out.extend(current);
    out
}

/// `Properties.load0`: the key ends at the first unescaped `=`, `:` or whitespace; then
/// whitespace and at most one `=`/`:` are skipped. Returns the raw (still escaped) halves.
fn split_key_value(line: &str) -> (&str, &str) {
    let mut key_end = line.len();
    let mut value_start = line.len();
    let mut has_sep = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if !escaped && (c == '=' || c == ':' || is_prop_space(c)) {
            key_end = i;
            value_start = i + c.len_utf8();
            has_sep = c == '=' || c == ':';
            break;
        }
        escaped = c == '\\' && !escaped;
    }
    let rest = &line[value_start..];
    let mut skip = 0;
    for c in rest.chars() {
        if !is_prop_space(c) {
            if has_sep || (c != '=' && c != ':') {
                break;
            }
            has_sep = true;
        }
        skip += c.len_utf8();
    }
    (&line[..key_end], &rest[skip..])
}

/// Reads the four hex digits of a `\uXXXX` escape.
fn hex4(chars: &mut std::str::Chars<'_>) -> Option<u16> {
    let mut value: u16 = 0;
    for _ in 0..4 {
        let digit = chars.next()?.to_digit(16)?;
        value = value * 16 + digit as u16;
    }
    Some(value)
}

/// `Properties.loadConvert`: resolves `\t \n \r \f \uXXXX` and `\x` -> `x`. Works in UTF-16
/// units so surrogate pairs written as two `\u` escapes combine; a lone surrogate becomes U+FFFD.
/// With `strict`, a malformed `\u` is Java's error; otherwise the `u` is kept literally.
fn load_convert(raw: &str, strict: bool) -> Result<String, UserError> {
    let mut units: Vec<u16> = Vec::with_capacity(raw.len());
    let mut chars = raw.chars();
    let mut buf = [0u16; 2];
    while let Some(c) = chars.next() {
        let resolved = if c != '\\' {
            c
        } else {
            match chars.next() {
                None => break,
                Some('u') => match hex4(&mut chars.clone()) {
                    Some(unit) => {
                        chars.nth(3);
                        units.push(unit);
                        continue;
                    }
                    None if strict => return Err(UserError::illegal_argument(MALFORMED_UNICODE)),
                    None => 'u',
                },
                Some('t') => '\t',
                Some('r') => '\r',
                Some('n') => '\n',
                Some('f') => '\x0c',
                Some(other) => other,
            }
        };
        units.extend_from_slice(resolved.encode_utf16(&mut buf));
    }
    Ok(String::from_utf16_lossy(&units))
}

/// Parses one logical line into an unescaped (key, value).
fn parse_entry(line: &str, strict: bool) -> Result<(String, String), UserError> {
    let (key, value) = split_key_value(line);
    Ok((load_convert(key, strict)?, load_convert(value, strict)?))
}

fn parse(text: &str, strict: bool) -> Result<Vec<(String, String)>, UserError> {
    logical_lines(text)
        .iter()
        .map(|line| parse_entry(line, strict))
        .collect()
}

/// `Properties.load` over text, in file order (collect into a map so later duplicates win).
/// Values are not trimmed here (Spark trims them afterwards). Never fails: a malformed `\u`
/// escape keeps its text; use [`try_parse_properties`] for Java's error instead.
pub fn parse_properties(text: &str) -> Vec<(String, String)> {
    parse(text, false).unwrap_or_default()
}

/// Like [`parse_properties`] but fails as Java does on a malformed `\uXXXX` escape
/// (`java.lang.IllegalArgumentException: Malformed \uxxxx encoding.`).
pub fn try_parse_properties(text: &str) -> Result<Vec<(String, String)>, UserError> {
    parse(text, true)
}

/// Spark's `Utils.trimExceptCRLF`: strips chars <= U+0020 at both ends except `\r` and `\n`,
/// which can only be there because the user escaped them.
pub fn trim_except_crlf(value: &str) -> &str {
    value.trim_matches(|c: char| c <= ' ' && c != '\r' && c != '\n')
}

/// What `Utils.getPropertiesFromFile` returns for already-read text: strict parse, trimmed values.
pub fn load_properties_text(text: &str) -> Result<Vec<(String, String)>, UserError> {
    let entries = try_parse_properties(text)?;
    Ok(entries
        .into_iter()
        .map(|(k, v)| (k, trim_except_crlf(&v).to_string()))
        .collect())
}

/// `Utils.getPropertiesFromFile`: the file must exist and be a regular file, is read as UTF-8,
/// parsed with the Java grammar, and values are trimmed. Scala's `require` prefixes
/// `requirement failed: ` to the first two texts.
pub fn load_properties_file(path: &Path) -> Result<Vec<(String, String)>, UserError> {
    let shown = path.display();
    if !path.exists() {
        let message = format!("requirement failed: Properties file {shown} does not exist");
        return Err(UserError::illegal_argument(message));
    }
    if !path.is_file() {
        let message = format!("requirement failed: Properties file {shown} is not a normal file");
        return Err(UserError::illegal_argument(message));
    }
    let failed = || UserError::spark(format!("Failed when loading Spark properties from {shown}"));
    let bytes = std::fs::read(path).map_err(|_| failed())?;
    let text = String::from_utf8(bytes).map_err(|_| failed())?;
    load_properties_text(&text)
}

/// The warning spark-submit gives for a key outside the `spark.` namespace.
pub fn non_spark_warning(key: &str) -> String {
    format!("Warning: Ignoring non-Spark config property: {key}")
}

/// `SparkSubmitArguments.ignoreNonSparkProperties`: keeps `spark.*` keys, warns for the others
/// (in key order, so output is deterministic).
pub fn retain_spark_properties(props: &mut BTreeMap<String, String>) -> Vec<String> {
    let dropped: Vec<String> = props
        .keys()
        .filter(|k| !k.starts_with("spark."))
        .cloned()
        .collect();
    for key in &dropped {
        props.remove(key);
    }
    dropped.iter().map(|k| non_spark_warning(k)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(text: &str) -> Vec<(String, String)> {
        parse_properties(text)
    }

    fn kv(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn separators() {
        let text = "a=1\nb:2\nc 3\nd\t4\ne = 5\nf : 6\ng   =   7\nh\n i=\n";
        let expected = vec![
            kv("a", "1"),
            kv("b", "2"),
            kv("c", "3"),
            kv("d", "4"),
            kv("e", "5"),
            kv("f", "6"),
            kv("g", "7"),
            kv("h", ""),
            kv("i", ""),
        ];
        assert_eq!(pairs(text), expected);
    }

    #[test]
    fn only_one_separator_is_skipped() {
        assert_eq!(pairs("a==b"), vec![kv("a", "=b")]);
        assert_eq!(pairs("a = :b"), vec![kv("a", ":b")]);
        assert_eq!(pairs("a b=c"), vec![kv("a", "b=c")]);
    }

    #[test]
    fn comments_and_blank_lines() {
        let text = "# comment\n! bang\n   # indented comment\n\n   \nspark.a 1\n";
        assert_eq!(pairs(text), vec![kv("spark.a", "1")]);
    }

    #[test]
    fn comment_lines_never_continue() {
        assert_eq!(pairs("# a comment \\\nspark.a 1"), vec![kv("spark.a", "1")]);
    }

    #[test]
    fn continuation() {
        let text = "spark.list a,\\\n    b,\\\n\t c\nspark.next 2";
        assert_eq!(
            pairs(text),
            vec![kv("spark.list", "a,b,c"), kv("spark.next", "2")]
        );
    }

    #[test]
    fn continuation_line_starting_with_hash_is_value() {
        assert_eq!(pairs("k a\\\n#b"), vec![kv("k", "a#b")]);
    }

    #[test]
    fn even_backslashes_do_not_continue() {
        assert_eq!(pairs("k a\\\\\nl b"), vec![kv("k", "a\\"), kv("l", "b")]);
    }

    #[test]
    fn trailing_backslash_at_end_of_file_is_dropped() {
        assert_eq!(pairs("k v\\"), vec![kv("k", "v")]);
    }

    #[test]
    fn crlf_and_cr_line_ends() {
        assert_eq!(
            pairs("a 1\r\nb 2\rc 3"),
            vec![kv("a", "1"), kv("b", "2"), kv("c", "3")]
        );
        assert_eq!(pairs("a x\\\r\n  y"), vec![kv("a", "xy")]);
    }

    #[test]
    fn escapes() {
        assert_eq!(pairs(r"k a\tb\nc\rd\fe"), vec![kv("k", "a\tb\nc\rd\x0ce")]);
        assert_eq!(pairs(r"k \u0041\u00e9"), vec![kv("k", "Aé")]);
        assert_eq!(pairs(r"k \uD83D\uDE00"), vec![kv("k", "😀")]);
        assert_eq!(pairs(r"k \q\\"), vec![kv("k", "q\\")]);
    }

    #[test]
    fn escaped_separators_in_keys() {
        assert_eq!(pairs(r"my\ key value"), vec![kv("my key", "value")]);
        assert_eq!(pairs(r"a\=b=c"), vec![kv("a=b", "c")]);
        assert_eq!(pairs(r"a\:b:c"), vec![kv("a:b", "c")]);
    }

    #[test]
    fn empty_key() {
        assert_eq!(pairs("=v"), vec![kv("", "v")]);
    }

    #[test]
    fn malformed_unicode() {
        let err = UserError::illegal_argument("Malformed \\uxxxx encoding.");
        assert_eq!(try_parse_properties(r"k \u12"), Err(err.clone()));
        assert_eq!(try_parse_properties(r"k \uZZZZ"), Err(err));
        assert_eq!(pairs(r"k \u12"), vec![kv("k", "u12")]);
    }

    #[test]
    fn values_trimmed_except_escaped_crlf() {
        assert_eq!(trim_except_crlf(" \t v \t"), "v");
        assert_eq!(trim_except_crlf("v\\n"), "v\\n");
        assert_eq!(
            load_properties_text("k  v   \nl x\\n  ").unwrap(),
            vec![kv("k", "v"), kv("l", "x\n")]
        );
    }

    #[test]
    fn duplicates_keep_order_later_wins_in_map() {
        let map: BTreeMap<_, _> = pairs("a 1\na 2").into_iter().collect();
        assert_eq!(map.get("a").map(String::as_str), Some("2"));
    }

    #[test]
    fn file_errors() {
        let missing = Path::new("/nonexistent/sparkyard/spark-defaults.conf");
        assert_eq!(
            load_properties_file(missing),
            Err(UserError::illegal_argument(
                "requirement failed: Properties file /nonexistent/sparkyard/spark-defaults.conf \
                 does not exist"
            ))
        );
        let dir = std::env::temp_dir();
        assert_eq!(
            load_properties_file(&dir),
            Err(UserError::illegal_argument(format!(
                "requirement failed: Properties file {} is not a normal file",
                dir.display()
            )))
        );
    }

    #[test]
    fn non_utf8_file_fails_to_load() {
        let dir = crate::test_dir::TestDir::new("props");
        let path = dir.join("props.bin");
        std::fs::write(&path, [0xff, 0xfe, 0x00, 0x41]).unwrap();
        let result = load_properties_file(&path);
        let expected = format!(
            "Failed when loading Spark properties from {}",
            path.display()
        );
        assert_eq!(result, Err(UserError::spark(expected)));
    }

    #[test]
    fn non_spark_keys_are_dropped_with_warnings() {
        let mut map: BTreeMap<String, String> =
            [kv("spark.a", "1"), kv("foo", "2"), kv("sparkx", "3")]
                .into_iter()
                .collect();
        let warnings = retain_spark_properties(&mut map);
        assert_eq!(
            warnings,
            vec![
                "Warning: Ignoring non-Spark config property: foo".to_string(),
                "Warning: Ignoring non-Spark config property: sparkx".to_string(),
            ]
        );
        assert_eq!(map.keys().collect::<Vec<_>>(), vec!["spark.a"]);
    }
}
