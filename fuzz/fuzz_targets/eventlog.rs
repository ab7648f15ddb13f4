//! Fuzz target: Spark event-log bytes through the codec readers (first byte: none, zstd, lz4
//! block stream, snappy-java stream), the line reader, the event parser and the model builder.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sparkyard::replay::{model, reader};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let codec = match pick % 4 {
        0 => reader::Codec::None,
        1 => reader::Codec::Zstd,
        2 => reader::Codec::Lz4,
        _ => reader::Codec::Snappy,
    };
    if let Ok(input) = reader::decoder(codec, bytes) {
        let _ = model::from_reader("fuzz", input);
    }
});
