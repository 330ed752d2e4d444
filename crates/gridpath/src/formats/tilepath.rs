//! tilepath's own save format, `.tpmap`: plain text that keeps every cell exactly.
//!
//! ```text
//! tilepath 1
//! width 6
//! height 3
//! start 0 0
//! goal 5 2
//! legend a ground 12
//! legend b water 3
//! map
//! ..##~~
//! .2#Taa
//! 9..~~b
//! ```
//!
//! * Line 1 is `tilepath 1`: the format name and its version. A reader refuses other versions.
//! * Then header lines, one `key value…` per line, in any order, each at most once:
//!   `width W` and `height H` (required, `1..=8192`), `start X Y` and `goal X Y` (optional;
//!   `X` is the column and `Y` the row from the top-left cell `0 0`; inside the map),
//!   `legend C TILE` (any number) names one more cell character.
//! * `map` ends the header; exactly `H` rows of `W` characters follow (one character per cell;
//!   characters, not bytes, so a legend may use any non-space Unicode character). Blank lines
//!   after the rows are ignored, anything else is an error. CRLF line ends are accepted.
//! * Built-in cell characters: `#` wall, `.` ground of cost 1, `2`-`9` ground of that cost,
//!   `~` water of cost 1, `T` trees of cost 1. A `legend` line adds one character (not a
//!   built-in, not whitespace) for one tile: `wall`, `ground N`, `water N` or `trees N` with the
//!   terrain cost `N` in `1..=63`. Ground, water and trees are gridpath's three terrain
//!   classes (a step never crosses from one class into another); the cost multiplies every step
//!   that enters the cell.
//!
//! [`write_tilepath`] writes the built-in characters where they fit and a legend for every other
//! tile, so `parse_tilepath(&write_tilepath(..))` gives back the same grid, start and goal.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::{ParseError, ParsedMap, numbered_lines, read_rows, short, words_with_columns};
use crate::grid::{Grid, MAX_COST, MAX_SIDE, Pos, Tile};

/// The format version [`write_tilepath`] writes and [`parse_tilepath`] reads.
pub const TILEPATH_VERSION: u32 = 1;

/// The built-in cell characters.
fn builtin(c: char) -> Option<Tile> {
    match c {
        '#' => Some(Tile::Wall),
        '.' => Some(Tile::FLOOR),
        '2'..='9' => Some(Tile::Ground { cost: c as u8 - b'0' }),
        '~' => Some(Tile::Water { cost: 1 }),
        'T' => Some(Tile::Trees { cost: 1 }),
        _ => None,
    }
}

fn builtin_char(tile: Tile) -> Option<char> {
    match tile {
        Tile::Wall => Some('#'),
        Tile::Ground { cost: 1 } => Some('.'),
        Tile::Ground { cost: cost @ 2..=9 } => Some(char::from(b'0' + cost)),
        Tile::Water { cost: 1 } => Some('~'),
        Tile::Trees { cost: 1 } => Some('T'),
        _ => None,
    }
}

/// Characters the writer hands out to legend tiles, in order: ASCII letters, then Latin-1 and
/// Latin Extended-A letters (189 passable tiles exist, more than ASCII has printable characters).
fn legend_pool() -> impl Iterator<Item = char> {
    ('a'..='z')
        .chain('A'..='Z')
        .chain('\u{c0}'..='\u{17f}')
        .filter(|c| builtin(*c).is_none() && !c.is_whitespace() && *c != '\u{d7}' && *c != '\u{f7}')
}

