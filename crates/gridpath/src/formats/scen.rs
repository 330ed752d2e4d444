//! The Moving AI `.scen` scenario format.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{ParseError, numbered_lines, short, words_with_columns};
use crate::Pos;
use crate::grid::MAX_SIDE;

/// One benchmark query.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// Difficulty bucket.
    pub bucket: u32,
    /// The map named in the line (unreliable in real files: see [`map_path_for_scen`]).
    pub map: String,
    /// Map width as stated in the line.
    pub width: u32,
    /// Map height as stated in the line.
    pub height: u32,
    /// Start cell.
    pub start: Pos,
    /// Goal cell.
    pub goal: Pos,
    /// Published optimal length (octile, no corner cutting), rounded.
    pub optimal: f64,
}

/// Parses a `.scen` file: `version 1` (or `version 1.0`), then one query per line with nine
/// whitespace-separated fields: bucket, map, width, height, start x, start y, goal x, goal y,
/// optimal length. Blank lines are skipped.
///
/// ```
/// let text = "version 1\n0\tarena.map\t49\t49\t1\t11\t1\t12\t1\n\n";
/// let scen = gridpath::formats::parse_scen(text).unwrap();
/// assert_eq!(scen.len(), 1);
/// assert_eq!(scen[0].goal, gridpath::Pos::new(1, 12));
/// ```
///
/// # Errors
/// [`ParseError`] naming the line and column of the first bad field.
pub fn parse_scen(text: &str) -> Result<Vec<Scenario>, ParseError> {
    let mut lines = numbered_lines(text).filter(|(_, l)| !l.trim().is_empty());
    match lines.next() {
        Some((_, l)) if matches!(l.split_whitespace().collect::<Vec<_>>()[..], ["version", "1" | "1.0"]) => {}
        Some((n, l)) => {
            return Err(ParseError::new(n, 1, format!("expected 'version 1', found {:?}", short(l))));
        }
        None => return Err(ParseError::new(1, 0, "empty scenario file: expected 'version 1'")),
    }
    let mut out = Vec::new();
    for (n, line) in lines {
        let fields = words_with_columns(line);
        if fields.len() != 9 {
            return Err(ParseError::new(n, 0, format!("expected 9 fields, found {}", fields.len())));
        }
        let int = |k: usize, what: &str| -> Result<u32, ParseError> {
            let (col, raw) = fields[k];
            raw.parse::<u32>().ok().ok_or_else(|| {
                ParseError::new(n, col, format!("{what} {:?} is not a non-negative whole number", short(raw)))
            })
        };
        let coord = |k: usize, what: &str, limit: u32| -> Result<u32, ParseError> {
            let v = int(k, what)?;
            if v >= limit {
                return Err(ParseError::new(
                    n,
                    fields[k].0,
                    format!("{what} {v} is outside the stated map size"),
                ));
            }
            Ok(v)
        };
        let width = int(2, "width")?;
        let height = int(3, "height")?;
        for (k, v) in [(2, width), (3, height)] {
            if v == 0 || v > MAX_SIDE {
                return Err(ParseError::new(
                    n,
                    fields[k].0,
                    format!("map size {v} is out of range 1..={MAX_SIDE}"),
                ));
            }
        }
        let (col, raw) = fields[8];
        let optimal: f64 =
            raw.parse().ok().filter(|v: &f64| v.is_finite() && *v >= 0.0).ok_or_else(|| {
                ParseError::new(
                    n,
                    col,
                    format!("optimal length {:?} is not a non-negative number", short(raw)),
                )
            })?;
        out.push(Scenario {
            bucket: int(0, "bucket")?,
            map: fields[1].1.to_string(),
            width,
            height,
            start: Pos::new(coord(4, "start x", width)?, coord(5, "start y", height)?),
            goal: Pos::new(coord(6, "goal x", width)?, coord(7, "goal y", height)?),
            optimal,
        });
    }
    Ok(out)
}

/// Writes scenarios in the `.scen` format [`parse_scen`] reads (`version 1`, tab-separated
/// fields, lengths with 8 decimals as the published files have them).
///
/// ```
/// use gridpath::formats::{parse_scen, write_scen, Scenario};
/// use gridpath::Pos;
/// let q = Scenario { bucket: 0, map: "a.map".into(), width: 4, height: 3, start: Pos::new(0, 0),
///                    goal: Pos::new(3, 2), optimal: 3.828_427_12 };
/// assert_eq!(parse_scen(&write_scen(&[q.clone()])).unwrap(), vec![q]);
/// ```
#[must_use]
pub fn write_scen(scenarios: &[Scenario]) -> String {
    let mut text = String::from("version 1\n");
    for q in scenarios {
        // Writing to a String cannot fail.
        let _ = writeln!(
            text,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.8}",
            q.bucket, q.map, q.width, q.height, q.start.x, q.start.y, q.goal.x, q.goal.y, q.optimal
        );
    }
    text
}

/// The map belonging to a scenario file, found by file name next to it: `X.map.scen` → `X.map`
/// (`X.scen` → `X.map`). The map field inside the lines is not used: real files name paths that
/// do not exist.
#[must_use]
pub fn map_path_for_scen(scen: &Path) -> PathBuf {
    let name = scen.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let map = name.strip_suffix(".scen").map_or_else(
        || format!("{name}.map"),
        |stem| {
            if stem.to_ascii_lowercase().ends_with(".map") { stem.to_string() } else { format!("{stem}.map") }
        },
    );
    scen.with_file_name(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tabs_spaces_and_blank_lines() {
        let text = "version 1\r\n3 maps/bgmaps/AR0011SR.map 512 512 10 20 30 40 55.35533906\r\n\r\n\r\n";
        let s = parse_scen(text).unwrap();
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].bucket, s[0].start, s[0].goal), (3, Pos::new(10, 20), Pos::new(30, 40)));
        assert!((s[0].optimal - 55.355_339_06).abs() < 1e-12);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_scen("version 1\n0\ta.map\t4\t4\t1\tx\t1\t1\t2\n").unwrap_err();
        assert_eq!((e.line, e.column), (2, 15), "{e}");
        let e = parse_scen("version 1\n0 a.map 4 4 1 9 1 1 2\n").unwrap_err();
        assert!(e.message.contains("outside"), "{e}");
        let e = parse_scen("version 2\n").unwrap_err();
        assert_eq!(e.line, 1);
        let e = parse_scen("version 1\n0 a.map 4 4 1\n").unwrap_err();
        assert!(e.message.contains("9 fields"), "{e}");
    }

    #[test]
    fn finds_the_map_by_file_name() {
        assert_eq!(
            map_path_for_scen(Path::new("/x/bg512/AR0011SR.map.scen")),
            Path::new("/x/bg512/AR0011SR.map")
        );
        assert_eq!(map_path_for_scen(Path::new("arena.scen")), Path::new("arena.map"));
    }
}
