//! An executor's custom resources (GPUs) as the driver tracks them: each address's free
//! amount, what a task takes of them at launch and gives back at its end. Spark 4.0.0's
//! `scheduler/ExecutorResourceInfo` (per address, `ResourceAmountUtils`' internal amounts: one
//! whole address is 10^16) and `ExecutorResourcesAmounts` (`availableSlots`,
//! `assignAddressesCustomResources`), which `TaskSchedulerImpl.resourceOffers` asks before a
//! launch and `CoarseGrainedSchedulerBackend`'s `StatusUpdate` releases.

use sparkyard_messages::ids::TaskId;
use sparkyard_messages::jvm_text::{java_string_hash, scala_hash_order, scala_map_order};
use sparkyard_messages::listener::{ResourceInformation, TaskResourceRequest};
use std::collections::BTreeMap;

/// `ResourceAmountUtils.ONE_ENTIRE_RESOURCE`: a whole address in internal units.
pub const ONE_ENTIRE_RESOURCE: i64 = 10_000_000_000_000_000;

/// `ResourceAmountUtils.toInternalResource`: `(amount * ONE_ENTIRE_RESOURCE).toLong`.
pub fn to_internal(amount: f64) -> i64 {
    (amount * ONE_ENTIRE_RESOURCE as f64) as i64
}

/// The cores a `WorkerOffer` shows the scheduler: the executor's free cores, but no more than
/// its free custom resources let tasks use (`resourcesMeetTaskRequirements` refusing the rest);
/// an executor whose tasks ask for no custom resource offers its free cores as they are.
pub fn offer_cores(free_cores: u32, task_cpus: u32, resources: Option<&ExecutorResources>) -> u32 {
    match resources {
        None => free_cores,
        Some(r) => free_cores.min(r.free_task_slots().saturating_mul(task_cpus.max(1))),
    }
}

/// One resource of one executor: its addresses, sorted as `assignAddressesCustomResources`
/// walks them (as strings), and each one's free amount.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ResourceAddresses {
    name: String,
    addresses: Vec<String>,
    free: Vec<i64>,
}

/// What one task took: of resource `resource`, `amount` of address `address`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Taken {
    resource: usize,
    address: usize,
    amount: i64,
}

/// The custom resources of one executor whose profile's tasks ask for some.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutorResources {
    resources: Vec<ResourceAddresses>,
    /// The profile's custom task requests, each with the index of the executor's resource
    /// (`None`: the executor found none of it, so no task fits).
    asks: Vec<(TaskResourceRequest, Option<usize>)>,
    /// What each running task holds, until its `StatusUpdate` releases it.
    held: BTreeMap<TaskId, Vec<Taken>>,
}

impl ExecutorResources {
    /// The executor's found resources (`RegisterExecutor.resources`) against the profile's
    /// task requests; `None` when tasks ask for no custom resource (cores alone count then).
    pub fn new(found: &[ResourceInformation], asks: &[TaskResourceRequest]) -> Option<Self> {
        if asks.is_empty() {
            return None;
        }
        let resources: Vec<ResourceAddresses> = found
            .iter()
            .map(|r| {
                let mut addresses = r.addresses.clone();
                addresses.sort();
                let free = vec![ONE_ENTIRE_RESOURCE; addresses.len()];
                ResourceAddresses {
                    name: r.name.clone(),
                    addresses,
                    free,
                }
            })
            .collect();
        let asks = asks
            .iter()
            .map(|a| (a.clone(), resources.iter().position(|r| r.name == a.name)))
            .collect();
        Some(ExecutorResources {
            resources,
            asks,
            held: BTreeMap::new(),
        })
    }

    /// `ExecutorResourcesAmounts.availableSlots`: the tasks the free amounts still fit, the
    /// fewest over the requests (a whole request needs that many untouched addresses).
    pub fn free_task_slots(&self) -> u32 {
        let mut slots = u64::MAX;
        for (ask, at) in &self.asks {
            let Some(r) = at.map(|i| &self.resources[i]) else {
                return 0;
            };
            let fits = if ask.amount >= 1.0 {
                let whole = r.free.iter().filter(|f| **f == ONE_ENTIRE_RESOURCE).count();
                whole as u64 / ask.amount as u64
            } else {
                let part = to_internal(ask.amount).max(1);
                r.free.iter().map(|f| (*f / part) as u64).sum()
            };
            slots = slots.min(fits);
        }
        u32::try_from(slots).unwrap_or(u32::MAX)
    }

