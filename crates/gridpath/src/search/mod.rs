//! Point-to-point searches behind one entry point, [`Searcher::find_path`].

mod best_first;
mod bfs;
mod bidir;
mod heap;
mod jps;

use std::fmt;

use crate::Corners;
use crate::grid::{Grid, Moves, Pos, Rules};
use crate::heuristic::Heuristic;
use crate::trace::{NoTrace, Observer};

pub(crate) use heap::{BucketQueue, OpenList};

/// Which search to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Algorithm {
    /// A* on a binary heap; on equal `f` the node with the lower `h` is expanded first.
    #[default]
    AStar,
    /// Dijkstra: A* with a zero heuristic.
    Dijkstra,
    /// Breadth-first search: every step counts 1 whatever its length or terrain.
    Bfs,
    /// Greedy best-first: expands the node with the lowest `h`; fast, not optimal.
    Greedy,
    /// Jump Point Search: 8-connected, [`Corners::Forbid`], uniform cost only.
    Jps,
    /// Bidirectional A* (Dijkstra with the zero heuristic), balanced potentials.
    Bidirectional,
    /// The "contour line" wavefront: BFS from the goal numbering steps from 1, then a walk
    /// downhill from the start.
    Wavefront,
}

impl Algorithm {
    /// Every algorithm, in display order.
    pub const ALL: [Algorithm; 7] = [
        Algorithm::AStar,
        Algorithm::Dijkstra,
        Algorithm::Bfs,
        Algorithm::Greedy,
        Algorithm::Jps,
        Algorithm::Bidirectional,
        Algorithm::Wavefront,
    ];

    /// Short lowercase name, as the CLI spells it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::AStar => "astar",
            Algorithm::Dijkstra => "dijkstra",
            Algorithm::Bfs => "bfs",
            Algorithm::Greedy => "greedy",
            Algorithm::Jps => "jps",
            Algorithm::Bidirectional => "bidir",
            Algorithm::Wavefront => "wavefront",
        }
    }

    /// Human-readable name.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Algorithm::AStar => "A*",
            Algorithm::Dijkstra => "Dijkstra",
            Algorithm::Bfs => "BFS",
            Algorithm::Greedy => "Greedy",
            Algorithm::Jps => "JPS",
            Algorithm::Bidirectional => "Bidirectional",
            Algorithm::Wavefront => "Wavefront",
        }
    }

    /// Whether this algorithm can run on `grid` with `settings`; `Err` gives the reason (for a
    /// disabled option in a UI, or [`SearchError::Unsupported`]).
    ///
    /// # Errors
    /// The reason the combination does not apply.
    pub fn check(self, grid: &Grid, settings: &Settings) -> Result<(), &'static str> {
        match self {
            Algorithm::Jps => {
                if settings.rules.moves != Moves::Eight {
                    Err("JPS needs 8-connected moves")
                } else if settings.rules.corners != Corners::Forbid {
                    Err("JPS needs the no-corner-cutting rule")
                } else if !grid.has_uniform_cost() {
                    Err("JPS needs uniform terrain cost")
                } else {
                    Ok(())
                }
            }
            Algorithm::Bidirectional if settings.weight != 1.0 => {
                Err("bidirectional search takes no heuristic weight")
            }
            _ => Ok(()),
        }
    }

    /// `true` when this algorithm with `settings` on `grid` is guaranteed to return a
    /// least-cost path.
    #[must_use]
    pub fn is_optimal(self, grid: &Grid, settings: &Settings) -> bool {
        let admissible = settings.weight == 1.0 && settings.heuristic.is_admissible(settings.rules.moves);
        match self {
            Algorithm::Dijkstra => true,
            Algorithm::AStar | Algorithm::Jps | Algorithm::Bidirectional => admissible,
            Algorithm::Bfs | Algorithm::Wavefront => {
                settings.rules.moves == Moves::Four && grid.has_uniform_cost()
            }
            Algorithm::Greedy => false,
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Everything that selects how a path is searched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Movement rules.
    pub rules: Rules,
    /// Heuristic for A*, greedy, JPS and bidirectional search.
    pub heuristic: Heuristic,
    /// Heuristic weight `w ≥ 1` (weighted A*: `f = g + w·h`); 1 keeps A* optimal.
    pub weight: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Self { algorithm: Algorithm::AStar, rules: Rules::OCTILE, heuristic: Heuristic::Octile, weight: 1.0 }
    }
}

impl Settings {
    /// Default settings with another algorithm.
    #[must_use]
    pub fn with_algorithm(algorithm: Algorithm) -> Self {
        Self { algorithm, ..Self::default() }
    }
}

/// Work counters of one search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Nodes taken from the open list and expanded.
    pub expanded: u64,
    /// Nodes pushed onto the open list (including re-pushes with a better cost).
    pub generated: u64,
    /// Largest size the open list reached.
    pub peak_open: u64,
}

/// A found path.
#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    /// Cells from the start to the goal, both included; consecutive cells are neighbours.
    pub cells: Vec<Pos>,
    /// Total cost under the grid's step-cost rule.
    pub cost: f64,
    /// Work counters.
    pub stats: Stats,
}

