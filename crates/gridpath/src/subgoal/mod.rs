//! Simple subgoal graphs: a preprocessed exact search for 8-connected grids of uniform cost that
//! repairs itself after edits.
//!
//! Uras, Koenig and Hernández, "Subgoal Graphs for Optimal Pathfinding in Eight-Neighbor
//! Grids" (ICAPS 2013), the simple subgoal graph (SSG) for the rules of the Moving AI
//! benchmarks: 8 moves, no corner cutting, every step 1 or √2.
//!
//! - **Subgoals** are the cells at the convex corners of obstacles: an open cell `x` with a
//!   diagonal neighbour `x + (dx, dy)` that is blocked while both `x + (dx, 0)` and
//!   `x + (0, dy)` are open (of `x`'s terrain class; a cell of another class is an obstacle).
//!   A shortest route bends only at such cells.
//! - Two cells are *h-reachable* when a route of the octile distance between them exists (all
//!   its diagonal steps one way, its straight steps one way), and *direct-h-reachable* when
//!   besides no such route passes another subgoal. The graph joins every subgoal to the
//!   subgoals it directly-h-reaches, an edge costing their octile distance.
//! - A query joins the start and the goal to the subgoals they directly-h-reach (each one the
//!   other's stop too, so a goal in plain sight is reached directly), runs A* on that graph
//!   with the octile heuristic, and refines each edge into its grid cells: its diagonal steps
//!   first, or its straight ones first (one of the two is free by construction).
//!
//! **Fences** ([`Grid::set_fence`]): every open cell with a fence on a side or a fence post on
//! a corner is a subgoal too (a fence's ends are obstacle corners), and no scan or refined
//! edge steps across a fence; a scan stops at the first such cell, as at any subgoal.
//!
//! Direct-h-reachable cells are found as the paper's clearance-based search does: from the
//! cell, a ray each way along the four axes, then along each diagonal, from every cell of the
//! diagonal the two straight scans of its quadrant, each scan stopping at an obstacle or a
//! subgoal (kept) and never reaching farther than the scan of the diagonal cell before did
//! (a cell beyond is reached as cheaply through the subgoal or corner that stopped it).
//! The straight scans find their stop in bits (`stops.rs`: per class, the cells where a scan
//! stops, in rows and in columns), 64 cells a word, not cell by cell.
//!
//! **Edits.** The graph keeps a copy of the cells it was built on and the grid's id and
//! revision. A query on a grid in another state first repairs the graph ([`SubgoalGraph::repair`]):
//! it diffs the cells, re-decides the subgoals in the 3 × 3 block around each changed cell,
//! and scans again from every subgoal whose previous scan *read* a cell whose state changed —
//! each scan records the bounding box of the cells it read, so this is exact: a scan reading
//! only unchanged cells finds what it found before. So an answer is never stale.
//!
//! **The hierarchy.** Over the graph, [`SubgoalGraph::build`] contracts subgoals into a
//! contraction hierarchy with a core (`hierarchy.rs`; the idea of SGCH) and keeps it where a
//! sample of queries says it saves work. Where memory allows, it keeps each subgoal's upward
//! search below the core as a *hub label*, and the distances across the core in a table
//! (`labels.rs`): a query reads lists instead of searching. A repair that changes the graph drops it: queries then
//! search the repaired graph itself, exact as ever, until [`SubgoalGraph::rebuild_hierarchy`].
//! Where no hierarchy is kept, the search over the graph itself estimates by landmarks
//! (`landmarks.rs`: a few subgoals' exact distances to every subgoal) as well as the octile
//! distance; a repair that changes the graph drops those too.
//!
//! **The table of scans.** Where memory and time allow, [`SubgoalGraph::rebuild_hierarchy`]
//! also keeps every open cell's scan (`seeds.rs`): a query reads the subgoals its start and
//! goal directly-h-reach instead of scanning, and looks for the other end along the one ray or
//! quadrant it lies in. A repair that changes the graph drops it with the hierarchy.
//!
//! Costs are kept as exact `a + b·√2` pairs, as in the octile A*, so a route costs exactly
//! what [`Searcher`] finds.

mod hierarchy;
mod labels;
mod landmarks;
mod seeds;
mod stops;

use std::time::{Duration, Instant};

use crate::Corners;
use crate::grid::{DIRS, Grid, Moves, Pos};
use crate::search::{
    BucketQueue, Endpoint, Entry, OpenList, Outcome, Path, SearchError, Searcher, Settings, Shape, Stats,
    check_endpoint, check_same_class,
};
use crate::sight;
use stops::Stops;

/// No subgoal here.
const NONE: u32 = u32::MAX;

/// An adjacency entry's target bits; the two top bits say which end's scan found the edge.
const TARGET: u32 = (1 << 30) - 1;
/// The scan of the subgoal that holds the entry found the edge.
const FOUND_HERE: u32 = 1 << 31;
/// The scan of the entry's target found the edge.
const FOUND_THERE: u32 = 1 << 30;

/// Queries [`SubgoalGraph::rebuild_hierarchy`] runs to decide whether the hierarchy pays.
const SAMPLE_QUERIES: usize = 64;

/// How much slower than the search without them the sample may run with landmarks, and they
/// are still kept (see [`SubgoalGraph::rebuild_hierarchy`]).
const LANDMARK_SLACK: f64 = 1.1;

/// How a timing sample's spans run (see `SubgoalGraph::sample`).
#[derive(Clone, Copy)]
enum Spans {
    Halving,
    Even,
}

/// Past this share of changed cells, [`SubgoalGraph::repair`] rebuilds instead (1 in 8).
const REBUILD_SHARE: usize = 8;

/// One subgoal: its cell, the box of the cells its scan read, and its edges.
#[derive(Clone, Debug)]
struct Subgoal {
    /// Padded cell index, [`NONE`] for a free slot.
    cell: u32,
    /// Padded column and row.
    x: u16,
    y: u16,
    /// Padded coordinates `[min x, min y, max x, max y]` of every cell its scan read.
    read: [u16; 4],
    /// Edges to other subgoals.
    adj: Vec<Edge>,
}

/// A graph node's search state.
#[derive(Clone, Copy, Default, Debug)]
struct Node {
    /// Cost from the start as the exact pair `(straight, diagonal)`.
    g: [u32; 2],
    parent: u32,
    /// `generation` when seen this query, `generation + 1` when closed too.
    stamp: u32,
    /// Padded coordinates (for the refinement).
    x: u16,
    y: u16,
    /// The edge from the parent is free with its diagonal steps first (else with its straight
    /// steps first): the shape the scan that found it walked (see [`Edge`]).
    diagonal_first: bool,
}

/// A vertex of a route found (start first): its padded coordinates, and whether the edge
/// reaching it from the vertex before is free with its diagonal steps first (else with its
/// straight steps first), walked from that vertex.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Step {
    pub(super) x: u16,
    pub(super) y: u16,
    pub(super) diagonal_first: bool,
}

/// An edge: its target slot with the [`FOUND_HERE`] / [`FOUND_THERE`] flags, and the target's
/// padded coordinates (so a search relaxing it reads no other subgoal).
///
/// The flags also say how the edge is refined into cells, with no cell read: a scan walks its
/// diagonal steps first, then its straight ones, so the edge found by this end's scan is free
/// diagonal steps first from here; one found by the other end's scan only is free diagonal
/// steps first from there, which is straight steps first from here.
#[derive(Clone, Copy, Debug)]
struct Edge {
    to: u32,
    x: u16,
    y: u16,
}

/// Per-slot lists laid out in one array, slot after slot: a search reads a slot's list with one
/// lookup into memory laid out as it walks, instead of a jump to the slot and another to its own
/// list. The hierarchy's edges, and the subgoal graph's own for a search over it (those two cache
/// misses were most of an expansion's time on the cluttered maps).
#[derive(Clone, Debug)]
pub(super) struct Runs<T> {
    /// Per slot, where its run begins in `items`; then where the last ends.
    first: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Runs<T> {
    fn default() -> Self {
        Self { first: Vec::new(), items: Vec::new() }
    }
}

impl<T: Copy> Runs<T> {
    /// The runs of `lists`, one per slot in order.
    #[expect(clippy::cast_possible_truncation, reason = "fewer items than 2^32")]
    pub(super) fn of<'a>(lists: impl ExactSizeIterator<Item = &'a [T]> + Clone) -> Self
    where
        T: 'a,
    {
        let mut first = Vec::with_capacity(lists.len() + 1);
        let mut items = Vec::with_capacity(lists.clone().map(<[T]>::len).sum());
        for list in lists {
            first.push(items.len() as u32);
            items.extend_from_slice(list);
        }
        first.push(items.len() as u32);
        Self { first, items }
    }

    /// Slot `slot`'s run.
    #[inline]
    pub(super) fn get(&self, slot: usize) -> &[T] {
        &self.items[self.first[slot] as usize..self.first[slot + 1] as usize]
    }

    pub(super) fn bytes(&self) -> usize {
        Self::size(self.first.len(), self.items.len())
    }

    /// The bytes [`Runs::of`] takes for `slots` lists of `items` items in all: for a budget
    /// before the runs are laid out.
    pub(super) fn bytes_for(slots: usize, items: usize) -> usize {
        Self::size(slots + 1, items)
    }

    /// The bytes of `firsts` run starts and `items` items (an empty `Runs`, the default, has
    /// no starts at all, where one laid out by [`Runs::of`] has one more than its lists).
    fn size(firsts: usize, items: usize) -> usize {
        firsts * size_of::<u32>() + items * size_of::<T>()
    }
}

