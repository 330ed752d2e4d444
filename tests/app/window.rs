//! The real binary in a real window under Xvfb (Mesa's software Vulkan): `tests/window.sh` plays
//! the scripts in `tests/scripts/` and saves screenshots, each with the layout JSON the game
//! writes beside it (`tilepath::dev::script::Layout`: where cell (0, 0) is in the image, how
//! many pixels a cell is, the units, the named UI boxes), so the checks here need no knowledge
//! of the camera. `TILEPATH_WINDOW_SHOTS=DIR` checks the screenshots already in DIR instead of
//! running the game again.

use std::path::{Path, PathBuf};
use std::process::Command;

use image::RgbImage;
use tilepath::dev::script::Layout;

#[test]
fn scripted_run_in_a_real_window_passes_the_pixel_checks() {
    let out = match std::env::var_os("TILEPATH_WINDOW_SHOTS") {
        Some(dir) => PathBuf::from(dir),
        None => match run_window_scripts() {
            Some(out) => out,
            None => return,
        },
    };
    let mut checks = Checks::default();
    check_demo(&mut checks, &out);
    check_lab(&mut checks, &out);
    check_crowd(&mut checks, &out);
    check_maps(&mut checks, &out);
    check_fit(&mut checks, &out);
    assert!(
        checks.failed.is_empty(),
        "{} screenshot checks failed in {}:\n{}",
        checks.failed.len(),
        out.display(),
        checks.failed.join("\n")
    );
    if std::env::var_os("TILEPATH_WINDOW_SHOTS").is_none() {
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// Runs tests/window.sh into a fresh folder; `None` when Xvfb is missing outside CI.
fn run_window_scripts() -> Option<PathBuf> {
    let have_xvfb =
        Command::new("sh").args(["-c", "command -v xvfb-run"]).output().is_ok_and(|o| o.status.success());
    if !have_xvfb {
        // CI installs Xvfb (.ci/run), so there a missing one is a failure, not a skip.
        assert!(std::env::var_os("CI").is_none(), "xvfb-run is missing: .ci/run should have installed it");
        eprintln!("skipped: xvfb-run is not installed (see docs/manual.md: the real-window test)");
        return None;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("tilepath-window-{}", std::process::id()));
    let status = Command::new("bash")
        .arg(repo.join("tests/window.sh"))
        .arg(&out)
        .env("TILEPATH_BIN", env!("CARGO_BIN_EXE_tilepath"))
        .status()
        .expect("bash runs tests/window.sh");
    assert!(status.success(), "the window scripts failed: see their output above and {}", out.display());
    Some(out)
}

/// Every check's outcome, printed as it is made; the test fails at the end with all failures.
#[derive(Default)]
struct Checks {
    failed: Vec<String>,
}

impl Checks {
    fn check(&mut self, ok: bool, message: impl Into<String>) {
        let message = message.into();
        println!("{} {message}", if ok { "ok  " } else { "FAIL" });
        if !ok {
            self.failed.push(message);
        }
    }
}

/// A screenshot and its layout.
struct Shot {
    image: RgbImage,
    layout: Layout,
}

type Rgb = [f32; 3];

impl Shot {
    fn open(path: &Path) -> Shot {
        let image = image::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).to_rgb8();
        let json_path = path.with_extension("json");
        let json =
            std::fs::read_to_string(&json_path).unwrap_or_else(|e| panic!("{}: {e}", json_path.display()));
        let layout = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{}: {e}", json_path.display()));
        Shot { image, layout }
    }

    fn size(&self) -> (u32, u32) {
        self.image.dimensions()
    }

    fn centre(&self, cell: (u32, u32)) -> (f32, f32) {
        let [x0, y0] = self.layout.cell0_center;
        let step = self.layout.cell_pixels;
        (x0 + cell.0 as f32 * step, y0 + cell.1 as f32 * step)
    }

    fn pixel(&self, x: i64, y: i64) -> Option<Rgb> {
        let (width, height) = self.size();
        let inside = (0..i64::from(width)).contains(&x) && (0..i64::from(height)).contains(&y);
        inside.then(|| self.image.get_pixel(x as u32, y as u32).0.map(f32::from))
    }

    /// The pixels of the box from `(left, top)` to `(right, bottom)` (rounded), clipped to the image.
    fn pixels_in(&self, left: f32, top: f32, right: f32, bottom: f32) -> Vec<Rgb> {
        let (left, top, right, bottom) =
            (left.round() as i64, top.round() as i64, right.round() as i64, bottom.round() as i64);
        (top..bottom).flat_map(|y| (left..right).filter_map(move |x| self.pixel(x, y))).collect()
    }

    /// Pixels in the middle `fraction` of a cell's box.
    fn pixels(&self, cell: (u32, u32), fraction: f32) -> Vec<Rgb> {
        let (cx, cy) = self.centre(cell);
        let half = self.layout.cell_pixels * fraction / 2.0;
        self.pixels_in(cx - half, cy - half, cx + half, cy + half)
    }

    fn mean(&self, cell: (u32, u32), fraction: f32) -> Rgb {
        mean(&self.pixels(cell, fraction))
    }

    /// Mean colour of a small box in a cell's top-left corner, clear of centred text.
    fn corner_mean(&self, cell: (u32, u32)) -> Rgb {
        let (cx, cy) = self.centre(cell);
        let step = self.layout.cell_pixels;
        let (x0, y0) = ((cx - step * 0.42).trunc(), (cy - step * 0.42).trunc());
        let size = (step * 0.12).trunc().max(1.0);
        mean(&self.pixels_in(x0, y0, x0 + size, y0 + size))
    }

    /// The named UI boxes whose name starts with `prefix`.
    fn ui(&self, prefix: &str) -> Vec<(String, [f32; 4])> {
        self.layout
            .ui
            .iter()
            .filter(|b| b.name.starts_with(prefix))
            .map(|b| (b.name.clone(), b.rect))
            .collect()
    }

    fn inside(&self, [left, top, right, bottom]: [f32; 4]) -> bool {
        let (width, height) = self.size();
        left >= -0.5 && top >= -0.5 && right <= width as f32 + 0.5 && bottom <= height as f32 + 0.5
    }

    /// Whether the rectangle holds both a dark box background and bright glyph pixels.
    fn has_text(&self, [left, top, right, bottom]: [f32; 4]) -> bool {
        let px = self.pixels_in(left, top, right, bottom);
        let max = |p: &Rgb| p[0].max(p[1]).max(p[2]);
        px.iter().filter(|p| max(p) > 100.0).count() > 10 && px.iter().filter(|p| max(p) < 60.0).count() > 10
    }
}

fn mean(pixels: &[Rgb]) -> Rgb {
    if pixels.is_empty() {
        return [0.0; 3];
    }
    let n = pixels.len() as f32;
    [0, 1, 2].map(|i| pixels.iter().map(|p| p[i]).sum::<f32>() / n)
}

fn share(pixels: &[Rgb], test: fn(Rgb) -> bool) -> f32 {
    pixels.iter().filter(|&&p| test(p)).count() as f32 / pixels.len().max(1) as f32
}

/// The amber dot of the path tile (#f2a93b).
fn is_path([r, g, b]: Rgb) -> bool {
    r > 200.0 && g > 130.0 && g < 200.0 && b < 110.0
}

/// Slate brick (#3b4250).
fn is_wall([r, g, b]: Rgb) -> bool {
    r.max(g).max(b) < 110.0 && b >= r
}

/// The lab unit's violet shell (#9b5de5).
fn is_unit([r, g, b]: Rgb) -> bool {
    r > 110.0 && r < 200.0 && g < 140.0 && b > 180.0
}

/// The green start marker (#2fb36b).
fn is_start([r, g, b]: Rgb) -> bool {
    g > 140.0 && r < 110.0 && b < 150.0
}

/// The goal end of the heat scale: yellow.
fn is_heat_near([r, g, b]: Rgb) -> bool {
    r > 180.0 && g > 170.0 && b < 120.0
}

/// The far end of the heat scale: slate blue.
fn is_heat_far([r, _, b]: Rgb) -> bool {
    b > r + 20.0 && r < 130.0
}

fn cell(c: [u32; 2]) -> (u32, u32) {
    (c[0], c[1])
}

/// tests/scripts/demo.txt on assets/maps/default.map: the script walls off the upper gap of the
/// first long wall at (13, 9), so the route must use the lower gap (13, 22), and the goal
/// room's only door is (31, 25).
fn check_demo(checks: &mut Checks, out: &Path) {
    const PATH_CELLS: [(u32, u32); 2] = [(13, 22), (31, 25)];
    const WALL_CELLS: [(u32, u32); 3] = [(13, 9), (6, 24), (2, 24)];
    const START: (u32, u32) = (4, 20); // placed with the S key
    const GOAL: (u32, u32) = (37, 24); // the goal marker was dragged here
    let shot = Shot::open(&out.join("demo.png"));
    let layout = &shot.layout;
    checks.check(
        (layout.map.width, layout.map.height) == (40, 30),
        format!("the built-in 40x30 map is shown: {:?}", layout.map),
    );
    checks.check(layout.cell_pixels > 8.0, format!("cells are visible ({:.1} px each)", layout.cell_pixels));
    checks.check(cell(layout.start) == START, format!("S put the start at {START:?}: {:?}", layout.start));
    checks.check(
        cell(layout.goal) == GOAL,
        format!("the goal marker was dragged to {GOAL:?}: {:?}", layout.goal),
    );
    let arrived =
        layout.units.len() == 1 && layout.units[0].status == "arrived" && cell(layout.units[0].cell) == GOAL;
    checks.check(arrived, format!("the unit arrived at the goal: {:?}", layout.units));
    for c in PATH_CELLS {
        let rgb = shot.mean(c, 0.15);
        checks.check(is_path(rgb), format!("path tint at {c:?}: rgb {rgb:?}"));
    }
    for c in WALL_CELLS {
        let rgb = shot.mean(c, 0.5);
        checks.check(is_wall(rgb), format!("painted wall at {c:?}: rgb {rgb:?}"));
    }
    let unit = share(&shot.pixels(GOAL, 0.9), is_unit);
    checks
        .check(unit > 0.2, format!("the unit is drawn on the goal cell ({:.0}% unit violet)", unit * 100.0));
    let start = share(&shot.pixels(START, 0.9), is_start);
    checks
        .check(start > 0.2, format!("the start marker is drawn at {START:?} ({:.0}% green)", start * 100.0));
}

/// The search lab (search.txt, tutorial.txt): the replay paused mid-way, the race table, the
/// flow-field views.
fn check_lab(checks: &mut Checks, out: &Path) {
    let anim = Shot::open(&out.join("animation.png"));
    let a = anim.layout.animation;
    checks.check(
        0 < a.applied && a.applied < a.total && a.paused,
        format!("the replay is paused mid-way: {a:?}"),
    );
    let banner = anim.ui("Replay banner");
    let shown = banner.len() == 1 && anim.inside(banner[0].1) && anim.has_text(banner[0].1);
    checks.check(shown, format!("the pause is shown over the map: {banner:?}"));
    let units = &anim.layout.units;
    let waits = units.len() == 1 && units[0].cell == anim.layout.start;
    checks.check(waits, format!("the unit waits on the start during the replay: {units:?}"));

    let race = Shot::open(&out.join("race.png"));
    checks.check(race.layout.race_rows == 8, format!("the race table has 8 rows: {}", race.layout.race_rows));
    checks.check(
        race.layout.animation.applied == race.layout.animation.total,
        "Esc skipped the replay to its end",
    );

    let flow = Shot::open(&out.join("flow.png"));
    checks.check(flow.layout.flow_field, "the flow-field view is on");
    // (2, 20), not (2, 28): that one is under the notices.
    let (near, far) = (flow.mean((35, 26), 0.3), flow.mean((2, 20), 0.3));
    checks.check(is_heat_near(near), format!("heat next to the goal is yellow: rgb {near:?}"));
    checks.check(is_heat_far(far), format!("heat far from the goal is blue: rgb {far:?}"));

    let tutorial = Shot::open(&out.join("tutorial-flow.png"));
    let map = tutorial.layout.map;
    checks.check((map.width, map.height) == (10, 10), format!("the tutorial map is shown: {map:?}"));
    checks.check(
        tutorial.layout.cell_pixels > 40.0,
        format!("its cells fit numbers ({:.1} px)", tutorial.layout.cell_pixels),
    );
    let near = tutorial.corner_mean((6, 4));
    checks.check(is_heat_near(near), format!("heat next to the tutorial's goal is yellow: rgb {near:?}"));
}

/// crowd.txt: brushes painted terrain, 300 units walk to the goal.
fn check_crowd(checks: &mut Checks, out: &Path) {
    let shot = Shot::open(&out.join("crowd.png"));
    let units = &shot.layout.units;
    checks.check(units.len() == 301, format!("the lab unit plus 3 x 100 spawned units: {}", units.len()));
    let routed = units.iter().all(|u| u.status == "walking" || u.status == "arrived");
    checks.check(routed, "every unit has a route");
    let (mud, grass, water) = (shot.mean((20, 19), 0.5), shot.mean((30, 2), 0.5), shot.mean((5, 24), 0.5));
    let sum = |c: Rgb| c[0] + c[1] + c[2];
    checks.check(mud[1] > mud[2] + 20.0 && sum(mud) < 450.0, format!("mud painted at (20, 19): {mud:?}"));
    let green = grass[1] > grass[0] + 30.0 && grass[1] > grass[2] + 30.0 && sum(grass) >= 400.0;
    checks.check(green, format!("grass at (30, 2): {grass:?}"));
    // The shallows brush: pale, never the deep blue of the maps' water class.
    checks.check(
        sum(water) > 520.0 && water[2] < water[0] + 40.0,
        format!("shallows painted at (5, 24), pale: {water:?}"),
    );
    // Crowded units overlap and the lab unit may cover one: look a few pixels around the centre.
    let sprite_near = |pixel: [f32; 2]| {
        let (cx, cy) = (pixel[0].round(), pixel[1].round());
        shot.pixels_in(cx - 4.0, cy - 4.0, cx + 5.0, cy + 5.0)
            .iter()
            .any(|p| p[2] > p[0] + 60.0 && p[2] > p[1] + 60.0)
    };
    let drawn = units[1..].iter().filter(|u| sprite_near(u.pixel)).count();
    let enough = drawn as f32 >= 0.75 * (units.len() - 1) as f32;
    checks.check(enough, format!("crowd sprites are drawn where the units are: {drawn}/{}", units.len() - 1));
}

/// maps.txt: `]` opened the tutorial map, Shift+R a maze.
fn check_maps(checks: &mut Checks, out: &Path) {
    let next = Shot::open(&out.join("maps-next.png"));
    let map = next.layout.map;
    checks.check((map.width, map.height) == (10, 10), format!("] opened the 10x10 tutorial map: {map:?}"));
    checks.check(
        next.layout.start == [1, 1],
        format!("with its own start S at (1, 1): {:?}", next.layout.start),
    );
    // The tutorial's walls (assets/maps/tutorial.txt).
    for c in [(4, 1), (4, 5), (5, 6)] {
        let rgb = next.mean(c, 0.5);
        checks.check(is_wall(rgb), format!("tutorial wall drawn at {c:?}: rgb {rgb:?}"));
    }
    let rgb = next.mean((0, 9), 0.5);
    checks.check(!is_wall(rgb), format!("tutorial floor at (0, 9): rgb {rgb:?}"));

    let maze = Shot::open(&out.join("maze.png"));
    let map = maze.layout.map;
    checks
        .check((map.width, map.height) == (40, 30), format!("the maze has the built-in map's size: {map:?}"));
    // Corridors one cell wide on a pitch of two: where two wall lines cross, (odd, odd), is
    // always wall; the maze's cells, (even, even), are always open.
    let crossings: Vec<(u32, u32)> =
        (1..39).step_by(6).flat_map(|x| (1..29).step_by(6).map(move |y| (x, y))).collect();
    let walls = crossings.iter().filter(|&&c| is_wall(maze.mean(c, 0.5))).count();
    checks.check(
        walls == crossings.len(),
        format!("maze wall crossings drawn as walls: {walls}/{}", crossings.len()),
    );
    let rooms: Vec<(u32, u32)> =
        (0..38).step_by(6).flat_map(|x| (0..28).step_by(6).map(move |y| (x, y))).collect();
    let open = rooms.iter().filter(|&&c| !is_wall(maze.mean(c, 0.5))).count();
    checks.check(open == rooms.len(), format!("maze cells drawn open: {open}/{}", rooms.len()));
    checks.check(
        maze.layout.path.len() > 20,
        format!("a route through the maze was planned: {} cells", maze.layout.path.len()),
    );
}

/// fit.txt: at 1280x720 and 1024x600 the race table's last line, a notice, the panel's last row
/// and the help overlay's last line all lie inside the window, and are drawn.
fn check_fit(checks: &mut Checks, out: &Path) {
    for (size, width, height) in [("1280", 1280, 720), ("1024", 1024, 600)] {
        let race = Shot::open(&out.join(format!("fit-race-{size}.png")));
        checks.check(
            race.size() == (width, height),
            format!("the window is {width}x{height}: {:?}", race.size()),
        );
        let mut lines = race.ui("Race line ");
        lines.sort_by_key(|(name, _)| name.rsplit(' ').next().and_then(|n| n.parse::<u32>().ok()));
        checks.check(
            lines.len() == 10,
            format!("{size}: the race table has its header, 8 rows and the footer: {} lines", lines.len()),
        );
        if let [.., (_, row), (_, last)] = lines.as_slice() {
            checks.check(
                race.inside(*last),
                format!("{size}: the race table's last line is inside the window: {last:?}"),
            );
            checks.check(race.has_text(*last), format!("{size}: the race table's last line is drawn"));
            checks.check(
                race.inside(*row) && race.has_text(*row),
                format!("{size}: the race table's last row is drawn: {row:?}"),
            );
        }
        let notices = race.ui("Notice ");
        checks.check(!notices.is_empty(), format!("{size}: a notice is shown: {notices:?}"));
        for (name, rect) in &notices {
            checks.check(race.inside(*rect), format!("{size}: {name} is inside the window: {rect:?}"));
            checks.check(race.has_text(*rect), format!("{size}: {name} is drawn"));
        }
        let rows = race.ui("Panel: view row");
        checks.check(
            rows.len() == 1 && race.inside(rows[0].1),
            format!("{size}: the panel's last row is inside the window: {rows:?}"),
        );

        let help = Shot::open(&out.join(format!("fit-help-{size}.png")));
        let parts = help.ui("Help");
        let mut names: Vec<&str> = parts.iter().map(|(name, _)| name.as_str()).collect();
        names.sort_unstable();
        checks.check(
            names == ["Help", "Help column 0", "Help column 1", "Help footer"],
            format!("{size}: the help is shown: {names:?}"),
        );
        for (name, rect) in &parts {
            checks.check(help.inside(*rect), format!("{size}: {name} is inside the window: {rect:?}"));
        }
        let footer = parts.iter().find(|(name, _)| name == "Help footer");
        checks.check(
            footer.is_some_and(|(_, rect)| help.has_text(*rect)),
            format!("{size}: the help's last line is drawn"),
        );
    }
}
