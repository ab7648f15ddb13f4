//! The default `ResourceProfile`'s custom resources (GPUs, FPGAs): what
//! `spark.executor.resource.<name>.{amount,discoveryScript,vendor}` and
//! `spark.task.resource.<name>.amount` ask, as Spark 4.0.0 reads them
//! (`ResourceUtils.parseAllResourceRequests` / `addTaskResourceRequests`, `TaskResourceRequest`'s
//! check), and `ResourceProfile.calculateTasksAndLimitingResource` with
//! `ResourceUtils.warnOnWastedResources`: the tasks an executor runs at once, the resource that
//! limits them and the slots each address of a resource holds.

use sparkyard_messages::jvm_text::double_to_string;
pub use sparkyard_messages::listener::{
    ExecutorResourceRequest, ResourceInformation, TaskResourceRequest,
};
use std::collections::BTreeMap;

/// `ResourceUtils.GPU`: the resource name YARN's `yarn.io/gpu` stands for.
pub const GPU: &str = "gpu";

/// The custom (non-built-in) resources of the default profile: none in nearly every run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CustomResources {
    pub executor: Vec<ExecutorResourceRequest>,
    pub task: Vec<TaskResourceRequest>,
}

const EXECUTOR_PREFIX: &str = "spark.executor.resource.";
const TASK_PREFIX: &str = "spark.task.resource.";
const DRIVER_PREFIX: &str = "spark.driver.resource.";

impl CustomResources {
    /// `getDefaultTaskResources` then `getDefaultExecutorResources`' custom part, with the
    /// exceptions they throw (their class and text, as the driver's `SparkContext` reports
    /// them). Names come in key order: Spark lists them in its conf's hash order, which only
    /// matters with two resources or more.
    pub fn of(props: &BTreeMap<String, String>) -> Result<CustomResources, String> {
        let mut task = Vec::new();
        for (name, settings) in resource_settings(props, TASK_PREFIX)? {
            let amount = java_parse_double(amount_of(&name, &settings)?)?;
            // `.filter(_._2 > 0)` before the requests are made.
            if amount > 0.0 {
                task.push(task_request(name, amount)?);
            }
        }
        let executor = component_requests(props, EXECUTOR_PREFIX)?;
        Ok(CustomResources { executor, task })
    }

    /// The executor's request for `name`.
    pub fn executor_amount(&self, name: &str) -> Option<u64> {
        self.executor
            .iter()
            .find(|r| r.name == name)
            .map(|r| r.amount)
    }
}

/// `ResourceUtils.parseAllResourceRequests(conf, "spark.driver")`: the driver's own custom
/// resources (`spark.driver.resource.<name>.{amount,discoveryScript,vendor}`), which its
/// SparkContext discovers first thing (`getOrDiscoverAllResources`), with the exceptions their
/// keys throw.
pub fn driver_requests(
    props: &BTreeMap<String, String>,
) -> Result<Vec<ExecutorResourceRequest>, String> {
    component_requests(props, DRIVER_PREFIX)
}

/// `parseAllResourceRequests` for one component's prefix: each resource's request with an
/// amount above 0 (`.filter(_.amount > 0)`), its amount a Java int.
fn component_requests(
    props: &BTreeMap<String, String>,
    prefix: &str,
) -> Result<Vec<ExecutorResourceRequest>, String> {
    let mut out = Vec::new();
    for (name, settings) in resource_settings(props, prefix)? {
        let amount = java_parse_int(amount_of(&name, &settings)?)?;
        if amount > 0 {
            let get = |k: &str| settings.get(k).cloned().unwrap_or_default();
            out.push(ExecutorResourceRequest {
                amount: amount as u64,
                discovery_script: get("discoveryScript"),
                vendor: get("vendor"),
                name,
            });
        }
    }
    Ok(out)
}

/// `listResourceIds` with each id's settings: a key under the prefix without a `.` after the
/// name fails (`You must specify an amount config for resource: ...`).
fn resource_settings(
    props: &BTreeMap<String, String>,
    prefix: &str,
) -> Result<BTreeMap<String, BTreeMap<String, String>>, String> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let under = props
        .range(prefix.to_string()..)
        .take_while(|(k, _)| k.starts_with(prefix));
    for (key, value) in under {
        let rest = &key[prefix.len()..];
        let Some((name, setting)) = rest.split_once('.') else {
            let component = prefix.trim_end_matches(".resource.");
            return Err(format!(
                "org.apache.spark.SparkException: You must specify an amount config for \
                 resource: {rest} config: {component}.resource.{rest}"
            ));
        };
        let settings = out.entry(name.to_string()).or_default();
        settings.insert(setting.to_string(), value.clone());
    }
    Ok(out)
}