/// Writes a grid, start and goal as a `.tpmap` file (see the [module docs](self)); LF line ends.
/// A start or goal outside the grid is written as given, and [`parse_tilepath`] rejects it.
///
/// ```
/// use gridpath::formats::{parse_tilepath, write_tilepath};
/// use gridpath::{Grid, Pos, Tile};
/// let mut grid = Grid::new(3, 1).unwrap();
/// grid.set_tile(Pos::new(1, 0), Tile::Water { cost: 40 }).unwrap();
/// let text = write_tilepath(&grid, Some(Pos::new(0, 0)), None);
/// assert_eq!(text, "tilepath 1\nwidth 3\nheight 1\nstart 0 0\nlegend a water 40\nmap\n.a.\n");
/// let back = parse_tilepath(&text).unwrap();
/// assert_eq!(back.grid, grid);
/// assert_eq!((back.start, back.goal), (Some(Pos::new(0, 0)), None));
/// ```
#[must_use]
pub fn write_tilepath(grid: &Grid, start: Option<Pos>, goal: Option<Pos>) -> String {
    let (w, h) = (grid.width(), grid.height());
    // Legend characters in order of first appearance, so the same grid always gives the same text.
    let mut legend: Vec<(char, Tile)> = Vec::new();
    let mut chars: HashMap<Tile, char> = HashMap::new();
    let mut pool = legend_pool();
    let mut rows = String::with_capacity((w as usize + 1) * h as usize);
    for y in 0..h {
        for x in 0..w {
            let tile = grid.tile(Pos::new(x, y)).unwrap_or(Tile::Wall);
            let c = builtin_char(tile).unwrap_or_else(|| {
                *chars.entry(tile).or_insert_with(|| {
                    // The pool (over 250 characters) outlasts the 190 possible tiles.
                    let c = pool.next().unwrap_or('?');
                    legend.push((c, tile));
                    c
                })
            });
            rows.push(c);
        }
        rows.push('\n');
    }
    let mut out = format!("tilepath {TILEPATH_VERSION}\nwidth {w}\nheight {h}\n");
    for (key, pos) in [("start", start), ("goal", goal)] {
        if let Some(p) = pos {
            let _ = writeln!(out, "{key} {} {}", p.x, p.y);
        }
    }
    for (c, tile) in legend {
        let (class, cost) = match tile {
            Tile::Wall => ("wall", 0),
            Tile::Ground { cost } => ("ground", cost),
            Tile::Water { cost } => ("water", cost),
            Tile::Trees { cost } => ("trees", cost),
        };
        let _ = writeln!(out, "legend {c} {class} {cost}");
    }
    out.push_str("map\n");
    out.push_str(&rows);
    out
}

/// Parses a `.tpmap` file (see the [module docs](self)).
///
/// # Errors
/// [`ParseError`] with the line and column of the first problem: a missing or unknown version,
/// a bad or repeated header line, a start or goal outside the map, a bad legend, an unknown cell
/// character, or rows of the wrong count or length. A side over 8192 has the kind
/// [`ParseErrorKind::MapTooBig`](super::ParseErrorKind::MapTooBig).
pub fn parse_tilepath(text: &str) -> Result<ParsedMap, ParseError> {
    let mut lines = numbered_lines(text);
    match lines.next().map(|(_, l)| l.trim_end()) {
        Some("tilepath 1") => {}
        Some(l) if l.starts_with("tilepath ") => {
            return Err(ParseError::new(
                1,
                10,
                format!("unsupported tilepath version {:?}: this reader knows version 1", short(&l[9..])),
            ));
        }
        _ => return Err(ParseError::new(1, 1, "not a tilepath map: the first line must be 'tilepath 1'")),
    }
    let header = parse_header(&mut lines)?;
    let (width, height) = (header.width, header.height);
    // Legend costs were checked with the header.
    let grid = read_rows(&mut lines, width, height, header.map_line, |c| {
        builtin(c)
            .or_else(|| header.legend.get(&c).copied())
            .ok_or_else(|| format!("unknown cell {c:?}: expected # . 2-9 ~ T or a legend character"))
    })?;
    for (key, endpoint) in [("start", header.start), ("goal", header.goal)] {
        if let Some((p, line)) = endpoint
            && !grid.in_bounds(p)
        {
            return Err(ParseError::new(line, 0, format!("{key} {p} is outside the {width}x{height} map")));
        }
    }
    Ok(ParsedMap { grid, start: header.start.map(|e| e.0), goal: header.goal.map(|e| e.0) })
}

