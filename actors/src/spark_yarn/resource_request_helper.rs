//! The custom resources Spark's YARN side asks for in a container's capability: Spark 4.0's
//! `ResourceRequestHelper` (resource-managers/yarn, `getYarnResourcesFromSparkResources`,
//! `setResourceRequests`) as `YarnAllocator.createYarnResourceForResourceProfile` (executors,
//! default profile) and `Client.createApplicationSubmissionContext` (the cluster-mode AM, the
//! driver's resources) use it. A pure core: the caller logs the warnings.
//!
//! What it mirrors:
//! - `getResourceNameMapping` / `getYarnResourcesFromSparkResources`: Spark's
//!   `<prefix>.resource.{gpu,fpga}.amount` (prefix `spark.executor` or `spark.driver`) becomes
//!   the YARN type `spark.yarn.resource{Gpu,Fpga}DeviceName` (default `yarn.io/gpu`,
//!   `yarn.io/fpga`) when its `toLong` is above 0, the GPU first.
//! - `setResourceRequests`: `resource.setResourceInformation(name, ...)` throws Hadoop's
//!   `ResourceNotFoundException` when the client's `ResourceUtils` does not know the type
//!   (`yarn.resource-types`); Spark catches it, warns (its first two times in a JVM:
//!   `numResourceErrors`) and the capability goes without it. sparkyard knows one type,
//!   `yarn.io/gpu`: any other device name (an FPGA's) is unknown. Each JVM calls it once (the
//!   client, an AM attempt's allocator), so at most two warnings fall within the limit.
//! - Stage-level resource profiles (their own custom resources) are not simulated: only the
//!   default profile asks.

use sparkyard_messages::records::Resource;
use std::collections::BTreeMap;

/// `ResourceInformation.GPU_URI`.
pub const GPU_URI: &str = "yarn.io/gpu";

/// The names `yarn.resource-types` lists, as `ResourceUtils.getResourceTypes` reads them:
/// split on ',', each trimmed, empty ones skipped.
pub fn resource_type_names(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|t| !t.is_empty())
}

/// Which Spark component's resources: `SPARK_EXECUTOR_PREFIX` or `SPARK_DRIVER_PREFIX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    Executor,
    Driver,
}

/// `getResourceNameMapping`, in its order (spark-yarn_2.13-4.0.0.jar: `Map(GPU -> YARN_GPU_DEVICE,
/// FPGA -> YARN_FPGA_DEVICE)`): each resource's amount key for the executors and for the
/// driver, the key naming its YARN type and that key's default.
struct Mapping {
    executor_amount: &'static str,
    driver_amount: &'static str,
    device_key: &'static str,
    device: &'static str,
}

const NAME_MAPPING: [Mapping; 2] = [
    Mapping {
        executor_amount: "spark.executor.resource.gpu.amount",
        driver_amount: "spark.driver.resource.gpu.amount",
        device_key: "spark.yarn.resourceGpuDeviceName",
        device: GPU_URI,
    },
    Mapping {
        executor_amount: "spark.executor.resource.fpga.amount",
        driver_amount: "spark.driver.resource.fpga.amount",
        device_key: "spark.yarn.resourceFpgaDeviceName",
        device: "yarn.io/fpga",
    },
];

/// A capability with the custom resources YARN knows set, and Spark's warning for each it does
/// not, in the order `setResourceRequests` meets them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CustomRequest {
    pub capability: Resource,
    pub warnings: Vec<String>,
}

/// `getYarnResourcesFromSparkResources`: each YARN type name and amount of `component`'s
/// `<prefix>.resource.{gpu,fpga}.amount` above 0 (`count.toLong > 0`; a malformed amount is the
/// settings' to refuse), in the mapping's order.
pub fn yarn_resources(
    properties: &BTreeMap<String, String>,
    component: Component,
) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    for m in &NAME_MAPPING {
        let key = match component {
            Component::Executor => m.executor_amount,
            Component::Driver => m.driver_amount,
        };
        let Some(amount) = properties
            .get(key)
            .and_then(|a| a.trim().parse::<u64>().ok())
            .filter(|&a| a > 0)
        else {
            continue;
        };
        let name = properties
            .get(m.device_key)
            .map_or(m.device, String::as_str);
        out.push((name.to_string(), amount));
    }
    out
}

/// `setResourceRequests(resources, capability)` for `component`'s custom resources: the one
/// type sparkyard's YARN can know, `yarn.io/gpu` (when `yarn_knows_gpu`: `yarn.resource-types`),
/// goes on the capability; any other (an FPGA, a renamed GPU device, a GPU YARN does not know)
/// gets Spark's warning and stays off it.
pub fn set_resource_requests(
    capability: Resource,
    properties: &BTreeMap<String, String>,
    component: Component,
    yarn_knows_gpu: bool,
) -> CustomRequest {
    let mut out = CustomRequest {
        capability,
        warnings: Vec::new(),
    };
    for (name, amount) in yarn_resources(properties, component) {
        if name == GPU_URI && yarn_knows_gpu {
            out.capability.gpus = u32::try_from(amount).unwrap_or(u32::MAX);
        } else {
            let w = unknown_resource_warning(&name, out.capability);
            out.warnings.push(w);
        }
    }
    out
}

