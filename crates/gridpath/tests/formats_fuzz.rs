//! Parsers never panic, whatever the bytes.

use gridpath::formats::{load_map_bytes, parse_map_bytes, parse_scen};
use proptest::prelude::*;

/// A small valid Tiled map (CSV layer, markers, the external tileset) for mutation.
#[cfg(feature = "tiled")]
const SMALL_TMX: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>
<map version=\"1.10\" orientation=\"orthogonal\" renderorder=\"right-down\" width=\"3\" height=\"2\" \
tilewidth=\"32\" tileheight=\"32\" infinite=\"0\">
 <tileset firstgid=\"1\" source=\"tilepath.tsx\"/>
 <layer id=\"1\" name=\"terrain\" width=\"3\" height=\"2\">
  <data encoding=\"csv\">
1,2,8,
9,10,11
</data>
 </layer>
 <objectgroup id=\"2\" name=\"o\"><object id=\"1\" name=\"start\" x=\"4\" y=\"4\"><point/></object></objectgroup>
</map>
";

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn map_parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_map_bytes(&bytes);
    }

    #[test]
    fn map_parser_never_panics_on_near_valid_text(
        h in -3i64..12, w in -3i64..12, rows in prop::collection::vec("[.@WTSG#0-9 ,\r]{0,12}", 0..12)
    ) {
        let text = format!("type octile\nheight {h}\nwidth {w}\nmap\n{}", rows.join("\n"));
        let _ = parse_map_bytes(text.as_bytes());
        let _ = parse_map_bytes(rows.join("\n").as_bytes());
    }

    /// HOG's 2007 corner-height maps: read one cell per tile (through `parse_map_bytes`) or
    /// scaled to any size, including sizes no grid takes.
    #[test]
    fn octile_corner_parser_never_panics_on_near_valid_text(
        h in -3i64..12, w in -3i64..12,
        heights in prop::collection::vec("[0-9x ]{0,12}", 0..12),
        tiles in prop::collection::vec("[GSWTOgstw.é]{0,12}", 0..12),
        to in (0u32..20, 0u32..20),
    ) {
        let text = format!("type octile-corner\nheight {h}\nwidth {w}\nmap\n{}\n{}", heights.join("\n"), tiles.join("\n"));
        let _ = parse_map_bytes(text.as_bytes());
        if let Ok(map) = gridpath::formats::parse_octile_corner(&text, to.0, to.1) {
            prop_assert!(map.to_grid().is_ok());
        }
        let _ = gridpath::formats::parse_octile_corner_grid(&text, Some(to));
    }

    #[test]
    fn tpmap_parser_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let _ = load_map_bytes("fuzz.tpmap".as_ref(), &bytes);
    }

    #[test]
    fn tpmap_parser_never_panics_on_near_valid_text(
        h in -3i64..12, w in -3i64..12,
        header in prop::collection::vec("(start|goal) [0-9-]{1,3} [0-9]{1,2}|legend .{1,2} (wall|ground|water|trees|x)( [0-9]{1,3})?", 0..5),
        rows in prop::collection::vec("[.#~T2-9a-dé ]{0,12}", 0..12),
    ) {
        let text = format!("tilepath 1\nwidth {w}\nheight {h}\n{}\nmap\n{}", header.join("\n"), rows.join("\n"));
        let _ = load_map_bytes("fuzz.tpmap".as_ref(), text.as_bytes());
    }

    #[cfg(feature = "tiled")]
    #[test]
    fn tmx_reader_never_panics_on_mutated_maps(
        edits in prop::collection::vec((0usize..700, 0usize..6, "[0-9a-z<>/=\" ,-]{0,6}"), 1..4),
    ) {
        let mut text = SMALL_TMX.as_bytes().to_vec();
        for (at, cut, insert) in edits {
            let at = at.min(text.len());
            let end = (at + cut).min(text.len());
            text.splice(at..end, insert.bytes());
        }
        let mut tileset = |p: &std::path::Path| -> std::io::Result<Vec<u8>> {
            if p.ends_with("tilepath.tsx") {
                Ok(gridpath::formats::TILESET_TSX.as_bytes().to_vec())
            } else {
                Err(std::io::Error::new(std::io::ErrorKind::NotFound, "not served"))
            }
        };
        let _ = gridpath::formats::parse_tmx(&text, "m/fuzz.tmx".as_ref(), &mut tileset);
    }

    #[test]
    fn scen_parser_never_panics(lines in prop::collection::vec("[0-9a-z. \t-]{0,40}", 0..8)) {
        let _ = parse_scen(&format!("version 1\n{}", lines.join("\n")));
    }
}

#[cfg(feature = "tiled")]
#[test]
fn the_small_tmx_used_for_mutation_is_valid() {
    let mut tileset = |_: &std::path::Path| Ok(gridpath::formats::TILESET_TSX.as_bytes().to_vec());
    let map = gridpath::formats::parse_tmx(SMALL_TMX.as_bytes(), "m/a.tmx".as_ref(), &mut tileset).unwrap();
    assert_eq!(map.start, Some(gridpath::Pos::new(0, 0)));
    assert_eq!(map.grid.tile(gridpath::Pos::new(1, 0)), Some(gridpath::Tile::Wall));
}