/// `settings.getOrElse(AMOUNT, throw ResourceErrors.specifyAmountForResource(id))`.
fn amount_of<'a>(name: &str, settings: &'a BTreeMap<String, String>) -> Result<&'a str, String> {
    settings.get("amount").map(String::as_str).ok_or_else(|| {
        format!("org.apache.spark.SparkException: You must specify an amount for {name}")
    })
}

/// `TaskResourceRequest`'s constructor: `assert(amount <= 1.0 || amount % 1 == 0, ...)`.
fn task_request(name: String, amount: f64) -> Result<TaskResourceRequest, String> {
    if amount <= 1.0 || amount % 1.0 == 0.0 {
        return Ok(TaskResourceRequest { name, amount });
    }
    Err(format!(
        "java.lang.AssertionError: assertion failed: The resource amount {} must be either <= \
         1.0, or a whole number.",
        double_to_string(amount)
    ))
}

/// Scala's `toInt` (`Integer.parseInt`): an optional sign and decimal digits, else
/// `NumberFormatException: For input string: "<s>"`.
fn java_parse_int(s: &str) -> Result<i32, String> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let well_formed = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    match s.parse::<i32>() {
        Ok(v) if well_formed => Ok(v),
        _ => Err(format!(
            "java.lang.NumberFormatException: For input string: \"{s}\""
        )),
    }
}

/// Scala's `toDouble` (`Double.parseDouble`): surrounding blanks are ignored and a `d`/`f`
/// suffix allowed; an empty string is `empty String`, anything else unparsable names itself.
fn java_parse_double(s: &str) -> Result<f64, String> {
    let t = s.trim_matches(|c: char| c <= ' ');
    if t.is_empty() {
        return Err("java.lang.NumberFormatException: empty String".into());
    }
    let body = t.strip_suffix(['d', 'D', 'f', 'F']).unwrap_or(t);
    body.parse::<f64>()
        .map_err(|_| format!("java.lang.NumberFormatException: For input string: \"{s}\""))
}

/// `ResourceUtils.calculateAmountAndPartsForFraction`: a fraction <= 1 is one address shared
/// by floor(1 / amount) tasks; a larger amount must be whole, one task per address.
pub fn amount_and_parts(amount: f64) -> Result<(u64, u64), String> {
    let parts = if amount <= 1.0 {
        (1.0 / amount).floor() as u64
    } else if amount % 1.0 != 0.0 {
        return Err(format!(
            "org.apache.spark.SparkException: The resource amount {} must be either <= 1.0, or \
             a whole number.",
            double_to_string(amount)
        ));
    } else {
        1
    };
    Ok((amount.ceil() as u64, parts))
}

/// What `calculateTasksAndLimitingResource` settles for the default profile on YARN (where the
/// executor's cores are always known): its log lines come with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// `maxTasksPerExecutor`.
    pub max_tasks_per_executor: u32,
    /// `limitingResource`: `cpus` or a custom resource's name.
    pub limiting_resource: String,
    /// `_executorResourceSlotsPerAddr` of each custom executor resource: the tasks one address
    /// serves at once.
    pub slots_per_address: Vec<(String, u64)>,
    /// Warnings before the `Limiting resource is` line (an executor resource no task asks for).
    pub early_warnings: Vec<String>,
    /// `warnOnWastedResources`' warnings, after it.
    pub wasted_warnings: Vec<String>,
}

impl Limits {
    /// `Limiting resource is <name> at <n> tasks per executor`.
    pub fn limiting_line(&self) -> String {
        format!(
            "Limiting resource is {} at {} tasks per executor",
            self.limiting_resource, self.max_tasks_per_executor
        )
    }

    /// The tasks one address of `name` serves at once (1 for a resource not asked).
    pub fn slots_per_address(&self, name: &str) -> u64 {
        self.slots_per_address
            .iter()
            .find(|(n, _)| n == name)
            .map_or(1, |(_, s)| *s)
    }
}

