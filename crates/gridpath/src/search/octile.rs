//! A* specialised for the Moving AI rules (8-connected, no corner cutting, octile heuristic,
//! weight 1), the case games and benchmarks ask for most.
//!
//! What makes it fast:
//! - **Exact costs.** Every step costs `c` or `c·√2` for an integer terrain cost `c`, and the
//!   octile estimate is `(hi − lo) + lo·√2`, so `g`, `h` and `f` are all `a + b·√2` with integer
//!   `a, b`. The nodes keep the pair, and every float is computed from a pair by the same
//!   formula, so equal costs give bit-identical floats: ties on `f` are real ties, the lower-`h`
//!   tie-break works as intended (float noise in summed costs used to break it), and a closed
//!   node is never re-opened.
//! - **The open list is nearly free** on the plateaus of equal `f` that octile grids are full of
//!   (see [`BucketQueue`](super::heap::BucketQueue)): there a node's children with the same `f`
//!   beat everything left, so they go on top of a sorted stack.
//! - **Branch-light successors**: one look at the eight neighbours gives the legal moves as a
//!   bit mask; the child's estimate comes from the parent's coordinates, no division.

use super::heap::Entry;
use super::{NO_DIR, Query, Searcher, Settings, Stats};
use crate::grid::{DIRS, Rules, SQRT2};
use crate::trace::{Observer, TraceEvent};
use crate::{Algorithm, Heuristic, Pos};

/// `true` when [`run`] handles `settings`.
pub(crate) fn applies(settings: &Settings) -> bool {
    settings.algorithm == Algorithm::AStar
        && settings.heuristic == Heuristic::Octile
        && settings.weight == 1.0
        && settings.rules == Rules::OCTILE
}

/// The value of the exact cost `a + b·√2`; equal pairs give equal floats.
#[inline(always)]
#[expect(
    clippy::cast_precision_loss,
    clippy::cast_possible_wrap,
    reason = "costs stay far below 2^52; via i64, which converts in one instruction"
)]
pub(crate) fn value(a: u64, b: u64) -> f64 {
    a as i64 as f64 + b as i64 as f64 * SQRT2
}

/// Octile distance from `(x, y)` to `(gx, gy)` as the pair `(hi − lo, lo)`.
#[inline(always)]
fn octile(x: u32, y: u32, gx: u32, gy: u32) -> (u64, u64) {
    let (dx, dy) = (x.abs_diff(gx), y.abs_diff(gy));
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    (u64::from(hi - lo), u64::from(lo))
}

pub(crate) fn run<O: Observer>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<(Stats, f64), Stats> {
    // Every step costs 1 or √2 on a uniform grid (all the benchmark maps): no cost loads.
    if q.grid.has_uniform_cost() {
        search::<O, true>(searcher, q, out, obs)
    } else {
        search::<O, false>(searcher, q, out, obs)
    }
}

