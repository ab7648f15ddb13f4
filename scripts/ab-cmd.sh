#!/usr/bin/env bash
# Compares sparkyard binaries on one command line, side by side on a noisy machine: rounds of
# the binaries alternating (in the order given, reversed every other round), each run timed by
# /usr/bin/time; then per binary the median wall and CPU (user + sys) seconds, and the median
# (and quartiles) of its per-round ratio to the first binary. The chaos sweep of issue 29:
#
#   scripts/ab-cmd.sh 7 /work/baseline/sparkyard-rel-3cf03ae target/release/sparkyard -- \
#       sweep config/scenarios/chaos.toml --seeds 1..3001 --jobs 2
#
# The command's output goes to /dev/null.
set -euo pipefail
rounds="$1"
shift
bins=()
while [ "$1" != "--" ]; do
  bins+=("$1")
  shift
done
shift
runs="$(mktemp)"
trap 'rm -f "$runs" "$runs.t"' EXIT
for r in $(seq 1 "$rounds"); do
  order=("${bins[@]}")
  if ((r % 2 == 0)); then
    order=()
    for ((i = ${#bins[@]} - 1; i >= 0; i--)); do order+=("${bins[i]}"); done
  fi
  for bin in "${order[@]}"; do
    # A failing run (a sweep that found violations exits 1) is timed all the same.
    /usr/bin/time -o "$runs.t" -f '%e %U %S' "$bin" "$@" >/dev/null 2>&1 || true
    echo "$r $bin $(tail -1 "$runs.t")" >>"$runs"
  done
done
python3 - "$runs" "${bins[@]}" <<'PY'
import statistics, sys
path, bins = sys.argv[1], sys.argv[2:]
by_round = {}
for line in open(path):
    r, b, wall, user, system = line.split()
    by_round.setdefault(r, {})[b] = (float(wall), float(user) + float(system))
base = bins[0]
for b in bins:
    walls = [d[b][0] for d in by_round.values()]
    cpus = [d[b][1] for d in by_round.values()]
    out = f"{b}: wall median {statistics.median(walls):.3f} s (min {min(walls):.3f}), cpu median {statistics.median(cpus):.3f} s (min {min(cpus):.3f})"
    if b != base:
        for what, k in (("wall", 0), ("cpu", 1)):
            ratios = sorted(d[b][k] / d[base][k] for d in by_round.values())
            q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
            out += f"; {what} ratio to the first: median {statistics.median(ratios):.3f} (IQR {q[0]:.3f}-{q[2]:.3f})"
    print(out)
PY