struct Header {
    width: u32,
    height: u32,
    /// Endpoints with the line that set them.
    start: Option<(Pos, usize)>,
    goal: Option<(Pos, usize)>,
    legend: HashMap<char, Tile>,
    map_line: usize,
}

fn parse_header<'a>(lines: &mut impl Iterator<Item = (usize, &'a str)>) -> Result<Header, ParseError> {
    let (mut width, mut height, mut start, mut goal) = (None, None, None, None);
    let mut legend = HashMap::new();
    let mut last = 1;
    loop {
        let Some((n, line)) = lines.next() else {
            return Err(ParseError::new(last + 1, 0, "missing 'map' line before the rows"));
        };
        last = n;
        let words = words_with_columns(line);
        let Some(&(_, key)) = words.first() else { continue };
        let args = &words[1..];
        let arity = |k: usize| {
            if args.len() == k {
                Ok(())
            } else {
                Err(ParseError::new(n, 1, format!("'{key}' takes {k} value(s), found {}", args.len())))
            }
        };
        let once = |seen: bool| {
            if seen { Err(ParseError::new(n, 1, format!("a second '{key}' line"))) } else { Ok(()) }
        };
        match key {
            "map" => {
                arity(0)?;
                break;
            }
            "width" | "height" => {
                arity(1)?;
                let slot = if key == "width" { &mut width } else { &mut height };
                once(slot.is_some())?;
                *slot = Some(side(args[0], n, key)?);
            }
            "start" | "goal" => {
                arity(2)?;
                let slot = if key == "start" { &mut start } else { &mut goal };
                once(slot.is_some())?;
                let x = coord(args[0], n)?;
                let y = coord(args[1], n)?;
                *slot = Some((Pos::new(x, y), n));
            }
            "legend" => {
                let (col, raw) = args.first().copied().ok_or_else(|| {
                    ParseError::new(n, 0, "'legend' needs a character and a tile, e.g. 'legend a water 12'")
                })?;
                let mut cs = raw.chars();
                let (Some(c), None) = (cs.next(), cs.next()) else {
                    return Err(ParseError::new(
                        n,
                        col,
                        format!("legend key {:?} is not one character", short(raw)),
                    ));
                };
                if builtin(c).is_some() {
                    return Err(ParseError::new(
                        n,
                        col,
                        format!("{c:?} is a built-in cell and cannot be redefined"),
                    ));
                }
                if legend.contains_key(&c) {
                    return Err(ParseError::new(n, col, format!("a second legend for {c:?}")));
                }
                legend.insert(c, legend_tile(&args[1..], n)?);
            }
            other => {
                return Err(ParseError::new(
                    n,
                    1,
                    format!(
                        "unexpected header line {:?}: expected width, height, start, goal, legend or map",
                        short(other)
                    ),
                ));
            }
        }
    }
    let width = width.ok_or_else(|| ParseError::new(last, 0, "header has no 'width' line"))?;
    let height = height.ok_or_else(|| ParseError::new(last, 0, "header has no 'height' line"))?;
    Ok(Header { width, height, start, goal, legend, map_line: last })
}

fn legend_tile(args: &[(usize, &str)], n: usize) -> Result<Tile, ParseError> {
    let bad = |col: usize, what: &str| {
        ParseError::new(
            n,
            col,
            format!("{what}: expected 'wall', 'ground N', 'water N' or 'trees N' (N in 1..={MAX_COST})"),
        )
    };
    match args {
        [(_, "wall")] => Ok(Tile::Wall),
        [(col, class @ ("ground" | "water" | "trees")), (cost_col, raw)] => {
            let cost = raw
                .parse::<u8>()
                .ok()
                .filter(|c| (1..=MAX_COST).contains(c))
                .ok_or_else(|| bad(*cost_col, &format!("bad cost {:?}", short(raw))))?;
            let _ = col;
            Ok(match *class {
                "ground" => Tile::Ground { cost },
                "water" => Tile::Water { cost },
                _ => Tile::Trees { cost },
            })
        }
        [(col, raw), ..] => Err(bad(*col, &format!("bad legend tile {:?}", short(raw)))),
        [] => Err(bad(0, "legend without a tile")),
    }
}

