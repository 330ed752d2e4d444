//! A contraction hierarchy over the subgoal graph (the idea of SGCH: Uras and Koenig,
//! "Understanding Subgoal Graphs by Augmenting Contraction Hierarchies", IJCAI 2018), with a
//! core. Subgoals are contracted in the classic order of contraction hierarchies (Geisberger,
//! Sanders, Schultes and Delling, 2008): least *edge difference* first — the shortcuts a
//! contraction adds less the edges it removes — plus the contracted neighbours and the depth
//! below, which spread the contractions over the map. Priorities are estimates that look for
//! witnesses of one or two edges only, kept lazily (simulated again when a subgoal comes out,
//! put back if it grew past the next one's); the contraction itself confirms each shortcut
//! with a witness search, adding it only where no route as short avoids the subgoal. The
//! rest stay an uncontracted core: subgoals of degree above [`CORE_DEGREE`] or next to one
//! above [`NEIGHBOUR_DEGREE`], and all those left once the witness searches have pushed
//! [`PUSHES_PER_SUBGOAL`] nodes (or half that with most of the graph left) or the estimates
//! looked at [`VISITS_PER_SUBGOAL`] routes per subgoal, or once there are
//! [`MAX_SHORTCUTS_PER_EDGE`] shortcuts per edge: bounds on the build where contraction
//! densifies the graph.
//!
//! Every subgoal keeps the edges it had when contracted (all to subgoals contracted later or to
//! the core), core subgoals their core edges. A query searches up from both ends over these
//! edges (bidirectional Dijkstra; in the core both searches take every edge), each side until
//! its smallest key reaches the best meeting cost: a shortest route can be taken up, through
//! the core, then down (each contraction kept the distances between the subgoals left), so the
//! two searches meet on it. A subgoal reached more cheaply through a higher neighbour is
//! stalled (stall on demand): its label is not its distance, so no shortest route leaves it
//! upwards with it. A shortcut remembers the subgoal it bypasses and is unpacked into
//! subgoal-graph edges.
//!
//! *Why exact.* Rank the subgoals by contraction order, the core above them all, and the query's
//! start and goal (when not subgoals) below them all. Take a shortest route over the subgoal
//! graph joined to the start and the goal; if an inner vertex ranks below both its neighbours
//! on the route, both were uncontracted when it was contracted (the start and the goal rank
//! lower, so they are never its neighbours there), so a witness route or a shortcut as short
//! joins them in the graph left: replace the vertex by it. Repeating ends with a route that
//! rises, crosses the core and falls, which the two upward searches meet on; a witness
//! search that gave up adds a shortcut (a real route), so a bound on it costs speed, never
//! exactness. `tests/subgoal.rs` checks every random query with the hierarchy as built,
//! forced and dropped.

use super::labels::{self, Labels};
use super::{FOUND_HERE, NONE, Runs, Step, Subgoal, TARGET, octile, value};
use crate::search::{Entry, OpenList};

/// Subgoals of a larger degree than this stay in the core.
const CORE_DEGREE: usize = 24;
/// Nodes a witness search settles at most before it gives up (a shortcut is added then).
const WITNESS_SETTLED: usize = 60;
/// Witness-search pushes in all, per subgoal (plus [`PUSHES_FLOOR`]), before the contraction
/// stops and the subgoals left become the core: bounds the build time where the graph
/// densifies (unbounded, random512-10-0 would take 38 million, 573 per subgoal, and its build
/// 6.7 s on 5 Dec's slow host; the hierarchies kept take at most 104 per subgoal, den520d, or
/// within the floor, moonglade's 224). Half of it spent with most of the graph left stops the
/// contraction too (random512-10-0 there: its build 2.2 → 1.6 s, its hierarchy dropped for
/// landmarks either way; random512-25-0 has contracted nearly all by then).
const PUSHES_PER_SUBGOAL: usize = 100;
/// Routes of one or two edges the contraction order's estimates may look at, per subgoal
/// (plus [`VISITS_FLOOR`]): on open maps, whose subgoals see dozens of others, the estimates
/// cost more than the witness searches (the street maps would look at 7,000–36,000 per
/// subgoal; the maps whose hierarchy pays at most 1,400).
const VISITS_PER_SUBGOAL: usize = 2000;
/// The estimate budget every graph gets, however small.
const VISITS_FLOOR: usize = 1 << 22;
/// The push budget every graph gets, however small.
const PUSHES_FLOOR: usize = 1 << 20;
/// Subgoals next to one with more edges than this are not contracted (they join the core).
const NEIGHBOUR_DEGREE: usize = 64;
/// Shortcuts per subgoal-graph edge, at most, before the contraction stops.
const MAX_SHORTCUTS_PER_EDGE: usize = 2;

/// [`UpEdge::via`] of a subgoal-graph edge free diagonal steps first from the subgoal whose list
/// holds it (its scan found the edge).
pub(super) const DIAGONAL_FIRST: u32 = NONE;
/// [`UpEdge::via`] of a subgoal-graph edge free straight steps first from the subgoal whose list
/// holds it (only the other end's scan found it).
const STRAIGHT_FIRST: u32 = NONE - 1;

/// An edge of the hierarchy: target slot, exact cost, and the subgoal a shortcut bypasses, or
/// for a subgoal-graph edge its shape ([`DIAGONAL_FIRST`], [`STRAIGHT_FIRST`]; slots are far
/// below both).
#[derive(Clone, Copy, Debug)]
pub(super) struct UpEdge {
    pub(super) to: u32,
    pub(super) cost: [u32; 2],
    pub(super) via: u32,
}

/// Whether `via` (of an [`UpEdge`] or a [`Side`]) is a subgoal-graph edge's shape, not a
/// bypassed subgoal.
fn is_shape(via: u32) -> bool {
    via >= STRAIGHT_FIRST
}

