//! The stack traces of the event log's failures, as Spark 4.0's `JsonProtocol` writes them:
//! `stackTraceToJson` (`Declaring Class`, `Method Name`, `File Name`, `Line Number` per
//! `StackTraceElement`) in an ExceptionFailure's "Stack Trace" and a JobFailed's exception, and
//! `ExceptionFailure.fullStackTrace` (`Utils.exceptionString`, `printStackTrace`'s text).
//! Frames are built once per stage and failure kind when the log is written, never per task.

use super::json::Arr;

/// One `StackTraceElement`; `module` is the JDK module `toString` prefixes (`java.base/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    pub module: Option<&'static str>,
    pub class: &'a str,
    pub method: &'a str,
    pub file: &'a str,
    pub line: i32,
}

const fn spark(
    class: &'static str,
    method: &'static str,
    file: &'static str,
    line: i32,
) -> Frame<'static> {
    Frame {
        module: None,
        class,
        method,
        file,
        line,
    }
}

const fn jdk(
    class: &'static str,
    method: &'static str,
    file: &'static str,
    line: i32,
) -> Frame<'static> {
    Frame {
        module: Some("java.base"),
        class,
        method,
        file,
        line,
    }
}

/// The executor's task thread under `runTask`, from `Task.run` to `Thread.run`: a real Spark
/// 4.0.0 run's ExceptionFailure (pyspark local-cluster, Java 17), frame for frame.
const TASK_RUNNER: [Frame<'static>; 10] = [
    spark(
        "org.apache.spark.TaskContext",
        "runTaskWithListeners",
        "TaskContext.scala",
        171,
    ),
    spark("org.apache.spark.scheduler.Task", "run", "Task.scala", 147),
    spark(
        "org.apache.spark.executor.Executor$TaskRunner",
        "$anonfun$run$5",
        "Executor.scala",
        647,
    ),
    spark(
        "org.apache.spark.util.SparkErrorUtils",
        "tryWithSafeFinally",
        "SparkErrorUtils.scala",
        80,
    ),
    spark(
        "org.apache.spark.util.SparkErrorUtils",
        "tryWithSafeFinally$",
        "SparkErrorUtils.scala",
        77,
    ),
    spark(
        "org.apache.spark.util.Utils$",
        "tryWithSafeFinally",
        "Utils.scala",
        99,
    ),
    spark(
        "org.apache.spark.executor.Executor$TaskRunner",
        "run",
        "Executor.scala",
        650,
    ),
    jdk(
        "java.util.concurrent.ThreadPoolExecutor",
        "runWorker",
        "ThreadPoolExecutor.java",
        1136,
    ),
    jdk(
        "java.util.concurrent.ThreadPoolExecutor$Worker",
        "run",
        "ThreadPoolExecutor.java",
        635,
    ),
    jdk("java.lang.Thread", "run", "Thread.java", 840),
];

/// `ResultTask.runTask` calling the job's function (line 93: the real run; the 4.0.0 jar's
/// LineNumberTable puts `Function2.apply` at offset 204 under line 93).
const RESULT_TASK: [Frame<'static>; 1] = [spark(
    "org.apache.spark.scheduler.ResultTask",
    "runTask",
    "ResultTask.scala",
    93,
)];

/// `ShuffleMapTask.runTask` handing the partition's iterator to the shuffle writer (4.0.0 jar:
/// `ShuffleWriteProcessor.write` at offset 197, line 111; `ShuffleWriter.write` at offset 39 of
/// `ShuffleWriteProcessor.write`, line 57).
const SHUFFLE_MAP_TASK: [Frame<'static>; 2] = [
    spark(
        "org.apache.spark.shuffle.ShuffleWriteProcessor",
        "write",
        "ShuffleWriteProcessor.scala",
        57,
    ),
    spark(
        "org.apache.spark.scheduler.ShuffleMapTask",
        "runTask",
        "ShuffleMapTask.scala",
        111,
    ),
];

/// The DAGScheduler's event loop aborting a stage whose task set failed
/// (`handleTaskSetFailed` -> `abortStage`), then the caller's `runJob` frames that
/// `DAGScheduler.runJob` appends (SPARK-8644) down to the innermost `SparkContext.runJob`:
/// a real Spark 4.0.0 run's JobFailed, frame for frame.
const TASK_SET_ABORT: [Frame<'static>; 16] = [
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "$anonfun$abortStage$3",
        "DAGScheduler.scala",
        2935,
    ),
    spark("scala.Option", "getOrElse", "Option.scala", 201),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "$anonfun$abortStage$2",
        "DAGScheduler.scala",
        2935,
    ),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "$anonfun$abortStage$2$adapted",
        "DAGScheduler.scala",
        2927,
    ),
    spark(
        "scala.collection.immutable.List",
        "foreach",
        "List.scala",
        334,
    ),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "abortStage",
        "DAGScheduler.scala",
        2927,
    ),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "$anonfun$handleTaskSetFailed$1",
        "DAGScheduler.scala",
        1295,
    ),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "$anonfun$handleTaskSetFailed$1$adapted",
        "DAGScheduler.scala",
        1295,
    ),
    spark("scala.Option", "foreach", "Option.scala", 437),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "handleTaskSetFailed",
        "DAGScheduler.scala",
        1295,
    ),
    spark(
        "org.apache.spark.scheduler.DAGSchedulerEventProcessLoop",
        "doOnReceive",
        "DAGScheduler.scala",
        3207,
    ),
    spark(
        "org.apache.spark.scheduler.DAGSchedulerEventProcessLoop",
        "onReceive",
        "DAGScheduler.scala",
        3141,
    ),
    spark(
        "org.apache.spark.scheduler.DAGSchedulerEventProcessLoop",
        "onReceive",
        "DAGScheduler.scala",
        3130,
    ),
    spark(
        "org.apache.spark.util.EventLoop$$anon$1",
        "run",
        "EventLoop.scala",
        50,
    ),
    spark(
        "org.apache.spark.scheduler.DAGScheduler",
        "runJob",
        "DAGScheduler.scala",
        1009,
    ),
    spark(
        "org.apache.spark.SparkContext",
        "runJob",
        "SparkContext.scala",
        2484,
    ),
];

