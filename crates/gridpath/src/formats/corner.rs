//! HOG's 2007 `octile-corner` map format, scaled the way HOG 1.0 scaled it.
//!
//! The Moving AI `wc3maps512` scenarios were made in 2007 on these maps (hog2 commit
//! `bddf397a`, `maps/wc3maps/*.map`), not on the reduced `.map` files published with them in
//! 2011: their optimal lengths are shortest paths in the graph HOG built from the corner
//! heights, which forbids some steps the cell classes alone allow. This reader rebuilds that
//! graph as tiles plus a per-cell mask of the cut steps ([`CornerMap`]).
//!
//! Port of hog2 (MIT licence) at `bddf397a`: `Map::loadOctileCorner`, `Map::scale`,
//! `Map::adjacentEdges` (util/map.cpp) and `getMapGraph` / `addMapEdges`
//! (abstraction/mapAbstraction.cpp).

use super::{ParseError, numbered_lines, short};
use crate::grid::{Grid, MAX_SIDE, Pos, Tile};

/// The eight step directions, in the order of the bits of [`CornerMap::cuts`]: `(dx, dy)` for
/// N, E, S, W, NE, SE, SW, NW (`y` grows downward).
pub const CORNER_DIRECTIONS: [(i32, i32); 8] =
    [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)];

/// A map in HOG's 2007 `octile-corner` format, scaled as HOG 1.0 scaled it.
///
/// A cell is passable (not [`Tile::Wall`]) iff HOG made it a graph node: every tile but `O`
/// (`kOutOfBounds`). Water, ground and trees are three classes (`type >> terrainBits`); swamp
/// (`S`, `kSwamp = 0x21`) is in ground's class and becomes [`Tile::Ground`], as does any other
/// letter (HOG's `default:` case). All costs are 1.
///
/// HOG's graph never has an edge the Moving AI cell rule lacks (a cardinal step between two
/// passable cells of one class; a diagonal step whose two orthogonal cells are passable and of
/// the same class too): a HOG diagonal needs all four boundaries of its 2×2 block crossable,
/// and each boundary needs one class on both sides. So the graph is the Moving AI rule's
/// graph minus the steps in [`cuts`](Self::cuts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CornerMap {
    /// Width in cells (the size scaled to).
    pub width: u32,
    /// Height in cells (the size scaled to).
    pub height: u32,
    /// Row-major, `width * height`: what each cell is ([`Tile::Wall`], or ground, water or
    /// trees with cost 1).
    pub tiles: Vec<Tile>,
    /// Row-major, `width * height`: bit `k` set = the step from this cell in direction `k` of
    /// [`CORNER_DIRECTIONS`] is forbidden by the height rule although the two cells' classes
    /// alone (the Moving AI rule, no corner cutting) would allow it. A bit is only ever set
    /// for a step the class rule allows, and the mask is symmetric: if the step a → b is cut,
    /// so is b → a.
    ///
    /// HOG's rule (`Map::adjacentEdges`, `addMapEdges`): a cardinal step needs the two corner
    /// heights on the shared side to match; a diagonal step needs all four cardinal steps of
    /// its 2×2 block to be allowed.
    pub cuts: Vec<u8>,
}

impl CornerMap {
    /// Whether the step from `(x, y)` in direction `k` of [`CORNER_DIRECTIONS`] is an edge of
    /// HOG's graph: both cells passable and of one class, for a diagonal the two orthogonal
    /// cells too, and the cut bit clear. `false` off the map or for `k >= 8`.
    #[must_use]
    pub fn allows(&self, x: u32, y: u32, k: usize) -> bool {
        let Some(&(dx, dy)) = CORNER_DIRECTIONS.get(k) else { return false };
        let Some(a) = self.index(i64::from(x), i64::from(y)) else { return false };
        class_allows(self, i64::from(x), i64::from(y), dx, dy) && self.cuts[a] & (1 << k) == 0
    }

    fn index(&self, x: i64, y: i64) -> Option<usize> {
        let (w, h) = (i64::from(self.width), i64::from(self.height));
        (x >= 0 && y >= 0 && x < w && y < h).then(|| usize::try_from(y * w + x).unwrap_or(usize::MAX))
    }
}

