//! The Spark properties a what-if grid may vary: those sparkyard's simulation reads (through
//! `conf::settings` and the submit pipeline, as Spark's `SparkConf` and `YarnAllocator` read
//! them). A grid key outside them is refused, with the nearest one when it looks misspelled,
//! so that no grid silently varies a key nothing reads.

/// Properties the simulation reads and a what-if may vary: each is `simulated` in the key
/// registry (`conf::keys`, tested), and changes the simulated run's course (the registry's
/// other simulated keys name files, logs and ids, which no grid row would show).
pub const SIMULATED: &[&str] = &[
    "spark.executor.instances",
    "spark.executor.cores",
    "spark.executor.memory",
    "spark.executor.memoryOverhead",
    "spark.executor.memoryOverheadFactor",
    "spark.executor.minMemoryOverhead",
    "spark.executor.heartbeatInterval",
    "spark.executor.maxNumFailures",
    "spark.executor.failuresValidityInterval",
    "spark.executor.decommission.forceKillTimeout",
    "spark.driver.memory",
    "spark.driver.cores",
    "spark.driver.memoryOverhead",
    "spark.driver.memoryOverheadFactor",
    "spark.driver.minMemoryOverhead",
    "spark.memory.offHeap.enabled",
    "spark.memory.offHeap.size",
    "spark.task.cpus",
    "spark.task.maxFailures",
    "spark.stage.maxConsecutiveAttempts",
    "spark.scheduler.mode",
    "spark.speculation",
    "spark.speculation.interval",
    "spark.speculation.multiplier",
    "spark.speculation.quantile",
    "spark.speculation.minTaskRuntime",
    "spark.speculation.task.duration.threshold",
    "spark.speculation.efficiency.enabled",
    "spark.speculation.efficiency.processRateMultiplier",
    "spark.speculation.efficiency.longRunTaskFactor",
    "spark.locality.wait",
    "spark.locality.wait.process",
    "spark.locality.wait.node",
    "spark.locality.wait.rack",
    "spark.locality.wait.legacyResetOnTaskLaunch",
    "spark.shuffle.reduceLocality.enabled",
    "spark.scheduler.minRegisteredResourcesRatio",
    "spark.scheduler.maxRegisteredResourcesWaitingTime",
    "spark.scheduler.revive.interval",
    "spark.scheduler.executorTaskExcludeOnFailureTime",
    "spark.excludeOnFailure.timeout",
    "spark.excludeOnFailure.application.maxFailedExecutorsPerNode",
    "spark.dynamicAllocation.enabled",
    "spark.dynamicAllocation.minExecutors",
    "spark.dynamicAllocation.maxExecutors",
    "spark.dynamicAllocation.initialExecutors",
    "spark.dynamicAllocation.schedulerBacklogTimeout",
    "spark.dynamicAllocation.sustainedSchedulerBacklogTimeout",
    "spark.dynamicAllocation.executorIdleTimeout",
    "spark.dynamicAllocation.cachedExecutorIdleTimeout",
    "spark.dynamicAllocation.executorAllocationRatio",
    "spark.dynamicAllocation.shuffleTracking.enabled",
    "spark.dynamicAllocation.shuffleTracking.timeout",
    "spark.shuffle.service.enabled",
    "spark.shuffle.service.port",
    "spark.shuffle.io.maxRetries",
    "spark.shuffle.io.retryWait",
    "spark.files.fetchFailure.unRegisterOutputOnHost",
    "spark.decommission.enabled",
    "spark.storage.decommission.enabled",
    "spark.storage.decommission.rddBlocks.enabled",
    "spark.storage.decommission.shuffleBlocks.enabled",
    "spark.storage.decommission.shuffleBlocks.maxThreads",
    "spark.storage.decommission.maxReplicationFailuresPerBlock",
    "spark.storage.decommission.replicationReattemptInterval",
    "spark.storage.cachedPeersTtl",
    "spark.network.timeout",
    "spark.rpc.askTimeout",
    "spark.rpc.lookupTimeout",
    "spark.yarn.executor.launch.excludeOnFailure.enabled",
    "spark.yarn.maxAppAttempts",
    "spark.yarn.am.attemptFailuresValidityInterval",
    "spark.yarn.am.waitTime",
    "spark.yarn.queue",
    "spark.yarn.priority",
    "spark.yarn.exclude.nodes",
    "spark.yarn.executor.nodeLabelExpression",
    "spark.yarn.am.nodeLabelExpression",
    "spark.eventLog.enabled",
    // Deprecated names Spark still reads for keys above (its config entries' `withAlternative`
    // and `SparkConf.configsWithAlternatives`, mapped by `conf::spark_conf`).
    "spark.yarn.max.executor.failures",
    "spark.yarn.executor.failuresValidityInterval",
    "spark.yarn.executor.memoryOverhead",
    "spark.yarn.driver.memoryOverhead",
    "spark.unsafe.offHeap",
    "spark.blacklist.timeout",
    "spark.blacklist.application.maxFailedExecutorsPerNode",
    "spark.yarn.blacklist.executor.launch.blacklisting.enabled",
    "spark.scheduler.executorTaskBlacklistTime",
];

