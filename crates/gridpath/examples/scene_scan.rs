//! Scans families of crowd scenes (issue 22) around the three of `tests/avoid.rs`, with the
//! harness's crowd (`tests/crowd/mod.rs`: flow fields, ORCA, arrival rings): the tests pin one
//! scene each, this shows where a family stops working. One line per scene: units, arrivals,
//! the last arrival, the quality figures, how far the first group's units end from its goal on
//! average (a ring shoved along ends far from it), and `FAIL` with why where a unit never
//! arrived, bodies overlapped beyond 2 % or one touched a wall.
//!
//! - `corridor`: two groups head-on through a corridor 2–5 tiles wide and 40 long, 100–300 a side.
//! - `door`: 500–1,500 units through a door 1–3 tiles wide, in the middle of the wall or near
//!   its end.
//! - `ring`: a group's arrival ring (30–80 units) in a corridor 2 or 3 tiles wide, and 10–40
//!   units of another group passing through it to the corridor's dead end.
//!
//! ```sh
//! cargo run --release -p gridpath --example scene_scan -- ring     # or: corridor, door (minutes)
//! ```

#[path = "../tests/crowd/mod.rs"]
mod crowd;

use crowd::{Crowd, cells_in, center, grid_where};
use gridpath::{Grid, Pos};

/// Runs `groups` (start cells, goal) on `grid` for at most `seconds` of play and prints the line.
fn run(name: &str, grid: &Grid, groups: &[(Vec<Pos>, Pos)], seconds: f32) {
    let mut crowd = Crowd::new(grid, groups);
    let quality = crowd.run(grid, seconds);
    let mut bad = Vec::new();
    if !crowd.all_arrived() {
        bad.push(format!("stuck at {:?}", crowd.stuck()));
    }
    if quality.gap_ratio < 0.98 {
        bad.push("overlapped".to_owned());
    }
    if quality.wall_overlaps > 0 {
        bad.push("in a wall".to_owned());
    }
    // The first group's units: how far from its goal they end, on average.
    let (first, goal) = (groups[0].0.len(), center(groups[0].1));
    #[expect(clippy::cast_precision_loss, reason = "a count of units")]
    let from_goal =
        crowd.bodies[..first].iter().map(|b| b.position.distance(goal)).sum::<f32>() / first as f32;
    println!(
        "{name}: {} first_group_from_goal={from_goal:.1}{}",
        crowd.figures(&quality),
        if bad.is_empty() { String::new() } else { format!("  FAIL: {}", bad.join(", ")) },
    );
}

/// Two rooms joined by a corridor `width` tiles wide and 40 long, `count` units in each room
/// bound for the other.
fn corridors() {
    for width in 2..=5 {
        for count in [100, 200, 300] {
            let top = 15 - width / 2;
            let grid = grid_where(100, 30, |x, y| (30..70).contains(&x) && !(top..top + width).contains(&y));
            let left = cells_in(&grid, (5, 2, 25, 28), count);
            let right = cells_in(&grid, (75, 2, 95, 28), count);
            let groups = [(left, Pos::new(85, 14)), (right, Pos::new(14, 14))];
            run(&format!("corridor width={width} per_side={count}"), &grid, &groups, 900.0);
        }
    }
}

/// A wall with a door `width` tiles wide from row `at`, `count` units on one side bound for a
/// goal on the other.
fn doors() {
    for (width, count, at) in [(1, 500, 30), (1, 1000, 10), (2, 1000, 30), (3, 1500, 30)] {
        let grid = grid_where(90, 60, |x, y| x == 45 && !(at..at + width).contains(&y));
        let crowd = cells_in(&grid, (5, 1, 45, 60), count);
        run(
            &format!("door width={width} units={count} at_row={at}"),
            &grid,
            &[(crowd, Pos::new(70, 30))],
            2400.0,
        );
    }
}

/// A corridor `width` tiles wide and 160 long: `ring` units gather round a goal in its middle,
/// and `passers` from its left end, bound for a tile short of its right end (a dead end), must
/// get through.
fn rings() {
    for (ring, passers, width) in
        [(30, 10, 2), (45, 10, 2), (60, 10, 2), (30, 40, 2), (60, 40, 3), (80, 20, 2)]
    {
        let grid = grid_where(160, width + 2, |_, y| y == 0 || y == width + 1);
        let arrived = cells_in(&grid, (60, 1, 100, width + 1), ring);
        let passing = cells_in(&grid, (1, 1, 25, width + 1), passers);
        let groups = [(arrived, Pos::new(80, 1)), (passing, Pos::new(158, 1))];
        run(&format!("ring units={ring} passers={passers} width={width}"), &grid, &groups, 600.0);
    }
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("corridor") => corridors(),
        Some("door") => doors(),
        Some("ring") => rings(),
        _ => eprintln!("scene_scan: name a family: corridor, door or ring"),
    }
}
