#!/usr/bin/env python3
"""Per event log, each job of a second or more: recorded vs replayed time.

Usage: scripts/replay-jobs.py BINARY LOG... [-- EXTRA REPLAY ARGS]
Runs `BINARY replay LOG --json` and prints, per log, the application's error and each job
whose recorded time is >= 1 s with its error, then how many of those are within 10 %.
"""
import json
import subprocess
import sys


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[: args.index("--")]
    binary, logs = args[0], args[1:]
    for log in logs:
        out = subprocess.run([binary, "replay", log, "--json", *extra],
                             capture_output=True, text=True)
        if not out.stdout.strip():
            # A refused log (an incomplete application, a Spark 1.x log): its reason, then on.
            print(f"{log}: refused: {out.stderr.strip()}")
            continue
        d = json.loads(out.stdout)
        t = d["time"]
        app = t.get("error_pct")
        print(f"{log}: recorded {t['recorded'] / 1000:.3f} s, simulated "
              f"{(t.get('simulated') or 0) / 1000:.3f} s, "
              f"{'-' if app is None else f'{app:+.1f} %'}")
        long_jobs = [j for j in d["jobs"] if j["recorded_ms"] >= 1000]
        within = 0
        for j in long_jobs:
            err = 100.0 * (j["simulated_ms"] - j["recorded_ms"]) / j["recorded_ms"]
            ok = abs(err) <= 10.0
            within += ok
            print(f"  job {j['job_id']:>3}: tasks {j['tasks']:>5}  recorded {j['recorded_ms']:>7} ms"
                  f"  simulated {j['simulated_ms']:>7} ms  {err:+7.1f} %{'' if ok else '  OUT'}")
        print(f"  within 10 %: {within} of {len(long_jobs)}")


if __name__ == "__main__":
    main()
