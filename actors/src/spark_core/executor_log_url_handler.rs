//! A YARN container's log URLs and attributes (Spark: `util/YarnContainerInfoHelper.scala`,
//! which the driver and each executor report), and `spark.ui.custom.executor.log.url` (Spark:
//! `executor/ExecutorLogUrlHandler.scala`): the
//! DriverEndpoint rewrites each registering executor's log URLs from the pattern, filling its
//! `{{ATTRIBUTE}}` placeholders from the attributes the executor sent
//! (`YarnContainerInfoHelper.getAttributes` on YARN), and `{{FILE_NAME}}` once per `LOG_FILES`
//! entry.

use crate::info;
use crate::kernel::logs::ProcessLog;
use crate::world::addresses::{NM_PORT, NM_WEB_PORT};
use std::collections::BTreeSet;

/// A YARN container's log URLs, as `YarnContainerInfoHelper.getLogUrls` gives them: the
/// NodeManager's page of each file, its last 4 KiB.
pub fn yarn_log_urls(host: &str, container_id: &str, user: &str) -> Vec<(String, String)> {
    ["stderr", "stdout"]
        .iter()
        .map(|f| {
            (
                f.to_string(),
                format!(
                    "http://{host}:{NM_WEB_PORT}/node/containerlogs/{container_id}/{user}/{f}?start=-4096"
                ),
            )
        })
        .collect()
}

