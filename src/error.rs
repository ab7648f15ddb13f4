//! User errors: bad flags, bad files, impossible clusters. Each carries the text a user needs
//! (Spark's own where Spark has one) and maps to a non-zero exit; never a panic.

use std::fmt;

/// A user error, printed by `main` and turned into exit code 1 (spark-submit's code for
/// argument, validation and application failures).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserError {
    /// An exception spark-submit itself throws; printed as
    /// `Exception in thread "main" <class>: <message>`, as the JVM does.
    Java {
        class: &'static str,
        message: String,
    },
    /// A launcher usage error; printed as `Error: <message>` followed by a hint to `--help`.
    Usage(String),
    /// The launcher refused the words (`Unrecognized option: --foo`): `Main` prints
    /// `Error: <message>`, a blank line and spark-submit's usage (which the parser that refused
    /// the words hands over, so this file needs no part of the configuration).
    Launcher {
        message: String,
        usage: &'static str,
    },
    /// A problem in one of sparkyard's own files (cluster file, scenario): names the file and,
    /// where known, the line and the key.
    File { path: String, message: String },
}

impl UserError {
    pub fn spark(message: impl Into<String>) -> Self {
        UserError::Java {
            class: "org.apache.spark.SparkException",
            message: message.into(),
        }
    }
    pub fn illegal_argument(message: impl Into<String>) -> Self {
        UserError::Java {
            class: "java.lang.IllegalArgumentException",
            message: message.into(),
        }
    }
    pub fn number_format(message: impl Into<String>) -> Self {
        UserError::Java {
            class: "java.lang.NumberFormatException",
            message: message.into(),
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        UserError::Usage(message.into())
    }
    pub fn launcher(message: impl Into<String>, usage: &'static str) -> Self {
        UserError::Launcher {
            message: message.into(),
            usage,
        }
    }
    pub fn file(path: impl Into<String>, message: impl Into<String>) -> Self {
        UserError::File {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UserError::Java { class, message } => {
                write!(f, "Exception in thread \"main\" {class}: {message}")
            }
            UserError::Usage(message) => {
                write!(
                    f,
                    "Error: {message}\n\nRun with --help for usage help or --verbose for debug output"
                )
            }
            UserError::Launcher { message, usage } => {
                write!(f, "Error: {message}\n\n{}", usage.trim_end())
            }
            UserError::File { path, message } => write!(f, "error: {path}: {message}"),
        }
    }
}

impl std::error::Error for UserError {}