/// `calculateTasksAndLimitingResource` once `validateTaskCpusLargeEnough` passed: CPUs first,
/// then each custom executor resource a task asks for, the fewest tasks winning (a tie keeps the
/// earlier). Errors are the `SparkException`s it throws.
pub fn calculate(cores: u32, task_cpus: u32, custom: &CustomResources) -> Result<Limits, String> {
    let mut limit = u64::from(cores / task_cpus.max(1));
    let mut limiting = "cpus".to_string();
    let mut slots = Vec::new();
    let mut early_warnings = Vec::new();
    let mut unmatched: Vec<&str> = custom.task.iter().map(|t| t.name.as_str()).collect();
    for exec in &custom.executor {
        let task = custom.task.iter().find(|t| t.name == exec.name);
        let Some(task) = task.filter(|t| t.amount > 0.0) else {
            slots.push((exec.name.clone(), 1));
            early_warnings.push(format!(
                "The executor resource config for resource: {} was specified but no \
                 corresponding task resource request was specified.",
                exec.name
            ));
            continue;
        };
        if task.amount > exec.amount as f64 {
            return Err(format!(
                "org.apache.spark.SparkException: The executor resource: {}, amount: {} needs \
                 to be >= the task resource request amount of {}",
                exec.name,
                exec.amount,
                double_to_string(task.amount)
            ));
        }
        let (per_task, parts) = amount_and_parts(task.amount)?;
        slots.push((exec.name.clone(), parts));
        let tasks = exec.amount * parts / per_task.max(1);
        if tasks < limit {
            limiting = exec.name.clone();
            limit = tasks;
        }
        unmatched.retain(|n| *n != exec.name);
    }
    if !unmatched.is_empty() {
        return Err(format!(
            "org.apache.spark.SparkException: No executor resource configs were specified for \
             the following task configs: {}",
            unmatched.join(",")
        ));
    }
    let mut limits = Limits {
        max_tasks_per_executor: u32::try_from(limit).unwrap_or(u32::MAX),
        limiting_resource: limiting,
        slots_per_address: slots,
        early_warnings,
        wasted_warnings: Vec::new(),
    };
    limits.wasted_warnings = wasted_warnings(cores, task_cpus, custom, &limits);
    Ok(limits)
}

/// `ResourceUtils.warnOnWastedResources` with the executor's cores known: cores a custom
/// resource leaves idle, then each task resource whose addresses could serve more tasks than
/// the limit lets run.
fn wasted_warnings(
    cores: u32,
    task_cpus: u32,
    custom: &CustomResources,
    limits: &Limits,
) -> Vec<String> {
    let task_cpus = task_cpus.max(1);
    let max = u64::from(limits.max_tasks_per_executor);
    let limiting = &limits.limiting_resource;
    let mut out = Vec::new();
    if limiting != "cpus" && u64::from(task_cpus) * max < u64::from(cores) {
        out.push(format!(
            "The configuration of cores (exec = {cores} task = {task_cpus}, runnable tasks = {}) \
             will result in wasted resources due to resource {limiting} limiting the number of \
             runnable tasks per executor to: {max}. Please adjust your configuration.",
            cores / task_cpus
        ));
    }
    for task in &custom.task {
        let exec = custom.executor_amount(&task.name).unwrap_or(0);
        // getSchedulerTaskResourceAmount: a fraction takes one (shared) address.
        let per_task = if task.amount < 1.0 {
            1
        } else {
            task.amount as u64
        };
        let parts = limits.slots_per_address(&task.name);
        let runnable = exec * parts / per_task.max(1);
        if max < runnable {
            out.push(format!(
                "The configuration of resource: {} (exec = {exec}, task = {}/{parts}, runnable \
                 tasks = {runnable}) will result in wasted resources due to resource {limiting} \
                 limiting the number of runnable tasks per executor to: {max}. Please adjust \
                 your configuration.",
                task.name,
                double_to_string(task.amount)
            ));
        }
    }
    out
}