/// Spark 4.0's warning (spark-yarn_2.13-4.0.0.jar, `ResourceRequestHelper$`): "YARN doesn't
/// know about resource " + name + ", your resource discovery has to handle properly discovering
/// and isolating the resource! Error: " + the exception's message, which is Hadoop 3.4's
/// `ResourceNotFoundException(Resource, String)` text (hadoop-client-api-3.4.1.jar: `MESSAGE`
/// formatted with the type, the capability so far and `ExceptionUtils.getStackTrace(new
/// Exception())`). The JVM's stack frames are not simulated: the trace is its first line.
pub fn unknown_resource_warning(name: &str, capability: Resource) -> String {
    format!(
        "YARN doesn't know about resource {name}, your resource discovery has to handle properly \
         discovering and isolating the resource! Error: The resource manager encountered a \
         problem that should not occur under normal circumstances. Please report this error to \
         the Hadoop community by opening a JIRA ticket at http://issues.apache.org/jira and \
         including the following information:\n* Resource type requested: {name}\n* Resource \
         object: {capability}\n* The stack trace for this exception: java.lang.Exception\n\nAfter \
         encountering this error, the resource manager is in an inconsistent state. It is safe \
         for the resource manager to be restarted as the error encountered should be transitive. \
         If high availability is enabled, failing over to a standby resource manager is also \
         safe."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const BASE: Resource = Resource {
        memory_mb: 1408,
        vcores: 1,
        gpus: 0,
    };

    // ResourceRequestHelper.getYarnResourcesFromSparkResources (Spark 4.0): spark.<component>
    // .resource.gpu.amount maps to spark.yarn.resourceGpuDeviceName's type; 0 asks for nothing.
    #[test]
    fn the_gpu_amount_maps_to_the_yarn_device_name() {
        let p = props(&[("spark.executor.resource.gpu.amount", "2")]);
        assert_eq!(
            yarn_resources(&p, Component::Executor),
            [("yarn.io/gpu".to_string(), 2)]
        );
        assert_eq!(yarn_resources(&p, Component::Driver), []);
        let renamed = props(&[
            ("spark.driver.resource.gpu.amount", "1"),
            ("spark.yarn.resourceGpuDeviceName", "nvidia.com/gpu"),
        ]);
        assert_eq!(
            yarn_resources(&renamed, Component::Driver),
            [("nvidia.com/gpu".to_string(), 1)]
        );
        let zero = props(&[("spark.executor.resource.gpu.amount", "0")]);
        assert_eq!(yarn_resources(&zero, Component::Executor), []);
        // The mapping's order: the GPU's type, then the FPGA's.
        let both = props(&[
            ("spark.executor.resource.fpga.amount", "1"),
            ("spark.executor.resource.gpu.amount", "1"),
        ]);
        assert_eq!(
            yarn_resources(&both, Component::Executor),
            [
                ("yarn.io/gpu".to_string(), 1),
                ("yarn.io/fpga".to_string(), 1)
            ]
        );
    }

    // ResourceRequestHelper.setResourceRequests (Spark 4.0): a known type is set on the
    // capability; an unknown one (its ResourceNotFoundException catch) is warned about and left
    // out.
    #[test]
    fn a_known_type_is_asked_for_and_an_unknown_one_warned_about() {
        let p = props(&[("spark.executor.resource.gpu.amount", "1")]);
        let known = set_resource_requests(BASE, &p, Component::Executor, true);
        assert_eq!(known.capability.gpus, 1);
        assert!(known.warnings.is_empty());
        let unknown = set_resource_requests(BASE, &p, Component::Executor, false);
        assert_eq!(unknown.capability, BASE);
        let w = &unknown.warnings[0];
        assert!(w.starts_with("YARN doesn't know about resource yarn.io/gpu, your resource discovery has to handle properly discovering and isolating the resource! Error: The resource manager encountered"), "{w}");
        assert!(w.contains("\n* Resource type requested: yarn.io/gpu\n* Resource object: <memory:1408, vCores:1>\n"), "{w}");
        let renamed = props(&[
            ("spark.executor.resource.gpu.amount", "1"),
            ("spark.yarn.resourceGpuDeviceName", "nvidia.com/gpu"),
        ]);
        let other = set_resource_requests(BASE, &renamed, Component::Executor, true);
        assert_eq!(other.capability, BASE);
        assert!(other.warnings[0].contains("resource nvidia.com/gpu,"));
        let none = set_resource_requests(BASE, &props(&[]), Component::Executor, false);
        assert_eq!(none.capability, BASE);
        assert!(none.warnings.is_empty());
        // An FPGA: sparkyard's YARN never knows its type, so Spark warns; a known GPU beside it
        // is asked for, and the FPGA's warning shows the capability with it.
        let fpga = props(&[
            ("spark.executor.resource.gpu.amount", "1"),
            ("spark.executor.resource.fpga.amount", "2"),
        ]);
        let r = set_resource_requests(BASE, &fpga, Component::Executor, true);
        assert_eq!(r.capability.gpus, 1);
        assert_eq!(r.warnings.len(), 1);
        assert!(r.warnings[0].starts_with("YARN doesn't know about resource yarn.io/fpga,"));
        assert!(
            r.warnings[0].contains("* Resource object: <memory:1408, vCores:1, yarn.io/gpu: 1>")
        );
    }
}
