//! Moving AI `.scen` parser: never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gridpath::formats::parse_scen(text);
    }
});