/// HOG's terrain class (`type >> terrainBits`): 0 out of bounds, 1 water, 2 ground, 3 trees.
const OUT: u8 = 0;
const WATER: u8 = 1;
const GROUND: u8 = 2;
const TREES: u8 = 3;

/// One tile's four corner heights, `[top-left, top-right, bottom-left, bottom-right]` (HOG
/// keeps them in `tile1.corners[0..3]` and `tile2.corners[0]`).
type Corners = [i8; 4];
const TL: usize = 0;
const TR: usize = 1;
const BL: usize = 2;
const BR: usize = 3;

fn class_of(tile: Tile) -> u8 {
    match tile {
        Tile::Wall => OUT,
        Tile::Water { .. } => WATER,
        Tile::Ground { .. } => GROUND,
        Tile::Trees { .. } => TREES,
    }
}

/// The Moving AI rule: both cells passable and of one class; for a diagonal, both orthogonal
/// cells as well.
fn class_allows(map: &CornerMap, x: i64, y: i64, dx: i32, dy: i32) -> bool {
    let (dx, dy) = (i64::from(dx), i64::from(dy));
    let class = |x: i64, y: i64| map.index(x, y).map_or(OUT, |i| class_of(map.tiles[i]));
    let c = class(x, y);
    c != OUT
        && class(x + dx, y + dy) == c
        && (dx == 0 || dy == 0 || (class(x + dx, y) == c && class(x, y + dy) == c))
}

/// Parses a map in HOG's `octile-corner` format and scales it to `width` × `height` cells as
/// `Map::scale` did.
///
/// The file: `type octile-corner`, `height H`, `width W`, `map`, then `H` rows of `W` height
/// digits (the corners: HOG's height is the digit minus 2), then `H` rows of `W` letters (the
/// tiles: the last row and column are ignored, leaving `(W-1) × (H-1)` tiles). `O` is out of
/// bounds, `W` water, `T` trees, `S` swamp, any other letter ground; an upper-case letter makes
/// the tile flat at its top-left corner's height (`Map::setHeight`), a lower-case one keeps
/// its four corners (a slope). CRLF line ends are accepted.
///
/// Scaling (`Map::scale`): cell `(x, y)` copies tile `(x * W' / width, y * H' / height)` with
/// integer division (`W' = W - 1`, `H' = H - 1`), so sizes need not divide; then, if that
/// tile's top boundary was crossable (`adjacentEdges(.., kTopEdge)` on the unscaled map), the
/// cell's top corners are taken from the bottom corners of the cell above, and likewise its
/// left corners from the right corners of the cell to its left. That can make a copied slope
/// flat, or cut steps inside a copied tile.
///
/// # Errors
/// [`ParseError`] with the line and column of the first problem: a bad header, a side outside
/// `2..=MAX_SIDE + 1` corners, a target size outside `1..=MAX_SIDE`, a character that is not a
/// digit (heights) or an ASCII letter (tiles), a short or long row, missing or extra rows.
pub fn parse_octile_corner(text: &str, width: u32, height: u32) -> Result<CornerMap, ParseError> {
    check_target(width, height)?;
    let tiles = read_tiles(text)?;
    Ok(scaled_map(&tiles, width, height))
}

/// A map in HOG's `octile-corner` format as a [`Grid`]: its tiles, with a fence
/// ([`Grid::set_fence`]) on every side a height step cuts, scaled to `size` as
/// [`parse_octile_corner`] scales (`None`: one cell per tile, unscaled). Searched under
/// [`Rules::OCTILE`](crate::Rules::OCTILE), the grid's steps are exactly HOG's graph edges: a
/// fence blocks the cardinal step across it and the diagonals through its ends, which is the
/// 2007 rule (a diagonal needs all four sides round its corner crossable).
///
/// # Errors
/// As [`parse_octile_corner`].
pub fn parse_octile_corner_grid(text: &str, size: Option<(u32, u32)>) -> Result<Grid, ParseError> {
    let tiles = read_tiles(text)?;
    #[expect(clippy::cast_possible_truncation, reason = "read_tiles keeps sides within MAX_SIDE")]
    let (width, height) = size.unwrap_or((tiles.w as u32, tiles.h as u32));
    check_target(width, height)?;
    scaled_map(&tiles, width, height).to_grid()
}

