//! The recording's task locality as the replayed stages' preferred hosts: what a task's
//! `Locality` and host in the log say of its preferred locations (Spark 4.0.0's
//! `TaskSetManager.addPendingTask` / `dequeueTaskHelper`), and where each recorded host is in
//! the simulated cluster ([`HostMap`]).
//!
//! What a recorded level says (read in spark-core_2.13-4.0.0.jar, `dequeueTaskHelper`'s
//! lambdas): `NODE_LOCAL` is a task taken from `pendingTasks.forHost(host)`, so the host it ran
//! on was among its preferred hosts (an input block's, `RDD.preferredLocations`);
//! `PROCESS_LOCAL` is either `forExecutor` (a cached block, or an HDFS-cached one on a host
//! with an executor) or `noPrefs` (no preference at all: Spark reports those PROCESS_LOCAL
//! too); `RACK_LOCAL` and `ANY` are tasks with preferred hosts (a task without any is taken
//! from `noPrefs` first, as PROCESS_LOCAL), none of them the host they ran on, which the log
//! does not name.
//!
//! What the log cannot give stays out on purpose: a NODE_LOCAL task's other block replicas and
//! the real host of a RACK_LOCAL / ANY task's data. Measured on the committed logs (issue 30,
//! `scripts/replay-jobs.py`): only `rapids/attempt_1_eventlog`'s job 3 is placed by its input,
//! and its one recorded host maps to every simulated executor's host; with these preferences
//! removed altogether, every committed log's `replay --json` is byte-identical. The jobs still
//! outside 10 % read `SparkContext.parallelize` data (`ParallelCollectionRDD` with an empty
//! `locationPrefs`: no preference) or a join's shuffles under `spark.locality.wait=0`.

use super::events::RecordedLocality;
use super::model::{Application, ExecutorSpan, Stage};
use sparkyard_actors::simulation::config::NodeSpec;
use std::collections::BTreeMap;

/// Where each host of the recording is in the simulated cluster. The k-th executor to register
/// in the log takes its place as the k-th to register in the simulation (the start-up probe's
/// order), so a recorded host maps to the simulated hosts of the executors that took its
/// executors' places: data local to a recorded executor stays local to its counterpart.
/// A recorded host none of whose executors has a counterpart (a what-if with fewer executors)
/// maps to a node holding no simulated executor, taken in the cluster's order (the data stays on
/// a node the application has no executor on), or, when every node holds one, to the cluster's
/// nodes in turn. A what-if that adds executors or nodes leaves the recorded hosts where their
/// executors' counterparts are: the added executors hold none of the recorded data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostMap {
    hosts: BTreeMap<String, Vec<String>>,
    /// The nodes holding no simulated executor, in the cluster's order.
    spare: Vec<NodeSpec>,
    /// Every node's rack, by host.
    racks: BTreeMap<String, String>,
}

/// Each recorded executor's place in the log's registration order (`SparkListenerExecutorAdded`
/// order, the driver's left out; 0: the first), by id: the k-th to register in the log stands
/// for the k-th to register in the simulation, as in [`HostMap`].
pub fn registration_places(recorded: &[ExecutorSpan]) -> BTreeMap<u32, u32> {
    recorded
        .iter()
        .filter(|e| !e.is_driver())
        .filter_map(|e| e.executor_id.parse::<u32>().ok())
        .zip(0..)
        .collect()
}

/// The host a task prefers when the log says its data was on a host it did not run on and every
/// simulated node runs an executor: outside the cluster (a data node with no NodeManager), so
/// no executor is ever local to it; the simulated scheduler puts a host it does not know on
/// `/default-rack`, as Hadoop's `ScriptBasedMapping` without a script does.
pub const OFF_CLUSTER_HOST: &str = "datanode-without-executor.invalid";

