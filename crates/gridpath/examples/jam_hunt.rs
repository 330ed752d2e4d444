//! Hunts crowd jams (issue 22) on random scenes: each seed makes a map with one of the
//! generators (caves, rooms with one-tile corridors, noise, mazes 1–3 cells wide), one to
//! three goals (one where passages are one tile wide: see `scene`), and 30–300 units on distinct cells that reach their group's goal, then runs
//! the crowd of `tests/avoid.rs` (flow fields, ORCA, arrival on the goal or on touching an
//! arrived unit of the group) until every unit arrived or `--seconds` of play passed. One line
//! per scene; scenes where units never arrived, overlapped beyond 2 % or touched a wall are
//! marked `JAM` / `BAD` with where a few of them stand.
//!
//! ```sh
//! cargo run --release -p gridpath --example jam_hunt                    # seeds 0..40
//! cargo run --release -p gridpath --example jam_hunt -- --from 40 --count 100 --seconds 300
//! ```

#[path = "../tests/crowd/mod.rs"]
mod crowd;

use crowd::Crowd;
use gridpath::avoid::{Avoidance, AvoidanceSettings, Quality};
use gridpath::generate::{Generator, generate};
use gridpath::{FlowField, Grid, Pos, Rules};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A scene: its map, its groups (start cells, goal) and what made it.
fn scene(seed: u64) -> Option<(Grid, Vec<(Vec<Pos>, Pos)>, String)> {
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
    let mut taken = std::collections::HashSet::new();
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: f32| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (from, count, seconds) =
        (arg("--from", 0.0) as u64, arg("--count", 40.0) as u64, arg("--seconds", 300.0));
    let mut bad = 0;
    for seed in from..from + count {
        let Some((grid, groups, label)) = scene(seed) else { continue };
        let mut crowd = Crowd::new(&grid, &groups);
        let mut avoidance = Avoidance::new(AvoidanceSettings::default());
        let (mut quality, mut velocities) = (Quality::default(), Vec::new());
        while crowd.time < seconds && !crowd.all_arrived() {
            crowd.wish(&grid);
            avoidance.step(&mut crowd.bodies, &grid, crowd::DT, &mut velocities);
            quality.observe(&crowd.bodies, &grid);
            crowd.time += crowd::DT;
        }
        let jam = !crowd.all_arrived();
        let overlap = quality.gap_ratio < 0.98 || quality.wall_overlaps > 0;
        bad += usize::from(jam || overlap);
        println!(
            "seed {seed:3} {label:14} groups={} units={} arrived={} last_arrival_s={:.1} gap_ratio={:.3} walls={} osc={:.2}%{}{}",
            groups.len(),
            crowd.bodies.len(),
            crowd.arrived,
            crowd.last_arrival,
            quality.gap_ratio,
            quality.wall_overlaps,
            quality.oscillation_percent(),
            if jam { format!(" JAM at {:?}", crowd.stuck()) } else { String::new() },
            if overlap { " BAD" } else { "" },
        );
        if jam && args.iter().any(|a| a == "--detail") {
            for line in crowd.describe_stuck(6) {
                println!("    {line}");
            }
            if args.iter().any(|a| a == "--map") {
                println!("{}", gridpath::formats::write_ascii(&grid, None, None));
            }
        }
    }
    if args.iter().any(|a| a == "--detail") {
        println!("(rerun one seed with --from N --count 1 --detail for the stuck units)");
    }
    println!("{bad} of {count} scenes jammed or overlapped");
}