/// `true` when `text`'s header says `type octile-corner` (as its reader takes it).
pub(crate) fn is_octile_corner(text: &str) -> bool {
    super::movingai::read_header(&mut numbered_lines(text))
        .is_ok_and(|h| matches!(h.kind, Some(("octile-corner", _))))
}

impl CornerMap {
    /// This map as a [`Grid`]: the tiles, and a fence on every cell side whose cardinal step is
    /// cut. The diagonal cuts follow: HOG cuts a diagonal exactly when a side of its 2 × 2
    /// block is uncrossable, and a fence blocks the diagonals through its ends.
    ///
    /// # Errors
    /// A [`ParseError`] for a map whose size no grid takes (never for a parsed map).
    pub fn to_grid(&self) -> Result<Grid, ParseError> {
        let size_error = |e: crate::GridError| ParseError::new(0, 0, e.to_string());
        let mut grid = Grid::unmasked(self.width, self.height, Tile::Wall).map_err(size_error)?;
        let mut fences = Vec::new();
        for (i, (&tile, &cut)) in self.tiles.iter().zip(&self.cuts).enumerate() {
            #[expect(clippy::cast_possible_truncation, reason = "below MAX_SIDE squared")]
            let pos = Pos::new((i % self.width as usize) as u32, (i / self.width as usize) as u32);
            grid.set_tile_unmasked(pos, tile).map_err(size_error)?;
            // East (bit 1) and south (bit 2): each side once.
            if cut & 2 != 0 {
                fences.push((pos, Pos::new(pos.x + 1, pos.y), true));
            }
            if cut & 4 != 0 {
                fences.push((pos, Pos::new(pos.x, pos.y + 1), true));
            }
        }
        // Putting up fences refreshes the derived data; without any, refresh it here.
        if grid.set_fences(&fences).map_err(size_error)? == 0 {
            grid.refresh_moves();
        }
        Ok(grid)
    }
}

/// The size to scale to: `1..=MAX_SIDE` a side.
fn check_target(width: u32, height: u32) -> Result<(), ParseError> {
    for side in [width, height] {
        if side == 0 {
            return Err(ParseError::new(0, 0, "the size to scale to must be at least 1 cell a side"));
        }
        if side > MAX_SIDE {
            return Err(ParseError::too_big(0, 0, u64::from(side)));
        }
    }
    Ok(())
}

/// The tiles scaled to `width` × `height` (a checked size) with their cut masks.
fn scaled_map(tiles: &Tiles, width: u32, height: u32) -> CornerMap {
    let (cells, class) = scale(tiles, width as usize, height as usize);
    let tiles = class
        .iter()
        .map(|&c| match c {
            WATER => Tile::Water { cost: 1 },
            GROUND => Tile::Ground { cost: 1 },
            TREES => Tile::Trees { cost: 1 },
            _ => Tile::Wall,
        })
        .collect();
    let mut map = CornerMap { width, height, tiles, cuts: Vec::new() };
    map.cuts = cut_masks(&map, &cells);
    map
}

/// The unscaled map as `Map::loadOctileCorner` leaves it: `w` × `h` tiles, row-major.
struct Tiles {
    w: usize,
    h: usize,
    class: Vec<u8>,
    corners: Vec<Corners>,
}