/// The attributes of a YARN container, as `YarnContainerInfoHelper.getAttributes` gives them
/// (keys in the order a real Spark 4.0 event log lists them).
pub fn yarn_attributes(host: &str, container_id: &str, user: &str) -> Vec<(String, String)> {
    [
        ("NM_HTTP_ADDRESS", format!("{host}:{NM_WEB_PORT}")),
        ("USER", user.to_string()),
        ("LOG_FILES", "stderr,stdout".to_string()),
        ("NM_HTTP_PORT", NM_WEB_PORT.to_string()),
        ("CLUSTER_ID", String::new()),
        ("NM_PORT", NM_PORT.to_string()),
        ("HTTP_SCHEME", "http://".to_string()),
        ("NM_HOST", host.to_string()),
        ("CONTAINER_ID", container_id.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The driver's handler: the pattern, and whether the one notice was logged.
pub struct ExecutorLogUrlHandler {
    pattern: Option<String>,
    informed: bool,
}

impl ExecutorLogUrlHandler {
    pub fn new(pattern: Option<String>) -> Self {
        ExecutorLogUrlHandler {
            pattern,
            informed: false,
        }
    }

    /// `applyPattern`: the executor's own URLs without a pattern or when an attribute the
    /// pattern names is missing (said once at INFO), else the rewritten ones.
    #[cfg(test)]
    pub fn apply_pattern(
        &mut self,
        log: &ProcessLog,
        log_urls: &[(String, String)],
        attributes: &[(String, String)],
    ) -> Vec<(String, String)> {
        self.rewrite(log, attributes)
            .unwrap_or_else(|| log_urls.to_vec())
    }

    /// The rewritten URLs, or `None` where `applyPattern` keeps the executor's own.
    pub fn rewrite(
        &mut self,
        log: &ProcessLog,
        attributes: &[(String, String)],
    ) -> Option<Vec<(String, String)>> {
        let pattern = self.pattern.as_ref()?;
        let all: BTreeSet<&str> = placeholders(pattern).collect();
        let except_file: BTreeSet<&str> =
            all.iter().copied().filter(|p| *p != "FILE_NAME").collect();
        let keys: BTreeSet<&str> = attributes.iter().map(|(k, _)| k.as_str()).collect();
        let attr = |k: &str| {
            attributes
                .iter()
                .find(|(a, _)| a == k)
                .map(|(_, v)| v.as_str())
        };
        let missing = except_file
            .iter()
            .any(|p| *p == "LOG_FILES" || !keys.contains(p));
        let reason = if missing {
            Some("some of required attributes are missing in app's event log.")
        } else if all.contains("FILE_NAME") && !keys.contains("LOG_FILES") {
            Some(
                "'FILE_NAME' parameter is provided, but file information is missing in app's event log.",
            )
        } else {
            None
        };
        if let Some(reason) = reason {
            inform(&mut self.informed, log, reason, &except_file, &keys);
            return None;
        }
        let mut url = pattern.clone();
        for p in &except_file {
            url = url.replace(&format!("{{{{{p}}}}}"), attr(p).unwrap_or_default());
        }
        if !all.contains("FILE_NAME") {
            return Some(vec![("log".to_string(), url)]);
        }
        let mut urls: Vec<(String, String)> = attr("LOG_FILES")
            .unwrap_or_default()
            .split(',')
            .map(|f| (f.to_string(), url.replace("{{FILE_NAME}}", f)))
            .collect();
        urls.sort();
        Some(urls)
    }
}

/// `logFailToRenewLogUrls`: once per application. Scala prints the sets in their own order;
/// sparkyard prints them sorted.
fn inform(
    informed: &mut bool,
    log: &ProcessLog,
    reason: &str,
    patterns: &BTreeSet<&str>,
    keys: &BTreeSet<&str>,
) {
    if std::mem::replace(informed, true) {
        return;
    }
    let set =
        |s: &BTreeSet<&str>| format!("Set({})", s.iter().copied().collect::<Vec<_>>().join(", "));
    info!(
        log,
        "driver::ExecutorLogUrlHandler",
        "Fail to renew executor log urls: {reason}. Required: {} / available: {}. Falling back to show app's original log urls.",
        set(patterns),
        set(keys)
    );
}

/// `CUSTOM_URL_PATTERN_REGEX`: `{{NAME}}` with NAME of `[A-Za-z0-9_-]+`.
fn placeholders(pattern: &str) -> impl Iterator<Item = &str> {
    pattern.split("{{").skip(1).filter_map(|rest| {
        let (name, _) = rest.split_once("}}")?;
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        ok.then_some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::logs::LogStore;
    use std::cell::RefCell;
    use std::rc::Rc;

    fn urls() -> Vec<(String, String)> {
        vec![("stderr".into(), "http://nm-1:8042/stderr".into())]
    }

    /// ExecutorLogUrlHandler.scala doApplyPattern (Spark 4.0): `{{FILE_NAME}}` gives one URL per
    /// LOG_FILES entry; without it a single "log" URL; a missing attribute keeps the originals
    /// and logs the notice once (ExecutorLogUrlHandlerSuite's cases).
    #[test]
    fn patterns_rewrite_urls_as_spark_does() {
        let store = Rc::new(RefCell::new(LogStore::new(true)));
        let log = ProcessLog::new("driver", store.clone());
        let attrs = yarn_attributes("nm-1", "container_1_0001_01_000002", "alice");
        let pattern =
            "{{HTTP_SCHEME}}{{NM_HOST}}:{{NM_HTTP_PORT}}/logs/{{CONTAINER_ID}}/{{FILE_NAME}}";
        let mut h = ExecutorLogUrlHandler::new(Some(pattern.into()));
        assert_eq!(
            h.apply_pattern(&log, &urls(), &attrs),
            vec![
                (
                    "stderr".to_string(),
                    "http://nm-1:8042/logs/container_1_0001_01_000002/stderr".to_string()
                ),
                (
                    "stdout".to_string(),
                    "http://nm-1:8042/logs/container_1_0001_01_000002/stdout".to_string()
                ),
            ]
        );
        let mut one = ExecutorLogUrlHandler::new(Some("{{NM_HOST}}/all".into()));
        assert_eq!(
            one.apply_pattern(&log, &urls(), &attrs),
            vec![("log".to_string(), "nm-1/all".to_string())]
        );
        let mut missing = ExecutorLogUrlHandler::new(Some("{{NO_SUCH}}/x".into()));
        assert_eq!(missing.apply_pattern(&log, &urls(), &attrs), urls());
        assert_eq!(missing.apply_pattern(&log, &urls(), &attrs), urls());
        let s = store.borrow();
        let err = &s.output("driver").expect("logged").stderr;
        assert_eq!(
            err.matches("Fail to renew executor log urls").count(),
            1,
            "{err}"
        );
        assert!(err.contains("some of required attributes are missing in app's event log.. Required: Set(NO_SUCH) / available: Set(CLUSTER_ID, CONTAINER_ID, HTTP_SCHEME, LOG_FILES, NM_HOST, NM_HTTP_ADDRESS, NM_HTTP_PORT, NM_PORT, USER). Falling back"), "{err}");
        let mut none = ExecutorLogUrlHandler::new(None);
        assert_eq!(none.apply_pattern(&log, &urls(), &attrs), urls());
    }
}
