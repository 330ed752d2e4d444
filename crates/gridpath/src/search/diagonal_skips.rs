//! Diagonal skips: for JPS's diagonal rays, per cell and diagonal, how many steps the ray can
//! take at once — JPS+'s precomputed diagonal distances (Rabin), in the form our rays need.
//!
//! A ray's step from a cell reads the cell's jump bits (`Grid::jumps`): whether the diagonal
//! step is legal, then, on the cell stepped to, whether either straight scan finds a jump
//! point. Most cells of a long ray are *idle*: the step is legal and neither scan finds
//! anything, so the ray only walks on. On maze512-16 (corridors 16 cells wide) a query walks
//! ~3,500 diagonal steps for ~200 expansions, a fifth of its time. Here each cell also holds,
//! per diagonal, how many idle cells follow it along that diagonal (at most 63), and the ray
//! jumps over them in one step: maze512-16, AR0011SR, 32room about a fifth faster, Boston and
//! Berlin a tenth (`examples/jps_times.rs --bits`, one thread, alternating with the search
//! without them).
//!
//! The counts live with the jump bits in one `u32` per padded cell (bits 0–7: the cell's jump
//! byte, as the grid had it when the counts were worked out; bits `8 + 6k`..: the count along
//! diagonal `4 + k` of `DIRS`, NE, SE, SW, NW), so a ray's step still reads one word. They are
//! the searcher's, not the grid's (4 bytes a cell only where JPS runs: A*'s grid stays as small
//! as it was; with a copy of the jump bytes, 5 bytes a cell), for the last few grids it
//! searched: worked out on a grid's first JPS query, or for a copy of a grid kept a few edits
//! on (a game's snapshots) copied from it and repaired, and used only where the grid's runs are
//! long enough to pay ([`MIN_MEAN_SKIP`]; elsewhere the rays step cell by cell as before).
//! After an edit, the next JPS query finds the cells whose jump byte
//! changed (the copy in bits 0–7 against the grid's) and repairs the counts behind each along
//! its diagonals, walking back only while a count changes (an edit rewrites a few lines of jump
//! bits; a count depends on at most the 63 cells ahead of it).
//!
//! The counts never take a ray past its goal's row or column: the ray caps each skip there,
//! since on those lines its scans run whatever the bits say.

use crate::Grid;
use crate::grid::{DIRS, dir_index};

/// Longest skip one count holds (6 bits: four of them and the jump byte fill the cell's
/// word); a longer idle run is skipped in several. At 15 (4 bits) a ray along a 32-cell
/// corridor of a wide maze took three skips where it now takes one.
const MAX_SKIP: u32 = 63;

/// The longest skip [`MIN_MEAN_SKIP`] counts: the mean that decides whether a grid's rays skip
/// was measured with counts of at most 15, and longer counts must not tip a grid of short runs
/// with a few very long ones (den520d) into skipping.
const MEAN_CAP: u32 = 15;

/// Grids whose counts a searcher keeps at once: a game's planner searches one map for units of
/// several sizes (each size its own grid, `Grid::for_agent_size`), and alternating between two
/// of them must not work the counts out afresh every time.
const GRIDS: usize = 4;

/// The skip counts for the grids a searcher searched last (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct DiagonalSkips {
    /// The counts per grid, the one used last first.
    grids: Vec<Counts>,
    /// Scratch: the cells whose jump byte changed since the counts were worked out.
    changed: Vec<usize>,
    /// Counts worked out afresh for a whole grid so far.
    rebuilds: u64,
}

/// The skip counts for one state of one grid.
#[derive(Debug, Default)]
struct Counts {
    /// The grid ([`Grid::id`]) and its revision the counts were worked out for, and its shape:
    /// padded cells and row length (a grid of as many cells in other rows is another grid).
    grid: (u64, u64),
    shape: (usize, usize),
    /// Per padded cell: its jump byte, then a 6-bit count per diagonal. Empty where the rays
    /// step cell by cell ([`MIN_MEAN_SKIP`]: decided once per grid).
    table: Vec<u32>,
    /// The jump bytes the counts were worked out from, compared with the grid's 64 at a time
    /// after an edit (a pass over `table` to compare them took 110 µs on a 512² map); kept
    /// where the rays step cell by cell too, so that a copy of the grid is known for one.
    jumps: Vec<u8>,
}

/// A grid not searched before takes the counts of one that was, repaired, where their jump
/// bytes differ in at most one cell in this many (else they are worked out afresh).
const NEAR: usize = 16;