/// Per-query buffers of the graph search.
#[derive(Default, Debug)]
struct Workspace {
    /// Per slot (subgoals, then the start and the goal).
    nodes: Vec<Node>,
    /// `generation` when the slot has an edge to the goal this query.
    to_goal: Vec<u32>,
    generation: u32,
    /// The search over the graph itself: its estimate is consistent, so `f` never falls and
    /// bucketed pops (see [`BucketQueue`]) beat a heap's.
    open: BucketQueue,
    /// The hierarchy's forward and backward searches: their open lists and per-slot states.
    heap: OpenList,
    heap_b: OpenList,
    fwd: Vec<hierarchy::Side>,
    bwd: Vec<hierarchy::Side>,
    /// The hub labels' query: per hub, its best reach from the start (infinite where not
    /// reached, between queries everywhere); per core place, its best reach to the goal; the
    /// core places the start and the goal reach, with their costs.
    reach: Vec<f64>,
    /// The labels' query wrote `reach` and has not made it unreached again yet.
    reach_written: bool,
    goal_core: Vec<labels::Reach>,
    core_from: Vec<(usize, f64)>,
    core_to: Vec<(usize, f64)>,
    found: Vec<usize>,
    /// Per slot, found by the rescan under way (all `false` between rescans).
    found_now: Vec<bool>,
    start_edges: Vec<usize>,
    /// The route found, start first, for the refinement.
    steps: Vec<Step>,
    /// The hierarchy's unpacking: the hops of the route found, and a stack of hops to unpack.
    hops: Vec<hierarchy::Hop>,
    stack: Vec<hierarchy::Hop>,
}

/// The buffers of one query at a time over a shared graph ([`SubgoalGraph::find_path_with`]):
/// one per thread, so that threads answer from one graph (behind an `Arc`, say) at once. It
/// suits any graph; nothing in it outlives a query but its capacity.
#[derive(Default, Debug)]
pub struct SubgoalQuery {
    work: Workspace,
    /// The exact search for a grid the graph does not describe, and the rare route it cannot
    /// refine.
    fallback: Searcher,
    /// The last query's answer came from the graph's search (see
    /// [`SubgoalQuery::answered_by_graph`]).
    by_graph: bool,
}

impl SubgoalQuery {
    /// Whether the last [`SubgoalGraph::find_path_with`] was answered by the graph (its route,
    /// or its finding that the goal cannot be reached), `false` when it was answered by JPS
    /// over the cells (a graph that does not describe the grid; the rare edge it cannot
    /// refine) or refused before any search (a wall, a bad endpoint, ends of two terrain
    /// classes, settings it does not answer).
    #[must_use]
    pub fn answered_by_graph(&self) -> bool {
        self.by_graph
    }

    /// The route by JPS over the cells into `out`: for a grid the graph does not describe, the
    /// rare route it cannot refine, and the timing against JPS.
    fn by_jps(
        &mut self,
        grid: &Grid,
        (start, goal): (Pos, Pos),
        (out, shape): (&mut Vec<Pos>, Shape),
    ) -> Result<(f64, Stats), SearchError> {
        self.by_graph = false;
        let exact = Settings::with_algorithm(crate::Algorithm::Jps);
        let (cost, stats, _) = self.fallback.find_shaped_into(grid, (start, goal), &exact, (out, shape))?;
        Ok((cost, stats))
    }
}

/// A simple subgoal graph of a [`Grid`]: build it once, then answer exact shortest-route
/// queries faster than a search over cells; edits to the grid are repaired on the next query.
///
/// ```
/// use gridpath::{formats, Searcher, Settings, SubgoalGraph};
/// let map = formats::parse_ascii(
///     "S...#....\n\
///      ..#.#.##.\n\
///      ..#...#.G",
/// )
/// .unwrap();
/// let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
/// let mut grid = map.grid;
/// let mut graph = SubgoalGraph::build(&grid);
/// let settings = Settings::default();
/// let path = graph.find_path(&grid, start, goal, &settings).unwrap();
/// let astar = Searcher::new().find_path(&grid, start, goal, &settings).unwrap();
/// assert_eq!(path.cost, astar.cost);
///
/// // An edit opens a shortcut: the next query repairs the graph first, so it is never stale.
/// grid.set_wall(gridpath::Pos::new(6, 1), false).unwrap();
/// assert!(!graph.is_current(&grid));
/// let after = graph.find_path(&grid, start, goal, &settings).unwrap();
/// assert!(graph.is_current(&grid));
/// assert!(after.cost < path.cost);
/// assert_eq!(after.cost, Searcher::new().find_path(&grid, start, goal, &settings).unwrap().cost);
/// ```
#[derive(Debug)]
pub struct SubgoalGraph {
    /// The grid's id and revision the graph describes.
    id: u64,
    revision: u64,
    width: u32,
    height: u32,
    stride: usize,
    /// Copy of the padded cell bytes the graph describes (class in bits 6–7).
    cells: Vec<u8>,
    /// Copy of the grid's fence masks (`Grid::fence_masks`, empty without fences). Fences
    /// change only by a refresh of the whole grid, so a change rebuilds the graph.
    fences: Vec<u8>,
    /// Per padded cell: its subgoal's slot, or [`NONE`].
    slot_at: Vec<u32>,
    /// Where the scans' straight rays stop, as bits (from `cells` and `slot_at`).
    stops: Stops,
    subgoals: Vec<Subgoal>,
    /// Free slots of `subgoals`.
    free: Vec<u32>,
    build_time: Duration,
    /// The contraction hierarchy over the graph, for the state it was built on; dropped by a
    /// repair that changed the graph (queries then search the graph itself, exact as ever).
    hierarchy: Option<hierarchy::Hierarchy>,
    /// Landmark distances for the search over the graph itself (`landmarks.rs`), where no
    /// hierarchy answers and they save time; dropped with the hierarchy by a repair that
    /// changed the graph.
    landmarks: Option<landmarks::Landmarks>,
    /// Every open cell's scan (`seeds.rs`), where memory and time allow: a query reads its
    /// ends' subgoals instead of scanning. Built with the hierarchy, dropped with it by a
    /// repair that changed the graph.
    seeds: Option<seeds::Seeds>,
    /// The subgoals' edges laid out for a search over the graph itself (see [`Runs`]), when
    /// one has run since a repair changed them and no hierarchy answers the queries.
    flat: Option<Runs<Edge>>,
    /// JPS over the cells answered the timing sample faster than the graph did (see
    /// [`SubgoalGraph::jps_is_faster`]); kept through repairs.
    jps_faster: bool,
    /// A repair dropped the hierarchy or the landmarks the last timed choice kept (see
    /// [`SubgoalGraph::speed_up_dropped`]).
    speed_up_dropped: bool,
    /// The graph's own query buffers and the exact search for the rare query it cannot refine
    /// (never seen in the tests: a safety net that keeps the answer exact). Boxed and taken out
    /// for a query: moving the buffers themselves in and out was 2 % of a query.
    query: Option<Box<SubgoalQuery>>,
}

/// Direction offsets in padded cells.
fn offsets(stride: usize) -> [isize; 8] {
    DIRS.map(|(dx, dy)| dy as isize * stride.cast_signed() + dx as isize)
}

/// The diagonals of [`DIRS`] with their two straight components: `(diagonal, a, b)`.
const QUADRANTS: [(usize, usize, usize); 4] = [(4, 0, 1), (5, 2, 1), (6, 2, 3), (7, 0, 3)];

/// The octile distance between two cells as the pair `(straight, diagonal)`.
fn octile(a: (u16, u16), b: (u16, u16)) -> [u32; 2] {
    let (dx, dy) = (u32::from(a.0.abs_diff(b.0)), u32::from(a.1.abs_diff(b.1)));
    [dx.max(dy) - dx.min(dy), dx.min(dy)]
}

/// The value of the exact cost pair, as every octile search in the crate takes it.
fn value([a, b]: [u32; 2]) -> f64 {
    crate::search::octile_value(u64::from(a), u64::from(b))
}

/// Cells touched by an edit, as counts summed over their bounding box: how many lie in any
/// box, in four lookups.
struct TouchedCells {
    /// The bounding box (padded coordinates, both ends included).
    x0: usize,
    y0: usize,
    x1: usize,
    y1: usize,
    /// The box's width plus one: the table's row length.
    row: usize,
    /// `sums[(y + 1) * row + x + 1]`: touched cells in the box's columns `..=x`, rows `..=y`.
    sums: Vec<u32>,
}

impl TouchedCells {
    fn new(cells: &[usize], stride: usize) -> Self {
        let xy = |i: usize| (i % stride, i / stride);
        if cells.is_empty() {
            // An empty box: `any` is false for every box.
            return Self { x0: 1, y0: 1, x1: 0, y1: 0, row: 1, sums: Vec::new() };
        }
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for &i in cells {
            let (x, y) = xy(i);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let row = x1 - x0 + 2;
        let mut sums = vec![0u32; row * (y1 - y0 + 2)];
        for &i in cells {
            let (x, y) = xy(i);
            sums[(y - y0 + 1) * row + x - x0 + 1] += 1;
        }
        for y in 1..=y1 - y0 + 1 {
            for x in 1..row {
                sums[y * row + x] +=
                    sums[y * row + x - 1] + sums[(y - 1) * row + x] - sums[(y - 1) * row + x - 1];
            }
        }
        Self { x0, y0, x1, y1, row, sums }
    }

    /// Whether a touched cell lies in the padded box `[min x, min y, max x, max y]`.
    fn any(&self, [bx0, by0, bx1, by1]: [u16; 4]) -> bool {
        let (bx0, by0) = (usize::from(bx0).max(self.x0), usize::from(by0).max(self.y0));
        let (bx1, by1) = (usize::from(bx1).min(self.x1), usize::from(by1).min(self.y1));
        if bx0 > bx1 || by0 > by1 {
            return false;
        }
        // Table coordinates: column `x` of the box is `x - x0 + 1`, the sums up to it.
        let at = |x: usize, y: usize| self.sums[y * self.row + x];
        let (l, t, r, b) = (bx0 - self.x0, by0 - self.y0, bx1 - self.x0 + 1, by1 - self.y0 + 1);
        at(r, b) + at(l, t) > at(l, b) + at(r, t)
    }
}

/// A bounding box of padded coordinates being grown.
struct Bbox([usize; 4]);

impl Bbox {
    fn include(&mut self, x: usize, y: usize) {
        self.0[0] = self.0[0].min(x);
        self.0[1] = self.0[1].min(y);
        self.0[2] = self.0[2].max(x);
        self.0[3] = self.0[3].max(y);
    }

