//! The Moving AI `.map` format.

use super::{ParseError, numbered_lines, read_rows};
use crate::grid::{Grid, MAX_SIDE, Pos, Tile};

/// Parses a Moving AI map: `type octile`, `height H`, `width W`, `map`, then H rows of W cells.
/// A map of HOG's 2007 `type octile-corner` (corner heights, the originals of `wc3maps512`) is
/// read by [`parse_octile_corner_grid`](super::parse_octile_corner_grid), one cell per tile.
///
/// Cells: `.` `G` `S` ground (cost 1), `W` water and `T` trees (cost 1, each connecting only to
/// its own kind, as HOG2 and the published scenarios have it), `@` `O` walls. tilepath extension: the digits `2`-`9` are ground with that terrain cost (written by
/// [`write_movingai`] for grids with terrain). CRLF line ends are accepted.
///
/// # Errors
/// [`ParseError`] for a bad header, a size outside `1..=8192`, a bad cell, or missing rows.
pub fn parse_movingai(text: &str) -> Result<Grid, ParseError> {
    let mut lines = numbered_lines(text);
    let (mut width, mut height) = (None, None);
    let mut last_line = 0;
    loop {
        let Some((n, line)) = lines.next() else {
            return Err(ParseError::new(last_line + 1, 0, "missing 'map' line before the rows"));
        };
        last_line = n;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let key = words.next().unwrap_or("");
        let value = words.next();
        match key {
            "map" => break,
            "type" => {
                if value == Some("octile-corner") {
                    // HOG's 2007 maps of corner heights: their tiles, with fences on the height
                    // steps, one cell per tile.
                    return super::corner::parse_octile_corner_grid(text, None);
                }
                if value != Some("octile") {
                    return Err(ParseError::new(
                        n,
                        6,
                        format!(
                            "unsupported map type {:?}: expected 'octile' or 'octile-corner'",
                            value.unwrap_or("")
                        ),
                    ));
                }
            }
            "height" | "width" => {
                let column = line.find(value.unwrap_or("")).map_or(0, |c| c + 1);
                let v = parse_side(value, n, column, key)?;
                if key == "height" {
                    height = Some(v);
                } else {
                    width = Some(v);
                }
            }
            other => {
                return Err(ParseError::new(
                    n,
                    1,
                    format!("unexpected header line {other:?}: expected type, height, width or map"),
                ));
            }
        }
    }
    let width = width.ok_or_else(|| ParseError::new(last_line, 0, "header has no 'width' line"))?;
    let height = height.ok_or_else(|| ParseError::new(last_line, 0, "header has no 'height' line"))?;
    read_rows(&mut lines, width, height, last_line, |ch| match ch {
        '.' | 'G' | 'S' => Ok(Tile::FLOOR),
        'W' => Ok(Tile::Water { cost: 1 }),
        'T' => Ok(Tile::Trees { cost: 1 }),
        '@' | 'O' => Ok(Tile::Wall),
        '2'..='9' => Ok(Tile::Ground { cost: ch as u8 - b'0' }),
        other => Err(format!("unknown cell {other:?}: expected one of . G S W T @ O or 2-9")),
    })
}

fn parse_side(value: Option<&str>, line: usize, column: usize, key: &str) -> Result<u32, ParseError> {
    let raw = value.ok_or_else(|| ParseError::new(line, 0, format!("'{key}' has no value")))?;
    let v: i128 = raw
        .parse()
        .map_err(|_| ParseError::new(line, column, format!("{key} {raw:?} is not a whole number")))?;
    if v > i128::from(MAX_SIDE) {
        // Well formed but too big: its own kind, so a loader can say "too big" rather than "broken".
        return Err(ParseError::too_big(line, column, u64::try_from(v).unwrap_or(u64::MAX)));
    }
    u32::try_from(v).ok().filter(|v| (1..=MAX_SIDE).contains(v)).ok_or_else(|| {
        ParseError::new(
            line,
            column,
            format!("{key} {v} is out of range: maps are 1..={MAX_SIDE} cells a side"),
        )
    })
}

/// Writes `grid` as a Moving AI map (LF line ends): `.` floor, `@` wall, `W` water (cost 1),
/// `T` trees (cost 1) and, as tilepath's extension, a digit `2`-`9` for ground with that cost.
/// Costs above 9 are written as `9`, and water or trees with a cost above 1 as `W` / `T`: the
/// format cannot hold them.
#[must_use]
pub fn write_movingai(grid: &Grid) -> String {
    let (w, h) = (grid.width(), grid.height());
    let mut out = String::with_capacity((w as usize + 1) * h as usize + 40);
    out.push_str("type octile\nheight ");
    out.push_str(&h.to_string());
    out.push_str("\nwidth ");
    out.push_str(&w.to_string());
    out.push_str("\nmap\n");
    for y in 0..h {
        for x in 0..w {
            out.push(match grid.tile(Pos::new(x, y)) {
                Some(Tile::Ground { cost: 1 }) => '.',
                Some(Tile::Ground { cost }) => char::from(b'0' + cost.min(9)),
                Some(Tile::Water { .. }) => 'W',
                Some(Tile::Trees { .. }) => 'T',
                Some(Tile::Wall) | None => '@',
            });
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_crlf_and_terrain_classes() {
        let grid = parse_movingai("type octile\r\nheight 2\r\nwidth 3\r\nmap\r\n.@W\r\nGST\r\n").unwrap();
        assert_eq!(grid.tile(Pos::new(1, 0)), Some(Tile::Wall));
        assert_eq!(grid.tile(Pos::new(2, 0)), Some(Tile::Water { cost: 1 }));
        assert_eq!(grid.tile(Pos::new(1, 1)), Some(Tile::FLOOR), "S (swamp) is passable ground");
        assert_eq!(grid.tile(Pos::new(2, 1)), Some(Tile::Trees { cost: 1 }), "T is its own class");
    }

    #[test]
    fn round_trips_through_the_writer() {
        let text = "type octile\nheight 2\nwidth 4\nmap\n.@W5\n.T@.\n";
        let grid = parse_movingai(text).unwrap();
        assert_eq!(write_movingai(&grid), text);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_movingai("type octile\nheight 2\nwidth 3\nmap\n...\n.x.\n").unwrap_err();
        assert_eq!((e.line, e.column), (6, 2), "{e}");
        let e = parse_movingai("type octile\nheight -5\nwidth 3\nmap\n").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = parse_movingai("type octile\nheight 9000\nwidth 3\nmap\n").unwrap_err();
        assert!(e.message.contains("8192"), "{e}");
        let e = parse_movingai("type octile\nheight 3\nwidth 3\nmap\n...\n").unwrap_err();
        assert!(e.message.contains("expected 3 map rows"), "{e}");
        let e = parse_movingai("type octile\nheight 1\nwidth 3\nmap\n....\n").unwrap_err();
        assert_eq!((e.line, e.column), (5, 4), "{e}");
    }
}
