//! ASCII grid parser: never panics; accepted maps round-trip through the writer.
#![no_main]

use gridpath::formats::{parse_ascii, write_ascii};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(map) = parse_ascii(text) {
        let again = parse_ascii(&write_ascii(&map.grid, map.start, map.goal)).expect("the writer's output parses");
        assert!(again.grid == map.grid && again.start == map.start && again.goal == map.goal);
    }
});
