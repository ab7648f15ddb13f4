//! A program's RDDs and their dependencies, and the stages `DAGScheduler` makes of a job over
//! them (Spark: `DAGScheduler.createResultStage` / `getOrCreateShuffleMapStage` /
//! `getMissingAncestorShuffleDependencies`): stage ids in creation order (parents first),
//! each shuffle-map stage named by its shuffle's RDD, with the RDDs `StageInfo.fromStage`
//! lists. Examples with iterative lineages (SparkTC) build their jobs with it.

use super::scope_of;
use sparkyard_messages::task::{
    DeterministicLevel, JobSpec, RddSpec, ShuffleWriteSize, StageLineage, StageSpec, TaskWork,
};

/// A dependency of an RDD on its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dep {
    /// `OneToOneDependency` / `RangeDependency`: the parent's partitions are computed in the
    /// same task.
    Narrow(u32),
    /// `ShuffleDependency` with its `shuffleId`.
    Shuffle { parent: u32, shuffle: u32 },
}

/// One RDD of the program.
#[derive(Clone, Debug)]
pub struct Rdd {
    pub spec: RddSpec,
    pub deps: Vec<Dep>,
    pub partitions: u32,
}

/// What a stage's tasks cost and write: the program's data model for the stage's RDD.
#[derive(Clone, Debug, Default)]
pub struct StageWork {
    pub task_ms: Vec<u64>,
    pub shuffle_write: ShuffleWriteSize,
}

/// The RDDs, indexed by id (ids are dense from 0, as `SparkContext.newRddId` gives them).
#[derive(Clone, Debug, Default)]
pub struct RddGraph {
    pub rdds: Vec<Rdd>,
}

impl RddGraph {
    pub fn add(&mut self, rdd: Rdd) -> u32 {
        debug_assert_eq!(rdd.spec.id as usize, self.rdds.len());
        self.rdds.push(rdd);
        (self.rdds.len() - 1) as u32
    }

    /// `getShuffleDependenciesAndResourceProfiles`: the shuffle dependencies reached through
    /// narrow ones, in the order Spark's traversal finds them (a stack: a later parent is
    /// visited first), then rotated by one. Spark keeps them in a HashSet of objects hashed by
    /// identity, so its order is arbitrary; this one gives the stage ids of a real SparkTC log
    /// (jobs 1 and 2).
    fn shuffle_deps(&self, rdd: u32) -> Vec<(u32, u32)> {
        let mut found = Vec::new();
        let mut visited = vec![false; self.rdds.len()];
        let mut waiting = vec![rdd];
        while let Some(r) = waiting.pop() {
            if std::mem::replace(&mut visited[r as usize], true) {
                continue;
            }
            for d in &self.rdds[r as usize].deps {
                match *d {
                    Dep::Shuffle { parent, shuffle } => {
                        if !found.contains(&(shuffle, parent)) {
                            found.push((shuffle, parent));
                        }
                    }
                    Dep::Narrow(p) => waiting.push(p),
                }
            }
        }
        let by = usize::from(!found.is_empty());
        found.rotate_right(by);
        found
    }

    /// `rdd.getNarrowAncestors`, after the RDD itself (`StageInfo.fromStage`'s RDD infos).
    fn stage_rdds(&self, rdd: u32) -> Vec<RddSpec> {
        let mut out = vec![rdd];
        let mut i = 0;
        while i < out.len() {
            for d in &self.rdds[out[i] as usize].deps {
                if let Dep::Narrow(p) = *d
                    && !out.contains(&p)
                {
                    out.push(p);
                }
            }
            i += 1;
        }
        out.iter()
            .map(|r| self.rdds[*r as usize].spec.clone())
            .collect()
    }

    /// The stages of a job whose action runs on `final_rdd`, in id order, the ResultStage last;
    /// `work(rdd)` gives each stage's tasks and shuffle sizes, `details(rdd, is_result)` its long
    /// call site.
    pub fn job(
        &self,
        call_site: String,
        final_rdd: u32,
        action_scope: (u32, &str),
        work: &dyn Fn(u32) -> StageWork,
        details: &dyn Fn(u32, bool) -> String,
    ) -> JobSpec {
        let mut b = Builder {
            graph: self,
            order: Vec::new(),
        };
        let parents = b.parents(final_rdd);
        let mut stages: Vec<StageSpec> = b
            .order
            .iter()
            .map(|(shuffle, rdd, parents)| {
                self.stage(*rdd, parents.clone(), Some(*shuffle), work, details, None)
            })
            .collect();
        stages.push(self.stage(final_rdd, parents, None, work, details, Some(action_scope)));
        JobSpec { call_site, stages }
    }