/// The mean count (over the cells' legal diagonal steps, each taken at most [`MEAN_CAP`]) below which a grid's rays step cell
/// by cell: where most runs are short (random obstacles, narrow corridors) a skip rarely saves a
/// step, and a ray reading 4 bytes a cell instead of 1 fills the cache sooner (maze512-4, mean
/// 1.6, 15 % slower with the skips; random512-25, 0.2, 5–10 %). Measured means: maze512-16 7.0,
/// AR0011SR 8.9, Boston 6.8, 32room 6.3, `NewYork` 10.1; den520d 3.5, arena 3.0, brc202d 2.0,
/// hrt201n 1.8, 8room 1.3, random512-10 0.1, maze512-1 0 (no diagonal steps).
const MIN_MEAN_SKIP: f64 = 5.0;

/// The bit offset of diagonal `d`'s count (`d`: 4 to 7, NE, SE, SW, NW).
const fn shift(d: usize) -> usize {
    8 + 6 * (d - 4)
}

/// Diagonal `d`'s count in a cell's word (`table`'s): how many idle cells a ray along it may
/// skip from that cell.
pub(crate) const fn skip(word: u32, d: usize) -> usize {
    (word >> shift(d) & MAX_SKIP) as usize
}

/// The padded-index step of diagonal `d` (of [`DIRS`]) on rows of `stride` cells, and the
/// directions of its two straight components (a row scan's, a column scan's).
fn diagonal(d: usize, stride: usize) -> (isize, (usize, usize)) {
    let (dx, dy) = DIRS[d];
    (dy as isize * stride.cast_signed() + dx as isize, (dir_index(dx, 0), dir_index(0, dy)))
}

impl DiagonalSkips {
    /// The counts for `grid` as it is now: repaired after edits, worked out afresh for a grid
    /// not among the last few searched, as they were otherwise; `None` for a grid whose rays
    /// step cell by cell ([`MIN_MEAN_SKIP`]: decided when the grid is first searched).
    pub(crate) fn update(&mut self, grid: &Grid) -> Option<&[u32]> {
        self.update_with(grid, MIN_MEAN_SKIP)
    }

    /// [`update`](Self::update) with a mean count of `min_mean` to keep the counts for a grid.
    fn update_with(&mut self, grid: &Grid, min_mean: f64) -> Option<&[u32]> {
        let state = (grid.id(), grid.revision());
        let shape = (grid.jumps().len(), grid.stride());
        // The common case, every query on an unchanged grid: the counts used last, as they are.
        if !self.grids.first().is_some_and(|c| c.grid == state && c.shape == shape) {
            self.bring_forward(grid, min_mean);
        }
        let table = &self.grids[0].table;
        (!table.is_empty()).then_some(table.as_slice())
    }

    /// Puts the counts for `grid` first among those kept: found and repaired, or worked out
    /// for a grid not among them.
    fn bring_forward(&mut self, grid: &Grid, min_mean: f64) {
        let (id, revision, jumps, stride) = (grid.id(), grid.revision(), grid.jumps(), grid.stride());
        let shape = (jumps.len(), stride);
        let found = self.grids.iter().position(|c| c.grid.0 == id && c.shape == shape);
        let mut counts = if let Some(k) = found {
            let mut counts = self.grids.remove(k);
            if counts.grid.1 != revision {
                counts.repair(jumps, stride, &mut self.changed);
            }
            counts
        } else {
            self.counts_for_new(jumps, stride, min_mean)
        };
        (counts.grid, counts.shape) = ((id, revision), shape);
        self.grids.insert(0, counts);
    }

    /// The counts for a grid not among those kept. Most often it is a copy of one that is, a
    /// few edits on (a game's planner searches each version's snapshot, a clone with an id of
    /// its own): then that grid's counts, copied and repaired, at a small share of a build's
    /// cost (~150 µs against 2–4 ms on a 512² map).
    fn counts_for_new(&mut self, jumps: &[u8], stride: usize, min_mean: f64) -> Counts {
        // The first kept grid of this shape whose jump bytes differ in at most one cell in
        // `NEAR`; its changed cells are then in `self.changed`.
        let (changed, limit) = (&mut self.changed, jumps.len() / NEAR);
        let near = self
            .grids
            .iter()
            .position(|c| c.shape == (jumps.len(), stride) && c.changed_cells(jumps, changed, limit));
        let mut counts = if self.grids.len() < GRIDS {
            Counts::default()
        } else {
            // The one used longest ago makes room, its memory reused.
            self.grids.pop().unwrap_or_default()
        };
        match near.map(|k| self.grids.get(k)) {
            Some(Some(base)) => {
                counts.table.clone_from(&base.table);
                counts.jumps.clone_from(&base.jumps);
                counts.apply(jumps, stride, &self.changed);
            }
            // The one that made room was the near one: brought in step in place.
            Some(None) => counts.apply(jumps, stride, &self.changed),
            None => {
                self.rebuilds += 1;
                counts.rebuild(jumps, stride, min_mean);
            }
        }
        counts
    }
}

