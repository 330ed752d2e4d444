//! The peers of `gridpath bench --peers` and the criterion benches (feature `peers`, never
//! enabled by the game): the `pathfinding` crate driven the way its documentation suggests,
//! with a successor function obeying the same octile, no-corner-cutting, same-terrain-class
//! rules as gridpath, so its answers can be checked against the published optimum too.
//!
//! Node ids are row-major cell indices (`u32`), costs fixed-point integers ([`SCALE`] per unit;
//! the crate needs `Ord` costs).

use crate::{Grid, Pos, Tile};

/// Fixed-point scale for the peer's integer costs (it needs `Ord` costs).
pub const SCALE: f64 = 1_000_000.0;
const CARDINAL: u64 = 1_000_000;
// √2 rounded to 1e-6: over the longest benchmark paths the error stays far below 0.01.
const DIAGONAL: u64 = 1_414_214;

/// A plain row-major copy of the grid's terrain classes (0 = wall).
pub struct PeerGrid {
    width: i32,
    height: i32,
    class: Vec<u8>,
}

impl PeerGrid {
    /// Copies `grid`'s terrain classes.
    #[must_use]
    pub fn new(grid: &Grid) -> Self {
        let class = grid
            .positions()
            .map(|p| match grid.tile(p) {
                Some(Tile::Ground { .. }) => 1,
                Some(Tile::Water { .. }) => 2,
                Some(Tile::Trees { .. }) => 3,
                _ => 0,
            })
            .collect();
        #[expect(clippy::cast_possible_wrap, reason = "sides are at most 8192")]
        Self { width: grid.width() as i32, height: grid.height() as i32, class }
    }

    fn at(&self, x: i32, y: i32) -> u8 {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            0
        } else {
            #[expect(clippy::cast_sign_loss, reason = "checked above")]
            self.class[(y * self.width + x) as usize]
        }
    }

    #[expect(clippy::cast_possible_wrap, reason = "small grids")]
    fn xy(&self, n: u32) -> (i32, i32) {
        (n as i32 % self.width, n as i32 / self.width)
    }

    /// The position of node `n`.
    #[expect(clippy::cast_sign_loss, reason = "positions are on the grid")]
    #[must_use]
    pub fn pos(&self, n: u32) -> Pos {
        let (x, y) = self.xy(n);
        Pos::new(x as u32, y as u32)
    }

    fn node(&self, p: Pos) -> u32 {
        #[expect(clippy::cast_sign_loss, reason = "width is positive")]
        let w = self.width as u32;
        p.y * w + p.x
    }

    fn successors(&self, n: u32) -> impl Iterator<Item = (u32, u64)> + '_ {
        const DIRS: [(i32, i32); 8] = [(0, -1), (1, 0), (0, 1), (-1, 0), (1, -1), (1, 1), (-1, 1), (-1, -1)];
        let (x, y) = self.xy(n);
        let c = self.at(x, y);
        DIRS.into_iter().filter_map(move |(dx, dy)| {
            if self.at(x + dx, y + dy) != c {
                return None;
            }
            let diagonal = dx != 0 && dy != 0;
            if diagonal && (self.at(x + dx, y) != c || self.at(x, y + dy) != c) {
                return None;
            }
            #[expect(clippy::cast_sign_loss, reason = "on the grid")]
            let m = ((y + dy) * self.width + x + dx) as u32;
            Some((m, if diagonal { DIAGONAL } else { CARDINAL }))
        })
    }

    fn octile(&self, a: u32, b: u32) -> u64 {
        let (ax, ay) = self.xy(a);
        let (bx, by) = self.xy(b);
        let (dx, dy) = (u64::from(ax.abs_diff(bx)), u64::from(ay.abs_diff(by)));
        let (lo, hi) = (dx.min(dy), dx.max(dy));
        hi * CARDINAL + lo * (DIAGONAL - CARDINAL)
    }

    /// `pathfinding::astar`: the path, its cost and the number of expansions.
    #[must_use]
    pub fn astar(&self, start: Pos, goal: Pos) -> Option<(Vec<Pos>, f64, u64)> {
        let (s, g) = (self.node(start), self.node(goal));
        let mut expanded = 0u64;
        let (path, cost) = pathfinding::directed::astar::astar(
            &s,
            |&n| {
                expanded += 1;
                self.successors(n)
            },
            |&n| self.octile(n, g),
            |&n| n == g,
        )?;
        #[expect(clippy::cast_precision_loss, reason = "fixed-point costs are far below 2^52")]
        let cost = cost as f64 / SCALE;
        Some((path.into_iter().map(|n| self.pos(n)).collect(), cost, expanded))
    }

    /// `pathfinding::dijkstra_all` from `goal` (moves are symmetric on these maps).
    #[must_use]
    pub fn dijkstra_all(&self, goal: Pos) -> std::collections::HashMap<u32, (u32, u64)> {
        pathfinding::directed::dijkstra::dijkstra_all(&self.node(goal), |&n| self.successors(n))
    }
}

/// The `condor-pathfinding-grid` crate's Theta* and Lazy Theta* (`gridpath bench --any-angle
/// --peers`). Its model differs from gridpath's: a path joins cell *corners* (grid vertices),
/// and only open/blocked cells exist. Here the ground cells are open and every other cell
/// (walls, water, trees) blocked, and a query from cell `(x, y)` runs from corner `(x, y)`,
/// the cell's top-left one: its lengths are comparable in size with the octile optimum, not
/// equal in meaning, and its queries that start or end off the ground are left out.
pub struct CondorGrid {
    grid: condor_grid::Grid,
}

impl CondorGrid {
    /// The ground cells of `grid` as condor's open cells.
    ///
    /// # Errors
    /// Condor's build error, as text.
    pub fn new(grid: &Grid) -> Result<Self, String> {
        let blocked: Vec<condor_grid::Point> = grid
            .positions()
            .filter(|&p| !matches!(grid.tile(p), Some(Tile::Ground { .. })))
            .map(|p| condor_grid::Point::new(p.x as usize, p.y as usize))
            .collect();
        let grid = condor_grid::GridBuilder::new(grid.width() as usize, grid.height() as usize)
            .blocked(blocked)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self { grid })
    }

    /// Condor's Theta* (`lazy == false`) or Lazy Theta* from `start`'s corner to `goal`'s:
    /// the length and the number of vertices, `None` without a route or for an invalid query.
    #[must_use]
    pub fn any_angle(&self, start: Pos, goal: Pos, lazy: bool) -> Option<(f64, usize)> {
        use condor_grid::AnyAnglePathfinder;
        let corner = |p: Pos| condor_grid::Point2::new(f64::from(p.x), f64::from(p.y));
        let request = condor_grid::AnyAngleSearchRequest::new(corner(start), corner(goal));
        let outcome = if lazy {
            condor_grid::LazyThetaStar.search(&self.grid, request)
        } else {
            condor_grid::ThetaStar.search(&self.grid, request)
        };
        let outcome = outcome.ok()?;
        let path = outcome.path()?;
        Some((path.cost(), path.len()))
    }
}
