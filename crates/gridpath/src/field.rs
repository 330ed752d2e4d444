//! Flow fields: the distance from every cell to one goal plus each cell's next step, so any
//! number of units can share one search.

use std::collections::VecDeque;

use crate::grid::{DIRS, Grid, MAX_AGENT_SIZE, Neighbours, Pos, Rules, SQRT2, dir_index};
use crate::search::{Endpoint, SearchError, check_endpoint};

/// Direction of the goal's word (see [`Packed`]): reached, no next step.
const GOAL: u8 = 8;

/// How a [`FlowField`] measures distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Dijkstra: least cost under the grid's step-cost rule.
    Cost,
    /// The "contour line" wavefront: number of steps (BFS), whatever their length or terrain.
    Steps,
}

impl FieldKind {
    /// Both kinds.
    pub const ALL: [FieldKind; 2] = [FieldKind::Cost, FieldKind::Steps];

    /// Short lower-case name: `cost` or `steps`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            FieldKind::Cost => "cost",
            FieldKind::Steps => "steps",
        }
    }

    /// Human label: `least cost` or `wavefront steps` (also what `Display` prints).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            FieldKind::Cost => "least cost",
            FieldKind::Steps => "wavefront steps",
        }
    }
}

crate::names::named_enum!(FieldKind, "field kind", label);

/// Distance to a goal and next step toward it, for every cell.
///
/// ```
/// use gridpath::{formats, FlowField, Pos, Rules};
/// let map = formats::parse_ascii("...\n.#.\n...").unwrap();
/// let field = FlowField::wavefront(&map.grid, Pos::new(2, 2), Rules::OCTILE).unwrap();
/// assert_eq!(field.step_number(Pos::new(2, 2)), Some(1)); // the goal is numbered 1
/// assert_eq!(field.step_number(Pos::new(0, 0)), Some(5));
/// assert_eq!(field.step_number(Pos::new(1, 1)), None); // a wall
/// let path = field.path_from(Pos::new(0, 0)).unwrap();
/// assert_eq!(path.last(), Some(&Pos::new(2, 2)));
/// ```
#[derive(Clone, Debug)]
pub struct FlowField {
    kind: FieldKind,
    /// The agents' size (see [`FlowField::for_agent`]).
    agent_size: u8,
    goal: Pos,
    rules: Rules,
    width: u32,
    height: u32,
    stride: usize,
    revision: u64,
    /// The [`Grid`] it was built on (another grid, a clone even, is rebuilt on, not repaired).
    grid_id: u64,
    /// Per padded cell, one word (see [`Packed`]): the distance to the goal and the direction
    /// (index into [`DIRS`]) of the step that reached it from the cell nearer the goal, so its
    /// next step is the opposite one; unreached until a build reaches it. One load per look at
    /// a neighbour: with a distance array and a direction array apart (2 MB and 256 KB on a
    /// 512×512 map, against a 512 KB L2 cache) the two loads were the fill's costliest
    /// instructions.
    packed: Vec<u64>,
    reached: usize,
    /// Dial's circular buckets of padded indices (kept to reuse their memory).
    buckets: Vec<Vec<u32>>,
    /// The four circular buckets of the uniform octile case, in one array (see
    /// [`FlowField::fill_uniform_octile`]).
    slots: Vec<u32>,
}

impl FlowField {
    /// The least-cost field toward `goal` (Dijkstra on reversed steps).
    ///
    /// # Errors
    /// [`SearchError::OutOfBounds`] or [`SearchError::Blocked`] for a bad goal.
    pub fn dijkstra(grid: &Grid, goal: Pos, rules: Rules) -> Result<Self, SearchError> {
        let mut field = Self::empty(FieldKind::Cost, grid, goal, rules);
        field.rebuild(grid)?;
        Ok(field)
    }

    /// The wavefront step field toward `goal` (BFS; see [`FlowField::step_number`]).
    ///
    /// # Errors
    /// [`SearchError::OutOfBounds`] or [`SearchError::Blocked`] for a bad goal.
    pub fn wavefront(grid: &Grid, goal: Pos, rules: Rules) -> Result<Self, SearchError> {
        let mut field = Self::empty(FieldKind::Steps, grid, goal, rules);
        field.rebuild(grid)?;
        Ok(field)
    }

    /// A field of `kind` toward `goal` for agents of `agent_size` × `agent_size` cells (1 to
    /// [`MAX_AGENT_SIZE`]): distances and steps are those of the body's top-left cell on
    /// [`Grid::for_agent_size`]'s grid, so every route the field gives fits the whole body
    /// (a rebuild derives that grid again). Size 1 is [`FlowField::dijkstra`] or
    /// [`FlowField::wavefront`].
    ///
    /// # Errors
    /// [`SearchError::BadAgentSize`]; [`SearchError::OutOfBounds`], [`SearchError::Blocked`] or
    /// [`SearchError::NoRoom`] for a goal where the body does not fit.
    ///
    /// ```
    /// use gridpath::{formats, FieldKind, FlowField, Pos, Rules};
    /// let map = formats::parse_ascii("....\n....\n.#..\n....").unwrap();
    /// let field = FlowField::for_agent(FieldKind::Cost, &map.grid, Pos::new(2, 2), Rules::OCTILE, 2).unwrap();
    /// assert_eq!(field.distance(Pos::new(0, 0)), Some(4.0), "along the top, the body clear of the wall");
    /// assert_eq!(field.distance(Pos::new(0, 1)), None, "the body would cover the wall");
    /// ```
    pub fn for_agent(
        kind: FieldKind,
        grid: &Grid,
        goal: Pos,
        rules: Rules,
        agent_size: u8,
    ) -> Result<Self, SearchError> {
        if !(1..=MAX_AGENT_SIZE).contains(&agent_size) {
            return Err(SearchError::BadAgentSize(agent_size));
        }
        let mut field = Self { agent_size, ..Self::empty(kind, grid, goal, rules) };
        field.rebuild(grid)?;
        Ok(field)
    }