fn side((col, raw): (usize, &str), n: usize, key: &str) -> Result<u32, ParseError> {
    let v: i128 = raw
        .parse()
        .map_err(|_| ParseError::new(n, col, format!("{key} {:?} is not a whole number", short(raw))))?;
    if v > i128::from(MAX_SIDE) {
        return Err(ParseError::too_big(n, col, u64::try_from(v).unwrap_or(u64::MAX)));
    }
    u32::try_from(v).ok().filter(|v| *v >= 1).ok_or_else(|| {
        ParseError::new(n, col, format!("{key} {v} is out of range: maps are 1..={MAX_SIDE} cells a side"))
    })
}

fn coord((col, raw): (usize, &str), n: usize) -> Result<u32, ParseError> {
    raw.parse().map_err(|_| {
        ParseError::new(n, col, format!("coordinate {:?} is not a non-negative whole number", short(raw)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tile_round_trips() {
        let mut tiles = vec![Tile::Wall];
        for cost in 1..=MAX_COST {
            tiles.extend([Tile::Ground { cost }, Tile::Water { cost }, Tile::Trees { cost }]);
        }
        let width = u32::try_from(tiles.len()).unwrap();
        let mut grid = Grid::new(width, 2).unwrap();
        for (x, &t) in (0u32..).zip(&tiles) {
            grid.set_tile(Pos::new(x, 0), t).unwrap();
            grid.set_tile(Pos::new(width - 1 - x, 1), t).unwrap();
        }
        let text = write_tilepath(&grid, Some(Pos::new(3, 1)), Some(Pos::new(width - 1, 0)));
        let back = parse_tilepath(&text).unwrap();
        assert!(
            back.grid.positions().all(|p| back.grid.tile(p) == grid.tile(p)),
            "every one of the 190 tiles must come back"
        );
        assert_eq!((back.grid.width(), back.grid.height()), (width, 2));
        assert_eq!(back.start, Some(Pos::new(3, 1)));
        assert_eq!(back.goal, Some(Pos::new(width - 1, 0)));
    }

    #[test]
    fn the_documented_example_parses() {
        let mut example = String::new();
        for line in include_str!("tilepath.rs")
            .lines()
            .skip_while(|l| *l != "//! ```text")
            .skip(1)
            .take_while(|l| *l != "//! ```")
        {
            example.push_str(line.trim_start_matches("//! "));
            example.push('\n');
        }
        let map = parse_tilepath(&example).unwrap();
        assert_eq!((map.start, map.goal), (Some(Pos::new(0, 0)), Some(Pos::new(5, 2))));
        assert_eq!(map.grid.tile(Pos::new(5, 1)), Some(Tile::Ground { cost: 12 }));
        assert_eq!(map.grid.tile(Pos::new(5, 2)), Some(Tile::Water { cost: 3 }));
        assert_eq!(map.grid.tile(Pos::new(3, 1)), Some(Tile::Trees { cost: 1 }));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_tilepath(
            "tilepath 2
",
        )
        .unwrap_err();
        assert!(e.message.contains("version"), "{e}");
        let e = parse_tilepath(
            "tilepath 1
width 2
height 1
map
.x
",
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (5, 2), "{e}");
        let e = parse_tilepath(
            "tilepath 1
width 2
height 1
legend a water 64
map
.a
",
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (4, 16), "{e}");
        let e = parse_tilepath(
            "tilepath 1
width 2
height 1
goal 2 0
map
..
",
        )
        .unwrap_err();
        assert!(e.message.contains("outside"), "{e}");
        let e = parse_tilepath(
            "tilepath 1
width 2
width 2
",
        )
        .unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        let e = parse_tilepath(
            "tilepath 1
width 9000
height 1
map
",
        )
        .unwrap_err();
        assert_eq!(e.kind, crate::formats::ParseErrorKind::MapTooBig { side: 9000 }, "{e}");
    }
}
