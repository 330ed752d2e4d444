//! Point-to-point searches behind one entry point, [`Searcher::find_path`].

mod best_first;
mod bfs;
mod bidir;
mod diagonal_skips;
mod heap;
mod incremental;
mod jps;
mod octile;
mod partial;
mod theta;
mod theta_jump;

use std::fmt;

use crate::Corners;
use crate::grid::{Grid, MAX_AGENT_SIZE, Moves, Pos, Rules};
use crate::heuristic::Heuristic;
use crate::sight;
use crate::trace::{NoTrace, Observer};

pub(crate) use heap::{BucketQueue, Entry, OpenList};
pub use incremental::Incremental;
pub(crate) use octile::{
    DirSet, FORWARD, legal_moves as legal_octile_moves, uniform_moves, value as octile_value,
};

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
    /// Jump Point Search: 8-connected, [`Corners::Forbid`]; exact on terrain costs too (its
    /// jumps stop where the cost changes nearby).
    Jps,
    /// Bidirectional A* (Dijkstra with the zero heuristic), balanced potentials.
    Bidirectional,
    /// The "contour line" wavefront: BFS from the goal numbering steps from 1, then a walk
    /// downhill from the start.
    Wavefront,
    /// Theta*: any-angle A* whose cells may take their parent's parent as parent when they see
    /// it ([`Grid::line_of_sight`]); its [`Path::cells`] are the turning points. 8-connected
    /// moves only; works on terrain costs (segments cost [`Grid::segment_cost`]).
    Theta,
    /// Lazy Theta*: Theta* that checks line of sight once per expanded cell instead of once per
    /// generated one (fewer checks, same kind of path). 8-connected moves, uniform cost only.
    LazyTheta,
}

impl Algorithm {
    /// Every algorithm, in display order.
    pub const ALL: [Algorithm; 9] = [
        Algorithm::AStar,
        Algorithm::Dijkstra,
        Algorithm::Bfs,
        Algorithm::Greedy,
        Algorithm::Jps,
        Algorithm::Bidirectional,
        Algorithm::Wavefront,
        Algorithm::Theta,
        Algorithm::LazyTheta,
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
            Algorithm::Theta => "theta",
            Algorithm::LazyTheta => "lazytheta",
        }
    }

    /// Human-readable name (also what `Display` prints).
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
            Algorithm::Theta => "Theta*",
            Algorithm::LazyTheta => "Lazy Theta*",
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
                } else {
                    Ok(())
                }
            }
            Algorithm::Bidirectional if settings.weight != 1.0 => {
                Err("bidirectional search takes no heuristic weight")
            }
            Algorithm::Theta | Algorithm::LazyTheta if settings.rules.moves != Moves::Eight => {
                Err("any-angle searches need 8-connected moves (a 4-connected unit never moves at an angle)")
            }
            Algorithm::Theta | Algorithm::LazyTheta if grid.has_fences() => Err(
                "any-angle searches draw lines through cells, which do not see fences: grids without fences only",
            ),
            Algorithm::LazyTheta if !grid.has_uniform_cost() => Err(
                "Lazy Theta* takes a segment's length for its cost before checking it: uniform terrain cost only (Theta* handles terrain costs)",
            ),
            _ => Ok(()),
        }
    }

    /// `true` for the any-angle searches ([`Algorithm::Theta`], [`Algorithm::LazyTheta`]),
    /// whose [`Path::cells`] are turning points in line of sight of each other rather than
    /// neighbouring cells, and whose [`Path::cost`] is measured along straight segments
    /// ([`Grid::any_angle_cost`]), not by the grid's step-cost rule.
    #[must_use]
    pub const fn is_any_angle(self) -> bool {
        matches!(self, Algorithm::Theta | Algorithm::LazyTheta)
    }

    /// `true` when this algorithm with `settings` on `grid` is guaranteed to return a
    /// least-cost path among the grid paths (of neighbouring cells). Always `false` for the
    /// any-angle searches: their paths are not grid paths, they are not guaranteed to be the
    /// shortest any-angle paths either, and on uniform cost they are (in gridpath's property
    /// tests, and in practice) no longer than the octile optimum.
    #[must_use]
    pub fn is_optimal(self, grid: &Grid, settings: &Settings) -> bool {
        let admissible = settings.weight == 1.0 && settings.heuristic.is_admissible(settings.rules.moves);
        match self {
            Algorithm::Dijkstra => true,
            Algorithm::AStar | Algorithm::Jps | Algorithm::Bidirectional => admissible,
            Algorithm::Bfs | Algorithm::Wavefront => {
                settings.rules.moves == Moves::Four && grid.has_uniform_cost()
            }
            Algorithm::Greedy | Algorithm::Theta | Algorithm::LazyTheta => false,
        }
    }
}

