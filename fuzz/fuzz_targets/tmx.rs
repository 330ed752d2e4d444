//! Tiled `.tmx` reader, from memory. The input is the map; if it holds a NUL byte, the bytes
//! after the first one are served as the external tileset `tilepath.tsx` (so the tileset parser
//! is fuzzed too), otherwise the shipped tileset is.
#![no_main]

use std::io;
use std::path::Path;

use gridpath::formats::{TILESET_TSX, parse_tmx};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (map, tsx) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, TILESET_TSX.as_bytes()),
    };
    let mut files = |p: &Path| -> io::Result<Vec<u8>> {
        if p == Path::new("maps/tilepath.tsx") {
            Ok(tsx.to_vec())
        } else {
            Err(io::Error::new(io::ErrorKind::NotFound, "not served"))
        }
    };
    let _ = parse_tmx(map, Path::new("maps/fuzz.tmx"), &mut files);
});
