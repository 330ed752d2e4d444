//! Crowd jams (issue 22): groups following flow fields with ORCA avoidance must all arrive, never
//! overlap each other beyond 2 % or a wall at all, checked every frame.

use std::collections::HashMap;

use gridpath::avoid::{Avoidance, AvoidanceSettings, Body, Quality, step_aim};
use gridpath::{FlowField, Grid, Pos, Rules, Tile, formats};

const RADIUS: f32 = 0.3;
const SPEED: f32 = 5.0;
const DT: f32 = 1.0 / 60.0;
/// A unit this close to its goal cell's centre has arrived.
const ARRIVE: f32 = 0.3;
/// Touching an arrived unit of its group (centre distance / sum of radii).
const TOUCH: f32 = 1.15;
/// Tiles a unit may walk without getting closer before a touch makes it arrive.
const STALL: f32 = 1.5;

struct Outcome {
    units: usize,
    arrived: usize,
    last_arrival: f32,
    quality: Quality,
    /// Where a few units that did not arrive stand.
    stuck: Vec<glam::Vec2>,
}

fn center(p: Pos) -> glam::Vec2 {
    glam::Vec2::new(p.x as f32 + 0.5, p.y as f32 + 0.5)
}

fn cell(p: glam::Vec2) -> Pos {
    Pos::new(p.x as u32, p.y as u32)
}

/// Runs groups of units (start cells, goal) until all arrive or `seconds` pass.
fn run(grid: &Grid, groups: &[(Vec<Pos>, Pos)], seconds: f32) -> Outcome {
    let fields: Vec<FlowField> =
        groups.iter().map(|(_, goal)| FlowField::dijkstra(grid, *goal, Rules::OCTILE).unwrap()).collect();
    let mut bodies = Vec::new();
    let mut group = Vec::new();
    for (g, (starts, _)) in groups.iter().enumerate() {
        for &s in starts {
            bodies.push(Body::new(center(s), RADIUS, SPEED));
            group.push(g);
        }
    }
    let n = bodies.len();
    let mut best = vec![f32::INFINITY; n];
    let mut stalled = vec![0.0_f32; n];
    let mut arrived_cells: HashMap<Pos, Vec<usize>> = HashMap::new();
    // Arrived units stand still but keep avoiding: they give way to units passing through.
    let mut done = vec![false; n];
    let mut avoidance = Avoidance::new(AvoidanceSettings::default());
    let mut quality = Quality::default();
    let mut velocities = Vec::new();
    let (mut time, mut arrived, mut last_arrival) = (0.0_f32, 0, 0.0_f32);
    while time < seconds && arrived < n {
        // Arrived units are pushed about by passers: where they stand now.
        arrived_cells.clear();
        for i in (0..n).filter(|&i| done[i]) {
            arrived_cells.entry(cell(bodies[i].position)).or_default().push(i);
        }
        for i in 0..n {
            if done[i] {
                bodies[i].preferred = glam::Vec2::ZERO;
                continue;
            }
            let g = group[i];
            let (field, goal) = (&fields[g], groups[g].1);
            let here = cell(bodies[i].position);
            let distance = field.distance(here).unwrap_or(f64::INFINITY) as f32;
            if distance < best[i] {
                best[i] = distance;
                stalled[i] = 0.0;
            } else {
                stalled[i] += SPEED * DT;
            }
            // Along the field's step, wherever in its cell the unit stands: a stream spreads over
            // the passage's width instead of queuing on cell centres.
            let target = if here == goal {
                center(goal)
            } else {
                step_aim(grid, bodies[i].position, RADIUS, here, field.next_step(here).unwrap())
            };
            let touches = stalled[i] >= STALL
                && (here.y.saturating_sub(1)..=here.y + 1)
                    .flat_map(|y| (here.x.saturating_sub(1)..=here.x + 1).map(move |x| Pos::new(x, y)))
                    .filter_map(|c| arrived_cells.get(&c))
                    .flatten()
                    .any(|&j| {
                        group[j] == g
                            && bodies[i].position.distance(bodies[j].position) <= 2.0 * RADIUS * TOUCH
                            && field.distance(cell(bodies[j].position)).unwrap_or(f64::INFINITY) as f32 + 1.5
                                >= distance
                    });
            if touches || bodies[i].position.distance(center(goal)) <= ARRIVE {
                done[i] = true;
                bodies[i].preferred = glam::Vec2::ZERO;
                arrived += 1;
                last_arrival = time;
                continue;
            }
            let towards = target - bodies[i].position;
            bodies[i].preferred = towards.normalize_or_zero() * SPEED.min(towards.length() / DT);
        }
        avoidance.step(&mut bodies, grid, DT, &mut velocities);
        quality.observe(&bodies, grid);
        time += DT;
    }
    let stuck = (0..n).filter(|&i| !done[i]).take(5).map(|i| bodies[i].position).collect();
    Outcome { units: n, arrived, last_arrival, quality, stuck }
}