// `Display` is the label ("A*"); `FromStr` takes the name or the label.
// `lazy-theta` is accepted too (the spelling of issue 21), as `lazytheta` stays the name.
crate::names::named_enum!(Algorithm, "algorithm", label, |a: Algorithm| -> &'static [&'static str] {
    if a == Algorithm::LazyTheta { &["lazy-theta"] } else { &[] }
});

/// Everything that selects how a path is searched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Movement rules.
    pub rules: Rules,
    /// Heuristic for A*, greedy, JPS and bidirectional search (Theta* and Lazy Theta* always
    /// use the Euclidean distance, the one that fits straight segments).
    pub heuristic: Heuristic,
    /// Heuristic weight `w ≥ 1` (weighted A*: `f = g + w·h`); 1 keeps A* optimal. Above 1, A*
    /// expands every cell at most once and, with an admissible heuristic, returns a route
    /// costing at most `w` times the optimum.
    pub weight: f64,
    /// When the goal cannot be reached (no route, another terrain class, a wall): `false` (the
    /// default) returns the error; `true` returns the route to the reachable cell closest to
    /// the goal (straight-line distance, ties to the cheaper route) as an `Ok` path marked
    /// [`Outcome::Partial`]. A bad start, a goal off the map, a bad weight or an algorithm that
    /// does not apply stay errors.
    pub partial: bool,
    /// The agent's size `k`, 1 (the default) to [`MAX_AGENT_SIZE`]: its body covers `k` × `k`
    /// cells, anchored at its top-left cell, and the path is that cell's route
    /// ([`Grid::for_agent_size`] gives the exact rule; the body fits through every step,
    /// around corners too). Every algorithm honours it.
    pub agent_size: u8,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::AStar,
            rules: Rules::OCTILE,
            heuristic: Heuristic::Octile,
            weight: 1.0,
            partial: false,
            agent_size: 1,
        }
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
    /// Cells from the start to the goal, both included. For the grid searches consecutive
    /// cells are neighbours; for the any-angle searches ([`Algorithm::is_any_angle`]) they are
    /// the turning points, consecutive ones in [`Grid::line_of_sight`] of each other
    /// ([`crate::sight::segment_cells`] gives the cells a segment crosses).
    pub cells: Vec<Pos>,
    /// Total cost: under the grid's step-cost rule ([`Grid::path_cost`]) for the grid
    /// searches, along the straight segments ([`Grid::any_angle_cost`]) for the any-angle ones.
    pub cost: f64,
    /// Work counters.
    pub stats: Stats,
    /// Whether the path ends at the goal. Check it before walking the path as a route to the
    /// goal: with [`Settings::partial`] a path can end short of it.
    pub outcome: Outcome,
}

/// Whether a [`Path`] reaches the goal it was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Outcome {
    /// The path ends at the goal.
    #[default]
    Complete,
    /// The goal cannot be reached ([`Settings::partial`]): the path ends at the reachable cell
    /// closest to `goal` by straight-line distance (ties: the cheaper route, then the cell
    /// first in row order), which may be the start itself.
    Partial {
        /// The goal that was asked for (the path's last cell is not it).
        goal: Pos,
    },
}

