//! What an executor reads from the `SparkConf` it built from the driver's properties
//! (Spark: `CoarseGrainedExecutorBackend.run`'s `driverConf`, read through
//! `internal/config/package.scala`'s entries): the heartbeat (`spark.executor.heartbeatInterval`,
//! `spark.executor.heartbeat.maxFailures`), the RPC timeouts, and the decommissioning switches
//! and `spark.storage.decommission.*` settings. Defaults are Spark 4.0.0's (read in the jar's
//! `org.apache.spark.internal.config.package$`).

use crate::rpc::AskTimeout;
use crate::spark_core::block_manager_decommissioner::DecommissionerConf;
use crate::spark_core::executor_backend_state::DecommissionRules;
use crate::spark_core::executor_state::DEFAULT_HEARTBEAT_MAX_FAILURES;
use crate::world::spark_conf::SparkConfView;

/// What the executor reads from the `SparkConf` it built from the fetched properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutorConf {
    /// `spark.executor.heartbeatInterval`, ms.
    pub heartbeat_interval_ms: u64,
    /// `spark.executor.heartbeat.maxFailures`: heartbeats failed in a row before the executor
    /// exits 56.
    pub heartbeat_max_failures: u32,
    /// `spark.rpc.askTimeout` (or `spark.network.timeout`), ms, and the key that set it.
    pub ask_timeout_ms: u64,
    pub ask_timeout_property: String,
    /// `spark.rpc.lookupTimeout` (or `spark.network.timeout`), ms, and the key that set it.
    pub lookup_timeout_ms: u64,
    pub lookup_timeout_property: String,
    /// `spark.decommission.enabled`.
    pub decommission_enabled: bool,
    /// `spark.storage.decommission.enabled` and at least one of its `rddBlocks` /
    /// `shuffleBlocks` switches: whether a decommissioning executor migrates its blocks.
    pub storage_decommission: bool,
    pub storage_decommission_blocks: bool,
    /// The rest of `spark.storage.decommission.*` (the decommissioner's settings).
    pub decommissioner: DecommissionerConf,
}

impl ExecutorConf {
    /// The timeout of the executor's asks to the driver and its peers (`RpcUtils.askRpcTimeout`:
    /// `spark.rpc.askTimeout`, else `spark.network.timeout`, named when it fires).
    pub fn ask_timeout(&self) -> AskTimeout {
        AskTimeout::new(self.ask_timeout_ms, &self.ask_timeout_property)
    }

    /// Spark 4.0's `spark.storage.decommission.*` defaults.
    pub fn default_decommissioner() -> DecommissionerConf {
        ExecutorConf::from_properties(&[]).decommissioner
    }

    pub fn from_properties(props: &[(String, String)]) -> Self {
        let c = SparkConfView(props);
        let (ask_timeout_ms, ask_timeout_property) = c.rpc_timeout("spark.rpc.askTimeout");
        let (lookup_timeout_ms, lookup_timeout_property) = c.rpc_timeout("spark.rpc.lookupTimeout");
        let flag = |key: &str, default: bool| {
            c.get(key)
                .map_or(default, |v| v.eq_ignore_ascii_case("true"))
        };
        // The submit-side validation (sparkyard's conf settings) rejected bad values already.
        let int = |key: &str, default: u32| {
            c.get(key)
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(default)
        };
        ExecutorConf {
            decommission_enabled: flag("spark.decommission.enabled", false),
            storage_decommission: flag("spark.storage.decommission.enabled", false),
            storage_decommission_blocks: flag("spark.storage.decommission.rddBlocks.enabled", true)
                || flag("spark.storage.decommission.shuffleBlocks.enabled", true),
            decommissioner: DecommissionerConf {
                shuffle_blocks: flag("spark.storage.decommission.shuffleBlocks.enabled", true),
                rdd_blocks: flag("spark.storage.decommission.rddBlocks.enabled", true),
                max_threads: int("spark.storage.decommission.shuffleBlocks.maxThreads", 8),
                max_failures: int(
                    "spark.storage.decommission.maxReplicationFailuresPerBlock",
                    3,
                ),
                reattempt_interval_ms: c.time_as_ms(
                    "spark.storage.decommission.replicationReattemptInterval",
                    "30s",
                ),
                cached_peers_ttl_ms: u64::from(int("spark.storage.cachedPeersTtl", 60_000)),
            },
            heartbeat_interval_ms: c.time_as_ms("spark.executor.heartbeatInterval", "10s"),
            heartbeat_max_failures: int(
                "spark.executor.heartbeat.maxFailures",
                DEFAULT_HEARTBEAT_MAX_FAILURES,
            ),
            ask_timeout_ms,
            ask_timeout_property,
            lookup_timeout_ms,
            lookup_timeout_property,
        }
    }
}