impl Counts {
    /// Works out every count from `jumps`, and keeps them if their mean is at least `min_mean`.
    fn rebuild(&mut self, jumps: &[u8], stride: usize, min_mean: f64) {
        self.table.clear();
        self.table.extend(jumps.iter().map(|&j| u32::from(j)));
        let rows = jumps.len() / stride;
        let (mut sum, mut legal) = (0u64, 0u64);
        for d in 4..8 {
            // A count reads the count of the cell ahead: rows in the order that puts it first.
            let way = diagonal(d, stride);
            let south = way.0 > 0;
            for k in 0..rows {
                let y = if south { rows - 1 - k } else { k };
                for i in y * stride..(y + 1) * stride {
                    let count = count_at(&self.table, jumps, i, d, way);
                    self.table[i] |= count << shift(d);
                    sum += u64::from(count.min(MEAN_CAP));
                    legal += u64::from(jumps[i] >> d & 1);
                }
            }
        }
        #[expect(clippy::cast_precision_loss, reason = "a ratio of counts")]
        let mean = sum as f64 / legal.max(1) as f64;
        self.jumps.clear();
        self.jumps.extend_from_slice(jumps);
        if mean < min_mean {
            self.table = Vec::new();
        }
    }

    /// The cells whose jump byte in `jumps` differs from the one the counts were worked out
    /// from, into `changed` (compared 64 at a time); `false`, with `changed` incomplete, as soon
    /// as there are more than `limit`.
    fn changed_cells(&self, jumps: &[u8], changed: &mut Vec<usize>, limit: usize) -> bool {
        changed.clear();
        for (k, (now, then)) in jumps.chunks(64).zip(self.jumps.chunks(64)).enumerate() {
            if now != then {
                changed.extend((0..now.len()).filter(|&i| now[i] != then[i]).map(|i| k * 64 + i));
                if changed.len() > limit {
                    return false;
                }
            }
        }
        true
    }

    /// Brings the counts in step with `jumps` where its bytes changed (see the module doc).
    fn repair(&mut self, jumps: &[u8], stride: usize, changed: &mut Vec<usize>) {
        self.changed_cells(jumps, changed, usize::MAX);
        self.apply(jumps, stride, changed);
    }

    /// [`repair`](Self::repair) for the `changed` cells, found already. For a grid whose rays
    /// step cell by cell, only the bytes' copy.
    fn apply(&mut self, jumps: &[u8], stride: usize, changed: &[usize]) {
        for &i in changed {
            self.jumps[i] = jumps[i];
        }
        if self.table.is_empty() {
            return;
        }
        for &i in changed {
            self.table[i] = (self.table[i] & !0xff) | u32::from(jumps[i]);
        }
        let len = self.table.len().cast_signed();
        for d in 4..8 {
            let way = diagonal(d, stride);
            let step = way.0;
            // Cells ahead along the diagonal first: their counts are final when read.
            let south = step > 0;
            for k in 0..changed.len() {
                let c = changed[if south { changed.len() - 1 - k } else { k }];
                let count = count_at(&self.table, jumps, c, d, way);
                set_count(&mut self.table, d, c, count);
                // Behind it: the cell before reads this cell's bits and count; on back while a
                // count changes.
                let mut p = c.cast_signed() - step;
                while (0..len).contains(&p) {
                    #[expect(clippy::cast_sign_loss, reason = "range-checked")]
                    let q = p as usize;
                    let count = count_at(&self.table, jumps, q, d, way);
                    if count == self.table[q] >> shift(d) & MAX_SKIP {
                        break;
                    }
                    set_count(&mut self.table, d, q, count);
                    p -= step;
                }
            }
        }
    }
}