impl Outcome {
    /// `true` for [`Outcome::Partial`].
    #[must_use]
    pub const fn is_partial(self) -> bool {
        matches!(self, Outcome::Partial { .. })
    }
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
    /// The start and the goal lie in different terrain classes (ground, water, trees: the Moving
    /// AI rule), which never connect, so no search is run.
    #[error(
        "no path from {start} to {goal}: the start is {}, the goal {}, and {}",
        terrain_phrase(start_terrain),
        terrain_phrase(goal_terrain),
        class_rule(start_terrain, goal_terrain)
    )]
    TerrainClasses {
        /// The start.
        start: Pos,
        /// The goal.
        goal: Pos,
        /// The start's terrain class: `"ground"`, `"water"` or `"trees"`.
        start_terrain: &'static str,
        /// The goal's terrain class.
        goal_terrain: &'static str,
    },
    /// The algorithm does not apply to these settings or this grid.
    #[error("{algorithm} cannot run here: {reason}")]
    Unsupported {
        /// The algorithm.
        algorithm: Algorithm,
        /// Why.
        reason: &'static str,
    },
    /// [`Settings::agent_size`] is 0 or above [`MAX_AGENT_SIZE`].
    #[error("agent size {0} is not allowed: use 1..={MAX_AGENT_SIZE}")]
    BadAgentSize(u8),
    /// An endpoint is passable but an agent of this size does not fit there: the
    /// `agent_size` × `agent_size` square from it (right and down) holds a wall, leaves the
    /// map or mixes terrain classes.
    #[error("the {which} {pos} has no room for an agent of {agent_size}x{agent_size} cells")]
    NoRoom {
        /// Start or goal.
        which: Endpoint,
        /// The position (the body's top-left cell).
        pos: Pos,
        /// The agent's size.
        agent_size: u8,
    },
    /// [`SubgoalGraph`](crate::SubgoalGraph) does not answer with these settings or on this grid
    /// ([`SubgoalGraph::check`](crate::SubgoalGraph::check) gives the reasons).
    #[error("the subgoal graph cannot answer here: {reason}")]
    SubgoalUnsupported {
        /// Why.
        reason: &'static str,
    },
    /// A heuristic weight below 1 or not finite.
    #[error("heuristic weight {0} is not allowed: use a finite weight >= 1")]
    BadWeight(f64),
}

/// The name of terrain class `class` (the top bits of a cell byte).
pub(crate) fn class_name(class: u8) -> &'static str {
    match class {
        2 => "water",
        3 => "trees",
        _ => "ground",
    }
}

/// "on ground", "in water", "in trees".
fn terrain_phrase(terrain: &str) -> String {
    if terrain == "ground" { "on ground".to_owned() } else { format!("in {terrain}") }
}

