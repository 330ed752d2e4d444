//! The grid: cells, tiles, movement rules and the step-cost rule.

use std::fmt;

/// Largest accepted width or height: bigger maps are rejected with a clear error rather than
/// allocating gigabytes on a malformed header.
pub const MAX_SIDE: u32 = 8192;

/// Largest terrain cost a cell can carry (costs live in 6 bits of the cell byte).
pub const MAX_COST: u8 = 63;

/// A cell position: `x` is the column, `y` the row, `(0, 0)` the top-left corner (Moving AI's
/// convention).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize,
)]
pub struct Pos {
    /// Column, from 0 at the left.
    pub x: u32,
    /// Row, from 0 at the top.
    pub y: u32,
}

impl Pos {
    /// A position from column and row.
    #[must_use]
    pub const fn new(x: u32, y: u32) -> Self {
        Self { x, y }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}

impl From<(u32, u32)> for Pos {
    fn from((x, y): (u32, u32)) -> Self {
        Self { x, y }
    }
}

/// What a cell holds.
///
/// Passable cells belong to a terrain *class*: ground, water or trees. A move is legal only
/// between two cells of the same class (for a diagonal, the two orthogonal cells too), so water
/// connects only to water and trees only to trees — the Moving AI rule (HOG2's `Map::CanStep`,
/// which some published scenarios rely on: 12 start in water and 8 in trees on `moonglade`). Within a class, `cost` (1 = plain floor, up to [`MAX_COST`])
/// multiplies the length of every step that *enters* the cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tile {
    /// Impassable.
    Wall,
    /// Ground (Moving AI `.`, `G`, `S`), with a terrain cost ≥ 1.
    Ground {
        /// Cost multiplier for steps entering this cell (1..=63).
        cost: u8,
    },
    /// Water (Moving AI `W`): connects only to other water cells.
    Water {
        /// Cost multiplier for steps entering this cell (1..=63).
        cost: u8,
    },
    /// Trees (Moving AI `T`): connects only to other tree cells.
    Trees {
        /// Cost multiplier for steps entering this cell (1..=63).
        cost: u8,
    },
}

impl Tile {
    /// Plain floor: ground with cost 1.
    pub const FLOOR: Tile = Tile::Ground { cost: 1 };

    /// `true` for [`Tile::Wall`].
    #[must_use]
    pub const fn is_wall(self) -> bool {
        matches!(self, Tile::Wall)
    }

    /// The terrain cost, or `None` for a wall.
    #[must_use]
    pub const fn cost(self) -> Option<u8> {
        match self {
            Tile::Wall => None,
            Tile::Ground { cost } | Tile::Water { cost } | Tile::Trees { cost } => Some(cost),
        }
    }

    // Cell byte layout: bits 6..8 = class (0 wall, 1 ground, 2 water, 3 trees), bits 0..6 = cost.
    // A wall is the byte 0, so "passable for class c" is the single compare `byte >> 6 == c`.
    const fn encode(self) -> Result<u8, GridError> {
        match self {
            Tile::Wall => Ok(0),
            Tile::Ground { cost } | Tile::Water { cost } | Tile::Trees { cost }
                if cost == 0 || cost > MAX_COST =>
            {
                Err(GridError::BadCost { cost })
            }
            Tile::Ground { cost } => Ok(CLASS_GROUND << 6 | cost),
            Tile::Water { cost } => Ok(CLASS_WATER << 6 | cost),
            Tile::Trees { cost } => Ok(CLASS_TREES << 6 | cost),
        }
    }

    const fn decode(byte: u8) -> Tile {
        match byte >> 6 {
            CLASS_GROUND => Tile::Ground { cost: byte & 63 },
            CLASS_WATER => Tile::Water { cost: byte & 63 },
            CLASS_TREES => Tile::Trees { cost: byte & 63 },
            _ => Tile::Wall,
        }
    }
}

pub(crate) const CLASS_GROUND: u8 = 1;
pub(crate) const CLASS_WATER: u8 = 2;
pub(crate) const CLASS_TREES: u8 = 3;

/// Errors from building or editing a [`Grid`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GridError {
    /// Width or height is zero or above [`MAX_SIDE`].
    #[error("grid size {width}x{height} is not allowed: each side must be 1..={MAX_SIDE}")]
    BadSize {
        /// Requested width.
        width: u64,
        /// Requested height.
        height: u64,
    },
    /// A position outside the grid.
    #[error("cell {pos} is outside the {width}x{height} grid")]
    OutOfBounds {
        /// The offending position.
        pos: Pos,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A fence between two cells that do not share a side.
    #[error("cells {a} and {b} do not share a side: a fence stands between side-by-side cells")]
    NotSideBySide {
        /// One cell.
        a: Pos,
        /// The other.
        b: Pos,
    },
    /// A terrain cost of 0 or above [`MAX_COST`].
    #[error("terrain cost {cost} is not allowed: costs are 1..={MAX_COST}")]
    BadCost {
        /// The offending cost.
        cost: u8,
    },
}

/// How many neighbours a cell has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Moves {
    /// Up, down, left, right.
    Four,
    /// The four cardinal moves plus the four diagonals, subject to a [`Corners`] rule.
    #[default]
    Eight,
}

/// When a diagonal step is allowed next to blocked cells (8-connected moves only).
///
/// "Blocked" means a wall or a cell of another terrain class than the mover's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Corners {
    /// Both orthogonal neighbours must be open: no corner cutting, no squeezing between two
    /// diagonal blockers. The Moving AI / GPPC rule.
    #[default]
    Forbid,
    /// At least one orthogonal neighbour must be open.
    AllowOne,
    /// Diagonals ignore the orthogonal neighbours (corner cutting, as the classic wavefront
    /// tutorial does).
    Allow,
}

impl Moves {
    /// Both, in menu order.
    pub const ALL: [Moves; 2] = [Moves::Four, Moves::Eight];

    /// The CLI's name: `4` or `8`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Moves::Four => "4",
            Moves::Eight => "8",
        }
    }

    /// Human label: `4-connected` or `8-connected` (also what `Display` prints).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Moves::Four => "4-connected",
            Moves::Eight => "8-connected",
        }
    }
}

crate::names::named_enum!(Moves, "moves", label);

impl Corners {
    /// Every rule, strictest first.
    pub const ALL: [Corners; 3] = [Corners::Forbid, Corners::AllowOne, Corners::Allow];

    /// The CLI's name: `forbid`, `allow-one` or `allow`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Corners::Forbid => "forbid",
            Corners::AllowOne => "allow-one",
            Corners::Allow => "allow",
        }
    }

    /// Human label: `no corner cutting`, `cut one corner`, `cut corners` (also what `Display`
    /// prints).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Corners::Forbid => "no corner cutting",
            Corners::AllowOne => "cut one corner",
            Corners::Allow => "cut corners",
        }
    }
}

crate::names::named_enum!(Corners, "corner rule", label);

/// Movement rules: connectivity plus the corner rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Rules {
    /// 4- or 8-connected.
    pub moves: Moves,
    /// Corner rule for diagonal steps (ignored with [`Moves::Four`]).
    pub corners: Corners,
}

impl Rules {
    /// 4-connected moves.
    pub const FOUR: Rules = Rules { moves: Moves::Four, corners: Corners::Forbid };
    /// 8-connected moves without corner cutting (Moving AI).
    pub const OCTILE: Rules = Rules { moves: Moves::Eight, corners: Corners::Forbid };

    /// 8-connected with the given corner rule.
    #[must_use]
    pub const fn eight(corners: Corners) -> Self {
        Rules { moves: Moves::Eight, corners }
    }
}

/// The eight directions as (dx, dy): the four cardinals first, then the diagonals.
pub(crate) const DIRS: [(i32, i32); 8] =
    [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)];

/// The index into [`DIRS`] of the step `(dx, dy)` (not `(0, 0)`).
pub(crate) const fn dir_index(dx: i32, dy: i32) -> usize {
    match (dx, dy) {
        (0, -1) => 0,
        (1, 0) => 1,
        (0, 1) => 2,
        (-1, 0) => 3,
        (1, -1) => 4,
        (1, 1) => 5,
        (-1, 1) => 6,
        _ => 7,
    }
}

/// √2, the length of a diagonal step.
pub const SQRT2: f64 = std::f64::consts::SQRT_2;

