//! The recording's executor losses, replayed as the deaths that caused them: an executor the log
//! lost (`SparkListenerExecutorRemoved` with a reason the application did not ask for) while a
//! task ran on it (`ExecutorLostFailure`, which Spark's `TaskSetManager.executorLost` posts for
//! each running task) dies in the replay as that task's attempt ends, its container ending as
//! the reason says (Spark's `YarnAllocator.processCompletedContainers` texts, or a standalone
//! worker's `Command exited with code N`). The simulated Spark then does what Spark did: the
//! driver removes the executor, its running tasks fail and go back to their task sets, its map
//! outputs are lost, and YARN's allocator asks for a container in its place. No Spark class
//! does this; it reads what Spark's listener events say.

use sparkyard_messages::task::ContainerEnd;

/// A task attempt the log shows lost with its executor (`ExecutorLostFailure`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostAttempt {
    pub stage_id: u32,
    pub index: u32,
    pub attempt: u32,
    pub executor_id: u32,
    pub launch_ms: u64,
    /// Whether its index ran again after it (a later attempt, in this or a later stage
    /// attempt), or the application launched tasks after its executor's loss (its job was
    /// aborted meanwhile: a failed barrier stage's killed task whose PySpark worker took its
    /// executor down): the application went on, so the recording shows what the loss cost.
    pub ran_again: bool,
}

/// An executor the log lost (removed for a reason the application did not ask for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LostExecutor<'a> {
    pub executor_id: &'a str,
    /// When the driver removed it, epoch ms.
    pub removed_ms: u64,
    pub reason: &'a str,
}

/// What the replay does with a lost attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LostAttemptReplay {
    /// Not run (its index never ran again, or its executor's removal was no loss).
    NotReplayed,
    /// Runs its recorded time; its executor's death cuts it short.
    RunsUntilDeath,
    /// Runs its recorded time, and its executor dies as it ends, its container ending so.
    EndsExecutor(ContainerEnd),
}

/// How the recording's executor ended, as far as its removal reason says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum LossCause {
    /// The reason names the container's end (an exit code or a YARN exit status).
    Recorded(ContainerEnd),
    /// It does not (`Executor Process Lost`, `Remote RPC client disassociated`, a heartbeat
    /// timeout): replayed as a SIGKILL (exit 137).
    Unknown,
}

impl LossCause {
    /// The container end the replay gives the executor.
    pub fn end(self) -> ContainerEnd {
        match self {
            LossCause::Recorded(end) => end,
            LossCause::Unknown => ContainerEnd::ProcessExit(137),
        }
    }
}

/// One recorded executor loss and what the replay does with it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RecordedLoss {
    pub executor_id: String,
    /// When the driver removed it, ms after the application started.
    pub removed_at_ms: u64,
    pub cause: LossCause,
    /// The attempt whose end the replayed executor dies at, when the replay replays the loss;
    /// `None`: not replayed (no task lost with it ran again).
    pub dies_after: Option<TaskAttempt>,
}

/// A task attempt by stage id, index and attempt number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TaskAttempt {
    pub stage_id: u32,
    pub index: u32,
    pub attempt: u32,
}

/// The container end a removal reason names: YARN's exit statuses in Spark's texts
/// (`YarnAllocator.processCompletedContainers`: `Exit status: N`, the memory kills, a
/// preemption), or a standalone worker's `Command exited with code N`.
pub fn loss_cause(reason: &str) -> LossCause {
    let nm = ContainerEnd::NodeManagerKill;
    let cause = if reason.contains("exceeding physical memory limits") {
        Some(nm(-104))
    } else if reason.contains("exceeding virtual memory limits") {
        Some(nm(-103))
    } else if reason.contains("exited because of a YARN event (e.g., preemption)") {
        Some(nm(-102))
    } else {
        number_after(reason, "Exit status: ")
            .or_else(|| number_after(reason, "exited with code "))
            .map(|code| match code {
                -109..=-100 => nm(code),
                _ => ContainerEnd::ProcessExit(code),
            })
    };
    cause.map_or(LossCause::Unknown, LossCause::Recorded)
}