impl ExecutorConf {
    /// The backend's decommissioning switches (`decommissionSelf`).
    pub fn decommission_rules(&self) -> DecommissionRules {
        DecommissionRules {
            enabled: self.decommission_enabled,
            storage: self.storage_decommission,
            storage_blocks: self.storage_decommission_blocks,
        }
    }

    /// Whether finished map outputs are kept for a decommission's migration: only a
    /// decommission that migrates shuffle blocks reads them back
    /// (`BlockManagerDecommissioner`'s shuffle thread runs only with
    /// `spark.storage.decommission.shuffleBlocks.enabled`).
    pub fn keeps_shuffle_files(&self) -> bool {
        self.decommission_enabled && self.storage_decommission && self.decommissioner.shuffle_blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(pairs: &[(&str, &str)]) -> ExecutorConf {
        let props: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        ExecutorConf::from_properties(&props)
    }

    /// Spark 4.0.0's defaults (`internal.config.package$` in the jar: EXECUTOR_HEARTBEAT_INTERVAL
    /// "10s", EXECUTOR_HEARTBEAT_MAX_FAILURES 60, STORAGE_DECOMMISSION_* false / true / true,
    /// shuffleBlocks.maxThreads 8, maxReplicationFailuresPerBlock 3,
    /// replicationReattemptInterval "30s", STORAGE_CACHED_PEERS_TTL 60000, DECOMMISSION_ENABLED
    /// false).
    #[test]
    fn defaults_are_spark_4s() {
        let c = conf(&[]);
        assert_eq!(
            (c.heartbeat_interval_ms, c.heartbeat_max_failures),
            (10_000, 60)
        );
        assert!(!c.decommission_enabled && !c.storage_decommission);
        assert!(c.storage_decommission_blocks);
        assert_eq!(
            c.decommissioner,
            DecommissionerConf {
                shuffle_blocks: true,
                rdd_blocks: true,
                max_threads: 8,
                max_failures: 3,
                reattempt_interval_ms: 30_000,
                cached_peers_ttl_ms: 60_000,
            }
        );
        assert_eq!(ExecutorConf::default_decommissioner(), c.decommissioner);
        assert_eq!(
            (c.ask_timeout_ms, c.ask_timeout_property.as_str()),
            (120_000, "spark.rpc.askTimeout")
        );
    }

    /// The keys as a user sets them: time strings with units, booleans in any case.
    #[test]
    fn set_keys_are_read() {
        let c = conf(&[
            ("spark.executor.heartbeatInterval", "2s"),
            ("spark.executor.heartbeat.maxFailures", "3"),
            ("spark.decommission.enabled", "TRUE"),
            ("spark.storage.decommission.enabled", "true"),
            ("spark.storage.decommission.shuffleBlocks.maxThreads", "2"),
            (
                "spark.storage.decommission.replicationReattemptInterval",
                "500ms",
            ),
            ("spark.storage.cachedPeersTtl", "100"),
            ("spark.rpc.askTimeout", "7s"),
        ]);
        assert_eq!(
            (c.heartbeat_interval_ms, c.heartbeat_max_failures),
            (2_000, 3)
        );
        assert!(c.decommission_enabled && c.storage_decommission);
        assert_eq!(c.decommissioner.max_threads, 2);
        assert_eq!(c.decommissioner.reattempt_interval_ms, 500);
        assert_eq!(c.decommissioner.cached_peers_ttl_ms, 100);
        assert_eq!(
            (c.ask_timeout_ms, c.ask_timeout_property.as_str()),
            (7_000, "spark.rpc.askTimeout")
        );
    }

    /// CoarseGrainedExecutorBackend.decommissionSelf (Spark 4.0.0): storage decommissioning
    /// migrates only if RDD or shuffle blocks are switched on; map outputs are kept for it only
    /// when shuffle blocks migrate, under both decommission switches.
    #[test]
    fn migration_needs_a_kind_of_block_and_map_outputs_need_shuffle_blocks() {
        let on = [
            ("spark.decommission.enabled", "true"),
            ("spark.storage.decommission.enabled", "true"),
        ];
        let c = conf(&on);
        assert!(c.keeps_shuffle_files());
        let r = c.decommission_rules();
        assert!(r.enabled && r.storage && r.storage_blocks);

        let rdd_only = conf(&[
            on[0],
            on[1],
            ("spark.storage.decommission.shuffleBlocks.enabled", "false"),
        ]);
        assert!(rdd_only.decommission_rules().storage_blocks);
        assert!(!rdd_only.keeps_shuffle_files());

        let neither = conf(&[
            on[0],
            on[1],
            ("spark.storage.decommission.shuffleBlocks.enabled", "false"),
            ("spark.storage.decommission.rddBlocks.enabled", "false"),
        ]);
        assert!(!neither.decommission_rules().storage_blocks);

        assert!(
            !conf(&[on[1]]).keeps_shuffle_files(),
            "executor decommission off"
        );
        assert!(
            !conf(&[on[0]]).keeps_shuffle_files(),
            "storage decommission off"
        );
    }
}