/// The hierarchy: per slot its upward (or core) edges, all in one array (it never changes
/// after the build).
#[derive(Clone, Debug, Default)]
pub(super) struct Hierarchy {
    edges: Runs<UpEdge>,
    /// Per slot, whether it is in the core (never contracted).
    in_core: Vec<bool>,
    /// Per slot, its subgoal's padded coordinates: every key a query pushes needs them, and
    /// here they are 4 bytes apart, not a subgoal record (48) apart.
    pub(super) xy: Vec<(u16, u16)>,
    /// Hub labels, where they fit (see `labels.rs`): the queries' upward searches done at the
    /// build.
    labels: Option<Labels>,
    /// With the labels, where room is left (and taken out with them): per edge (in `edges`'
    /// order, one run each), the route it stands for in the subgoal graph after its holder, up
    /// to its other end. A route found by the labels is then copied out a run per edge; a
    /// shortcut unpacked half by half (a search of the bypassed subgoal's list, and a stack)
    /// was an eighth of a query.
    unpacked: Option<Runs<Step>>,
    pub(super) core: usize,
    pub(super) shortcuts: usize,
}

pub(super) fn less(a: [u32; 2], b: [u32; 2]) -> bool {
    value(a) < value(b) - 1e-9
}

pub(super) fn add(a: [u32; 2], b: [u32; 2]) -> [u32; 2] {
    [a[0] + b[0], a[1] + b[1]]
}

/// A hierarchy's labels taken out ([`Hierarchy::take_labels`]), with the unpacked edges that
/// serve them.
pub(super) struct TakenLabels {
    labels: Labels,
    unpacked: Option<Runs<Step>>,
}

/// One search side's state per slot.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Side {
    pub(super) g: [u32; 2],
    pub(super) parent: u32,
    /// [`UpEdge::via`] of the edge from the parent (whose list holds it).
    pub(super) via: u32,
    /// `generation` when seen, `generation + 1` when settled.
    pub(super) stamp: u32,
}

/// Dijkstra's buffers for the witness searches.
#[derive(Default)]
struct Witness {
    dist: Vec<[u32; 2]>,
    stamp: Vec<u32>,
    generation: u32,
    heap: OpenList,
    /// Per slot, `generation` while it is a target of the search under way.
    target: Vec<u32>,
    /// Nodes pushed by every search so far.
    pushes: usize,
    /// Routes looked at by every [`Witness::two_hops`] so far.
    visits: usize,
}

impl Hierarchy {
    /// Contracts the subgoal graph `subgoals` (free slots have `cell == NONE`) within `budget`
    /// bytes, with hub labels where they fit in what is left. `None` where even the graph's own
    /// edges, uncontracted, take more: a dense graph, most of whose room its subgoals and edges
    /// take already (a random map of 20 % walls).
    pub(super) fn build(subgoals: &[Subgoal], budget: usize) -> Option<Self> {
        let mut built = Self::contract(subgoals, budget);
        if built.bytes() > budget {
            return None;
        }
        built.labels = Labels::build(&built, subgoals, budget - built.bytes());
        if built.labels.is_some() {
            built.unpacked = built.unpack_all(budget.saturating_sub(built.bytes()));
        }
        Some(built)
    }

    /// Every edge's route in the subgoal graph ([`Hierarchy::unpacked`]), or `None` past
    /// `budget` bytes or for halves missing (never seen).
    #[expect(clippy::cast_possible_truncation, reason = "steps fit in u32 within the budget")]
    fn unpack_all(&self, budget: usize) -> Option<Runs<Step>> {
        let edges = self.edges.items.len();
        let max_steps = budget.checked_sub((edges + 1) * size_of::<u32>())? / size_of::<Step>();
        let mut first = Vec::with_capacity(edges + 1);
        let mut items = Vec::new();
        let mut stack = Vec::new();
        for holder in 0..self.xy.len() {
            for e in self.up(holder) {
                first.push(items.len() as u32);
                stack.clear();
                let hop = Hop { from: holder as u32, to: e.to, via: e.via, held_by_to: false, edge: NONE };
                if !self.unpack_hop(hop, &mut stack, &mut items, |v| self.xy[v]) || items.len() > max_steps {
                    return None;
                }
            }
        }
        first.push(items.len() as u32);
        Some(Runs { first, items })
    }

    /// Pushes the route of `hop` after its first vertex into `steps`, its shortcuts unpacked
    /// half by half (`stack` is scratch space; `pos`, a slot's padded coordinates); `false` if
    /// a shortcut's halves are missing (never seen).
    fn unpack_hop(
        &self,
        hop: Hop,
        stack: &mut Vec<Hop>,
        steps: &mut Vec<Step>,
        pos: impl Fn(usize) -> (u16, u16),
    ) -> bool {
        stack.push(hop);
        while let Some(Hop { from, to, via, held_by_to, .. }) = stack.pop() {
            if is_shape(via) {
                // Free diagonal steps first from its holder: from the hop's other end, the
                // same cells are straight steps first.
                let (x, y) = pos(to as usize);
                steps.push(Step { x, y, diagonal_first: (via == DIAGONAL_FIRST) != held_by_to });
                continue;
            }
            let Some((first, second)) = self.halves(via, from, to) else {
                return false;
            };
            stack.push(Hop { from: via, to, via: second.via, held_by_to: false, edge: NONE });
            stack.push(Hop { from, to: via, via: first.via, held_by_to: true, edge: NONE });
        }
        true
    }

