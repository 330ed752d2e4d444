//! Crowd scenes for local avoidance, shared by `tests/avoid.rs` and the timing harness
//! `examples/avoid_frame.rs`: groups of units following flow fields, arriving on their goal or
//! on touching an arrived unit of their group within its arrival ring, as the game's steering
//! does.
#![allow(dead_code, reason = "the test and the example use different parts")]

use std::collections::{HashMap, HashSet};

use glam::Vec2;
use gridpath::avoid::{
    ArrivalRing, Avoidance, AvoidanceSettings, Body, Contact, Held, Quality, Touch, land_in_ring, step_aim,
};
use gridpath::generate::{Generator, generate};
use gridpath::{FlowField, Grid, Pos, Rules, Tile, formats};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Radius of a unit, in tiles.
pub const RADIUS: f32 = 0.3;
/// Speed of a unit, in tiles per second.
pub const SPEED: f32 = 5.0;
/// Seconds per frame.
pub const DT: f32 = 1.0 / 60.0;
/// A unit this close to its goal cell's centre has arrived.
const ARRIVE: f32 = 0.3;
/// Touching an arrived unit of its group (centre distance / sum of radii).
const TOUCH: f32 = 1.15;
/// Tiles a unit may walk without getting closer before a touch makes it arrive.
const STALL: f32 = 1.5;

/// The centre of cell `p`.
pub fn center(p: Pos) -> Vec2 {
    Vec2::new(p.x as f32 + 0.5, p.y as f32 + 0.5)
}

fn cell(p: Vec2) -> Pos {
    Pos::new(p.x as u32, p.y as u32)
}

/// Groups of units, each following its goal's flow field, and who has arrived.
pub struct Crowd {
    /// The bodies avoidance moves; arrived units stand still but keep avoiding (they give way
    /// to units passing through).
    pub bodies: Vec<Body>,
    /// Units arrived so far.
    pub arrived: usize,
    /// Time of the last arrival, in seconds.
    pub last_arrival: f32,
    /// Seconds since the start.
    pub time: f32,
    fields: Vec<FlowField>,
    /// Per group, its arrival ring along its field; units arrived, and units in all.
    rings: Vec<(ArrivalRing, usize, usize)>,
    goals: Vec<Pos>,
    group: Vec<usize>,
    best: Vec<f32>,
    stalled: Vec<f32>,
    done: Vec<bool>,
    /// Per unit, its field distance where it arrived.
    landed_at: Vec<f32>,
    /// The bodies by cell, this frame.
    cells: HashMap<Pos, Vec<usize>>,
}

impl Crowd {
    /// Units on the start cells of each group (start cells, goal), at rest.
    pub fn new(grid: &Grid, groups: &[(Vec<Pos>, Pos)]) -> Self {
        let fields: Vec<FlowField> =
            groups.iter().map(|(_, goal)| FlowField::dijkstra(grid, *goal, Rules::OCTILE).unwrap()).collect();
        let rings = fields
            .iter()
            .zip(groups)
            .map(|(f, (starts, _))| (ArrivalRing::new(f), 0, starts.len()))
            .collect();
        let mut bodies = Vec::new();
        let mut group = Vec::new();
        for (g, (starts, _)) in groups.iter().enumerate() {
            for &s in starts {
                bodies.push(Body { group: g as u32 + 1, ..Body::new(center(s), RADIUS, SPEED) });
                group.push(g);
            }
        }
        let n = bodies.len();
        Self {
            bodies,
            arrived: 0,
            last_arrival: 0.0,
            time: 0.0,
            fields,
            rings,
            goals: groups.iter().map(|(_, goal)| *goal).collect(),
            group,
            best: vec![f32::INFINITY; n],
            stalled: vec![0.0; n],
            done: vec![false; n],
            landed_at: vec![f32::INFINITY; n],
            cells: HashMap::new(),
        }
    }

    /// Whether every unit has arrived.
    pub fn all_arrived(&self) -> bool {
        self.arrived == self.bodies.len()
    }