/// Why two classes do not connect, naming the classes that are not ground.
fn class_rule(a: &str, b: &str) -> String {
    let only = |t: &str| format!("{t} connects only to {t}");
    match (a, b) {
        ("ground", other) | (other, "ground") => only(other),
        (a, b) => format!("{} and {}", only(a), only(b)),
    }
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

/// `TerrainClasses` unless `start` and `goal` (both passable cells) are of one terrain class:
/// different classes (ground and water, say) never connect, and saying so beats a bare "no
/// path" that leaves a player looking for the wall that is not there.
pub(crate) fn check_same_class(grid: &Grid, start: Pos, goal: Pos) -> Result<(), SearchError> {
    let (start_class, goal_class) = (grid.class_at(grid.index(start)), grid.class_at(grid.index(goal)));
    if start_class == goal_class {
        return Ok(());
    }
    Err(SearchError::TerrainClasses {
        start,
        goal,
        start_terrain: class_name(start_class),
        goal_terrain: class_name(goal_class),
    })
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
    /// JPS's nodes (see [`jps::JumpNodes`]).
    pub(crate) jump_nodes: jps::JumpNodes,
    /// JPS's diagonal rays' skip counts, for the grid state of its last query.
    pub(crate) diagonal_skips: diagonal_skips::DiagonalSkips,
    /// Binary heaps: forward, and backward for bidirectional search.
    pub(crate) heap: OpenList,
    pub(crate) heap_b: OpenList,
    /// The bucketed open list for monotone searches.
    pub(crate) buckets: BucketQueue,
    pub(crate) queue: std::collections::VecDeque<u32>,
    /// Theta*'s and Lazy Theta*'s cells (any cell can be a parent).
    pub(crate) any_angle: theta::Workspace,
    /// Lazy Theta* over jump points.
    any_angle_jumps: theta_jump::Workspace,
    /// The grid for agents above size 1, for the grid state it was derived from.
    sized: Option<SizedGrid>,
    /// JPS scans only the lines that the grid's jump bits say hold a jump point (the default);
    /// off, it scans every line as online JPS does. See [`Searcher::set_jump_bits`].
    online_jps: bool,
    /// Lazy Theta* expands every cell (`true`) instead of searching over jump points where
    /// JPS applies. See [`Searcher::set_lazy_theta_jumps`].
    lazy_theta_cells: bool,
}

impl fmt::Debug for Searcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Searcher").field("cells", &self.fwd.cells.len()).finish_non_exhaustive()
    }
}

impl Searcher {
    /// An empty workspace; it grows to the grid's size on the first query.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether JPS reads the grid's jump bits (`true`, the default) or scans every line it
    /// passes as online JPS does (`false`). The bits are a precomputed one-bit form of JPS+'s
    /// jump tables, one byte per cell, that every grid builds with its move masks and keeps in
    /// step with its edits; off, JPS uses only the bit planes. Both give the same paths, costs
    /// and expansions: the switch is for measuring what the bits buy.
    pub fn set_jump_bits(&mut self, on: bool) {
        self.online_jps = !on;
    }

    /// Whether Lazy Theta* searches over jump points where JPS applies (`true`, the default:
    /// uniform cost, 8 moves, no corner cutting — the Moving AI rules) or expands cell by cell
    /// as published (`false`; always so elsewhere). Over jump points it expands tens of times
    /// fewer cells and pulls the route taut at the end: routes a little longer on average
    /// than cell by cell, never longer than the octile optimum (docs/BENCHMARKS.md). The
    /// switch is for comparing the two.
    pub fn set_lazy_theta_jumps(&mut self, on: bool) {
        self.lazy_theta_cells = !on;
    }

    /// Bytes of workspace per grid cell that a search with `algorithm` touches (the arrays are
    /// sized to the padded grid: one extra row and column on each side).
    #[must_use]
    pub fn bytes_per_cell(algorithm: Algorithm) -> usize {
        let one_side = std::mem::size_of::<Node>() + std::mem::size_of::<u8>();
        match algorithm {
            Algorithm::Bidirectional => 2 * one_side,
            // The nodes, and the diagonal skips with the jump bits (`diagonal_skips.rs`).
            Algorithm::Jps => std::mem::size_of::<jps::JumpNode>() + std::mem::size_of::<u32>(),
            Algorithm::Theta => std::mem::size_of::<theta::Node>(),
            // Over jump points, its usual form on the Moving AI rules.
            Algorithm::LazyTheta => std::mem::size_of::<theta_jump::JumpCell>(),
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
        let (cost, stats, outcome) =
            self.find_path_into_traced(grid, start, goal, settings, (&mut cells, Shape::Cells), observer)?;
        Ok(Path { cells, cost, stats, outcome })
    }

    /// Like [`Searcher::find_path`], writing the cells into `out` (cleared first) so a caller
    /// that keeps `out` allocates nothing per query. Returns the cost, the stats and whether
    /// `out` reaches the goal ([`Outcome`]).
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
    ) -> Result<(f64, Stats, Outcome), SearchError> {
        self.find_shaped_into(grid, (start, goal), settings, (out, Shape::Cells))
    }