/// A rectangular grid of [`Tile`]s with O(1) access and cheap single-cell updates.
///
/// Internally the cells are one byte each, stored row-major with a one-cell wall border, so
/// neighbour lookups in the searches need no bounds checks.
///
/// **Step cost rule:** a step from `a` to a neighbour `b` costs `1` (cardinal) or `√2`
/// (diagonal), multiplied by the terrain cost of `b`, the cell entered. With every cost 1 this is
/// the Moving AI octile length.
///
/// ```
/// use gridpath::{Grid, Pos, Tile};
/// let mut grid = Grid::new(4, 3).unwrap();
/// grid.set_tile(Pos::new(1, 1), Tile::Wall).unwrap();
/// assert!(!grid.is_passable(Pos::new(1, 1)));
/// assert_eq!(grid.tile(Pos::new(9, 9)), None);
/// ```
pub struct Grid {
    /// A number no other grid of this process has (a clone gets a new one), so that a cache of
    /// data derived from a grid (the searches' grid for a large agent) can tell grids apart;
    /// with the revision it names one state of one grid. Not part of equality.
    id: u64,
    width: u32,
    height: u32,
    /// Padded row length: `width + 2`.
    stride: usize,
    cells: Vec<u8>,
    /// Number of cells per cost (index 0: walls). JPS picks its uniform or weighted search by
    /// it; the bucketed open list sizes its window from the largest cost.
    cost_counts: [u32; 64],
    revision: u64,
    /// Bit copies of the cells' classes for bit-parallel scans, kept in step by every edit.
    planes: Planes,
    /// Per padded cell: its legal octile moves without corner cutting for a mover of the cell's
    /// own class (bit `k`: direction `k` of [`DIRS`]); 0 on walls and the border. Kept in step
    /// by every edit (an edit changes the masks of the cell and its eight neighbours), so the
    /// searches and fields read one byte per expansion instead of testing eight neighbours.
    moves: Vec<u8>,
    /// Per padded cell, for JPS's diagonal rays: bits 0–3 (N, E, S, W, the order of [`DIRS`]):
    /// a straight jump from the cell that way finds a jump point (an open cell with a forced
    /// neighbour, or a rough one: see [`Planes::rough_rows`]) before a wall, for a mover of the
    /// cell's class; bits 4–7: the cell's diagonal
    /// moves (as in `moves`). One byte tells a ray's step whether to step on and which of its
    /// two straight scans can find anything. Kept in step by every edit: the three rows and
    /// the three columns through the cell and its sides are recomputed.
    jumps: Vec<u8>,
    /// Per padded cell: its clearance ([`Grid::clearance`]), 0 on walls and the border. Kept
    /// in step by every edit: an edit changes only the clearance of the cells whose
    /// [`MAX_AGENT_SIZE`]² square holds it, the 4 × 4 cells up and left of it.
    clearance: Vec<u8>,
    /// Per padded cell, bit `k`: the step from the cell in direction `k` of [`DIRS`] crosses a
    /// *fence* ([`Grid::set_fence`]) and is illegal whatever the two cells hold. A cardinal bit
    /// is a fence on that side of the cell; a diagonal bit is set when a fence lies on any of
    /// the four cell sides meeting at the corner the step passes (the fence's end post blocks
    /// the corner, under every corner rule). Empty while the grid has no fence, so a grid of
    /// cells alone carries no table. The 2007 `octile-corner` maps need fences: there a height
    /// step between two tiles of ground forbids the step across it while both cells stay
    /// walkable (see `formats/corner.rs`).
    fences: Vec<u8>,
    /// How many cell sides are fenced.
    fence_count: u32,
}

/// The largest agent (body of `k` × `k` cells) the searches and flow fields take, and the cap
/// of [`Grid::clearance`].
pub const MAX_AGENT_SIZE: u8 = 4;

/// Hands out [`Grid`] ids.
static NEXT_GRID_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn next_grid_id() -> u64 {
    NEXT_GRID_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Clone for Grid {
    fn clone(&self) -> Self {
        Self {
            id: next_grid_id(),
            width: self.width,
            height: self.height,
            stride: self.stride,
            cells: self.cells.clone(),
            cost_counts: self.cost_counts,
            revision: self.revision,
            planes: self.planes.clone(),
            moves: self.moves.clone(),
            jumps: self.jumps.clone(),
            clearance: self.clearance.clone(),
            fences: self.fences.clone(),
            fence_count: self.fence_count,
        }
    }
}

/// Equal cells and derived data, and the same revision; the id is not compared.
impl PartialEq for Grid {
    fn eq(&self, other: &Self) -> bool {
        self.width == other.width
            && self.height == other.height
            && self.cells == other.cells
            && self.cost_counts == other.cost_counts
            && self.revision == other.revision
            && self.planes == other.planes
            && self.moves == other.moves
            && self.jumps == other.jumps
            && self.clearance == other.clearance
            && self.fence_count == other.fence_count
            && self.fences == other.fences
    }
}

impl Eq for Grid {}

/// Passability bit planes for bit-parallel scans (JPS): for each terrain class, one bit per
/// padded cell, both row by row and column by column (the transposed copy serves vertical
/// scans), plus the forced-neighbour bits of each scan direction, so that a scan step loads two
/// words (the line and its forced bits) instead of the line, both side lines and their carries.
/// An edit flips at most two bits in each class copy and recomputes a few forced bits next to
/// and on the cell; 18 bits per cell in all.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Planes {
    /// `u64` words per padded row.
    pub(crate) row_words: usize,
    /// `u64` words per padded column.
    pub(crate) col_words: usize,
    /// `rows[c - 1][y * row_words + x / 64]`, bit `x % 64`: padded cell `(x, y)` has class `c`.
    /// Bits past the row's end are 0 (blocked), like the wall border.
    pub(crate) rows: [Vec<u64>; 3],
    /// `cols[c - 1][x * col_words + y / 64]`, bit `y % 64`: the transposed copy.
    pub(crate) cols: [Vec<u64>; 3],
    /// Forced-neighbour bits of a scan towards higher bit indices, laid out like `rows` and
    /// `cols`: bit `p` of line `l` is set when line `l` is open at `p` and a side line `l ± 1`
    /// is open at `p` but not at `p − 1` (the cell beside the previous one), for the class of
    /// the plane: the jump points of such scans.
    pub(crate) rows_fwd: [Vec<u64>; 3],
    /// As `rows_fwd`, for scans towards lower indices (side open at `p`, not at `p + 1`).
    pub(crate) rows_bwd: [Vec<u64>; 3],
    /// `rows_fwd` of the columns.
    pub(crate) cols_fwd: [Vec<u64>; 3],
    /// `rows_bwd` of the columns.
    pub(crate) cols_bwd: [Vec<u64>; 3],
    /// *Rough* cells, laid out like one class's `rows` (and `rough_cols` like its `cols`), for
    /// every class at once: an open cell is rough when a cell of its 3 × 3 neighbourhood has its
    /// class and another terrain cost. JPS on terrain costs stops its jumps there (see
    /// `search/jps.rs`). All 0 on a grid of uniform cost.
    pub(crate) rough_rows: Vec<u64>,
    /// The transposed copy of `rough_rows`.
    pub(crate) rough_cols: Vec<u64>,
}

/// One orientation's bit planes (rows or columns) of one class ([`Planes::lines`]).
pub(crate) struct Lines<'a> {
    pub(crate) open: &'a [u64],
    /// Forced-neighbour bits of forward and backward scans.
    pub(crate) fwd: &'a [u64],
    pub(crate) bwd: &'a [u64],
    /// Rough cells (`Planes::rough_rows`), of every class.
    pub(crate) rough: &'a [u64],
    /// Words per line.
    pub(crate) wpl: usize,
}

/// The forced-neighbour words of line `l` of `plane` (`lines` lines of `wpl` words) for a scan
/// towards higher bit indices and one towards lower ones, word `w`. Outside the plane is 0.
fn forced_words(plane: &[u64], wpl: usize, lines: usize, l: usize, w: usize) -> (u64, u64) {
    let word = |l: usize, w: usize| if l < lines && w < wpl { plane[l * wpl + w] } else { 0 };
    let (mut fwd, mut bwd) = (0, 0);
    for side in [l.wrapping_sub(1), l + 1] {
        let here = word(side, w);
        // Bit p of `before` is side cell p − 1; of `after`, p + 1.
        let before = here << 1 | word(side, w.wrapping_sub(1)) >> 63;
        let after = here >> 1 | word(side, w + 1) << 63;
        fwd |= here & !before;
        bwd |= here & !after;
    }
    // Only open cells of the line are jump points: a scan that knows the line is open up to its
    // jump point reads these bits alone.
    let own = word(l, w);
    (fwd & own, bwd & own)
}