impl HostMap {
    /// The map from the log's executors (in `SparkListenerExecutorAdded` order; the driver's
    /// own is no cluster host), the simulated executors' hosts in registration order, and the
    /// simulated cluster's nodes in its file's order.
    pub fn new(recorded: &[ExecutorSpan], simulated: &[String], nodes: &[NodeSpec]) -> HostMap {
        let executors: Vec<&ExecutorSpan> = recorded.iter().filter(|e| !e.is_driver()).collect();
        let mut hosts: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        for (k, e) in executors.iter().enumerate() {
            let mapped = hosts.entry(e.host.clone()).or_insert_with(|| {
                order.push(&e.host);
                Vec::new()
            });
            if let Some(h) = simulated.get(k).filter(|h| !mapped.contains(h)) {
                mapped.push(h.clone());
            }
        }
        let spare: Vec<NodeSpec> = nodes
            .iter()
            .filter(|n| !simulated.contains(&n.host))
            .cloned()
            .collect();
        let pool: Vec<&String> = if spare.is_empty() {
            nodes.iter().map(|n| &n.host).collect()
        } else {
            spare.iter().map(|n| &n.host).collect()
        };
        let left_over: Vec<&str> = order.into_iter().filter(|h| hosts[*h].is_empty()).collect();
        for (next, host) in left_over.into_iter().enumerate() {
            if let Some(node) = pool.get(next % pool.len().max(1)) {
                hosts.get_mut(host).expect("listed").push((*node).clone());
            }
        }
        let racks = nodes
            .iter()
            .map(|n| (n.host.clone(), n.rack.clone()))
            .collect();
        HostMap {
            hosts,
            spare,
            racks,
        }
    }

    /// The simulated hosts of a recorded host (empty for a host the log's executors never ran
    /// on).
    pub fn get(&self, recorded_host: &str) -> &[String] {
        self.hosts.get(recorded_host).map_or(&[], Vec::as_slice)
    }

    /// Where a task the log shows `RACK_LOCAL` or `ANY` on `ran_on` (a recorded host) had its
    /// data: on a node no simulated executor runs on, in the rack of `ran_on`'s simulated hosts
    /// (`same_rack`: RACK_LOCAL) or in another rack (ANY) when the cluster has such a node, else
    /// on the first such node, else outside the cluster ([`OFF_CLUSTER_HOST`]). The simulated
    /// task then waits as Spark's did: no executor is local to its data, so it runs once the
    /// task set's locality wait lets it go to the rack's or any executor.
    pub fn elsewhere(&self, ran_on: &str, same_rack: bool) -> String {
        let near: Vec<&String> = self
            .get(ran_on)
            .iter()
            .filter_map(|h| self.racks.get(h))
            .collect();
        self.spare
            .iter()
            .find(|n| near.contains(&&n.rack) == same_rack)
            .or(self.spare.first())
            .map_or_else(|| OFF_CLUSTER_HOST.to_string(), |n| n.host.clone())
    }
}

/// A level that says the task had preferred hosts the simulation cannot place itself.
fn located(l: RecordedLocality) -> bool {
    matches!(
        l,
        RecordedLocality::NodeLocal | RecordedLocality::RackLocal | RecordedLocality::Any
    )
}

/// Whether a stage's tasks carry the log's preferences ([`preferred_hosts`] is not empty).
fn located_input(s: &Stage) -> bool {
    s.shuffle_deps.is_empty() && s.tasks.iter().any(|t| located(t.locality))
}

/// Whether the levels the log gives the stage's tasks say where its input was: it reads no
/// shuffle, some task ran NODE_LOCAL, RACK_LOCAL or ANY, and no earlier stage computed a
/// persisted RDD it reads. When one did, the recording's tasks preferred the executors holding
/// its blocks (`DAGScheduler.getCacheLocs` first: application_1553914137147_0018's job 2 ran
/// RACK_LOCAL because a block's holder was busy), which the replay places itself.
pub fn placed_by_input(app: &Application, s: &Stage) -> bool {
    located_input(s) && !reads_earlier_blocks(app, s)
}

/// Whether an earlier stage (stage ids grow in submission order) went through a persisted RDD
/// the stage reads, so its blocks were there when the stage ran.
fn reads_earlier_blocks(app: &Application, s: &Stage) -> bool {
    !s.cached_rdds.is_empty()
        && app.jobs.iter().flat_map(|j| j.stages.iter()).any(|o| {
            o.stage_id < s.stage_id && o.cached_rdds.iter().any(|r| s.cached_rdds.contains(r))
        })
}

