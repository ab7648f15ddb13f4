#!/usr/bin/env python3
"""Checks sparkyard's event logs against a real Spark History Server.

Usage: scripts/check-history-server.py LOG_DIR [--timeout SECONDS] [--keep] [--install]
                                      [--require-shuffle]

Uses pyspark's bundled Spark and History Server (with --install, pip installs pyspark when it
is missing; without it, a machine without pyspark or Java prints SKIP and exits 0), starts the
History Server on 127.0.0.1 on a free port against LOG_DIR, waits (bounded) until it
has listed every application found in the logs (LOG_DIR's files and Spark 4.0's rolling
eventlog_v2_* folders, zstd or plain), then checks through its REST API
(/api/v1/applications, .../<attempt>/executors, allexecutors, jobs, stages and each stage's
tasks) that every executor (removed ones too, with their reason), job, stage and task (with its
executor and failure reason) of the logs is there, that each stage's shuffle read/write bytes
and records and its input bytes and records are the sums of its tasks' metrics in the log, and that each job's DAG page draws
the edges between stages the logs' RDD Parent IDs give (`incoming-edge` in the job page's
dag-viz metadata). --require-shuffle also fails when no stage shows non-zero shuffle read and
write (the GroupByTest check of issue 14). Prints PASS or FAIL with the differences,
always stops the server, and exits non-zero on failure. Needs Java 17+ on PATH.

It is not part of `cargo test`: it downloads Spark and takes about a minute.
"""

import argparse
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


