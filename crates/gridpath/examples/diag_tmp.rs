#[path = "../tests/crowd/mod.rs"]
mod crowd;
use crowd::Crowd;
use gridpath::avoid::{Avoidance, AvoidanceSettings};
use gridpath::generate::{Generator, generate};
use gridpath::{FlowField, Pos, Rules};
fn main() {
    let side: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(128);
    let n: usize = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(4000);
    let grid = generate(Generator::Rooms, side, side, 3).unwrap();
    let open: Vec<Pos> = grid.positions().filter(|&p| grid.is_passable(p)).collect();
    let goal = open[open.len() / 2];
    let field = FlowField::dijkstra(&grid, goal, Rules::OCTILE).unwrap();
    let reach: Vec<Pos> = open.iter().copied().filter(|&p| p != goal && field.distance(p).is_some()).collect();
    let step = (reach.len() / n).max(1);
    let starts: Vec<Pos> = reach.iter().copied().step_by(step).take(n).collect();
    let mut crowd = Crowd::new(&grid, &[(starts, goal)]);
    let mut avoidance = Avoidance::new(AvoidanceSettings::default());
    let mut v = Vec::new();
    let mut next = 30.0;
    while crowd.time < 600.0 && !crowd.all_arrived() {
        crowd.wish(&grid);
        avoidance.step(&mut crowd.bodies, &grid, crowd::DT, &mut v);
        crowd.time += crowd::DT;
        if crowd.time >= next { println!("t={next} arrived={} last={:.1}", crowd.arrived, crowd.last_arrival); next += 30.0; }
    }
    println!("goal {goal:?} units={} arrived={} last={:.1}", crowd.bodies.len(), crowd.arrived, crowd.last_arrival);
    for line in crowd.describe_stuck(5) { println!("  {}", &line[..line.len().min(600)]); }
    println!("{}", gridpath::formats::write_ascii(&grid, None, Some(goal)));
}