/// Whether the simulation reads `key` and a grid may vary it.
pub fn is_simulated(key: &str) -> bool {
    SIMULATED.contains(&key)
}

/// Why `key` cannot be a grid key (`None`: it can): a near miss names the property it looks
/// like; anything else is said not to be simulated (a what-if replays the log's recorded
/// tasks, so a property nothing reads would change no row).
pub fn refusal(key: &str) -> Option<String> {
    if is_simulated(key) {
        return None;
    }
    if let Some(near) = nearest(key) {
        return Some(format!(
            "'{key}' is not a Spark property sparkyard simulates; did you mean '{near}'?"
        ));
    }
    let registered = crate::conf::keys::lookup(key).filter(|k| !k.note.is_empty());
    let why = match registered.map(|k| (k.status, k.note)) {
        Some((crate::conf::keys::KeyStatus::Refused, note)) => {
            return Some(format!("'{key}' fails the submission: {note}"));
        }
        Some((_, note)) => format!(": {note}"),
        None => String::new(),
    };
    Some(format!(
        "sparkyard does not simulate '{key}'{why} (a what-if replays the log's recorded task times; nothing in the simulation reads this property, so every row would be the same). Grid keys that change the simulated run: spark-submit's num-executors, executor-cores, executor-memory, driver-memory, driver-cores, the cluster keys, and Spark properties of executors, memory, dynamic allocation, speculation, locality, scheduling, shuffle, decommissioning and YARN (e.g. spark.dynamicAllocation.maxExecutors, spark.speculation, spark.locality.wait)"
    ))
}

