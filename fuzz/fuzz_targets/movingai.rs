//! Moving AI `.map` parser: never panics; whatever it accepts, the writer reproduces exactly.
#![no_main]

use gridpath::formats::{parse_movingai, write_movingai};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(grid) = parse_movingai(text) {
        // Writing and parsing again must give the same grid (the writer's output is canonical).
        let again = parse_movingai(&write_movingai(&grid)).expect("the writer's output parses");
        assert!(again == grid, "Moving AI round trip changed the grid");
    }
});