    /// The hierarchy of `subgoals`, without labels; the contraction stops before its edges
    /// would take more than `budget` bytes with the per-slot arrays.
    #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
    fn contract(subgoals: &[Subgoal], budget: usize) -> Self {
        let n = subgoals.len();
        // The remaining graph: per slot its edges to uncontracted subgoals.
        let mut adj = remaining_graph(subgoals);
        let mut done = vec![false; n];
        let mut up: Vec<Vec<UpEdge>> = vec![Vec::new(); n];
        // Per slot: contracted neighbours and the depth of the hierarchy below it, the two
        // terms that spread the contraction evenly over the map (Geisberger et al., 2008).
        let mut contracted_around = vec![0i64; n];
        let mut depth = vec![0i64; n];
        let mut witness = Witness {
            dist: vec![[0, 0]; n],
            stamp: vec![0; n],
            generation: 0,
            heap: OpenList::default(),
            target: vec![0; n],
            pushes: 0,
            visits: 0,
        };
        // The hierarchy's edges if the contraction stopped now: the core's among themselves
        // and the contracted subgoals' upward ones. Each contraction moves a subgoal's edges
        // from the one list to the other, takes its neighbours' edges to it away and adds its
        // new shortcuts both ways; past `budget` bytes it stops (random512-20's shortcuts took
        // the graph to 65 bytes a cell, over issue 24's 64).
        let mut entries = adj.iter().map(Vec::len).sum::<usize>();
        let bytes_budget = budget;
        let budget = PUSHES_PER_SUBGOAL * n + PUSHES_FLOOR;
        let visits_budget = VISITS_PER_SUBGOAL * n + VISITS_FLOOR;
        let mut shortcuts = 0;
        // At most twice as many shortcuts as the graph has edges: bounds the memory and the
        // build where contraction densifies the graph instead of thinning it.
        let max_shortcuts = adj.iter().map(Vec::len).sum::<usize>() / 2 * MAX_SHORTCUTS_PER_EDGE;
        let mut pairs = Vec::new();
        // The order: least edge difference first (shortcuts a contraction adds less the edges
        // it removes), plus the two spreading terms; kept lazily, each subgoal's priority
        // simulated again when it comes out and put back if it grew past the next one's.
        #[expect(clippy::cast_possible_wrap, reason = "edge counts are far below 2^63")]
        let priority =
            |pairs: &[(u32, u32, [u32; 2])], x: usize, degree: usize, around: &[i64], depth: &[i64]| {
                2 * pairs.len() as i64 - degree as i64 + around[x] + depth[x]
            };
        let mut order: std::collections::BinaryHeap<std::cmp::Reverse<(i64, u32)>> =
            std::collections::BinaryHeap::new();
        let mut spent = 0;
        let mut contracted = 0;
        // Subgoals, not free slots (a repair leaves some).
        let live = subgoals.iter().filter(|s| s.cell != NONE).count();
        for x in 0..n {
            if witness.visits > visits_budget {
                // Too dense to order within the bound: every subgoal left unordered stays in
                // the core (the main loop stops at once on the same bound).
                break;
            }
            if subgoals[x].cell == NONE || adj[x].len() > CORE_DEGREE {
                continue;
            }
            shortcuts_needed(&adj, x, &mut witness, &mut pairs);
            let p = priority(&pairs, x, adj[x].len(), &contracted_around, &depth);
            order.push(std::cmp::Reverse((p, x as u32)));
        }
        while let Some(std::cmp::Reverse((_, x))) = order.pop() {
            let x = x as usize;
            if done[x] {
                continue;
            }
            // Half the push budget spent with most of the graph left: the contraction densifies
            // the graph instead of thinning it, and its core would stay most of it (random512-10-0's,
            // 41 % of its subgoals at the full budget, is dropped for landmarks): stop there.
            let stalling = 2 * spent > budget && 2 * contracted < live;
            if spent > budget || stalling || witness.visits > visits_budget || shortcuts > max_shortcuts {
                break;
            }
            let degree = adj[x].len();
            if degree > CORE_DEGREE || adj[x].iter().any(|e| adj[e.to as usize].len() > NEIGHBOUR_DEGREE) {
                // Many edges here or next door: x stays in the core, so that a contraction
                // never searches and filters an edge list that keeps growing.
                continue;
            }
            shortcuts_needed(&adj, x, &mut witness, &mut pairs);
            let p = priority(&pairs, x, degree, &contracted_around, &depth);
            if let Some(std::cmp::Reverse((next, _))) = order.peek()
                && p > *next
            {
                order.push(std::cmp::Reverse((p, x as u32)));
                continue;
            }
            // The contraction itself: a wider witness search for each pair the estimate found
            // no short witness for (fewer shortcuts). Only these count against the budget.
            let before = witness.pushes;
            confirm_shortcuts(&adj, x, &mut witness, &mut pairs);
            spent += witness.pushes - before;
            // At most two entries a shortcut (fewer where an edge joins the pair already), less
            // the neighbours' entries to `x`, which go. A contraction that may grow the edges
            // past the bytes is not made (`x` stays in the core); one that cannot grow them
            // always is: where contraction thins the graph, it ends within bytes it began above.
            // The remaining graph is symmetric (each edge in both ends' lists, a shortcut added
            // both ways, an edge dropped from both), so as many entries point to `x` as it has:
            // no pass over its neighbours' lists (which `contract` walks again to drop them).
            let to_x = adj[x].len();
            debug_assert_eq!(
                to_x,
                adj[x].iter().map(|e| adj[e.to as usize].iter().filter(|f| f.to as usize == x).count()).sum(),
                "the remaining graph is symmetric"
            );
            let grows = (2 * pairs.len()).saturating_sub(to_x);
            if grows > 0 && Self::bytes_without_labels(n, entries + grows) > bytes_budget {
                break;
            }
            shortcuts += pairs.len();
            done[x] = true;
            contracted += 1;
            let gained;
            (up[x], gained) = contract(&mut adj, x, &pairs);
            // `x`'s own edges move from the one list to the other: the same count.
            entries = entries.saturating_add_signed(gained);
            for e in &up[x] {
                let t = e.to as usize;
                contracted_around[t] += 1;
                depth[t] = depth[t].max(depth[x] + 1);
            }
        }
        // The core keeps its edges among itself.
        let in_core: Vec<bool> = (0..n).map(|v| subgoals[v].cell != NONE && !done[v]).collect();
        for v in (0..n).filter(|&v| in_core[v]) {
            up[v] = std::mem::take(&mut adj[v]);
        }
        let core = in_core.iter().filter(|&&c| c).count();
        let xy = subgoals.iter().map(|s| (s.x, s.y)).collect();
        let edges = Runs::of(up.iter().map(Vec::as_slice));
        Self { edges, in_core, xy, labels: None, unpacked: None, core, shortcuts }
    }

