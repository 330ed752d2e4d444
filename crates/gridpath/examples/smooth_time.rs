//! Times the post-smoother (`gridpath::sight::Smoother`) against the JPS search whose paths it
//! pulls taut, on Moving AI scenario files: per map, JPS's mean CPU time per query and the
//! smoother's mean CPU time on JPS's path, each over `--runs` warm repetitions of the map's
//! first `--max-queries` queries, and their ratio (what `bench --any-angle`'s `sm/JPS` column
//! shows as `(JPS + smoothing) / JPS`). CPU time of the thread, not the wall clock: stable
//! enough on a shared machine to compare two builds of the smoother.
//!
//! ```sh
//! cargo run --release -p gridpath --example smooth_time -- ../../shared/benchmarks/movingai/*/*.scen
//! ```

use std::path::Path;
use std::time::Duration;

use gridpath::sight::Smoother;
use gridpath::{Pos, Rules, Searcher, Settings, formats};

/// CPU time of the calling thread.
#[expect(unsafe_code, reason = "std has no thread CPU clock; clock_gettime is the POSIX one")]
fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec for the call's duration.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut t) };
    Duration::new(u64::try_from(t.tv_sec).unwrap_or(0), u32::try_from(t.tv_nsec).unwrap_or(0))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (mut files, mut max_queries, mut runs) = (Vec::new(), 300usize, 5usize);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--max-queries" => max_queries = args.next().ok_or("--max-queries N")?.parse()?,
            "--runs" => runs = args.next().ok_or("--runs N")?.parse()?,
            _ => files.push(arg),
        }
    }
    let mut ratios = Vec::new();
    println!("{:<20} {:>6} {:>10} {:>10} {:>7}", "map", "n", "JPS us", "smooth us", "sm/JPS");
    for file in &files {
        let scen = formats::parse_scen(&std::fs::read_to_string(file)?)?;
        let map_path = formats::map_path_for_scen(Path::new(file));
        let grid = formats::load_map(&map_path)?.grid;
        let step = scen.len().div_ceil(max_queries).max(1);
        let queries: Vec<(Pos, Pos)> = scen.iter().step_by(step).map(|s| (s.start, s.goal)).collect();
        let settings = Settings::with_algorithm(gridpath::Algorithm::Jps);
        let mut searcher = Searcher::new();
        let mut paths = vec![Vec::new(); queries.len()];
        let mut smoother = Smoother::new();
        let (mut search, mut smooth) = (Duration::ZERO, Duration::ZERO);
        let mut vertices = 0usize;
        for _ in 0..runs {
            for (&(start, goal), path) in queries.iter().zip(&mut paths) {
                let began = thread_cpu();
                searcher.find_path_into(&grid, start, goal, &settings, path)?;
                search += thread_cpu() - began;
            }
            for path in &paths {
                let began = thread_cpu();
                vertices += smoother.smooth(&grid, path, Rules::OCTILE).len();
                smooth += thread_cpu() - began;
            }
        }
        std::hint::black_box(vertices);
        let n = (queries.len() * runs) as f64;
        let (jps, sm) = (search.as_secs_f64() * 1e6 / n, smooth.as_secs_f64() * 1e6 / n);
        let name = map_path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        println!("{name:<20} {:>6} {jps:>10.2} {sm:>10.2} {:>7.2}", queries.len(), (jps + sm) / jps);
        ratios.push((jps + sm) / jps);
    }
    ratios.sort_by(f64::total_cmp);
    if let Some(median) = ratios.get(ratios.len() / 2) {
        println!("median (JPS + smoothing) / JPS over {} maps: {median:.2}x", ratios.len());
    }
    Ok(())
}
