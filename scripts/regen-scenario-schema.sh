#!/usr/bin/env bash
# Regenerates config/scenario.schema.json from the scenario parser's types (schemars derives in
# src/scenario.rs and src/conf/cluster.rs). Run it after adding or changing a scenario key; the
# test `scenario_schema_shipped_is_the_generated_one` fails until the shipped file matches.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet -- schema > config/scenario.schema.json.new
mv config/scenario.schema.json.new config/scenario.schema.json
echo "wrote config/scenario.schema.json"
