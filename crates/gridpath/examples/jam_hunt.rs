//! Hunts crowd jams (issue 22) on random scenes: each seed makes a map with one of the
//! generators (caves, rooms with one-tile corridors, noise, mazes 1–3 cells wide), one to
//! three goals (one where passages are one tile wide: see `crowd::random_scene`) and 30–300
//! units on distinct cells that reach their group's goal, then runs the crowd of
//! `tests/avoid.rs` (flow fields, ORCA, arrival on the goal or on touching an
//! arrived unit of the group within its ring, `gridpath::avoid::within_ring`) until every unit
//! arrived or `--seconds` of play passed. One line
//! per scene; scenes where units never arrived, overlapped beyond 2 % or touched a wall are
//! marked `JAM` / `BAD` with where a few of them stand.
//!
//! ```sh
//! cargo run --release -p gridpath --example jam_hunt                    # seeds 0..40
//! cargo run --release -p gridpath --example jam_hunt -- --from 40 --count 100 --seconds 300
//! ```

#[path = "../tests/crowd/mod.rs"]
mod crowd;

use crowd::{Crowd, random_scene};

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
        let Some((grid, groups, label)) = random_scene(seed) else { continue };
        let mut crowd = Crowd::new(&grid, &groups);
        let quality = crowd.run(&grid, seconds);
        let jam = !crowd.all_arrived();
        let overlap = quality.gap_ratio < 0.98 || quality.wall_overlaps > 0;
        bad += usize::from(jam || overlap);
        println!(
            "seed {seed:3} {label:14} groups={} {}{}{}",
            groups.len(),
            crowd.figures(&quality),
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