/// `ResourceProfile.maxTasksPerExecutor` of the default profile on YARN: cores over
/// `spark.task.cpus` (at least 1), or fewer when a custom resource limits them. Keys that do not
/// parse give the cores' limit: the SparkContext refuses them itself, before anything reads this.
pub fn default_max_tasks_per_executor(
    cores: u32,
    task_cpus: u32,
    props: &BTreeMap<String, String>,
) -> u32 {
    let cpus = (cores / task_cpus.max(1)).max(1);
    CustomResources::of(props)
        .and_then(|custom| calculate(cores, task_cpus, &custom))
        .map_or(cpus, |l| l.max_tasks_per_executor.max(1))
}

/// The units of a custom resource the executor's discovery script finds in its container:
/// for `gpu`, the GPUs the NodeManager assigned the container (`container_gpus`: its
/// `GpuResourceAllocator`'s devices, shown to the container by its isolation, YARN's Docker
/// runtime numbering them from 0), when YARN scheduled GPUs; otherwise (YARN without the
/// `yarn.io/gpu` type, an FPGA) what the profile asks: sparkyard does not model devices YARN
/// does not know, which a real script would find on the node unisolated.
pub fn container_resource_count(
    request: &ExecutorResourceRequest,
    container_gpus: Option<u32>,
) -> u64 {
    match container_gpus {
        Some(n) if request.name == GPU => u64::from(n),
        _ => request.amount,
    }
}

/// What `parseOrFindResources` found: the lines it logs (`ResourceDiscoveryScriptPlugin`'s
/// one per script) and each resource's addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Discovered {
    pub script_lines: Vec<String>,
    pub resources: Vec<ResourceInformation>,
}

/// `ResourceUtils.getOrDiscoverAllResourcesForResourceProfile` on a YARN executor and
/// `getOrDiscoverAllResources` in the driver's SparkContext (no resources file): each custom
/// resource's discovery script runs, the simulated one reporting the addresses `0..given`
/// (YARN's GPU isolation shows a container its devices from 0), then the check that each found
/// as many as asked (`assertAllResourceAllocationsMatchResourceProfile` /
/// `assertAllResourceAllocationsMeetRequests`, one text). A resource without a script fails as
/// `ResourceDiscoveryScriptPlugin` does; the error is the exception (class and message).
pub fn discover(
    requests: &[ExecutorResourceRequest],
    given: impl Fn(&ExecutorResourceRequest) -> u64,
) -> Result<Discovered, DiscoveryError> {
    let mut found = Discovered {
        script_lines: Vec::new(),
        resources: Vec::new(),
    };
    for r in requests {
        if r.discovery_script.is_empty() {
            return Err(DiscoveryError {
                class: "org.apache.spark.SparkException",
                message: format!(
                    "User is expecting to use resource: {}, but didn't specify a discovery \
                     script!",
                    r.name
                ),
            });
        }
        found.script_lines.push(format!(
            "Discovering resources for {} with script: {}",
            r.name, r.discovery_script
        ));
        let addresses = (0..given(r)).map(|a| a.to_string()).collect();
        found.resources.push(ResourceInformation {
            name: r.name.clone(),
            addresses,
        });
    }
    for (r, info) in requests.iter().zip(&found.resources) {
        if (info.addresses.len() as u64) < r.amount {
            return Err(DiscoveryError {
                class: "java.lang.IllegalArgumentException",
                message: format!(
                    "requirement failed: Resource: {}, with addresses: {} is less than what the \
                     user requested: {})",
                    r.name,
                    info.addresses.join(","),
                    r.amount
                ),
            });
        }
    }
    Ok(found)
}

/// An exception `parseOrFindResources` throws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscoveryError {
    pub class: &'static str,
    pub message: String,
}

