#!/usr/bin/env bash
# Records every output of the bundled scenarios (seeds 1, 7, 42) and of the README's SparkPi into
# OUT_DIR, so a refactor can be compared byte for byte against the commit before it:
#
#   scripts/record-outputs.sh BINARY OUT_DIR
#   diff -r OUT_DIR_BEFORE OUT_DIR_AFTER
#
# Per run: stdout, stderr, the exit code, every container log, event logs (where the run writes
# them), the --trace timeline and the --sequence diagram. Runs execute inside OUT_DIR/<run>/ so relative paths match.
set -uo pipefail
bin="$(realpath "$1")"
out="$2"
root="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out"
out="$(realpath "$out")"

record() { # name, subcommand, then its arguments (the output options go first: after a
           # submission's jar every word is the application's)
  local name="$1" sub="$2"; shift 2
  local dir="$out/$name"
  rm -rf "$dir"; mkdir -p "$dir"
  # A directory the run expects to exist (Spark's SparkContext refuses a missing event log dir).
  [ -n "${RECORD_MKDIR:-}" ] && mkdir -p "$dir/$RECORD_MKDIR"
  (cd "$dir" && "$bin" "$sub" --log-dir logs --trace trace.json --sequence sequence.mmd \
      --no-progress "$@" >stdout 2>stderr; echo $? >exit-code)
}

for f in "$root"/config/scenarios/*.toml; do
  s="$(basename "$f" .toml)"
  [ "$s" = chaos ] && continue
  for seed in 1 7 42; do
    record "$s-seed$seed" run "$f" --seed "$seed"
  done
done
for seed in 1 7 42; do
  record "chaos-seed$seed" run "$root/config/scenarios/chaos.toml" --seed "$seed"
done
RECORD_MKDIR=eventlog record readme-sparkpi submit --master yarn --deploy-mode cluster \
  --class org.apache.spark.examples.SparkPi --num-executors 4 \
  --executor-memory 2g --executor-cores 1 --driver-memory 4g --queue default \
  --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=eventlog \
  examples/jars/spark-examples.jar 1000
# The README's exact line (no event log), as a user types it.
record readme-sparkpi-plain submit --master yarn --deploy-mode cluster \
  --class org.apache.spark.examples.SparkPi --num-executors 4 \
  --executor-memory 2g --executor-cores 1 --driver-memory 4g --queue default \
  examples/jars/spark-examples.jar 1000
# The README's sequence diagram: one executor's path, no task messages.
record readme-sequence submit --master yarn --deploy-mode cluster \
  --class org.apache.spark.examples.SparkPi --num-executors 2 --sequence-executor 1 \
  --sequence-no-tasks examples/jars/spark-examples.jar 2
echo "recorded $(ls "$out" | wc -l) runs in $out"
