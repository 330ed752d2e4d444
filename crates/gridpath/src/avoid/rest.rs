//! Bodies at rest that need not plan: a crowd that has arrived costs next to nothing per frame
//! while nothing near it stirs, instead of a neighbour scan and a line per neighbour per body.
//!
//! *Why it is exact.* A body that wants to stand still (no preferred velocity, no room to
//! make, not jostled) plans zero exactly when every neighbour's line allows standing still
//! ([`Avoidance::solve_among`](super::Avoidance)'s first test; walls always allow it). A body
//! that planned zero, has not moved since, and around which no body has moved, appeared or
//! changed size since, sees the same neighbours at the same places, all standing still: each
//! line allows standing still as it did (a neighbour at rest that does not overlap it allows
//! it whatever share of the avoiding either takes, so whose turn it is to plan does not
//! matter). So it would plan zero again, and is given zero without planning.

use glam::Vec2;

use super::{Body, Slot};

/// Side of the blocks (tiles) in which bodies that stir are noted.
const BLOCK: f32 = 4.0;

/// What lets bodies at rest skip planning, kept from frame to frame.
#[derive(Clone, Debug, Default)]
pub(super) struct Resting {
    /// Frames prepared so far (never wraps in practice; 0 means never).
    tick: u64,
    /// Blocks across and down.
    size: (usize, usize),
    /// Per block of `BLOCK` × `BLOCK` tiles, the last frame a body in it had moved since the
    /// frame before (or appeared, or changed size).
    stirred: Vec<u64>,
    /// Per body (by index), where it stood and its radius at the last frame prepared.
    seen: Vec<(Vec2, f32)>,
    /// Per body, the frame of its last plan to stand still at rest (0: none), and where it
    /// stood then.
    still: Vec<(u64, Vec2)>,
}

impl Resting {
    /// A new frame: notes the blocks where a body moved since the last frame (its velocity, or
    /// its position against the last one seen), appeared or changed size. `width` × `height`:
    /// the map's tiles.
    pub(super) fn stir(&mut self, bodies: &[Body], (width, height): (u32, u32)) {
        self.tick += 1;
        let tick = self.tick;
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "a map side in blocks")]
        let size = ((width as f32 / BLOCK).ceil() as usize, (height as f32 / BLOCK).ceil() as usize);
        if size != self.size {
            // Another map: everything counts as stirred now.
            self.size = size;
            self.stirred.clear();
            self.stirred.resize(size.0 * size.1, tick);
        }
        if self.seen.len() != bodies.len() {
            // Bodies came or went: their indices may no longer be the same bodies'.
            self.seen.clear();
            self.seen.resize(bodies.len(), (Vec2::NAN, 0.0));
            self.still.clear();
            self.still.resize(bodies.len(), (0, Vec2::ZERO));
        }
        for (body, seen) in bodies.iter().zip(&mut self.seen) {
            let now = (body.position, body.radius);
            if body.velocity != Vec2::ZERO || now.0 != seen.0 || now.1 != seen.1 {
                let (x, y) = block_of(size, body.position);
                self.stirred[y * size.0 + x] = tick;
            }
            *seen = now;
        }
    }

    /// Whether the body in slot `body` may skip planning this frame and stand still (see the
    /// module's comment): it wants to stand still and is not jostled (`jostle_after`: seconds stuck from
    /// which it would be), makes no room, planned zero at its last plan and has not moved
    /// since, and no body within `reach` of it has stirred since that plan.
    pub(super) fn may_skip(&self, body: &Slot, (reach, jostle_after): (f32, f32)) -> bool {
        // The body's own state first: read in slot order, where its record is a jump away.
        if body.preferred != Vec2::ZERO
            || body.velocity != Vec2::ZERO
            || body.planned != Vec2::ZERO
            || body.stuck >= jostle_after
        {
            return false;
        }
        let Some(&(planned, at)) = self.still.get(body.index as usize) else { return false };
        if planned == 0 || at != body.position {
            return false;
        }
        let (low, high) =
            (block_of(self.size, body.position - reach), block_of(self.size, body.position + reach));
        let width = self.size.0;
        (low.1..=high.1)
            .all(|y| self.stirred[y * width + low.0..=y * width + high.0].iter().all(|&t| t <= planned))
    }

    /// Body `i` planned this frame (rather than coasting or skipping) to stand still, at
    /// rest (wanting to stand still and making no room) at `position`. (A plan that is not
    /// leaves its record: skipping on it stays exact, as a body that moved since stirred the
    /// block it stands in.)
    pub(super) fn planned_still(&mut self, i: usize, position: Vec2) {
        if let Some(still) = self.still.get_mut(i) {
            *still = (self.tick, position);
        }
    }
}

/// The block `p` lies in on a map of `size` blocks, clamped onto it.
#[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "clamped onto the map")]
fn block_of(size: (usize, usize), p: Vec2) -> (usize, usize) {
    let clamp = |v: f32, n: usize| ((v / BLOCK).max(0.0) as usize).min(n.saturating_sub(1));
    (clamp(p.x, size.0), clamp(p.y, size.1))
}
