//! tilepath `.tpmap` parser: never panics; accepted maps round-trip exactly through the writer.
#![no_main]

use gridpath::formats::{parse_tilepath, write_tilepath};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(map) = parse_tilepath(text) {
        let written = write_tilepath(&map.grid, map.start, map.goal);
        let again = parse_tilepath(&written).expect("the writer's output parses");
        assert!(again.grid == map.grid && again.start == map.start && again.goal == map.goal);
    }
});