/// The integer right after `prefix` in `text`.
fn number_after(text: &str, prefix: &str) -> Option<i32> {
    let rest = &text[text.find(prefix)? + prefix.len()..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
        .map_or(rest.len(), |(i, _)| i);
    rest[..end].parse().ok()
}

/// What the replay does with each lost attempt (in `attempts`' order) and with each lost
/// executor. An attempt is replayed when its index ran again after it and its executor is one
/// of `lost`; of an executor's replayed attempts the last launched ends the executor (it was
/// running when the executor died, and is the nearest anchor to the death), the others run
/// until the death cuts them short. Losses at the application's end (a kill, a shutdown) lose
/// tasks nothing ran again: they are not replayed.
pub fn replayed(
    attempts: &[LostAttempt],
    lost: &[LostExecutor<'_>],
    start_ms: u64,
) -> (Vec<LostAttemptReplay>, Vec<RecordedLoss>) {
    let mut out = vec![LostAttemptReplay::NotReplayed; attempts.len()];
    let mut recorded = Vec::new();
    for e in lost {
        // Its attempts whose index ran again, by position in `attempts`.
        let id = e.executor_id.parse::<u32>().ok();
        let mine: Vec<usize> = (0..attempts.len())
            .filter(|&i| attempts[i].ran_again && Some(attempts[i].executor_id) == id)
            .collect();
        let cause = loss_cause(e.reason);
        let last_launched = |&i: &usize| {
            let a = &attempts[i];
            (a.launch_ms, a.stage_id, a.index)
        };
        let killer = mine.iter().copied().max_by_key(last_launched);
        for &i in &mine {
            out[i] = LostAttemptReplay::RunsUntilDeath;
        }
        if let Some(k) = killer {
            out[k] = LostAttemptReplay::EndsExecutor(cause.end());
        }
        recorded.push(RecordedLoss {
            executor_id: e.executor_id.to_string(),
            removed_at_ms: e.removed_ms.saturating_sub(start_ms),
            cause,
            dies_after: killer.map(|k| TaskAttempt {
                stage_id: attempts[k].stage_id,
                index: attempts[k].index,
                attempt: attempts[k].attempt,
            }),
        });
    }
    recorded.sort_by_key(|l| l.removed_at_ms);
    (out, recorded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost(stage_id: u32, index: u32, executor_id: u32, launch_ms: u64) -> LostAttempt {
        LostAttempt {
            stage_id,
            index,
            attempt: 0,
            executor_id,
            launch_ms,
            // Stage 1's lost task never ran again (the application was killed then).
            ran_again: stage_id == 0,
        }
    }

    /// Spark 4.0.0's `YarnAllocator.processCompletedContainers` texts (the simulated allocator
    /// writes the same, `spark_yarn::yarn_allocator_state`) and a standalone worker's.
    #[test]
    fn a_removal_reason_names_the_containers_end() {
        let nm = |s| LossCause::Recorded(ContainerEnd::NodeManagerKill(s));
        let exit = |c| LossCause::Recorded(ContainerEnd::ProcessExit(c));
        assert_eq!(
            loss_cause(
                "Container killed by YARN for exceeding physical memory limits. 9.1 GB of 9 GB physical memory used. Consider boosting spark.executor.memoryOverhead."
            ),
            nm(-104)
        );
        assert_eq!(
            loss_cause("Container killed by YARN for exceeding virtual memory limits. x"),
            nm(-103)
        );
        assert_eq!(
            loss_cause(
                "Executor for container container_1_0001_01_000002 exited because of a YARN event (e.g., preemption) and not because of an error in the running job."
            ),
            nm(-102)
        );
        assert_eq!(
            loss_cause(
                "Container marked as failed: container_1_0001_01_000002 on host: h. Exit status: 143. Possible causes: Unknown executor exit code (143) (died from signal 15?) Diagnostics: term."
            ),
            exit(143)
        );
        assert_eq!(
            loss_cause("Container marked as failed: c on host: h. Exit status: -100. x"),
            nm(-100)
        );
        assert_eq!(loss_cause("Command exited with code 137"), exit(137));
        assert_eq!(loss_cause("Executor Process Lost"), LossCause::Unknown);
        assert_eq!(
            LossCause::Unknown.end(),
            ContainerEnd::ProcessExit(137),
            "an unknown end is replayed as a SIGKILL"
        );
    }

    /// Only a loss whose lost tasks ran again is replayed; the last launched of them ends the
    /// executor; an executor not among the lost (removed as the application asked) loses
    /// nothing.
    #[test]
    fn a_recovered_loss_ends_its_executor_at_its_last_lost_attempt() {
        let lost_executors = [
            LostExecutor {
                executor_id: "1",
                removed_ms: 9_000,
                reason: "Command exited with code 137",
            },
            LostExecutor {
                executor_id: "3",
                removed_ms: 20_000,
                reason: "Command exited with code 143",
            },
        ];
        let attempts = [
            lost(0, 5, 1, 8_000),
            lost(0, 2, 1, 7_000),
            lost(0, 6, 2, 8_000),
            lost(1, 0, 3, 18_000),
        ];
        let (out, recorded) = replayed(&attempts, &lost_executors, 1_000);
        use LostAttemptReplay::*;
        assert_eq!(
            out,
            vec![
                EndsExecutor(ContainerEnd::ProcessExit(137)),
                RunsUntilDeath,
                NotReplayed,
                NotReplayed
            ]
        );
        let at = |stage_id, index| TaskAttempt {
            stage_id,
            index,
            attempt: 0,
        };
        let r: Vec<(&str, u64, Option<TaskAttempt>)> = recorded
            .iter()
            .map(|l| (l.executor_id.as_str(), l.removed_at_ms, l.dies_after))
            .collect();
        assert_eq!(r, vec![("1", 8_000, Some(at(0, 5))), ("3", 19_000, None)]);
    }
}