    /// The upward (or core) edges of slot `v`.
    #[inline]
    pub(super) fn up(&self, v: usize) -> &[UpEdge] {
        self.edges.get(v)
    }

    /// The two halves of the shortcut from `a` to `b` that bypasses `x`: `x`'s edges to `a` and
    /// to `b` (held by `x`, contracted before both: its contraction added the shortcut), found
    /// in one pass over its list.
    fn halves(&self, x: u32, a: u32, b: u32) -> Option<(UpEdge, UpEdge)> {
        let (mut to_a, mut to_b) = (None, None);
        for e in self.up(x as usize) {
            if e.to == a {
                to_a = Some(*e);
            } else if e.to == b {
                to_b = Some(*e);
            }
        }
        to_a.zip(to_b)
    }

    /// The place in the edges of slot `v`'s edge to `to`, and the edge, if it has one.
    #[expect(clippy::cast_possible_truncation, reason = "edge places fit in u32")]
    pub(super) fn edge_to(&self, v: u32, to: u32) -> Option<(u32, UpEdge)> {
        let run = self.up(v as usize);
        let place = run.iter().position(|e| e.to == to)?;
        Some((self.edges.first[v as usize] + place as u32, run[place]))
    }

    /// Whether slot `v` is in the core.
    pub(super) fn in_core(&self, v: usize) -> bool {
        self.in_core[v]
    }

    /// Whether queries read hub labels instead of searching.
    pub(super) fn has_labels(&self) -> bool {
        self.labels.is_some()
    }

    /// Takes the labels out (queries search the hierarchy until they are put back).
    pub(super) fn take_labels(&mut self) -> Option<TakenLabels> {
        // The unpacked edges serve the labels alone: they go with them.
        self.labels.take().map(|labels| TakenLabels { labels, unpacked: self.unpacked.take() })
    }

    /// Puts labels back.
    pub(super) fn put_labels(&mut self, taken: TakenLabels) {
        self.labels = Some(taken.labels);
        self.unpacked = taken.unpacked;
    }

    /// Bytes the hierarchy holds.
    pub(super) fn bytes(&self) -> usize {
        Self::bytes_without_labels(self.xy.len(), self.edges.items.len())
            + self.labels.as_ref().map_or(0, Labels::bytes)
            + self.unpacked.as_ref().map_or(0, Runs::bytes)
    }

    /// Bytes a hierarchy of `slots` slots and `edges` edges takes without its labels: its edges
    /// laid out, and per slot whether it is in the core and its coordinates.
    fn bytes_without_labels(slots: usize, edges: usize) -> usize {
        Runs::<UpEdge>::bytes_for(slots, edges) + slots * (size_of::<bool>() + size_of::<(u16, u16)>())
    }
}

/// The subgoal graph as the contraction starts from it: per slot its edges, with their costs
/// and shapes.
#[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
fn remaining_graph(subgoals: &[Subgoal]) -> Vec<Vec<UpEdge>> {
    let pos = |v: usize| (subgoals[v].x, subgoals[v].y);
    subgoals
        .iter()
        .enumerate()
        .map(|(v, s)| {
            if s.cell == NONE {
                return Vec::new();
            }
            s.adj
                .iter()
                .map(|e| {
                    let t = (e.to & TARGET) as usize;
                    let via = if e.to & FOUND_HERE == 0 { STRAIGHT_FIRST } else { DIAGONAL_FIRST };
                    UpEdge { to: t as u32, cost: octile(pos(v), pos(t)), via }
                })
                .collect()
        })
        .collect()
}

/// Takes `x` out of the remaining graph `adj`, joining its neighbours by the shortcuts `pairs`
/// (each kept where no edge as short joins them); returns its edges, all to subgoals left, and
/// how many entries its neighbours' lists gained (shortcuts) less those they lost (to `x`).
#[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
fn contract(adj: &mut [Vec<UpEdge>], x: usize, pairs: &[(u32, u32, [u32; 2])]) -> (Vec<UpEdge>, isize) {
    let mut added = 0isize;
    for &(a, b, cost) in pairs {
        for (from, to) in [(a, b), (b, a)] {
            let list = &mut adj[from as usize];
            match list.iter_mut().find(|e| e.to == to) {
                Some(e) if less(cost, e.cost) => *e = UpEdge { to, cost, via: x as u32 },
                Some(_) => {}
                None => {
                    list.push(UpEdge { to, cost, via: x as u32 });
                    added += 1;
                }
            }
        }
    }
    let mine = std::mem::take(&mut adj[x]);
    for e in &mine {
        let list = &mut adj[e.to as usize];
        let before = list.len();
        list.retain(|f| f.to as usize != x);
        added -= (before - list.len()).cast_signed();
    }
    (mine, added)
}

/// The shortcuts contracting `x` out of `adj` may need, into `pairs` as `(a, b, cost via x)`:
/// one per pair of its neighbours that no witness route of one or two edges, as short, joins
/// without `x`. An estimate that orders the contraction, without a heap: on a grid's subgoal
/// graph most witnesses are that short; [`confirm_shortcuts`] looks further for the rest.
fn shortcuts_needed(
    adj: &[Vec<UpEdge>],
    x: usize,
    witness: &mut Witness,
    pairs: &mut Vec<(u32, u32, [u32; 2])>,
) {
    pairs.clear();
    let around = &adj[x];
    for (k, a) in around.iter().enumerate() {
        let rest = &around[k + 1..];
        if rest.is_empty() {
            continue;
        }
        witness.two_hops(adj, (a.to as usize, x), a.cost, rest);
        for b in rest {
            let via_x = add(a.cost, b.cost);
            let found = witness.reached(b.to as usize).is_some_and(|d| !less(via_x, d));
            if !found {
                pairs.push((a.to, b.to, via_x));
            }
        }
    }
}