fn check(name: &str, outcome: &Outcome) {
    let q = &outcome.quality;
    println!(
        "{name}: units={} arrived={} gap_ratio={:.3} wall_overlaps={} last_arrival_s={:.1} oscillation={:.2}%",
        outcome.units,
        outcome.arrived,
        q.gap_ratio,
        q.wall_overlaps,
        outcome.last_arrival,
        q.oscillation_percent()
    );
    assert_eq!(outcome.arrived, outcome.units, "{name}: not every unit arrived, e.g. {:?}", outcome.stuck);
    assert!(q.gap_ratio >= 0.98, "{name}: bodies overlapped: gap ratio {}", q.gap_ratio);
    assert_eq!(q.wall_overlaps, 0, "{name}: bodies overlapped walls");
}

/// Free cells of `grid` in the rectangle, row by row, at most `count`.
fn cells_in(grid: &Grid, (x0, y0, x1, y1): (u32, u32, u32, u32), count: usize) -> Vec<Pos> {
    (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| Pos::new(x, y)))
        .filter(|&p| grid.is_passable(p))
        .take(count)
        .collect()
}

/// Two rooms joined by a corridor 3 tiles wide and 40 long; 200 units in each room head for the
/// other room.
#[test]
fn two_groups_of_200_cross_head_on_in_a_3_tile_corridor() {
    let (w, h) = (100, 30);
    let mut grid = Grid::filled(w, h, Tile::FLOOR).unwrap();
    for x in 30..70 {
        for y in 0..h {
            if !(13..16).contains(&y) {
                grid.set_wall(Pos::new(x, y), true).unwrap();
            }
        }
    }
    let left = cells_in(&grid, (5, 5, 25, 25), 200);
    let right = cells_in(&grid, (75, 5, 95, 25), 200);
    let outcome = run(&grid, &[(left, Pos::new(85, 14)), (right, Pos::new(14, 14))], 900.0);
    check("corridor", &outcome);
}

/// A wall with a one-tile door; 1,000 units on one side head for a goal on the other.
#[test]
fn a_crowd_of_1000_squeezes_through_a_1_tile_door() {
    let (w, h) = (90, 60);
    let mut grid = Grid::filled(w, h, Tile::FLOOR).unwrap();
    for y in 0..h {
        if y != 30 {
            grid.set_wall(Pos::new(45, y), true).unwrap();
        }
    }
    let crowd = cells_in(&grid, (5, 5, 45, 60), 1000);
    assert_eq!(crowd.len(), 1000);
    let outcome = run(&grid, &[(crowd, Pos::new(70, 30))], 600.0);
    check("door", &outcome);
}

/// 10,000 units spread over a 256 × 256 map with scattered walls converge on its middle.
#[test]
fn ten_thousand_units_converge_on_one_goal() {
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
    let field = FlowField::dijkstra(&grid, Pos::new(128, 128), Rules::OCTILE).unwrap();
    let starts: Vec<Pos> = grid
        .positions()
        .filter(|&p| field.distance(p).is_some() && (p.x * 7 + p.y * 13) % 5 == 0)
        .step_by(1)
        .take(10_000)
        .collect();
    assert_eq!(starts.len(), 10_000);
    let outcome = run(&grid, &[(starts, Pos::new(128, 128))], 600.0);
    check("converge", &outcome);
}
