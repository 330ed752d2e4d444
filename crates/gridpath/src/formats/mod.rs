//! Map and scenario file formats: Moving AI `.map` and `.scen`, the tutorials' digit grid, a
//! plain ASCII grid, tilepath's own exact save format `.tpmap` ([`tilepath`]) and Tiled `.tmx`
//! maps ([`tmx`]; reading needs the `tiled` feature).
//!
//! [`load_map`] reads any of them from disk, choosing by extension, with one error type,
//! [`LoadError`], for every kind of bad file; [`write_atomic`] saves without ever leaving a
//! half-written file. Every parser returns an error naming the problem (text formats: its line
//! and column); none panics on any input.

mod corner;
mod files;
mod movingai;
mod scen;
mod text;
pub mod tilepath;
pub mod tmx;

pub use corner::{CORNER_DIRECTIONS, CornerMap, parse_octile_corner, parse_octile_corner_grid};
pub use files::{
    LoadError, MAX_FILE_BYTES, MapFormat, load_map, load_map_bytes, load_map_for_scen, write_atomic,
};
pub use movingai::{parse_movingai, write_movingai};
pub use scen::{Scenario, map_path_for_scen, parse_scen, write_scen};
pub use text::{parse_ascii, parse_digits, write_ascii, write_digits};
pub use tilepath::{TILEPATH_VERSION, parse_tilepath, write_tilepath};
#[cfg(feature = "tiled")]
pub use tmx::parse_tmx;
pub use tmx::{TILESET_TSX, TmxError, write_tmx};

use crate::{Grid, Pos, Tile};

/// A parsed map: the grid plus the start and goal if the file marks them.
#[derive(Clone, Debug)]
pub struct ParsedMap {
    /// The cells.
    pub grid: Grid,
    /// The start marked in the file (`S` in ASCII, `3` in the digit grid).
    pub start: Option<Pos>,
    /// The goal marked in the file (`G` in ASCII, `4` in the digit grid).
    pub goal: Option<Pos>,
}

/// A problem in a map or scenario file, with a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ParseError {
    /// 1-based line (0 when the problem is the file as a whole).
    pub line: usize,
    /// 1-based column (0 when the problem is the line as a whole).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What kind of problem: lets [`load_map`] tell a map that is too big from a broken one.
    pub kind: ParseErrorKind,
}

/// The kind of a [`ParseError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The text does not follow the format.
    #[default]
    Malformed,
    /// The map is well formed but a side is longer than [`MAX_SIDE`](crate::MAX_SIDE).
    MapTooBig {
        /// The offending side length, in cells.
        side: u64,
    },
}

impl ParseError {
    pub(crate) fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        Self { line, column, message: message.into(), kind: ParseErrorKind::Malformed }
    }

    pub(crate) fn too_big(line: usize, column: usize, side: u64) -> Self {
        Self {
            line,
            column,
            message: format!(
                "a side of {side} cells is too big: maps are 1..={} cells a side",
                crate::MAX_SIDE
            ),
            kind: ParseErrorKind::MapTooBig { side },
        }
    }
}

/// Parses a map in any supported format, chosen by content: a file starting with `type` is a
/// Moving AI map; one whose cells are digits is the digit grid; anything else the ASCII grid.
///
/// ```
/// use gridpath::formats::parse_map;
/// let map = parse_map("0,0,3\n1,1,0\n4,0,0").unwrap();
/// assert_eq!(map.start.map(|p| (p.x, p.y)), Some((2, 0)));
/// assert!(parse_map("type octile\nheight 99999\nwidth 2\nmap\n").is_err());
/// ```
///
/// # Errors
/// [`ParseError`] with the line and column of the first problem.
pub fn parse_map(text: &str) -> Result<ParsedMap, ParseError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if first.starts_with("type") {
        let grid = parse_movingai(text)?;
        return Ok(ParsedMap { grid, start: None, goal: None });
    }
    let digits = first.chars().all(|c| c.is_ascii_digit() || c == ',' || c.is_whitespace());
    if digits && !first.is_empty() { parse_digits(text) } else { parse_ascii(text) }
}

/// Parses map bytes: rejects non-UTF-8 content with a clear error, then [`parse_map`].
///
/// # Errors
/// [`ParseError`] for binary content or any format problem.
pub fn parse_map_bytes(bytes: &[u8]) -> Result<ParsedMap, ParseError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()].split(|&b| b == b'\n').count();
        ParseError::new(line, 0, "not a text file (invalid UTF-8)")
    })?;
    parse_map(text)
}

/// Reads the `height` rows of `width` cells that follow a map header (whose last line is
/// `header_end`) into a new grid: `cell` turns a character into a tile or an error message.
/// Wrong row counts and lengths are errors; blank lines after the rows are allowed. The move
/// masks are computed once at the end, not nine per cell.
pub(crate) fn read_rows<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    width: u32,
    height: u32,
    header_end: usize,
    cell: impl Fn(char) -> Result<Tile, String>,
) -> Result<Grid, ParseError> {
    let mut grid = Grid::unmasked(width, height, Tile::FLOOR)
        .map_err(|e| ParseError::new(header_end, 0, e.to_string()))?;
    let mut last = header_end;
    for y in 0..height {
        let Some((n, row)) = lines.next() else {
            return Err(ParseError::new(last + 1, 0, format!("expected {height} map rows, found {y}")));
        };
        last = n;
        let mut x = 0u32;
        for (col, c) in row.chars().enumerate() {
            if x == width {
                return Err(ParseError::new(n, col + 1, format!("row is longer than the width {width}")));
            }
            let tile = cell(c).map_err(|message| ParseError::new(n, col + 1, message))?;
            // In bounds by construction: x < width, y < height.
            let _ = grid.set_tile_unmasked(Pos::new(x, y), tile);
            x += 1;
        }
        if x < width {
            return Err(ParseError::new(
                n,
                row.chars().count() + 1,
                format!("row has {x} cells, expected {width}"),
            ));
        }
    }
    for (n, rest) in lines {
        if !rest.trim().is_empty() {
            return Err(ParseError::new(n, 1, format!("more than {height} map rows")));
        }
    }
    grid.refresh_moves();
    Ok(grid)
}

/// Whitespace-separated words of `line` with their 1-based character columns (for error
/// messages that point at the word).
pub(crate) fn words_with_columns(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    // A trailing space closes the last word.
    for (i, c) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
        match (c.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((line[..s].chars().count() + 1, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// At most 40 characters of a file's text, for quoting it in an error message.
pub(crate) fn short(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Splits text into lines numbered from 1, without `\r` line ends.
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_terminator('\n').enumerate().map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
}