    #[expect(clippy::cast_possible_truncation, reason = "padded sides are at most 8194")]
    fn packed(&self) -> [u16; 4] {
        self.0.map(|v| v as u16)
    }
}

/// The cells a scan reads: the class copy, the fences and the subgoal map.
struct View<'a> {
    cells: &'a [u8],
    /// Fence masks (empty without fences): a step across one is blocked.
    fences: &'a [u8],
    slot_at: &'a [u32],
    stops: &'a Stops,
    stride: usize,
    off: [isize; 8],
}

impl View<'_> {
    /// Finds the cells direct-h-reachable from padded cell `s` that are subgoals or `extra`,
    /// pushing them into `out`; returns the box of the cells read.
    fn scan(&self, s: usize, extra: usize, out: &mut Vec<usize>) -> Bbox {
        let class = self.cells[s] >> 6;
        let free = |i: usize| self.cells[i] >> 6 == class;
        // The step from `i` in direction `d` crosses a fence (only from a vertex or the scan's
        // own cell: every other cell next to a fence is a subgoal, where the scan stops).
        let fenced = |i: usize, d: usize| !self.fences.is_empty() && self.fences[i] >> d & 1 == 1;
        let (sx, sy) = (s % self.stride, s / self.stride);
        let mut bb = Bbox([sx, sy, sx, sy]);
        let step = |x: usize, d: usize, n: usize| x.wrapping_add_signed(DIRS[d].0 as isize * n.cast_signed());
        let step_y =
            |y: usize, d: usize, n: usize| y.wrapping_add_signed(DIRS[d].1 as isize * n.cast_signed());
        // Steps from `(x, y)` along straight direction `d` to `extra`, if it lies that way.
        let (ex, ey) = (extra % self.stride, extra / self.stride);
        let to_extra = |(x, y): (usize, usize), d: usize| match d {
            _ if extra >= self.cells.len() => usize::MAX,
            0 if ex == x && ey < y => y - ey,
            1 if ey == y && ex > x => ex - x,
            2 if ex == x && ey > y => ey - y,
            3 if ey == y && ex < x => x - ex,
            _ => usize::MAX,
        };
        // The scan's cell is open, so its class has stop bits.
        let Some(stops) = self.stops.of(class) else {
            debug_assert!(false, "no stop bits for an open cell's class");
            return bb;
        };
        // A straight ray from `i` at `xy` in direction `d`: the free cells before the first
        // obstacle or vertex (pushed into `out`), at most `limit`. The stop bits find the
        // first stop; only the ray's first step can cross a fence (every other cell beside one
        // is a subgoal, which stops the ray).
        let ray = |i: usize, xy: (usize, usize), d: usize, limit: usize, out: &mut Vec<usize>| {
            if limit == 0 || fenced(i, d) {
                return 0;
            }
            let k = stops.first(xy, d, limit).min(to_extra(xy, d));
            if k > limit {
                return limit;
            }
            // A stop of the scan's class is a vertex (the bits' stops are the other classes
            // and the subgoals; `extra` is one).
            let end = i.wrapping_add_signed(self.off[d] * k.cast_signed());
            if free(end) {
                out.push(end);
            }
            k - 1
        };
        // Straight rays: the free cells before the first obstacle or vertex each way.
        let mut clear = [0usize; 4];
        for (d, c) in clear.iter_mut().enumerate() {
            *c = ray(s, (sx, sy), d, usize::MAX, out);
            bb.include(step(sx, d, *c + 1), step_y(sy, d, *c + 1));
        }
        for (diag, a, b) in QUADRANTS {
            let mut max = [clear[a], clear[b]];
            let (mut p, mut px, mut py) = (s, sx, sy);
            loop {
                // The diagonal step needs both its straight neighbours (no corner cutting).
                let next = p.wrapping_add_signed(self.off[diag]);
                bb.include(step(px, diag, 1), step_y(py, diag, 1));
                if !(free(p.wrapping_add_signed(self.off[a]))
                    && free(p.wrapping_add_signed(self.off[b]))
                    && free(next)
                    && !fenced(p, diag))
                {
                    break;
                }
                p = next;
                (px, py) = (step(px, diag, 1), step_y(py, diag, 1));
                // `p` is free: a stop bit there is a subgoal's (a bit, not its slot, read).
                if p == extra || stops.stops_at((px, py)) {
                    out.push(p);
                    break;
                }
                for (m, d) in [(0, a), (1, b)] {
                    let t = ray(p, (px, py), d, max[m], out);
                    let reach = if t < max[m] { t + 1 } else { t };
                    bb.include(step(px, d, reach), step_y(py, d, reach));
                    max[m] = t;
                }
            }
        }
        bb
    }

    /// Whether [`scan`](Self::scan) from padded cell `s` with `extra` = `g` (open, of `s`'s
    /// class, another cell) would find `g`: `g` in direct reach. Worked out along the one ray or
    /// quadrant that can reach `g`, as the scan walks it, instead of the whole scan: a cell off
    /// `s`'s row and column lies in one quadrant, whose diagonal it is reached from on its own
    /// row or column (or on the diagonal itself).
    fn reaches(&self, s: usize, g: usize) -> bool {
        let class = self.cells[s] >> 6;
        let free = |i: usize| self.cells[i] >> 6 == class;
        let fenced = |i: usize, d: usize| !self.fences.is_empty() && self.fences[i] >> d & 1 == 1;
        let Some(stops) = self.stops.of(class) else {
            debug_assert!(false, "no stop bits for an open cell's class");
            return false;
        };
        let (sx, sy) = (s % self.stride, s / self.stride);
        let (gx, gy) = (g % self.stride, g / self.stride);
        // The scan's ray from `i` at `xy` along `d` no farther than `limit`: how far it reaches
        // when `g` does not lie that way.
        let ray = |i: usize, xy: (usize, usize), d: usize, limit: usize| {
            if limit == 0 || fenced(i, d) {
                return 0;
            }
            let k = stops.first(xy, d, limit);
            if k > limit { limit } else { k - 1 }
        };
        // The scan's ray from `i` at `xy` along `d` no farther than `limit` finds `g`, `n` steps
        // away that way: no stop before it.
        let ray_finds = |i: usize, xy: (usize, usize), d: usize, limit: usize, n: usize| {
            limit > 0 && !fenced(i, d) && n <= limit && stops.first(xy, d, limit) >= n
        };
        let (dx, dy) = (gx.abs_diff(sx), gy.abs_diff(sy));
        // On `s`'s column or row: the straight ray that way (north, east, south, west).
        if dx == 0 {
            return ray_finds(s, (sx, sy), if gy < sy { 0 } else { 2 }, usize::MAX, dy);
        }
        if dy == 0 {
            return ray_finds(s, (sx, sy), if gx > sx { 1 } else { 3 }, usize::MAX, dx);
        }
        // The quadrant `g` lies in: its diagonal and its two straight directions.
        let (diag, a, b) = match (gx > sx, gy > sy) {
            (true, false) => QUADRANTS[0],
            (true, true) => QUADRANTS[1],
            (false, true) => QUADRANTS[2],
            (false, false) => QUADRANTS[3],
        };
        let mut max = [ray(s, (sx, sy), a, usize::MAX), ray(s, (sx, sy), b, usize::MAX)];
        let (mut p, mut px, mut py) = (s, sx, sy);
        let diagonal = dx.min(dy);
        for step in 1..=diagonal {
            let next = p.wrapping_add_signed(self.off[diag]);
            if !(free(p.wrapping_add_signed(self.off[a]))
                && free(p.wrapping_add_signed(self.off[b]))
                && free(next)
                && !fenced(p, diag))
            {
                return false;
            }
            p = next;
            px = px.wrapping_add_signed(DIRS[diag].0 as isize);
            py = py.wrapping_add_signed(DIRS[diag].1 as isize);
            if p == g {
                return true;
            }
            if stops.stops_at((px, py)) {
                return false;
            }
            if step == diagonal {
                // On `g`'s row or column now: along `a` (north or south) or `b`.
                return if dy > dx {
                    ray_finds(p, (px, py), a, max[0], dy - dx)
                } else {
                    ray_finds(p, (px, py), b, max[1], dx - dy)
                };
            }
            max = [ray(p, (px, py), a, max[0]), ray(p, (px, py), b, max[1])];
        }
        false
    }
}

/// A copy of the graph, its hierarchy and landmarks: one to work on elsewhere (build its
/// hierarchy again on another thread, say) while this one answers. The copy's query buffers
/// start empty; it describes the same grid and revision.
impl Clone for SubgoalGraph {
    fn clone(&self) -> Self {
        Self {
            id: self.id,
            revision: self.revision,
            width: self.width,
            height: self.height,
            stride: self.stride,
            cells: self.cells.clone(),
            fences: self.fences.clone(),
            slot_at: self.slot_at.clone(),
            stops: self.stops.clone(),
            subgoals: self.subgoals.clone(),
            free: self.free.clone(),
            build_time: self.build_time,
            hierarchy: self.hierarchy.clone(),
            landmarks: self.landmarks.clone(),
            seeds: self.seeds.clone(),
            flat: self.flat.clone(),
            jps_faster: self.jps_faster,
            speed_up_dropped: self.speed_up_dropped,
            query: None,
        }
    }
}