    /// The run's figures, as the tests and the benchmarks print them: units, arrivals, the last
    /// arrival and `quality`'s.
    pub fn figures(&self, quality: &Quality) -> String {
        format!(
            "units={} arrived={} gap_ratio={:.3} wall_overlaps={} last_arrival_s={:.1} oscillation={:.2}%",
            self.bodies.len(),
            self.arrived,
            quality.gap_ratio,
            quality.wall_overlaps,
            self.last_arrival,
            quality.oscillation_percent()
        )
    }

    /// Where a few units that did not arrive stand.
    pub fn stuck(&self) -> Vec<Vec2> {
        (0..self.bodies.len()).filter(|&i| !self.done[i]).take(5).map(|i| self.bodies[i].position).collect()
    }

    /// Runs the crowd with default avoidance until every unit arrived or `seconds` of play
    /// passed, checking every frame: the quality figures.
    pub fn run(&mut self, grid: &Grid, seconds: f32) -> Quality {
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        let (mut quality, mut velocities) = (Quality::default(), Vec::new());
        while self.time < seconds && !self.all_arrived() {
            self.wish(grid);
            avoidance.step(&mut self.bodies, grid, DT, &mut velocities);
            quality.observe(&self.bodies, grid);
            self.time += DT;
        }
        quality
    }

    /// Each unit that did not arrive (at most `limit`): where it stands, its group's goal, its
    /// distance there, and the bodies within a tile and a half of it (arrived or not, group).
    pub fn describe_stuck(&self, limit: usize) -> Vec<String> {
        (0..self.bodies.len())
            .filter(|&i| !self.done[i])
            .take(limit)
            .map(|i| {
                let b = self.bodies[i];
                let g = self.group[i];
                let near: Vec<String> = (0..self.bodies.len())
                    .filter(|&j| j != i && self.bodies[j].position.distance(b.position) < 1.5)
                    .map(|j| {
                        let o = self.bodies[j];
                        format!(
                            "#{j} g{} {} ({:.2},{:.2}) v=({:.2},{:.2})",
                            self.group[j],
                            if self.done[j] { "arrived" } else { "walking" },
                            o.position.x,
                            o.position.y,
                            o.velocity.x,
                            o.velocity.y
                        )
                    })
                    .collect();
                let landed = if self.landed_at[i].is_finite() { format!(" landed {:.1}", self.landed_at[i]) } else { String::new() };
                format!(
                    "#{i} g{g} at ({:.2},{:.2}) goal {:?} distance {:?}{landed} stuck {:.1}s pref=({:.2},{:.2}) near: {}",
                    b.position.x,
                    b.position.y,
                    self.goals[g],
                    self.fields[g].distance(cell(b.position)),
                    b.stuck,
                    b.preferred.x,
                    b.preferred.y,
                    near.join("; ")
                )
            })
            .collect()
    }

