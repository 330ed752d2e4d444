//! How good a crowd's avoidance looks, measured frame by frame, independently of
//! [`Avoidance`](super::Avoidance): the closest two bodies came (as a share of their radii),
//! bodies overlapping a wall, and how often a body's velocity flips direction.

use glam::Vec2;

use super::{Body, blocked_near, class_at};
use crate::grid::Grid;

/// Quality figures gathered over the frames [`observe`](Quality::observe)d.
#[derive(Clone, Debug)]
pub struct Quality {
    /// Smallest centre distance / sum of radii of any two bodies in any frame (1: they touched;
    /// 0.98: 2 % overlap). Infinity before two bodies came near.
    pub gap_ratio: f32,
    /// Body–wall overlaps counted over all frames (a body overlapping two walls counts once a
    /// frame), beyond a rounding tolerance.
    pub wall_overlaps: u64,
    /// Body-frames in which a moving body's velocity turned by more than 90° from the frame before.
    pub flips: u64,
    /// Body-frames observed with both velocities non-zero (the flips' denominator).
    pub moving_frames: u64,
    previous: Vec<Vec2>,
    cells: Vec<(u64, u32)>,
}

impl Default for Quality {
    fn default() -> Self {
        Self {
            gap_ratio: f32::INFINITY,
            wall_overlaps: 0,
            flips: 0,
            moving_frames: 0,
            previous: Vec::new(),
            cells: Vec::new(),
        }
    }
}

/// Overlap with a wall smaller than this (tiles) is float rounding, not an overlap.
const WALL_TOLERANCE: f32 = 1e-3;
/// Speeds below this (tiles per second) have no direction worth comparing.
const STILL: f32 = 0.05;

impl Quality {
    /// Takes one frame's bodies (the same bodies in the same order every frame).
    pub fn observe(&mut self, bodies: &[Body], grid: &Grid) {
        self.gaps(bodies);
        for body in bodies {
            if overlaps_wall(grid, body) {
                self.wall_overlaps += 1;
            }
        }
        if self.previous.len() == bodies.len() {
            for (body, before) in bodies.iter().zip(&self.previous) {
                if body.moving && body.velocity.length() > STILL && before.length() > STILL {
                    self.moving_frames += 1;
                    if body.velocity.dot(*before) < 0.0 {
                        self.flips += 1;
                    }
                }
            }
        }
        self.previous.clear();
        self.previous.extend(bodies.iter().map(|b| b.velocity));
    }

    /// Share of moving body-frames whose velocity flipped, in per cent.
    #[must_use]
    pub fn oscillation_percent(&self) -> f64 {
        #[expect(clippy::cast_precision_loss, reason = "a ratio of counts")]
        let share = self.flips as f64 / self.moving_frames.max(1) as f64;
        share * 100.0
    }

    /// The closest pair this frame, by a sort into 1-tile cells and a 3 × 3 scan (bodies up to
    /// half a tile of radius) plus a direct check of larger bodies against every body.
    fn gaps(&mut self, bodies: &[Body]) {
        self.cells.clear();
        #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "cells of a map")]
        let key = |p: Vec2| (u64::from(p.y.max(0.0) as u32) << 32) | u64::from(p.x.max(0.0) as u32);
        #[expect(clippy::cast_possible_truncation, reason = "fewer than 2^32 bodies")]
        self.cells.extend(
            bodies
                .iter()
                .enumerate()
                .filter(|(_, b)| b.radius <= 0.5)
                .map(|(i, b)| (key(b.position), i as u32)),
        );
        self.cells.sort_unstable();
        let mut best = self.gap_ratio;
        let cells = &self.cells;
        for &(cell, i) in cells {
            let (x, y) = (cell & 0xffff_ffff, cell >> 32);
            for ny in y.saturating_sub(1)..=y + 1 {
                for nx in x.saturating_sub(1)..=x + 1 {
                    let other = (ny << 32) | nx;
                    let from = cells.partition_point(|&(c, _)| c < other);
                    for &(_, j) in cells[from..].iter().take_while(|&&(c, _)| c == other) {
                        if j > i {
                            best = best.min(ratio(&bodies[i as usize], &bodies[j as usize]));
                        }
                    }
                }
            }
        }
        for (i, big) in bodies.iter().enumerate().filter(|(_, b)| b.radius > 0.5) {
            for (j, other) in bodies.iter().enumerate() {
                if i != j {
                    best = best.min(ratio(big, other));
                }
            }
        }
        self.gap_ratio = best;
    }
}

fn ratio(a: &Body, b: &Body) -> f32 {
    a.position.distance(b.position) / (a.radius + b.radius)
}

/// Whether `body` overlaps a cell it cannot enter (a wall, off the map, another terrain class).
fn overlaps_wall(grid: &Grid, body: &Body) -> bool {
    let p = body.position;
    let class = class_at(grid, p);
    if class == 0 {
        return true;
    }
    let mut overlaps = false;
    blocked_near(grid, p, body.radius - WALL_TOLERANCE, class, |_| overlaps = true);
    overlaps
}