    /// Like [`Searcher::find_path_into`], writing only the route's corners into `out`
    /// ([`sight::corners`](crate::sight::corners): the start, every cell where the route turns,
    /// the goal; consecutive corners on one straight or diagonal line for the grid searches)
    /// — what a unit walking the route or a caller wanting only its cost needs. JPS writes
    /// them from its jump points, without the cells between them; the other searches' routes
    /// are reduced to theirs. The same route and cost as [`Searcher::find_path_into`].
    ///
    /// ```
    /// use gridpath::{Algorithm, Grid, Pos, Searcher, Settings, sight};
    /// let grid = Grid::new(8, 4).unwrap();
    /// let mut searcher = Searcher::new();
    /// let settings = Settings::with_algorithm(Algorithm::Jps);
    /// let mut corners = Vec::new();
    /// let (cost, ..) = searcher.find_corners_into(&grid, Pos::new(0, 0), Pos::new(7, 2), &settings, &mut corners)?;
    /// assert_eq!(corners.first(), Some(&Pos::new(0, 0)));
    /// assert_eq!(corners.last(), Some(&Pos::new(7, 2)));
    /// let cells = sight::path_cells(&grid, &corners);
    /// assert!((grid.path_cost(&cells, settings.rules)? - cost).abs() < 1e-9);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Searcher::find_path`].
    pub fn find_corners_into(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        out: &mut Vec<Pos>,
    ) -> Result<(f64, Stats, Outcome), SearchError> {
        self.find_shaped_into(grid, (start, goal), settings, (out, Shape::Corners))
    }

    /// [`Searcher::find_path_into`] or [`Searcher::find_corners_into`], as `shape` says.
    pub(crate) fn find_shaped_into(
        &mut self,
        grid: &Grid,
        (start, goal): (Pos, Pos),
        settings: &Settings,
        (out, shape): (&mut Vec<Pos>, Shape),
    ) -> Result<(f64, Stats, Outcome), SearchError> {
        self.find_path_into_traced(grid, start, goal, settings, (out, shape), &mut NoTrace)
    }

    fn find_path_into_traced<O: Observer>(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        (out, shape): (&mut Vec<Pos>, Shape),
        observer: &mut O,
    ) -> Result<(f64, Stats, Outcome), SearchError> {
        if settings.agent_size != 1 {
            return self.find_sized(grid, start, goal, settings, (out, shape), observer);
        }
        match self.search(grid, start, goal, settings, (out, shape), observer) {
            Ok((cost, stats)) => Ok((cost, stats, Outcome::Complete)),
            Err(
                SearchError::NoPath { .. }
                | SearchError::TerrainClasses { .. }
                | SearchError::Blocked { which: Endpoint::Goal, .. },
            ) if settings.partial => {
                // The start was checked before the goal, so it is valid here.
                let target = partial::closest_reachable(grid, start, goal, settings.rules);
                let exact = Settings { partial: false, ..*settings };
                let (cost, stats) = self.search(grid, start, target, &exact, (out, shape), observer)?;
                Ok((cost, stats, Outcome::Partial { goal }))
            }
            Err(e) => Err(e),
        }
    }

