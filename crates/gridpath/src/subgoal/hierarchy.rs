//! A contraction hierarchy over the subgoal graph (the idea of SGCH: Uras and Koenig,
//! "Understanding Subgoal Graphs by Augmenting Contraction Hierarchies", IJCAI 2018), with a
//! core: subgoals are contracted in the order of their degree while it stays small, each
//! contraction adding a shortcut between two neighbours only where no witness route as short
//! avoids it; the rest stay an uncontracted core. The contraction stops, leaving the rest as
//! the core, at the first subgoal of degree above [`CORE_DEGREE`] (and skips subgoals next
//! to one of degree above [`NEIGHBOUR_DEGREE`]), or once the witness
//! searches have pushed [`PUSHES_PER_SUBGOAL`] nodes per subgoal, or once there are
//! [`MAX_SHORTCUTS_PER_EDGE`] shortcuts per edge: bounds on the build where contraction
//! densifies the graph.
//!
//! Every subgoal keeps the edges it had when contracted (all to subgoals contracted later or to
//! the core), core subgoals their core edges. A query searches up from both ends over these
//! edges (bidirectional Dijkstra; in the core both searches take every edge), each side until
//! its smallest key reaches the best meeting cost: a shortest route can be taken up, through
//! the core, then down (each contraction kept the distances between the subgoals left), so the
//! two searches meet on it. A shortcut remembers the subgoal it bypasses and is unpacked into
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

use super::{NONE, Subgoal, TARGET, octile, value};
use crate::search::{Entry, OpenList};

/// Subgoals of a larger degree than this stay in the core.
const CORE_DEGREE: usize = 24;
/// Nodes a witness search settles at most before it gives up (a shortcut is added then).
const WITNESS_SETTLED: usize = 60;
/// Witness-search pushes in all, per subgoal (plus [`PUSHES_FLOOR`]), before the contraction
/// stops and the subgoals left become the core: bounds the build time where the graph
/// densifies (random512-10-0 would take 82 million, about 5 s; the maps whose hierarchy pays
/// take at most 690 per subgoal).
const PUSHES_PER_SUBGOAL: usize = 400;
/// The push budget every graph gets, however small.
const PUSHES_FLOOR: usize = 1 << 20;
/// Subgoals next to one with more edges than this are not contracted (they join the core).
const NEIGHBOUR_DEGREE: usize = 64;
/// Shortcuts per subgoal-graph edge, at most, before the contraction stops.
const MAX_SHORTCUTS_PER_EDGE: usize = 2;

/// An edge of the hierarchy: target slot, exact cost, and the subgoal a shortcut bypasses
/// ([`NONE`] for a subgoal-graph edge).
#[derive(Clone, Copy, Debug)]
pub(super) struct UpEdge {
    pub(super) to: u32,
    pub(super) cost: [u32; 2],
    pub(super) via: u32,
}

/// The hierarchy: per slot its upward (or core) edges, all in one array (it never changes
/// after the build): slot `v`'s are `edges[first[v]..first[v + 1]]`.
#[derive(Debug, Default)]
pub(super) struct Hierarchy {
    first: Vec<u32>,
    edges: Vec<UpEdge>,
    pub(super) core: usize,
    pub(super) shortcuts: usize,
}

fn less(a: [u32; 2], b: [u32; 2]) -> bool {
    value(a) < value(b) - 1e-9
}

fn add(a: [u32; 2], b: [u32; 2]) -> [u32; 2] {
    [a[0] + b[0], a[1] + b[1]]
}

/// One search side's state per slot.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Side {
    pub(super) g: [u32; 2],
    pub(super) parent: u32,
    /// The bypassed subgoal of the edge from the parent, or [`NONE`].
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
    /// Nodes pushed by every search so far.
    pushes: usize,
}

