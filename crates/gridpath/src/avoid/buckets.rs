//! Points bucketed by map cell, for "who is near here" queries: a counting sort when the map is
//! small for the crowd, a sort of the points by cell when it is big (the cost then follows the
//! crowd, not the map). No hashing; the buffers are kept between frames.

use std::ops::Range;

use glam::Vec2;

/// Points (bodies' centres, one per index) bucketed by the cell they lie in, clamped onto the map.
#[derive(Clone, Debug, Default)]
pub struct Buckets {
    width: u32,
    height: u32,
    /// Point indices sorted by cell.
    order: Vec<u32>,
    /// Dense bucketing: per cell, the index into `order` of its first point, plus one end entry.
    /// Empty when sparse.
    cell_start: Vec<u32>,
    /// Sparse bucketing: the cell of each entry of `order`, sorted.
    sorted_cells: Vec<u32>,
    work: Vec<u64>,
    /// Dense bucketing: each point's cell, in point order.
    point_cells: Vec<u32>,
}

/// Maps with more cells than this per point (plus a floor) bucket by sorting, not per cell.
const DENSE_CELLS_PER_POINT: usize = 8;

impl Buckets {
    /// Buckets `points` (index `i` is the `i`-th point) on a `width` × `height` map.
    pub fn fill(&mut self, width: u32, height: u32, points: impl Iterator<Item = Vec2> + Clone) {
        self.width = width;
        self.height = height;
        let cells = width as usize * height as usize;
        let n = points.clone().count();
        self.order.clear();
        self.cell_start.clear();
        self.sorted_cells.clear();
        self.work.clear();
        if cells <= n * DENSE_CELLS_PER_POINT + 4096 {
            // Counting sort, each point's cell worked out once: per cell its count, summed
            // into where the cell ends, then the points placed backwards, each cell's start
            // counting down to where it begins (in point order within a cell).
            self.cell_start.resize(cells + 1, 0);
            let mut point_cells = std::mem::take(&mut self.point_cells);
            point_cells.clear();
            #[expect(clippy::cast_possible_truncation, reason = "cells of a map fit in u32")]
            point_cells.extend(points.map(|p| self.cell_index(p) as u32));
            self.point_cells = point_cells;
            for &c in &self.point_cells {
                self.cell_start[c as usize] += 1;
            }
            // The running sum in a register: summing in place, each cell's add waits for
            // the store of the one before (a tenth of a millisecond on a 256 × 256 map).
            let mut end = 0;
            for count in &mut self.cell_start[..cells] {
                end += *count;
                *count = end;
            }
            #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 points")]
            {
                self.cell_start[cells] = n as u32;
            }
            self.order.resize(n, 0);
            for (i, &c) in self.point_cells.iter().enumerate().rev() {
                let start = &mut self.cell_start[c as usize];
                *start -= 1;
                #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 points")]
                {
                    self.order[*start as usize] = i as u32;
                }
            }
        } else {
            // Cell in the high half, point in the low half: one sort orders both.
            let mut work = std::mem::take(&mut self.work);
            work.extend(points.enumerate().map(|(i, p)| (self.cell_index(p) as u64) << 32 | i as u64));
            work.sort_unstable();
            #[expect(clippy::cast_possible_truncation, reason = "the halves are 32-bit values")]
            {
                self.sorted_cells.extend(work.iter().map(|&k| (k >> 32) as u32));
                self.order.extend(work.iter().map(|&k| k as u32));
            }
            self.work = work;
        }
    }

    /// Whether the buckets are one per cell (the crowd is dense for the map).
    #[must_use]
    pub fn is_dense(&self) -> bool {
        !self.cell_start.is_empty()
    }

    /// Width and height of the map bucketed on.
    #[must_use]
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// The cell index (row-major) of a point, clamped onto the map.
    #[must_use]
    pub fn cell_index(&self, p: Vec2) -> usize {
        let (x, y) = self.clamped_cell(p);
        y as usize * self.width as usize + x as usize
    }

    #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "clamped onto the map")]
    #[expect(clippy::cast_precision_loss, reason = "map sides (at most MAX_SIDE) are exact in f32")]
    fn clamped_cell(&self, p: Vec2) -> (u32, u32) {
        let x = p.x.clamp(0.0, (self.width.max(1) - 1) as f32) as u32;
        let y = p.y.clamp(0.0, (self.height.max(1) - 1) as f32) as u32;
        (x, y)
    }