/// Words per line of the longest line (a padded side of [`MAX_SIDE`] + 2 cells).
const LINE_WORDS: usize = (MAX_SIDE as usize + 2).div_ceil(64);

/// ORs into `out` the open cells of a line (`open`, with the forced-neighbour bits `forced` of
/// scans towards higher bit indices when `UP`, lower ones otherwise) whose scan that way finds
/// a jump point: the nearest stop ahead (a blocked cell, or an open one with a forced
/// neighbour, as `jps::scan_line` stops) is open. From the far end, jumping from stop to stop:
/// a few steps per word, not one per cell.
fn hit_words<const UP: bool>(open: &[u64], forced: &[u64], out: &mut [u64]) {
    // Whether the nearest stop beyond the current word (towards the scan) is a jump point.
    let mut carry = false;
    for k in 0..open.len() {
        let w = if UP { open.len() - 1 - k } else { k };
        // Mirrored for downward scans, so that "ahead" is always towards higher bits.
        let flip = |x: u64| if UP { x } else { x.reverse_bits() };
        let (o, f) = (flip(open[w]), flip(forced[w]));
        let (stops, jumps) = (!o | f, o & f);
        let below = |top: u32| if top == 64 { !0 } else { (1u64 << top) - 1 };
        let (mut hits, mut top, mut hit) = (0u64, 64u32, carry);
        loop {
            if hit {
                // Every cell from the next stop below `top` up to `top - 1` has its nearest
                // stop ahead at `top`: a jump point.
                let s = stops & below(top);
                if s == 0 {
                    hits |= below(top);
                    break;
                }
                let q = s.ilog2();
                hits |= below(top) & !below(q);
                hit = jumps >> q & 1 == 1;
                top = q;
            } else {
                // Cells below a blocked stop find nothing up to the next jump point below.
                let j = jumps & below(top);
                if j == 0 {
                    break;
                }
                top = j.ilog2();
                hit = true;
            }
        }
        carry = hit;
        out[w] |= flip(hits) & open[w];
    }
}

/// Recomputes the forced-neighbour words `fwd` and `bwd` of one orientation (rows or
/// columns) of a plane `open` of `wpl` words per line, at every word index of `words` in every
/// line of `lines`; indices outside the plane are skipped.
fn refresh_lines(
    open: &[u64],
    fwd: &mut [u64],
    bwd: &mut [u64],
    wpl: usize,
    lines: impl IntoIterator<Item = usize>,
    words: &(impl IntoIterator<Item = usize> + Clone),
) {
    let count = open.len() / wpl;
    for l in lines.into_iter().filter(|&l| l < count) {
        for w in words.clone().into_iter().filter(|&w| w < wpl) {
            (fwd[l * wpl + w], bwd[l * wpl + w]) = forced_words(open, wpl, count, l, w);
        }
    }
}

impl Planes {
    fn new(stride: usize, padded_height: usize) -> Self {
        let row_words = stride.div_ceil(64);
        let col_words = padded_height.div_ceil(64);
        let rows = std::array::from_fn(|_| vec![0; row_words * padded_height]);
        let cols = std::array::from_fn(|_| vec![0; col_words * stride]);
        Self {
            row_words,
            col_words,
            rows_fwd: rows.clone(),
            rows_bwd: rows.clone(),
            cols_fwd: cols.clone(),
            cols_bwd: cols.clone(),
            rough_rows: rows[0].clone(),
            rough_cols: cols[0].clone(),
            rows,
            cols,
        }
    }

    /// The rows (`row`) or the columns of class `c` (0-based): the open bits, their forced
    /// bits both ways and the words per line — what a scan along one orientation reads.
    pub(crate) fn lines(&self, row: bool, c: usize) -> Lines<'_> {
        if row {
            Lines {
                open: &self.rows[c],
                fwd: &self.rows_fwd[c],
                bwd: &self.rows_bwd[c],
                rough: &self.rough_rows,
                wpl: self.row_words,
            }
        } else {
            Lines {
                open: &self.cols[c],
                fwd: &self.cols_fwd[c],
                bwd: &self.cols_bwd[c],
                rough: &self.rough_cols,
                wpl: self.col_words,
            }
        }
    }

    /// [`Planes::lines`] with the forced bits writable: `(open, fwd, bwd, wpl)`.
    fn lines_mut(&mut self, row: bool, c: usize) -> (&[u64], &mut [u64], &mut [u64], usize) {
        if row {
            (&self.rows[c], &mut self.rows_fwd[c], &mut self.rows_bwd[c], self.row_words)
        } else {
            (&self.cols[c], &mut self.cols_fwd[c], &mut self.cols_bwd[c], self.col_words)
        }
    }

    /// Recomputes every forced-neighbour word.
    fn refresh_forced(&mut self) {
        for c in 0..3 {
            for row in [true, false] {
                let (open, fwd, bwd, wpl) = self.lines_mut(row, c);
                refresh_lines(open, fwd, bwd, wpl, 0..open.len() / wpl, &(0..wpl));
            }
        }
    }

    /// Recomputes the forced-neighbour words that padded cell `(x, y)` of class `c` (1-based)
    /// is a side cell of or lies on: lines `y` and `y ± 1` of the rows and `x`, `x ± 1` of the
    /// columns, the words of `x` and `x ± 1` (or `y`, `y ± 1`).
    fn refresh_forced_near(&mut self, x: usize, y: usize, c: u8) {
        if c == 0 {
            return;
        }
        let c = usize::from(c - 1);
        let near = |p: usize| [p.wrapping_sub(1) / 64, p / 64, (p + 1) / 64];
        // Rows `y ± 1` at the words of `x ± 1`, then columns `x ± 1` at the words of `y ± 1`.
        for (row, line, along) in [(true, y, x), (false, x, y)] {
            let (open, fwd, bwd, wpl) = self.lines_mut(row, c);
            refresh_lines(open, fwd, bwd, wpl, [line.wrapping_sub(1), line, line + 1], &near(along));
        }
    }

    /// Sets padded cell `(x, y)`'s rough bit in both copies.
    fn set_rough(&mut self, x: usize, y: usize, rough: bool) {
        let words = (self.row_words, self.col_words);
        set_cell_bit((&mut self.rough_rows, &mut self.rough_cols), words, (x, y), rough);
    }

    /// Whether padded cell `(x, y)` is rough.
    #[inline(always)]
    pub(crate) fn is_rough(&self, x: usize, y: usize) -> bool {
        self.rough_rows[y * self.row_words + x / 64] >> (x % 64) & 1 == 1
    }

    /// Moves padded cell `(x, y)` from class `old` to class `new` (0 = wall, in no plane).
    fn set(&mut self, x: usize, y: usize, old: u8, new: u8) {
        if old == new {
            return;
        }
        let words = (self.row_words, self.col_words);
        for (class, on) in [(old, false), (new, true)] {
            if class != 0 {
                let c = usize::from(class - 1);
                set_cell_bit((&mut self.rows[c], &mut self.cols[c]), words, (x, y), on);
            }
        }
    }
}

/// Sets (`on`) or clears padded cell `(x, y)`'s bit in a plane laid out in rows
/// (`row_words` words a row, bit `x % 64` of word `y * row_words + x / 64`) and in its
/// transposed copy in columns (`col_words` a column): the layout of [`Planes`], which the
/// subgoal graph's stop bits share.
pub(crate) fn set_cell_bit(
    (rows, cols): (&mut [u64], &mut [u64]),
    (row_words, col_words): (usize, usize),
    (x, y): (usize, usize),
    on: bool,
) {
    let (r, rb) = (y * row_words + x / 64, 1u64 << (x % 64));
    let (c, cb) = (x * col_words + y / 64, 1u64 << (y % 64));
    if on {
        rows[r] |= rb;
        cols[c] |= cb;
    } else {
        rows[r] &= !rb;
        cols[c] &= !cb;
    }
}

