//! GPUs as a YARN resource type end to end: `[[nodes]] gpus` with `yarn.resource-types =
//! yarn.io/gpu`, Spark's executor asks carrying `yarn.io/gpu` (ResourceRequestHelper), the
//! CapacityScheduler placing a container only where a GPU is free, the ResourceManager refusing
//! an ask above the GPU maximum (SchedulerUtils), the NodeManager's GpuResourceAllocator giving
//! each executor its device, and a YARN without the type (Spark's warning, asks without GPUs).

use crate::common::{TestDir, am_stderr_of, submit_pi};
use sparkyard::runner::RunResult;

/// A cluster file: two NodeManagers of 16 GB / 8 vcores with `gpus` GPUs each, with or without
/// the GPU resource type.
fn cluster(dir: &TestDir, gpus: u32, typed: bool) -> String {
    let yarn = if typed {
        "[yarn]\n\"yarn.resource-types\" = \"yarn.io/gpu\"\n"
    } else {
        ""
    };
    let text = format!(
        "{yarn}[[nodes]]\nhost = \"gpu-{{n}}.sparkyard.internal\"\ncount = 2\nmemory_mb = 16384\nvcores = 8\ngpus = {gpus}\n"
    );
    let path = dir.path().join("cluster.toml");
    std::fs::write(&path, text).expect("cluster file");
    path.display().to_string()
}

/// SparkPi on `cluster` with `executors` executors asking `gpus` GPUs each.
fn run(cluster: &str, executors: &str, gpus: &str) -> RunResult {
    let amount = format!("spark.executor.resource.gpu.amount={gpus}");
    submit_pi(&[
        "--cluster",
        cluster,
        "--num-executors",
        executors,
        "--conf",
        &amount,
        "--conf",
        "spark.executor.resource.gpu.discoveryScript=/opt/getGpus.sh",
        "app.jar",
        "20",
    ])
    .expect("runs")
}

/// Two nodes with one GPU each, three executors asking one GPU: two containers are allocated
/// (one a node: the scheduler fits GPUs too), each process started with its node's GPU 0; the
/// third ask waits for room that never comes, and SparkPi finishes on the two.
#[test]
fn a_third_gpu_executor_waits_when_every_gpu_is_taken() {
    let dir = TestDir::new("yarn-gpus-wait");
    let r = run(&cluster(&dir, 1, true), "3", "1");
    assert_eq!(r.counters.executors_launched, 2, "one executor a GPU");
    assert_eq!(r.counters.executors_registered, 2);
    assert_eq!(r.counters.tasks_finished, 20);
    let gpus: Vec<&Vec<u32>> = r.counters.container_gpus.values().collect();
    assert_eq!(
        gpus,
        [&vec![0], &vec![0]],
        "each executor got its node's GPU 0"
    );
    assert!(
        r.counters.container_gpus.keys().all(|c| c.id != 1),
        "the AM asked for no GPU"
    );
    assert_eq!(r.counters.executor_asks_refused, None);
}

/// An executor asking two GPUs when the largest node has one: the ResourceManager refuses the
/// allocate call (InvalidResourceRequestException, SchedulerUtils' GREATER_THEN_MAX_ALLOCATION
/// text for yarn.io/gpu).
#[test]
fn an_ask_over_the_gpu_maximum_is_refused() {
    let dir = TestDir::new("yarn-gpus-max");
    let r = run(&cluster(&dir, 1, true), "1", "2");
    assert_eq!(r.counters.executors_launched, 0);
    assert_eq!(
        r.counters.executor_asks_refused,
        Some("org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException")
    );
    assert!(
        am_stderr_of(&r).contains("Requested resource type=[yarn.io/gpu], Requested resource=<memory:1408, vCores:1, yarn.io/gpu: 2>, maximum allowed allocation=<memory:8192, vCores:4, yarn.io/gpu: 1>, please note that maximum allowed allocation is calculated by scheduler based on maximum resource of registered NodeManagers, which might be less than configured maximum allocation=<memory:8192, vCores:4, yarn.io/gpu: 9223372036854775807>"),
        "{}",
        am_stderr_of(&r)
    );
}