/// [`run`], for a grid whose every passable cell costs 1 when `UNIFORM`.
fn search<O: Observer, const UNIFORM: bool>(
    searcher: &mut Searcher,
    q: &Query<'_>,
    out: &mut Vec<Pos>,
    obs: &mut O,
) -> Result<(Stats, f64), Stats> {
    let grid = q.grid;
    let cells = grid.cells();
    // Every cell of the search has the mover's class, so its own move mask is the one to use.
    let masks = grid.octile_moves();
    let stride = grid.stride();
    let s = stride.cast_signed();
    let Searcher { fwd: nodes, buckets, .. } = searcher;
    nodes.reset(grid.padded_len(), stride);
    // f grows by at most one step plus one step's change of the estimate.
    buckets.reset(SQRT2 * f64::from(grid.max_cost()) + 2.0);
    let start = grid.index(q.start);
    let goal = grid.index(q.goal);
    // Padded coordinates (one more than real ones; only differences matter).
    let (gx, gy) = (q.goal.x + 1, q.goal.y + 1);
    // row = (i · magic) >> 40, exact for every padded index (see `Estimator`).
    let stride64 = stride as u64;
    let magic = (1u64 << 40).div_ceil(stride64);
    let offset: [isize; 8] = DIRS.map(|(dx, dy)| dy as isize * s + dx as isize);

    let generation = nodes.generation;
    let mut stats = Stats { generated: 1, peak_open: 1, expanded: 0 };
    let (ha, hb) = octile(q.start.x + 1, q.start.y + 1, gx, gy);
    let h0 = value(ha, hb);
    nodes.open_lattice(start, 0, 0, NO_DIR);
    buckets.push(entry(h0, h0, start));
    if O::ENABLED {
        obs.event(TraceEvent::Opened { pos: q.start, g: 0.0, h: h0, f: h0 });
    }

    while let Some(top) = buckets.pop_live(|e| !nodes.closed(e.cell as usize)) {
        let i = top.cell as usize;
        if nodes.closed(i) {
            continue; // a stale duplicate of a cell already expanded
        }
        nodes.close(i);
        stats.expanded += 1;
        if O::ENABLED {
            obs.event(TraceEvent::Closed { pos: grid.pos_of(i) });
        }
        if i == goal {
            nodes.unwind(grid, start, goal, out);
            stats.peak_open = buckets.peak() as u64;
            let (a, b) = ga_of(nodes, goal);
            return Ok((stats, value(a, b)));
        }
        let (ga, gb) = nodes.lattice(i);
        let (ga, gb) = (u64::from(ga), u64::from(gb));
        #[expect(clippy::cast_possible_truncation, reason = "padded coordinates are below 8194")]
        let (x, y) = {
            let row = (i as u64 * magic) >> 40;
            ((i as u64 - row * stride64) as u32, row as u32)
        };
        // Only the moves that can end a least-cost path: see `uniform_moves` and `FORWARD`.
        let legal = u32::from(masks[i]);
        let moves =
            if UNIFORM { uniform_moves(legal, nodes.dir(i)) } else { legal & FORWARD[nodes.dir(i) as usize] };
        for k in DirSet(moves) {
            let k = k & 7; // (tells the compiler the tables below need no bounds checks)
            let j = i.wrapping_add_signed(offset[k]);
            let c = if UNIFORM { 1 } else { u64::from(cells[j] & 63) };
            let (na, nb) = if k < 4 { (ga + c, gb) } else { (ga, gb + c) };
            // One load answers "seen?" and "closed?": `state >> 4` is `generation << 1 | closed`.
            let st = nodes.state[j] >> 4;
            let seen = st >> 1 == generation;
            if seen {
                if st & 1 == 1 {
                    continue;
                }
                // Better when (na − oa) + (nb − ob)·√2 < 0: small integers, so the float's
                // sign is exact (two conversions instead of four).
                let (oa, ob) = nodes.lattice(j);
                #[expect(clippy::cast_possible_wrap, reason = "cost parts are far below 2^63")]
                let (p, r) = ((na as i64) - i64::from(oa), (nb as i64) - i64::from(ob));
                #[expect(clippy::cast_precision_loss, reason = "cost parts are far below 2^52")]
                if p as f64 + r as f64 * SQRT2 >= 0.0 {
                    continue;
                }
            }
            let (dx, dy) = DIRS[k];
            let (ha, hb) = octile(x.wrapping_add_signed(dx), y.wrapping_add_signed(dy), gx, gy);
            let h = value(ha, hb);
            let f = value(na + ha, nb + hb);
            #[expect(clippy::cast_possible_truncation, reason = "a path's cost parts fit in u32")]
            nodes.open_lattice(j, na as u32, nb as u32, k as u32);
            buckets.push(entry(f, h, j));
            stats.generated += 1;
            if O::ENABLED {
                let pos = grid.pos_of(j);
                let g = value(na, nb);
                obs.event(TraceEvent::pushed(seen, pos, g, h, f));
            }
        }
    }
    stats.peak_open = buckets.peak() as u64;
    Err(stats)
}

