//! Spark's and YARN's invariants, checked while a run goes. Each check is a pure function (so a
//! test can show it fails on bad state); a violation is recorded with its name, never a panic,
//! so a sweep can report every one with the seed that reproduces it.

use std::cell::RefCell;

/// The invariants, by name.
pub mod name {
    pub const EXECUTOR_REGISTERS_ONCE: &str = "executor-registers-once-per-attempt";
    pub const TOTAL_CORES: &str = "total-core-count-is-sum-of-executor-cores";
    pub const FREE_CORES: &str = "free-cores-within-executor-cores";
    pub const NODE_CAPACITY: &str = "node-allocation-within-capacity";
    pub const CONTAINER_COMPLETES_ONCE: &str = "container-completes-at-most-once";
    pub const TASK_SUCCEEDS_ONCE: &str = "task-index-succeeds-at-most-once-per-stage-attempt";
    pub const SUCCEEDED_RAN_ALL_TASKS: &str = "succeeded-application-ran-every-task";
    pub const TERMINATES: &str = "application-terminates-before-deadline";
    /// A panic inside the simulation (recorded by the runner).
    pub const NO_PANIC: &str = "simulation-does-not-panic";
    pub const EXIT_CODE_MATCHES: &str = "client-exit-code-matches-final-status";
    pub const FAILURES_COUNTED: &str = "executor-failures-counted-by-classification";
    pub const ATTEMPTS_BOUNDED: &str = "am-attempts-within-maximum";
}

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: &'static str,
    pub detail: String,
    pub time_ms: u64,
}

/// The run's violations.
#[derive(Default)]
pub struct Violations {
    found: RefCell<Vec<Violation>>,
}

impl Violations {
    /// Records `check`'s failure, if any, under `invariant`.
    pub fn check(&self, invariant: &'static str, check: Result<(), String>) {
        if let Err(detail) = check {
            let time_ms = crate::kernel::clock::now_ms();
            self.found.borrow_mut().push(Violation {
                invariant,
                detail,
                time_ms,
            });
        }
    }

    pub fn take(&self) -> Vec<Violation> {
        std::mem::take(&mut self.found.borrow_mut())
    }
}

/// An executor id registers at most once with one driver.
pub fn registers_once(already: bool, attempt: u32, executor: u32) -> Result<(), String> {
    if already {
        return Err(format!(
            "executor {executor} registered twice in attempt {attempt}"
        ));
    }
    Ok(())
}

/// `totalCoreCount` equals the sum of the registered executors' cores.
pub fn total_cores(total: u32, sum: u32) -> Result<(), String> {
    if total != sum {
        return Err(format!(
            "totalCoreCount is {total} but the registered executors have {sum} cores"
        ));
    }
    Ok(())
}

/// `freeCores` stays within 0 and the executor's cores (unsigned: only the upper bound can break).
pub fn free_cores(executor: u32, free: u32, cores: u32) -> Result<(), String> {
    if free > cores {
        return Err(format!(
            "executor {executor} has {free} free cores of {cores}"
        ));
    }
    Ok(())
}

/// A node's allocated memory and vcores never exceed its capacity.
pub fn node_capacity(
    host: &str,
    used_mb: u64,
    total_mb: u64,
    used_vcores: u32,
    total_vcores: u32,
) -> Result<(), String> {
    if used_mb > total_mb || used_vcores > total_vcores {
        return Err(format!(
            "{host} has {used_mb} MB / {used_vcores} vcores allocated of {total_mb} MB / {total_vcores} vcores"
        ));
    }
    Ok(())
}

/// Every launched container completes at most once.
pub fn completes_once(container: &str, already_completed: bool) -> Result<(), String> {
    if already_completed {
        return Err(format!("{container} completed twice"));
    }
    Ok(())
}

/// Each task index succeeds at most once per stage attempt.
pub fn succeeds_once(stage: u32, attempt: u32, index: u32, already: bool) -> Result<(), String> {
    if already {
        return Err(format!(
            "task {index} of stage {stage}.{attempt} succeeded twice"
        ));
    }
    Ok(())
}

/// AM attempts never exceed the maximum.
pub fn attempts_bounded(attempts: u32, max: u32) -> Result<(), String> {
    if attempts > max {
        return Err(format!("{attempts} AM attempts with a maximum of {max}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_fails_on_bad_state_and_passes_on_good() {
        assert!(registers_once(true, 1, 3).is_err() && registers_once(false, 1, 3).is_ok());
        assert!(total_cores(4, 3).is_err() && total_cores(4, 4).is_ok());
        assert!(free_cores(1, 5, 4).is_err() && free_cores(1, 4, 4).is_ok());
        assert!(
            node_capacity("h", 9000, 8192, 1, 8).is_err()
                && node_capacity("h", 1, 8192, 9, 8).is_err()
        );
        assert!(node_capacity("h", 8192, 8192, 8, 8).is_ok());
        assert!(completes_once("c", true).is_err() && completes_once("c", false).is_ok());
        assert!(succeeds_once(0, 0, 1, true).is_err() && succeeds_once(0, 0, 1, false).is_ok());
        assert!(attempts_bounded(3, 2).is_err() && attempts_bounded(2, 2).is_ok());
    }

    #[test]
    fn violations_are_recorded_with_their_name() {
        let v = Violations::default();
        v.check(name::FREE_CORES, free_cores(2, 9, 1));
        v.check(name::FREE_CORES, free_cores(2, 1, 1));
        let found = v.take();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].invariant, name::FREE_CORES);
        assert_eq!(found[0].detail, "executor 2 has 9 free cores of 1");
    }
}