/// A YARN without the GPU type: Spark's YarnAllocator warns (ResourceRequestHelper's
/// ResourceNotFoundException catch) and asks without GPUs, so the executors run where memory
/// and vcores allow and no container gets a GPU.
#[test]
fn a_yarn_without_the_gpu_type_gets_asks_without_gpus() {
    let dir = TestDir::new("yarn-gpus-untyped");
    let r = run(&cluster(&dir, 0, false), "3", "1");
    assert_eq!(r.counters.executors_launched, 3);
    assert!(r.counters.container_gpus.is_empty());
    let stderr = am_stderr_of(&r);
    let warning = "WARN ResourceRequestHelper: YARN doesn't know about resource yarn.io/gpu, your resource discovery has to handle properly discovering and isolating the resource! Error: The resource manager encountered a problem";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
}

/// SparkPi whose driver asks for a GPU of its own (`spark.driver.resource.gpu.amount=1`),
/// with or without its discovery script.
fn driver_gpu(cluster: &str, script: bool) -> RunResult {
    let mut args = vec![
        "--cluster",
        cluster,
        "--conf",
        "spark.driver.resource.gpu.amount=1",
    ];
    if script {
        args.extend([
            "--conf",
            "spark.driver.resource.gpu.discoveryScript=/opt/getGpus.sh",
        ]);
    }
    args.extend(["app.jar", "4"]);
    submit_pi(&args).expect("runs")
}

/// The driver's own resources: Spark 4.0.0's `SparkContext` runs
/// `ResourceUtils.getOrDiscoverAllResources(conf, "spark.driver", resourcesFile)` right after
/// its `Java version` line (the 4.0.0 jar's constructor), before `Submitted application`. In
/// cluster mode on a YARN with `yarn.io/gpu` the AM's container holds the GPU
/// (`ResourceRequestHelper`) and the driver's script finds it; without a script
/// `ResourceDiscoveryScriptPlugin` throws "User is expecting to use resource: gpu, but didn't
/// specify a discovery script!" (its text in the jar), the context fails and, before the AM
/// registered, `ApplicationMaster.finish` records exit 13 in each attempt. Before, sparkyard's
/// driver logged "No custom resources configured for spark.driver." and ran on.
#[test]
fn the_driver_discovers_the_gpu_yarn_gave_its_container_and_fails_without_a_script() {
    use sparkyard_messages::listener::ResourceInformation;
    use sparkyard_messages::records::FinalApplicationStatus;
    let gpu0 = vec![ResourceInformation {
        name: "gpu".into(),
        addresses: vec!["0".into()],
    }];
    let typed = TestDir::new("yarn-gpus-driver");
    let c = cluster(&typed, 1, true);
    let found = driver_gpu(&c, true);
    assert_eq!(
        found.outcome.final_status,
        Some(FinalApplicationStatus::Succeeded)
    );
    assert_eq!(found.counters.driver_resources.get(&1), Some(&gpu0));
    let am_gpus = found
        .counters
        .container_gpus
        .iter()
        .find(|(c, _)| c.id == 1);
    assert_eq!(
        am_gpus.map(|(_, m)| m.clone()),
        Some(vec![0]),
        "the AM's GPU"
    );
    let refused = driver_gpu(&c, false);
    assert_eq!(
        refused.outcome.final_status,
        Some(FinalApplicationStatus::Failed)
    );
    assert_eq!(crate::common::am_exit_codes(&refused), [13, 13]);
    assert_eq!(refused.counters.executors_launched, 0);
    assert!(refused.counters.driver_resources.is_empty());
    assert!(
        refused.outcome.diagnostics.contains(
            "org.apache.spark.SparkException: User is expecting to use resource: gpu, but didn't specify a discovery script!"
        ),
        "{}",
        refused.outcome.diagnostics
    );
    // A YARN without the type gives the AM no GPU: the script finds what was asked (sparkyard
    // does not model devices YARN does not know).
    let untyped = TestDir::new("yarn-gpus-driver-untyped");
    let plain = driver_gpu(&cluster(&untyped, 0, false), true);
    assert_eq!(plain.counters.driver_resources.get(&1), Some(&gpu0));
    assert!(plain.counters.container_gpus.is_empty());
}
