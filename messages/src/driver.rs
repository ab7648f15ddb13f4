//! What the user program's `Driver` thread receives: answers to the SparkContext's calls, the AM's
//! `resumeDriver()`, backend readiness and job completion.

use crate::rpc::AskReply;
use crate::task::JobResult;
use serde::{Deserialize, Serialize};

/// The Driver thread's inbox.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, actix::Message, strum::IntoStaticStr)]
#[rtype(result = "()")]
pub enum DriverMsg {
    AskReply(AskReply),
    /// The SparkContext constructor's work is done (virtual time spent).
    SparkContextCreated,
    /// `ApplicationMaster.resumeDriver()`.
    ResumeDriver,
    /// `waitBackendReady` returned.
    BackendReady,
    /// `JobWaiter` completed.
    JobEnded {
        job_id: u32,
        result: JobResult,
    },
    /// The JVM runs its shutdown hooks: the SparkContext's hook stops a context still running
    /// (`Invoking stop() from shutdown hook`) and then lets the next hook run.
    RunShutdownHook,
}