/// A node's exact cost pair, widened.
fn ga_of(nodes: &super::Nodes, i: usize) -> (u64, u64) {
    let (a, b) = nodes.lattice(i);
    (u64::from(a), u64::from(b))
}

#[inline(always)]
pub(crate) fn entry(f: f64, h: f64, cell: usize) -> Entry {
    #[expect(clippy::cast_possible_truncation, reason = "padded grids have < 2^32 cells; h only breaks ties")]
    Entry { f, h: h as f32, cell: cell as u32 }
}

/// The legal octile moves from padded index `i` for a mover of `class`, as direction indices
/// into [`DIRS`] (cardinals first, so on a plateau the children come in falling `h`).
#[inline(always)]
pub(crate) fn legal_moves(cells: &[u8], i: usize, s: isize, class: u8) -> u32 {
    let open = |d: isize| u32::from(cells[i.wrapping_add_signed(d)] >> 6 == class);
    let (n, e, so, w) = (open(-s), open(1), open(s), open(-1));
    let ne = n & e & open(1 - s);
    let se = so & e & open(1 + s);
    let sw = so & w & open(s - 1);
    let nw = n & w & open(-s - 1);
    n | e << 1 | so << 2 | w << 3 | ne << 4 | se << 5 | sw << 6 | nw << 7
}

/// For each direction `d` of the step that entered a cell (and [`NO_DIR`] at the origin), the
/// directions worth trying from it: those not pointing back, i.e. with a dot product ≥ 0 with
/// `d`. The others are never better through the cell: the parent `p` reached each of them
/// directly (a cardinal step from `p`, always legal when the cell is open), so its cost is at
/// most `g(p) + c`, while through the cell it is `g(p) + step(d) + (1 or √2)·c > g(p) + c` for
/// the entered cost `c ≥ 1`. Pruning them changes no cost and no expansion, and saves about three
/// of the seven neighbour tests per expansion (the ones that were nearly always closed).
pub(crate) const FORWARD: [u32; 9] = {
    let mut keep = [0u32; 9];
    let mut d = 0;
    while d < 8 {
        let (dx, dy) = DIRS[d];
        let mut k = 0;
        while k < 8 {
            let (kx, ky) = DIRS[k];
            if dx * kx + dy * ky >= 0 {
                keep[d] |= 1 << k;
            }
            k += 1;
        }
        d += 1;
    }
    keep[NO_DIR as usize] = 0xff;
    keep
};

/// For each entering direction `d` (and [`NO_DIR`]): the directions with a positive dot product
/// with `d` (all eight at the origin), and for a cardinal `d` its two perpendicular directions,
/// each with the diagonal between it and `-d` (the parent's side). See [`uniform_moves`].
const AHEAD: [u32; 9] = {
    let mut keep = [0u32; 9];
    let mut d = 0;
    while d < 8 {
        let (dx, dy) = DIRS[d];
        let mut k = 0;
        while k < 8 {
            let (kx, ky) = DIRS[k];
            if dx * kx + dy * ky > 0 {
                keep[d] |= 1 << k;
            }
            k += 1;
        }
        d += 1;
    }
    keep[NO_DIR as usize] = 0xff;
    keep
};

/// `(perpendicular, back diagonal)` pairs of the cardinal directions, as direction indices.
const SIDES: [[(u32, u32); 2]; 4] = {
    let mut sides = [[(0u32, 0u32); 2]; 4];
    let mut d = 0;
    while d < 4 {
        let (dx, dy) = DIRS[d];
        // The two perpendiculars (dy, dx) and (-dy, -dx), and each minus d.
        let perp = [(dy, dx), (-dy, -dx)];
        let mut n = 0;
        while n < 2 {
            let (px, py) = perp[n];
            let mut k = 0u32;
            while k < 8 {
                let (kx, ky) = DIRS[k as usize];
                if kx == px && ky == py {
                    sides[d][n].0 = k;
                }
                if kx == px - dx && ky == py - dy {
                    sides[d][n].1 = k;
                }
                k += 1;
            }
            n += 1;
        }
        d += 1;
    }
    sides
};

