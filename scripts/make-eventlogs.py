#!/usr/bin/env python3
"""Runs small real Spark 4.0 applications with pyspark on local-cluster[N,1,1024] and keeps
their event logs as the test data of `sparkyard replay` (tests/data/eventlogs/).

Every task's work is a controlled sleep, so the logs say what the application did and the
replay can be compared with it:

- skew:     one job, 8 map tasks of 300 ms, a shuffle into 4 partitions, one of which holds
            most of the records (its task sleeps 1.2 s, the others 0.2 s);
- multijob: three jobs of 6 tasks of 400 ms, with 1.0 s and 1.5 s of driver time between them.

for N = 1, 2, 4 executors (one core each), RUNS runs each, written as Spark compresses event
logs by default (zstd), as single files; one multijob run at N = 2 is also written with lz4,
one with snappy and one as a rolling log (eventlog_v2_*, Spark 4's default layout), to cover
Spark's codecs and layouts.

    python3 -m venv /work/venv-pyspark && /work/venv-pyspark/bin/pip install pyspark==4.0.0
    /work/venv-pyspark/bin/python scripts/make-eventlogs.py [--runs 2] [--out tests/data/eventlogs]
    /work/venv-pyspark/bin/python scripts/make-eventlogs.py --day --out tests/data/eventlogs/day-two-queues
    /work/venv-pyspark/bin/python scripts/make-eventlogs.py --failures --out tests/data/eventlogs/failures
    /work/venv-pyspark/bin/python scripts/make-eventlogs.py --shapes

It needs Java 17 and takes a few minutes; `cargo test` only reads the committed logs.

A busy machine stretches executor start-up and task times, more with more executors (README,
"Accuracy"); each run prints the load average. On a shared machine whose scheduler groups
processes by session (autogroup), `nice` alone does not reach other sessions; as root, give the
recording's own session a higher weight instead:

    setsid bash -c 'echo -15 > /proc/$$/autogroup; exec /work/venv-pyspark/bin/python scripts/make-eventlogs.py --out /tmp/evl'
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

SKEW_MAP_MS = 300
SKEW_HOT_MS = 1200
SKEW_COLD_MS = 200
JOB_TASK_MS = 400
DRIVER_GAPS_S = [1.0, 1.5]


def skew_app(sc):
    import time as t

    def map_part(i, it):
        t.sleep(SKEW_MAP_MS / 1000.0)
        # Partition key 0 gets 90 % of the records: the skewed reduce partition.
        for r in it:
            yield (0 if r % 10 else 1 + r % 3, r)

    def reduce_part(i, it):
        rows = list(it)
        t.sleep((SKEW_HOT_MS if i == 0 else SKEW_COLD_MS) / 1000.0)
        yield (i, len(rows))

    rdd = sc.parallelize(range(800), 8).mapPartitionsWithIndex(map_part)
    rdd.partitionBy(4, lambda k: k).mapPartitionsWithIndex(reduce_part).collect()


def multijob_app(sc):
    import time as t

    def work(it):
        t.sleep(JOB_TASK_MS / 1000.0)
        return [sum(1 for _ in it)]

    for j in range(3):
        sc.parallelize(range(60), 6).mapPartitions(work).collect()
        if j < len(DRIVER_GAPS_S):
            time.sleep(DRIVER_GAPS_S[j])


FAIL_TASK_MS = 300


def failing_job(sc):
    """A job of 8 tasks of FAIL_TASK_MS whose task 5 throws on every attempt: after
    spark.task.maxFailures (4) attempts the stage aborts and the job fails (JobFailed)."""
    import time as t

    def work(i, it):
        t.sleep(FAIL_TASK_MS / 1000.0)
        if i == 5:
            raise ValueError("bad partition 5")
        return [sum(1 for _ in it)]

    sc.parallelize(range(80), 8).mapPartitionsWithIndex(work).collect()


def failedlast_app(sc):
    """A job that succeeds, then a failing one whose exception ends the driver (the
    application's last job failed)."""
    multijob_app_one(sc)
    failing_job(sc)


def failcaught_app(sc):
    """A job that succeeds, a failing one whose exception the driver catches, 1 s of driver
    time, and one more job: a failed job the log shows later jobs after."""
    multijob_app_one(sc)
    try:
        failing_job(sc)
    except Exception:
        pass
    time.sleep(1.0)
    multijob_app_one(sc)


def multijob_app_one(sc):
    import time as t

    def work(it):
        t.sleep(JOB_TASK_MS / 1000.0)
        return [sum(1 for _ in it)]

    sc.parallelize(range(60), 6).mapPartitions(work).collect()


def killed_app(sc):
    """A job that succeeds, then one of 8 tasks of 1 s per record that the kill cuts short:
    the plan's runner sends the driver JVM SIGTERM KILL_AFTER_S into the run (as `yarn
    application -kill` sends the AM); Spark's shutdown hook stops the SparkContext."""
    import time as t

    multijob_app_one(sc)
    sc.parallelize(range(400), 8).map(lambda x: t.sleep(1) or x).count()


def execlost_app(sc):
    """A job of 8 tasks of 0.5 s whose task 2's first attempt kills its executor's JVM
    (SIGKILL from the Python worker to the executor, its daemon's parent): Spark loses the
    executor with the task (ExecutorLostFailure), runs it again elsewhere, and the cluster
    manager starts another executor; then, 1 s later, a job of 6 tasks."""
    import time as t
    from pyspark import TaskContext

    def work(i, it):
        t.sleep(0.5)
        if i == 2 and TaskContext.get().attemptNumber() == 0:
            kill_own_executor()
            t.sleep(5)
        return [sum(1 for _ in it)]

    sc.parallelize(range(80), 8).mapPartitionsWithIndex(work).collect()
    time.sleep(1)
    sc.parallelize(range(60), 6).map(lambda x: (t.sleep(0.05), x)[1]).count()


def kill_own_executor():
    """SIGKILL to the executor JVM running this Python worker (its pyspark daemon's parent)."""
    daemon = os.getppid()
    with open(f"/proc/{daemon}/stat") as f:
        jvm = int(f.read().rsplit(")", 1)[1].split()[1])
    os.kill(jvm, 9)


def shufflelost_app(sc):
    """One job: a map stage of 8 tasks of 0.3 s and a reduce stage of 8 partitions of 0.4 s
    whose partition 5, the first time it runs, kills its executor's JVM: the executor's map
    outputs are lost with it, the reduce stage's next tasks fail to fetch them (FetchFailed),
    and the DAGScheduler resubmits the map stage's lost partitions, then the reduce stage's."""
    import time as t

    mark = os.path.join(tempfile.gettempdir(), "sparkyard-shufflelost-" + sc.applicationId)

    def mapper(i, it):
        t.sleep(0.3)
        for r in it:
            yield (r % 8, r)

    def reducer(i, it):
        rows = list(it)
        t.sleep(0.4)
        if i == 5:
            try:
                os.close(os.open(mark, os.O_CREAT | os.O_EXCL))
                kill_own_executor()
                t.sleep(5)
            except FileExistsError:
                pass
        yield (i, len(rows))

    rdd = sc.parallelize(range(800), 8).mapPartitionsWithIndex(mapper)
    rdd.partitionBy(8).mapPartitionsWithIndex(reducer).collect()
    os.remove(mark)


def exclude_app(sc):
    """With spark.excludeOnFailure.enabled (the plan's `EXCLUDE`): two jobs of 8 tasks of 0.4 s
    whose tasks 3 and 5 throw on whichever executor ran the first of them (a bad executor):
    stage 0's TaskSetExcludelist excludes it for the stage after its second failure, and when
    the stage succeeds the HealthTracker excludes it for the application, so job 1 runs on the
    other executor alone."""
    import time as t

    mark = os.path.join(tempfile.gettempdir(), "sparkyard-exclude-" + sc.applicationId)

    def executor_jvm():
        daemon = os.getppid()
        with open(f"/proc/{daemon}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[1]

    def work(i, it):
        t.sleep(0.4)
        if i in (3, 5):
            try:
                fd = os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.write(fd, executor_jvm().encode())
                os.close(fd)
            except FileExistsError:
                pass
            with open(mark) as f:
                if f.read() == executor_jvm():
                    raise ValueError("bad executor")
        return [sum(1 for _ in it)]

    for _ in range(2):
        sc.parallelize(range(80), 8).mapPartitionsWithIndex(work).collect()
    os.remove(mark)


def idlelost_app(sc):
    """A job of 6 tasks of 0.3 s, then the driver SIGKILLs one executor's JVM while it runs
    nothing (the first `CoarseGrainedExecutorBackend` process of this machine by pid) and, 1 s
    later, runs a job of 6 tasks of 0.6 s: the cluster manager starts another executor
    meanwhile."""
    import signal
    import subprocess
    import time as t

    sc.parallelize(range(60), 6).map(lambda x: (t.sleep(0.05), x)[1]).count()
    found = subprocess.run(
        ["pgrep", "-f", "CoarseGrainedExecutorBackend"], capture_output=True, text=True
    )
    os.kill(min(int(p) for p in found.stdout.split()), signal.SIGKILL)
    time.sleep(1)
    sc.parallelize(range(60), 6).map(lambda x: (t.sleep(0.1), x)[1]).count()


def cancel_app(sc):
    """A job of 4 tasks of 5 s in job group `g`, which another thread of the driver cancels
    (`sc.cancelJobGroup`) 4 s after the application's code started; the driver catches the
    failure and runs a job of 4 tasks of 0.5 s."""
    import threading
    import time as t

    def canceller():
        time.sleep(4)
        sc.cancelJobGroup("g")

    th = threading.Thread(target=canceller)
    th.start()
    sc.setJobGroup("g", "to cancel", True)
    try:
        sc.parallelize(range(40), 4).map(lambda x: (t.sleep(0.5), x)[1]).count()
    except Exception:
        pass
    th.join()
    sc.setJobGroup("h", "after", False)
    sc.parallelize(range(40), 4).map(lambda x: (t.sleep(0.05), x)[1]).count()


def maxresult_app(sc):
    """Under `spark.driver.maxResultSize=1m` (the plan's `MAX_RESULT`): a job of 4 tasks of
    0.3 s, each returning 600 kB, which Spark aborts at the second result it fetches
    (`TaskSetManager.canFetchMoreResults`); the driver catches the failure and runs a job of 4
    tasks of 0.5 s."""
    import time as t

    try:
        sc.parallelize(range(4), 4).map(lambda x: (t.sleep(0.3), os.urandom(600000))[1]).collect()
    except Exception:
        pass
    sc.parallelize(range(40), 4).map(lambda x: (t.sleep(0.05), x)[1]).count()


def wait_for_executors(sc, n):
    """Until `n` executors have registered (a barrier job submitted before then waits 15 s for
    its slots: `spark.scheduler.barrier.maxConcurrentTasksCheck.interval`)."""
    while len(sc._jsc.sc().statusTracker().getExecutorInfos()) < n + 1:
        time.sleep(0.1)


def barrierres_app(sc):
    """A barrier result stage of 2 tasks of 1 s whose task 0 throws: Spark aborts the job (a
    failed barrier ResultStage is not retried); the driver catches it and runs a job of 4
    tasks of 0.5 s."""
    import time as t

    from pyspark import BarrierTaskContext

    def work(it):
        ctx = BarrierTaskContext.get()
        t.sleep(1)
        if ctx.partitionId() == 0:
            raise RuntimeError("barrier task 0 fails")
        ctx.barrier()
        return [1]

    wait_for_executors(sc, 2)
    try:
        sc.parallelize(range(20), 2).barrier().mapPartitions(work).collect()
    except Exception:
        pass
    sc.parallelize(range(40), 4).map(lambda x: (t.sleep(0.05), x)[1]).count()


def barriermap_app(sc):
    """A barrier map stage of 2 tasks of 1 s whose task 0 throws on the stage's first attempt
    (a marker file in the driver's temporary directory says it ran): Spark fails the whole
    attempt and runs both tasks again; then a reduce stage of 2 tasks of 0.5 s."""
    import tempfile as tf
    import time as t

    from pyspark import BarrierTaskContext

    marker = os.path.join(tf.mkdtemp(), "failed-once")

    def work(it):
        ctx = BarrierTaskContext.get()
        t.sleep(1)
        if ctx.partitionId() == 0 and not os.path.exists(marker):
            open(marker, "w").close()
            raise RuntimeError("barrier task 0 fails once")
        ctx.barrier()
        return [(x % 2, x) for x in it]

    wait_for_executors(sc, 2)
    mapped = sc.parallelize(range(20), 2).barrier().mapPartitions(work)
    mapped.reduceByKey(lambda a, b: a + b, 2).map(lambda kv: (t.sleep(0.5), kv)[1]).collect()


def dynalloc_app(sc):
    """Under dynamic allocation (the plan's `DYNAMIC`): a job of 6 tasks of 1 s, 8 s of driver
    time (both executors idle out), and another such job (new executors come for it)."""
    import time as t

    sc.parallelize(range(60), 6).map(lambda x: (t.sleep(0.1), x)[1]).count()
    time.sleep(8)
    sc.parallelize(range(60), 6).map(lambda x: (t.sleep(0.1), x)[1]).count()


# Dynamic allocation as `dynalloc` runs it on local-cluster[2,1,1024].
DYNAMIC = {
    "spark.dynamicAllocation.enabled": "true",
    "spark.dynamicAllocation.shuffleTracking.enabled": "true",
    "spark.dynamicAllocation.executorIdleTimeout": "3s",
    "spark.dynamicAllocation.maxExecutors": "2",
    "spark.dynamicAllocation.initialExecutors": "1",
}

# The driver's result limit as `maxresult` runs it.
MAX_RESULT = {"spark.driver.maxResultSize": "1m"}

# Exclusion on failure as `exclude` runs it.
EXCLUDE = {"spark.excludeOnFailure.enabled": "true"}

# When the killed application's driver JVM gets SIGTERM, seconds after its process started.
KILL_AFTER_S = 20

APPS = {
    "skew": skew_app,
    "multijob": multijob_app,
    "failedlast": failedlast_app,
    "failcaught": failcaught_app,
    "killed": killed_app,
    "execlost": execlost_app,
    "shufflelost": shufflelost_app,
    "dynalloc": dynalloc_app,
    "exclude": exclude_app,
    "cancel": cancel_app,
    "idlelost": idlelost_app,
    "maxresult": maxresult_app,
    "barrierres": barrierres_app,
    "barriermap": barriermap_app,
}
# Applications whose driver ends with an exception (its process exits non-zero).
FAILING = {"failedlast", "killed"}
# Spark 4.0 compresses event logs by default; Spark 3.5 does not (spark.eventLog.compress).
COMPRESS = {"spark.eventLog.compress": "true"}


def run_one(app, n, log_dir, extra):
    from pyspark import SparkConf, SparkContext

    conf = (
        SparkConf()
        .setMaster(f"local-cluster[{n},1,1024]")
        .setAppName(f"sparkyard-{app}")
        .set("spark.eventLog.enabled", "true")
        .set("spark.eventLog.dir", "file://" + log_dir)
        .set("spark.ui.enabled", "false")
        .set("spark.executor.memory", "512m")
    )
    for k, v in extra.items():
        conf.set(k, v)
    sc = SparkContext(conf=conf)
    try:
        APPS[app](sc)
    finally:
        sc.stop()


def spark4_plan(a):
    plan = []
    for n in [int(x) for x in a.executors.split(",")]:
        # The failure applications have their own plan (--failures).
        for app in ["skew", "multijob"]:
            for r in range(1, a.runs + 1):
                # A single file (Spark 3's layout; Spark 4 rolls by default, see "rolling").
                single = {"spark.eventLog.rolling.enabled": "false", **COMPRESS}
                plan.append((app, n, f"r{r}", single))
    for codec in ["lz4", "snappy"]:
        extra = {
            "spark.eventLog.compression.codec": codec,
            "spark.eventLog.rolling.enabled": "false",
            **COMPRESS,
        }
        plan.append(("multijob", 2, codec, extra))
    plan.append(("multijob", 2, "rolling", {"spark.eventLog.rolling.enabled": "true", **COMPRESS}))
    return plan


def spark3_plan():
    """Spark 3.5's own defaults: spark.eventLog.compress is false there (a plain file), and when
    it is turned on the codec is zstd (spark.eventLog.compression.codec, SPARK-34503); lz4 too,
    for lz4-java's block checksums. Spark 3.5 does not roll event logs by default."""
    return [
        ("skew", 2, "plain", {}),
        ("multijob", 2, "zstd", COMPRESS),
        ("multijob", 2, "lz4", {**COMPRESS, "spark.eventLog.compression.codec": "lz4"}),
    ]


def day_plan():
    """A small day of one cluster in two YARN queues (issue 28's replay-cluster): the
    applications record `spark.yarn.queue` as a spark-submit `--queue` would, run one after the
    other (their submit times are the day's arrivals), into their own folder (`--out
    tests/data/eventlogs/day-two-queues`)."""
    etl = {"spark.yarn.queue": "etl", "spark.eventLog.rolling.enabled": "false", **COMPRESS}
    adhoc = {**etl, "spark.yarn.queue": "adhoc"}
    return [
        ("multijob", 2, "etl_1", etl),
        ("skew", 1, "adhoc_1", adhoc),
        ("skew", 2, "etl_2", etl),
        ("multijob", 1, "adhoc_2", adhoc),
    ]


def run_and_kill(cmd):
    """Runs `cmd` and sends SIGTERM to the driver JVM it started (py4j's gateway, its child
    process) KILL_AFTER_S seconds in."""
    import signal
    import subprocess

    p = subprocess.Popen(cmd)
    time.sleep(KILL_AFTER_S)
    out = subprocess.run(["pgrep", "-P", str(p.pid), "java"], capture_output=True, text=True)
    for pid in out.stdout.split():
        os.kill(int(pid), signal.SIGTERM)
    p.wait()


def failures_plan():
    """Applications with a failed job, N = 2: one whose last job failed and ended the driver,
    one whose driver caught the failure and ran another job, one killed while a job ran; and
    one that lost an executor while a task ran and recovered, one that lost map outputs with
    its executor (FetchFailed, the map stage resubmitted), one whose bad executor Spark's
    exclusion on failure took out, one whose driver cancelled a job, one that lost an executor
    while it ran nothing, one whose job's results passed `spark.driver.maxResultSize`, and two
    whose barrier stage's task failed (a result stage: the job aborted; a map stage: the whole
    stage ran again)."""
    single = {"spark.eventLog.rolling.enabled": "false", **COMPRESS}
    return [
        ("failedlast", 2, "r1", single),
        ("failcaught", 2, "r1", single),
        ("killed", 2, "r1", single),
        ("execlost", 2, "r1", single),
        ("shufflelost", 2, "r1", single),
        ("exclude", 2, "r1", {**single, **EXCLUDE}),
        ("cancel", 2, "r1", single),
        ("idlelost", 2, "r1", single),
        ("maxresult", 2, "r1", {**single, **MAX_RESULT}),
        ("barrierres", 2, "r1", single),
        ("barriermap", 2, "r1", single),
    ]


def shapes_plan():
    """Other shapes of application, N = 2: dynamic allocation (`dynalloc_n2_r1`)."""
    single = {"spark.eventLog.rolling.enabled": "false", **COMPRESS}
    return [("dynalloc", 2, "r1", {**single, **DYNAMIC})]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--out", default="tests/data/eventlogs")
    p.add_argument("--executors", default="1,2,4")
    p.add_argument(
        "--spark3",
        action="store_true",
        help="the Spark 3.x plan (run with pyspark 3.5): names start with spark35_",
    )
    p.add_argument(
        "--day",
        action="store_true",
        help="the two-queue day (spark.yarn.queue etl / adhoc): names start with day_",
    )
    p.add_argument(
        "--failures",
        action="store_true",
        help="applications with failures (failedlast_*, failcaught_*, killed_*, execlost_*, shufflelost_*, exclude_*, cancel_*, idlelost_*, maxresult_*, barrierres_*, barriermap_*)",
    )
    p.add_argument(
        "--shapes",
        action="store_true",
        help="other shapes of application (dynalloc_*: dynamic allocation)",
    )
    p.add_argument("--one", nargs=4, metavar=("APP", "N", "DIR", "EXTRA"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.one:
        # One application per Python process: a fresh driver JVM for every run.
        import json

        app, n, log_dir, extra = a.one
        run_one(app, int(n), log_dir, json.loads(extra))
        return
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.makedirs(a.out, exist_ok=True)
    import pyspark

    prefix = "spark35_" if a.spark3 else "day_" if a.day else ""
    if a.spark3 and not pyspark.__version__.startswith("3."):
        sys.exit(f"--spark3 needs pyspark 3.x, this is {pyspark.__version__}")
    plan = (
        spark3_plan()
        if a.spark3
        else day_plan()
        if a.day
        else failures_plan()
        if a.failures
        else shapes_plan()
        if a.shapes
        else spark4_plan(a)
    )
    for app, n, tag, extra in plan:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.time()
            import json
            import subprocess

            cmd = [sys.executable, __file__, "--one", app, str(n), tmp, json.dumps(extra)]
            if app == "killed":
                run_and_kill(cmd)
            else:
                subprocess.run(cmd, check=app not in FAILING)
            (name,) = os.listdir(tmp)
            src = os.path.join(tmp, name)
            base = f"{prefix}{app}_n{n}_{tag}"
            if os.path.isdir(src):
                dst = os.path.join(a.out, "eventlog_v2_" + base)
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst)
            else:
                ext = name.split(".", 1)[1] if "." in name else ""
                dst = os.path.join(a.out, base + ("." + ext if ext else ""))
                shutil.copyfile(src, dst)
            # The machine's load while the run went: a busy machine stretches start-up and tasks.
            load = "/".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"{dst}: {time.time() - started:.1f} s wall, load {load}", flush=True)


if __name__ == "__main__":
    main()
