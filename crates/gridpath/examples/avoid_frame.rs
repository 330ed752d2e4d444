//! Times local avoidance (`gridpath::avoid`) phase by phase on the converge scene of
//! `tests/avoid.rs`: 10,000 units on a 256 × 256 map with scattered walls, one flow field to
//! the middle, run frame by frame (1/60 s) until every unit arrived or `--frames` frames
//! (36,000: ten minutes, the tests' bound).
//!
//! ```sh
//! cargo run --release -p gridpath --example avoid_frame               # the whole run
//! cargo run --release -p gridpath --example avoid_frame -- --frames 600 --shuffled
//! cargo run --release -p gridpath --example avoid_frame -- --shuffled --seed 3
//! cargo run --release -p gridpath --example avoid_frame -- --shuffled --plan-every 3
//! cargo run --release -p gridpath --example avoid_frame -- --shuffled --calm-every 2
//! ```
//!
//! Per frame: `prepare` (bucketing), `velocities` on one thread and again split over two
//! `std::thread::scope` threads in chunks of at least 512 bodies in bucket order (as the game splits them on
//! its compute pool; both must agree), `advance` (integrate and the positional pass) on one
//! thread and again with its two per-body phases split over two threads (both must agree), and
//! `frame`, their sum with the two-thread velocities. Printed: median, 95th percentile and
//! mean per phase in milliseconds, of the thread's CPU time (for two threads the busier
//! thread's: what the wall clock shows on two idle cores) and of the wall clock, and when the
//! last unit arrived, with a fingerprint of the final state (bit for bit: a change meant to
//! move no body must leave it as it was) and where units that did not arrive stand.
//! `--shuffled` puts the units in a scattered order, as the game's spawn order is (neighbours
//! far apart in memory); `--seed N` another such order (units jam at wall corners in some
//! orders and not in others); `--plan-every N` plans each body every N frames
//! (`AvoidanceSettings::plan_every`, 2 by default); `--calm-every N` plans a body whose last
//! plan gave it its preferred velocity every N frames (`AvoidanceSettings::calm_every`, 4 by
//! default; 2 turns it off). The machine may be shared: compare builds by the CPU columns
//! and by alternating runs.

#[path = "../tests/crowd/mod.rs"]
mod crowd;

use std::time::{Duration, Instant};

use glam::Vec2;
use gridpath::avoid::{Avoidance, AvoidanceSettings};

/// Bodies each thread of the velocity pass takes, at least (the game's `AVOID_CHUNK`).
const CHUNK: usize = 512;
/// Threads the velocity pass is split over (the game's compute pool on 2 cores).
const THREADS: usize = 2;
/// Frames per line of the cost's course over the run.
const WINDOW: usize = 300;

/// CPU time of the calling thread: unlike the wall clock, it does not count the time other
/// processes on a shared machine held the core.
#[expect(unsafe_code, reason = "std has no thread CPU clock; clock_gettime is the POSIX one")]
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the call's duration.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut t) };
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

/// Wall and CPU time of one phase.
fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration, Duration) {
    let (wall, cpu) = (Instant::now(), thread_cpu());
    let out = work();
    (out, wall.elapsed(), thread_cpu() - cpu)
}

/// Runs `work` on `items` in chunks of `chunk`, one thread each (`work` gets the chunk's first
/// index); returns the busiest thread's CPU time.
fn on_threads<T: Send>(items: &mut [T], chunk: usize, work: impl Fn(usize, &mut [T]) + Sync) -> Duration {
    let work = &work;
    std::thread::scope(|scope| {
        let tasks: Vec<_> = items
            .chunks_mut(chunk)
            .enumerate()
            .map(|(k, out)| scope.spawn(move || timed(|| work(k * chunk, out)).2))
            .collect();
        tasks.into_iter().map(|t| t.join().unwrap()).max().unwrap_or_default()
    })
}

/// A hash of every body's final position and velocity, bit for bit: a change that claims to
/// leave the simulation exactly as it was must leave it unchanged.
fn fingerprint(bodies: &[gridpath::avoid::Body]) -> u64 {
    bodies
        .iter()
        .flat_map(|b| [b.position.x, b.position.y, b.velocity.x, b.velocity.y])
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, v| (h ^ u64::from(v.to_bits())).wrapping_mul(0x0100_0000_01b3))
}

/// A fixed pseudo-random permutation of `items` for each `seed` (Fisher-Yates on a 64-bit LCG).
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64 ^ seed;
    for i in (1..items.len()).rev() {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        items.swap(i, ((state >> 33) % (i as u64 + 1)) as usize);
    }
}