    /// A search for an agent above size 1: the same search on [`Grid::for_agent_size`]'s
    /// grid, derived once per grid state and size and kept.
    fn find_sized<O: Observer>(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        (out, shape): (&mut Vec<Pos>, Shape),
        observer: &mut O,
    ) -> Result<(f64, Stats, Outcome), SearchError> {
        out.clear();
        let size = settings.agent_size;
        if !(1..=MAX_AGENT_SIZE).contains(&size) {
            return Err(SearchError::BadAgentSize(size));
        }
        let fits = |pos: Pos, which: Endpoint| {
            check_endpoint(grid, pos, which)?;
            if grid.clearance(pos) < size {
                return Err(SearchError::NoRoom { which, pos, agent_size: size });
            }
            Ok(())
        };
        fits(start, Endpoint::Start)?;
        let goal_fits = fits(goal, Endpoint::Goal);
        if goal_fits.is_err() && !settings.partial {
            return goal_fits.map(|()| (0.0, Stats::default(), Outcome::Complete));
        }
        self.agent_grid(grid, size);
        let cache = self.sized.take().expect("agent_grid keeps it");
        let one = Settings { agent_size: 1, ..*settings };
        let result = self.find_path_into_traced(&cache.grid, start, goal, &one, (out, shape), observer);
        self.sized = Some(cache);
        result
    }

    /// The grid an `agent_size` × `agent_size` body's top-left cell moves on
    /// ([`Grid::for_agent_size`]; `grid` itself for size 1 or less), derived once per grid
    /// state and size and kept: what the searches use for large agents, and what a caller
    /// smoothing or checking such an agent's path should use too.
    pub fn agent_grid<'a>(&'a mut self, grid: &'a Grid, agent_size: u8) -> &'a Grid {
        if agent_size <= 1 {
            return grid;
        }
        let fresh =
            |c: &SizedGrid| c.id == grid.id() && c.revision == grid.revision() && c.size == agent_size;
        if !self.sized.as_ref().is_some_and(fresh) {
            self.sized = None;
        }
        let cache = self.sized.get_or_insert_with(|| SizedGrid {
            id: grid.id(),
            revision: grid.revision(),
            size: agent_size,
            grid: grid.for_agent_size(agent_size),
        });
        &cache.grid
    }

    fn search<O: Observer>(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        (out, shape): (&mut Vec<Pos>, Shape),
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
        check_same_class(grid, start, goal)?;
        let q = Query { grid, start, goal, settings, shape };
        // The exact searches know their cost; the others are measured on their path.
        let exact = |r: Result<(Stats, f64), Stats>| r.map(|(stats, cost)| (stats, Some(cost)));
        let measured = |r: Result<Stats, Stats>| r.map(|stats| (stats, None));
        let result = match settings.algorithm {
            Algorithm::AStar if octile::applies(settings) && !grid.has_fences() => {
                exact(octile::run(self, &q, out, observer))
            }
            Algorithm::AStar => measured(best_first::run(self, &q, best_first::Mode::AStar, out, observer)),
            Algorithm::Dijkstra => {
                measured(best_first::run(self, &q, best_first::Mode::Dijkstra, out, observer))
            }
            Algorithm::Greedy => measured(best_first::run(self, &q, best_first::Mode::Greedy, out, observer)),
            Algorithm::Bfs => measured(bfs::run(self, &q, out, observer)),
            Algorithm::Jps if self.online_jps => exact(jps::run::<O, false>(self, &q, out, observer)),
            Algorithm::Jps => exact(jps::run::<O, true>(self, &q, out, observer)),
            Algorithm::Bidirectional => measured(bidir::run(self, &q, out, observer)),
            Algorithm::Wavefront => measured(bfs::wavefront(self, &q, out, observer)),
            Algorithm::Theta => exact(theta::run::<O, false>(&mut self.any_angle, &q, out, observer)),
            Algorithm::LazyTheta
                if !self.lazy_theta_cells && Algorithm::Jps.check(grid, settings).is_ok() =>
            {
                let jumps = if self.online_jps {
                    theta_jump::run::<O, false>(&mut self.any_angle_jumps, &q, out, observer)
                } else {
                    theta_jump::run::<O, true>(&mut self.any_angle_jumps, &q, out, observer)
                };
                exact(jumps.or_else(|_| theta::run::<O, true>(&mut self.any_angle, &q, out, observer)))
            }
            Algorithm::LazyTheta => exact(theta::run::<O, true>(&mut self.any_angle, &q, out, observer)),
        };
        match result {
            Ok((stats, known)) => {
                // Every search reports the cost of the path it returns under the one step-cost
                // rule, so all algorithms' costs are comparable. The exact searches' own cost is
                // that sum (up to float rounding), without a second walk along the path.
                let cost = known.unwrap_or_else(|| grid.path_cost(out, settings.rules).unwrap_or(f64::NAN));
                // A search that reads the shape (JPS's `finish`) may have written corners: the
                // check walks their cells (a cell path's are its own).
                debug_assert!(
                    if settings.algorithm.is_any_angle() {
                        grid.any_angle_cost(out, settings.rules)
                    } else if shape == Shape::Corners {
                        grid.path_cost(&sight::path_cells(grid, out), settings.rules)
                    } else {
                        grid.path_cost(out, settings.rules)
                    }
                    .is_ok_and(|c| (c - cost).abs() <= 1e-9 * c.max(1.0)),
                    "search returned an illegal path or a wrong cost"
                );
                if shape == Shape::Corners {
                    // Cells reduced to their corners (corners already written stay as they are:
                    // one pass over a few of them).
                    sight::keep_corners(out);
                }
                Ok((cost, stats))
            }
            Err(stats) => {
                out.clear();
                Err(SearchError::NoPath { start, goal, stats })
            }
        }
    }
}