impl SubgoalGraph {
    /// Builds the graph of `grid`'s current state: its subgoals and their edges, timed
    /// ([`SubgoalGraph::build_time`]). Every terrain class gets its own subgoals (a cell of
    /// another class is an obstacle); terrain costs are ignored here and refused by the queries.
    #[must_use]
    pub fn build(grid: &Grid) -> Self {
        let began = Instant::now();
        let mut graph = Self {
            id: grid.id(),
            revision: grid.revision(),
            width: grid.width(),
            height: grid.height(),
            stride: grid.stride(),
            cells: grid.cells().to_vec(),
            fences: grid.fence_masks().to_vec(),
            slot_at: vec![NONE; grid.padded_len()],
            stops: Stops::new(grid.cells(), grid.stride()),
            subgoals: Vec::new(),
            free: Vec::new(),
            build_time: Duration::ZERO,
            hierarchy: None,
            landmarks: None,
            seeds: None,
            flat: None,
            jps_faster: false,
            speed_up_dropped: false,
            query: None,
        };
        let stride = graph.stride;
        for y in 1..=graph.height as usize {
            for x in 1..=graph.width as usize {
                let i = y * stride + x;
                if graph.is_subgoal(i) {
                    graph.add_subgoal(i);
                }
            }
        }
        for slot in 0..graph.subgoals.len() {
            graph.rescan(slot);
        }
        graph.rebuild_speed_ups(began);
        graph.time_against_jps(grid);
        graph.build_time = began.elapsed();
        graph
    }

    /// How long [`SubgoalGraph::build`] took.
    #[must_use]
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// Builds the contraction hierarchy over the graph again (a repair drops it; until then
    /// queries search the subgoal graph itself, exact but slower).
    ///
    /// The hierarchy is kept only where it saves time: on 64 queries of every length between
    /// open cells spread over the map, the searches with and without it are timed and it is
    /// dropped unless it is the faster (a choice of this machine, so it may differ between
    /// runs where the two are close; either answers exactly). It pays on
    /// mazes and cluttered maps, where the subgoal graph is long and thin; on open maps its
    /// core stays large and a search without a heuristic there does more than A* on the graph.
    ///
    /// A hierarchy with hub labels is timed with and without them, and keeps them only if
    /// they are the faster. Unless the hierarchy has hub labels or halves the sample's time, landmarks
    /// (`landmarks.rs`: the exact distances of a few subgoals far apart to every subgoal) are
    /// timed the same way for the search over the graph itself; they are kept unless they make
    /// the sample a tenth slower (`LANDMARK_SLACK`), and a hierarchy that is not a tenth
    /// faster than they are gives way to them (random512-10's, whose core is most of the graph).
    ///
    /// Each is held within 60 bytes a cell with the graph (the hierarchy's contraction stops
    /// there, the landmarks are as many as fit; small maps get a floor of room).
    ///
    /// Then every open cell's scan is kept in a table (`seeds.rs`) where the graph stays within
    /// 60 bytes a cell with it (or within 4 MiB in all: small maps) and a sample of its scans
    /// says the rebuild ends within 1.5 s with it (a whole [`build`](Self::build): the build).
    pub fn rebuild_hierarchy(&mut self) {
        self.rebuild_speed_ups(Instant::now());
    }

    /// [`rebuild_hierarchy`](Self::rebuild_hierarchy) as part of work that began at `began`,
    /// whose time the table's budget counts.
    fn rebuild_speed_ups(&mut self, began: Instant) {
        self.seeds = None;
        self.choose_speed_ups();
        let budget = seeds::budget(self.width as usize * self.height as usize, self.bytes());
        let time = seeds::BUILD_BUDGET.saturating_sub(began.elapsed());
        self.seeds = seeds::Seeds::build(&self.view(), budget, time);
    }

    /// The hierarchy, its labels and the landmarks kept, as [`SubgoalGraph::rebuild_hierarchy`]
    /// says.
    fn choose_speed_ups(&mut self) {
        self.hierarchy = None;
        self.landmarks = None;
        self.speed_up_dropped = false;
        let built = hierarchy::Hierarchy::build(&self.subgoals, self.label_budget());
        let pairs = self.sample(Spans::Halving);
        if pairs.is_empty() {
            self.hierarchy = built;
            return;
        }
        // The time of the sample, the fastest of `passes` passes (three in all for each way
        // of answering: a shared machine's preemptions last longer than the sample), or the
        // bound if none ran within it: the core is searched without a heuristic, so fewer
        // nodes alone can hide more edges, and no count weighs heap operations against edges
        // as the machine does.
        let work = |graph: &mut Self, bound: Duration, passes: usize| -> Duration {
            let mut best = bound;
            for _ in 0..passes {
                let began = Instant::now();
                for &(a, b) in &pairs {
                    let _ = std::hint::black_box(graph.search(a, b));
                    if began.elapsed() >= best {
                        // Slower than the bound already: where contraction gave up, a core
                        // of most of the graph would take seconds to time in full.
                        break;
                    }
                }
                best = best.min(began.elapsed());
            }
            best
        };
        // One pass over the graph itself bounds the hierarchy's; its other two need run no
        // longer than twice the hierarchy's time, past which the hierarchy is kept whatever
        // they show (random512-25-0's three took 260 ms of its build, its hierarchy's 27).
        // (The first pass also lays out the flat edges and warms the caches: a loose bound.)
        let first_flat = work(self, Duration::MAX, 1);
        // No hierarchy within the bytes: never faster.
        let has_hierarchy = built.is_some();
        self.hierarchy = built;
        let mut tiered = if has_hierarchy { work(self, first_flat, 3) } else { Duration::MAX };
        // Labels that read more than the search settles (moonglade's: many seeds, each label
        // long) are dropped for the search.
        if let Some(labels) = self.hierarchy.as_mut().and_then(hierarchy::Hierarchy::take_labels) {
            let searched = work(self, tiered, 3);
            if searched < tiered {
                tiered = searched;
            } else if let Some(h) = &mut self.hierarchy {
                h.put_labels(labels);
            }
        }
        let held = self.hierarchy.take();
        let flat = first_flat.min(work(self, first_flat.min(tiered.saturating_mul(2)), 2));
        self.hierarchy = held;
        // A hierarchy with hub labels, or twice as fast as the search over the graph itself
        // (`flat` is then at least twice `tiered`, the bound its passes stopped at), is kept
        // without timing landmarks (which never took a tenth off the sample on the shared
        // maps, and take a tenth of random512-25's build): the flat edges would only take room.
        if tiered < flat && (self.has_labels() || tiered.saturating_mul(2) <= flat) {
            self.flat = None;
            return;
        }
        // Landmarks cost a little on short routes and save most on long ones, which the
        // sample holds fewer of than a game's or a benchmark's queries (its spans halve):
        // kept unless they make the sample a tenth slower than the search without them, and
        // preferred to a hierarchy (without labels) that is not a tenth faster.
        let built = self.hierarchy.take();
        self.landmarks = self.measure_landmarks();
        let bound = flat.mul_f64(LANDMARK_SLACK);
        let marked = if self.landmarks.is_some() { work(self, bound, 3) } else { Duration::MAX };
        if tiered < flat && tiered.mul_f64(LANDMARK_SLACK) < marked {
            self.hierarchy = built;
            self.landmarks = None;
            self.flat = None;
        } else if marked >= bound {
            self.landmarks = None;
        }
    }

    /// A timing sample: pairs of open padded cells of one class, the first at evenly spaced
    /// indices, the second an index span further (rows, roughly). `Spans::Halving`: a span that
    /// halves every query down to 1/128 of the open cells and then starts again, many short
    /// queries, which favour the graph without the hierarchy; `Spans::Even`: spans evenly
    /// spread up to half the open cells, lengths as even as a benchmark's. Empty on a grid of
    /// fewer than two open cells.
    fn sample(&self, spans: Spans) -> Vec<(usize, usize)> {
        let open: Vec<usize> = (0..self.cells.len()).filter(|&i| self.cells[i] >> 6 != 0).collect();
        if open.len() < 2 {
            return Vec::new();
        }
        let step = (open.len() / SAMPLE_QUERIES).max(1);
        (0..SAMPLE_QUERIES)
            .map(|k| {
                let from = (k * step) % open.len();
                let span = match spans {
                    Spans::Halving => (open.len() >> (k % 8)) / 2 + 1,
                    Spans::Even => open.len() * (k + 1) / (2 * SAMPLE_QUERIES) + 1,
                };
                (open[from], open[(from + span) % open.len()])
            })
            .filter(|&(a, b)| a != b && self.cells[a] >> 6 == self.cells[b] >> 6)
            .collect()
    }

    /// Times the graph's answers against JPS's over `grid` on 64 queries of lengths spread
    /// evenly (a short query is quick by either, a long one is where the time goes) and keeps
    /// the verdict ([`SubgoalGraph::jps_is_faster`], returned too). Each is
    /// the fastest of three passes, every answer written out in cells (the graph's scans,
    /// search and refinement; JPS's search and its cells); a pass stops once it is slower than
    /// the other's best, so the slower costs about the faster's time. [`SubgoalGraph::build`]
    /// does this after the hierarchy; after [`SubgoalGraph::rebuild_hierarchy`] a caller who
    /// reads the verdict does it again. On a grid the graph does not describe
    /// ([`SubgoalGraph::is_current`]) nothing is timed and the verdict stays.
    pub fn time_against_jps(&mut self, grid: &Grid) -> bool {
        if !self.is_current(grid) {
            return self.jps_faster;
        }
        let pairs = self.sample(Spans::Even);
        self.lay_out_edges();
        let mut query = self.query.take().unwrap_or_default();
        let mut cells = Vec::new();
        // [graph, JPS]
        let mut best = [Duration::MAX; 2];
        for _ in 0..3 {
            for (k, by_jps) in [false, true].into_iter().enumerate() {
                let bound = best[0].min(best[1]);
                let began = Instant::now();
                for &(a, b) in &pairs {
                    let ends = (grid.pos_of(a), grid.pos_of(b));
                    if by_jps {
                        let _ = query.by_jps(grid, ends, (&mut cells, Shape::Cells));
                    } else {
                        let _ = self.answer(grid, ends, &mut query, (&mut cells, Shape::Cells));
                    }
                    std::hint::black_box(&cells);
                    if began.elapsed() >= bound {
                        break;
                    }
                }
                best[k] = best[k].min(began.elapsed());
            }
        }
        self.query = Some(query);
        self.jps_faster = !pairs.is_empty() && best[1] < best[0];
        self.jps_faster
    }