    /// `TaskSchedulerImpl.calculateAvailableSlots` for an executor whose profile's limiting
    /// resource is the custom resource `name` (the executor's cores known, as on YARN): the
    /// tasks all its addresses serve, busy or free (`maxNumConcurrentTasks` passes
    /// `totalAddressesAmount`): `addresses / ceil(amount)` for a whole-number request,
    /// `addresses * floor(1 / amount)` for a fraction; 0 when the executor found none.
    pub fn total_task_slots(&self, name: &str) -> u32 {
        let Some((ask, at)) = self.asks.iter().find(|(a, _)| a.name == name) else {
            return 0;
        };
        let addresses = at.map_or(0, |i| self.resources[i].addresses.len() as u64);
        let slots = if ask.amount >= 1.0 {
            addresses / ask.amount.ceil() as u64
        } else {
            addresses * (1.0 / ask.amount).floor() as u64
        };
        u32::try_from(slots).unwrap_or(u32::MAX)
    }

    /// `assignAddressesCustomResources` then `acquire` for `task`: per request, the first
    /// addresses (in sorted order) that are whole (a whole-number request) or have the
    /// fraction free. Returns the `taskResourceAssignments` text, or `None` when a request
    /// does not fit (nothing is taken then).
    pub fn acquire(&mut self, task: TaskId) -> Option<String> {
        let mut taken = Vec::new();
        for (ask, at) in &self.asks {
            let i = (*at)?;
            taken.extend(self.pick(i, ask.amount)?);
        }
        for t in &taken {
            self.resources[t.resource].free[t.address] -= t.amount;
        }
        let text = self.assignment_text(&taken);
        self.held.insert(task, taken);
        Some(text)
    }

    /// The addresses of resource `i` a task asking `amount` would take.
    fn pick(&self, i: usize, amount: f64) -> Option<Vec<Taken>> {
        let r = &self.resources[i];
        let mut out = Vec::new();
        if amount >= 1.0 {
            let mut left = amount;
            for (address, free) in r.free.iter().enumerate() {
                if left > 0.0 && *free == ONE_ENTIRE_RESOURCE {
                    left -= 1.0;
                    let amount = ONE_ENTIRE_RESOURCE;
                    out.push(Taken {
                        resource: i,
                        address,
                        amount,
                    });
                }
            }
            return (left <= 0.0).then_some(out);
        }
        let part = to_internal(amount);
        let address = r.free.iter().position(|f| *f >= part)?;
        out.push(Taken {
            resource: i,
            address,
            amount: part,
        });
        Some(out)
    }

    /// `StatusUpdate` of a finished task: what it held is free again.
    pub fn release(&mut self, task: TaskId) {
        for t in self.held.remove(&task).unwrap_or_default() {
            let free = &mut self.resources[t.resource].free[t.address];
            *free = (*free + t.amount).min(ONE_ENTIRE_RESOURCE);
        }
    }

    /// `Map(gpu -> Map(0 -> 5000000000000000))`: per resource (the request's order), its
    /// addresses' amounts as the `mutable.HashMap` Spark fills holds them, then `toMap`.
    fn assignment_text(&self, taken: &[Taken]) -> String {
        let mut outer = Vec::new();
        for (ask, at) in &self.asks {
            let Some(i) = at else { continue };
            let r = &self.resources[*i];
            let keyed: Vec<(i32, (&str, i64))> = taken
                .iter()
                .filter(|t| t.resource == *i)
                .map(|t| {
                    let a = r.addresses[t.address].as_str();
                    (java_string_hash(a), (a, t.amount))
                })
                .collect();
            let n = keyed.len();
            let inner: Vec<String> = scala_map_order(scala_hash_order(keyed, n))
                .into_iter()
                .map(|(a, amount)| format!("{a} -> {amount}"))
                .collect();
            let class = if inner.len() > 4 { "HashMap" } else { "Map" };
            outer.push(format!("{} -> {class}({})", ask.name, inner.join(", ")));
        }
        let class = if outer.len() > 4 { "HashMap" } else { "Map" };
        format!("{class}({})", outer.join(", "))
    }
}

