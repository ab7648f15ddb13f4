#!/usr/bin/env python3
"""Per executor of a Spark event log: when it came, worked and went (issue 30's measurement).

Usage: scripts/executor-lifecycle.py LOG [IDLE_TIMEOUT_S]
LOG is an event log file (plain JSON lines, or .zstd/.zst read through the `zstd` tool), e.g.
a recorded log or the one `sparkyard replay LOG --conf spark.eventLog.enabled=true --conf
spark.eventLog.dir=DIR` writes. Times are seconds from SparkListenerApplicationStart.

Per executor: SparkListenerExecutorAdded, its first task launch, its task count, its last task
end, SparkListenerExecutorRemoved and the reason; `idle` = removed - max(last task end, added)
(how long it sat without a task before it went), `late` = idle - the idle timeout (what the
kill and the container's end took beyond Spark's timeout). Per job: its submission, how many
executors were alive then and, where none were, the wait to the next registration (a cold start).
"""
import json
import subprocess
import sys


def lines(path):
    if path.endswith((".zstd", ".zst")):
        out = subprocess.run(["zstd", "-dc", path], capture_output=True, check=True)
        return out.stdout.decode().splitlines()
    with open(path) as f:
        return f.read().splitlines()


def read(path):
    app = {"start": None, "end": None, "idle_timeout": None}
    execs, jobs = {}, []
    for line in lines(path):
        e = json.loads(line)
        ev = e["Event"]
        if ev == "SparkListenerApplicationStart":
            app["start"] = e["Timestamp"]
        elif ev == "SparkListenerApplicationEnd":
            app["end"] = e["Timestamp"]
        elif ev == "SparkListenerEnvironmentUpdate":
            v = e["Spark Properties"].get("spark.dynamicAllocation.executorIdleTimeout")
            if v is not None:
                app["idle_timeout"] = float(v.rstrip("s")) if v.endswith("s") else float(v)
        elif ev == "SparkListenerExecutorAdded":
            execs[e["Executor ID"]] = {"added": e["Timestamp"], "tasks": 0, "first": None,
                                       "last_end": None, "removed": None, "reason": ""}
        elif ev == "SparkListenerExecutorRemoved":
            x = execs.setdefault(e["Executor ID"], {"added": None, "tasks": 0, "first": None,
                                                    "last_end": None})
            x["removed"], x["reason"] = e["Timestamp"], e.get("Removed Reason", "")
        elif ev == "SparkListenerTaskStart":
            i = e["Task Info"]
            x = execs.get(i["Executor ID"])
            if x is not None:
                x["tasks"] += 1
                if x["first"] is None or i["Launch Time"] < x["first"]:
                    x["first"] = i["Launch Time"]
        elif ev == "SparkListenerTaskEnd":
            i = e["Task Info"]
            x = execs.get(i["Executor ID"])
            if x is not None and i.get("Finish Time"):
                x["last_end"] = max(x["last_end"] or 0, i["Finish Time"])
        elif ev == "SparkListenerJobStart":
            jobs.append((e["Job ID"], e["Submission Time"]))
    return app, execs, jobs


def main():
    path = sys.argv[1]
    app, execs, jobs = read(path)
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else app["idle_timeout"]
    t0 = app["start"]
    s = lambda t: "-" if t is None else f"{(t - t0) / 1000:8.3f}"
    print(f"{path}: idle timeout {timeout} s, application {s(app['end'])} s")
    print(f"{'exec':>5} {'added':>8} {'first':>8} {'tasks':>5} {'last end':>8} {'removed':>8}"
          f" {'idle':>7} {'late':>7}  reason")
    lates = []
    for eid, x in sorted(execs.items(), key=lambda kv: (kv[1]["added"] or 0, kv[0])):
        busy_until = max(t for t in (x["added"], x["last_end"]) if t is not None)
        idle = late = None
        if x["removed"] is not None:
            idle = (x["removed"] - busy_until) / 1000
            if timeout is not None:
                late = idle - timeout
                lates.append(late)
        f = lambda v: "-" if v is None else f"{v:7.3f}"
        print(f"{eid:>5} {s(x['added'])} {s(x['first'])} {x['tasks']:>5} {s(x['last_end'])}"
              f" {s(x['removed'])} {f(idle)} {f(late)}  {x.get('reason', '')}")
    if lates:
        lates.sort()
        print(f"late beyond the timeout: min {lates[0]:.3f} median "
              f"{lates[(len(lates) - 1) // 2]:.3f} max {lates[-1]:.3f} s over {len(lates)}")
    print(f"{'job':>4} {'submitted':>9} {'alive':>5} {'cold wait':>9}")
    for jid, t in jobs:
        alive = sum(1 for x in execs.values() if x["added"] is not None and x["added"] <= t
                    and (x["removed"] is None or x["removed"] > t))
        wait = "-"
        if alive == 0:
            nxt = [x["added"] for x in execs.values() if x["added"] is not None and x["added"] > t]
            wait = f"{(min(nxt) - t) / 1000:.3f}" if nxt else "none"
        print(f"{jid:>4} {s(t):>9} {alive:>5} {wait:>9}")


if __name__ == "__main__":
    main()