    /// Whether JPS over the cells answered faster than this graph when last timed
    /// ([`SubgoalGraph::build`], [`SubgoalGraph::time_against_jps`]): both on the same 64
    /// queries of every length, each answer written out in cells. It is so on open maps
    /// (the city maps and the open game maps of the Moving AI set), where the graph is dense
    /// and JPS jumps far, and not on mazes, rooms and cluttered maps. A caller after the fastest exact
    /// route searches by JPS where it is; both are exact. A choice of this machine: where the
    /// two are close it may differ between runs. Kept through repairs.
    #[must_use]
    pub fn jps_is_faster(&self) -> bool {
        self.jps_faster
    }

    /// Sets [`SubgoalGraph::jps_is_faster`]'s verdict (for comparisons and tests).
    pub fn set_jps_is_faster(&mut self, faster: bool) {
        self.jps_faster = faster;
    }

    /// Builds the contraction hierarchy and keeps it whether or not it saves work (see
    /// [`SubgoalGraph::rebuild_hierarchy`]): for comparisons and tests. Within the bytes every
    /// speed-up keeps to: none where even the uncontracted graph's edges would pass them.
    pub fn force_hierarchy(&mut self) {
        self.hierarchy = hierarchy::Hierarchy::build(&self.subgoals, self.label_budget());
        self.flat = None;
        self.speed_up_dropped = false;
    }

    /// The bytes this graph's hierarchy and hub labels may take (`labels.rs`): what the graph
    /// without its speed-ups leaves, as `rebuild_hierarchy` chooses them (the table of scans
    /// comes after, in what the labels leave; a kept hierarchy needs no edges laid out for the
    /// search over the graph itself; `force_hierarchy` on a graph with a table gives the
    /// labels the same room).
    fn label_budget(&self) -> usize {
        labels::budget(self.width as usize * self.height as usize, self.bytes_without_speed_ups())
    }

    /// [`bytes`](Self::bytes) less the hierarchy's, the landmarks', the table's and the edges
    /// laid out for the search over the graph itself.
    fn bytes_without_speed_ups(&self) -> usize {
        self.bytes()
            - self.hierarchy.as_ref().map_or(0, hierarchy::Hierarchy::bytes)
            - self.landmarks.as_ref().map_or(0, landmarks::Landmarks::bytes)
            - self.seeds.as_ref().map_or(0, seeds::Seeds::bytes)
            - self.flat.as_ref().map_or(0, Runs::bytes)
    }

    /// Drops the hierarchy's hub labels, if it has them: queries search the hierarchy (for
    /// comparisons and tests).
    pub fn drop_labels(&mut self) {
        if let Some(h) = &mut self.hierarchy {
            h.take_labels();
        }
    }

    /// Whether the hierarchy answers by hub labels (`labels.rs`: each subgoal's upward search
    /// below the core done at the build, and a table of distances across the core): kept with
    /// the hierarchy where its core has at most 512 subgoals and the graph stays within 60
    /// bytes a cell with them (or the labels within a megabyte).
    #[must_use]
    pub fn has_labels(&self) -> bool {
        self.hierarchy.as_ref().is_some_and(hierarchy::Hierarchy::has_labels)
    }

    /// Drops the contraction hierarchy: queries search the subgoal graph itself (for
    /// comparisons and tests; a repair that changes the graph does this too).
    pub fn drop_hierarchy(&mut self) {
        self.hierarchy = None;
    }

    /// Drops the hierarchy and measures landmarks for the search over the graph itself,
    /// keeping them whether or not they save work (see
    /// [`SubgoalGraph::rebuild_hierarchy`]): for comparisons and tests. As many as fit the
    /// bytes every speed-up keeps to (eight on small maps), none where not one does.
    pub fn force_landmarks(&mut self) {
        self.hierarchy = None;
        self.landmarks = self.measure_landmarks();
        self.speed_up_dropped = false;
    }

    /// Landmarks for the graph as it stands (`landmarks.rs`), as many as fit beside the graph
    /// and the edges laid out for the search they serve within the labels' bytes a cell
    /// (`labels.rs`; random512-15's eight took it to 66 bytes a cell, over issue 24's 64);
    /// `None` without subgoals or room for one.
    fn measure_landmarks(&self) -> Option<landmarks::Landmarks> {
        // The edges laid out as `lay_out_edges` lays them out.
        let edges = self.subgoals.iter().map(|s| s.adj.len()).sum();
        let flat = Runs::<Edge>::bytes_for(self.subgoals.len(), edges);
        let cells = self.width as usize * self.height as usize;
        let room = labels::budget(cells, self.bytes_without_speed_ups() + flat);
        landmarks::Landmarks::build(&self.subgoals, f64::from(self.width.max(self.height)), room)
    }

    /// Drops the landmarks: the search over the graph itself estimates by the octile distance
    /// alone (for comparisons and tests; a repair that changes the graph does this too).
    pub fn drop_landmarks(&mut self) {
        self.landmarks = None;
    }

    /// Whether the search over the graph itself uses landmarks (see
    /// [`SubgoalGraph::rebuild_hierarchy`]).
    #[must_use]
    pub fn has_landmarks(&self) -> bool {
        self.landmarks.is_some()
    }

    /// Whether queries use the contraction hierarchy (built by [`SubgoalGraph::build`] and
    /// [`SubgoalGraph::rebuild_hierarchy`], dropped by a repair that changed the graph).
    #[must_use]
    pub fn has_hierarchy(&self) -> bool {
        self.hierarchy.is_some()
    }

    /// Whether a repair dropped the hierarchy, the landmarks or the table of scans that the
    /// last timed choice ([`SubgoalGraph::build`], [`SubgoalGraph::rebuild_hierarchy`]) kept:
    /// queries are exact but slower until [`SubgoalGraph::rebuild_hierarchy`] runs again (a
    /// game does it once its edits pause). `false` after a rebuild (a grid of another size, most cells changed),
    /// which makes the choice anew, after [`SubgoalGraph::force_hierarchy`] or
    /// [`SubgoalGraph::force_landmarks`], and where the choice kept neither.
    #[must_use]
    pub fn speed_up_dropped(&self) -> bool {
        self.speed_up_dropped
    }

    /// The hierarchy's size, when queries use one: `(core subgoals, shortcuts)`.
    #[must_use]
    pub fn hierarchy_size(&self) -> Option<(usize, usize)> {
        self.hierarchy.as_ref().map(|h| (h.core, h.shortcuts))
    }

    /// Number of subgoals.
    #[must_use]
    pub fn subgoals(&self) -> usize {
        self.subgoals.len() - self.free.len()
    }

    /// Number of (undirected) edges between subgoals.
    #[must_use]
    pub fn edges(&self) -> usize {
        self.subgoals.iter().map(|s| s.adj.len()).sum::<usize>() / 2
    }

    /// Every edge as its two subgoal cells (the lesser first), sorted: the graph's structure,
    /// for inspection, drawing and tests (a repaired graph equals a fresh build).
    #[must_use]
    pub fn edge_list(&self) -> Vec<(Pos, Pos)> {
        let cell = |s: &Subgoal| Pos::new(u32::from(s.x) - 1, u32::from(s.y) - 1);
        let key = |p: Pos| (p.y, p.x);
        let mut edges: Vec<(Pos, Pos)> = self
            .subgoals
            .iter()
            .filter(|s| s.cell != NONE)
            .flat_map(|s| {
                s.adj.iter().map(move |e| {
                    let (a, b) = (cell(s), Pos::new(u32::from(e.x) - 1, u32::from(e.y) - 1));
                    if key(a) <= key(b) { (a, b) } else { (b, a) }
                })
            })
            .collect();
        edges.sort_by_key(|&(a, b)| (key(a), key(b)));
        edges.dedup();
        edges
    }

