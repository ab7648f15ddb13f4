#!/usr/bin/env python3
"""Runs a sparkyard sweep as a real Spark job: one task per shard.

Each task runs `sparkyard sweep SCENARIO --seeds A..B --shard K/N --jobs J` with the sparkyard
binary and the scenario shipped to the executors (SparkContext.addFile, i.e. spark-submit
--files), returns the shard's JSON lines to the driver, which writes them to OUT_DIR and merges
them with `sparkyard sweep-merge`: the merged report is byte for byte what one unsharded
`sparkyard sweep` prints.

Local try (the real Spark from pip, two worker JVMs of one core each):

    python3 -m venv /work/venv-pyspark && /work/venv-pyspark/bin/pip install pyspark==4.0.0
    cargo build --release
    /work/venv-pyspark/bin/spark-submit --master 'local-cluster[2,1,1024]' \\
        scripts/sweep-on-spark.py --binary target/release/sparkyard \\
        --scenario config/scenarios/chaos.toml --seeds 1..1001 --shards 8 --out /tmp/sweep

On YARN (docs/scenarios.md, "Sweeps on a Spark cluster"): build sparkyard for the cluster's
Linux (a static musl build runs anywhere: `cargo build --release --target
x86_64-unknown-linux-musl`), then

    spark-submit --master yarn --deploy-mode client --num-executors 50 --executor-cores 1 \\
        scripts/sweep-on-spark.py --binary target/x86_64-unknown-linux-musl/release/sparkyard \\
        --scenario config/scenarios/chaos.toml --seeds 1..100001 --shards 400 --out sweep-out

A scenario with `cluster_file` needs that file shipped too (`--extra-file`), next to it.
"""

import argparse
import os
import stat
import subprocess
import sys
import time


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--binary", required=True, help="the sparkyard binary to ship to the executors")
    p.add_argument("--scenario", required=True, help="the scenario file (TOML)")
    p.add_argument("--seeds", required=True, help="A..B (B excluded) or A..=B, as sparkyard sweep")
    p.add_argument("--shards", type=int, required=True, help="how many tasks (shards)")
    p.add_argument("--jobs", type=int, default=1,
                   help="simulations each task runs at once (match --executor-cores)")
    p.add_argument("--expect", action="store_true", help="pass --expect to every shard")
    p.add_argument("--out", required=True, help="directory for the shard outputs and the report")
    p.add_argument("--extra-file", action="append", default=[],
                   help="another file the scenario names (a cluster_file), shipped beside it")
    return p.parse_args(argv)


def run_shard(k, n, args, binary_name, scenario_name):
    """On an executor: runs shard k/n with the shipped binary; returns (k, exit code, stdout,
    stderr, seconds)."""
    from pyspark import SparkFiles

    binary = SparkFiles.get(binary_name)
    mode = os.stat(binary).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(binary, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    scenario = SparkFiles.get(scenario_name)
    cmd = [binary, "sweep", scenario, "--seeds", args.seeds, "--shard", f"{k}/{n}",
           "--jobs", str(args.jobs), "--no-progress"]
    if args.expect:
        cmd.append("--expect")
    start = time.monotonic()
    done = subprocess.run(cmd, capture_output=True, text=True)
    return k, done.returncode, done.stdout, done.stderr, time.monotonic() - start


def main(argv):
    args = parse_args(argv)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName(f"sparkyard sweep {args.scenario} {args.seeds}").getOrCreate()
    sc = spark.sparkContext
    sc.addFile(os.path.abspath(args.binary))
    sc.addFile(os.path.abspath(args.scenario))
    for f in args.extra_file:
        sc.addFile(os.path.abspath(f))
    binary_name = os.path.basename(args.binary)
    scenario_name = os.path.basename(args.scenario)
    n = args.shards
    start = time.monotonic()
    results = (sc.parallelize(range(1, n + 1), n)
               .map(lambda k: run_shard(k, n, args, binary_name, scenario_name))
               .collect())
    spark_seconds = time.monotonic() - start
    os.makedirs(args.out, exist_ok=True)
    paths = []
    for k, code, out, err, seconds in sorted(results):
        # Exit 1 means violations or failed expectations (reported in the lines); anything else
        # without output is a broken shard.
        if code not in (0, 1) or not out:
            sys.stderr.write(f"shard {k}/{n} failed (exit {code}):\n{err}")
            return 2
        # The executor ran its own copy of the scenario: name it as the user did, so the
        # merged report's reproduce commands are the unsharded sweep's.
        out = rename(out, args.scenario)
        path = os.path.join(args.out, f"shard-{k:05d}-of-{n:05d}.jsonl")
        with open(path, "w") as f:
            f.write(out)
        paths.append(path)
        print(f"shard {k}/{n}: {seconds:.1f} s on its executor", file=sys.stderr)
    spark.stop()
    merged = subprocess.run([args.binary, "sweep-merge", *paths], capture_output=True, text=True)
    if merged.returncode not in (0, 1):
        sys.stderr.write(merged.stderr)
        return 2
    report = os.path.join(args.out, "report.txt")
    with open(report, "w") as f:
        f.write(merged.stdout)
    sys.stdout.write(merged.stdout)
    print(f"spark job: {n} shards in {spark_seconds:.1f} s; report: {report}", file=sys.stderr)
    return merged.returncode


def rename(lines, scenario):
    """Sets the header's scenario to the name the user gave (the executor ran a copy)."""
    import json

    first, _, rest = lines.partition("\n")
    header = json.loads(first)
    header["sweep"]["scenario"] = shell_quote(scenario)
    return json.dumps(header, separators=(",", ":")) + "\n" + rest


def shell_quote(word):
    """As sparkyard quotes the scenario in its reproduce commands."""
    safe = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,@%+")
    if word and all(c in safe for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
