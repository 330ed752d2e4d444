//! Points bucketed by map cell, for "who is near here" queries: a counting sort when the map is
//! small for the crowd, a sort of the points by cell when it is big (the cost then follows the
//! crowd, not the map). No hashing; the buffers are kept between frames.

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
            self.cell_start.resize(cells + 1, 0);
            for p in points.clone() {
                let c = self.cell_index(p);
                self.cell_start[c + 1] += 1;
            }
            for i in 0..cells {
                self.cell_start[i + 1] += self.cell_start[i];
            }
            self.order.resize(n, 0);
            self.work.extend(self.cell_start.iter().map(|&s| u64::from(s)));
            for (i, p) in points.enumerate() {
                let c = self.cell_index(p);
                let slot = &mut self.work[c];
                #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 points")]
                {
                    self.order[*slot as usize] = i as u32;
                }
                *slot += 1;
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
        let width = self.width as usize;
        (y0..=y1).flat_map(move |y| {
            let row = y as usize * width;
            let (first, last) = (row + x0 as usize, row + x1 as usize);
            let range = if self.cell_start.is_empty() {
                let from = self.sorted_cells.partition_point(|&c| (c as usize) < first);
                let to = from + self.sorted_cells[from..].partition_point(|&c| (c as usize) <= last);
                from..to
            } else {
                self.cell_start[first] as usize..self.cell_start[last + 1] as usize
            };
            self.order[range].iter().map(|&i| i as usize)
        })
    }
}
