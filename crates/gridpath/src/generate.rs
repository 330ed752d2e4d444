//! Seeded random maps: noise, mazes, rooms and caves.
//!
//! The generators draw from `ChaCha8` seeded with the given `u64`, so a seed gives the same map on
//! every machine and platform (within this version of gridpath and `rand_chacha`).
//!
//! ```
//! use gridpath::generate::{Generator, generate, pick_endpoints};
//! let grid = generate(Generator::Caves, 64, 48, 7).unwrap();
//! assert_eq!(grid, generate(Generator::Caves, 64, 48, 7).unwrap());
//! let (start, goal) = pick_endpoints(&grid).unwrap();
//! assert!(grid.is_passable(start) && grid.is_passable(goal));
//! ```

use std::collections::VecDeque;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::grid::{Grid, GridError, Pos, Tile};

/// A kind of random map, with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Generator {
    /// Every cell is a wall with probability `density`, independently (Moving AI's "random"
    /// maps). Not necessarily connected.
    Noise {
        /// Probability of a wall, `0.0..=1.0` (clamped; NaN counts as 0).
        density: f64,
    },
    /// A perfect maze (exactly one route between any two cells) from a randomised depth-first
    /// "recursive backtracker", with corridors `corridor` cells wide and walls one cell thick.
    Maze {
        /// Corridor width in cells (at least 1; 0 counts as 1). Shrunk to fit tiny grids.
        corridor: u32,
    },
    /// Rectangular rooms joined by one-cell corridors; every room is reachable.
    Rooms,
    /// Cave-like open areas from a cellular automaton (45 % walls, then five rounds of the 4–5
    /// rule); only the largest connected open area is kept.
    #[default]
    Caves,
}

impl Generator {
    /// Each kind with its default parameters, in menu order.
    pub const ALL: [Generator; 4] = [
        Generator::Noise { density: Generator::DEFAULT_DENSITY },
        Generator::Maze { corridor: Generator::DEFAULT_CORRIDOR },
        Generator::Rooms,
        Generator::Caves,
    ];
    /// The default wall density of [`Generator::Noise`]: 25 %, like Moving AI's `random512-25`.
    pub const DEFAULT_DENSITY: f64 = 0.25;
    /// The default corridor width of [`Generator::Maze`].
    pub const DEFAULT_CORRIDOR: u32 = 1;

    /// A short lower-case name: `noise`, `maze`, `rooms`, `caves`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Generator::Noise { .. } => "noise",
            Generator::Maze { .. } => "maze",
            Generator::Rooms => "rooms",
            Generator::Caves => "caves",
        }
    }

    /// The kind named `name` (as [`Generator::name`] gives it) with its default parameters.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.name().eq_ignore_ascii_case(name))
    }
}

/// Prints [`Generator::name`] (a generator has no separate label).
impl std::fmt::Display for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses [`Generator::name`] (ASCII case ignored) into the kind with its default parameters.
impl std::str::FromStr for Generator {
    type Err = crate::names::ParseNameError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::names::parse("generator", s, &Self::ALL, |g| (g.name(), g.name()), |_| &[])
    }
}

