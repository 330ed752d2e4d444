//! The content-sniffing front end (`parse_map_bytes`) and the loader's byte entry point.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = gridpath::formats::parse_map_bytes(data);
    let _ = gridpath::formats::load_map_bytes("fuzz.map".as_ref(), data);
});