/// The simulated property nearest to `key` when it is a likely misspelling (an edit distance
/// of at most 3 and less than a third of its length; ties go to the first in [`SIMULATED`]).
fn nearest(key: &str) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    SIMULATED
        .iter()
        .map(|k| (edit_distance(&lower, &k.to_ascii_lowercase()), *k))
        .filter(|(d, k)| *d <= 3 && *d * 3 < k.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance (insertions, deletions and substitutions of one character).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = substitute.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid key the registry does not call simulated would vary nothing: the two lists
    /// agree (`spark.executor.decommission.killInterval` was a grid key while only type-checked).
    #[test]
    fn every_grid_key_is_simulated_in_the_key_registry() {
        use crate::conf::keys::{KeyStatus, lookup};
        for k in SIMULATED {
            let status = lookup(k).map(|key| key.status);
            assert_eq!(status, Some(KeyStatus::Simulated), "{k}");
        }
    }

    #[test]
    fn a_misspelled_key_is_refused_with_the_key_it_looks_like() {
        let why = refusal("spark.executor.instancs").expect("refused");
        assert!(
            why.contains("did you mean 'spark.executor.instances'"),
            "{why}"
        );
        let why = refusal("spark.Executor.Cores").expect("refused");
        assert!(why.contains("'spark.executor.cores'"), "{why}");
    }

    #[test]
    fn a_spark_key_the_simulation_does_not_read_is_said_so() {
        let why = refusal("spark.sql.shuffle.partitions").expect("refused");
        assert!(
            why.contains("does not simulate 'spark.sql.shuffle.partitions'"),
            "{why}"
        );
        assert!(!why.contains("did you mean"), "{why}");
    }

    /// Custom YARN resources are kept but not simulated (a grid over them would vary
    /// nothing), and the ones with a Spark twin fail the submission as in Spark
    /// (ResourceRequestHelper.validateResources): the registry says which and why.
    #[test]
    fn simulated_keys_are_accepted_and_the_registry_says_why_others_are_not() {
        for k in [
            "spark.executor.instances",
            "spark.dynamicAllocation.maxExecutors",
        ] {
            assert_eq!(refusal(k), None, "{k}");
        }
        let gpu = refusal("spark.yarn.executor.resource.yarn.io/gpu.amount").unwrap_or_default();
        assert!(
            gpu.contains("fails the submission: ResourceRequestHelper"),
            "{gpu}"
        );
        let widget = refusal("spark.yarn.executor.resource.acme.com/widget.amount");
        let widget = widget.unwrap_or_default();
        assert!(
            widget.contains("custom YARN resources are not simulated"),
            "{widget}"
        );
        let kill = refusal("spark.executor.decommission.killInterval").unwrap_or_default();
        assert!(kill.contains("does not simulate"), "{kill}");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn every_simulated_key_is_one_the_settings_read() {
        // Each key set to "not-a-value" (with the key that turns its feature on, as Spark reads
        // it only then) must make the submission fail or change the settings the simulation
        // runs with: the list names nothing the simulation ignores.
        use crate::pipeline::Submission;
        let base = |extra: &[String]| {
            let mut words: Vec<String> = vec![
                "--master".into(),
                "yarn".into(),
                "--deploy-mode".into(),
                "cluster".into(),
                "--class".into(),
                "org.apache.spark.examples.SparkPi".into(),
            ];
            for kv in extra {
                words.push("--conf".into());
                words.push(kv.clone());
            }
            words.push("spark-examples.jar".into());
            let args = crate::conf::submit::SubmitArgs::from_words(words).expect("words");
            Submission::from_args(args, crate::conf::submit::DefaultsFile::embedded()).and_then(
                |s| {
                    s.prepare(crate::pipeline::RunPlan::default()).map(|mut p| {
                        // Every property is in the environment the event log records: only
                        // what the simulation made of them counts.
                        p.spark.properties.clear();
                        p.config.spark.properties.clear();
                        format!("{:?} {:?}", p.spark, p.config)
                    })
                },
            )
        };
        let plain = base(&[]).expect("the default submission prepares");
        // The control: a property nothing reads neither fails nor changes anything.
        let unread = base(&["spark.sql.shuffle.partitions=not-a-value".into()]);
        assert_eq!(unread.ok().as_ref(), Some(&plain));
        // Some keys are read only once another turns their feature on, as in Spark.
        let enabler = |k: &str| -> Vec<String> {
            let on = |kv: &[&str]| kv.iter().map(|s| s.to_string()).collect();
            if k.starts_with("spark.speculation.") {
                on(&["spark.speculation=true"])
            } else if (k.starts_with("spark.dynamicAllocation.")
                && k != "spark.dynamicAllocation.enabled")
                || k == "spark.storage.decommission.shuffleBlocks.enabled"
            {
                on(&["spark.dynamicAllocation.enabled=true"])
            } else if k == "spark.memory.offHeap.size" {
                on(&[
                    "spark.memory.offHeap.enabled=true",
                    "spark.memory.offHeap.size=1g",
                ])
            } else if k.starts_with("spark.storage.decommission.") && !k.ends_with("n.enabled") {
                on(&[
                    "spark.decommission.enabled=true",
                    "spark.storage.decommission.enabled=true",
                ])
            } else {
                Vec::new()
            }
        };
        let ignored: Vec<&str> = SIMULATED
            .iter()
            .copied()
            .filter(|k| {
                let context = enabler(k);
                let mut with = context.clone();
                with.push(format!("{k}=not-a-value"));
                base(&with).ok() == Some(base(&context).expect("the context prepares"))
            })
            .collect();
        assert!(
            ignored.is_empty(),
            "setting these changes nothing the simulation reads: {ignored:?}"
        );
    }
}