/// `Map::loadOctileCorner`: the header, the corner heights, then the tile letters.
fn read_tiles(text: &str) -> Result<Tiles, ParseError> {
    let mut lines = numbered_lines(text);
    let (cw, ch, header_end) = read_header(&mut lines)?;
    let (cw, ch) = (cw as usize, ch as usize);

    // A header can name a grid far larger than the file: refuse before allocating for it.
    if text.len() < 2 * cw * ch {
        return Err(ParseError::new(
            header_end + 1,
            0,
            format!("the file is too short for {ch} rows of {cw} heights and {ch} rows of {cw} tiles"),
        ));
    }
    // Corner heights, cw x ch, row-major.
    let mut heights = vec![0i8; cw * ch];
    let mut last = header_end;
    for y in 0..ch {
        let row = next_row(&mut lines, &mut last, y, ch, "height")?;
        check_row(row, last, cw, |c| {
            c.is_ascii_digit()
                .then_some(())
                .ok_or_else(|| format!("expected a height digit 0-9, found {c:?}"))
        })?;
        for (x, b) in row.bytes().enumerate() {
            #[expect(clippy::cast_possible_wrap, reason = "a digit: 0..=9")]
            let h = (b - b'0') as i8 - 2;
            heights[y * cw + x] = h;
        }
    }

    // Tiles, (cw-1) x (ch-1): each takes the four corner heights round it, then its letter.
    let (w, h) = (cw - 1, ch - 1);
    let mut class = vec![OUT; w * h];
    let mut corners = vec![[0i8; 4]; w * h];
    for y in 0..ch {
        let row = next_row(&mut lines, &mut last, y, ch, "tile")?;
        check_row(row, last, cw, |c| {
            c.is_ascii_alphabetic()
                .then_some(())
                .ok_or_else(|| format!("expected a tile letter, found {c:?}"))
        })?;
        if y == h {
            continue;
        }
        for (x, b) in row.bytes().take(w).enumerate() {
            let i = y * w + x;
            let c = [
                heights[y * cw + x],
                heights[y * cw + x + 1],
                heights[(y + 1) * cw + x],
                heights[(y + 1) * cw + x + 1],
            ];
            // Upper case: Map::setHeight(x, y, getCornerHeight(x, y, kTopLeft)) flattens it.
            corners[i] = if b.is_ascii_lowercase() { c } else { [c[TL]; 4] };
            class[i] = match b.to_ascii_uppercase() {
                b'O' => OUT,
                b'W' => WATER,
                b'T' => TREES,
                _ => GROUND, // G, S (kSwamp, ground's class) and HOG's default case
            };
        }
    }
    for (n, rest) in lines {
        if !rest.trim().is_empty() {
            return Err(ParseError::new(n, 1, format!("more than {ch} tile rows")));
        }
    }
    Ok(Tiles { w, h, class, corners })
}

/// `Map::scale` to `w` × `h` cells: each cell's corners and class, row-major.
fn scale(t: &Tiles, w: usize, h: usize) -> (Vec<Corners>, Vec<u8>) {
    // Map::adjacentEdges on the unscaled map (no tile is ever split in this format).
    let top_ok = |x: usize, y: usize| {
        y > 0 && {
            let (a, b) = (y * t.w + x, (y - 1) * t.w + x);
            t.class[a] == t.class[b]
                && t.corners[a][TL] == t.corners[b][BL]
                && t.corners[a][TR] == t.corners[b][BR]
        }
    };
    let left_ok = |x: usize, y: usize| {
        x > 0 && {
            let (a, b) = (y * t.w + x, y * t.w + x - 1);
            t.class[a] == t.class[b]
                && t.corners[a][TL] == t.corners[b][TR]
                && t.corners[a][BL] == t.corners[b][BR]
        }
    };
    // Each cell reads only the finished cells above and to its left, so row-major order gives
    // the same result as HOG's column-major loop.
    let mut cells: Vec<Corners> = vec![[0; 4]; w * h];
    let mut class = vec![OUT; w * h];
    for y in 0..h {
        let oy = y * t.h / h;
        for x in 0..w {
            let ox = x * t.w / w;
            let o = oy * t.w + ox;
            let mut c = t.corners[o];
            if oy > 0 && top_ok(ox, oy) {
                // oy > 0 implies y > 0.
                let above = cells[(y - 1) * w + x];
                c[TL] = above[BL];
                c[TR] = above[BR];
            }
            if ox > 0 && left_ok(ox, oy) {
                let left = cells[y * w + x - 1];
                c[TL] = left[TR];
                c[BL] = left[BR];
            }
            cells[y * w + x] = c;
            class[y * w + x] = t.class[o];
        }
    }
    (cells, class)
}