    /// The agents' size this field is for (1 unless built by [`FlowField::for_agent`]).
    #[must_use]
    pub fn agent_size(&self) -> u8 {
        self.agent_size
    }

    fn empty(kind: FieldKind, grid: &Grid, goal: Pos, rules: Rules) -> Self {
        Self {
            agent_size: 1,
            kind,
            goal,
            rules,
            width: grid.width(),
            height: grid.height(),
            stride: grid.stride(),
            revision: grid.revision(),
            grid_id: grid.id(),
            packed: Vec::new(),
            reached: 0,
            buckets: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Recomputes the field for the current state of `grid` (same goal, kind and rules),
    /// reusing its memory.
    ///
    /// # Errors
    /// As [`FlowField::dijkstra`]; the field is then empty (every cell unreached).
    pub fn rebuild(&mut self, grid: &Grid) -> Result<(), SearchError> {
        let len = grid.padded_len();
        self.width = grid.width();
        self.height = grid.height();
        self.stride = grid.stride();
        self.revision = grid.revision();
        self.grid_id = grid.id();
        self.reached = 0;
        self.packed.clear();
        self.packed.resize(len, Packed::UNREACHED);
        // On an error every cell stays unreached.
        check_endpoint(grid, self.goal, Endpoint::Goal)?;
        if self.agent_size > 1 {
            if grid.clearance(self.goal) < self.agent_size {
                return Err(SearchError::NoRoom {
                    which: Endpoint::Goal,
                    pos: self.goal,
                    agent_size: self.agent_size,
                });
            }
            let sized = grid.for_agent_size(self.agent_size);
            match self.kind {
                FieldKind::Cost => self.fill_dijkstra(&sized),
                FieldKind::Steps => self.fill_bfs(&sized),
            }
            return Ok(());
        }
        match self.kind {
            FieldKind::Cost => self.fill_dijkstra(grid),
            FieldKind::Steps => self.fill_bfs(grid),
        }
        Ok(())
    }

    /// Brings a least-cost field in step with `grid` after the cells `changed` changed (walls
    /// painted or cleared, terrain costs or classes), as [`rebuild`](Self::rebuild) would but
    /// without searching the whole map again: only the cells whose way to the goal ran
    /// through, past or beside a changed cell are searched anew, from the cells around them
    /// whose distance the edit left as it was, and the improvements a cleared cell opens
    /// spread from there. The distances are exactly a rebuild's; where two next steps are
    /// equally short, either may be kept. Returns whether it repaired: it rebuilds instead
    /// where a repair would not pay or cannot serve — a [`FieldKind::Steps`] field, a large
    /// agent's, another grid than the one it was built on (a clone too) or one of another size,
    /// a grid with fences (an edit of fences is no edit of cells: rebuild after one), a
    /// changed goal, an edit of more than a sixteenth of the map or one that would search
    /// again more than an eighth of the cells reached (a wall beside the goal), or a grid
    /// edited since with no cell listed.
    ///
    /// `changed` must hold every cell that changed since the field was last built or
    /// repaired (listed more than once, or changed and changed back, is fine).
    ///
    /// ```
    /// use gridpath::{FlowField, Grid, Pos, Rules, Tile};
    ///
    /// let mut grid = Grid::new(30, 20).unwrap();
    /// let goal = Pos::new(25, 10);
    /// let mut field = FlowField::dijkstra(&grid, goal, Rules::OCTILE).unwrap();
    /// let wall: Vec<Pos> = (3..17).map(|y| Pos::new(15, y)).collect();
    /// for &cell in &wall {
    ///     grid.set_tile(cell, Tile::Wall).unwrap();
    /// }
    /// assert_eq!(field.repair(&grid, &wall), Ok(true));
    /// let fresh = FlowField::dijkstra(&grid, goal, Rules::OCTILE).unwrap();
    /// let (a, b) = (field.distance(Pos::new(2, 10)).unwrap(), fresh.distance(Pos::new(2, 10)).unwrap());
    /// assert!((a - b).abs() < 1e-9);
    /// // Another grid, even one cell for cell the same: rebuilt on.
    /// assert_eq!(field.repair(&grid.clone(), &[]), Ok(false));
    /// ```
    ///
    /// # Errors
    /// As [`FlowField::dijkstra`]; the field is then empty (every cell unreached).
    pub fn repair(&mut self, grid: &Grid, changed: &[Pos]) -> Result<bool, SearchError> {
        let same_shape = self.width == grid.width()
            && self.height == grid.height()
            && self.stride == grid.stride()
            && self.packed.len() == grid.padded_len();
        let repairable = self.kind == FieldKind::Cost
            && self.agent_size <= 1
            && same_shape
            && grid.id() == self.grid_id
            && (!changed.is_empty() || grid.revision() == self.revision)
            && !grid.has_fences()
            && self.reached > 0
            && changed.len().saturating_mul(16) <= grid.len()
            && changed.iter().all(|&p| grid.in_bounds(p) && p != self.goal);
        if !repairable {
            return self.rebuild(grid).map(|()| false);
        }
        self.revision = grid.revision();
        let nb = Neighbours::new(grid, self.rules);
        // Past an eighth of the cells reached (on a map big enough for it to matter),
        // searching them again costs more than a build.
        let Some(affected) = self.forget_affected(grid, &nb, changed, (self.reached / 8).max(1 << 12)) else {
            return self.rebuild(grid).map(|()| false);
        };
        let seeds = self.seed(grid, &nb, &affected);
        self.settle_from(grid, &nb, &seeds);
        Ok(true)
    }

    /// [`repair`](Self::repair)'s first step: forgets (unreaches) every cell whose way to the
    /// goal may have changed, and returns them: every changed cell and its neighbours (a
    /// diagonal step past a changed cell may have become legal or not, and a step into a cell
    /// costs that cell's cost), and every cell whose next step leads to one of them,
    /// recursively (a cell's own word says which cell it steps to). `None` (and the field
    /// half forgotten: rebuild it) once more than `most` reached cells are forgotten.
    fn forget_affected(
        &mut self,
        grid: &Grid,
        nb: &Neighbours,
        changed: &[Pos],
        most: usize,
    ) -> Option<Vec<usize>> {
        let goal = grid.index(self.goal);
        let packed = &mut self.packed;
        let mut affected: Vec<usize> = Vec::new();
        for &cell in changed {
            let c = grid.index(cell);
            for i in std::iter::once(c).chain(nb.offset.iter().map(|&o| c.wrapping_add_signed(o))) {
                // (A cell on the map's edge has the padding's walls round it.)
                if i != goal {
                    affected.push(i);
                }
            }
        }
        // Roots already unreached (walls, or reached by nothing) have no cells stepping to them:
        // they are seeded, not followed.
        let mut unreached_roots = Vec::new();
        affected.retain(|&x| {
            let reached = packed[x] != Packed::UNREACHED;
            if reached {
                packed[x] = Packed::UNREACHED;
            } else {
                unreached_roots.push(x);
            }
            reached
        });
        let mut at = 0;
        while at < affected.len() {
            let x = affected[at];
            at += 1;
            for k in 0..8 {
                let y = x.wrapping_add_signed(nb.offset[k]);
                let word = packed[y];
                // `y` steps to `x` when the step that reached it came from `x`.
                if word != Packed::UNREACHED
                    && y != goal
                    && (Packed::dir(word) as usize) < 8
                    && y.wrapping_add_signed(-nb.offset[Packed::dir(word) as usize]) == x
                {
                    packed[y] = Packed::UNREACHED;
                    affected.push(y);
                }
            }
            if affected.len() > most {
                return None;
            }
        }
        // Every cell forgotten so far was reached.
        self.reached -= affected.len();
        affected.append(&mut unreached_roots);
        Some(affected)
    }

    /// [`repair`](Self::repair)'s second step: each forgotten cell of the goal's class anew
    /// from its neighbours the edit left as they were; returns those reached so, by distance.
    fn seed(&mut self, grid: &Grid, nb: &Neighbours, affected: &[usize]) -> Vec<(f64, usize)> {
        let (cells, fences) = (grid.cells(), grid.fence_masks());
        let class = grid.class_at(grid.index(self.goal));
        // `opposite[k]`: the direction back along direction `k`.
        let opposite: [usize; 8] = std::array::from_fn(|k| dir_index(-DIRS[k].0, -DIRS[k].1));
        let packed = &mut self.packed;
        let mut seeds: Vec<(f64, usize)> = Vec::new();
        for &x in affected {
            if cells[x] >> 6 != class {
                continue;
            }
            let mut best = packed[x];
            for (&offset, &k) in nb.offset.iter().zip(&opposite) {
                let n = x.wrapping_add_signed(offset);
                let word = packed[n];
                if word == Packed::UNREACHED || k >= nb.count || !nb.legal(cells, fences, n, k, class) {
                    continue;
                }
                // Stepping x -> n enters n.
                let candidate =
                    Packed::word(Packed::cost(word) + nb.base[k] * f64::from(grid.cost_at(n)), k as u64);
                if Packed::cost(candidate) < Packed::cost(best) {
                    best = candidate;
                }
            }
            if best != packed[x] {
                // (A cell listed twice may be seeded twice, from a neighbour seeded between.)
                self.reached += usize::from(packed[x] == Packed::UNREACHED);
                packed[x] = best;
                seeds.push((Packed::cost(best), x));
            }
        }
        seeds.sort_by(|a, b| a.0.total_cmp(&b.0));
        seeds
    }

    /// [`repair`](Self::repair)'s last step: Dial's algorithm from the `seeds` (by
    /// distance), each joining the buckets when their turn comes to its distance; any cell a
    /// step from a settled one improves as in a build (a forgotten cell, or one a cleared
    /// cell brings nearer).
    fn settle_from(&mut self, grid: &Grid, nb: &Neighbours, seeds: &[(f64, usize)]) {
        let (cells, fences) = (grid.cells(), grid.fence_masks());
        let class = grid.class_at(grid.index(self.goal));
        let mask = self.empty_buckets(grid);
        let (packed, buckets) = (&mut self.packed, &mut self.buckets);
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "finite and >= 0")]
        let bucket_of = |d: f64| d as i64 as usize;
        let mut pending = 0usize;
        let mut seed = 0;
        let mut k = seeds.first().map_or(0, |&(d, _)| bucket_of(d));
        loop {
            while let Some(&(d, x)) = seeds.get(seed) {
                if bucket_of(d) > k {
                    break;
                }
                #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
                buckets[k & mask].push(x as u32);
                pending += 1;
                seed += 1;
            }
            while let Some(v) = buckets[k & mask].pop() {
                pending -= 1;
                let v = v as usize;
                let dv = Packed::cost(packed[v]);
                if bucket_of(dv) != k {
                    continue; // stale: the cell improved into an earlier bucket
                }
                let enter = f64::from(grid.cost_at(v));
                for k2 in 0..nb.count {
                    if !nb.legal(cells, fences, v, k2, class) {
                        continue;
                    }
                    let u = v.wrapping_add_signed(nb.offset[k2]);
                    let word = Packed::word(dv + nb.base[k2] * enter, k2 as u64);
                    let (d, old) = (Packed::cost(word), Packed::cost(packed[u]));
                    if d < old {
                        packed[u] = word;
                        self.reached += usize::from(old.is_infinite());
                        // Always queued: unlike in a build, a cell the edit left as it was is
                        // in no bucket yet, whatever its old distance.
                        #[expect(
                            clippy::cast_possible_truncation,
                            reason = "padded grids have < 2^32 cells"
                        )]
                        buckets[bucket_of(d) & mask].push(u as u32);
                        pending += 1;
                    }
                }
            }
            k += 1;
            if pending == 0 {
                match seeds.get(seed) {
                    Some(&(d, _)) => k = k.max(bucket_of(d)),
                    None => break,
                }
            }
        }
    }

    /// Dial's algorithm: bucket `k` holds the cells whose tentative distance lies in `[k, k+1)`.
    /// Every step costs at least 1 (the bucket width), so no cell of a bucket can improve
    /// another of the same bucket: a cell's distance is final when its bucket comes up, the
    /// buckets need no order inside, and the distances are exactly Dijkstra's. A circular array
    /// of buckets spans the largest step (√2 × the largest terrain cost).
    fn fill_dijkstra(&mut self, grid: &Grid) {
        // Uniform cost (every step 1 or √2) needs no cost load per cell.
        if grid.has_uniform_cost() && self.rules == Rules::OCTILE && !grid.has_fences() {
            if corner_share(grid.octile_moves()) > CLUTTERED {
                self.fill_uniform_octile::<false>(grid);
            } else {
                self.fill_uniform_octile::<true>(grid);
            }
        } else if grid.has_uniform_cost() {
            self.fill_dial::<true>(grid);
        } else {
            self.fill_dial::<false>(grid);
        }
    }

    /// Dial's buckets for `grid`, all empty: a ring of as many as one step's distance spans
    /// (a power of two); returns its mask.
    fn empty_buckets(&mut self, grid: &Grid) -> usize {
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a small positive count")]
        let span = ((SQRT2 * f64::from(grid.max_cost())).ceil() as usize + 2).next_power_of_two();
        if self.buckets.len() < span {
            self.buckets.resize_with(span, Vec::new);
        }
        for b in &mut self.buckets {
            b.clear();
        }
        self.buckets.len() - 1
    }

    /// [`FlowField::fill_dijkstra`], for a grid whose passable cells all cost 1 when `UNIFORM`.
    fn fill_dial<const UNIFORM: bool>(&mut self, grid: &Grid) {
        let cells = grid.cells();
        let fences = grid.fence_masks();
        let nb = Neighbours::new(grid, self.rules);
        // The octile shortcuts below prune moves by where a cell was entered from, which a fence
        // can make wrong (the parent's direct step may cross it): with fences, every legal move.
        let octile = self.rules == Rules::OCTILE && !grid.has_fences();
        let stride = grid.stride().cast_signed();
        let goal = grid.index(self.goal);
        let class = grid.class_at(goal);
        let mask = self.empty_buckets(grid);
        let (packed, buckets) = (&mut self.packed, &mut self.buckets);
        packed[goal] = Packed::word(0.0, GOAL.into());
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        buckets[0].push(goal as u32);
        let mut pending = 1usize;
        let mut reached = 0;
        let mut k = 0usize;
        while pending > 0 {
            while let Some(v) = buckets[k & mask].pop() {
                pending -= 1;
                let v = v as usize;
                let word = packed[v];
                let dv = Packed::cost(word);
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    reason = "finite and >= 0"
                )]
                if dv as i64 as usize != k {
                    continue; // stale: the cell improved into an earlier bucket
                }
                reached += 1;
                // Stepping u -> v enters v, so it costs base × cost(v) whichever u it comes from.
                let enter = if UNIFORM { 1.0 } else { f64::from(grid.cost_at(v)) };
                let moves = if octile {
                    // As in the octile A*: the directions pointing back at the cell `v` was
                    // reached from lead to cells that one reached at least as cheaply (moves are
                    // symmetric under these rules, and every step costs at least 1).
                    crate::search::legal_octile_moves(cells, v, stride, class)
                        & crate::search::FORWARD[Packed::dir(word).min(8) as usize]
                } else {
                    (0..nb.count).filter(|&k| nb.legal(cells, fences, v, k, class)).fold(0, |m, k| m | 1 << k)
                };
                for k in crate::search::DirSet(moves) {
                    let k = k & 7; // (no bounds checks on the tables below)
                    let u = v.wrapping_add_signed(nb.offset[k]);
                    let word =
                        Packed::word(dv + if UNIFORM { nb.base[k] } else { nb.base[k] * enter }, k as u64);
                    // The distance as stored: its bucket is the one it is popped from.
                    let d = Packed::cost(word);
                    let old = Packed::cost(packed[u]);
                    if d < old {
                        packed[u] = word;
                        // Already waiting in the same bucket: nothing to add.
                        #[expect(
                            clippy::cast_possible_truncation,
                            clippy::cast_sign_loss,
                            reason = "finite and >= 0"
                        )]
                        // Via i64: one instruction each (infinity saturates, and is tested apart).
                        let (bd, bo) = (d as i64 as usize, old as i64 as usize);
                        if old.is_infinite() || bd != bo {
                            #[expect(
                                clippy::cast_possible_truncation,
                                reason = "padded grids have < 2^32 cells"
                            )]
                            buckets[bd & mask].push(u as u32);
                            pending += 1;
                        }
                    }
                }
            }
            k += 1;
        }
        self.reached = reached;
    }

    /// Dial's algorithm for the Moving AI case: octile moves without corner cutting, every
    /// passable cell of cost 1. A cell popped from bucket `k` (distance in `[k, k+1)`) pushes
    /// only into buckets `k+1` and `k+2`, never into its own, so a bucket is read front to back
    /// while the next two fill, and the push is a write at the end of one of the two next
    /// buckets whose length grows by 0 or 1, without a branch. Each cell's distance and
    /// direction are one word of `packed`: a look at a neighbour is one load.
    ///
    /// `BRANCHY`: a neighbour that does not improve is skipped by a branch; otherwise its word
    /// is written back unchanged and nothing branches on the comparison. Which is faster
    /// depends on the map (512² maps, this machine, ms): where walls are long lines (rooms,
    /// streets, mazes wider than a cell) whether a neighbour improves follows a pattern the
    /// branch predictor learns, and the skipped writes save memory traffic (maze512-16 2.5 ms
    /// branchy, 3.1 ms branch-free); among scattered obstacles it is close to random
    /// (random512-25: 4.6 ms branchy, 3.5 ms branch-free). [`corner_share`] tells them apart.
    fn fill_uniform_octile<const BRANCHY: bool>(&mut self, grid: &Grid) {
        // Every reached cell has the goal's class, so its own move mask is the one to use.
        let masks = grid.octile_moves();
        let stride = grid.stride().cast_signed();
        let offset: [isize; 8] = DIRS.map(|(dx, dy)| dy as isize * stride + dx as isize);
        let goal = grid.index(self.goal);
        let (packed, slots) = (&mut self.packed, &mut self.slots);
        // Bucket `k & 3` lives in `slots[(k & 3) * cap..][..len[k & 3]]`.
        let mut cap = 1024;
        slots.clear();
        slots.resize(4 * cap, 0);
        let mut len = [0usize; 4];
        packed[goal] = Packed::word(0.0, GOAL.into());
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        {
            slots[0] = goal as u32;
        }
        len[0] = 1;
        let mut reached = 0;
        let mut k = 0usize;
        while len.iter().any(|&n| n > 0) {
            let (t, t1, t2) = (k & 3, (k + 1) & 3, (k + 2) & 3);
            // Each cell of this bucket pushes at most 8 entries into the next two.
            let need = len[t1].max(len[t2]) + 8 * len[t];
            if need > cap {
                let new_cap = need.next_power_of_two();
                let mut grown = vec![0; 4 * new_cap];
                for b in 0..4 {
                    grown[b * new_cap..][..len[b]].copy_from_slice(&slots[b * cap..][..len[b]]);
                }
                *slots = grown;
                cap = new_cap;
            }
            let (n1, n2) = relax_bucket::<BRANCHY>(
                packed,
                slots,
                masks,
                &offset,
                Bucket {
                    k,
                    from: t * cap,
                    len: len[t],
                    next: t1 * cap,
                    n1: len[t1],
                    after: t2 * cap,
                    n2: len[t2],
                },
                &mut reached,
            );
            (len[t], len[t1], len[t2]) = (0, n1, n2);
            k += 1;
        }
        self.reached = reached;
    }

    fn fill_bfs(&mut self, grid: &Grid) {
        let cells = grid.cells();
        let fences = grid.fence_masks();
        let nb = Neighbours::new(grid, self.rules);
        let goal = grid.index(self.goal);
        let class = grid.class_at(goal);
        let mut queue = VecDeque::new();
        self.packed[goal] = Packed::word(0.0, GOAL.into());
        queue.push_back(goal);
        while let Some(v) = queue.pop_front() {
            self.reached += 1;
            // Whole step counts: exact in the word.
            let d = Packed::cost(self.packed[v]) + 1.0;
            for k in 0..nb.count {
                let u = v.wrapping_add_signed(nb.offset[k]);
                if self.packed[u] != Packed::UNREACHED || !nb.legal(cells, fences, v, k, class) {
                    continue;
                }
                self.packed[u] = Packed::word(d, k as u64);
                queue.push_back(u);
            }
        }
    }

    fn index(&self, pos: Pos) -> Option<usize> {
        (pos.x < self.width && pos.y < self.height)
            .then(|| (pos.y as usize + 1) * self.stride + pos.x as usize + 1)
    }

    /// How distances are measured.
    #[must_use]
    pub fn kind(&self) -> FieldKind {
        self.kind
    }

    /// The goal every path leads to.
    #[must_use]
    pub fn goal(&self) -> Pos {
        self.goal
    }

    /// The movement rules the field was built with.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Map width.
    #[must_use]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Map height.
    #[must_use]
    pub fn height(&self) -> u32 {
        self.height
    }

    /// `true` when `grid` has not changed since the field was built (same revision and size).
    #[must_use]
    pub fn is_current(&self, grid: &Grid) -> bool {
        self.revision == grid.revision() && self.width == grid.width() && self.height == grid.height()
    }

    /// Number of cells that can reach the goal (the goal included).
    #[must_use]
    pub fn reached(&self) -> usize {
        self.reached
    }

    /// Distance from `pos` to the goal (cost or steps), `None` if unreached or off the map.
    #[must_use]
    pub fn distance(&self, pos: Pos) -> Option<f64> {
        let word = self.packed[self.index(pos)?];
        (word != Packed::UNREACHED).then(|| Packed::cost(word))
    }

    /// The distances of the reached cells, row by row ([`FlowField::distance`] of each cell
    /// the field reaches): one pass over the field's words, for tallies over the whole map.
    ///
    /// ```
    /// use gridpath::{FlowField, Grid, Pos, Rules};
    /// let field = FlowField::dijkstra(&Grid::new(3, 1).unwrap(), Pos::new(0, 0), Rules::OCTILE).unwrap();
    /// assert_eq!(field.reached_distances().collect::<Vec<_>>(), [0.0, 1.0, 2.0]);
    /// ```
    pub fn reached_distances(&self) -> impl Iterator<Item = f64> + '_ {
        let (width, stride) = (self.width as usize, self.stride);
        (0..self.height as usize)
            .flat_map(move |y| self.packed[(y + 1) * stride + 1..][..width].iter())
            .filter(|&&word| word != Packed::UNREACHED)
            .map(|&word| Packed::cost(word))
    }

    /// The wavefront number of `pos`: the goal is 1 and each step away adds 1 (for a
    /// [`FieldKind::Cost`] field: the cost plus 1, rounded). `None` if unreached.
    #[must_use]
    pub fn step_number(&self, pos: Pos) -> Option<u32> {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "distances are small and positive"
        )]
        self.distance(pos).map(|d| d.round() as u32 + 1)
    }

    /// The next cell from `pos` toward the goal; `None` at the goal and where unreached.
    #[must_use]
    pub fn next_step(&self, pos: Pos) -> Option<Pos> {
        let word = self.packed[self.index(pos)?];
        let k = Packed::dir(word);
        (word != Packed::UNREACHED && k < u32::from(GOAL)).then(|| {
            let (dx, dy) = DIRS[k as usize];
            Pos::new(pos.x.wrapping_add_signed(-dx), pos.y.wrapping_add_signed(-dy))
        })
    }

    /// The path from `start` to the goal along next steps, both included; `None` if unreached.
    #[must_use]
    pub fn path_from(&self, start: Pos) -> Option<Vec<Pos>> {
        self.distance(start)?;
        let mut path = vec![start];
        let mut p = start;
        while let Some(n) = self.next_step(p) {
            path.push(n);
            p = n;
        }
        Some(path)
    }
}

