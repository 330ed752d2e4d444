//! Digit grid parser: never panics; accepted maps round-trip through the writer.
#![no_main]

use gridpath::formats::{parse_digits, write_digits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(map) = parse_digits(text) {
        let again = parse_digits(&write_digits(&map.grid, map.start, map.goal)).expect("the writer's output parses");
        assert!(again.grid == map.grid && again.start == map.start && again.goal == map.goal);
    }
});
