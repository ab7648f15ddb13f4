//! How a NodeManager stops a container it was told to kill, by the container's runtime: Hadoop's
//! `DelegatingLinuxContainerRuntime` picking `DockerLinuxContainerRuntime` for a container whose
//! environment asks for Docker, else the default process-tree runtime; a pure core the
//! `NodeManager` actor asks.
//!
//! What it mirrors (hadoop-yarn-server-nodemanager, `containermanager/linux/runtime/`):
//! - `DockerLinuxContainerRuntime.isDockerContainerRequested`: the container's environment has
//!   `YARN_CONTAINER_RUNTIME_TYPE=docker` (Spark passes it through `spark.executorEnv.*` and
//!   `spark.yarn.appMasterEnv.*`).
//! - `ContainerLaunch.cleanupContainer` signals TERM, then KILL after
//!   `yarn.nodemanager.sleep-delay-before-sigkill.ms`. The default runtime signals the process
//!   group, so the JVM gets SIGTERM and runs its shutdown hooks.
//! - Hadoop 3.1's `DockerLinuxContainerRuntime.signalContainer` turns that TERM into
//!   `handleContainerStop`: a plain `docker stop` (no `--time`: Docker's own grace, 10 s),
//!   which blocks until the container is gone. Docker sends SIGTERM to the container's PID 1,
//!   the `bash` running `launch_container.sh`; a PID 1 without a handler ignores it, so the JVM
//!   lives until Docker's SIGKILL at the grace's end. (Hadoop 3.2 and later send the stop
//!   signal with `docker kill` and leave the SIGKILL to the NodeManager's sleep-delay; their
//!   `yarn.nodemanager.runtime.linux.docker.stop.grace-period` is deprecated for it.) A grace
//!   of 0 is that later behaviour: the container stops as a default one does.

use sparkyard_messages::records::ENV_CONTAINER_TYPE;

/// Which runtime a container was launched with (`LinuxContainerRuntime`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    /// `DefaultLinuxContainerRuntime`: a process tree on the node.
    Default,
    /// `DockerLinuxContainerRuntime`.
    Docker,
}

impl Runtime {
    /// The runtime a container's launch environment asks for
    /// (`DockerLinuxContainerRuntime.isDockerContainerRequested`: exactly `docker`).
    pub fn requested_by(environment: &[(String, String)]) -> Runtime {
        let docker = environment
            .iter()
            .any(|(k, v)| k == ENV_CONTAINER_TYPE && v == "docker");
        if docker {
            Runtime::Docker
        } else {
            Runtime::Default
        }
    }
}

/// What a stop does to the container's JVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGTERM now (shutdown hooks, exit 143), SIGKILL (exit 137) after `kill_after_ms` if it
    /// is still running.
    TermThenKill { kill_after_ms: u64 },
    /// No signal reaches the JVM until SIGKILL (exit 137) after `kill_after_ms`: `docker stop`'s
    /// SIGTERM went to a PID 1 that ignores it.
    KillAfter { kill_after_ms: u64 },
}

/// How a container of `runtime` is stopped, given the NodeManager's
/// `sleep-delay-before-sigkill.ms` and the `docker stop` grace (0: the Docker runtime stops as
/// Hadoop 3.2 and later do, like a default container).
pub fn stop(runtime: Runtime, sigkill_delay_ms: u64, docker_stop_grace_ms: u64) -> Stop {
    match runtime {
        Runtime::Docker if docker_stop_grace_ms > 0 => Stop::KillAfter {
            kill_after_ms: docker_stop_grace_ms,
        },
        _ => Stop::TermThenKill {
            kill_after_ms: sigkill_delay_ms,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    // DockerLinuxContainerRuntime.isDockerContainerRequested: `type.equals("docker")`, so
    // only that exact value selects Docker.
    #[test]
    fn the_environment_picks_the_runtime() {
        let docker = env(&[("A", "1"), (ENV_CONTAINER_TYPE, "docker")]);
        assert_eq!(Runtime::requested_by(&docker), Runtime::Docker);
        assert_eq!(
            Runtime::requested_by(&env(&[(ENV_CONTAINER_TYPE, "default")])),
            Runtime::Default
        );
        assert_eq!(
            Runtime::requested_by(&env(&[(ENV_CONTAINER_TYPE, "Docker")])),
            Runtime::Default
        );
        assert_eq!(Runtime::requested_by(&[]), Runtime::Default);
    }

    #[test]
    fn a_docker_container_dies_at_the_grace_period_and_a_default_one_gets_sigterm() {
        assert_eq!(
            stop(Runtime::Docker, 250, 10_000),
            Stop::KillAfter {
                kill_after_ms: 10_000
            }
        );
        assert_eq!(
            stop(Runtime::Default, 250, 10_000),
            Stop::TermThenKill { kill_after_ms: 250 }
        );
        // No grace: the Docker runtime of Hadoop 3.2 and later, the NodeManager's own SIGKILL.
        assert_eq!(
            stop(Runtime::Docker, 250, 0),
            Stop::TermThenKill { kill_after_ms: 250 }
        );
    }
}