    /// Indices of the points in the cells a square of half-side `reach` around `p` touches.
    pub fn near(&self, p: Vec2, reach: f32) -> impl Iterator<Item = usize> + '_ {
        let (x0, y0) = self.clamped_cell(p - reach);
        let (x1, y1) = self.clamped_cell(p + reach);
        (y0..=y1).flat_map(move |y| self.order[self.row_slots(y, x0, x1)].iter().map(|&i| i as usize))
    }

    /// The points in bucket order: slot `s` holds point `order()[s]`; a row's run of cells is a
    /// run of slots ([`square_rows`](Self::square_rows), [`disc_rows`](Self::disc_rows)).
    pub(crate) fn order(&self) -> &[u32] {
        &self.order
    }

    /// The slots of the points in cells `x0..=x1` of row `y`.
    fn row_slots(&self, y: u32, x0: u32, x1: u32) -> Range<usize> {
        let row = y as usize * self.width as usize;
        let (first, last) = (row + x0 as usize, row + x1 as usize);
        if self.cell_start.is_empty() {
            let from = self.sorted_cells.partition_point(|&c| (c as usize) < first);
            let to = from + self.sorted_cells[from..].partition_point(|&c| (c as usize) <= last);
            from..to
        } else {
            self.cell_start[first] as usize..self.cell_start[last + 1] as usize
        }
    }

    /// Per row, the slots of the points in the cells a square of half-side `reach` around `p`
    /// touches (the points [`near`](Self::near) yields, in the same order). Cheaper per row
    /// than [`disc_rows`](Self::disc_rows) where the reach is short.
    pub(crate) fn square_rows(&self, p: Vec2, reach: f32, mut each: impl FnMut(Range<usize>)) {
        let (x0, y0) = self.clamped_cell(p - reach);
        let (x1, y1) = self.clamped_cell(p + reach);
        for y in y0..=y1 {
            each(self.row_slots(y, x0, x1));
        }
    }

    /// The cell `p` lies in, clamped onto the map.
    pub(crate) fn cell_of(&self, p: Vec2) -> (u32, u32) {
        self.clamped_cell(p)
    }

    /// Per row, the slots of the points in the cells within `reach` of `p` (a disc, not a
    /// square: about a fifth fewer cells) that overlap the box `clip` (low and high corners),
    /// leaving out the cells `x0..=x1` × `y0..=y1` of `skip` (an inner block already scanned).
    /// Every point closer than `reach` to `p` inside `clip` and outside `skip` is in them.
    #[expect(clippy::cast_precision_loss, reason = "map sides (at most MAX_SIDE) are exact in f32")]
    pub(crate) fn disc_rows(
        &self,
        (p, reach): (Vec2, f32),
        clip: (Vec2, Vec2),
        skip: Option<[u32; 4]>,
        mut each: impl FnMut(Range<usize>),
    ) {
        // No block: one that no row reaches.
        let [left, top_row, right, bottom_row] = skip.unwrap_or([0, u32::MAX, 0, 0]);
        let (_, y0) = self.clamped_cell(Vec2::new(p.x, clip.0.y.max(p.y - reach)));
        let (_, y1) = self.clamped_cell(Vec2::new(p.x, clip.1.y.min(p.y + reach)));
        for y in y0..=y1 {
            // The first and last rows hold the points clamped onto the map too.
            let top = if y == 0 { f32::NEG_INFINITY } else { y as f32 };
            let bottom = if y + 1 >= self.height { f32::INFINITY } else { (y + 1) as f32 };
            let dy = (top - p.y).max(p.y - bottom).max(0.0);
            if dy >= reach {
                continue;
            }
            let half = (reach * reach - dy * dy).sqrt();
            let (x0, _) = self.clamped_cell(Vec2::new(clip.0.x.max(p.x - half), p.y));
            let (x1, _) = self.clamped_cell(Vec2::new(clip.1.x.min(p.x + half), p.y));
            if x0 > x1 {
                continue;
            }
            if y < top_row || y > bottom_row {
                each(self.row_slots(y, x0, x1));
                continue;
            }
            if x0 < left {
                each(self.row_slots(y, x0, x1.min(left - 1)));
            }
            if x1 > right {
                each(self.row_slots(y, x0.max(right + 1), x1));
            }
        }
    }

    /// Per row, the slots of the points in the cells `x0..=x1` × `y0..=y1`.
    pub(crate) fn block_rows(&self, [x0, y0, x1, y1]: [u32; 4], mut each: impl FnMut(Range<usize>)) {
        for y in y0..=y1 {
            each(self.row_slots(y, x0, x1));
        }
    }
}
