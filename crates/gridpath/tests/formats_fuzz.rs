//! Parsers never panic, whatever the bytes.

use gridpath::formats::{parse_map_bytes, parse_scen};
use proptest::prelude::*;

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

    #[test]
    fn scen_parser_never_panics(lines in prop::collection::vec("[0-9a-z. \t-]{0,40}", 0..8)) {
        let _ = parse_scen(&format!("version 1\n{}", lines.join("\n")));
    }
}

#[test]
fn absurd_sizes_are_refused_with_a_clear_message() {
    let e = parse_map_bytes(b"type octile\nheight 100000\nwidth 100000\nmap\n").unwrap_err();
    assert!(e.to_string().contains("8192"), "{e}");
    let e = parse_map_bytes(&[0xff, 0xfe, 0x00, 0x41]).unwrap_err();
    assert!(e.to_string().contains("not a text file"), "{e}");
}