impl fmt::Debug for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Small grids print their cells (as a Moving AI map) so failing tests show the map.
        if self.len() <= 64 * 64 {
            // The map format holds no fences: their sides are listed after it.
            write!(f, "Grid {{ revision: {} }}\n{}", self.revision, crate::formats::write_movingai(self))?;
            if self.has_fences() {
                let fenced = self.positions().flat_map(|p| {
                    [Pos::new(p.x + 1, p.y), Pos::new(p.x, p.y + 1)]
                        .into_iter()
                        .filter(move |&q| self.is_fenced(p, q))
                        .map(move |q| (p, q))
                });
                write!(f, "fences: {:?}", fenced.collect::<Vec<_>>())?;
            }
            Ok(())
        } else {
            f.debug_struct("Grid")
                .field("width", &self.width)
                .field("height", &self.height)
                .field("revision", &self.revision)
                .field("fence_count", &self.fence_count)
                .finish_non_exhaustive()
        }
    }
}

impl Grid {
    /// A `width` × `height` grid of plain floor.
    ///
    /// # Errors
    /// [`GridError::BadSize`] when a side is 0 or above [`MAX_SIDE`].
    pub fn new(width: u32, height: u32) -> Result<Self, GridError> {
        Self::filled(width, height, Tile::FLOOR)
    }

    /// A `width` × `height` grid with every cell set to `tile`.
    ///
    /// # Errors
    /// [`GridError::BadSize`] for a bad size, [`GridError::BadCost`] for a bad cost.
    pub fn filled(width: u32, height: u32, tile: Tile) -> Result<Self, GridError> {
        let mut grid = Self::unmasked(width, height, tile)?;
        grid.refresh_moves();
        Ok(grid)
    }