/// Found by `cargo fuzz run tmx` within about 1 100 runs with the guard's layer-length check
/// switched off (a check that the harness finds what the guard exists for): a gzip layer of 8
/// tiles in a 6 × 4 layer made `tiled` index past its tile vector
/// (`index out of bounds: the len is 8 but the index is 8`, tiled 0.16 `finite.rs:69`).
#[cfg(feature = "tiled")]
#[test]
fn regression_tmx_short_gzip_layer_is_an_error_not_a_panic() {
    let crash = r##"<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="6" height="4" tilewidth="32" tileheight="32" infinite="0" nextlayerid="5" nextobjectid="3">
 <tileset firstgid="1" name="inline" tilewidth="32" tileheight="32" tilecount="3" columns="3">
  <image source="t.png" width="96" height="32"/>
  <tile id="0"><properties><property name="walkable" type="bool" value="true"/></properties></tile>
  <tile id="1"><properties><property name="cost" type="int" value="7"/><property name="terrain" value="water"/></properties></tile>
  <tile id="4"><properties><property name="walkable" type="bool" value="false"/></properties></tile>
 </tileset>
 <layer id="1" name="zlibground" width="6" height="4">
  <data encoding="base64"`compression="gzip">
   H4sIAAAAAAACA2NkYGBgAmJmIGZEw9QQBwDFAelOYAAAAA==
  </data>
 </layer>
</map>
"##;
    let mut none = |_: &std::path::Path| Err(std::io::Error::other("no files"));
    let e = gridpath::formats::parse_tmx(crash.as_bytes(), "m/crash.tmx".as_ref(), &mut none).unwrap_err();
    assert!(e.to_string().contains("has 8 tiles, expected 24"), "{e}");
}

/// Found by `cargo fuzz run tmx` (second run, after 417 000 runs): a whole map pasted into a
/// layer's CSV data. `tiled` reads the text before the nested `<map>` (4 tiles) and skips the
/// rest, while the guard took the nested map's layers for real ones and checked those instead;
/// `tiled` then indexed past its 4 tiles. The guard now follows `tiled`'s reading: layers only
/// directly in the map or a group, and nothing inside a layer's data.
#[cfg(feature = "tiled")]
#[test]
fn regression_tmx_map_nested_in_layer_data_is_an_error_not_a_panic() {
    let crash = r##"<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" <tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="6" height="4" tilewidth="32" tileheight="32" infinite="0" nextlayerid="5" nextobjectid="3">
 <tileset firstgid="1" source="tilepath.tsx"/>
 <layer id="1" name="terrain" width="6" height="4">
  <data encoding="csv">
1,1,2,1<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" <tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="6" height="4" tilewidth="32" tileheight="32" infinite="0" nextlayerid="5" nextobjectid="3">
 <tileset firstgid="1" source="tilepath.tsx"/>
 <layer id="1" name="terrain" width="6" height="4">
  <data encoding="csv">
1,1,2,1,8,8,
1,9,2,1,8,1,
1,1,1,1,10,10,
2,2,1,1,1,11
</data>
 </layer>
 <layer id="2" name="markers" width="6" height="4">
  <data encoding="csv">
3,0,0,0,0,0,
0,0,0,0,0,0,
0,0,0,0,0,0,
0,0,0,0,0,4
</data>
 </layer>
</map>
,8,8,
1,9,2,1,8,1,
1,1,1,1,10,10,
2,2,1,1,1,11
</data>
 </layer>
 <layer id="2" name="markers" width="6" height="4">
  <data encoding="csv">
3,0,0,0,0,0,
0,0,0,0,0,0,
0,0,0,0,0,0,
0,0,0,0,0,4
</data>
 </layer>
</map>
"##;
    let mut tileset = |_: &std::path::Path| Ok(gridpath::formats::TILESET_TSX.as_bytes().to_vec());
    let e = gridpath::formats::parse_tmx(crash.as_bytes(), "m/crash.tmx".as_ref(), &mut tileset).unwrap_err();
    assert!(e.to_string().contains("has 4 tiles, expected 24"), "{e}");
}

#[test]
fn absurd_sizes_are_refused_with_a_clear_message() {
    let e = parse_map_bytes(b"type octile\nheight 100000\nwidth 100000\nmap\n").unwrap_err();
    assert!(e.to_string().contains("8192"), "{e}");
    let e = parse_map_bytes(b"type octile-corner\nheight 100000\nwidth 3\nmap\n").unwrap_err();
    assert!(e.to_string().contains("8192"), "{e}");
    let corners = "type octile-corner\nheight 2\nwidth 2\nmap\n22\n22\nGG\nGG\n";
    let e = gridpath::formats::parse_octile_corner_grid(corners, Some((9000, 9000))).unwrap_err();
    assert!(e.to_string().contains("8192"), "{e}");
    let e = parse_map_bytes(&[0xff, 0xfe, 0x00, 0x41]).unwrap_err();
    assert!(e.to_string().contains("not a text file"), "{e}");
}
