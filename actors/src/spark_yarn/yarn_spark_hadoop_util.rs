//! Spark's `YarnSparkHadoopUtil` (resource-managers/yarn/.../deploy/yarn/YarnSparkHadoopUtil.scala):
//! the shell escaping the Client and ExecutorRunnable both apply to a container's command words.

/// `YarnSparkHadoopUtil.escapeForShell` (Unix): the argument in single quotes, `$` and `"`
/// backslashed, a single quote closed, escaped and reopened.
pub fn escape_for_shell(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('\'');
    for c in arg.chars() {
        match c {
            '$' => out.push_str("\\$"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("'\\''"),
            _ => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Words escaped for the shell, joined by spaces (the command is the words joined).
pub fn join_escaped<S: AsRef<str>>(words: impl IntoIterator<Item = S>) -> String {
    let escaped: Vec<String> = words
        .into_iter()
        .map(|w| escape_for_shell(w.as_ref()))
        .collect();
    escaped.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// YarnSparkHadoopUtilSuite "shell script escaping".
    #[test]
    fn escape_for_shell_as_yarn_spark_hadoop_util() {
        let cases = [
            ("arg1", r"'arg1'"),
            ("${arg.2}", r"'\${arg.2}'"),
            (r#""arg3""#, r#"'\"arg3\"'"#),
            ("'arg4'", r"''\''arg4'\'''"),
            ("$arg5", r"'\$arg5'"),
            (r"\arg6", r"'\arg6'"),
        ];
        for (arg, escaped) in cases {
            assert_eq!(escape_for_shell(arg), escaped, "{arg}");
        }
    }
}
