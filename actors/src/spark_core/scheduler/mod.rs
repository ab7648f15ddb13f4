//! The driver's scheduling core, owned by the DriverEndpoint, in Spark's classes: `DAGScheduler`
//! (jobs, stages and their parents: `dag_scheduler`), `TaskSchedulerImpl` (offers, status
//! updates, executor loss: `task_scheduler_impl`) and the `TaskSetManager`s it owns (pending
//! indices, delay scheduling, retries up to `spark.task.maxFailures`: `task_set_manager`), with
//! SparkEnv's `MapOutputTrackerMaster` and `BlockManagerMaster` (`env`), wired as SparkContext
//! wires them (`driver_scheduler`). The DAGScheduler calls the task scheduler; the task
//! scheduler posts typed events back (`task_scheduler_impl::DagEvents`); the files import one
//! way: `locality` <- `events` <- `speculation`; `map_output_tracker` <- `env`;
//! `task_set_exclude_list` <- `health_tracker`; `events` <- `allocation_client` (what exclusion
//! asks of the backend); `events` <- `pool` (FAIR's pools); `barrier_job_check` (a job's barrier
//! stages' checks when they are created); then `task_set_manager` <- `task_scheduler_impl` <- `dag_scheduler` <-
//! `driver_scheduler`. Plain structs called synchronously, as in Spark; every lookup is a map or
//! a queue, never a scan over all tasks or executors.
//!
//! Exclusion on failure: Spark's `HealthTracker` (`health_tracker`, owned by TaskSchedulerImpl,
//! `healthTrackerOpt`) and `TaskSetExcludelist` (`task_set_exclude_list`, one per TaskSetManager,
//! `taskSetExcludelistHelperOpt`) sit beside `task_set_manager`, below it in the import order;
//! where they are asked and told is in `task_scheduler_impl`'s and `task_set_manager`'s heads.

pub mod allocation_client;
mod barrier_job_check;
mod dag_scheduler;
#[cfg(test)]
mod dag_scheduler_suite_tests;
#[cfg(test)]
mod decommission_tests;
mod driver_scheduler;
mod env;
mod events;
pub mod health_tracker;
pub mod locality;
#[cfg(test)]
mod locality_tests;
pub mod map_output_tracker;
pub mod pool;
mod speculation;
#[cfg(test)]
mod speculation_tests;
#[cfg(test)]
mod suite_tests;
mod task_scheduler_impl;
pub mod task_set_exclude_list;
mod task_set_manager;
#[cfg(test)]
mod task_set_manager_suite_tests;
#[cfg(test)]
mod tests;

pub use driver_scheduler::DriverScheduler;
pub use events::{LaunchedTasks, SchedulerEvent, WorkerOffer};
