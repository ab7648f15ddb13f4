//! Fuzz target: spark-defaults.conf text through the java.util.Properties grammar.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = sparkyard::conf::properties::parse_properties(text);
        let _ = sparkyard::conf::properties::load_properties_text(text);
    }
});