/// One bucket of [`FlowField::fill_uniform_octile`]: bucket `k` in `slots[from..][..len]`, and
/// the next two, `k + 1` and `k + 2`, at `next` and `after` with `n1` and `n2` entries.
#[derive(Clone, Copy)]
struct Bucket {
    k: usize,
    from: usize,
    len: usize,
    next: usize,
    n1: usize,
    after: usize,
    n2: usize,
}

/// Expands the cells of one bucket (see [`FlowField::fill_uniform_octile`]); returns the new
/// lengths of buckets `k + 1` and `k + 2`. A function of its own so that the slices it takes
/// are known not to overlap: their addresses stay in registers.
///
/// A straight step from bucket `k` (distance in `[k, k+1)`) always lands in `k + 1`; a
/// diagonal one lands in `k + 1` or `k + 2`, the same for all diagonals of a cell. So each
/// cell picks once where its straight and its diagonal steps go, and a step only decides
/// whether its neighbour's word improves and whether it must be queued. The comparisons are
/// on the words as integers: non-negative `f64`s and +∞ order as their bits do.
#[inline(always)]
fn relax_bucket<const BRANCHY: bool>(
    packed: &mut [u64],
    slots: &mut [u32],
    masks: &[u8],
    offset: &[isize; 8],
    b: Bucket,
    reached: &mut usize,
) -> (usize, usize) {
    const COST: u64 = !Packed::DIR_BITS;
    #[expect(clippy::cast_precision_loss, reason = "bucket numbers are far below 2^52")]
    let (this, second) = (b.k as f64, (b.k + 2) as f64);
    let (this_bits, second_bits) = (this.to_bits(), second.to_bits());
    let (mut n1, mut n2) = (b.n1, b.n2);
    for idx in b.from..b.from + b.len {
        let v = slots[idx] as usize;
        let word = packed[v];
        if word & COST < this_bits {
            continue; // stale: the cell improved into an earlier bucket
        }
        *reached += 1;
        let dv = Packed::cost(word);
        // Only the moves that can end a least-cost path (see `uniform_moves`).
        let moves = crate::search::uniform_moves(u32::from(masks[v]), Packed::dir(word).min(8));
        // Straight steps land in k + 1, where a neighbour must be queued unless it waits
        // there already (a reached cell waits in k + 1 or k + 2: its distance is below
        // k + 1 + √2).
        let straight = (dv + 1.0).to_bits() & COST;
        n1 = relax_steps::<BRANCHY>(
            packed,
            slots,
            offset,
            v,
            moves & 15,
            0,
            straight,
            second_bits,
            b.next,
            n1,
        );
        // Diagonal steps: k + 1 as above, or k + 2, where only an unreached neighbour needs
        // queueing (one reached before waits there already).
        let diagonal = (dv + SQRT2).to_bits() & COST;
        let late = diagonal >= second_bits;
        let (queue_from, base, n) =
            if late { (Packed::UNREACHED, b.after, n2) } else { (second_bits, b.next, n1) };
        let n =
            relax_steps::<BRANCHY>(packed, slots, offset, v, moves >> 4, 4, diagonal, queue_from, base, n);
        (n1, n2) = if late { (n1, n) } else { (n, n2) };
    }
    (n1, n2)
}