    /// Bytes the graph holds (its cell copy, subgoal map, subgoals and edges; not the query
    /// buffers): divide by [`Grid::len`] for bytes per cell.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.cells.len()
            + self.fences.len()
            + self.slot_at.len() * size_of::<u32>()
            + self.stops.bytes()
            + self.subgoals.len() * size_of::<Subgoal>()
            + self.subgoals.iter().map(|s| s.adj.len() * size_of::<Edge>()).sum::<usize>()
            + self.free.len() * size_of::<u32>()
            + self.hierarchy.as_ref().map_or(0, hierarchy::Hierarchy::bytes)
            + self.landmarks.as_ref().map_or(0, landmarks::Landmarks::bytes)
            + self.seeds.as_ref().map_or(0, seeds::Seeds::bytes)
            + self.flat.as_ref().map_or(0, Runs::bytes)
    }

    /// `true` when the graph describes `grid` as it is now (same grid, same revision). A query
    /// on a grid in another state repairs the graph first; a game can call
    /// [`SubgoalGraph::repair`] itself, off the query path.
    #[must_use]
    pub fn is_current(&self, grid: &Grid) -> bool {
        self.id == grid.id() && self.revision == grid.revision()
    }

    /// Brings the graph in step with `grid`: a no-op when [`SubgoalGraph::is_current`], a
    /// rebuild for a grid of another size or when more than an eighth of the cells changed,
    /// else an incremental repair of the changed cells (see the module notes). Returns the
    /// number of cells whose terrain class changed.
    pub fn repair(&mut self, grid: &Grid) -> usize {
        if self.is_current(grid) {
            return 0;
        }
        if grid.width() != self.width || grid.height() != self.height || self.fences != grid.fence_masks() {
            self.rebuild(grid);
            return grid.len();
        }
        let new = grid.cells();
        let mut changed = Vec::new();
        for (k, (a, b)) in self.cells.chunks_exact(8).zip(new.chunks_exact(8)).enumerate() {
            if a != b {
                changed.extend((k * 8..k * 8 + 8).filter(|&i| self.cells[i] >> 6 != new[i] >> 6));
            }
        }
        let tail = self.cells.len() / 8 * 8;
        changed.extend((tail..self.cells.len()).filter(|&i| self.cells[i] >> 6 != new[i] >> 6));
        if changed.len() * REBUILD_SHARE > grid.len() {
            self.rebuild(grid);
            return changed.len();
        }
        self.cells.copy_from_slice(new);
        for &i in &changed {
            self.refresh_stops(i);
        }
        (self.id, self.revision) = (grid.id(), grid.revision());
        if !changed.is_empty() {
            // What was derived from the graph as it was.
            self.speed_up_dropped |=
                self.hierarchy.is_some() || self.landmarks.is_some() || self.seeds.is_some();
            self.hierarchy = None;
            self.landmarks = None;
            self.seeds = None;
            self.flat = None;
        }
        self.repair_cells(&changed);
        changed.len()
    }

    /// Builds the graph again for `grid` (keeping the query buffers).
    pub fn rebuild(&mut self, grid: &Grid) {
        let query = self.query.take();
        *self = Self { query, ..Self::build(grid) };
    }

    /// Repairs the graph after the classes of the padded cells `changed` changed (the copy
    /// already holds the new ones).
    fn repair_cells(&mut self, changed: &[usize]) {
        let stride = self.stride;
        let (w, h) = (self.width as usize, self.height as usize);
        // The cells whose state a scan reads (class or subgoal) changed.
        let mut touched: Vec<usize> = changed.to_vec();
        let mut added = Vec::new();
        for &c in changed {
            for dy in [-1isize, 0, 1] {
                for dx in [-1isize, 0, 1] {
                    let i = c.wrapping_add_signed(dy * stride.cast_signed() + dx);
                    let (x, y) = (i % stride, i / stride);
                    if !(1..=w).contains(&x) || !(1..=h).contains(&y) {
                        continue;
                    }
                    let (want, have) = (self.is_subgoal(i), self.slot_at[i] != NONE);
                    if want && !have {
                        added.push(self.add_subgoal(i));
                        touched.push(i);
                    } else if have && !want {
                        self.remove_subgoal(i);
                        touched.push(i);
                    }
                }
            }
        }
        // Whether a subgoal's read box holds a touched cell: four lookups in a summed-area table
        // over the touched cells' bounding box, not one test per touched cell (a long paint
        // stroke touches hundreds, and a 512² random map has 60,000+ subgoals).
        let touched_in = TouchedCells::new(&touched, stride);
        let mut queued = vec![false; self.subgoals.len()];
        for &slot in &added {
            queued[slot] = true;
        }
        let mut rescan = added;
        for (slot, s) in self.subgoals.iter().enumerate() {
            if s.cell != NONE && !queued[slot] && touched_in.any(s.read) {
                rescan.push(slot);
            }
        }
        for slot in rescan {
            self.rescan(slot);
        }
    }

    /// Whether padded cell `i` is a subgoal: open, with a blocked diagonal neighbour whose two
    /// straight neighbours are open (of its class), or with a fence on a side or a fence post
    /// on a corner (a fence's ends are obstacle corners a shortest route may bend round, and a
    /// fence cell stops every scan, so the scans never step across a fence but from a vertex).
    fn is_subgoal(&self, i: usize) -> bool {
        let class = self.cells[i] >> 6;
        if class == 0 {
            return false;
        }
        if !self.fences.is_empty() && self.fences[i] != 0 {
            return true;
        }
        let off = offsets(self.stride);
        let same = |d: usize| self.cells[i.wrapping_add_signed(off[d])] >> 6 == class;
        QUADRANTS.iter().any(|&(diag, a, b)| !same(diag) && same(a) && same(b))
    }

    /// Makes padded cell `i` a subgoal without edges; returns its slot.
    fn add_subgoal(&mut self, i: usize) -> usize {
        #[expect(clippy::cast_possible_truncation, reason = "padded cells and sides fit")]
        let s = Subgoal {
            cell: i as u32,
            x: (i % self.stride) as u16,
            y: (i / self.stride) as u16,
            read: [u16::MAX, u16::MAX, 0, 0],
            adj: Vec::new(),
        };
        let slot = if let Some(slot) = self.free.pop() {
            self.subgoals[slot as usize] = s;
            slot as usize
        } else {
            self.subgoals.push(s);
            self.subgoals.len() - 1
        };
        #[expect(clippy::cast_possible_truncation, reason = "fewer slots than cells")]
        {
            self.slot_at[i] = slot as u32;
        }
        self.refresh_stops(i);
        slot
    }

    /// Sets padded cell `i`'s stop bits again from its class and subgoal.
    fn refresh_stops(&mut self, i: usize) {
        let slot_at = &self.slot_at;
        self.stops.refresh(i, &self.cells, |j| slot_at[j] != NONE);
    }

    /// Removes the subgoal at padded cell `i` and every edge to it.
    fn remove_subgoal(&mut self, i: usize) {
        let slot = self.slot_at[i];
        self.slot_at[i] = NONE;
        self.refresh_stops(i);
        let adj = std::mem::take(&mut self.subgoals[slot as usize].adj);
        for e in adj {
            self.subgoals[(e.to & TARGET) as usize].adj.retain(|f| f.to & TARGET != slot);
        }
        self.subgoals[slot as usize].cell = NONE;
        self.free.push(slot);
    }

    /// What a scan reads of the graph.
    fn view(&self) -> View<'_> {
        View {
            cells: &self.cells,
            fences: &self.fences,
            slot_at: &self.slot_at,
            stops: &self.stops,
            stride: self.stride,
            off: offsets(self.stride),
        }
    }

    /// Scans again from subgoal `slot`: replaces the edges its scan found and its read box.
    /// Only the edges it no longer finds, or finds anew, touch the other end's list: after a
    /// one-cell edit most are found again, and each other end's list is a cache miss (looking
    /// them all up twice was a third of a repair on the street maps).
    fn rescan(&mut self, slot: usize) {
        #[expect(clippy::cast_possible_truncation, reason = "fewer slots than cells")]
        let me = slot as u32;
        let mut query = self.query.take().unwrap_or_default();
        let mut found = std::mem::take(&mut query.work.found);
        found.clear();
        let view = self.view();
        let bb = view.scan(self.subgoals[slot].cell as usize, usize::MAX, &mut found);
        self.subgoals[slot].read = bb.packed();
        // The slots found now, marked; a mark is cleared once its edge is in place.
        let mut marked = std::mem::take(&mut query.work.found_now);
        marked.resize(self.subgoals.len(), false);
        for &cell in &found {
            marked[self.slot_at[cell] as usize] = true;
        }
        let mut mine = std::mem::take(&mut self.subgoals[slot].adj);
        // What the previous scan found and this one does not: forgotten at both ends.
        for e in &mut mine {
            let t = (e.to & TARGET) as usize;
            if e.to & FOUND_HERE == 0 {
                continue;
            }
            if marked[t] {
                marked[t] = false;
                continue;
            }
            e.to &= !FOUND_HERE;
            let theirs = &mut self.subgoals[t].adj;
            if let Some(k) = theirs.iter().position(|f| f.to & TARGET == me) {
                theirs[k].to &= !FOUND_THERE;
                if theirs[k].to & (FOUND_HERE | FOUND_THERE) == 0 {
                    theirs.swap_remove(k);
                }
            }
        }
        mine.retain(|e| e.to & (FOUND_HERE | FOUND_THERE) != 0);
        // What this scan finds anew.
        let (mx, my) = (self.subgoals[slot].x, self.subgoals[slot].y);
        for &cell in &found {
            let t = self.slot_at[cell];
            if !std::mem::take(&mut marked[t as usize]) {
                continue;
            }
            let (tx, ty) = (self.subgoals[t as usize].x, self.subgoals[t as usize].y);
            match mine.iter().position(|f| f.to & TARGET == t) {
                Some(k) => mine[k].to |= FOUND_HERE,
                None => mine.push(Edge { to: t | FOUND_HERE, x: tx, y: ty }),
            }
            let theirs = &mut self.subgoals[t as usize].adj;
            match theirs.iter().position(|f| f.to & TARGET == me) {
                Some(k) => theirs[k].to |= FOUND_THERE,
                None => theirs.push(Edge { to: me | FOUND_THERE, x: mx, y: my }),
            }
        }
        self.subgoals[slot].adj = mine;
        query.work.found = found;
        query.work.found_now = marked;
        self.query = Some(query);
    }

    /// Why the graph cannot answer with `settings` on `grid`, if it cannot.
    ///
    /// # Errors
    /// The reason: the graph answers only under [`crate::Rules::OCTILE`] (8 moves, no corner
    /// cutting), on uniform cost, for 1 × 1 agents, exactly (weight 1), without partial routes.
    pub fn check(grid: &Grid, settings: &Settings) -> Result<(), &'static str> {
        if settings.rules.moves != Moves::Eight {
            Err("subgoal graphs need 8-connected moves (their subgoals are the corners diagonal moves wrap)")
        } else if settings.rules.corners != Corners::Forbid {
            Err("subgoal graphs are built for the no-corner-cutting rule")
        } else if settings.agent_size != 1 {
            Err("subgoal graphs are built for 1x1 agents (a larger body has other corners)")
        } else if settings.weight != 1.0 {
            Err("subgoal graphs answer exactly: heuristic weight 1 only")
        } else if settings.partial {
            Err("subgoal graphs do not give partial routes (use Searcher with Settings::partial)")
        } else if !grid.has_uniform_cost() {
            Err("subgoal graphs need uniform terrain cost (edges cost their octile length)")
        } else {
            Ok(())
        }
    }

    /// The least-cost route from `start` to `goal`, as [`Searcher::find_path`] returns it:
    /// neighbouring cells, the octile optimum as its cost, and the graph search's
    /// [`Stats`] (`expanded` counts graph nodes). Repairs the graph first when the grid
    /// changed since it last saw it ([`SubgoalGraph::repair`]). `settings.algorithm` and
    /// `settings.heuristic` are not used.
    ///
    /// # Errors
    /// As [`Searcher::find_path`] for bad endpoints, terrain classes and unreachable goals;
    /// [`SearchError::SubgoalUnsupported`] for settings or a grid the graph does not answer
    /// ([`SubgoalGraph::check`]).
    pub fn find_path(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
    ) -> Result<Path, SearchError> {
        let mut cells = Vec::new();
        let (cost, stats) = self.find_path_into(grid, start, goal, settings, &mut cells)?;
        Ok(Path { cells, cost, stats, outcome: Outcome::Complete })
    }

    /// [`SubgoalGraph::find_path`] writing the cells into `out` (cleared first); returns the
    /// cost and the stats.
    ///
    /// # Errors
    /// As [`SubgoalGraph::find_path`].
    pub fn find_path_into(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        out: &mut Vec<Pos>,
    ) -> Result<(f64, Stats), SearchError> {
        self.find_shaped_into(grid, (start, goal), settings, (out, Shape::Cells))
    }

    /// Like [`SubgoalGraph::find_path_into`], writing only the route's corners into `out` (as
    /// [`Searcher::find_corners_into`] does: the start, every cell where the route turns, the
    /// goal; [`sight::corners`](crate::sight::corners) of the cells). The subgoals of the route
    /// and the one turn of each edge between them, no cell between: the same route and cost.
    ///
    /// ```
    /// use gridpath::{formats, sight, Settings, SubgoalGraph};
    /// let map = formats::parse_ascii("S...#....\n..#.#.##.\n..#...#.G").unwrap();
    /// let (start, goal, grid) = (map.start.unwrap(), map.goal.unwrap(), map.grid);
    /// let mut graph = SubgoalGraph::build(&grid);
    /// let settings = Settings::default();
    /// let (mut cells, mut corners) = (Vec::new(), Vec::new());
    /// let (cost, _) = graph.find_path_into(&grid, start, goal, &settings, &mut cells)?;
    /// let (same, _) = graph.find_corners_into(&grid, start, goal, &settings, &mut corners)?;
    /// assert_eq!(corners, sight::corners(&cells));
    /// assert_eq!(cost, same);
    /// # Ok::<(), gridpath::SearchError>(())
    /// ```
    ///
    /// # Errors
    /// As [`SubgoalGraph::find_path`].
    pub fn find_corners_into(
        &mut self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        out: &mut Vec<Pos>,
    ) -> Result<(f64, Stats), SearchError> {
        self.find_shaped_into(grid, (start, goal), settings, (out, Shape::Corners))
    }

    fn find_shaped_into(
        &mut self,
        grid: &Grid,
        (start, goal): (Pos, Pos),
        settings: &Settings,
        (out, shape): (&mut Vec<Pos>, Shape),
    ) -> Result<(f64, Stats), SearchError> {
        out.clear();
        check_endpoint(grid, start, Endpoint::Start)?;
        check_endpoint(grid, goal, Endpoint::Goal)?;
        Self::check(grid, settings).map_err(|reason| SearchError::SubgoalUnsupported { reason })?;
        self.repair(grid);
        self.lay_out_edges();
        let mut query = self.query.take().unwrap_or_default();
        let answer = self.answer(grid, (start, goal), &mut query, (out, shape));
        self.query = Some(query);
        answer
    }

    /// [`SubgoalGraph::find_path`] on a graph shared between threads: the query's buffers are
    /// `query`'s, and the graph is only read. A graph that does not describe `grid` as it is
    /// ([`SubgoalGraph::is_current`]; it is not repaired here) answers by an exact search over
    /// the cells instead (JPS): the same cost, never a stale route
    /// ([`SubgoalQuery::answered_by_graph`] tells which answered). A repaired graph whose
    /// edges were not laid out again ([`SubgoalGraph::lay_out_edges`]) answers from the edges
    /// where it keeps them, exact and a little slower.
    ///
    /// # Errors
    /// As [`SubgoalGraph::find_path`].
    pub fn find_path_with(
        &self,
        grid: &Grid,
        start: Pos,
        goal: Pos,
        settings: &Settings,
        query: &mut SubgoalQuery,
    ) -> Result<Path, SearchError> {
        let mut cells = Vec::new();
        query.by_graph = false;
        check_endpoint(grid, start, Endpoint::Start)?;
        check_endpoint(grid, goal, Endpoint::Goal)?;
        Self::check(grid, settings).map_err(|reason| SearchError::SubgoalUnsupported { reason })?;
        let (cost, stats) = if self.is_current(grid) {
            self.answer(grid, (start, goal), query, (&mut cells, Shape::Cells))?
        } else {
            query.by_jps(grid, (start, goal), (&mut cells, Shape::Cells))?
        };
        Ok(Path { cells, cost, stats, outcome: Outcome::Complete })
    }

    /// Lays out the subgoals' edges for the search over the graph itself, where no hierarchy
    /// answers and a repair changed them (a query does it first on its own; before sharing a
    /// repaired graph between threads, do it once, or each query reads the edges where the
    /// graph keeps them, a little slower).
    pub fn lay_out_edges(&mut self) {
        if self.hierarchy.is_none() && self.flat.is_none() {
            self.flat = Some(Runs::of(self.subgoals.iter().map(|s| s.adj.as_slice())));
        }
    }

    /// The route from `start` to `goal` (open, of one class, on the grid the graph describes,
    /// under rules it answers) into `out`, cleared first.
    fn answer(
        &self,
        grid: &Grid,
        (start, goal): (Pos, Pos),
        query: &mut SubgoalQuery,
        (out, shape): (&mut Vec<Pos>, Shape),
    ) -> Result<(f64, Stats), SearchError> {
        out.clear();
        if start == goal {
            query.by_graph = true;
            out.push(start);
            return Ok((0.0, Stats::default()));
        }
        // Ends of two classes are refused before any search, as walls are.
        check_same_class(grid, start, goal)?;
        query.by_graph = true;
        let (s, g) = (grid.index(start), grid.index(goal));
        match self.search_in(&mut query.work, s, g) {
            Ok((pair, stats)) => {
                if self.refine(&query.work, self.xy(s), (out, shape)) {
                    return Ok((value(pair), stats));
                }
                // Never seen: a shortcut whose halves are missing. Stay exact.
                debug_assert!(false, "a subgoal route could not be refined");
                query.by_jps(grid, (start, goal), (out, shape))
            }
            Err(stats) => Err(SearchError::NoPath { start, goal, stats }),
        }
    }

    #[expect(clippy::cast_possible_truncation, reason = "padded sides are at most 8194")]
    fn xy(&self, i: usize) -> (u16, u16) {
        ((i % self.stride) as u16, (i / self.stride) as u16)
    }

    /// A* over the subgoals, the start and the goal (padded cells `s` and `g`, both open, of
    /// one class, distinct). Leaves the route, start first, in `work.steps`; returns
    /// its cost and stats, or the stats when the goal is unreachable.
    fn search(&mut self, s: usize, g: usize) -> Result<([u32; 2], Stats), Stats> {
        self.lay_out_edges();
        let mut query = self.query.take().unwrap_or_default();
        let result = self.search_in(&mut query.work, s, g);
        self.query = Some(query);
        result
    }

    /// [`SubgoalGraph::search`] in the buffers `w`, the graph only read.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::too_many_lines,
        reason = "slots and padded coordinates fit their types; one A* loop reads best whole"
    )]
    fn search_in(&self, w: &mut Workspace, s: usize, g: usize) -> Result<([u32; 2], Stats), Stats> {
        let n = self.subgoals.len();
        let (start_slot, goal_slot) = (n, n + 1);
        if w.nodes.len() < n + 2 {
            w.nodes.resize(n + 2, Node::default());
            w.to_goal.resize(n + 2, 0);
        }
        if w.generation >= u32::MAX - 4 {
            // Every stamped buffer starts again, or a stamp of the last round would pass for
            // this one's (the hierarchy's and the labels' too: the first query of a round may
            // not reach them).
            w.nodes.fill(Node::default());
            w.to_goal.fill(0);
            w.fwd.fill(hierarchy::Side::default());
            w.bwd.fill(hierarchy::Side::default());
            w.goal_core.fill(labels::Reach::default());
            w.generation = 0;
        }
        w.generation += 2;
        let generation = w.generation;
        let view = self.view();
        let xy = |i: usize| ((i % self.stride) as u16, (i / self.stride) as u16);
        let slot_of = |i: usize| match view.slot_at[i] {
            NONE if i == s => start_slot,
            NONE => goal_slot,
            slot => slot as usize,
        };
        let (start_v, goal_v) = (slot_of(s), slot_of(g));
        // The subgoals the start directly-h-reaches (the goal a stop too), and those the goal
        // does, which get an edge to it. A goal in direct reach is the answer: nothing is
        // shorter than the octile distance.
        let mut start_edges = std::mem::take(&mut w.start_edges);
        start_edges.clear();
        // What the scan from `from` with `to` as a stop finds: with the table of scans, `to`
        // alone where it is in direct reach, else the table's list (the same, as the scan
        // finds `to` or nothing more).
        let reached = |from: usize, to: usize, out: &mut Vec<usize>| match &self.seeds {
            Some(_) if view.reaches(from, to) => out.push(to),
            Some(seeds) => out.extend(seeds.of(from)),
            None => {
                view.scan(from, to, out);
            }
        };
        if start_v == start_slot {
            reached(s, g, &mut start_edges);
        }
        let mut found = std::mem::take(&mut w.found);
        found.clear();
        let mut direct = start_edges.contains(&g);
        // The start's scan walked the direct edge diagonal steps first; the goal's scan walked
        // it so from the goal, which is straight steps first from the start.
        let diagonal_first = direct;
        if goal_v == goal_slot && !direct {
            reached(g, s, &mut found);
            direct = found.contains(&s);
        }
        if direct {
            w.found = found;
            w.start_edges = start_edges;
            let ((sx, sy), (gx, gy)) = (xy(s), xy(g));
            w.steps.clear();
            w.steps
                .extend([Step { x: sx, y: sy, diagonal_first: true }, Step { x: gx, y: gy, diagonal_first }]);
            return Ok((octile((sx, sy), (gx, gy)), Stats { expanded: 1, generated: 1, peak_open: 1 }));
        }
        if let Some(h) = &self.hierarchy {
            let ends = hierarchy::Ends {
                s_xy: xy(s),
                g_xy: xy(g),
                start_v,
                goal_v,
                start_edges: &start_edges,
                goal_edges: &found,
                slot_of,
            };
            let result = hierarchy::route(h, w, &ends);
            w.found = found;
            w.start_edges = start_edges;
            return result;
        }
        // The subgoals with an edge to the goal (the hierarchy seeds its side with them instead).
        for &c in &found {
            w.to_goal[slot_of(c)] = generation;
        }
        let goal_xy = xy(g);
        // With landmarks: them and the goal's distances to them, for every subgoal's estimate.
        let marks = self.landmarks.as_ref().map(|l| {
            let goal = if goal_v == goal_slot {
                l.goal_through(found.iter().map(|&c| (slot_of(c), octile(xy(c), goal_xy))))
            } else {
                l.of(goal_v)
            };
            (l, goal)
        });
        // The edges laid out for this search, or (a repaired graph shared unlaid) where the
        // graph keeps them: the same edges.
        let edges = |v: usize| self.flat.as_ref().map_or(self.subgoals[v].adj.as_slice(), |flat| flat.get(v));
        let mut stats = Stats::default();
        // An edge costs at most the octile distance across the map, as JPS's jumps.
        w.open.reset_for_long_edges(f64::from(self.width.max(self.height)));
        w.nodes[start_v] =
            Node { g: [0, 0], parent: NONE, stamp: generation, x: xy(s).0, y: xy(s).1, diagonal_first: true };
        w.open.push(Entry { f: 0.0, h: 0.0, cell: start_v as u32 });
        stats.generated += 1;
        let mut reached = false;
        // Relaxes the edge from `v` (cost `gv` at `here`) to `t` at `there`, free in the shape
        // `diagonal_first` says.
        let relax = |w: &mut Workspace,
                     stats: &mut Stats,
                     v: usize,
                     gv: [u32; 2],
                     here: (u16, u16),
                     (t, there): (usize, (u16, u16)),
                     diagonal_first: bool| {
            let node = &mut w.nodes[t];
            if node.stamp == generation + 1 {
                return;
            }
            let d = octile(here, there);
            let ng = [gv[0] + d[0], gv[1] + d[1]];
            if node.stamp != generation || value(ng) < value(node.g) {
                *node = Node {
                    g: ng,
                    parent: v as u32,
                    stamp: generation,
                    x: there.0,
                    y: there.1,
                    diagonal_first,
                };
                let h = octile(there, goal_xy);
                let octile_h = value(h);
                let marked = match &marks {
                    Some((l, goal)) if t < n => l.estimate(t, goal),
                    _ => 0.0,
                };
                // The larger estimate; the octile one summed as exact pairs, as without landmarks.
                let (f, h) = if marked > octile_h {
                    (value(ng) + marked, marked)
                } else {
                    (value([ng[0] + h[0], ng[1] + h[1]]), octile_h)
                };
                w.open.push(Entry { f, h: h as f32, cell: t as u32 });
                stats.generated += 1;
            }
        };
        while let Some(entry) = w.open.pop() {
            let v = entry.cell as usize;
            let node = w.nodes[v];
            // Stale entries (the node closed since) are skipped: the heuristic is consistent,
            // so a node's first entry out is its best.
            if node.stamp != generation {
                continue;
            }
            w.nodes[v].stamp = generation + 1;
            stats.expanded += 1;
            if v == goal_v {
                reached = true;
                break;
            }
            let here = (node.x, node.y);
            // The start's edges were walked by its scan, the goal's by the goal's (straight
            // steps first from here), a subgoal's as its flags say.
            if v == start_slot {
                for &c in &start_edges {
                    relax(w, &mut stats, v, node.g, here, (slot_of(c), xy(c)), true);
                }
            } else if v < n {
                for e in edges(v) {
                    let target = ((e.to & TARGET) as usize, (e.x, e.y));
                    relax(w, &mut stats, v, node.g, here, target, e.to & FOUND_HERE != 0);
                }
            }
            if v != goal_slot && w.to_goal[v] == generation {
                relax(w, &mut stats, v, node.g, here, (goal_slot, goal_xy), false);
            }
        }
        stats.peak_open = w.open.peak() as u64;
        w.found = found;
        w.start_edges = start_edges;
        if !reached {
            return Err(stats);
        }
        w.steps.clear();
        let mut v = goal_v;
        loop {
            let node = &w.nodes[v];
            w.steps.push(Step { x: node.x, y: node.y, diagonal_first: node.diagonal_first });
            if v == start_v {
                break;
            }
            v = node.parent as usize;
        }
        w.steps.reverse();
        Ok((w.nodes[goal_v].g, stats))
    }

    /// Writes the route in `work.steps` into `out`, start first, as `shape` says: its cells or
    /// its corners. Each edge is h-reachable, diagonal steps first or straight steps first as
    /// its step says: the shape the scan that found it walked, free by construction, so no cell
    /// is read (on long routes, reading them was most of a query: a cache miss a row). `false`
    /// for a route without its start and goal (never seen).
    fn refine(&self, work: &Workspace, s: (u16, u16), (out, shape): (&mut Vec<Pos>, Shape)) -> bool {
        let steps = &work.steps;
        // Unpadded coordinates (padded coordinates are at least 1).
        let unpadded = |x: i32, y: i32| {
            #[expect(clippy::cast_sign_loss, reason = "a route stays inside the map")]
            Pos::new((x - 1) as u32, (y - 1) as u32)
        };
        out.push(unpadded(i32::from(s.0), i32::from(s.1)));
        for pair in steps.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let (ax, ay, bx, by) = (i32::from(a.x), i32::from(a.y), i32::from(b.x), i32::from(b.y));
            let (dx, dy) = (bx - ax, by - ay);
            let diag = dx.abs().min(dy.abs());
            // The turn: `diag` diagonal steps in, or as many before the end.
            let (tx, ty) = if b.diagonal_first {
                (ax + dx.signum() * diag, ay + dy.signum() * diag)
            } else {
                (bx - dx.signum() * diag, by - dy.signum() * diag)
            };
            let mark = out.len();
            sight::push_legs(out, (unpadded(ax, ay), unpadded(tx, ty), unpadded(bx, by)), shape);
            debug_assert!(
                shape == Shape::Corners || self.legal_steps(&out[mark - 1..]),
                "an edge refined into an illegal shape"
            );
        }
        steps.len() >= 2
    }

    /// Whether each step of `cells` (unpadded, neighbours) stays on the first cell's class,
    /// cuts no corner and crosses no fence: the check of [`SubgoalGraph::refine`]'s shapes.
    fn legal_steps(&self, cells: &[Pos]) -> bool {
        let at = |p: Pos| (p.y as usize + 1) * self.stride + p.x as usize + 1;
        let class = self.cells[at(cells[0])] >> 6;
        let free = |i: usize| self.cells[i] >> 6 == class;
        cells.windows(2).all(|w| {
            #[expect(clippy::cast_possible_wrap, reason = "map coordinates fit in i32")]
            let (mx, my) = (w[1].x as i32 - w[0].x as i32, w[1].y as i32 - w[0].y as i32);
            let (i, j) = (at(w[0]), at(w[1]));
            let corners = mx == 0
                || my == 0
                || (free(i.wrapping_add_signed(mx as isize)) && free(j.wrapping_add_signed(-mx as isize)));
            let fenced = !self.fences.is_empty() && self.fences[i] >> crate::grid::dir_index(mx, my) & 1 == 1;
            free(j) && corners && !fenced && mx.abs() <= 1 && my.abs() <= 1
        })
    }
}

/// A 40 × 40 grid of pillars every third cell, for the subgoal modules' tests: many subgoals, a
/// hierarchy with shortcuts and hub labels.
#[cfg(test)]
fn pillars() -> Grid {
    let mut grid = Grid::new(40, 40).unwrap();
    for y in (1..40).step_by(3) {
        for x in (1..40).step_by(3) {
            grid.set_wall(Pos::new(x, y), true).unwrap();
        }
    }
    grid
}

#[cfg(test)]
mod tests {
    use super::Runs;

    /// A default `Runs` holds nothing (its bytes were worked out from one start too few and
    /// underflowed); laid out, it takes what `bytes_for` said beforehand.
    #[test]
    fn runs_take_the_bytes_they_were_budgeted() {
        assert_eq!(Runs::<u64>::default().bytes(), 0);
        let lists: [&[u64]; 3] = [&[1, 2], &[], &[3]];
        let runs = Runs::of(lists.iter().copied());
        assert_eq!(runs.bytes(), Runs::<u64>::bytes_for(3, 3));
        assert_eq!(runs.bytes(), 4 * 4 + 3 * 8);
        assert_eq!(runs.get(0), &[1, 2]);
        assert!(runs.get(1).is_empty());
    }
}