/// Diagonal `d`'s count at padded cell `i` (`way`: its [`diagonal`] step and components): 0
/// where the diagonal step is not legal or the cell it leads to is not idle (a straight scan
/// along either component finds a jump point there); else one more than that cell's count, at
/// most [`MAX_SKIP`].
fn count_at(table: &[u32], jumps: &[u8], i: usize, d: usize, way: (isize, (usize, usize))) -> u32 {
    let (step, (across, down)) = way;
    if jumps[i] >> d & 1 == 0 {
        return 0;
    }
    // A legal step never leaves the padded grid (the border is walls).
    let next = i.wrapping_add_signed(step);
    if jumps[next] >> across & 1 == 1 || jumps[next] >> down & 1 == 1 {
        return 0;
    }
    (1 + (table[next] >> shift(d) & MAX_SKIP)).min(MAX_SKIP)
}

fn set_count(table: &mut [u32], d: usize, i: usize, count: u32) {
    table[i] = (table[i] & !(MAX_SKIP << shift(d))) | count << shift(d);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Pos, Tile};

    fn random_grid(side: u32, seed: u64, walls_in_100: u64) -> Grid {
        let mut grid = Grid::new(side, side).expect("a small grid");
        let mut state = seed;
        for p in 0..side * side {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            if (state >> 33) % 100 < walls_in_100 {
                grid.set_tile(Pos::new(p % side, p / side), Tile::Wall).expect("on the grid");
            }
        }
        grid
    }

    /// The counts by their definition, stepping the diagonal cell by cell.
    fn stepped(grid: &Grid, i: usize, d: usize) -> u32 {
        let jumps = grid.jumps();
        let (step, (across, down)) = diagonal(d, grid.stride());
        let (mut count, mut at) = (0, i);
        while count < MAX_SKIP && jumps[at] >> d & 1 == 1 {
            let next = at.wrapping_add_signed(step);
            if jumps[next] >> across & 1 == 1 || jumps[next] >> down & 1 == 1 {
                break;
            }
            count += 1;
            at = next;
        }
        count
    }

    fn check(grid: &Grid, table: Option<&[u32]>, what: &str) {
        let table = table.expect("counts kept for every grid with a least mean of 0");
        for (i, &t) in table.iter().enumerate() {
            assert_eq!(t & 0xff, u32::from(grid.jumps()[i]), "{what}: jump byte of cell {i}");
            for d in 4..8 {
                assert_eq!(t >> shift(d) & MAX_SKIP, stepped(grid, i, d), "{what}: cell {i}, diagonal {d}");
            }
        }
    }

    #[test]
    fn counts_are_the_idle_cells_ahead_built_and_repaired_after_random_edits() {
        let (mut some_long, mut past_four_bits) = (false, false);
        for (seed, walls) in [(1, 3), (2, 10), (3, 25), (4, 0)] {
            let mut grid = random_grid(40, seed, walls);
            let mut skips = DiagonalSkips::default();
            check(&grid, skips.update_with(&grid, 0.0), "built");
            some_long |= skips.grids[0].table.iter().any(|&t| (4..8).any(|d| t >> shift(d) & MAX_SKIP >= 5));
            past_four_bits |=
                skips.grids[0].table.iter().any(|&t| (4..8).any(|d| t >> shift(d) & MAX_SKIP > 15));
            let mut state = seed;
            for edit in 0..60 {
                state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                let (x, y) = (
                    u32::try_from((state >> 20) % 40).unwrap_or(0),
                    u32::try_from((state >> 40) % 40).unwrap_or(0),
                );
                let tile = if (state >> 10) % 2 == 0 { Tile::Wall } else { Tile::FLOOR };
                grid.set_tile(Pos::new(x, y), tile).expect("on the grid");
                // Sometimes two edits before the next query: the repair sees both.
                if edit % 3 != 1 {
                    check(&grid, skips.update_with(&grid, 0.0), &format!("seed {seed}, after edit {edit}"));
                }
            }
            // Other grids in turn with this one: each kept, this one still repaired.
            let others: Vec<Grid> =
                (0..GRIDS as u64).map(|k| random_grid(40, seed + 10 + k, walls)).collect();
            for other in &others[1..] {
                check(other, skips.update_with(other, 0.0), "another grid");
                grid.set_tile(Pos::new(u32::try_from(seed).unwrap_or(0), 7), Tile::Wall)
                    .expect("on the grid");
                check(&grid, skips.update_with(&grid, 0.0), "this grid again");
            }
            assert_eq!(skips.grids.len(), GRIDS, "the grids kept");
            // One grid more than it keeps: the one used longest ago goes.
            check(&others[0], skips.update_with(&others[0], 0.0), "one grid more");
            check(&grid, skips.update_with(&grid, 0.0), "this grid after one grid more");
            assert_eq!(skips.grids.len(), GRIDS, "the grids kept");
        }
        assert!(some_long, "the grids have idle runs of 5 or more");
        assert!(past_four_bits, "open ground has counts that need more than 4 bits");
    }

    #[test]
    fn counts_past_four_bits_are_repaired_behind_an_edit() {
        let mut grid = random_grid(40, 4, 0);
        let mut skips = DiagonalSkips::default();
        check(&grid, skips.update_with(&grid, 0.0), "open ground");
        let before = skips.grids[0].table.clone();
        // A wall far along the main diagonal: the counts up to 29 cells behind it shrink.
        grid.set_tile(Pos::new(30, 30), Tile::Wall).expect("on the grid");
        check(&grid, skips.update_with(&grid, 0.0), "a wall placed");
        let long_changed = |now: &[u32]| {
            now.iter().zip(&before).any(|(&n, &b)| {
                (4..8).any(|d| {
                    n >> shift(d) & MAX_SKIP != b >> shift(d) & MAX_SKIP && b >> shift(d) & MAX_SKIP > 15
                })
            })
        };
        assert!(long_changed(&skips.grids[0].table), "a count above 15 repaired");
        grid.set_tile(Pos::new(30, 30), Tile::FLOOR).expect("on the grid");
        check(&grid, skips.update_with(&grid, 0.0), "the wall erased");
        assert_eq!(skips.grids[0].table, before, "the counts as built before the edits");
        assert_eq!(skips.rebuilds, 1, "repaired, not built again");
    }

    #[test]
    fn rays_step_cell_by_cell_where_idle_runs_are_short() {
        let mut skips = DiagonalSkips::default();
        // Open ground: runs as long as the map.
        let open = random_grid(40, 1, 0);
        assert!(skips.update(&open).is_some(), "open ground skips");
        // A wall in every fourth cell: most runs end at once.
        let mut dense = random_grid(40, 2, 25);
        assert!(skips.update(&dense).is_none(), "dense walls step cell by cell");
        // Decided once: not worked out again for the next query, nor after an edit.
        dense.set_tile(Pos::new(3, 3), Tile::Wall).expect("on the grid");
        assert!(skips.update(&dense).is_none());
        assert!(skips.update(&dense).is_none());
        assert_eq!(skips.rebuilds, 2, "one build for each grid");
        // Kept as decided through edits, and still repaired where kept.
        let mut open = open;
        open.set_tile(Pos::new(5, 5), Tile::Wall).expect("on the grid");
        check(&open, skips.update(&open), "open after an edit");
    }

    #[test]
    fn a_copy_of_a_grid_a_few_edits_on_is_repaired_not_built() {
        let mut skips = DiagonalSkips::default();
        let mut grid = random_grid(64, 5, 2);
        check(&grid, skips.update_with(&grid, 0.0), "built");
        // Each version a clone with an id of its own, as a game's planner snapshots the map.
        for k in 0..6 {
            grid.set_tile(Pos::new(10 + k, 20), Tile::Wall).expect("on the grid");
            let copy = grid.clone();
            check(&copy, skips.update_with(&copy, 0.0), &format!("copy {k}"));
        }
        // A grid of the same size unlike it: built afresh.
        let other = random_grid(64, 6, 20);
        check(&other, skips.update_with(&other, 0.0), "another grid");
        assert_eq!(skips.rebuilds, 2, "the copies repaired");
        // A copy of a grid whose rays step cell by cell does too, without a build.
        let mut dense = random_grid(64, 7, 25);
        assert!(skips.update(&dense).is_none());
        dense.set_tile(Pos::new(1, 1), Tile::Wall).expect("on the grid");
        assert!(skips.update(&dense.clone()).is_none());
        assert_eq!(skips.rebuilds, 3, "the copy of the dense grid not built");
        // As many cells in other rows: another grid, however alike its bytes.
        let (wide, tall) = (Grid::new(30, 10).expect("a grid"), Grid::new(10, 30).expect("a grid"));
        check(&wide, skips.update_with(&wide, 0.0), "wide");
        check(&tall, skips.update_with(&tall, 0.0), "tall");
    }
}