/// Relaxes the neighbours of `v` in directions `first + i` for the bits `i` of `dirs`, all
/// at distance `cost` (a word without direction), queueing at `slots[base + n]` those whose
/// word is at least `queue_from`; returns the new `n`.
#[inline(always)]
#[expect(clippy::too_many_arguments, reason = "the inner loop's state, kept in registers")]
fn relax_steps<const BRANCHY: bool>(
    packed: &mut [u64],
    slots: &mut [u32],
    offset: &[isize; 8],
    v: usize,
    dirs: u32,
    first: usize,
    cost: u64,
    queue_from: u64,
    base: usize,
    mut n: usize,
) -> usize {
    for i in crate::search::DirSet(dirs) {
        let d = (first + i) & 7; // (no bounds check on the table below)
        let u = v.wrapping_add_signed(offset[d]);
        let before = packed[u];
        let old = before & !Packed::DIR_BITS;
        let better = cost < old;
        let word = cost | d as u64;
        if BRANCHY {
            if !better {
                continue;
            }
            packed[u] = word;
        } else {
            // The word is written back unchanged when `cost` is no better.
            packed[u] = if better { word } else { before };
        }
        // Queued unless it waits in this bucket already; `old >= queue_from` implies
        // `better`, since `cost` is below `queue_from`.
        #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells")]
        {
            slots[base + n] = u as u32;
        }
        n += usize::from(old >= queue_from);
    }
    n
}

