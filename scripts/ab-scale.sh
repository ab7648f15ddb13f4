#!/usr/bin/env bash
# Compares scale-bench binaries side by side on a noisy machine: rounds of fresh bench children
# (`--child tasks N E` or `--child bringup N 0`), the binaries alternating within each round at
# nice -20 (in the order given, reversed every other round), then per binary the median, p25
# and min, and the median (and quartiles) of its per-round ratio to the first binary, which
# cancels drifts that last longer than a round.
#
#   scripts/ab-scale.sh ROUNDS tasks|bringup SIZE EXECUTORS BASE_BIN OTHER_BIN[:da] ...
#
# A binary written BIN:da runs with SCALE_DYNAMIC_ALLOCATION=1 (the same binary may appear twice).
# Build one with `cargo bench --bench scale --no-run` and copy target/release/deps/scale-<hash>
# away before building the next commit. Issue 14's 1 M-task must-hold, for example:
#
#   scripts/ab-scale.sh 20 tasks 1000000 1000 /tmp/scale-pre14 /tmp/scale-new /tmp/scale-new:da
set -euo pipefail
rounds="$1" kind="$2" size="$3" execs="$4"
shift 4
key=tasks_s
[ "$kind" = bringup ] && key=ready_s
runs="$(mktemp)"
trap 'rm -f "$runs"' EXIT
for r in $(seq 1 "$rounds"); do
  # Odd rounds run the binaries in the order given, even rounds in reverse, so a drift within
  # a round (the machine slowing or quickening over a few seconds) favours none of them.
  order=("$@")
  if ((r % 2 == 0)); then
    for ((i = ${#order[@]} - 1, j = 0; i >= 0; i--, j++)); do order[j]="${*:i+1:1}"; done
  fi
  for spec in "${order[@]}"; do
    bin="${spec%:da}" env=()
    [ "$spec" != "$bin" ] && env=(SCALE_DYNAMIC_ALLOCATION=1)
    line="$(env "${env[@]}" setsid nice -n -20 "$bin" --child "$kind" "$size" "$execs" 2>/dev/null | grep '^SCALE ')"
    value="$(tr ' ' '\n' <<<"$line" | sed -n "s/^$key=//p")"
    echo "$r $spec $value" >>"$runs"
  done
done
python3 - "$runs" "$@" <<'PY'
import statistics, sys
path, specs = sys.argv[1], sys.argv[2:]
by_round = {}
for line in open(path):
    r, spec, v = line.split()
    by_round.setdefault(r, {})[spec] = float(v)
base = specs[0]
for spec in specs:
    vals = sorted(d[spec] for d in by_round.values())
    out = f"{spec}: median {statistics.median(vals):.3f} s, p25 {vals[len(vals) // 4]:.3f}, min {vals[0]:.3f}"
    if spec != base:
        ratios = sorted(d[spec] / d[base] for d in by_round.values())
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        out += f"; per-round ratio to the first: median {statistics.median(ratios):.3f} (IQR {q[0]:.3f}-{q[2]:.3f})"
    print(out)
PY