/// Which end of a query a [`SearchError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// The start.
    Start,
    /// The goal.
    Goal,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Endpoint::Start => "start",
            Endpoint::Goal => "goal",
        })
    }
}

/// Why a search returned no path.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SearchError {
    /// An endpoint is off the grid.
    #[error("the {which} {pos} is outside the {width}x{height} map")]
    OutOfBounds {
        /// Start or goal.
        which: Endpoint,
        /// The position.
        pos: Pos,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// An endpoint is a wall.
    #[error("the {which} {pos} is on a wall")]
    Blocked {
        /// Start or goal.
        which: Endpoint,
        /// The position.
        pos: Pos,
    },
    /// The goal cannot be reached from the start.
    #[error("no path from {start} to {goal}")]
    NoPath {
        /// The start.
        start: Pos,
        /// The goal.
        goal: Pos,
        /// Work done before giving up.
        stats: Stats,
    },
    /// The algorithm does not apply to these settings or this grid.
    #[error("{algorithm} cannot run here: {reason}")]
    Unsupported {
        /// The algorithm.
        algorithm: Algorithm,
        /// Why.
        reason: &'static str,
    },
    /// A heuristic weight below 1 or not finite.
    #[error("heuristic weight {0} is not allowed: use a finite weight >= 1")]
    BadWeight(f64),
}

/// Checks that `pos` is a usable endpoint.
pub(crate) fn check_endpoint(grid: &Grid, pos: Pos, which: Endpoint) -> Result<(), SearchError> {
    if !grid.in_bounds(pos) {
        return Err(SearchError::OutOfBounds { which, pos, width: grid.width(), height: grid.height() });
    }
    if !grid.is_passable(pos) {
        return Err(SearchError::Blocked { which, pos });
    }
    Ok(())
}

/// A reusable search workspace.
///
/// Node data lives in arrays as large as the grid, stamped with a generation number, so a new
/// query "clears" them by bumping the generation: repeated queries allocate nothing (beyond the
/// returned path; see [`Searcher::find_path_into`] to reuse that too). The grid may be edited
/// or replaced between queries.
///
/// ```
/// use gridpath::{formats, Searcher, Settings, Pos};
/// let map = formats::parse_ascii("S..\n##.\nG..").unwrap();
/// let mut searcher = Searcher::new();
/// let path = searcher
///     .find_path(&map.grid, Pos::new(0, 0), Pos::new(0, 2), &Settings::default())
///     .unwrap();
/// // Round the wall; no corner cutting, so no diagonal past its end.
/// assert_eq!(path.cells.len(), 7);
/// assert!((path.cost - 6.0).abs() < 1e-9);
/// ```
#[derive(Default)]
pub struct Searcher {
    pub(crate) fwd: Nodes,
    pub(crate) bwd: Nodes,
    /// Binary heaps: forward, and backward for bidirectional search.
    pub(crate) heap: OpenList,
    pub(crate) heap_b: OpenList,
    /// The bucketed open list for monotone searches.
    pub(crate) buckets: BucketQueue,
    pub(crate) queue: std::collections::VecDeque<u32>,
}

impl fmt::Debug for Searcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Searcher").field("cells", &self.fwd.nodes.len()).finish_non_exhaustive()
    }
}

impl Searcher {
    /// An empty workspace; it grows to the grid's size on the first query.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Bytes of workspace per grid cell that a search with `algorithm` touches (the arrays are
    /// sized to the padded grid: one extra row and column on each side).
    #[must_use]
    pub fn bytes_per_cell(algorithm: Algorithm) -> usize {
        let one_side = std::mem::size_of::<Node>();
        match algorithm {
            Algorithm::Bidirectional => 2 * one_side,
            _ => one_side,
        }
    }

    /// Finds a path from `start` to `goal`.
    ///
    /// # Errors
    /// [`SearchError`] for bad endpoints, an unreachable goal, a bad weight or an algorithm that
    /// does not apply.
    pub fn find_path(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
    ) -> Result<Path, SearchError> {
        self.find_path_traced(grid, start, goal, settings, &mut NoTrace)
    }

    /// Like [`Searcher::find_path`], reporting every step to `observer`.
    ///
    /// # Errors
    /// As [`Searcher::find_path`].
    pub fn find_path_traced<O: Observer>(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        observer: &mut O,
    ) -> Result<Path, SearchError> {
        let mut cells = Vec::new();
        let (cost, stats) = self.find_path_into_traced(grid, start, goal, settings, &mut cells, observer)?;
        Ok(Path { cells, cost, stats })
    }

    /// Like [`Searcher::find_path`], writing the cells into `out` (cleared first) so a caller
    /// that keeps `out` allocates nothing per query. Returns the cost and the stats.
    ///
    /// # Errors
    /// As [`Searcher::find_path`].
    pub fn find_path_into(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        out: &mut Vec<Pos>,
    ) -> Result<(f64, Stats), SearchError> {
        self.find_path_into_traced(grid, start, goal, settings, out, &mut NoTrace)
    }