/// Above this share of corner cells [`FlowField::fill_uniform_octile`] relaxes without
/// branching on the comparison. The 11 shared 512² maps: random512-10/25/40 0.28–0.45 and
/// maze512-1 0.28 (both variants equal there); all others 0.003–0.062.
const CLUTTERED: f64 = 0.15;

/// The share of open cells with a *corner*, a diagonal neighbour blocked while the two cells
/// beside it are open (a lone wall cell makes four): from the legal-move masks of every fourth
/// block of 64 cells, which is plenty for a threshold (and a quarter of the cost).
fn corner_share(masks: &[u8]) -> f64 {
    // The padded grid's rows are not known here; any regular subsample serves.
    let (mut open, mut corners) = (0u32, 0u32);
    for block in masks.chunks(64).step_by(4) {
        for &m in block {
            // Bit k of `pairs`: orthogonal moves k and k + 1 (mod 4) legal, which diagonal
            // 4 + k needs (N E S W are bits 0–3, NE SE SW NW bits 4–7).
            let pairs = m & (m >> 1 | m << 3) & 15;
            open += u32::from(m != 0);
            corners += u32::from(pairs & !(m >> 4) != 0);
        }
    }
    f64::from(corners) / f64::from(open.max(1))
}

/// The word of a cell in [`FlowField::packed`]: its distance as an `f64` whose four lowest
/// mantissa bits hold the direction (an index into [`DIRS`], or [`GOAL`]); +∞ when unreached.
/// The four bits cost at most 15 units in the last place per step (a relative 2^-48), far
/// below the gap between distinct octile costs.
struct Packed;

