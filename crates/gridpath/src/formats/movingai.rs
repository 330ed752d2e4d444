//! The Moving AI `.map` format.

use super::{ParseError, numbered_lines, read_rows, short};
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
    let header = read_header(&mut lines)?;
    match header.kind {
        // The type line is optional.
        Some(("octile", _)) | None => {}
        // HOG's 2007 maps of corner heights: their tiles, with fences on the height steps, one
        // cell per tile.
        Some(("octile-corner", _)) => return super::corner::parse_octile_corner_grid(text, None),
        Some((other, line)) => {
            return Err(ParseError::new(
                line,
                6,
                format!("unsupported map type {:?}: expected 'octile' or 'octile-corner'", short(other)),
            ));
        }
    }
    let width = header.width.within(1, MAX_SIDE, "maps are", "cells")?;
    let height = header.height.within(1, MAX_SIDE, "maps are", "cells")?;
    read_rows(&mut lines, width, height, header.map_line, |ch| match ch {
        '.' | 'G' | 'S' => Ok(Tile::FLOOR),
        'W' => Ok(Tile::Water { cost: 1 }),
        'T' => Ok(Tile::Trees { cost: 1 }),
        '@' | 'O' => Ok(Tile::Wall),
        '2'..='9' => Ok(Tile::Ground { cost: ch as u8 - b'0' }),
        other => Err(format!("unknown cell {other:?}: expected one of . G S W T @ O or 2-9")),
    })
}

/// A Moving AI style header (`type`, `height`, `width`, then `map`), shared by the `.map` reader
/// and HOG's `octile-corner` one: the type as written with its line, if there is one, the two
/// sides as written, and the number of the `map` line.
pub(super) struct Header<'a> {
    pub(super) kind: Option<(&'a str, usize)>,
    pub(super) width: Side,
    pub(super) height: Side,
    pub(super) map_line: usize,
}

/// A `width` or `height` line's value as written, where it stands; checked by the reader that
/// knows its range ([`Side::within`]).
pub(super) struct Side {
    key: &'static str,
    value: i128,
    line: usize,
    column: usize,
}

impl Side {
    /// The side as a `u32` in `lo..=hi`: above `hi` is [`ParseError::too_big`] (well formed, too
    /// big: a loader says so rather than "broken"), below `lo` out of range, "`what` lo..=hi
    /// `unit` a side".
    pub(super) fn within(&self, lo: u32, hi: u32, what: &str, unit: &str) -> Result<u32, ParseError> {
        let Side { key, value, line, column } = *self;
        if value > i128::from(hi) {
            // Reported in cells: a corner grid's side is one more than its tiles'.
            let cells = u64::try_from(value - i128::from(hi - MAX_SIDE)).unwrap_or(u64::MAX);
            return Err(ParseError::too_big(line, column, cells));
        }
        u32::try_from(value).ok().filter(|v| (lo..=hi).contains(v)).ok_or_else(|| {
            ParseError::new(
                line,
                column,
                format!("{key} {value} is out of range: {what} {lo}..={hi} {unit} a side"),
            )
        })
    }
}

/// Reads a header up to its `map` line.
///
/// # Errors
/// A line that is none of the four, a side that is not a whole number, no `map` line, no side.
pub(super) fn read_header<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<Header<'a>, ParseError> {
    let (mut kind, mut width, mut height) = (None, None, None);
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
            "type" => kind = Some((value.unwrap_or(""), n)),
            "height" | "width" => {
                let raw = value.ok_or_else(|| ParseError::new(n, 0, format!("'{key}' has no value")))?;
                let column = line.find(raw).map_or(0, |c| c + 1);
                let v: i128 = raw.parse().map_err(|_| {
                    ParseError::new(n, column, format!("{key} {:?} is not a whole number", short(raw)))
                })?;
                let side =
                    Side { key: if key == "height" { "height" } else { "width" }, value: v, line: n, column };
                if key == "height" {
                    height = Some(side);
                } else {
                    width = Some(side);
                }
            }
            other => {
                return Err(ParseError::new(
                    n,
                    1,
                    format!("unexpected header line {:?}: expected type, height, width or map", short(other)),
                ));
            }
        }
    }
    let width = width.ok_or_else(|| ParseError::new(last_line, 0, "header has no 'width' line"))?;
    let height = height.ok_or_else(|| ParseError::new(last_line, 0, "header has no 'height' line"))?;
    Ok(Header { kind, width, height, map_line: last_line })
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