def spark_home(install):
    """The pyspark install's SPARK_HOME (installing pyspark first with `install`), or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        if not install:
            return None
        print("pyspark not found: pip install pyspark", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "pyspark"], check=True)
    out = subprocess.run(
        [sys.executable, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
        check=True, capture_output=True, text=True)
    return out.stdout.strip()


def log_files(path):
    """A log's files: the file itself, or a rolling log folder's (eventlog_v2_<app>, Spark 4.0's
    default) events_<n>_<app> files in index order."""
    if not os.path.isdir(path):
        return [path]
    names = [n for n in os.listdir(path) if n.startswith("events_")]
    names.sort(key=lambda n: int(n.split("_")[1]))
    return [os.path.join(path, n) for n in names]


def completed(path):
    """A single file is complete without .inprogress; a rolling folder when its appstatus_ file is."""
    if not os.path.isdir(path):
        return not path.endswith(".inprogress")
    status = [n for n in os.listdir(path) if n.startswith("appstatus_")]
    return bool(status) and not status[0].endswith(".inprogress")


def read_log(path):
    """The event log's JSON lines (zstd-compressed when the name says so)."""
    lines = []
    for f in log_files(path):
        with open(f, "rb") as fh:
            data = fh.read()
        if ".zstd" in os.path.basename(f):
            data = unzstd(data)
        lines += [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    return lines


def unzstd(data):
    if shutil.which("zstd"):
        return subprocess.run(["zstd", "-dc"], input=data, check=True, capture_output=True).stdout
    try:
        import zstandard
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "zstandard"], check=True)
        import zstandard
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def expected_from(path):
    """What the History Server must show for one log file."""
    app = {"file": os.path.basename(path), "completed": completed(path),
           "executors": {}, "jobs": {}, "stages": {}, "tasks": {}, "shuffle": {}, "input": {}, "edges": {},
           "rdd_stage": {}}
    for e in read_log(path):
        kind = e["Event"]
        if kind == "SparkListenerApplicationStart":
            app["id"], app["attempt"], app["name"] = e["App ID"], e.get("App Attempt ID"), e["App Name"]
        elif kind == "SparkListenerExecutorAdded":
            app["executors"][e["Executor ID"]] = None
        elif kind == "SparkListenerExecutorRemoved":
            app["executors"][e["Executor ID"]] = e["Removed Reason"]
        elif kind == "SparkListenerJobStart":
            app["jobs"][e["Job ID"]] = "RUNNING"
            edges = app["edges"].setdefault(e["Job ID"], set())
            for s in e["Stage Infos"]:
                for r in s["RDD Info"]:
                    app["rdd_stage"][r["RDD ID"]] = s["Stage ID"]
            for s in e["Stage Infos"]:
                for r in s["RDD Info"]:
                    for p in r["Parent IDs"]:
                        if app["rdd_stage"].get(p, s["Stage ID"]) != s["Stage ID"]:
                            edges.add((p, r["RDD ID"]))
        elif kind == "SparkListenerStageSubmitted":
            s = e["Stage Info"]
            app["stages"][(s["Stage ID"], s["Stage Attempt ID"])] = ("ACTIVE", s["Number of Tasks"])
        elif kind == "SparkListenerTaskStart":
            t = e["Task Info"]
            app["tasks"][t["Task ID"]] = {"stage": (e["Stage ID"], e["Stage Attempt ID"]),
                                          "executor": t["Executor ID"], "status": "RUNNING", "detail": None}
        elif kind == "SparkListenerJobEnd":
            app["jobs"][e["Job ID"]] = "SUCCEEDED" if e["Job Result"]["Result"] == "JobSucceeded" else "FAILED"
        elif kind == "SparkListenerStageCompleted":
            s = e["Stage Info"]
            status = "FAILED" if "Failure Reason" in s else "COMPLETE"
            app["stages"][(s["Stage ID"], s["Stage Attempt ID"])] = (status, s["Number of Tasks"])
        elif kind == "SparkListenerTaskEnd":
            t = e["Task Info"]
            reason = e["Task End Reason"]
            status = "KILLED" if t["Killed"] else ("FAILED" if t["Failed"] else "SUCCESS")
            detail = reason.get("Description") or reason.get("Loss Reason") or reason.get("Kill Reason")
            app["tasks"][t["Task ID"]] = {"stage": (e["Stage ID"], e["Stage Attempt ID"]),
                                          "executor": t["Executor ID"], "status": status, "detail": detail,
                                          "full": reason.get("Full Stack Trace")}
            m = e.get("Task Metrics")
            if m:
                # AppStatusListener adds every ended task's metrics to its stage's.
                r, w = m["Shuffle Read Metrics"], m["Shuffle Write Metrics"]
                sums = app["shuffle"].setdefault((e["Stage ID"], e["Stage Attempt ID"]), [0, 0, 0, 0])
                sums[0] += r["Remote Bytes Read"] + r["Local Bytes Read"]
                sums[1] += r["Total Records Read"]
                sums[2] += w["Shuffle Bytes Written"]
                sums[3] += w["Shuffle Records Written"]
                i = m.get("Input Metrics", {})
                ins = app["input"].setdefault((e["Stage ID"], e["Stage Attempt ID"]), [0, 0])
                ins[0] += i.get("Bytes Read", 0)
                ins[1] += i.get("Records Read", 0)
    return app


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(base, path):
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return json.loads(r.read().decode("utf-8"))


def get_text(base, path):
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return r.read().decode("utf-8")