/// The frames of an exception a task's user code threw: the user's closure (Scala 2.13 names
/// a lambda in `main` `<object>$.$anonfun$main$1`; its file and line are the stage RDD's call
/// site `"<op> at <File>:<line>"`), then the task's own frames. The Scala iterator and
/// operator frames between them depend on the RDD chain and are not modelled.
pub fn task_failure<'a>(
    main_class: &'a str,
    rdd_callsite: &'a str,
    shuffle_map: bool,
) -> Vec<Frame<'a>> {
    let mut frames = Vec::with_capacity(1 + SHUFFLE_MAP_TASK.len() + TASK_RUNNER.len());
    if let Some((file, line)) = callsite_location(rdd_callsite) {
        frames.push(Frame {
            module: None,
            class: main_class,
            method: "$anonfun$main$1",
            file,
            line,
        });
    }
    let task: &[Frame<'static>] = if shuffle_map {
        &SHUFFLE_MAP_TASK
    } else {
        &RESULT_TASK
    };
    frames.extend_from_slice(task);
    frames.extend_from_slice(&TASK_RUNNER);
    frames
}

/// The frames of a JobFailed's exception: the task-set abort's (`Job aborted due to stage
/// failure: Task ... failed N times`); none for other aborts, whose frames were not confirmed.
pub fn job_failure(message: &str) -> &'static [Frame<'static>] {
    let task_set_failed = message.starts_with("Job aborted due to stage failure: Task ")
        && message.contains(" times, most recent failure: ");
    if task_set_failed {
        &TASK_SET_ABORT
    } else {
        &[]
    }
}

/// `"map at Failing.scala:10"` -> `("Failing.scala", 10)`.
fn callsite_location(callsite: &str) -> Option<(&str, i32)> {
    let (_, at) = callsite.rsplit_once(" at ")?;
    let (file, line) = at.rsplit_once(':')?;
    Some((file, line.trim().parse().ok()?))
}

/// The user's object class for a frame: `com.example.Failing` -> `com.example.Failing$`.
pub fn object_class(main_class: &str) -> String {
    if main_class.ends_with('$') {
        main_class.to_string()
    } else {
        format!("{main_class}$")
    }
}

/// `stackTraceToJson`.
pub fn write_json(a: &mut Arr<'_>, frames: &[Frame<'_>]) {
    for f in frames {
        a.obj(|o| {
            o.str("Declaring Class", f.class)
                .str("Method Name", f.method)
                .str("File Name", f.file)
                .num("Line Number", f.line);
        });
    }
}

/// `Utils.exceptionString`: `Throwable.toString`, then `\tat <StackTraceElement>` per frame
/// (Java 9+: `java.base/` before JDK classes), each line ending in `\n`.
pub fn full_text(class: &str, description: &str, frames: &[Frame<'_>]) -> String {
    let mut s = format!("{class}: {description}\n");
    for f in frames {
        s.push_str("\tat ");
        if let Some(m) = f.module {
            s.push_str(m);
            s.push('/');
        }
        s.push_str(&format!(
            "{}.{}({}:{})\n",
            f.class, f.method, f.file, f.line
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    // JsonProtocol.exceptionFailureToJson / Utils.exceptionString as a real Spark 4.0.0 run
    // wrote them (Java 17: module prefix for JDK frames, "\tat " lines, a final newline).
    #[test]
    fn a_task_failure_names_the_users_closure_then_sparks_task_frames() {
        let class = object_class("com.example.Failing");
        let frames = task_failure(&class, "map at Failing.scala:10", false);
        assert_eq!(frames[0].class, "com.example.Failing$");
        assert_eq!((frames[0].file, frames[0].line), ("Failing.scala", 10));
        assert_eq!(frames[1].method, "runTask");
        assert_eq!(frames.last().map(|f| f.class), Some("java.lang.Thread"));
        let text = full_text("java.lang.IllegalStateException", "boom", &frames);
        assert!(text.starts_with(
            "java.lang.IllegalStateException: boom\n\tat com.example.Failing$.$anonfun$main$1(Failing.scala:10)\n\tat org.apache.spark.scheduler.ResultTask.runTask(ResultTask.scala:93)\n"
        ), "{text}");
        assert!(text.ends_with("\tat java.base/java.lang.Thread.run(Thread.java:840)\n"));
        let map = task_failure(&class, "no call site", true);
        assert_eq!(
            map[0].class,
            "org.apache.spark.shuffle.ShuffleWriteProcessor"
        );
        assert_eq!(map[1].line, 111);
    }

    #[test]
    fn only_a_task_set_abort_gets_the_dag_schedulers_frames() {
        let m = "Job aborted due to stage failure: Task 3 in stage 0.0 failed 4 times, most recent failure: Lost task 3.3 in stage 0.0 (TID 9) (h executor 2): java.lang.RuntimeException: x\n\nDriver stacktrace:";
        let frames = job_failure(m);
        assert_eq!(frames.len(), 16);
        assert_eq!(frames[0].method, "$anonfun$abortStage$3");
        assert_eq!(frames[15].class, "org.apache.spark.SparkContext");
        assert!(job_failure("Job 0 cancelled because SparkContext was shut down").is_empty());
    }
}