    fn stage(
        &self,
        rdd: u32,
        parents: Vec<usize>,
        shuffle: Option<u32>,
        work: &dyn Fn(u32) -> StageWork,
        details: &dyn Fn(u32, bool) -> String,
        action_scope: Option<(u32, &str)>,
    ) -> StageSpec {
        let r = &self.rdds[rdd as usize];
        let w = work(rdd);
        StageSpec {
            rdd_description: format!("{}[{}] at {}", r.spec.name, r.spec.id, r.spec.callsite),
            num_partitions: r.partitions,
            parents,
            tasks: w
                .task_ms
                .iter()
                .map(|ms| TaskWork::Sleep {
                    duration_ms: (*ms).max(1),
                    fail: None,
                })
                .collect(),
            shuffle_write: w.shuffle_write,
            preferred_hosts: Vec::new(),
            input_path: None,
            input: Default::default(),
            lineage: Some(Box::new(StageLineage {
                rdds: self.stage_rdds(rdd),
                details: details(rdd, action_scope.is_some()),
                action_scope: action_scope.map(scope_of),
                shuffle_id: shuffle,
            })),
            result_bytes: Default::default(),
            barrier: false,
        }
    }
}

/// The stages made so far for one job: (shuffle, its map-side RDD, parent stage indices).
struct Builder<'a> {
    graph: &'a RddGraph,
    order: Vec<(u32, u32, Vec<usize>)>,
}

impl Builder<'_> {
    fn index_of(&self, shuffle: u32) -> Option<usize> {
        self.order.iter().position(|(s, _, _)| *s == shuffle)
    }

    /// `getOrCreateParentStages`: the stage index of each shuffle dependency of `rdd` (made in
    /// the traversal's order, listed by id: Spark's list follows its HashSet).
    fn parents(&mut self, rdd: u32) -> Vec<usize> {
        let mut parents: Vec<usize> = self
            .graph
            .shuffle_deps(rdd)
            .into_iter()
            .map(|(shuffle, parent)| self.get_or_create(shuffle, parent))
            .collect();
        parents.sort_unstable();
        parents
    }

    /// `getOrCreateShuffleMapStage`: the missing ancestors first
    /// (`getMissingAncestorShuffleDependencies`, each found one prepended), then the stage.
    fn get_or_create(&mut self, shuffle: u32, rdd: u32) -> usize {
        if let Some(i) = self.index_of(shuffle) {
            return i;
        }
        let mut ancestors: Vec<(u32, u32)> = Vec::new();
        let mut visited = vec![false; self.graph.rdds.len()];
        let mut waiting = vec![rdd];
        while !waiting.is_empty() {
            let r = waiting.remove(0);
            if std::mem::replace(&mut visited[r as usize], true) {
                continue;
            }
            for (s, p) in self.graph.shuffle_deps(r) {
                if self.index_of(s).is_none() {
                    ancestors.insert(0, (s, p));
                    waiting.insert(0, p);
                }
            }
        }
        for (s, p) in ancestors {
            if self.index_of(s).is_none() {
                self.create(s, p);
            }
        }
        self.create(shuffle, rdd)
    }

    /// `createShuffleMapStage`: its parents, then its id.
    fn create(&mut self, shuffle: u32, rdd: u32) -> usize {
        let parents = self.parents(rdd);
        self.order.push((shuffle, rdd, parents));
        self.order.len() - 1
    }
}

/// An RDD spec without a scope (the helpers set it).
pub fn rdd_spec(
    id: u32,
    name: &str,
    callsite: String,
    scope: (u32, &str),
    parents: Vec<u32>,
) -> RddSpec {
    RddSpec {
        id,
        name: name.into(),
        callsite,
        scope: Some(scope_of(scope)),
        parent_ids: parents,
        cached: false,
        deterministic_level: DeterministicLevel::Determinate,
    }
}
