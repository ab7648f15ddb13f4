//! The scenario file's JSON Schema (`config/scenario.schema.json`), generated from the raw types
//! the parser deserializes (`schemars` derives), so a key added to the parser is in the schema
//! once the file is regenerated (`cargo run -- schema > config/scenario.schema.json`, or
//! `scripts/regen-scenario-schema.sh`); the test `scenario_schema` keeps the shipped file equal.

use super::RawScenario;

/// The schema as pretty JSON with a trailing newline (the shipped file's exact bytes).
pub fn scenario_schema_json() -> String {
    let schema = schemars::schema_for!(RawScenario);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}