impl Packed {
    const DIR_BITS: u64 = 15;
    /// +∞, direction 0.
    const UNREACHED: u64 = 0x7ff0_0000_0000_0000;

    #[inline(always)]
    fn cost(word: u64) -> f64 {
        f64::from_bits(word & !Self::DIR_BITS)
    }

    #[inline(always)]
    fn word(cost: f64, dir: u64) -> u64 {
        cost.to_bits() & !Self::DIR_BITS | dir
    }

    #[inline(always)]
    fn dir(word: u64) -> u32 {
        (word & Self::DIR_BITS) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Tile;

    /// A `w`×`h` grid with about `percent` % walls, from `seed`.
    fn scattered(w: u32, h: u32, percent: u64, seed: u64) -> Grid {
        let mut grid = Grid::new(w, h).unwrap();
        let mut state = seed | 1;
        for p in grid.positions() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state % 100 < percent {
                grid.set_tile(p, Tile::Wall).unwrap();
            }
        }
        grid
    }

    /// The field of `FlowField::fill_uniform_octile::<BRANCHY>` for `goal`.
    fn fill<const BRANCHY: bool>(grid: &Grid, goal: Pos) -> FlowField {
        let mut field = FlowField::dijkstra(grid, goal, Rules::OCTILE).unwrap();
        field.packed.fill(Packed::UNREACHED);
        field.fill_uniform_octile::<BRANCHY>(grid);
        field
    }