impl Hierarchy {
    /// Contracts the subgoal graph `subgoals` (free slots have `cell == NONE`).
    #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
    pub(super) fn build(subgoals: &[Subgoal]) -> Self {
        let n = subgoals.len();
        let pos = |v: usize| (subgoals[v].x, subgoals[v].y);
        // The remaining graph: per slot its edges to uncontracted subgoals.
        let mut adj: Vec<Vec<UpEdge>> = subgoals
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
                        UpEdge { to: t as u32, cost: octile(pos(v), pos(t)), via: NONE }
                    })
                    .collect()
            })
            .collect();
        let mut done = vec![false; n];
        let mut up: Vec<Vec<UpEdge>> = vec![Vec::new(); n];
        // Lazy min-degree order: (degree, slot), re-queued when the degree grew.
        let mut order: std::collections::BinaryHeap<std::cmp::Reverse<(usize, u32)>> = adj
            .iter()
            .enumerate()
            .filter(|&(v, _)| subgoals[v].cell != NONE)
            .map(|(v, a)| std::cmp::Reverse((a.len(), v as u32)))
            .collect();
        let mut witness = Witness {
            dist: vec![[0, 0]; n],
            stamp: vec![0; n],
            generation: 0,
            heap: OpenList::default(),
            pushes: 0,
        };
        let budget = PUSHES_PER_SUBGOAL * n + PUSHES_FLOOR;
        let mut shortcuts = 0;
        // At most twice as many shortcuts as the graph has edges: bounds the memory and the
        // build where contraction densifies the graph instead of thinning it.
        let max_shortcuts = adj.iter().map(Vec::len).sum::<usize>() / 2 * MAX_SHORTCUTS_PER_EDGE;
        let mut pairs = Vec::new();
        while let Some(std::cmp::Reverse((degree, x))) = order.pop() {
            let x = x as usize;
            if done[x] {
                continue;
            }
            if adj[x].len() != degree {
                order.push(std::cmp::Reverse((adj[x].len(), x as u32)));
                continue;
            }
            if degree > CORE_DEGREE || witness.pushes > budget || shortcuts > max_shortcuts {
                // Every subgoal left has at least this degree: they are the core.
                order.push(std::cmp::Reverse((degree, x as u32)));
                break;
            }
            if adj[x].iter().any(|e| adj[e.to as usize].len() > NEIGHBOUR_DEGREE) {
                // Next to a subgoal of many edges: x stays in the core, so that subgoal's
                // edge list (searched and filtered on every contraction beside it) stops
                // growing.
                continue;
            }
            // The shortcuts contracting x needs.
            pairs.clear();
            let around = adj[x].clone();
            for (k, a) in around.iter().enumerate() {
                let rest = &around[k + 1..];
                let Some(limit) =
                    rest.iter().map(|b| add(a.cost, b.cost)).max_by(|p, q| value(*p).total_cmp(&value(*q)))
                else {
                    continue;
                };
                witness.run(&adj, a.to as usize, x, limit, WITNESS_SETTLED);
                for b in rest {
                    let via_x = add(a.cost, b.cost);
                    let t = b.to as usize;
                    let found = witness.reached(t).is_some_and(|d| !less(via_x, d));
                    if !found {
                        pairs.push((a.to, b.to, via_x));
                    }
                }
            }
            for &(a, b, cost) in &pairs {
                for (from, to) in [(a, b), (b, a)] {
                    let list = &mut adj[from as usize];
                    match list.iter_mut().find(|e| e.to == to) {
                        Some(e) if less(cost, e.cost) => *e = UpEdge { to, cost, via: x as u32 },
                        Some(_) => {}
                        None => list.push(UpEdge { to, cost, via: x as u32 }),
                    }
                }
                shortcuts += 1;
            }
            done[x] = true;
            let mine = std::mem::take(&mut adj[x]);
            for e in &mine {
                adj[e.to as usize].retain(|f| f.to as usize != x);
            }
            up[x] = mine;
        }
        // The core keeps its edges among itself.
        let mut core = 0;
        for v in 0..n {
            if subgoals[v].cell != NONE && !done[v] {
                core += 1;
                up[v] = std::mem::take(&mut adj[v]);
            }
        }
        Self::from_lists(up, core, shortcuts)
    }

    /// The hierarchy of the per-slot edge lists `up`, in one array.
    #[expect(clippy::cast_possible_truncation, reason = "fewer edges than 2^32")]
    fn from_lists(up: Vec<Vec<UpEdge>>, core: usize, shortcuts: usize) -> Self {
        let mut first = Vec::with_capacity(up.len() + 1);
        let mut edges = Vec::with_capacity(up.iter().map(Vec::len).sum());
        for list in up {
            first.push(edges.len() as u32);
            edges.extend(list);
        }
        first.push(edges.len() as u32);
        Self { first, edges, core, shortcuts }
    }

    /// The upward (or core) edges of slot `v`.
    #[inline]
    pub(super) fn up(&self, v: usize) -> &[UpEdge] {
        &self.edges[self.first[v] as usize..self.first[v + 1] as usize]
    }

    /// The edge between `a` and `b` (in the list of the one contracted first, or either in the
    /// core).
    pub(super) fn edge(&self, a: u32, b: u32) -> Option<UpEdge> {
        let find = |from: u32, to: u32| self.up(from as usize).iter().find(|e| e.to == to).copied();
        find(a, b).or_else(|| find(b, a))
    }

    /// Bytes the hierarchy holds.
    pub(super) fn bytes(&self) -> usize {
        self.first.len() * size_of::<u32>() + self.edges.len() * size_of::<UpEdge>()
    }
}