    /// Sets every unit's preferred velocity for the coming frame (and lets units arrive).
    pub fn wish(&mut self, grid: &Grid) {
        let n = self.bodies.len();
        // Where every body stands now (arrived units are pushed about by passers too).
        self.cells.clear();
        for i in 0..n {
            self.cells.entry(cell(self.bodies[i].position)).or_default().push(i);
        }
        // Units arrived per group before this frame, as the game counts them.
        for ring in &mut self.rings {
            ring.1 = 0;
        }
        // And per group, the farthest from the goal one of its arrived units first arrived: the
        // ring's own extent (walls and passages may take it beyond `reach`).
        let mut farthest = vec![0.0_f32; self.rings.len()];
        for i in (0..n).filter(|&i| self.done[i]) {
            self.rings[self.group[i]].1 += 1;
            farthest[self.group[i]] = farthest[self.group[i]].max(self.landed_at[i]);
        }
        for i in 0..n {
            let g = self.group[i];
            let (field, goal) = (&self.fields[g], self.goals[g]);
            let here = cell(self.bodies[i].position);
            let distance = field.distance(here).unwrap_or(f64::INFINITY) as f32;
            let reach = self.rings[g].0.reach(self.rings[g].2, RADIUS).max(farthest[g]);
            if self.done[i] {
                if !gridpath::avoid::displaced(self.landed_at[i], reach, distance) {
                    self.bodies[i].preferred = Vec2::ZERO;
                    continue;
                }
                // Pushed away from where it arrived: it walks back.
                self.done[i] = false;
                self.arrived -= 1;
                self.best[i] = distance;
                self.stalled[i] = 0.0;
            }
            // Along the field's step, wherever in its cell the unit stands: a stream spreads over
            // the passage's width instead of queuing on cell centres. Its distance to go: the
            // field's distance from the cell it heads for plus the way to that cell's centre, as
            // the game measures it (not to the aim, a step ahead of wherever it stands: every body
            // of a cell would have the same distance, and queue order would be by cells).
            let (target, to_go) = if here == goal {
                (center(goal), center(goal).distance(self.bodies[i].position))
            } else {
                let next = field.next_step(here).unwrap();
                let aim = step_aim(grid, self.bodies[i].position, RADIUS, here, next);
                let from_next = field.distance(next).unwrap_or(f64::INFINITY) as f32;
                (aim, from_next + center(next).distance(self.bodies[i].position))
            };
            // Progress: a cell closer to the goal than any before.
            if distance < self.best[i] {
                self.best[i] = distance;
                self.stalled[i] = 0.0;
            } else {
                self.stalled[i] += SPEED * DT;
            }
            let (bodies, group) = (&self.bodies, &self.group);
            // Only within its group's arrival ring (along the field: never back out through a
            // door while the room holds them), or after a long wait within the ring of the
            // whole group, or with no way round it: the game's and the plugin's rule (with the
            // counts of the frame's start, as theirs; progress here is by cells, not quarter
            // tiles: docs/BENCHMARKS.md).
            let (ring, landed, all) = &self.rings[g];
            // What it touches: an arrived unit of its group beside it along the way, and
            // whether every body it touches arrived.
            let touching = || {
                let near = (here.y.saturating_sub(1)..=here.y + 1)
                    .flat_map(|y| (here.x.saturating_sub(1)..=here.x + 1).map(move |x| Pos::new(x, y)))
                    .filter_map(|c| self.cells.get(&c))
                    .flatten()
                    .filter(|&&j| {
                        j != i && bodies[i].position.distance(bodies[j].position) <= 2.0 * RADIUS * TOUCH
                    });
                let contacts = near.map(|&j| Contact {
                    position: bodies[j].position,
                    arrived: self.done[j],
                    same_goal: group[j] == g,
                    distance: field.distance(cell(bodies[j].position)).unwrap_or(f64::INFINITY) as f32,
                    cost: 1,
                    touch: 2.0 * RADIUS * TOUCH,
                });
                Touch::among(bodies[i].position, distance, contacts)
            };
            let position = bodies[i].position;
            // Pushed away from its ring, it walks back before it lands again (or lands where its
            // ring keeps it out), as the game and the plugin land.
            let heading = (target - position).normalize_or_zero();
            let held = Held { position, heading, distance: to_go, stalled: self.stalled[i], radius: RADIUS };
            let landing = (self.stalled[i] >= STALL)
                .then(|| {
                    land_in_ring(
                        grid,
                        held,
                        (*landed, *all),
                        |n| ring.reach(n, RADIUS),
                        (self.landed_at[i], reach),
                        touching,
                    )
                })
                .flatten();
            let touches = landing.is_some();
            if touches || self.bodies[i].position.distance(center(goal)) <= ARRIVE {
                self.done[i] = true;
                self.landed_at[i] = landing.unwrap_or(self.landed_at[i].min(distance));
                self.bodies[i].preferred = Vec2::ZERO;
                self.arrived += 1;
                self.last_arrival = self.time;
                continue;
            }
            self.bodies[i].stuck = self.stalled[i] / SPEED;
            self.bodies[i].distance = to_go;
            let towards = target - self.bodies[i].position;
            self.bodies[i].preferred = towards.normalize_or_zero() * SPEED.min(towards.length() / DT);
        }
    }
}

/// A `w` × `h` grid with a wall on each cell `wall(x, y)` says.
pub fn grid_where(w: u32, h: u32, wall: impl Fn(u32, u32) -> bool) -> Grid {
    let mut grid = Grid::filled(w, h, Tile::FLOOR).unwrap();
    for y in 0..h {
        for x in 0..w {
            if wall(x, y) {
                grid.set_wall(Pos::new(x, y), true).unwrap();
            }
        }
    }
    grid
}

