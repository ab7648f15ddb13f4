//! The GPUs Spark's YARN side asks for in a container's capability: Spark 4.0's
//! `ResourceRequestHelper` (resource-managers/yarn, `getYarnResourcesFromSparkResources`,
//! `setResourceRequests`) as `YarnAllocator.createYarnResourceForResourceProfile` (executors,
//! default profile) and `Client.createApplicationSubmissionContext` (the cluster-mode AM, the
//! driver's resources) use it. A pure core: the caller logs the warning.
//!
//! What it mirrors:
//! - `getResourceNameMapping` / `getYarnResourcesFromSparkResources`: Spark's
//!   `<prefix>.resource.gpu.amount` (prefix `spark.executor` or `spark.driver`) becomes the
//!   YARN type `spark.yarn.resourceGpuDeviceName` (default `yarn.io/gpu`) when its `toLong` is
//!   above 0.
//! - `setResourceRequests`: `resource.setResourceInformation(name, ...)` throws Hadoop's
//!   `ResourceNotFoundException` when the client's `ResourceUtils` does not know the type
//!   (`yarn.resource-types`); Spark catches it, warns (its first two times in a JVM:
//!   `numResourceErrors`) and the capability goes without it. sparkyard knows one type,
//!   `yarn.io/gpu`: any other device name is unknown.
//! - Stage-level resource profiles (their own custom resources) are not simulated: only the
//!   default profile asks.

use sparkyard_messages::records::Resource;
use std::collections::BTreeMap;

/// `ResourceInformation.GPU_URI`.
pub const GPU_URI: &str = "yarn.io/gpu";

/// Which Spark component's resources: `SPARK_EXECUTOR_PREFIX` or `SPARK_DRIVER_PREFIX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    Executor,
    Driver,
}

impl Component {
    fn amount_key(self) -> &'static str {
        match self {
            Component::Executor => "spark.executor.resource.gpu.amount",
            Component::Driver => "spark.driver.resource.gpu.amount",
        }
    }
}

/// A capability with its GPUs set, and Spark's warning when YARN did not know the type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuRequest {
    pub capability: Resource,
    pub warning: Option<String>,
}

/// `getYarnResourcesFromSparkResources` for the GPU: the YARN type name and the amount, when
/// the amount is above 0 (`count.toLong > 0`; a malformed amount is the settings' to refuse).
pub fn yarn_gpu_resource(
    properties: &BTreeMap<String, String>,
    component: Component,
) -> Option<(String, u64)> {
    let amount = properties
        .get(component.amount_key())
        .and_then(|a| a.trim().parse::<u64>().ok())
        .filter(|&a| a > 0)?;
    let name = properties
        .get("spark.yarn.resourceGpuDeviceName")
        .cloned()
        .unwrap_or_else(|| GPU_URI.to_string());
    Some((name, amount))
}

/// `setResourceRequests(resources, capability)` for the GPU request of `component`: YARN
/// knowing `yarn.io/gpu` (`yarn_knows_gpu`), the capability carries it; otherwise Spark's
/// warning and the capability unchanged.
pub fn set_gpu_request(
    capability: Resource,
    properties: &BTreeMap<String, String>,
    component: Component,
    yarn_knows_gpu: bool,
) -> GpuRequest {
    let Some((name, amount)) = yarn_gpu_resource(properties, component) else {
        return GpuRequest {
            capability,
            warning: None,
        };
    };
    if name == GPU_URI && yarn_knows_gpu {
        let gpus = u32::try_from(amount).unwrap_or(u32::MAX);
        return GpuRequest {
            capability: Resource { gpus, ..capability },
            warning: None,
        };
    }
    GpuRequest {
        capability,
        warning: Some(unknown_resource_warning(&name, capability)),
    }
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
            yarn_gpu_resource(&p, Component::Executor),
            Some(("yarn.io/gpu".into(), 2))
        );
        assert_eq!(yarn_gpu_resource(&p, Component::Driver), None);
        let renamed = props(&[
            ("spark.driver.resource.gpu.amount", "1"),
            ("spark.yarn.resourceGpuDeviceName", "nvidia.com/gpu"),
        ]);
        assert_eq!(
            yarn_gpu_resource(&renamed, Component::Driver),
            Some(("nvidia.com/gpu".into(), 1))
        );
        let zero = props(&[("spark.executor.resource.gpu.amount", "0")]);
        assert_eq!(yarn_gpu_resource(&zero, Component::Executor), None);
    }

    // ResourceRequestHelper.setResourceRequests (Spark 4.0): a known type is set on the
    // capability; an unknown one (its ResourceNotFoundException catch) is warned about and left
    // out.
    #[test]
    fn a_known_type_is_asked_for_and_an_unknown_one_warned_about() {
        let p = props(&[("spark.executor.resource.gpu.amount", "1")]);
        let known = set_gpu_request(BASE, &p, Component::Executor, true);
        assert_eq!(known.capability.gpus, 1);
        assert_eq!(known.warning, None);
        let unknown = set_gpu_request(BASE, &p, Component::Executor, false);
        assert_eq!(unknown.capability, BASE);
        let w = unknown.warning.unwrap();
        assert!(w.starts_with("YARN doesn't know about resource yarn.io/gpu, your resource discovery has to handle properly discovering and isolating the resource! Error: The resource manager encountered"), "{w}");
        assert!(w.contains("\n* Resource type requested: yarn.io/gpu\n* Resource object: <memory:1408, vCores:1>\n"), "{w}");
        let renamed = props(&[
            ("spark.executor.resource.gpu.amount", "1"),
            ("spark.yarn.resourceGpuDeviceName", "nvidia.com/gpu"),
        ]);
        let other = set_gpu_request(BASE, &renamed, Component::Executor, true);
        assert_eq!(other.capability, BASE);
        assert!(other.warning.unwrap().contains("resource nvidia.com/gpu,"));
        let none = set_gpu_request(BASE, &props(&[]), Component::Executor, false);
        assert_eq!((none.capability, none.warning), (BASE, None));
    }
}
