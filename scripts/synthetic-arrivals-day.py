#!/usr/bin/env python3
"""Writes a scenario of a synthetic day for `sparkyard run` (BENCHMARKS.md, issue 28's scale
figure): N applications arriving evenly over HOURS hours through `[[workload.applications]]`,
alternately in queues `etl` and `adhoc`, each a synthetic workload of one job with a map stage
and a reduce stage of TASKS/2 tasks each (so N x TASKS tasks in all), on NODES NodeManagers of
64 GiB and 16 vcores in racks of 50.

    scripts/synthetic-arrivals-day.py N TASKS NODES HOURS > day.toml
"""
import sys

def main():
    n, tasks, nodes, hours = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    span_ms = int(hours * 3_600_000)
    out = [f'name = "synthetic-day-{n}x{tasks}-on-{nodes}"', "deadline_ms = 172800000", ""]
    first = 1
    while first <= nodes:
        count = min(50, nodes - first + 1)
        rack = (first - 1) // 50 + 1
        out += ["[[cluster.nodes]]", 'host = "nm-{n}.sparkyard.internal"', f"count = {count}",
                f"first = {first}", f'rack = "/rack-{rack}"', "memory_mb = 65536", "vcores = 16", ""]
        first += count
    for name, cap in (("etl", 60), ("adhoc", 40)):
        out += ["[[cluster.queues]]", f'name = "{name}"', f"capacity = {cap}",
                "maximum-capacity = 100", "maximum-am-resource-percent = 0.5", ""]
    for queue, parity in (("etl", 0), ("adhoc", 1)):
        times = [k * span_ms // n for k in range(parity, n, 2)]
        out += ["[[workload.applications]]", f'name = "{queue}"', f'queue = "{queue}"',
                f"at_ms = [{', '.join(map(str, times))}]", 'app_name = "Synthetic day"',
                "num_executors = 10", 'executor_memory = "4g"', "executor_cores = 4", "",
                "[[workload.applications.jobs]]", 'call_site = "count at Day.scala:1"', "",
                "[[workload.applications.jobs.stages]]", 'name = "map at Day.scala:1"',
                f"tasks = {tasks // 2}", "duration = { lognormal_median_ms = 2000, lognormal_sigma = 0.5 }",
                "shuffle_write = { bytes_per_task = 1000000 }", "",
                "[[workload.applications.jobs.stages]]", 'name = "reduce at Day.scala:2"',
                f"tasks = {tasks - tasks // 2}", "parents = [0]",
                "duration = { lognormal_median_ms = 2000, lognormal_sigma = 0.5 }", ""]
    out += ["[expect]", "applications_failed = 0", ""]
    sys.stdout.write("\n".join(out))

if __name__ == "__main__":
    main()