/// `ResourceUtils.logResourceInfo`'s middle line for found resources: `Custom resources for
/// spark.<component>:` then the map's entries, one a line (`name -> [name: n, addresses: a,b]`).
pub fn custom_resources_line(component: &str, resources: &[ResourceInformation]) -> String {
    let entries: Vec<String> = resources
        .iter()
        .map(|r| {
            format!(
                "{} -> [name: {}, addresses: {}]",
                r.name,
                r.name,
                r.addresses.join(",")
            )
        })
        .collect();
    format!(
        "Custom resources for spark.{component}:\n{}",
        entries.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn gpus(exec: u64, task: f64) -> CustomResources {
        CustomResources {
            executor: vec![ExecutorResourceRequest {
                name: "gpu".into(),
                amount: exec,
                discovery_script: String::new(),
                vendor: String::new(),
            }],
            task: vec![TaskResourceRequest {
                name: "gpu".into(),
                amount: task,
            }],
        }
    }

    #[test]
    fn the_keys_become_requests() {
        let c = CustomResources::of(&props(&[
            ("spark.executor.resource.gpu.amount", "2"),
            ("spark.executor.resource.gpu.discoveryScript", "/opt/gpu.sh"),
            ("spark.executor.resource.gpu.vendor", "nvidia.com"),
            ("spark.executor.resource.fpga.amount", "0"),
            ("spark.task.resource.gpu.amount", "0.25"),
            ("spark.task.resource.fpga.amount", "0"),
            ("spark.executor.cores", "4"),
        ]))
        .unwrap();
        assert_eq!(
            c.executor,
            [ExecutorResourceRequest {
                name: "gpu".into(),
                amount: 2,
                discovery_script: "/opt/gpu.sh".into(),
                vendor: "nvidia.com".into(),
            }]
        );
        assert_eq!(
            c.task,
            [TaskResourceRequest {
                name: "gpu".into(),
                amount: 0.25
            }]
        );
        assert_eq!(
            CustomResources::of(&props(&[])).unwrap(),
            CustomResources::default()
        );
    }

    /// The texts are the 4.0.0 jar's (`ResourceUtils$`, `TaskResourceRequest`).
    #[test]
    fn malformed_keys_fail_as_spark_does() {
        let err = |pairs: &[(&str, &str)]| CustomResources::of(&props(pairs)).unwrap_err();
        assert_eq!(
            err(&[("spark.executor.resource.gpu", "1")]),
            "org.apache.spark.SparkException: You must specify an amount config for resource: \
             gpu config: spark.executor.resource.gpu"
        );
        assert_eq!(
            err(&[("spark.task.resource.gpu.vendor", "x")]),
            "org.apache.spark.SparkException: You must specify an amount for gpu"
        );
        assert_eq!(
            err(&[("spark.executor.resource.gpu.amount", "0.5")]),
            "java.lang.NumberFormatException: For input string: \"0.5\""
        );
        assert_eq!(
            err(&[("spark.task.resource.gpu.amount", "1.5")]),
            "java.lang.AssertionError: assertion failed: The resource amount 1.5 must be either \
             <= 1.0, or a whole number."
        );
        assert_eq!(
            err(&[("spark.task.resource.gpu.amount", "many")]),
            "java.lang.NumberFormatException: For input string: \"many\""
        );
    }

    /// A real pyspark 4.0.0 driver (`--conf spark.executor.cores=4 --conf
    /// spark.executor.resource.gpu.amount=1 --conf spark.task.resource.gpu.amount=0.5`,
    /// local-cluster, 2026-12-06) logged these two lines.
    #[test]
    fn a_half_gpu_per_task_limits_four_cores_to_two_tasks() {
        let l = calculate(4, 1, &gpus(1, 0.5)).unwrap();
        assert_eq!(
            l.limiting_line(),
            "Limiting resource is gpu at 2 tasks per executor"
        );
        assert_eq!(
            l.wasted_warnings,
            [
                "The configuration of cores (exec = 4 task = 1, runnable tasks = 4) will result in \
              wasted resources due to resource gpu limiting the number of runnable tasks per \
              executor to: 2. Please adjust your configuration."
            ]
        );
        assert_eq!(l.slots_per_address("gpu"), 2);
    }

    /// The 4.0.0 jar's `calculateTasksAndLimitingResource` arithmetic: 0.33 of a GPU is
    /// floor(1 / 0.33) = 3 slots per address; CPUs limit when they allow fewer tasks, and a
    /// whole amount takes that many addresses a task.
    #[test]
    fn fractions_and_cpus_limit_as_resource_profile_suite() {
        let l = calculate(1, 1, &gpus(2, 0.33)).unwrap();
        assert_eq!(
            (l.limiting_resource.as_str(), l.max_tasks_per_executor),
            ("cpus", 1)
        );
        assert_eq!(l.slots_per_address("gpu"), 3);
        assert_eq!(
            l.wasted_warnings,
            [
                "The configuration of resource: gpu (exec = 2, task = 0.33/3, runnable tasks = 6) \
              will result in wasted resources due to resource cpus limiting the number of \
              runnable tasks per executor to: 1. Please adjust your configuration."
            ]
        );
        let whole = calculate(8, 1, &gpus(4, 2.0)).unwrap();
        assert_eq!(whole.max_tasks_per_executor, 2);
        assert_eq!(whole.slots_per_address("gpu"), 1);
        assert_eq!(amount_and_parts(0.25), Ok((1, 4)));
        assert_eq!(amount_and_parts(3.0), Ok((3, 1)));
    }

    /// The jar's `calculateTasksAndLimitingResource` texts.
    #[test]
    fn impossible_profiles_fail_with_sparks_text() {
        assert_eq!(
            calculate(4, 1, &gpus(1, 2.0)).unwrap_err(),
            "org.apache.spark.SparkException: The executor resource: gpu, amount: 1 needs to be \
             >= the task resource request amount of 2.0"
        );
        let task_only = CustomResources {
            executor: Vec::new(),
            ..gpus(1, 1.0)
        };
        assert_eq!(
            calculate(4, 1, &task_only).unwrap_err(),
            "org.apache.spark.SparkException: No executor resource configs were specified for \
             the following task configs: gpu"
        );
        let exec_only = CustomResources {
            task: Vec::new(),
            ..gpus(1, 1.0)
        };
        let l = calculate(4, 1, &exec_only).unwrap();
        assert_eq!(
            l.limiting_line(),
            "Limiting resource is cpus at 4 tasks per executor"
        );
        assert_eq!(
            l.early_warnings,
            [
                "The executor resource config for resource: gpu was specified but no corresponding \
              task resource request was specified."
            ]
        );
    }

    /// The script finds the GPUs the NodeManager gave the container where YARN scheduled them,
    /// else (no `yarn.io/gpu` type, an FPGA) what the profile asks; fewer than asked fails
    /// with `assertResourceAllocationMeetsRequest`'s text.
    #[test]
    fn a_gpu_script_finds_the_containers_gpus_and_other_resources_the_profiles_amount() {
        let mut c = gpus(2, 1.0);
        c.executor[0].discovery_script = "./getGpus".into();
        let found = |n: Option<u32>| discover(&c.executor, |r| container_resource_count(r, n));
        assert_eq!(found(None).unwrap().resources[0].addresses, ["0", "1"]);
        assert_eq!(
            found(Some(3)).unwrap().resources[0].addresses,
            ["0", "1", "2"]
        );
        assert!(
            found(Some(1))
                .unwrap_err()
                .message
                .contains("is less than what the user requested: 2")
        );
        let mut fpga = c.executor[0].clone();
        fpga.name = "fpga".into();
        assert_eq!(container_resource_count(&fpga, Some(1)), 2);
    }

    /// `ResourceDiscoveryScriptPlugin` and `assertAllResourceAllocationsMatchResourceProfile`
    /// (4.0.0 jar texts); the found line is the real local-cluster worker's
    /// (`gpu -> [name: gpu, addresses: 0]`).
    #[test]
    fn discovery_reports_the_container_gpus_or_fails_as_spark() {
        let mut c = gpus(1, 0.5);
        let err = discover(&c.executor, |r| container_resource_count(r, None)).unwrap_err();
        assert_eq!(err.class, "org.apache.spark.SparkException");
        assert_eq!(
            err.message,
            "User is expecting to use resource: gpu, but didn't specify a discovery script!"
        );
        c.executor[0].discovery_script = "/opt/gpu.sh".into();
        let found = discover(&c.executor, |r| container_resource_count(r, None)).unwrap();
        assert_eq!(
            found.script_lines,
            ["Discovering resources for gpu with script: /opt/gpu.sh"]
        );
        assert_eq!(
            custom_resources_line("executor", &found.resources),
            "Custom resources for spark.executor:\ngpu -> [name: gpu, addresses: 0]"
        );
        c.executor[0].amount = 2;
        let short = discover(&c.executor, |_| 1).unwrap_err();
        assert_eq!(
            short.message,
            "requirement failed: Resource: gpu, with addresses: 0 is less than what the user \
             requested: 2)"
        );
        assert_eq!(
            discover(&c.executor, |_| 2).unwrap().resources[0].addresses,
            ["0", "1"]
        );
    }
}