    fn find_path_into_traced<O: Observer>(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        out: &mut Vec<Pos>,
        observer: &mut O,
    ) -> Result<(f64, Stats), SearchError> {
        out.clear();
        check_endpoint(grid, start, Endpoint::Start)?;
        check_endpoint(grid, goal, Endpoint::Goal)?;
        if !(settings.weight.is_finite() && settings.weight >= 1.0) {
            return Err(SearchError::BadWeight(settings.weight));
        }
        settings
            .algorithm
            .check(grid, settings)
            .map_err(|reason| SearchError::Unsupported { algorithm: settings.algorithm, reason })?;
        if start == goal {
            out.push(start);
            return Ok((0.0, Stats::default()));
        }
        if grid.class_at(grid.index(start)) != grid.class_at(grid.index(goal)) {
            // Different terrain classes (ground and water, say) never connect.
            return Err(SearchError::NoPath { start, goal, stats: Stats::default() });
        }
        let q = Query { grid, start, goal, settings };
        let result = match settings.algorithm {
            Algorithm::AStar => best_first::run(self, &q, best_first::Mode::AStar, out, observer),
            Algorithm::Dijkstra => best_first::run(self, &q, best_first::Mode::Dijkstra, out, observer),
            Algorithm::Greedy => best_first::run(self, &q, best_first::Mode::Greedy, out, observer),
            Algorithm::Bfs => bfs::run(self, &q, out, observer),
            Algorithm::Jps => jps::run(self, &q, out, observer),
            Algorithm::Bidirectional => bidir::run(self, &q, out, observer),
            Algorithm::Wavefront => bfs::wavefront(self, &q, out, observer),
        };
        match result {
            Ok(stats) => {
                // Every search reports the cost of the path it returns under the one step-cost
                // rule, so all algorithms' costs are comparable.
                let cost = grid.path_cost(out, settings.rules).unwrap_or(f64::NAN);
                debug_assert!(cost.is_finite(), "search returned an illegal path");
                Ok((cost, stats))
            }
            Err(stats) => {
                out.clear();
                Err(SearchError::NoPath { start, goal, stats })
            }
        }
    }
}

/// One query's inputs, passed to the algorithm modules.
pub(crate) struct Query<'a> {
    pub(crate) grid: &'a Grid,
    pub(crate) start: Pos,
    pub(crate) goal: Pos,
    pub(crate) settings: &'a Settings,
}

/// Per-cell search data, interleaved so that touching a cell costs one cache line, not three.
#[derive(Clone, Copy, Default)]
pub(crate) struct Node {
    g: f64,
    /// `generation * 2 + closed`: the cell is "seen" this query when `state >> 1 == generation`.
    state: u32,
    parent: u32,
}

/// Generation-stamped node array (one per search direction).
#[derive(Default)]
pub(crate) struct Nodes {
    nodes: Vec<Node>,
    generation: u32,
}

impl Nodes {
    /// Starts a new query on a grid of `len` padded cells.
    pub(crate) fn reset(&mut self, len: usize) {
        if self.nodes.len() != len || self.generation >= u32::MAX / 2 - 1 {
            self.nodes.clear();
            self.nodes.resize(len, Node::default());
            self.generation = 0;
        }
        self.generation += 1;
    }

    #[inline(always)]
    pub(crate) fn seen(&self, i: usize) -> bool {
        self.nodes[i].state >> 1 == self.generation
    }

    #[inline(always)]
    pub(crate) fn closed(&self, i: usize) -> bool {
        self.nodes[i].state == self.generation * 2 + 1
    }

    #[inline(always)]
    pub(crate) fn close(&mut self, i: usize) {
        self.nodes[i].state = self.generation * 2 + 1;
    }

    /// Cost from the search's origin (valid when [`Nodes::seen`]).
    #[inline(always)]
    pub(crate) fn g(&self, i: usize) -> f64 {
        self.nodes[i].g
    }

    /// Parent's padded index (valid when [`Nodes::seen`]).
    #[inline(always)]
    pub(crate) fn parent(&self, i: usize) -> usize {
        self.nodes[i].parent as usize
    }

    #[inline(always)]
    pub(crate) fn open_cell(&mut self, i: usize, g: f64, parent: usize) {
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        {
            self.nodes[i] = Node { g, state: self.generation * 2, parent: parent as u32 };
        }
    }

    /// Writes the path ending at `end` (following parents back to `begin`) into `out`, start
    /// first.
    pub(crate) fn unwind(&self, grid: &Grid, begin: usize, end: usize, out: &mut Vec<Pos>) {
        let from = out.len();
        let mut i = end;
        loop {
            out.push(grid.pos_of(i));
            if i == begin {
                break;
            }
            i = self.parent(i);
        }
        out[from..].reverse();
    }
}

/// An open-list entry keyed by `f` alone (for the flow fields).
pub(crate) fn heap_entry(f: f64, cell: usize) -> heap::Entry {
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
    heap::Entry { f, h: 0.0, cell: cell as u32 }
}