    /// [`GridError::BadSize`] unless `width` × `height` is an allowed grid size.
    pub(crate) fn check_size(width: u32, height: u32) -> Result<(), GridError> {
        if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
            return Err(GridError::BadSize { width: width.into(), height: height.into() });
        }
        Ok(())
    }

    /// [`Grid::filled`] without the derived data (move masks, forced and jump bits all zero):
    /// for parsers and generators that set their cells with [`Grid::set_tile_unmasked`] and
    /// then call [`Grid::refresh_moves`] once, so that the derived data is computed once.
    pub(crate) fn unmasked(width: u32, height: u32, tile: Tile) -> Result<Self, GridError> {
        Self::check_size(width, height)?;
        let byte = tile.encode()?;
        let stride = width as usize + 2;
        let mut cells = vec![0u8; stride * (height as usize + 2)];
        for y in 0..height as usize {
            let row = (y + 1) * stride;
            cells[row + 1..row + 1 + width as usize].fill(byte);
        }
        let mut cost_counts = [0; 64];
        cost_counts[usize::from(byte & 63)] = width * height;
        let mut planes = Planes::new(stride, height as usize + 2);
        for y in 1..=height as usize {
            for x in 1..=width as usize {
                planes.set(x, y, 0, byte >> 6);
            }
        }
        let len = cells.len();
        Ok(Self {
            id: next_grid_id(),
            width,
            height,
            stride,
            cells,
            cost_counts,
            revision: 0,
            planes,
            moves: vec![0; len],
            jumps: vec![0; len],
            clearance: vec![0; len],
            fences: Vec::new(),
            fence_count: 0,
        })
    }

    /// The clearance of padded cell `i`: the largest `k ≤ MAX_AGENT_SIZE` such that the
    /// `k` × `k` square with `i` at its top-left corner is all of `i`'s class (0 for a wall).
    /// Reads the square's cells themselves (at most 16), not the neighbours' clearance, so
    /// cells can be refreshed in any order.
    fn compute_clearance(&self, i: usize) -> u8 {
        let class = self.cells[i] >> 6;
        if class == 0 {
            return 0;
        }
        let same = |dx: usize, dy: usize| self.cells[i + dy * self.stride + dx] >> 6 == class;
        let mut k = 1;
        // Grow the square by its new column and row; the wall border stops it at the edge
        // before any read past the next row's first cell.
        while k < usize::from(MAX_AGENT_SIZE) && (0..=k).all(|d| same(k, d) && same(d, k)) {
            k += 1;
        }
        #[expect(clippy::cast_possible_truncation, reason = "at most MAX_AGENT_SIZE")]
        {
            k as u8
        }
    }

    /// Recomputes the clearance of the cells whose square can hold padded cell `(x, y)`.
    fn refresh_clearance_near(&mut self, x: usize, y: usize) {
        let reach = usize::from(MAX_AGENT_SIZE) - 1;
        for cy in y.saturating_sub(reach).max(1)..=y {
            for cx in x.saturating_sub(reach).max(1)..=x {
                let i = cy * self.stride + cx;
                self.clearance[i] = self.compute_clearance(i);
            }
        }
    }

    /// The clearance of `pos`: the size `k` (1 to [`MAX_AGENT_SIZE`]) of the largest agent
    /// whose `k` × `k` body fits with its top-left cell on `pos` — every cell of the square
    /// passable and of one terrain class; 0 for a wall or a cell off the grid.
    ///
    /// ```
    /// use gridpath::{Grid, Pos, Tile};
    /// let mut grid = Grid::new(5, 5).unwrap();
    /// assert_eq!(grid.clearance(Pos::new(0, 0)), 4, "capped at MAX_AGENT_SIZE");
    /// assert_eq!(grid.clearance(Pos::new(3, 3)), 2, "the map's edge");
    /// grid.set_tile(Pos::new(2, 2), Tile::Wall).unwrap();
    /// assert_eq!(grid.clearance(Pos::new(0, 0)), 2);
    /// assert_eq!(grid.clearance(Pos::new(2, 2)), 0);
    /// ```
    #[must_use]
    pub fn clearance(&self, pos: Pos) -> u8 {
        if self.in_bounds(pos) { self.clearance[self.index(pos)] } else { 0 }
    }

    /// The grid an agent of `agent_size` × `agent_size` cells moves on, anchored at its body's
    /// top-left cell: every cell whose [`Grid::clearance`] is below `agent_size` becomes a
    /// wall, the others keep their tile (so a step costs what entering the anchor cell costs).
    /// A move on it keeps the whole body on passable cells of one class: a cardinal step's two
    /// squares overlap in all but one row or column of the anchors' squares, and a diagonal
    /// under [`Corners::Forbid`] also needs its two orthogonal anchors, whose squares cover
    /// what the body sweeps. Every search and flow field runs on it for agents above size 1.
    ///
    /// With fences ([`Grid::set_fence`]) a body never stands across one: an anchor whose
    /// square has a fence between two of its cells is a wall too, and an anchor's step is
    /// blocked where a step of one of its square's cells is.
    #[must_use]
    pub fn for_agent_size(&self, agent_size: u8) -> Grid {
        if agent_size <= 1 {
            return self.clone();
        }
        let mut sized = Grid::unmasked(self.width, self.height, Tile::Wall).unwrap_or_else(|_| self.clone());
        for pos in self.positions() {
            let i = self.index(pos);
            if self.clearance[i] >= agent_size && !self.fence_inside(i, usize::from(agent_size)) {
                // Same cell byte, so always a valid tile.
                let _ = sized.set_tile_unmasked(pos, Tile::decode(self.cells[i]));
            }
        }
        if self.has_fences() {
            sized.fences_for_bodies(self, usize::from(agent_size));
        }
        sized.refresh_moves();
        sized.revision = self.revision;
        sized
    }

    /// The fence masks of [`Grid::for_agent_size`]'s grid, from `grid`'s: a body's step in a
    /// direction crosses a fence or passes a post exactly when one of its `k` × `k` cells' steps
    /// that way does, so an anchor's mask is the union of its square's masks. (Under
    /// [`Corners::Forbid`] the walls of squares with a fence inside already block these steps;
    /// under the corner-cutting rules a diagonal's side anchors may be walls, and a body's
    /// corner cell could pass a post on no square's inside.)
    fn fences_for_bodies(&mut self, grid: &Grid, k: usize) {
        self.fences = vec![0; self.cells.len()];
        self.fence_count = 0;
        for y in 1..=self.height as usize {
            for x in 1..=self.width as usize {
                let i = y * self.stride + x;
                if self.cells[i] == 0 {
                    continue;
                }
                let mut mask = 0;
                for dy in 0..k {
                    for dx in 0..k {
                        mask |= grid.fences[i + dy * grid.stride + dx];
                    }
                }
                self.fences[i] = mask;
            }
        }
        // The masks are symmetric: the cells of a step's two anchors' squares cross the same
        // sides and pass the same posts. Counted as the anchors' fenced sides, each once (its
        // east and south); a grid may have blocked diagonals and no fenced side.
        self.fence_count = self.fences.iter().map(|&f| u32::from(f >> 1 & 1) + u32::from(f >> 2 & 1)).sum();
        if self.fences.iter().all(|&f| f == 0) {
            self.fences = Vec::new();
        }
    }

    /// This grid's id (see the field).
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// Recomputes the move mask of padded cell `i`.
    fn update_moves(&mut self, i: usize) {
        let class = self.cells[i] >> 6;
        self.moves[i] = if class == 0 {
            0 // walls and the border (whose neighbours may lie outside the array)
        } else {
            #[expect(clippy::cast_possible_truncation, reason = "an 8-bit mask")]
            {
                crate::search::legal_octile_moves(&self.cells, i, self.stride.cast_signed(), class) as u8
            }
        } & !self.fences.get(i).copied().unwrap_or(0);
        self.jumps[i] = (self.jumps[i] & 0x0f) | (self.moves[i] & 0xf0);
    }

    /// Recomputes the straight-jump bits (bits 0–3 of `jumps`) of every cell on padded row
    /// `line` (`row`: east and west) or padded column `line` (south and north), from the bit
    /// planes, 64 cells at a time ([`hit_words`]).
    fn refresh_jump_line(&mut self, row: bool, line: usize) {
        let planes = &self.planes;
        let (wpl, count) =
            if row { (planes.row_words, self.height as usize + 2) } else { (planes.col_words, self.stride) };
        if line >= count {
            return;
        }
        let words = line * wpl..(line + 1) * wpl;
        // Per word: the cells (of any class) whose scans towards higher / lower indices find a
        // jump point. The classes' open cells are disjoint, so their hits can be merged.
        let (mut up, mut down) = ([0u64; LINE_WORDS], [0u64; LINE_WORDS]);
        for c in 0..3 {
            let lines = planes.lines(row, c);
            let open = &lines.open[words.clone()];
            if open.iter().all(|&w| w == 0) {
                continue;
            }
            let rough = &lines.rough[words.clone()];
            if rough.iter().all(|&w| w == 0) {
                hit_words::<true>(open, &lines.fwd[words.clone()], &mut up[..wpl]);
                hit_words::<false>(open, &lines.bwd[words.clone()], &mut down[..wpl]);
            } else {
                // On terrain costs JPS's scans stop at rough cells too: they count as forced.
                let (mut fwd, mut bwd) = ([0u64; LINE_WORDS], [0u64; LINE_WORDS]);
                for (k, w) in words.clone().enumerate() {
                    fwd[k] = lines.fwd[w] | rough[k] & open[k];
                    bwd[k] = lines.bwd[w] | rough[k] & open[k];
                }
                hit_words::<true>(open, &fwd[..wpl], &mut up[..wpl]);
                hit_words::<false>(open, &bwd[..wpl], &mut down[..wpl]);
            }
        }
        // Bits of `jumps`: N, E, S, W are 0 to 3 in `DIRS`; rows scan E (up) and W (down),
        // columns S (up) and N (down).
        let (up_bit, down_bit, first, step, len) = if row {
            (1, 3, line * self.stride, 1, self.stride)
        } else {
            (2, 0, line, self.stride, self.height as usize + 2)
        };
        for p in 0..len {
            let j = &mut self.jumps[first + p * step];
            let (u, d) = (up[p / 64] >> (p % 64) & 1, down[p / 64] >> (p % 64) & 1);
            #[expect(clippy::cast_possible_truncation, reason = "single bits")]
            {
                *j = (*j & !(1 << up_bit | 1 << down_bit)) | (u as u8) << up_bit | (d as u8) << down_bit;
            }
        }
    }

    /// Number of columns.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Number of rows.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Number of cells, `width * height`.
    #[must_use]
    pub fn len(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Always `false`: a grid has at least one cell.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// A counter that grows on every change of a cell's content, for change detection.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// `true` when `pos` lies on the grid.
    #[must_use]
    pub fn in_bounds(&self, pos: Pos) -> bool {
        pos.x < self.width && pos.y < self.height
    }

    /// The tile at `pos`, or `None` outside the grid.
    #[must_use]
    pub fn tile(&self, pos: Pos) -> Option<Tile> {
        self.in_bounds(pos).then(|| Tile::decode(self.cells[self.index(pos)]))
    }

    /// `true` when `pos` is on the grid and not a wall.
    #[must_use]
    pub fn is_passable(&self, pos: Pos) -> bool {
        self.in_bounds(pos) && self.cells[self.index(pos)] != 0
    }

    /// Sets one cell. Returns the previous tile.
    ///
    /// Keeps the derived data in step: the move masks of the cell and its neighbours, the bit
    /// planes and their forced-neighbour bits next to the cell, and the jump bits of the three
    /// rows and three columns through the cell and its sides (one pass of 64 cells at a time
    /// per line).
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] or [`GridError::BadCost`]; the grid is unchanged then.
    pub fn set_tile(&mut self, pos: Pos, tile: Tile) -> Result<Tile, GridError> {
        let (old, new) = self.set_cell(pos, tile)?;
        if old != new {
            let (x, y) = (pos.x as usize + 1, pos.y as usize + 1);
            // A new cost changes the rough bits of the cell and its neighbours, and so the jump
            // bits of their lines, as a new class does.
            self.refresh_rough_near(x, y);
            if old >> 6 != new >> 6 {
                self.refresh_near(x, y, old >> 6, new >> 6);
            }
            for l in [y - 1, y, y + 1] {
                self.refresh_jump_line(true, l);
            }
            for l in [x - 1, x, x + 1] {
                self.refresh_jump_line(false, l);
            }
        }
        Ok(Tile::decode(old))
    }

    /// Sets many cells, as [`Grid::set_tile`] on each in turn, but brings the derived data in
    /// step once: each row and column's jump bits are recomputed once however many of its
    /// cells changed, and when a large part of the map changed everything is recomputed in
    /// one pass, as loading does. For bulk edits (clearing every wall, a large brush), where
    /// `set_tile` per cell would recompute the same lines over and over. Returns the number of
    /// cells that changed.
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] or [`GridError::BadCost`] for the first bad edit; every edit
    /// is checked first, so the grid is unchanged then.
    pub fn set_tiles(&mut self, edits: &[(Pos, Tile)]) -> Result<usize, GridError> {
        for &(pos, tile) in edits {
            if !self.in_bounds(pos) {
                return Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
            }
            tile.encode()?;
        }
        let mut changed = 0;
        // Padded coordinates and old and new classes of the cells whose class changed.
        let mut moved = Vec::new();
        // Padded coordinates of the cells whose byte (class or cost) changed: their rough bits
        // and jump lines.
        let mut rough = Vec::new();
        for &(pos, tile) in edits {
            let (old, new) = self.set_cell(pos, tile)?;
            changed += usize::from(old != new);
            if old != new {
                rough.push((pos.x as usize + 1, pos.y as usize + 1));
            }
            if old >> 6 != new >> 6 {
                moved.push((pos.x as usize + 1, pos.y as usize + 1, old >> 6, new >> 6));
            }
        }
        // Past an eighth of the map, one full pass costs less than the edits' neighbourhoods.
        if moved.len() * 8 > self.len() || rough.len() * 8 > self.len() {
            self.refresh_moves();
            return Ok(changed);
        }
        let (mut rows, mut cols) = (vec![false; self.height as usize + 2], vec![false; self.stride]);
        for (x, y) in rough {
            self.refresh_rough_near(x, y);
            rows[y - 1..=y + 1].fill(true);
            cols[x - 1..=x + 1].fill(true);
        }
        for &(x, y, old, new) in &moved {
            self.refresh_near(x, y, old, new);
        }
        for (l, _) in rows.into_iter().enumerate().filter(|&(_, r)| r) {
            self.refresh_jump_line(true, l);
        }
        for (l, _) in cols.into_iter().enumerate().filter(|&(_, c)| c) {
            self.refresh_jump_line(false, l);
        }
        Ok(changed)
    }

    /// [`Grid::set_tile`] without updating the move masks, forced-neighbour bits and jump bits:
    /// for parsers that set every cell and then call [`Grid::refresh_moves`] once.
    pub(crate) fn set_tile_unmasked(&mut self, pos: Pos, tile: Tile) -> Result<Tile, GridError> {
        self.set_cell(pos, tile).map(|(old, _)| Tile::decode(old))
    }

    /// Recomputes every move mask, forced-neighbour bit and jump bit (after
    /// [`Grid::set_tile_unmasked`]).
    pub(crate) fn refresh_moves(&mut self) {
        self.planes.refresh_forced();
        for y in 1..=self.height as usize {
            for x in 1..=self.width as usize {
                self.update_moves(y * self.stride + x);
            }
        }
        self.refresh_clearance();
        // The jump bits stop at rough cells: these first.
        self.refresh_rough();
        self.refresh_jump_bits();
    }

    /// Whether padded cell `i` is rough ([`Planes::rough_rows`]): open, with a cell of its
    /// class and another cost among its eight neighbours, or a fence on a side of a cell of its
    /// 3 × 3 neighbourhood.
    fn compute_rough(&self, i: usize) -> bool {
        let byte = self.cells[i];
        let class = byte >> 6;
        class != 0
            && [-1, 0, 1].iter().any(|&dy| {
                [-1, 0, 1].iter().any(|&dx| {
                    let j = i.wrapping_add_signed(self.offset(dx, dy));
                    let n = self.cells[j];
                    (n >> 6 == class && n != byte) || self.fences.get(j).is_some_and(|&f| f != 0)
                })
            })
    }

    /// Recomputes the rough bits of padded cell `(x, y)` and its eight neighbours (a cell's
    /// byte decides its own bit and its neighbours').
    fn refresh_rough_near(&mut self, x: usize, y: usize) {
        for ny in y - 1..=y + 1 {
            for nx in x - 1..=x + 1 {
                // The border stays 0 (walls), and its neighbours may lie outside the array.
                if (1..=self.width as usize).contains(&nx) && (1..=self.height as usize).contains(&ny) {
                    let rough = self.compute_rough(ny * self.stride + nx);
                    self.planes.set_rough(nx, ny, rough);
                }
            }
        }
    }

    /// Recomputes every rough bit (none on a grid of uniform cost).
    fn refresh_rough(&mut self) {
        self.planes.rough_rows.fill(0);
        self.planes.rough_cols.fill(0);
        if self.has_uniform_cost() && !self.has_fences() {
            return;
        }
        for y in 1..=self.height as usize {
            for x in 1..=self.width as usize {
                if self.compute_rough(y * self.stride + x) {
                    self.planes.set_rough(x, y, true);
                }
            }
        }
    }

    /// Recomputes every cell's [`Grid::clearance`] (edits keep it in step, and building or
    /// loading a grid computes it once). Public so that a benchmark can time this
    /// preprocessing on its own, as [`Grid::refresh_jump_bits`].
    pub fn refresh_clearance(&mut self) {
        for y in 1..=self.height as usize {
            for x in 1..=self.width as usize {
                self.clearance[y * self.stride + x] = self.compute_clearance(y * self.stride + x);
            }
        }
    }

    /// Recomputes every cell's jump bits (see [`Grid::set_tile`]: edits keep them in step, and
    /// building or loading a grid computes them once). Public so that a benchmark can time this
    /// preprocessing on its own.
    pub fn refresh_jump_bits(&mut self) {
        for y in 1..=self.height as usize {
            self.refresh_jump_line(true, y);
        }
        for x in 1..=self.width as usize {
            self.refresh_jump_line(false, x);
        }
    }

    /// Sets the cell's byte, its cost count, its bits in the planes and the revision; returns
    /// the old and the new byte. The derived data (masks, forced and jump bits) is the
    /// caller's.
    fn set_cell(&mut self, pos: Pos, tile: Tile) -> Result<(u8, u8), GridError> {
        if !self.in_bounds(pos) {
            return Err(GridError::OutOfBounds { pos, width: self.width, height: self.height });
        }
        let byte = tile.encode()?;
        let i = self.index(pos);
        let old = self.cells[i];
        if old != byte {
            self.cost_counts[usize::from(old & 63)] -= 1;
            self.cost_counts[usize::from(byte & 63)] += 1;
            self.cells[i] = byte;
            self.planes.set(pos.x as usize + 1, pos.y as usize + 1, old >> 6, byte >> 6);
            self.revision += 1;
        }
        Ok((old, byte))
    }

    /// After padded cell `(x, y)` changed from class `old` to `new` (the planes already
    /// changed): the forced-neighbour bits next to and on it, and the move masks of the cell
    /// and its eight neighbours (the class decides them). Not the jump bits: their lines are
    /// the caller's, to recompute once per line.
    fn refresh_near(&mut self, x: usize, y: usize, old: u8, new: u8) {
        self.planes.refresh_forced_near(x, y, old);
        self.planes.refresh_forced_near(x, y, new);
        let i = y * self.stride + x;
        for dy in [-1, 0, 1] {
            for dx in [-1, 0, 1] {
                self.update_moves(i.wrapping_add_signed(self.offset(dx, dy)));
            }
        }
        self.refresh_clearance_near(x, y);
    }

    /// Makes `pos` a wall (`true`) or plain floor (`false`).
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`].
    pub fn set_wall(&mut self, pos: Pos, wall: bool) -> Result<Tile, GridError> {
        self.set_tile(pos, if wall { Tile::Wall } else { Tile::FLOOR })
    }

    /// Sets every cell to `tile`. Fences stay: they stand between cells, not on them.
    ///
    /// # Errors
    /// [`GridError::BadCost`].
    pub fn fill(&mut self, tile: Tile) -> Result<(), GridError> {
        let mut filled = Self::unmasked(self.width, self.height, tile)?;
        filled.revision = self.revision + 1;
        filled.id = self.id;
        filled.fences = std::mem::take(&mut self.fences);
        filled.fence_count = self.fence_count;
        filled.refresh_moves();
        *self = filled;
        Ok(())
    }

    /// `true` when every passable cell costs 1 (required by BFS optimality; JPS then runs its
    /// uniform search, else the weighted one).
    #[must_use]
    pub fn has_uniform_cost(&self) -> bool {
        // The counts cover every cell once: uniform when walls and cost-1 cells are all of them
        // (one comparison, not 62; the smoother asks on every call).
        u64::from(self.cost_counts[0]) + u64::from(self.cost_counts[1])
            == u64::from(self.width) * u64::from(self.height)
    }

    /// The largest terrain cost of any passable cell (1 for an all-wall grid).
    #[must_use]
    pub fn max_cost(&self) -> u8 {
        #[expect(clippy::cast_possible_truncation, reason = "the index is below 64")]
        self.cost_counts.iter().rposition(|&n| n > 0).filter(|&c| c > 0).map_or(1, |c| c as u8)
    }

    /// Iterates over every position, row by row.
    pub fn positions(&self) -> impl Iterator<Item = Pos> + use<> {
        let (w, h) = (self.width, self.height);
        (0..h).flat_map(move |y| (0..w).map(move |x| Pos::new(x, y)))
    }

    /// `true` when a single step `from` → `to` is legal under `rules`: both on the grid, adjacent
    /// (a cardinal step, or a diagonal one with [`Moves::Eight`]), of the same terrain class, and
    /// obeying the corner rule.
    #[must_use]
    pub fn can_step(&self, from: Pos, to: Pos, rules: Rules) -> bool {
        if !self.in_bounds(from) || !self.in_bounds(to) {
            return false;
        }
        let dx = i64::from(to.x) - i64::from(from.x);
        let dy = i64::from(to.y) - i64::from(from.y);
        if dx.abs() > 1 || dy.abs() > 1 || (dx == 0 && dy == 0) {
            return false;
        }
        let class = self.class_at(self.index(from));
        if class == 0 {
            return false;
        }
        let i = self.index(from);
        #[expect(clippy::cast_possible_truncation, reason = "dx, dy are in -1..=1")]
        let d = self.offset(dx as i32, dy as i32);
        if self.class_at(i.wrapping_add_signed(d)) != class {
            return false;
        }
        #[expect(clippy::cast_possible_truncation, reason = "dx, dy are in -1..=1")]
        if self.fence_blocks(i, dir_index(dx as i32, dy as i32)) {
            return false;
        }
        if dx == 0 || dy == 0 {
            return true;
        }
        if rules.moves == Moves::Four {
            return false;
        }
        #[expect(clippy::cast_possible_truncation, reason = "dx, dy are in -1..=1")]
        let (a, b) = (
            self.class_at(i.wrapping_add_signed(self.offset(dx as i32, 0))) == class,
            self.class_at(i.wrapping_add_signed(self.offset(0, dy as i32))) == class,
        );
        match rules.corners {
            Corners::Forbid => a && b,
            Corners::AllowOne => a || b,
            Corners::Allow => true,
        }
    }

    /// The cost of the step `from` → `to` (1 or √2 times the cost of `to`), or `None` when the
    /// step is illegal under `rules`.
    #[must_use]
    pub fn step_cost(&self, from: Pos, to: Pos, rules: Rules) -> Option<f64> {
        if !self.can_step(from, to, rules) {
            return None;
        }
        let base = if from.x != to.x && from.y != to.y { SQRT2 } else { 1.0 };
        Some(base * f64::from(self.cells[self.index(to)] & 63))
    }

    /// Checks a path cell by cell under `rules` and returns its cost.
    ///
    /// # Errors
    /// [`IllegalStep`] naming the first bad step (or an empty path).
    pub fn path_cost(&self, path: &[Pos], rules: Rules) -> Result<f64, IllegalStep> {
        let Some(first) = path.first() else {
            return Err(IllegalStep { index: 0, from: None, to: Pos::default() });
        };
        if !self.is_passable(*first) {
            return Err(IllegalStep { index: 0, from: None, to: *first });
        }
        let mut cost = 0.0;
        for (i, w) in path.windows(2).enumerate() {
            cost += self.step_cost(w[0], w[1], rules).ok_or(IllegalStep {
                index: i + 1,
                from: Some(w[0]),
                to: w[1],
            })?;
        }
        Ok(cost)
    }

    /// `true` when a fence stands anywhere on the grid ([`Grid::set_fence`]), or, on
    /// [`Grid::for_agent_size`]'s grid, when a body's step is blocked by one.
    #[must_use]
    pub fn has_fences(&self) -> bool {
        !self.fences.is_empty()
    }

    /// How many cell sides are fenced.
    #[must_use]
    pub fn fence_count(&self) -> u32 {
        self.fence_count
    }

    /// `true` when a fence stands between the side-by-side cells `a` and `b` (`false` for
    /// cells that are not side by side or not on the grid).
    #[must_use]
    pub fn is_fenced(&self, a: Pos, b: Pos) -> bool {
        self.side_between(a, b).is_ok_and(|(i, k)| self.fence_blocks(i, k))
    }

    /// Puts up (`true`) or takes down a fence between the side-by-side cells `a` and `b`:
    /// every step across that side is illegal while it stands, and so is every diagonal step
    /// through either end of it (the corner a fence ends at is its post), whatever the cells
    /// hold and under every [`Rules`]. The cells keep their tiles: a unit can walk along a
    /// fence on either side, not across — a cliff edge between two walkable tiles, as the
    /// 2007 `octile-corner` maps have them.
    ///
    /// No map format stores fences (the writers in [`crate::formats`] write the cells alone;
    /// `gridpath convert` refuses a fenced map): they come from the `octile-corner` reader or
    /// from code.
    ///
    /// Returns whether the side was fenced before. Fences are made at load time, not per
    /// frame: the grid's derived data (move masks, rough and jump bits) is recomputed whole,
    /// as after loading; [`Grid::set_fences`] puts up many for the price of one.
    ///
    /// # Errors
    /// [`GridError::OutOfBounds`] or [`GridError::NotSideBySide`]; the grid is unchanged then.
    pub fn set_fence(&mut self, a: Pos, b: Pos, fenced: bool) -> Result<bool, GridError> {
        let was = self.is_fenced(a, b);
        self.set_fences(&[(a, b, fenced)])?;
        Ok(was)
    }

    /// [`Grid::set_fence`] for many sides, with one refresh of the derived data, in order.
    /// Returns how many of the edits changed a side (a side put up and taken down in one batch
    /// counts twice).
    ///
    /// # Errors
    /// As [`Grid::set_fence`] for the first bad pair; every pair is checked first, so the grid
    /// is unchanged then.
    pub fn set_fences(&mut self, edits: &[(Pos, Pos, bool)]) -> Result<usize, GridError> {
        let sides = edits
            .iter()
            .map(|&(a, b, fenced)| self.side_between(a, b).map(|side| (side, fenced)))
            .collect::<Result<Vec<_>, _>>()?;
        if self.fences.is_empty() {
            if sides.iter().all(|&(_, fenced)| !fenced) {
                return Ok(0);
            }
            self.fences = vec![0; self.cells.len()];
        }
        let mut changed = 0;
        for ((i, k), fenced) in sides {
            if self.fence_blocks(i, k) == fenced {
                continue;
            }
            changed += 1;
            let j = i.wrapping_add_signed(self.offset(DIRS[k].0, DIRS[k].1));
            // The side seen from the other cell: the opposite direction.
            let back = (k + 2) % 4;
            if fenced {
                self.fences[i] |= 1 << k;
                self.fences[j] |= 1 << back;
                self.fence_count += 1;
            } else {
                self.fences[i] &= !(1 << k);
                self.fences[j] &= !(1 << back);
                self.fence_count -= 1;
            }
        }
        if changed > 0 {
            self.refresh_fence_diagonals();
            if self.fence_count == 0 {
                self.fences = Vec::new();
            }
            self.revision += 1;
            self.refresh_moves();
        }
        Ok(changed)
    }

    /// The padded index of `a` and the direction (0..4, into [`DIRS`]) of its side towards `b`.
    fn side_between(&self, a: Pos, b: Pos) -> Result<(usize, usize), GridError> {
        for p in [a, b] {
            if !self.in_bounds(p) {
                return Err(GridError::OutOfBounds { pos: p, width: self.width, height: self.height });
            }
        }
        let dx = i64::from(b.x) - i64::from(a.x);
        let dy = i64::from(b.y) - i64::from(a.y);
        if dx.abs() + dy.abs() != 1 {
            return Err(GridError::NotSideBySide { a, b });
        }
        #[expect(clippy::cast_possible_truncation, reason = "dx, dy are in -1..=1")]
        Ok((self.index(a), dir_index(dx as i32, dy as i32)))
    }

    /// Whether the `k` × `k` square with padded cell `i` at its top-left corner has a fence
    /// between two of its cells (an east side short of its last column, a south side short of
    /// its last row).
    fn fence_inside(&self, i: usize, k: usize) -> bool {
        if self.fences.is_empty() {
            return false;
        }
        (0..k).any(|dy| {
            (0..k).any(|dx| {
                let f = self.fences[i + dy * self.stride + dx];
                (dx + 1 < k && f & 2 != 0) || (dy + 1 < k && f & 4 != 0)
            })
        })
    }

    /// Sets every cell's diagonal fence bits from the cardinal ones: a diagonal is blocked when
    /// any of the four sides meeting at its corner is fenced.
    fn refresh_fence_diagonals(&mut self) {
        if self.fences.is_empty() {
            return;
        }
        let s = self.stride.cast_signed();
        for y in 1..=self.height as usize {
            for x in 1..=self.width as usize {
                let i = y * self.stride + x;
                let card = |j: usize, k: usize| self.fences[j] >> k & 1;
                let mut mask = self.fences[i] & 0x0f;
                for (k, &(dx, dy)) in DIRS.iter().enumerate().skip(4) {
                    // The corner's four sides: the cell's two towards it, and the two the
                    // neighbours across those have towards it.
                    let (kx, ky) = (dir_index(dx, 0), dir_index(0, dy));
                    let beside_x = i.wrapping_add_signed(dx as isize);
                    let beside_y = i.wrapping_add_signed(dy as isize * s);
                    if card(i, kx) | card(i, ky) | card(beside_y, kx) | card(beside_x, ky) == 1 {
                        mask |= 1 << k;
                    }
                }
                self.fences[i] = mask;
            }
        }
    }

    /// Whether the step from padded cell `i` in direction `k` crosses a fence.
    #[inline]
    pub(crate) fn fence_blocks(&self, i: usize, k: usize) -> bool {
        self.fences.get(i).is_some_and(|&f| f >> k & 1 == 1)
    }

    /// The per-cell fence masks (see the field `fences`); empty when the grid has no fence.
    #[inline]
    pub(crate) fn fence_masks(&self) -> &[u8] {
        &self.fences
    }

    // ---- internals shared with the searches ----

    #[inline]
    pub(crate) fn index(&self, pos: Pos) -> usize {
        (pos.y as usize + 1) * self.stride + pos.x as usize + 1
    }

    #[inline]
    pub(crate) fn pos_of(&self, index: usize) -> Pos {
        #[expect(clippy::cast_possible_truncation, reason = "sides are at most 8192")]
        Pos::new((index % self.stride) as u32 - 1, (index / self.stride) as u32 - 1)
    }

    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// Size of the padded cell array (search workspaces are indexed like it).
    #[inline]
    pub(crate) fn padded_len(&self) -> usize {
        self.cells.len()
    }

    #[inline]
    pub(crate) fn offset(&self, dx: i32, dy: i32) -> isize {
        dy as isize * self.stride.cast_signed() + dx as isize
    }

    /// The class of the cell at a padded index: 0 for walls and the border.
    #[inline]
    pub(crate) fn class_at(&self, index: usize) -> u8 {
        self.cells[index] >> 6
    }

    /// The [`Grid::clearance`] of the cell at a padded index.
    #[inline]
    pub(crate) fn clearance_at(&self, index: usize) -> u8 {
        self.clearance[index]
    }

    /// The cost of the cell at a padded index (0 for walls).
    #[inline]
    pub(crate) fn cost_at(&self, index: usize) -> u8 {
        self.cells[index] & 63
    }

    #[inline]
    pub(crate) fn cells(&self) -> &[u8] {
        &self.cells
    }

    /// The per-cell masks of legal octile moves (see the field `moves`).
    #[inline]
    pub(crate) fn octile_moves(&self) -> &[u8] {
        &self.moves
    }

    /// The per-cell straight-jump and diagonal-move bits (see the field `jumps`).
    pub(crate) fn jumps(&self) -> &[u8] {
        &self.jumps
    }

    #[inline]
    pub(crate) fn planes(&self) -> &Planes {
        &self.planes
    }
}

/// A step of a path that is not legal under the rules it was checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal step #{index}: {} -> {to}", from.map_or_else(|| "start".to_string(), |p| p.to_string()))]
pub struct IllegalStep {
    /// Index in the path of the cell the bad step enters.
    pub index: usize,
    /// Where the step starts (`None` for a bad first cell or an empty path).
    pub from: Option<Pos>,
    /// Where the step ends.
    pub to: Pos,
}

/// Precomputed neighbour table for one grid and rule set: for each of the 8 directions its
/// padded-index offset, base length and the two orthogonal offsets a diagonal checks.
#[derive(Clone, Copy)]
pub(crate) struct Neighbours {
    pub(crate) count: usize,
    pub(crate) offset: [isize; 8],
    pub(crate) base: [f64; 8],
    pub(crate) side: [(isize, isize); 8],
    pub(crate) corners: Corners,
}

impl Neighbours {
    pub(crate) fn new(grid: &Grid, rules: Rules) -> Self {
        let mut n = Neighbours {
            count: if rules.moves == Moves::Four { 4 } else { 8 },
            offset: [0; 8],
            base: [1.0; 8],
            side: [(0, 0); 8],
            corners: rules.corners,
        };
        for (k, &(dx, dy)) in DIRS.iter().enumerate() {
            n.offset[k] = grid.offset(dx, dy);
            if dx != 0 && dy != 0 {
                n.base[k] = SQRT2;
                n.side[k] = (grid.offset(dx, 0), grid.offset(0, dy));
            }
        }
        n
    }

    /// Is direction `k` from padded index `i` legal for a mover of `class`? `fences`: the
    /// grid's fence masks ([`Grid::fence_masks`], empty without fences).
    #[inline(always)]
    pub(crate) fn legal(&self, cells: &[u8], fences: &[u8], i: usize, k: usize, class: u8) -> bool {
        let j = i.wrapping_add_signed(self.offset[k]);
        if cells[j] >> 6 != class {
            return false;
        }
        if !fences.is_empty() && fences[i] >> k & 1 == 1 {
            return false;
        }
        if k < 4 {
            return true;
        }
        let (a, b) = self.side[k];
        let a = cells[i.wrapping_add_signed(a)] >> 6 == class;
        let b = cells[i.wrapping_add_signed(b)] >> 6 == class;
        match self.corners {
            Corners::Forbid => a && b,
            Corners::AllowOne => a || b,
            Corners::Allow => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bulk edits leave exactly the grid that the same edits one by one leave (cells, masks,
    /// planes, forced and jump bits, revision), for small batches (per-line refresh) and large
    /// ones (the full pass), and a batch with a bad edit changes nothing.
    #[test]
    fn set_tiles_equals_set_tile_one_by_one() {
        let tiles = [Tile::Wall, Tile::FLOOR, Tile::Water { cost: 1 }, Tile::Ground { cost: 4 }];
        let mut state = 11u64;
        let mut next = || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as u32
        };
        for (width, height) in [(3, 2), (67, 65), (130, 70)] {
            let (mut bulk, mut single) =
                (Grid::new(width, height).unwrap(), Grid::new(width, height).unwrap());
            for batch in [1, 5, 40, 400, 4000, 20] {
                let edits: Vec<(Pos, Tile)> = (0..batch)
                    .map(|_| {
                        let pos = Pos::new(next() % width, next() % height);
                        (pos, tiles[next() as usize % tiles.len()])
                    })
                    .collect();
                let changed = bulk.set_tiles(&edits).unwrap();
                let mut want = 0;
                for &(pos, tile) in &edits {
                    want += usize::from(single.set_tile(pos, tile).unwrap() != tile);
                }
                assert_eq!(bulk, single, "{width}x{height}, a batch of {batch}");
                assert_eq!(changed, want, "cells changed");
            }
            let before = bulk.clone();
            let bad = [(Pos::new(0, 0), Tile::Wall), (Pos::new(width, 0), Tile::Wall)];
            assert!(matches!(bulk.set_tiles(&bad), Err(GridError::OutOfBounds { .. })));
            let bad = [(Pos::new(0, 0), Tile::Wall), (Pos::new(0, 0), Tile::Water { cost: 0 })];
            assert!(matches!(bulk.set_tiles(&bad), Err(GridError::BadCost { .. })));
            assert_eq!(bulk, before, "a batch with a bad edit changes nothing");
        }
    }

    #[test]
    fn move_masks_follow_random_edits() {
        let mut grid = Grid::new(67, 65).unwrap();
        let mut state = 5u64;
        for step in 0..6000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let pos = Pos::new(((state >> 20) % 67) as u32, ((state >> 40) % 65) as u32);
            let tile = match (state >> 60) % 4 {
                0 => Tile::Wall,
                1 => Tile::Water { cost: 1 },
                2 => Tile::Ground { cost: 4 },
                _ => Tile::FLOOR,
            };
            grid.set_tile(pos, tile).unwrap();
            if step % 500 == 0 || step == 5999 {
                let s = grid.stride().cast_signed();
                for p in grid.positions() {
                    let i = grid.index(p);
                    let class = grid.class_at(i);
                    let want = if class == 0 {
                        0
                    } else {
                        crate::search::legal_octile_moves(&grid.cells, i, s, class)
                    };
                    assert_eq!(
                        u32::from(grid.octile_moves()[i]),
                        want,
                        "move mask at {p} after {step} edits"
                    );
                }
            }
        }
        // Parsers set cells without the masks and compute them once at the end.
        let text = "type octile\nheight 4\nwidth 5\nmap\n..@..\n.@@WW\n..@WW\n@T...\n";
        let map = crate::formats::parse_map_bytes(text.as_bytes()).unwrap().grid;
        let tpmap = "tilepath 1\nwidth 5\nheight 4\nmap\n..#..\n.##~~\n..#~~\n#T...\n";
        let saved = crate::formats::parse_tilepath(tpmap).unwrap().grid;
        for (map, format) in [(&map, "Moving AI"), (&saved, "tpmap")] {
            let s = map.stride().cast_signed();
            for p in map.positions() {
                let i = map.index(p);
                let class = map.class_at(i);
                let want =
                    if class == 0 { 0 } else { crate::search::legal_octile_moves(&map.cells, i, s, class) };
                assert_eq!(u32::from(map.octile_moves()[i]), want, "parsed {format} map's move mask at {p}");
            }
        }
        assert_eq!(map.octile_moves()[map.index(Pos::new(3, 1))], 0b0010_0110, "water: E, S, SE");
        let filled = Grid::filled(5, 4, Tile::Water { cost: 1 }).unwrap();
        assert_eq!(filled.octile_moves()[filled.index(Pos::new(2, 2))], 0xff, "inner cell: every move");
        assert_eq!(filled.octile_moves()[filled.index(Pos::new(0, 0))], 0b0010_0110, "corner: E, S, SE");
    }
}
