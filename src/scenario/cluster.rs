//! A scenario's cluster: a `cluster_file` (relative to the scenario), an inline `[cluster]`
//! table (the keys of a cluster file), or the embedded default (config/cluster.toml), never two.

use crate::conf::cluster::{ClusterConfig, ClusterSource, RawCluster};
use crate::error::UserError;
use std::path::Path;

/// The cluster a scenario names. `text` and `label` are the scenario file's (an inline table's
/// errors name its lines); `dir` is the scenario's folder.
pub(super) fn resolve(
    file: Option<&str>,
    table: Option<&RawCluster>,
    text: &str,
    label: &str,
    dir: &Path,
) -> Result<ClusterConfig, UserError> {
    match (file, table) {
        (Some(_), Some(_)) => Err(UserError::file(
            label,
            "give either cluster_file or a [cluster] table, not both",
        )),
        (Some(f), None) => crate::conf::cluster::load_cluster(ClusterSource::Path(dir.join(f))),
        (None, Some(t)) => crate::conf::cluster::validate_table(t, text, label),
        (None, None) => crate::conf::cluster::load_cluster(ClusterSource::Embedded),
    }
}

/// `host` if it is a NodeManager of the cluster, else an error listing its hosts (a few of
/// them for a large cluster).
pub(super) fn known_host(host: &str, cluster: &ClusterConfig) -> Result<String, String> {
    if cluster.nodes.iter().any(|n| n.host == host) {
        return Ok(host.to_string());
    }
    let hosts: Vec<&str> = cluster.nodes.iter().map(|n| n.host.as_str()).collect();
    let listed = match hosts.as_slice() {
        [] => String::new(),
        few if few.len() <= 10 => few.join(", "),
        many => format!(
            "{}, ... {} ({} NodeManagers)",
            many[..8].join(", "),
            many[many.len() - 1],
            many.len()
        ),
    };
    Err(format!(
        "host: `{host}` is not a NodeManager of this cluster; give a full host name: {listed}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_and_a_table_together_are_refused_and_none_is_the_default() {
        let table: RawCluster = toml::from_str("").expect("an empty table");
        let both = resolve(Some("c.toml"), Some(&table), "", "s.toml", Path::new("."));
        let message = both.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("not both"), "{message}");
        let default = resolve(None, None, "", "s.toml", Path::new(".")).expect("embedded");
        let embedded = crate::conf::cluster::load_cluster(ClusterSource::Embedded).expect("x");
        assert_eq!(default.nodes.len(), embedded.nodes.len());
    }

    #[test]
    fn a_missing_cluster_file_names_its_path() {
        let dir = Path::new("/nonexistent-dir");
        let err = resolve(Some("c.toml"), None, "", "s.toml", dir).err();
        let message = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(message.contains("/nonexistent-dir/c.toml"), "{message}");
    }
}