/// [`Grid::for_agent_size`] of one grid state ([`Grid::id`] and revision) for one size.
struct SizedGrid {
    id: u64,
    revision: u64,
    size: u8,
    grid: Grid,
}

/// One query's inputs, passed to the algorithm modules.
pub(crate) struct Query<'a> {
    pub(crate) grid: &'a Grid,
    pub(crate) start: Pos,
    pub(crate) goal: Pos,
    pub(crate) settings: &'a Settings,
    /// What the search writes of its route.
    pub(crate) shape: Shape,
}

/// What of its route a search writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Every cell ([`Searcher::find_path_into`]).
    Cells,
    /// Its corners ([`Searcher::find_corners_into`]).
    Corners,
}

/// Per-cell cost, 8 bytes; only read for cells that are open this query. The cell's state
/// (seen, closed, parent direction) lives in a separate 1-byte array, so the test every
/// generated child makes ("seen? closed?") touches 1 byte per cell instead of 9: the state
/// array of a 512×512 map (256 KB) stays in the L2 cache, and its rows near the search
/// frontier in the L1. (JPS, whose few nodes lie far apart, keeps all of a node in one record
/// instead: see `jps::JumpNodes`.)
#[derive(Clone, Copy, Default)]
pub(crate) struct Node {
    /// The cost from the origin: either an `f64` split in two halves (generic searches) or, for
    /// the octile A*, the exact pair `(a, b)` of the cost `a + b·√2`.
    g: [u32; 2],
}

/// Bits of a state word below the generation: `closed << 4 | direction`.
const STATE_BITS: u32 = 5;
/// Largest generation a state byte holds (7); the state array is cleared when it is reached,
/// i.e. every 7 queries (a `memset` of one byte per cell, against the cache misses a wider
/// state array costs every query).
const MAX_GENERATION: u8 = u8::MAX >> STATE_BITS;

/// The direction code of a search's origin (it has no parent).
pub(crate) const NO_DIR: u32 = 8;

/// Generation-stamped node array (one per search direction).
#[derive(Default)]
pub(crate) struct Nodes {
    cells: Vec<Node>,
    /// Per cell: `generation << 5 | closed << 4 | direction`. The cell is "seen" this query
    /// when `state >> 5 == generation`; `direction` is the index into [`DIRS`](crate::grid) of
    /// the step parent → cell, or [`NO_DIR`] at the origin.
    state: Vec<u8>,
    /// Padded-index offset of each direction, and 0 for [`NO_DIR`].
    offset: [isize; 9],
    generation: u8,
}