/// The cut masks of the scaled map whose cells have the corner heights `cells`.
fn cut_masks(map: &CornerMap, cells: &[Corners]) -> Vec<u8> {
    let (w, h) = (map.width as usize, map.height as usize);
    // The heights half of adjacentEdges between neighbouring scaled cells.
    let horizontal = |l: usize, r: usize| cells[l][TR] == cells[r][TL] && cells[l][BR] == cells[r][BL];
    let vertical = |t: usize, b: usize| cells[t][BL] == cells[b][TL] && cells[t][BR] == cells[b][TR];
    // The step from (x, y) by (dx, dy), both cells on the map: getMapGraph's nodes are the
    // cells not out of bounds; addMapEdges links cardinal neighbours across a crossable side
    // and diagonal ones when all four sides round the shared corner are crossable.
    let heights_ok = |x: usize, y: usize, dx: i32, dy: i32| -> bool {
        let xs = if dx < 0 { x - 1 } else { x };
        let ys = if dy < 0 { y - 1 } else { y };
        match (dx, dy) {
            (0, _) => vertical(ys * w + x, (ys + 1) * w + x),
            (_, 0) => horizontal(y * w + xs, y * w + xs + 1),
            _ => {
                // The 2x2 block with top-left (xs, ys).
                let (a, b) = (ys * w + xs, (ys + 1) * w + xs);
                horizontal(a, a + 1) && horizontal(b, b + 1) && vertical(a, b) && vertical(a + 1, b + 1)
            }
        }
    };
    let mut cuts = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut bits = 0u8;
            for (k, &(dx, dy)) in CORNER_DIRECTIONS.iter().enumerate() {
                #[expect(clippy::cast_possible_wrap, reason = "below MAX_SIDE")]
                let (xi, yi) = (x as i64, y as i64);
                // class_allows keeps the step on the map, so heights_ok indexes in bounds.
                if class_allows(map, xi, yi, dx, dy) && !heights_ok(x, y, dx, dy) {
                    bits |= 1 << k;
                }
            }
            cuts[y * w + x] = bits;
        }
    }
    cuts
}

/// Reads the header up to its `map` line (the shared Moving AI header): the corner grid's width
/// and height (`2..=MAX_SIDE + 1` each) and the number of the `map` line.
fn read_header<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Result<(u32, u32, usize), ParseError> {
    let header = super::movingai::read_header(lines)?;
    match header.kind {
        Some(("octile-corner", _)) => {}
        Some((other, line)) => {
            return Err(ParseError::new(
                line,
                1,
                format!("unsupported map type {:?}: expected 'octile-corner'", short(other)),
            ));
        }
        None => return Err(ParseError::new(header.map_line, 0, "header has no 'type octile-corner' line")),
    }
    let width = header.width.within(2, MAX_SIDE + 1, "the corner grid is", "corners")?;
    let height = header.height.within(2, MAX_SIDE + 1, "the corner grid is", "corners")?;
    Ok((width, height, header.map_line))
}

fn next_row<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
    last: &mut usize,
    y: usize,
    rows: usize,
    what: &str,
) -> Result<&'a str, ParseError> {
    let Some((n, row)) = lines.next() else {
        return Err(ParseError::new(*last + 1, 0, format!("expected {rows} {what} rows, found {y}")));
    };
    *last = n;
    Ok(row)
}