impl Witness {
    /// Dijkstra from `from` over `adj` without `skip`, up to cost `limit` or `settled` nodes.
    #[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
    fn run(&mut self, adj: &[Vec<UpEdge>], from: usize, skip: usize, limit: [u32; 2], settled: usize) {
        if self.generation >= u32::MAX - 2 {
            self.stamp.fill(0);
            self.generation = 0;
        }
        self.generation += 2;
        let generation = self.generation;
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
            for e in &adj[v] {
                let t = e.to as usize;
                if t == skip || self.stamp[t] == generation + 1 {
                    continue;
                }
                let d = add(self.dist[v], e.cost);
                if self.stamp[t] != generation || less(d, self.dist[t]) {
                    self.dist[t] = d;
                    self.stamp[t] = generation;
                    self.heap.push(Entry { f: value(d), h: 0.0, cell: t as u32 });
                    self.pushes += 1;
                }
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

/// The bidirectional upward search; leaves the route's subgoal-graph vertices, goal first, in
/// `w.chain` with their coordinates in `w.nodes`.
#[expect(clippy::cast_possible_truncation, reason = "slots fit in u32")]
pub(super) fn search<F: Fn(usize) -> usize>(
    h: &Hierarchy,
    subgoals: &[Subgoal],
    w: &mut super::Workspace,
    ends: &Ends<'_, F>,
) -> Result<([u32; 2], crate::Stats), crate::Stats> {
    let n = subgoals.len();
    let generation = w.generation;
    let pos = |v: usize| {
        if v == n {
            ends.s_xy
        } else if v == n + 1 {
            ends.g_xy
        } else {
            (subgoals[v].x, subgoals[v].y)
        }
    };
    if w.fwd.len() < n + 2 {
        w.fwd.resize(n + 2, Side::default());
        w.bwd.resize(n + 2, Side::default());
    }
    if generation == 2 {
        w.fwd.fill(Side::default());
        w.bwd.fill(Side::default());
    }
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
            sides[v] = Side { g: [0, 0], parent: NONE, via: NONE, stamp: generation };
            heap.push(Entry { f: 0.0, h: 0.0, cell: v as u32 });
        } else {
            // The virtual end roots its side's parent chain.
            sides[v] = Side { g: [0, 0], parent: NONE, via: NONE, stamp: generation + 1 };
            for &c in edges {
                let t = (ends.slot_of)(c);
                let d = octile(pos(v), pos(t));
                sides[t] = Side { g: d, parent: v as u32, via: NONE, stamp: generation };
                heap.push(Entry { f: value(d), h: 0.0, cell: t as u32 });
            }
        }
        stats.generated += heap.len() as u64;
    }
    // A seed of one side may be seen by the other already.
    let seeds: Vec<usize> = if ends.goal_v < n {
        vec![ends.goal_v]
    } else {
        ends.goal_edges.iter().map(|&c| (ends.slot_of)(c)).collect()
    };
    for v in seeds {
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
        stats.expanded += 1;
        let gv = this[v].g;
        for e in h.up(v) {
            let t = e.to as usize;
            if this[t].stamp == generation + 1 {
                continue;
            }
            let d = add(gv, e.cost);
            if this[t].stamp != generation || less(d, this[t].g) {
                this[t] = Side { g: d, parent: v as u32, via: e.via, stamp: generation };
                heap.push(Entry { f: value(d), h: 0.0, cell: t as u32 });
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
        // Never seen. An empty chain makes the caller answer by the exact fallback search
        // rather than report a goal it reached as unreachable.
        w.chain.clear();
    }
    Ok((best_pair, stats))
}

/// Writes the route through `meet` into `w.chain` (goal first), its shortcuts unpacked into
/// subgoal-graph edges, and its vertices' coordinates into `w.nodes`; `false` when a shortcut's
/// halves are missing (never seen).
fn unpack(
    h: &Hierarchy,
    w: &mut super::Workspace,
    meet: u32,
    start_v: u32,
    pos: impl Fn(usize) -> (u16, u16),
) -> bool {
    // The vertex chain start .. meet .. goal, shortcuts unpacked.
    let mut hops: Vec<(u32, u32, u32)> = Vec::new();
    let mut v = meet;
    while w.fwd[v as usize].parent != NONE {
        let side = w.fwd[v as usize];
        hops.push((side.parent, v, side.via));
        v = side.parent;
    }
    hops.reverse();
    let mut v = meet;
    while w.bwd[v as usize].parent != NONE {
        let side = w.bwd[v as usize];
        hops.push((v, side.parent, side.via));
        v = side.parent;
    }
    let mut route = vec![start_v];
    let mut stack = Vec::new();
    for hop in hops {
        stack.push(hop);
        while let Some((a, b, via)) = stack.pop() {
            if via == NONE {
                route.push(b);
                continue;
            }
            let (Some(first), Some(second)) = (h.edge(a, via), h.edge(via, b)) else {
                return false;
            };
            stack.push((via, b, second.via));
            stack.push((a, via, first.via));
        }
    }
    w.chain.clear();
    w.chain.extend(route.iter().rev());
    for &v in &route {
        let (x, y) = pos(v as usize);
        w.nodes[v as usize].x = x;
        w.nodes[v as usize].y = y;
    }
    true
}
