#!/usr/bin/env python3
"""Writes a synthetic day of Spark event logs for `sparkyard replay-cluster` (BENCHMARKS.md):
N copies of the committed real logs (tests/data/eventlogs/*_r1.zstd, decompressed with zstdcat),
each with its own application id and `spark.app.submitTime`, one every INTERVAL seconds.

    scripts/synthetic-day.py N INTERVAL_S OUT_DIR
"""
import pathlib
import re
import subprocess
import sys

def main():
    n, interval_s, out = int(sys.argv[1]), float(sys.argv[2]), pathlib.Path(sys.argv[3])
    root = pathlib.Path(__file__).resolve().parent.parent
    sources = sorted((root / "tests/data/eventlogs").glob("*_r1.zstd"))
    texts = [subprocess.run(["zstdcat", str(s)], check=True, capture_output=True, text=True).stdout
             for s in sources]
    out.mkdir(parents=True, exist_ok=True)
    base = 1796300000000
    for k in range(n):
        text = texts[k % len(texts)]
        submit = base + int(k * interval_s * 1000)
        text = re.sub(r'"App ID":"[^"]*"', f'"App ID":"app-synthetic-{k:05d}"', text)
        text = re.sub(r'"spark.app.submitTime":"\d+"', f'"spark.app.submitTime":"{submit}"', text)
        (out / f"day-{k:05d}").write_text(text)

if __name__ == "__main__":
    main()