fn check_row(
    row: &str,
    line: usize,
    width: usize,
    ok: impl Fn(char) -> Result<(), String>,
) -> Result<(), ParseError> {
    let mut count = 0;
    for (col, c) in row.chars().enumerate() {
        if col == width {
            return Err(ParseError::new(line, col + 1, format!("row is longer than the width {width}")));
        }
        ok(c).map_err(|m| ParseError::new(line, col + 1, m))?;
        count += 1;
    }
    if count < width {
        return Err(ParseError::new(line, count + 1, format!("row has {count} cells, expected {width}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 0;
    const E: usize = 1;
    const S: usize = 2;
    const W: usize = 3;
    const NE: usize = 4;
    const SE: usize = 5;
    const SW: usize = 6;
    const NW: usize = 7;

    fn map_text(heights: &[&str], tiles: &[&str]) -> String {
        let mut t =
            format!("type octile-corner\nheight {}\nwidth {}\nmap\n", heights.len(), heights[0].len());
        for r in heights.iter().chain(tiles) {
            t.push_str(r);
            t.push('\n');
        }
        t
    }

    fn cut(m: &CornerMap, x: u32, y: u32, k: usize) -> bool {
        m.cuts[(y * m.width + x) as usize] & (1 << k) != 0
    }

    /// Every cut is symmetric and only on a step the class rule allows.
    fn check_cuts(m: &CornerMap) {
        for y in 0..m.height {
            for x in 0..m.width {
                for (k, &(dx, dy)) in CORNER_DIRECTIONS.iter().enumerate() {
                    if !cut(m, x, y, k) {
                        continue;
                    }
                    assert!(
                        class_allows(m, i64::from(x), i64::from(y), dx, dy),
                        "cut on a class-illegal step"
                    );
                    let back = CORNER_DIRECTIONS.iter().position(|&d| d == (-dx, -dy)).unwrap();
                    let (bx, by) = (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
                    assert!(cut(m, bx, by, back), "({x},{y}) dir {k} cut one way only");
                }
            }
        }
    }

    #[test]
    fn a_height_step_between_two_tiles_cuts_exactly_the_steps_across_it() {
        // 3x2 tiles: the corner column x=2 is at height 1, the rest 0, and all tiles flat
        // (upper case: each at its top-left corner's height). So tiles x=0,1 are at 0 and x=2
        // at 1: the boundary between tile columns 1 and 2 is a step.
        let text = map_text(&["0010", "0010", "0010"], &["GGGG", "GGGG", "GGGG"]);
        let m = parse_octile_corner(&text, 3, 2).unwrap();
        assert!(m.tiles.iter().all(|&t| t == Tile::FLOOR));
        check_cuts(&m);
        for y in 0..2 {
            assert!(cut(&m, 1, y, E) && cut(&m, 2, y, W), "row {y}: the step across the boundary");
            assert!(!cut(&m, 0, y, E) && !cut(&m, 1, y, W), "row {y}: flat boundary");
        }
        assert!(!cut(&m, 0, 0, S) && !cut(&m, 1, 0, S) && !cut(&m, 2, 0, S), "no step between rows");
        assert!(cut(&m, 1, 0, SE) && cut(&m, 2, 1, NW) && cut(&m, 1, 1, NE) && cut(&m, 2, 0, SW));
        assert!(!cut(&m, 0, 0, SE) && !cut(&m, 1, 1, NW));
        assert!(m.allows(0, 0, E) && !m.allows(1, 0, E) && m.allows(2, 0, S));
    }

    #[test]
    fn a_diagonal_across_a_corner_with_one_step_is_cut() {
        // 2x2 tiles. Lower-case tiles keep the corner grid's heights, so their shared sides
        // always match; the upper-case bottom-right tile is flattened at its top-left height
        // (0), while its left neighbour's bottom-right corner is at 1: only the side between
        // the two bottom tiles is a step.
        let text = map_text(&["000", "000", "110"], &["ggG", "gGG", "GGG"]);
        let m = parse_octile_corner(&text, 2, 2).unwrap();
        check_cuts(&m);
        assert!(cut(&m, 0, 1, E) && cut(&m, 1, 1, W), "the one step");
        assert!(!cut(&m, 0, 0, E) && !cut(&m, 0, 0, S) && !cut(&m, 1, 0, S), "the other sides");
        assert!(cut(&m, 0, 0, SE) && cut(&m, 1, 1, NW), "a diagonal needs all four sides");
        assert!(cut(&m, 1, 0, SW) && cut(&m, 0, 1, NE), "so does the other one");
        let cardinal_cuts: u32 = m.cuts.iter().map(|c| (c & 0b1111).count_ones()).sum();
        assert_eq!(cardinal_cuts, 2);

        // A raised corner that no side of the block shares (the far corner of a slope) cuts
        // nothing.
        let text = map_text(&["000", "000", "001"], &["GGG", "GgG", "GGG"]);
        let m = parse_octile_corner(&text, 2, 2).unwrap();
        check_cuts(&m);
        assert_eq!(m.cuts, vec![0; 4]);
    }

    #[test]
    fn classes_and_walls_follow_hog() {
        let text = map_text(&["000", "000", "000"], &["OWG", "sTG", "GGG"]);
        let m = parse_octile_corner(&text, 2, 2).unwrap();
        assert_eq!(m.tiles, vec![Tile::Wall, Tile::Water { cost: 1 }, Tile::FLOOR, Tile::Trees { cost: 1 }]);
        assert_eq!(m.cuts, vec![0; 4], "different classes: nothing to cut, the class rule forbids");
        assert!(!m.allows(0, 1, E) && !m.allows(0, 1, N));
    }

    #[test]
    fn scaling_copies_tiles_and_carries_corners_across_crossable_sides() {
        // 2x1 tiles, the right one a step up: scaled to 5x3, cells x < 3 copy tile 0 (x*2/5).
        let text = map_text(&["011", "011"], &["GGG", "GGG"]);
        let m = parse_octile_corner(&text, 5, 3).unwrap();
        check_cuts(&m);
        for y in 0..3 {
            for x in 0..5 {
                assert_eq!(cut(&m, x, y, E), x == 2, "({x},{y})");
                assert!(!cut(&m, x, y, S) && !cut(&m, x, y, N));
            }
        }
        // Two slopes, 0->1 and 1->2, scaled to 4 cells. Map::scale copies the first tile's
        // corners into cells 0 and 1 unchanged (no tile left of it), so they are not level
        // with each other; cells 2 and 3 take their left corners from the cell to their left
        // (the tiles' shared side is crossable), which levels them.
        let text = map_text(&["012", "012"], &["ggG", "GGG"]);
        let m = parse_octile_corner(&text, 4, 1).unwrap();
        check_cuts(&m);
        let east: Vec<bool> = (0..3).map(|x| cut(&m, x, 0, E)).collect();
        assert_eq!(east, [true, false, false]);
    }

    #[test]
    fn the_class_rule_contains_every_hog_edge_on_random_maps() {
        // Random small maps: cuts symmetric, and only on class-legal steps (so HOG adds none).
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u8| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            u8::try_from(s % u64::from(n)).unwrap()
        };
        for _ in 0..200 {
            let (cw, ch) = (2 + usize::from(next(5)), 2 + usize::from(next(5)));
            let heights: Vec<String> =
                (0..ch).map(|_| (0..cw).map(|_| char::from(b'0' + next(3))).collect()).collect();
            let tiles: Vec<String> = (0..ch)
                .map(|_| (0..cw).map(|_| char::from(b"GgSsWwTtOo"[usize::from(next(10))])).collect())
                .collect();
            let hs: Vec<&str> = heights.iter().map(String::as_str).collect();
            let ts: Vec<&str> = tiles.iter().map(String::as_str).collect();
            let (w, h) = (1 + u32::from(next(9)), 1 + u32::from(next(9)));
            check_cuts(&parse_octile_corner(&map_text(&hs, &ts), w, h).unwrap());
        }
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        let good = map_text(&["00", "00"], &["GG", "GG"]);
        assert!(parse_octile_corner(&good, 4, 4).is_ok());
        assert!(parse_octile_corner(&good.replace('\n', "\r\n"), 4, 4).is_ok(), "CRLF");
        let bad = [
            ("", 1),
            ("type octile\nheight 2\nwidth 2\nmap\n", 1),
            ("type octile-corner\nheight 2\nmap\n00\n00\nGG\nGG\n", 3),
            ("type octile-corner\nheight 1\nwidth 2\nmap\n", 2),
            ("type octile-corner\nheight x\nwidth 2\nmap\n", 2),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n0\n", 6),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n000\n", 6),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n0a\nGG\nGG\n", 6),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n00\nGG\nG1\n", 8),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n00\nGG\n", 8),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n00\nGG\nGG\nGG\n", 9),
            ("type octile-corner\nheight 2\nwidth 2\nmap\n00\n00\nGG\nGé\n", 8),
        ];
        for (text, line) in bad {
            let e = parse_octile_corner(text, 4, 4).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
        }
        let e = parse_octile_corner("type octile-corner\nheight 99999\nwidth 2\nmap\n", 4, 4).unwrap_err();
        assert!(matches!(e.kind, super::super::ParseErrorKind::MapTooBig { .. }), "{e}");
        assert!(parse_octile_corner(&good, 0, 4).is_err());
        let e = parse_octile_corner(&good, MAX_SIDE + 1, 4).unwrap_err();
        assert!(matches!(e.kind, super::super::ParseErrorKind::MapTooBig { .. }), "{e}");
    }
}
