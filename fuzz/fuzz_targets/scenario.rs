//! Fuzz target: any bytes as a scenario file must load or fail with a UserError, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("sparkyard-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("scenario.toml");
    if std::fs::write(&path, data).is_ok() {
        let _ = sparkyard::scenario::load(&path);
    }
});