/// Whether any stage of the log is placed by its input ([`placed_by_input`]): only then does
/// the replay need to know where the simulated executors are ([`HostMap`]).
pub fn has_located_input(app: &Application) -> bool {
    app.jobs
        .iter()
        .flat_map(|j| j.stages.iter())
        .any(|s| placed_by_input(app, s))
}

/// Each task's preferred hosts in the simulated cluster, as the log shows them: a task that
/// ran `NODE_LOCAL` prefers its recorded host, mapped; one that ran `RACK_LOCAL` or `ANY`
/// prefers a host no executor is local to ([`HostMap::elsewhere`]); a `PROCESS_LOCAL` task has
/// none (no preference, or a cached block, which the replay places itself). Empty (the
/// simulation decides) for a stage that reads a shuffle, whose tasks prefer the map outputs'
/// hosts (`MapOutputTrackerMaster.getPreferredLocationsForShuffle`), which the simulated run
/// places itself, and for a stage whose tasks all ran `PROCESS_LOCAL`. A task over a persisted
/// RDD no earlier stage computed keeps these too (the simulated scheduler asks for its cached
/// block first, `getCacheLocs`, as Spark does); the caller leaves out a stage whose recorded
/// levels came from blocks already held ([`placed_by_input`]). `executors`: the log's, which
/// name each task's host.
pub fn preferred_hosts(executors: &[ExecutorSpan], s: &Stage, map: &HostMap) -> Vec<Vec<String>> {
    if !located_input(s) {
        return Vec::new();
    }
    let host_of: BTreeMap<u32, &str> = executors
        .iter()
        .filter(|e| !e.is_driver())
        .filter_map(|e| Some((e.executor_id.parse().ok()?, e.host.as_str())))
        .collect();
    s.tasks
        .iter()
        .map(|t| match (t.locality, host_of.get(&t.executor_id)) {
            (RecordedLocality::NodeLocal, Some(h)) => map.get(h).to_vec(),
            (RecordedLocality::RackLocal, Some(h)) => vec![map.elsewhere(h, true)],
            (RecordedLocality::Any, Some(h)) => vec![map.elsewhere(h, false)],
            _ => Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn executor(id: &str, host: &str) -> ExecutorSpan {
        ExecutorSpan {
            executor_id: id.into(),
            host: host.into(),
            cores: 1,
            added_ms: 0,
            removed_ms: None,
            removed_reason: None,
            resources: BTreeMap::new(),
            resource_profile_id: 0,
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Nodes nm-1.. nm-n, the first half on /rack-1, the rest on /rack-2.
    fn nodes(n: usize) -> Vec<NodeSpec> {
        (1..=n)
            .map(|i| NodeSpec {
                host: format!("nm-{i}"),
                rack: format!("/rack-{}", 1 + usize::from(i > n.div_ceil(2))),
                memory_mb: 8192,
                vcores: 8,
                label: None,
                gpus: 0,
            })
            .collect()
    }

    /// The recording: 5 executors on 2 hosts (as application_1516285256255_0012's), registered
    /// a, b, a, b, a.
    fn recorded() -> Vec<ExecutorSpan> {
        vec![
            executor("driver", "gateway"),
            executor("1", "a"),
            executor("2", "b"),
            executor("3", "a"),
            executor("4", "b"),
            executor("5", "a"),
        ]
    }

    #[test]
    fn a_recorded_host_maps_to_the_hosts_of_its_executors_counterparts() {
        // One simulated executor per node, registered nm-3, nm-1, nm-5, nm-2, nm-4.
        let sim = names(&["nm-3", "nm-1", "nm-5", "nm-2", "nm-4"]);
        let m = HostMap::new(&recorded(), &sim, &nodes(6));
        assert_eq!(m.get("a"), ["nm-3", "nm-5", "nm-4"]);
        assert_eq!(m.get("b"), ["nm-1", "nm-2"]);
        // The driver's host is no executor's: no place in the cluster.
        assert!(m.get("gateway").is_empty());
        assert!(m.get("elsewhere").is_empty());
    }

    #[test]
    fn with_fewer_executors_a_host_left_over_maps_to_a_node_without_one() {
        // A what-if with one executor: host b's executors have no counterpart; its data stays
        // on a node the application has no executor on (the first such node).
        let m = HostMap::new(&recorded(), &names(&["nm-2"]), &nodes(3));
        assert_eq!(m.get("a"), ["nm-2"]);
        assert_eq!(m.get("b"), ["nm-1"]);
        // Every node holding an executor: the nodes in turn.
        let m = HostMap::new(&recorded(), &names(&["nm-1"]), &nodes(1));
        assert_eq!(m.get("b"), ["nm-1"]);
    }

    #[test]
    fn with_more_executors_the_recorded_hosts_stay_with_the_first_ones() {
        // A what-if on 8 nodes with 8 executors: the three added executors hold no recorded
        // data, so a NODE_LOCAL task still prefers where its executor's counterpart runs.
        let all: Vec<String> = nodes(8).into_iter().map(|n| n.host).collect();
        let m = HostMap::new(&recorded(), &all, &nodes(8));
        assert_eq!(m.get("a"), ["nm-1", "nm-3", "nm-5"]);
        assert_eq!(m.get("b"), ["nm-2", "nm-4"]);
    }

    #[test]
    fn data_off_the_executors_host_is_on_a_node_without_an_executor() {
        // Executors on nm-1 (host a) and nm-2 (host b), both in /rack-1 of 6 nodes (nm-1..3 in
        // /rack-1, nm-4..6 in /rack-2): RACK_LOCAL data is on nm-3, ANY data on nm-4.
        let two = vec![executor("1", "a"), executor("2", "b")];
        let m = HostMap::new(&two, &names(&["nm-1", "nm-2"]), &nodes(6));
        assert_eq!(m.elsewhere("a", true), "nm-3");
        assert_eq!(m.elsewhere("a", false), "nm-4");
        // One rack only: ANY data is on its spare node too.
        let one_rack: Vec<NodeSpec> = nodes(3)
            .into_iter()
            .map(|n| NodeSpec {
                rack: "/default-rack".into(),
                ..n
            })
            .collect();
        let m = HostMap::new(&two, &names(&["nm-1", "nm-2"]), &one_rack);
        assert_eq!(m.elsewhere("a", false), "nm-3");
        // No node without an executor: outside the cluster.
        let m = HostMap::new(&two, &names(&["nm-1", "nm-2"]), &nodes(2));
        assert_eq!(m.elsewhere("a", true), OFF_CLUSTER_HOST);
    }

    #[test]
    fn each_recorded_level_says_what_it_says_of_the_preferences() {
        use crate::replay::model::TaskRecord;
        let task = |executor_id: u32, locality: RecordedLocality| TaskRecord {
            executor_id,
            locality,
            ..TaskRecord::default()
        };
        let executors = vec![executor("1", "a"), executor("2", "b")];
        let m = HostMap::new(&executors, &names(&["nm-1", "nm-2"]), &nodes(6));
        let tasks = vec![
            task(1, RecordedLocality::NodeLocal),
            task(2, RecordedLocality::ProcessLocal),
            task(2, RecordedLocality::RackLocal),
            task(1, RecordedLocality::Any),
        ];
        let mut stage = Stage::of_tasks(0, "count at Input.scala:1", tasks);
        assert_eq!(
            preferred_hosts(&executors, &stage, &m),
            vec![names(&["nm-1"]), vec![], names(&["nm-3"]), names(&["nm-4"])]
        );
        // A stage reading a shuffle: the simulated map outputs decide.
        stage.shuffle_deps = vec![0];
        assert!(preferred_hosts(&executors, &stage, &m).is_empty());
        // Every task PROCESS_LOCAL: nothing the log names.
        stage.shuffle_deps.clear();
        stage
            .tasks
            .iter_mut()
            .for_each(|t| t.locality = RecordedLocality::ProcessLocal);
        assert!(preferred_hosts(&executors, &stage, &m).is_empty());
    }

    /// The log's executors are placed in their `SparkListenerExecutorAdded` order, the
    /// driver's own left out.
    #[test]
    fn registration_places_follow_the_logs_order_without_the_driver() {
        let e = |id: &str| executor(id, "h");
        let places = registration_places(&[e("driver"), e("8"), e("1"), e("4")]);
        assert_eq!(places, BTreeMap::from([(8, 0), (1, 1), (4, 2)]));
    }
}