/// Keeps of `pairs` (as [`shortcuts_needed`] left them, grouped by their first subgoal) those
/// that a witness search of up to [`WITNESS_SETTLED`] nodes from the first, avoiding `x`, finds
/// no route as short for: the shortcuts contracting `x` adds.
fn confirm_shortcuts(
    adj: &[Vec<UpEdge>],
    x: usize,
    witness: &mut Witness,
    pairs: &mut Vec<(u32, u32, [u32; 2])>,
) {
    let mut kept = 0;
    let mut k = 0;
    while k < pairs.len() {
        let a = pairs[k].0;
        let end = k + pairs[k..].iter().take_while(|p| p.0 == a).count();
        let limit = pairs[k..end]
            .iter()
            .map(|p| p.2)
            .max_by(|p, q| value(*p).total_cmp(&value(*q)))
            .unwrap_or([0, 0]);
        witness.run(adj, (a as usize, x), pairs[k..end].iter().map(|p| p.1 as usize), limit, WITNESS_SETTLED);
        for j in k..end {
            let (_, b, via_x) = pairs[j];
            if witness.reached(b as usize).is_none_or(|d| less(via_x, d)) {
                pairs[kept] = pairs[j];
                kept += 1;
            }
        }
        k = end;
    }
    pairs.truncate(kept);
}

impl Witness {
    /// A new search's stamp (the stamps start again from zero before they would wrap).
    fn next_generation(&mut self) -> u32 {
        if self.generation >= u32::MAX - 2 {
            self.stamp.fill(0);
            self.target.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        self.generation
    }

    /// Dijkstra from `from` over `adj` without `skip`, up to cost `limit` or `settled` nodes, or
    /// until every one of `targets` is settled (their distances are final then: the rest of the
    /// search could change none of them).
    #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
    fn run(
        &mut self,
        adj: &[Vec<UpEdge>],
        (from, skip): (usize, usize),
        targets: impl Iterator<Item = usize>,
        limit: [u32; 2],
        settled: usize,
    ) {
        let generation = self.next_generation();
        let mut unsettled = 0;
        for t in targets {
            if self.target[t] != generation {
                self.target[t] = generation;
                unsettled += 1;
            }
        }
        self.heap.clear();
        self.dist[from] = [0, 0];
        self.stamp[from] = generation;
        self.heap.push(Entry { f: 0.0, h: 0.0, cell: from as u32 });
        let mut count = 0;
        while let Some(entry) = self.heap.pop() {
            let v = entry.cell as usize;
            if self.stamp[v] != generation {
                continue;
            }
            self.stamp[v] = generation + 1;
            count += 1;
            if count >= settled || less(limit, self.dist[v]) {
                break;
            }
            if self.target[v] == generation {
                unsettled -= 1;
                if unsettled == 0 {
                    break;
                }
            }
            for e in &adj[v] {
                let t = e.to as usize;
                if t == skip || self.stamp[t] == generation + 1 {
                    continue;
                }
                let d = add(self.dist[v], e.cost);
                if self.stamp[t] != generation || less(d, self.dist[t]) {
                    self.dist[t] = d;
                    self.stamp[t] = generation;
                    // Beyond the limit it would never be settled: its distance is kept (a real
                    // route's), the heap is spared. Counted as pushed all the same: the budget
                    // stays a measure of how far the contraction went.
                    if !less(limit, d) {
                        self.heap.push(Entry { f: value(d), h: 0.0, cell: t as u32 });
                    }
                    self.pushes += 1;
                }
            }
        }
    }

    /// The routes of one or two edges from `from` over `adj` without `skip` to the subgoals
    /// of `targets` (the rest of `skip`'s neighbours; `from` is `via_skip` from `skip`), as
    /// [`Witness::run`] leaves its distances (no heap: every such route is looked at). Routes
    /// dearer than the way through `skip` to every target are left out: none could be a
    /// witness. [`Witness::visits`] counts every route of two edges all the same, a measure of
    /// how dense the graph has grown, pruned or not.
    fn two_hops(
        &mut self,
        adj: &[Vec<UpEdge>],
        (from, skip): (usize, usize),
        via_skip: [u32; 2],
        targets: &[UpEdge],
    ) {
        let generation = self.next_generation();
        let mut farthest = 0.0f64;
        for b in targets {
            self.target[b.to as usize] = generation;
            farthest = farthest.max(value(b.cost));
        }
        // No witness is dearer than this (within `less`'s rounding).
        let limit = value(via_skip) + farthest + 1e-6;
        let (dist, stamp, target) = (&mut self.dist, &mut self.stamp, &self.target);
        let mut offer = |t: usize, d: [u32; 2]| {
            if target[t] == generation && (stamp[t] != generation || less(d, dist[t])) {
                dist[t] = d;
                stamp[t] = generation;
            }
        };
        for e in &adj[from] {
            let c = e.to as usize;
            if c == skip {
                continue;
            }
            offer(c, e.cost);
            self.visits += adj[c].len();
            if value(e.cost) > limit {
                continue;
            }
            for f in &adj[c] {
                offer(f.to as usize, add(e.cost, f.cost));
            }
        }
    }

    /// Whether the last search reached `t` (settled or not: a tentative distance is the cost of
    /// a real route too), and at what cost.
    fn reached(&self, t: usize) -> Option<[u32; 2]> {
        (self.stamp[t] == self.generation || self.stamp[t] == self.generation + 1).then_some(self.dist[t])
    }
}

/// A query's two ends, as the subgoal graph's search connected them.
pub(super) struct Ends<'a, F: Fn(usize) -> usize> {
    /// Padded coordinates of the start and the goal.
    pub(super) s_xy: (u16, u16),
    pub(super) g_xy: (u16, u16),
    /// Their slots (a subgoal's, or the virtual `n` and `n + 1`).
    pub(super) start_v: usize,
    pub(super) goal_v: usize,
    /// Padded cells of the subgoals the start and the goal directly-h-reach (empty for an end
    /// that is a subgoal itself).
    pub(super) start_edges: &'a [usize],
    pub(super) goal_edges: &'a [usize],
    /// The slot of a padded cell found by a scan.
    pub(super) slot_of: F,
}