/// Free cells of `grid` in the rectangle, row by row, at most `count`.
pub fn cells_in(grid: &Grid, (x0, y0, x1, y1): (u32, u32, u32, u32), count: usize) -> Vec<Pos> {
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| Pos::new(x, y)))
        .filter(|&p| grid.is_passable(p))
        .take(count)
        .collect()
}

/// The converge scene: a 256 × 256 map with scattered walls (none within 60 steps of the
/// middle), 10,000 units spread over it, all heading for the middle.
pub fn converge() -> (Grid, Vec<(Vec<Pos>, Pos)>) {
    let text: String = (0..256)
        .map(|y: u32| {
            (0..256)
                .map(|x: u32| {
                    let h = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) % 100;
                    if h < 8 && (x as i32 - 128).abs() + (y as i32 - 128).abs() > 60 { '#' } else { '.' }
                })
                .collect::<String>()
                + "\n"
        })
        .collect();
    let grid = formats::parse_ascii(&text).unwrap().grid;
    let goal = Pos::new(128, 128);
    let field = FlowField::dijkstra(&grid, goal, Rules::OCTILE).unwrap();
    let starts: Vec<Pos> = grid
        .positions()
        .filter(|&p| field.distance(p).is_some() && (p.x * 7 + p.y * 13) % 5 == 0)
        .take(10_000)
        .collect();
    assert_eq!(starts.len(), 10_000);
    (grid, vec![(starts, goal)])
}

/// A random crowd scene for seed `seed`: its map (caves, rooms with one-tile corridors,
/// noise, mazes 1–3 cells wide; 32–64 tiles a side), its groups (start cells, goal: one to
/// three goals, 30–300 units on distinct cells that reach their group's goal) and what made it.
pub fn random_scene(seed: u64) -> Option<(Grid, Vec<(Vec<Pos>, Pos)>, String)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let generator = match rng.random_range(0..4) {
        0 => Generator::Caves,
        1 => Generator::Rooms,
        2 => Generator::Noise { density: rng.random_range(0.05..0.25) },
        _ => Generator::Maze { corridor: rng.random_range(1..=3) },
    };
    let side = rng.random_range(32..=64);
    let grid = generate(generator, side, side, seed).ok()?;
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    // Two bodies cannot pass each other in a one-tile corridor (0.6 wide each): groups meeting
    // head-on in a one-wide maze, or in the one-tile corridors between rooms, would need one of
    // them to back its whole queue up to a junction, which is planning, not local avoidance.
    // One group there.
    let narrow = matches!(generator, Generator::Maze { corridor: 1 } | Generator::Rooms);
    let groups = if narrow { 1 } else { rng.random_range(1..=3) };
    let units = rng.random_range(30..=300).min(open.len() / 3);
    let mut cells = open.clone();
    cells.shuffle(&mut rng);
    let mut taken = HashSet::new();
    let mut out = Vec::new();
    for _ in 0..groups {
        let goal = open[rng.random_range(0..open.len())];
        let field = FlowField::dijkstra(&grid, goal, Rules::OCTILE).ok()?;
        let starts: Vec<Pos> = cells
            .iter()
            .copied()
            .filter(|&c| c != goal && field.distance(c).is_some() && !taken.contains(&c))
            .take(units / groups)
            .collect();
        taken.extend(starts.iter().copied());
        if !starts.is_empty() {
            out.push((starts, goal));
        }
    }
    let label = format!("{} {side}x{side}", generator.name());
    (!out.is_empty()).then_some((grid, out, label))
}

/// A rooms map (one-tile doors and corridors) `side` tiles a side packed full: a unit on every
/// cell that reaches the goal (an open cell in the middle of the list), all one group. The
/// crowd presses on every door at once, as a game's "everyone to the keep" order does.
pub fn packed_rooms(side: u32, seed: u64) -> (Grid, Vec<(Vec<Pos>, Pos)>) {
    let grid = generate(Generator::Rooms, side, side, seed).unwrap();
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let goal = open[open.len() / 2];
    let field = FlowField::dijkstra(&grid, goal, Rules::OCTILE).unwrap();
    let starts = open.iter().copied().filter(|&p| p != goal && field.distance(p).is_some()).collect();
    (grid, vec![(starts, goal)])
}