    #[test]
    fn both_uniform_octile_relaxations_give_the_same_field() {
        for (percent, seed) in [(0, 1), (5, 2), (15, 3), (30, 4), (45, 5)] {
            let grid = scattered(70, 45, percent, seed);
            // A goal with a move: not walled in.
            let goal = grid
                .positions()
                .find(|&p| grid.is_passable(p) && grid.octile_moves()[grid.index(p)] != 0)
                .unwrap();
            let (a, b) = (fill::<true>(&grid, goal), fill::<false>(&grid, goal));
            assert_eq!(a.reached(), b.reached());
            assert!(a.reached() > 1, "{percent} % walls: the goal reaches something");
            for p in grid.positions() {
                assert_eq!(a.distance(p), b.distance(p), "{percent} % walls, at {p}");
                assert_eq!(a.next_step(p), b.next_step(p), "{percent} % walls, at {p}");
            }
        }
    }

    /// A repaired field has a rebuilt one's distances, and each next step is a legal step
    /// that is as short as the distance says: random walls painted and cleared and terrain
    /// costs changed, in batches, on random maps, under every movement rule.
    #[test]
    #[expect(clippy::cast_possible_truncation, reason = "small random sizes and counts")]
    fn a_repaired_field_is_exact_as_a_rebuilt_one() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut random = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let rules = [
            Rules::OCTILE,
            Rules::FOUR,
            Rules { corners: crate::Corners::Allow, ..Rules::OCTILE },
            Rules { corners: crate::Corners::AllowOne, ..Rules::OCTILE },
        ];
        // Batches repaired, not rebuilt (another grid, or an edit of more than a sixteenth).
        let mut repaired = 0;
        let mut batches = 0;
        for round in 0..400 {
            let (w, h) = (10 + random(40) as u32, 10 + random(30) as u32);
            let mut grid = scattered(w, h, random(35), round + 1);
            let rule = rules[round as usize % rules.len()];
            let cells: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
            if cells.is_empty() {
                continue;
            }
            let goal = cells[random(cells.len() as u64) as usize];
            let Ok(mut field) = FlowField::dijkstra(&grid, goal, rule) else { continue };
            for batch in 0..6 {
                let mut changed = Vec::new();
                // A few cells, or a stroke: a line of one tile.
                let (stroke, across) = (random(3) == 0, random(2) == 0);
                let (start, tile) =
                    (Pos::new(random(u64::from(w)) as u32, random(u64::from(h)) as u32), random(8));
                for i in 0..=random(if stroke { 20 } else { 8 }) as u32 {
                    let cell = if stroke {
                        if across { Pos::new(start.x + i, start.y) } else { Pos::new(start.x, start.y + i) }
                    } else {
                        Pos::new(random(u64::from(w)) as u32, random(u64::from(h)) as u32)
                    };
                    if cell == goal || !grid.in_bounds(cell) {
                        continue;
                    }
                    let tile = match if stroke { tile } else { random(8) } {
                        0 | 1 => Tile::FLOOR,
                        2 => Tile::Ground { cost: 1 + random(9) as u8 },
                        3 => Tile::Water { cost: 1 + random(2) as u8 },
                        4 => Tile::Trees { cost: 2 + random(3) as u8 },
                        _ => Tile::Wall,
                    };
                    grid.set_tile(cell, tile).unwrap();
                    changed.push(cell);
                }
                batches += 1;
                repaired += usize::from(field.repair(&grid, &changed).unwrap());
                let fresh = FlowField::dijkstra(&grid, goal, rule).unwrap();
                assert_eq!(field.reached(), fresh.reached(), "round {round} batch {batch}");
                for p in grid.positions() {
                    let (a, b) = (field.distance(p), fresh.distance(p));
                    assert_eq!(a.is_some(), b.is_some(), "round {round} batch {batch} at {p}");
                    let (Some(a), Some(b)) = (a, b) else { continue };
                    assert!(
                        (a - b).abs() < 1e-9 * b.max(1.0),
                        "round {round} batch {batch} at {p}: {a} vs {b}"
                    );
                    if p == goal {
                        continue;
                    }
                    let next = field.next_step(p).expect("a reached cell steps on");
                    let cost = grid.step_cost(p, next, rule).expect("a legal step");
                    let d = field.distance(next).unwrap();
                    assert!((d + cost - a).abs() < 1e-9 * a.max(1.0), "round {round} batch {batch} at {p}");
                }
            }
        }
        assert!(repaired * 10 > batches * 9, "{repaired} of {batches} batches repaired");
    }

    #[test]
    fn a_lone_wall_makes_four_corners() {
        // 5×5: the padded grid (49 cells) is one sampled block.
        let mut grid = Grid::new(5, 5).unwrap();
        assert!(corner_share(grid.octile_moves()).abs() < f64::EPSILON);
        grid.set_tile(Pos::new(2, 2), Tile::Wall).unwrap();
        // Its four diagonal neighbours, of 24 open cells.
        assert!((corner_share(grid.octile_moves()) - 4.0 / 24.0).abs() < 1e-12);
    }

    #[test]
    fn scattered_walls_count_as_cluttered_and_long_walls_do_not() {
        assert!(corner_share(scattered(200, 200, 25, 7).octile_moves()) > CLUTTERED);
        // Rooms: walls in long lines every 20 cells, each with a door.
        let mut rooms = Grid::new(200, 200).unwrap();
        for p in rooms.positions() {
            let wall = (p.x % 20 == 0 && p.y % 20 != 10) || (p.y % 20 == 0 && p.x % 20 != 10);
            if wall {
                rooms.set_tile(p, Tile::Wall).unwrap();
            }
        }
        assert!(corner_share(rooms.octile_moves()) < CLUTTERED);
    }
}