/// The moves worth trying from a cell entered by direction `dir` when every step costs 1 or
/// √2 (uniform cost, octile moves, no corner cutting), given its `legal` moves. Only moves
/// that can be the last step of a least-cost path are kept (a pruned move always has a strictly
/// cheaper alternative, so no distance and no optimal path is lost):
/// - moves pointing back or sideways from a diagonal entry: the parent `p` reached the
///   sideways cells through the two cells beside the diagonal (open, since the diagonal was
///   legal) for 2 instead of 2√2;
/// - a perpendicular move from a cardinal entry when the diagonal between it and the parent is
///   legal: `p` reached that cell by one diagonal step, √2 instead of 2 (otherwise it is a
///   "forced" neighbour, as in Jump Point Search, and kept).
///
/// On open ground this leaves three moves of the eight.
///
/// A table lookup: [`UNIFORM_MOVES`] holds the answer for every entering direction and mask.
#[inline(always)]
pub(crate) fn uniform_moves(legal: u32, dir: u32) -> u32 {
    u32::from(UNIFORM_MOVES[dir as usize][legal as usize & 0xff])
}

/// [`uniform_moves`] for every entering direction (and [`NO_DIR`]) and every legal mask
/// (2.3 KB, computed at compile time).
const UNIFORM_MOVES: [[u8; 256]; 9] = {
    let mut table = [[0u8; 256]; 9];
    let mut dir = 0;
    while dir < 9 {
        let mut legal = 0u32;
        while legal < 256 {
            let mut keep = legal & AHEAD[dir];
            if dir < 4 {
                let mut n = 0;
                while n < 2 {
                    let (side, diagonal) = SIDES[dir][n];
                    keep |= legal & (1 << side) & !((legal >> diagonal & 1) << side);
                    n += 1;
                }
            }
            #[expect(clippy::cast_possible_truncation, reason = "an 8-bit mask")]
            {
                table[dir][legal as usize] = keep as u8;
            }
            legal += 1;
        }
        dir += 1;
    }
    table
};

/// A set of direction indices, iterated in increasing order.
pub(crate) struct DirSet(pub(crate) u32);

impl Iterator for DirSet {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let k = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(mask: u32) -> Vec<&'static str> {
        const NAMES: [&str; 8] = ["N", "E", "S", "W", "NE", "SE", "SW", "NW"];
        DirSet(mask).map(|k| NAMES[k]).collect()
    }

    #[test]
    fn uniform_moves_keep_the_natural_and_forced_neighbours() {
        // Open ground: straight on and the two diagonals beside it; a diagonal keeps itself and
        // its two components.
        assert_eq!(names(uniform_moves(0xff, 1)), ["E", "NE", "SE"]);
        assert_eq!(names(uniform_moves(0xff, 4)), ["N", "E", "NE"]);
        assert_eq!(names(uniform_moves(0xff, NO_DIR)).len(), 8, "the origin tries everything");
        // Entered eastward with the north-west diagonal blocked: north is forced.
        let legal = 0xff & !(1 << 7);
        assert_eq!(names(uniform_moves(legal, 1)), ["N", "E", "NE", "SE"]);
        // Entered northward with the south-east diagonal blocked: east is forced.
        let legal = 0xff & !(1 << 5);
        assert_eq!(names(uniform_moves(legal, 0)), ["N", "E", "NE", "NW"]);
        // Never a move that is not legal.
        assert_eq!(uniform_moves(0, 2), 0);
    }

    #[test]
    fn forward_drops_exactly_the_moves_pointing_back() {
        assert_eq!(names(0xff & FORWARD[1]), ["N", "E", "S", "NE", "SE"]);
        assert_eq!(names(0xff & FORWARD[6]), ["S", "W", "SE", "SW", "NW"]);
    }
}