impl Nodes {
    /// Starts a new query on a grid of `len` padded cells and row length `stride`.
    pub(crate) fn reset(&mut self, len: usize, stride: usize) {
        if self.cells.len() != len {
            self.cells.clear();
            self.cells.resize(len, Node::default());
            self.state.clear();
            self.state.resize(len, 0);
            self.generation = 0;
        } else if self.generation >= MAX_GENERATION {
            // Every 7 queries: forget all stamps (the costs are only read behind them).
            self.state.fill(0);
            self.generation = 0;
        }
        for (k, &(dx, dy)) in crate::grid::DIRS.iter().enumerate() {
            self.offset[k] = dy as isize * stride.cast_signed() + dx as isize;
        }
        self.offset[NO_DIR as usize] = 0;
        self.generation += 1;
    }

    #[inline(always)]
    pub(crate) fn seen(&self, i: usize) -> bool {
        self.state[i] >> STATE_BITS == self.generation
    }

    #[inline(always)]
    pub(crate) fn closed(&self, i: usize) -> bool {
        self.state[i] >> 4 == self.generation * 2 + 1
    }

    #[inline(always)]
    pub(crate) fn close(&mut self, i: usize) {
        let n = &mut self.state[i];
        *n = (self.generation * 2 + 1) << 4 | (*n & 15);
    }

    /// Cost from the search's origin (valid when [`Nodes::seen`]).
    #[inline(always)]
    pub(crate) fn g(&self, i: usize) -> f64 {
        let [lo, hi] = self.cells[i].g;
        f64::from_bits(u64::from(lo) | u64::from(hi) << 32)
    }

    /// The exact cost pair `(a, b)`, cost `a + b·√2` (octile A* only; valid when seen).
    #[inline(always)]
    pub(crate) fn lattice(&self, i: usize) -> (u32, u32) {
        let [a, b] = self.cells[i].g;
        (a, b)
    }

    /// The direction of the step that entered `i` (valid when seen).
    #[inline(always)]
    pub(crate) fn dir(&self, i: usize) -> u32 {
        u32::from(self.state[i] & 15)
    }

    /// Parent's padded index (valid when [`Nodes::seen`]).
    #[inline(always)]
    pub(crate) fn parent(&self, i: usize) -> usize {
        i.wrapping_add_signed(-self.offset[self.dir(i) as usize])
    }

    /// Opens `i` with cost `g`, entered from its neighbour `parent` (or `parent == i` at the
    /// origin).
    #[inline(always)]
    pub(crate) fn open_cell(&mut self, i: usize, g: f64, parent: usize) {
        let d = i.wrapping_sub(parent).cast_signed();
        #[expect(clippy::cast_possible_truncation, reason = "a direction index below 9")]
        let dir = self.offset[..8].iter().position(|&o| o == d).map_or(NO_DIR, |k| k as u32);
        debug_assert!(dir != NO_DIR || i == parent, "parent must be a neighbour");
        self.open_dir(i, g, dir);
    }

    /// Opens `i` with cost `g`, entered by a step in direction `dir`.
    #[inline(always)]
    pub(crate) fn open_dir(&mut self, i: usize, g: f64, dir: u32) {
        let bits = g.to_bits();
        #[expect(clippy::cast_possible_truncation, reason = "the two halves of the bits")]
        let g = [bits as u32, (bits >> 32) as u32];
        self.cells[i] = Node { g };
        self.set_state(i, dir);
    }

    /// Opens `i` with the exact cost `a + b·√2`, entered by a step in direction `dir`.
    #[inline(always)]
    pub(crate) fn open_lattice(&mut self, i: usize, a: u32, b: u32, dir: u32) {
        self.cells[i] = Node { g: [a, b] };
        self.set_state(i, dir);
    }

    #[inline(always)]
    fn set_state(&mut self, i: usize, dir: u32) {
        debug_assert!(dir <= NO_DIR, "a direction index");
        #[expect(clippy::cast_possible_truncation, reason = "a direction index below 9")]
        {
            self.state[i] = self.generation << STATE_BITS | dir as u8;
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
