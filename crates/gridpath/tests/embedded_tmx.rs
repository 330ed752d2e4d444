//! The game embeds `assets/maps/*.tmx` and opens them from memory, where no folder holds their
//! tileset: `load_map_bytes` serves the shipped `tilepath.tsx` by name, and only that one.
#![cfg(feature = "tiled")]

use std::path::Path;

use gridpath::formats::{LoadError, load_map, load_map_bytes};

#[test]
fn an_embedded_tmx_reads_the_shipped_tileset_from_memory() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/maps/tutorial.tmx");
    let bytes = std::fs::read(&path).expect("the shipped tmx");
    let from_memory = load_map_bytes(Path::new("tutorial.tmx"), &bytes).unwrap_or_else(|e| panic!("{e}"));
    let from_disk = load_map(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (from_memory.grid.width(), from_memory.grid.height()),
        (from_disk.grid.width(), from_disk.grid.height())
    );
    for p in from_disk.grid.positions() {
        assert_eq!(from_memory.grid.tile(p), from_disk.grid.tile(p), "cell {p}");
    }
    assert_eq!((from_memory.start, from_memory.goal), (from_disk.start, from_disk.goal));

    let text = String::from_utf8(bytes).expect("text");
    let other = text.replace("tilepath.tsx", "other.tsx");
    assert_ne!(other, text, "the map names its tileset");
    let e = load_map_bytes(Path::new("other.tmx"), other.as_bytes()).unwrap_err();
    assert!(matches!(e, LoadError::Tiled { .. }), "another tileset is not in memory: {e}");
}