def start_server(home, log_dir, port, work):
    conf_dir = os.path.join(work, "conf")
    os.makedirs(conf_dir, exist_ok=True)
    env = dict(os.environ)
    env.update({
        "SPARK_HOME": home,
        "SPARK_CONF_DIR": conf_dir,
        "SPARK_LOCAL_IP": "127.0.0.1",
        "SPARK_HISTORY_OPTS": " ".join([
            "-Dspark.history.fs.logDirectory=file:" + os.path.abspath(log_dir),
            "-Dspark.history.ui.port=%d" % port,
            "-Dspark.history.fs.update.interval=1s",
            "-Dspark.history.fs.cleaner.enabled=false",
        ]),
    })
    log = open(os.path.join(work, "history-server.log"), "wb")
    cmd = [os.path.join(home, "bin", "spark-class"), "org.apache.spark.deploy.history.HistoryServer"]
    return subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop_server(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_listed(base, proc, apps, timeout):
    """Polls /applications until every expected attempt is listed; returns the listing."""
    want = {(a["id"], a["attempt"]) for a in apps}
    deadline = time.monotonic() + timeout
    listing = []
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the History Server exited with %s" % proc.returncode)
        try:
            listing = get(base, "/api/v1/applications")
            seen = {(a["id"], t.get("attemptId")) for a in listing for t in a["attempts"]}
            if want <= seen:
                return listing
        except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
            pass
        time.sleep(1)
    raise RuntimeError("timed out after %ds; listed: %s" % (timeout, json.dumps(listing)[:2000]))


def check_app(base, app, listing, problems):
    """Compares one attempt's REST view with its log; appends what differs to `problems`."""
    where = "%s attempt %s (%s)" % (app["id"], app["attempt"], app["file"])
    prefix = "/api/v1/applications/%s/%s" % (app["id"], app["attempt"]) if app["attempt"] else \
        "/api/v1/applications/%s" % app["id"]
    attempts = [t for a in listing if a["id"] == app["id"] for t in a["attempts"]
                if t.get("attemptId") == app["attempt"]]
    if attempts and attempts[0]["completed"] != app["completed"]:
        problems.append("%s: completed=%s, expected %s" % (where, attempts[0]["completed"], app["completed"]))

    every = {e["id"]: e for e in get(base, prefix + "/allexecutors")}
    active = {e["id"] for e in get(base, prefix + "/executors")}
    for eid, reason in app["executors"].items():
        e = every.get(eid)
        if e is None:
            problems.append("%s: executor %s missing from allexecutors" % (where, eid))
        elif reason is not None and (e["isActive"] or e.get("removeReason") != reason):
            problems.append("%s: executor %s active=%s removeReason=%r, expected removed with %r"
                            % (where, eid, e["isActive"], e.get("removeReason"), reason))
        elif reason is None and eid not in active:
            problems.append("%s: executor %s missing from executors" % (where, eid))
    if "driver" not in every:
        problems.append("%s: no driver in allexecutors" % where)

    jobs = {j["jobId"]: j for j in get(base, prefix + "/jobs")}
    for jid, status in app["jobs"].items():
        if jid not in jobs or jobs[jid]["status"] != status:
            problems.append("%s: job %s is %s, expected %s" % (where, jid, jobs.get(jid, {}).get("status"), status))

    stages = {(s["stageId"], s["attemptId"]): s for s in get(base, prefix + "/stages")}
    for key, (status, n) in app["stages"].items():
        s = stages.get(key)
        if s is None or s["status"] != status or s["numTasks"] != n:
            problems.append("%s: stage %s.%s is %s, expected %s with %d tasks"
                            % (where, key[0], key[1], s and (s["status"], s["numTasks"]), status, n))

    shuffle_seen = False
    for key, (read_b, read_r, write_b, write_r) in app["shuffle"].items():
        s = stages.get(key)
        if s is None:
            continue
        got = (s["shuffleReadBytes"], s["shuffleReadRecords"], s["shuffleWriteBytes"], s["shuffleWriteRecords"])
        if got != (read_b, read_r, write_b, write_r):
            problems.append("%s: stage %s.%s shuffle read/write bytes and records %s, expected %s"
                            % (where, key[0], key[1], got, (read_b, read_r, write_b, write_r)))
        shuffle_seen = shuffle_seen or (got[0] > 0 and got[2] == 0)
    app["shuffle_seen"] = shuffle_seen and any(s["shuffleWriteBytes"] > 0 for s in stages.values())

    input_seen = False
    for key, want in app["input"].items():
        s = stages.get(key)
        if s is None:
            continue
        got = (s["inputBytes"], s["inputRecords"])
        if got != tuple(want):
            problems.append("%s: stage %s.%s input bytes and records %s, expected %s"
                            % (where, key[0], key[1], got, tuple(want)))
        input_seen = input_seen or got[0] > 0
    app["input_seen"] = input_seen

    ui = "/history/%s/%s" % (app["id"], app["attempt"]) if app["attempt"] else "/history/%s" % app["id"]
    edges_checked = 0
    for jid, edges in app["edges"].items():
        if not edges:
            continue
        page = get_text(base, "%s/jobs/job/?id=%d" % (ui, jid))
        for (src, dst) in sorted(edges):
            edges_checked += 1
            if '<div class="incoming-edge">%d,%d</div>' % (src, dst) not in page:
                problems.append("%s: job %s's DAG lacks the edge RDD %d -> RDD %d" % (where, jid, src, dst))
    app["edges_checked"] = edges_checked

    tasks = {}
    for key in app["stages"]:
        path = "%s/stages/%d/%d/taskList?length=1000000" % (prefix, key[0], key[1])
        for t in get(base, path):
            tasks[t["taskId"]] = t
    for tid, want in app["tasks"].items():
        t = tasks.get(tid)
        if t is None:
            problems.append("%s: task %s missing" % (where, tid))
            continue
        if t["executorId"] != want["executor"] or t["status"] != want["status"]:
            problems.append("%s: task %s on executor %s %s, expected executor %s %s"
                            % (where, tid, t["executorId"], t["status"], want["executor"], want["status"]))
        if want["status"] in ("FAILED", "KILLED") and want["detail"] and want["detail"] not in t.get("errorMessage", ""):
            problems.append("%s: task %s errorMessage %r lacks %r" % (where, tid, t.get("errorMessage"), want["detail"]))
        # ExceptionFailure.toErrorString is the Full Stack Trace when the log has one.
        if want["full"] and t.get("errorMessage") != want["full"]:
            problems.append("%s: task %s errorMessage %r, expected the log's Full Stack Trace %r"
                            % (where, tid, t.get("errorMessage"), want["full"]))
    return len(app["executors"]), len(app["jobs"]), len(app["stages"]), len(app["tasks"])


def on_term(signum, frame):
    """SIGTERM/SIGHUP end the check through `finally`, which stops the server."""
    raise SystemExit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log_dir")
    ap.add_argument("--timeout", type=int, default=180, help="seconds to wait for the listing")
    ap.add_argument("--keep", action="store_true", help="keep the server's work dir and log")
    ap.add_argument("--install", action="store_true", help="pip install pyspark when it is missing")
    ap.add_argument("--require-shuffle", action="store_true",
                    help="fail unless a stage shows non-zero shuffle read and one shuffle write")
    args = ap.parse_args()
    files = sorted(f for f in glob.glob(os.path.join(args.log_dir, "*"))
                   if os.path.isfile(f) or os.path.basename(f).startswith("eventlog_v2_"))
    apps = [a for a in (expected_from(f) for f in files) if "id" in a]
    if not apps:
        print("FAIL: no event logs with an ApplicationStart in %s" % args.log_dir)
        return 1
    home = spark_home(args.install)
    if home is None or shutil.which("java") is None:
        print("SKIP: %s not found (the check needs pyspark's Spark and Java 17+; --install "
              "installs pyspark)" % ("pyspark" if home is None else "java"))
        return 0
    work = tempfile.mkdtemp(prefix="sparkyard-shs-")
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    print("History Server (%s) on %s, logs %s" % (home, base, os.path.abspath(args.log_dir)), flush=True)
    proc = start_server(home, args.log_dir, port, work)
    problems = []
    try:
        listing = wait_listed(base, proc, apps, args.timeout)
        for app in apps:
            counts = check_app(base, app, listing, problems)
            seen = ((", non-zero shuffle read and write" if app["shuffle_seen"] else "")
                    + (", non-zero input" if app["input_seen"] else ""))
            print("  %s attempt %s (%s): %d executors, %d jobs, %d stages, %d tasks, %d DAG edges checked%s"
                  % ((app["id"], app["attempt"], app["file"]) + counts + (app["edges_checked"], seen)))
        if args.require_shuffle and not any(a["shuffle_seen"] for a in apps):
            problems.append("no stage shows non-zero shuffle read and write (--require-shuffle)")
    except Exception as e:  # the server never came up, or answered with an error
        problems.append("%s: %s" % (type(e).__name__, e))
    finally:
        stop_server(proc)
        if problems:
            print("server log: %s" % os.path.join(work, "history-server.log"))
        elif not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if problems:
        print("FAIL: %d problem(s)" % len(problems))
        for p in problems:
            print("  - " + p)
        return 1
    print("PASS: the History Server shows every application, executor, job, stage and task")
    return 0


if __name__ == "__main__":
    sys.exit(main())
