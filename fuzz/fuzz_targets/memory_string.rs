//! Fuzz target: Spark's byte and time strings (JavaUtils.byteStringAs / timeStringAs).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparkyard::conf::memory::{byte_string_as, time_string_as, ByteUnit, TimeUnit};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for unit in [ByteUnit::Byte, ByteUnit::KiB, ByteUnit::MiB, ByteUnit::GiB, ByteUnit::TiB, ByteUnit::PiB] {
            let _ = byte_string_as(text, unit);
        }
        for unit in [TimeUnit::Microseconds, TimeUnit::Milliseconds, TimeUnit::Seconds, TimeUnit::Minutes, TimeUnit::Hours, TimeUnit::Days] {
            let _ = time_string_as(text, unit);
        }
    }
});