fn main() {
    let mut frames = 36_000;
    let mut shuffled = false;
    let mut seed = 0;
    let mut settings = AvoidanceSettings::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--frames" => frames = args.next().and_then(|v| v.parse().ok()).unwrap_or(frames),
            "--shuffled" => shuffled = true,
            "--seed" => seed = args.next().and_then(|v| v.parse().ok()).unwrap_or(seed),
            "--plan-every" => {
                settings.plan_every = args.next().and_then(|v| v.parse().ok()).unwrap_or(settings.plan_every);
            }
            "--calm-every" => {
                settings.calm_every = args.next().and_then(|v| v.parse().ok()).unwrap_or(settings.calm_every);
            }
            _ => {
                eprintln!(
                    "usage: avoid_frame [--frames N] [--shuffled [--seed N]] [--plan-every N] [--calm-every N]"
                );
                std::process::exit(2);
            }
        }
    }
    let (grid, mut groups) = crowd::converge();
    if shuffled {
        // The game's units come in spawn order, scattered over the map, not row by row.
        shuffle(&mut groups[0].0, seed);
    }
    let mut crowd = crowd::Crowd::new(&grid, &groups);
    let mut avoidance = Avoidance::new(settings);
    let n = crowd.bodies.len();
    let (mut single, mut split, mut positions) = (vec![Vec2::ZERO; n], vec![Vec2::ZERO; n], Vec::new());
    let names = [
        "prepare",
        "velocities 1 thread",
        "velocities 2 threads",
        "advance 1 thread",
        "advance 2 threads",
        "frame (2 threads)",
    ];
    // Per phase: wall times, CPU times (for two threads, the busier thread's).
    let mut wall: [Vec<Duration>; 6] = Default::default();
    let mut cpu: [Vec<Duration>; 6] = Default::default();
    let (mut split_positions, mut flags) = (Vec::new(), vec![false; n]);
    let mut by_slot = vec![Vec2::ZERO; n];
    let dt = crowd::DT;
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut frame = 0;
    while frame < frames && !crowd.all_arrived() {
        crowd.wish(&grid);
        let bodies = &crowd.bodies;
        let ((), prepare_wall, prepare_cpu) = timed(|| avoidance.prepare(bodies, &grid));
        let ((), single_wall, single_cpu) = timed(|| avoidance.velocities(bodies, &grid, dt, 0, &mut single));
        let chunk = n.div_ceil(THREADS).max(CHUNK);
        let avoidance_ref = &avoidance;
        let wall_split = Instant::now();
        // By slot, as the game's compute pool plans them: each thread a run of neighbours.
        let split_cpu = on_threads(&mut by_slot, chunk, |first, out| {
            avoidance_ref.velocities_by_slot(bodies, &grid, dt, first, out);
        });
        avoidance.in_body_order(&by_slot, &mut split);
        let split_wall = wall_split.elapsed();
        let ((), advance_wall, advance_cpu) =
            timed(|| avoidance.advance(bodies, &grid, dt, &split, &mut positions));
        assert_eq!(single, split, "frame {frame}: the split velocities differ");
        // The positional pass as the game splits it: the two per-body phases on two threads.
        let wall_advance = Instant::now();
        avoidance.integrate(bodies, dt, &split, &mut split_positions);
        let (avoidance_ref, positions_ref) = (&avoidance, &split_positions);
        let first_cpu = on_threads(&mut flags, chunk, |first, out| {
            avoidance_ref.overlapping(bodies, &grid, positions_ref, first, out);
        });
        let ((), _, rounds_cpu) =
            timed(|| avoidance.separate_overlapping(bodies, &grid, &mut split_positions, &flags));
        let avoidance_ref = &avoidance;
        let last_cpu = on_threads(&mut split_positions, chunk, |first, out| {
            avoidance_ref.settle(bodies, &grid, first, out);
        });
        let advance2_wall = wall_advance.elapsed();
        let advance2_cpu = first_cpu + rounds_cpu + last_cpu;
        assert_eq!(positions, split_positions, "frame {frame}: the split positional pass differs");
        let walls = [
            prepare_wall,
            single_wall,
            split_wall,
            advance_wall,
            advance2_wall,
            prepare_wall + split_wall + advance2_wall,
        ];
        let cpus = [
            prepare_cpu,
            single_cpu,
            split_cpu,
            advance_cpu,
            advance2_cpu,
            prepare_cpu + split_cpu + advance2_cpu,
        ];
        for k in 0..names.len() {
            wall[k].push(walls[k]);
            cpu[k].push(cpus[k]);
        }
        avoidance.move_bodies(&mut crowd.bodies, &positions, &split, dt);
        crowd.time += dt;
        frame += 1;
        if frame % WINDOW == 0 {
            // How the cost moves as the crowd packs round the goal.
            let mean =
                |phase: &[Duration]| ms(phase[frame - WINDOW..].iter().sum::<Duration>()) / WINDOW as f64;
            println!(
                "  frames {:>4}..{frame:<4} arrived {:>5}: cpu mean ms velocities 1 thread {:.3}, advance 1 thread {:.3}",
                frame - WINDOW,
                crowd.arrived,
                mean(&cpu[1]),
                mean(&cpu[3])
            );
        }
    }
    println!(
        "avoid_frame converge{}: units={n} frames={frame} arrived={} last_arrival_s={:.1} state={:016x}",
        if shuffled { format!(" (shuffled, seed {seed})") } else { String::new() },
        crowd.arrived,
        crowd.last_arrival,
        fingerprint(&crowd.bodies)
    );
    if !crowd.all_arrived() {
        println!("not arrived, e.g. at {:?}", crowd.stuck());
    }
    println!(
        "{:<22} {:>8} {:>8} {:>8}   {:>8} {:>8} {:>8}",
        "ms", "cpu med", "p95", "mean", "wall med", "p95", "mean"
    );
    let stats = |phase: &mut Vec<Duration>| {
        phase.sort_unstable();
        let at = |q: f64| ms(phase[((phase.len() - 1) as f64 * q).round() as usize]);
        (at(0.5), at(0.95), ms(phase.iter().sum::<Duration>()) / phase.len() as f64)
    };
    for (k, name) in names.iter().enumerate() {
        let (c, w) = (stats(&mut cpu[k]), stats(&mut wall[k]));
        println!(
            "{name:<22} {:>8.3} {:>8.3} {:>8.3}   {:>8.3} {:>8.3} {:>8.3}",
            c.0, c.1, c.2, w.0, w.1, w.2
        );
    }
}