impl<F: Fn(usize) -> usize> Ends<'_, F> {
    /// The padded coordinates of slot `v`: a subgoal's (of `xy`, one per slot), the start's
    /// (the slot after them) or the goal's.
    pub(super) fn pos(&self, xy: &[(u16, u16)], v: usize) -> (u16, u16) {
        match v.checked_sub(xy.len()) {
            None => xy[v],
            Some(0) => self.s_xy,
            Some(_) => self.g_xy,
        }
    }
}

/// The route by the hierarchy's hub labels where it has them, else by its search ([`search`]).
pub(super) fn route<F: Fn(usize) -> usize>(
    h: &Hierarchy,
    w: &mut super::Workspace,
    ends: &Ends<'_, F>,
) -> Result<([u32; 2], crate::Stats), crate::Stats> {
    match &h.labels {
        Some(labels) => labels::search(h, labels, w, ends),
        None => search(h, w, ends),
    }
}

/// The bidirectional upward search; leaves the route in the subgoal graph, start first, in
/// `w.steps`.
#[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
pub(super) fn search<F: Fn(usize) -> usize>(
    h: &Hierarchy,
    w: &mut super::Workspace,
    ends: &Ends<'_, F>,
) -> Result<([u32; 2], crate::Stats), crate::Stats> {
    // Slots: the subgoals' (one coordinate pair each), then the start's and the goal's.
    let n = h.xy.len();
    let generation = w.generation;
    let pos = |v: usize| ends.pos(&h.xy, v);
    // New room is unstamped; `search_in` clears the stamps when they start again.
    if w.fwd.len() < n + 2 {
        w.fwd.resize(n + 2, Side::default());
        w.bwd.resize(n + 2, Side::default());
    }
    // Each side is an A* towards the other end: every edge costs at least the octile distance
    // between its ends (a shortcut is a real route), so the octile estimate is consistent on
    // the upward graphs too, and a side's smallest key bounds every route through its open
    // nodes. On the top node of the best route, a side's key is at most that route's cost, so
    // both sides settle it before they stop (see `best` below); without the estimate, both
    // sides searched the whole core around their end (a dense core: random512-25's).
    let key = |forward: bool, g, v| keyed(g, pos(v), if forward { ends.g_xy } else { ends.s_xy }, v);
    let mut stats = crate::Stats::default();
    w.heap.clear();
    w.heap_b.clear();
    let mut best = f64::INFINITY;
    let mut best_pair = [0, 0];
    let mut meet = NONE;
    // Seeds each side: its end's connections, or the end itself when it is a subgoal.
    for (forward, v, edges) in [(true, ends.start_v, ends.start_edges), (false, ends.goal_v, ends.goal_edges)]
    {
        let (sides, heap) = if forward { (&mut w.fwd, &mut w.heap) } else { (&mut w.bwd, &mut w.heap_b) };
        if v < n {
            sides[v] = Side { g: [0, 0], parent: NONE, via: DIAGONAL_FIRST, stamp: generation };
            heap.push(key(forward, [0, 0], v));
        } else {
            // The virtual end roots its side's parent chain; its edges are its scan's, walked
            // diagonal steps first from it.
            sides[v] = Side { g: [0, 0], parent: NONE, via: DIAGONAL_FIRST, stamp: generation + 1 };
            for &c in edges {
                let t = (ends.slot_of)(c);
                let d = octile(pos(v), pos(t));
                sides[t] = Side { g: d, parent: v as u32, via: DIAGONAL_FIRST, stamp: generation };
                heap.push(key(forward, d, t));
            }
        }
        stats.generated += heap.len() as u64;
    }
    // A seed of one side may be seen by the other already.
    let one = [ends.goal_v];
    let seeds = if ends.goal_v < n { &one[..] } else { ends.goal_edges };
    for v in seeds.iter().map(|&c| if ends.goal_v < n { c } else { (ends.slot_of)(c) }) {
        if w.fwd[v].stamp == generation {
            let pair = add(w.fwd[v].g, w.bwd[v].g);
            if value(pair) < best {
                (best, best_pair, meet) = (value(pair), pair, v as u32);
            }
        }
    }
    loop {
        let (tf, tb) = (w.heap.min_f(), w.heap_b.min_f());
        if tf >= best && tb >= best {
            break;
        }
        let forward = tf <= tb;
        let (this, other, heap) =
            if forward { (&mut w.fwd, &w.bwd, &mut w.heap) } else { (&mut w.bwd, &w.fwd, &mut w.heap_b) };
        let Some(entry) = heap.pop() else { break };
        let v = entry.cell as usize;
        if this[v].stamp != generation {
            continue;
        }
        this[v].stamp = generation + 1;
        let gv = this[v].g;
        // The core is searched by the forward side alone: the backward side only brings the
        // goal's routes up to the core, where the forward side meets them (on a dense core,
        // searching it from both ends did its work twice).
        if (!forward && h.in_core[v]) || stalled(h, this, v, generation) {
            continue;
        }
        stats.expanded += 1;
        for e in h.up(v) {
            let t = e.to as usize;
            if this[t].stamp == generation + 1 {
                continue;
            }
            let d = add(gv, e.cost);
            if this[t].stamp != generation || less(d, this[t].g) {
                this[t] = Side { g: d, parent: v as u32, via: e.via, stamp: generation };
                heap.push(key(forward, d, t));
                stats.generated += 1;
                stats.peak_open = stats.peak_open.max(heap.len() as u64);
                if other[t].stamp == generation || other[t].stamp == generation + 1 {
                    let pair = add(d, other[t].g);
                    if value(pair) < best {
                        (best, best_pair, meet) = (value(pair), pair, t as u32);
                    }
                }
            }
        }
    }
    if meet == NONE {
        return Err(stats);
    }
    if !unpack(h, w, meet, ends.start_v as u32, pos) {
        // Never seen. An empty route makes the caller answer by the exact fallback search
        // rather than report a goal it reached as unreachable.
        w.steps.clear();
    }
    Ok((best_pair, stats))
}