/// Tests' executor: GPUs at `addresses`, `task` of a GPU a task.
#[cfg(test)]
pub(crate) fn gpus(addresses: &[&str], task: f64) -> ExecutorResources {
    let found = [ResourceInformation {
        name: "gpu".into(),
        addresses: addresses.iter().map(|a| a.to_string()).collect(),
    }];
    let ask = [TaskResourceRequest {
        name: "gpu".into(),
        amount: task,
    }];
    ExecutorResources::new(&found, &ask).expect("tasks ask for GPUs")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real local-cluster run (4 cores, 1 GPU, 0.5 a task) printed `taskResourceAssignments
    /// Map(gpu -> Map(0 -> 5000000000000000))` for each task; two fit at once.
    #[test]
    fn half_a_gpu_each_fits_two_tasks_on_one_address() {
        let mut r = gpus(&["0"], 0.5);
        assert_eq!(r.free_task_slots(), 2);
        assert_eq!(
            r.acquire(TaskId(0)).as_deref(),
            Some("Map(gpu -> Map(0 -> 5000000000000000))")
        );
        assert!(r.acquire(TaskId(1)).is_some());
        assert_eq!(r.free_task_slots(), 0);
        assert_eq!(r.acquire(TaskId(2)), None);
        r.release(TaskId(0));
        assert_eq!(r.free_task_slots(), 1);
        assert!(r.acquire(TaskId(3)).is_some());
    }

    /// TaskSchedulerImplSuite "Scheduler correctly accounts for GPUs per task" (Spark
    /// core/src/test/scala/org/apache/spark/scheduler/TaskSchedulerImplSuite.scala): one GPU a
    /// task, an offer of 2 free cores and GPUs 0..3 launches 2 of 3 tasks, on "0" then "1";
    /// an offer without the GPU launches none.
    #[test]
    fn scheduler_correctly_accounts_for_gpus_per_task() {
        let mut r = gpus(&["0", "1", "2", "3"], 1.0);
        let cores = offer_cores(2, 1, Some(&r));
        let launched: Vec<String> = (0..cores as u64)
            .filter_map(|t| r.acquire(TaskId(t)))
            .collect();
        assert_eq!(
            launched,
            [
                "Map(gpu -> Map(0 -> 10000000000000000))",
                "Map(gpu -> Map(1 -> 10000000000000000))"
            ]
        );
        let zero_gpus = ExecutorResources::new(
            &[],
            &[TaskResourceRequest {
                name: "gpu".into(),
                amount: 1.0,
            }],
        );
        assert_eq!(offer_cores(2, 1, zero_gpus.as_ref()), 0);
        assert_eq!(offer_cores(2, 1, None), 2);
        // A task's end frees its GPU for the next.
        r.release(TaskId(0));
        assert_eq!(
            r.acquire(TaskId(2)).as_deref(),
            Some("Map(gpu -> Map(0 -> 10000000000000000))")
        );
    }

    /// The 4.0.0 jar's `calculateAvailableSlots` (its bytecode: `ceil` for an amount of 1 or
    /// more, `floor(1 / amount)` times the addresses below): what a barrier job's slot check
    /// counts of a GPU-limited executor, its running tasks' GPUs included.
    #[test]
    fn a_gpu_limited_executors_slots_count_all_its_addresses() {
        let mut one_each = gpus(&["0", "1", "2"], 1.0);
        assert_eq!(one_each.total_task_slots("gpu"), 3);
        assert!(one_each.acquire(TaskId(0)).is_some());
        assert_eq!(one_each.total_task_slots("gpu"), 3);
        assert_eq!(one_each.free_task_slots(), 2);
        assert_eq!(gpus(&["0", "1", "2"], 2.0).total_task_slots("gpu"), 1);
        assert_eq!(gpus(&["0", "1", "2"], 1.5).total_task_slots("gpu"), 1);
        assert_eq!(gpus(&["0", "1"], 0.33).total_task_slots("gpu"), 6);
        assert_eq!(gpus(&[], 1.0).total_task_slots("gpu"), 0);
        assert_eq!(gpus(&["0"], 1.0).total_task_slots("fpga"), 0);
    }

    /// The 4.0.0 jar's `ExecutorResourcesAmounts` rules (and TaskSchedulerImplSuite's
    /// "...with fractional amount": 0.33 of one GPU runs three tasks on "0"): a fraction
    /// leaves an address usable until what is left is less than it; two whole GPUs a task
    /// need two untouched addresses.
    #[test]
    fn fractions_and_whole_numbers_share_addresses_as_spark_4() {
        let mut third = gpus(&["0"], 0.33);
        assert_eq!(third.free_task_slots(), 3);
        for t in 0..3 {
            assert!(third.acquire(TaskId(t)).is_some());
        }
        assert_eq!(third.acquire(TaskId(3)), None);
        let mut two = gpus(&["0", "1", "2"], 2.0);
        assert_eq!(two.free_task_slots(), 1);
        assert_eq!(
            two.acquire(TaskId(0)).as_deref(),
            Some("Map(gpu -> Map(0 -> 10000000000000000, 1 -> 10000000000000000))")
        );
        assert_eq!(two.acquire(TaskId(1)), None);
        let none = ExecutorResources::new(&[], &[]);
        assert_eq!(none, None);
        let missing = ExecutorResources::new(
            &[],
            &[TaskResourceRequest {
                name: "gpu".into(),
                amount: 1.0,
            }],
        )
        .unwrap();
        assert_eq!(missing.free_task_slots(), 0);
    }
}