/// The kinds with their default parameters; the CLI sets the parameters from its own flags.
#[cfg(feature = "cli")]
impl clap::ValueEnum for Generator {
    fn value_variants<'a>() -> &'a [Self] {
        &Self::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

/// A `width` × `height` map of walls and plain floor made by `generator` from `seed`.
///
/// # Errors
/// [`GridError::BadSize`] when a side is 0 or above [`MAX_SIDE`](crate::MAX_SIDE).
pub fn generate(generator: Generator, width: u32, height: u32, seed: u64) -> Result<Grid, GridError> {
    // Validates the size before any work.
    Grid::check_size(width, height)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (w, h) = (width as usize, height as usize);
    let open = match generator {
        Generator::Noise { density } => noise(w, h, density, &mut rng),
        Generator::Maze { corridor } => maze(w, h, corridor.max(1) as usize, &mut rng),
        Generator::Rooms => rooms(w, h, &mut rng),
        Generator::Caves => caves(w, h, &mut rng),
    };
    let mut grid = Grid::unmasked(width, height, Tile::Wall)?;
    for (i, _) in open.iter().enumerate().filter(|(_, o)| **o) {
        // `i / w < height` and `i % w < width`: both fit u32 and lie on the grid.
        #[expect(clippy::cast_possible_truncation, reason = "below MAX_SIDE")]
        let p = Pos::new((i % w) as u32, (i / w) as u32);
        let _ = grid.set_tile_unmasked(p, Tile::FLOOR);
    }
    // Move masks and forced-neighbour bits in one pass, not nine masks per opened cell.
    grid.refresh_moves();
    Ok(grid)
}

fn noise(w: usize, h: usize, density: f64, rng: &mut ChaCha8Rng) -> Vec<bool> {
    let p = if density.is_nan() { 0.0 } else { density.clamp(0.0, 1.0) };
    (0..w * h).map(|_| !rng.random_bool(p)).collect()
}

/// Maze cells are `c`×`c` blocks on a lattice of pitch `c + 1` from the top-left corner; the
/// lines between them are walls, and the backtracker opens a `c`-cell gap between two blocks it
/// joins. Columns and rows left over at the right and bottom stay wall.
fn maze(w: usize, h: usize, corridor: usize, rng: &mut ChaCha8Rng) -> Vec<bool> {
    let c = corridor.min(w).min(h);
    let pitch = c + 1;
    // Blocks that fit: the last block needs c cells, the ones before it c + 1.
    let (nx, ny) = ((w - c) / pitch + 1, (h - c) / pitch + 1);
    let mut open = vec![false; w * h];
    let mut carve = |x0: usize, y0: usize, cw: usize, ch: usize| {
        for y in y0..y0 + ch {
            open[y * w + x0..y * w + x0 + cw].fill(true);
        }
    };
    let mut visited = vec![false; nx * ny];
    let first = rng.random_range(0..nx * ny);
    visited[first] = true;
    carve(first % nx * pitch, first / nx * pitch, c, c);
    let mut stack = vec![first];
    let mut choices = Vec::with_capacity(4);
    while let Some(&cell) = stack.last() {
        let (bx, by) = (cell % nx, cell / nx);
        choices.clear();
        if bx > 0 && !visited[cell - 1] {
            choices.push(cell - 1);
        }
        if bx + 1 < nx && !visited[cell + 1] {
            choices.push(cell + 1);
        }
        if by > 0 && !visited[cell - nx] {
            choices.push(cell - nx);
        }
        if by + 1 < ny && !visited[cell + nx] {
            choices.push(cell + nx);
        }
        if choices.is_empty() {
            stack.pop();
            continue;
        }
        let next = choices[rng.random_range(0..choices.len())];
        visited[next] = true;
        let (nbx, nby) = (next % nx, next / nx);
        carve(nbx * pitch, nby * pitch, c, c);
        // The wall line between the two blocks.
        if nby == by {
            carve(bx.min(nbx) * pitch + c, by * pitch, 1, c);
        } else {
            carve(bx * pitch, by.min(nby) * pitch + c, c, 1);
        }
        stack.push(next);
    }
    open
}

#[derive(Clone, Copy)]
struct Room {
    x: usize,
    y: usize,
    w: usize,
    h: usize,
}

impl Room {
    fn centre(self) -> (usize, usize) {
        (self.x + self.w / 2, self.y + self.h / 2)
    }

    /// Overlaps `other` grown by one cell on every side (rooms keep a wall between them).
    fn touches(self, other: Room) -> bool {
        self.x <= other.x + other.w
            && other.x <= self.x + self.w
            && self.y <= other.y + other.h
            && other.y <= self.y + self.h
    }
}

/// Rooms of 3–10 cells a side (smaller on small maps), placed at random without touching; each
/// new room is joined to the nearest earlier one by an L-shaped corridor, so all are connected.
fn rooms(w: usize, h: usize, rng: &mut ChaCha8Rng) -> Vec<bool> {
    let mut open = vec![false; w * h];
    // Tiny maps: one room, the whole grid.
    if w < 5 || h < 5 {
        open.fill(true);
        return open;
    }
    let max_side = |side: usize| (side - 2).clamp(3, 10);
    let target = (w * h / 60).clamp(1, 400);
    let mut placed: Vec<Room> = Vec::new();
    for _ in 0..target * 8 {
        if placed.len() == target {
            break;
        }
        let rw = rng.random_range(3..=max_side(w));
        let rh = rng.random_range(3..=max_side(h));
        // A one-cell wall margin at the map's edge.
        let room =
            Room { x: rng.random_range(1..=w - 1 - rw), y: rng.random_range(1..=h - 1 - rh), w: rw, h: rh };
        if placed.iter().any(|r| r.touches(room)) {
            continue;
        }
        for y in room.y..room.y + room.h {
            open[y * w + room.x..y * w + room.x + room.w].fill(true);
        }
        let (cx, cy) = room.centre();
        if let Some(near) = placed.iter().min_by_key(|r| {
            let (x, y) = r.centre();
            x.abs_diff(cx) + y.abs_diff(cy)
        }) {
            let (nx, ny) = near.centre();
            // Horizontal leg first or vertical first, at random, for variety.
            let (bend_x, bend_y) = if rng.random_bool(0.5) { (nx, cy) } else { (cx, ny) };
            dig_l(&mut open, w, (cx, cy), (bend_x, bend_y), (nx, ny));
        }
        placed.push(room);
    }
    open
}

/// Opens the straight corridors from `a` to `bend` and from `bend` to `b` (both axis-aligned).
fn dig_l(open: &mut [bool], w: usize, a: (usize, usize), bend: (usize, usize), b: (usize, usize)) {
    for (p, q) in [(a, bend), (bend, b)] {
        for y in p.1.min(q.1)..=p.1.max(q.1) {
            for x in p.0.min(q.0)..=p.0.max(q.0) {
                open[y * w + x] = true;
            }
        }
    }
}

/// The 4–5 cellular automaton: 45 % walls, then five rounds in which a cell becomes a wall when
/// at least five of its eight neighbours are (cells off the map count as walls) and stays a wall
/// with four; then only the largest 4-connected open area is kept.
fn caves(w: usize, h: usize, rng: &mut ChaCha8Rng) -> Vec<bool> {
    const FILL: f64 = 0.45;
    const ROUNDS: usize = 5;
    let mut wall: Vec<bool> = (0..w * h).map(|_| rng.random_bool(FILL)).collect();
    let mut next = wall.clone();
    for _ in 0..ROUNDS {
        for y in 0..h {
            for x in 0..w {
                let mut walls = 0;
                for dy in -1isize..=1 {
                    for dx in -1isize..=1 {
                        if dx == 0 && dy == 0 {
                            continue;
                        }
                        let inside = x
                            .checked_add_signed(dx)
                            .zip(y.checked_add_signed(dy))
                            .filter(|&(nx, ny)| nx < w && ny < h);
                        // Cells off the map count as walls, so caves close at the edges.
                        if inside.is_none_or(|(nx, ny)| wall[ny * w + nx]) {
                            walls += 1;
                        }
                    }
                }
                let i = y * w + x;
                next[i] = walls >= 5 || (wall[i] && walls >= 4);
            }
        }
        std::mem::swap(&mut wall, &mut next);
    }
    let mut open: Vec<bool> = wall.iter().map(|w| !w).collect();
    let classes: Vec<u8> = open.iter().map(|&o| u8::from(o)).collect();
    match largest_region(&classes, w, h) {
        Some(keep) => {
            for (o, k) in open.iter_mut().zip(keep) {
                *o = *o && k;
            }
        }
        // All walls (tiny maps): open the centre so there is somewhere to stand.
        None => open[h / 2 * w + w / 2] = true,
    }
    open
}

/// The cells of the largest 4-connected region of cells of one class (`class[i] != 0`; cells join
/// only cells of the same class), or `None` when every class is 0. Ties go to the region found
/// first in row-major order.
fn largest_region(class: &[u8], w: usize, h: usize) -> Option<Vec<bool>> {
    const UNSEEN: u32 = u32::MAX;
    // Region labels are the seed's index: below 8192² < u32::MAX.
    let mut region = vec![UNSEEN; w * h];
    let (mut best, mut best_size) = (None, 0);
    let mut queue = VecDeque::new();
    for seed in 0..w * h {
        let c = class[seed];
        if c == 0 || region[seed] != UNSEEN {
            continue;
        }
        #[expect(clippy::cast_possible_truncation, reason = "at most 8192 * 8192 cells")]
        let label = seed as u32;
        region[seed] = label;
        queue.push_back(seed);
        let mut size = 0;
        while let Some(i) = queue.pop_front() {
            size += 1;
            let (x, y) = (i % w, i / w);
            let mut visit = |j: usize| {
                if class[j] == c && region[j] == UNSEEN {
                    region[j] = label;
                    queue.push_back(j);
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < w {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - w);
            }
            if y + 1 < h {
                visit(i + w);
            }
        }
        if size > best_size {
            (best, best_size) = (Some(label), size);
        }
    }
    best.map(|b| region.iter().map(|r| *r == b).collect())
}

/// A start and goal for a map: within the largest 4-connected region of passable cells of one
/// terrain class, the cell nearest the top-left corner and the one nearest the bottom-right
/// corner (Manhattan distance; ties to the upper, then left, cell). Both lie in one region, so a
/// path joins them under every movement rule. `None` when no cell is passable; the two are the
/// same cell when the region has one.
#[must_use]
pub fn pick_endpoints(grid: &Grid) -> Option<(Pos, Pos)> {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    // Region by terrain class: classes never connect to each other.
    let class = |i: usize| {
        #[expect(clippy::cast_possible_truncation, reason = "below MAX_SIDE")]
        let p = Pos::new((i % w) as u32, (i / w) as u32);
        match grid.tile(p) {
            Some(Tile::Ground { .. }) => 1u8,
            Some(Tile::Water { .. }) => 2,
            Some(Tile::Trees { .. }) => 3,
            _ => 0,
        }
    };
    let classes: Vec<u8> = (0..w * h).map(class).collect();
    let region = largest_region(&classes, w, h)?;
    let cells = || region.iter().enumerate().filter(|(_, r)| **r).map(|(i, _)| (i % w, i / w));
    let start = cells().min_by_key(|&(x, y)| x + y)?;
    let goal = cells().min_by_key(|&(x, y)| (w - 1 - x) + (h - 1 - y))?;
    #[expect(clippy::cast_possible_truncation, reason = "below MAX_SIDE")]
    let pos = |(x, y): (usize, usize)| Pos::new(x as u32, y as u32);
    Some((pos(start), pos(goal)))
}