/// The open-list entry of vertex `v` at `at`, reached at cost `g`, for a side searching towards
/// `towards`.
#[expect(clippy::cast_possible_truncation, reason = "slots fit in u32; h only breaks ties")]
fn keyed(g: [u32; 2], at: (u16, u16), towards: (u16, u16), v: usize) -> Entry {
    let h = value(octile(at, towards));
    Entry { f: value(g) + h, h: h as f32, cell: v as u32 }
}

/// Stall on demand: whether a higher neighbour of `v` already reached more cheaply (at its
/// label plus the edge) proves that `v`'s label is not its distance, so that no shortest
/// route leaves `v` with it (its meeting with the other side was counted when it was reached).
pub(super) fn stalled(h: &Hierarchy, this: &[Side], v: usize, generation: u32) -> bool {
    h.up(v).iter().any(|e| {
        let u = &this[e.to as usize];
        (u.stamp == generation || u.stamp == generation + 1) && less(add(u.g, e.cost), this[v].g)
    })
}

/// Writes the route through `meet` into `w.steps` (start first), its shortcuts unpacked into
/// subgoal-graph edges; `false` when a shortcut's halves are missing (never seen).
fn unpack(
    h: &Hierarchy,
    w: &mut super::Workspace,
    meet: u32,
    start_v: u32,
    pos: impl Fn(usize) -> (u16, u16),
) -> bool {
    // The hops start .. meet .. goal, unpacked into the route after (in the workspace's
    // buffers: no allocation per query).
    let mut hops = std::mem::take(&mut w.hops);
    hops.clear();
    // The forward side's edges are held by their parents (the hop's first vertex), the
    // backward side's by theirs (the hop's second).
    let mut v = meet;
    while w.fwd[v as usize].parent != NONE {
        let side = w.fwd[v as usize];
        hops.push(Hop { from: side.parent, to: v, via: side.via, held_by_to: false, edge: NONE });
        v = side.parent;
    }
    hops.reverse();
    let mut v = meet;
    while w.bwd[v as usize].parent != NONE {
        let side = w.bwd[v as usize];
        hops.push(Hop { from: v, to: side.parent, via: side.via, held_by_to: true, edge: NONE });
        v = side.parent;
    }
    w.hops = hops;
    unpack_hops(h, w, start_v, pos)
}

/// Writes the route of the hops in `w.hops` (start to goal, edges of the hierarchy) into
/// `w.steps` (start first), its shortcuts unpacked into subgoal-graph edges: copied from
/// [`Hierarchy::unpacked`] where the hop knows its edge, else half by half. `false` when a
/// shortcut's halves are missing (never seen).
pub(super) fn unpack_hops(
    h: &Hierarchy,
    w: &mut super::Workspace,
    start_v: u32,
    pos: impl Fn(usize) -> (u16, u16),
) -> bool {
    let hops = std::mem::take(&mut w.hops);
    let mut stack = std::mem::take(&mut w.stack);
    let mut steps = std::mem::take(&mut w.steps);
    steps.clear();
    let (x, y) = pos(start_v as usize);
    steps.push(Step { x, y, diagonal_first: true });
    let mut whole = true;
    for &hop in &hops {
        if let Some(unpacked) = &h.unpacked
            && hop.edge != NONE
        {
            let run = unpacked.get(hop.edge as usize);
            if hop.held_by_to {
                // Walked from its other end back to its holder (`to`): the same vertices the
                // other way, each edge free in the other shape from this side.
                for j in (0..run.len()).rev() {
                    let (x, y) = if j == 0 { pos(hop.to as usize) } else { (run[j - 1].x, run[j - 1].y) };
                    steps.push(Step { x, y, diagonal_first: !run[j].diagonal_first });
                }
            } else {
                steps.extend_from_slice(run);
            }
            continue;
        }
        stack.clear();
        if !h.unpack_hop(hop, &mut stack, &mut steps, &pos) {
            whole = false;
            break;
        }
    }
    w.hops = hops;
    w.stack = stack;
    w.steps = steps;
    whole
}

/// An edge of a route being unpacked, from `from` to `to`: [`UpEdge::via`] of it, and whether
/// `to`'s list holds it (the shape `via` names is from its holder).
#[derive(Clone, Copy, Debug)]
pub(super) struct Hop {
    pub(super) from: u32,
    pub(super) to: u32,
    pub(super) via: u32,
    pub(super) held_by_to: bool,
    /// The edge's place in the hierarchy's edges, where known ([`NONE`] if not, and for an
    /// end's edge to its seed).
    pub(super) edge: u32,
}

#[cfg(test)]
mod tests {
    use crate::subgoal::pillars;
    use crate::{Pos, Settings, SubgoalGraph};

    /// The contraction keeps its edges within its bytes where it grows the graph: a budget
    /// between the graph uncontracted and the whole contraction gets a larger core within it;
    /// the whole build, labels too, keeps within any budget it does not give up on, and gives
    /// up only below the uncontracted graph.
    #[test]
    fn the_contraction_stops_within_its_bytes() {
        // A random map of 20 % walls: its contraction adds more shortcuts than it takes edges
        // away (the pillars' takes away more).
        let mut grid = crate::Grid::new(96, 96).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for p in grid.positions().collect::<Vec<_>>() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state % 100 < 20 {
                grid.set_wall(p, true).unwrap();
            }
        }
        let graph = SubgoalGraph::build(&grid);
        let uncontracted = |subgoals: &[super::Subgoal]| {
            let entries: usize = super::remaining_graph(subgoals).iter().map(Vec::len).sum();
            super::Hierarchy::bytes_without_labels(subgoals.len(), entries)
        };
        let bare = uncontracted(&graph.subgoals);
        let whole = super::Hierarchy::contract(&graph.subgoals, usize::MAX);
        assert!(whole.bytes() > bare, "{} against {bare}", whole.bytes());
        let budget = usize::midpoint(whole.bytes(), bare);
        let part = super::Hierarchy::contract(&graph.subgoals, budget);
        assert!(part.bytes() <= budget && part.core > whole.core, "{} of {budget}", part.bytes());
        for room in [0, bare / 2, bare, budget, whole.bytes(), whole.bytes() * 2] {
            match super::Hierarchy::build(&graph.subgoals, room) {
                Some(h) => assert!(h.bytes() <= room, "{} of {room}", h.bytes()),
                None => assert!(room < bare, "none within {room}"),
            }
        }
        // Kept within those bytes, it answers as A* does.
        let mut bounded = graph.clone();
        bounded.hierarchy = super::Hierarchy::build(&graph.subgoals, budget);
        bounded.landmarks = None;
        bounded.seeds = None;
        assert!(bounded.hierarchy.as_ref().is_some_and(|h| h.core == part.core && h.labels.is_none()));
        let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
        let mut searcher = crate::Searcher::new();
        for k in 1..=40 {
            let (a, b) = (open[k * 7919 % open.len()], open[k * 104_729 % open.len()]);
            let by_graph = bounded.find_path(&grid, a, b, &Settings::default()).map(|p| p.cost);
            let by_astar = searcher.find_path(&grid, a, b, &Settings::default()).map(|p| p.cost);
            match (by_graph, by_astar) {
                (Ok(x), Ok(y)) => assert!((x - y).abs() < 1e-9, "{x} against {y}"),
                (x, y) => assert_eq!(x.is_ok(), y.is_ok()),
            }
        }
        // The pillars' contraction thins their graph: within the bytes of the whole contraction,
        // below the uncontracted graph's, it gets there; labels and their unpacked edges keep
        // within the room left.
        let pillars = SubgoalGraph::build(&pillars());
        let thinned = super::Hierarchy::contract(&pillars.subgoals, usize::MAX);
        assert!(thinned.bytes() < uncontracted(&pillars.subgoals));
        let mut labelled = 0;
        for k in 0..64 {
            let room = thinned.bytes() + k * thinned.bytes() / 8;
            let h = super::Hierarchy::build(&pillars.subgoals, room).unwrap();
            assert!(h.bytes() <= room, "{} of {room}", h.bytes());
            labelled += usize::from(h.labels.is_some());
        }
        assert!(labelled > 0, "the larger rooms hold labels");
        // The least room that holds the labels (found by halving): they fill it, and still keep
        // within it (their per-slot arrays counted, not only their entries).
        let build = |room| super::Hierarchy::build(&pillars.subgoals, room).unwrap();
        let (mut without, mut with) = (thinned.bytes(), thinned.bytes() * 16);
        assert!(build(with).labels.is_some());
        while with - without > 1 {
            let mid = usize::midpoint(without, with);
            if build(mid).labels.is_some() { with = mid } else { without = mid }
        }
        assert!(build(with).bytes() <= with, "{} of {with}", build(with).bytes());
    }

    /// The unpacked edges serve the labels alone: taken out with them, put back with them.
    #[test]
    fn unpacked_edges_go_with_the_labels() {
        let mut graph = SubgoalGraph::build(&pillars());
        graph.force_hierarchy();
        let h = graph.hierarchy.as_mut().unwrap();
        assert!(h.unpacked.is_some());
        let with = h.bytes();
        let taken = h.take_labels().unwrap();
        assert!(h.unpacked.is_none());
        assert!(h.bytes() < with);
        h.put_labels(taken);
        assert!(h.unpacked.is_some());
        assert_eq!(h.bytes(), with);
    }

    /// The routes copied from the unpacked edges are the routes unpacked half by half: the
    /// same cells for queries between every pair of a spread of cells (both ways, so every
    /// edge is walked from its holder and back to it).
    #[test]
    fn unpacked_edges_give_the_routes_unpacked_half_by_half() {
        let grid = pillars();
        let mut graph = SubgoalGraph::build(&grid);
        graph.force_hierarchy();
        assert!(graph.hierarchy.as_ref().is_some_and(|h| h.unpacked.is_some() && h.shortcuts > 0));
        let mut plain = SubgoalGraph::build(&grid);
        plain.force_hierarchy();
        if let Some(h) = &mut plain.hierarchy {
            h.unpacked = None;
        }
        let settings = Settings::default();
        let side = grid.width();
        let open: Vec<Pos> = (0..side * side)
            .step_by(37)
            .map(|i| Pos::new(i % side, i / side))
            .filter(|&p| grid.is_passable(p))
            .collect();
        for &a in &open {
            for &b in &open {
                let copied = graph.find_path(&grid, a, b, &settings).unwrap();
                let unpacked = plain.find_path(&grid, a, b, &settings).unwrap();
                assert_eq!(copied.cells, unpacked.cells, "{a} -> {b}");
                assert!(grid.path_cost(&copied.cells, crate::Rules::OCTILE).is_ok());
            }
        }
    }
}
