//! The level: which map is loaded and from where, what happens when it fails to load, and the
//! geometry between `gridpath` cells, world space and tile-map positions.

use std::path::{Path, PathBuf};

use crate::map::geometry::TILE_SIZE;
use bevy::prelude::*;
use bevy_gridpath::NavGrid;
use gridpath::formats::{self, ParsedMap};
use gridpath::generate::{Generator, generate, pick_endpoints};
use gridpath::{Grid, Pos, Tile};

use crate::map::problem::Endpoints;
use crate::notice::Notice;

/// The built-in map, `assets/maps/default.map`, embedded so the binary runs from anywhere.
pub const BUILTIN_MAP: &str = include_str!("../../assets/maps/default.map");

/// The widest and tallest map the app opens, in cells. `gridpath` reads bigger ones, but the
/// app draws a map as one texture of one texel per cell (tiles on small maps), and 2048 is the
/// texture size every GPU (and WebGPU's downlevel limits) supports.
pub const MAX_MAP_SIDE: u32 = 2048;

/// Where the unit starts on the built-in map: top-left room, left of the first long wall.
pub const BUILTIN_START: Pos = Pos::new(2, 2);

/// The goal on the built-in map: inside the walled room at the bottom right.
pub const BUILTIN_GOAL: Pos = Pos::new(36, 27);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<MapSource>();
    app.add_message::<MapLoaded>();
    app.add_systems(Startup, load_requested_map.in_set(LoadLevelSystems));
}

/// The start-up system that loads the level.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoadLevelSystems;

/// Which map to load at start-up.
#[derive(Resource, Clone, Debug, Default)]
pub enum MapSource {
    /// The embedded `assets/maps/default.map`.
    #[default]
    BuiltIn,
    /// A map file: Moving AI `.map`, an ASCII grid (`.#SG`) or a digit grid.
    File(PathBuf),
    /// Map text given directly (the embedded maps, tests), with a file name: its extension
    /// chooses the format as for files, and the HUD shows it.
    Text {
        /// Shown in the HUD.
        name: String,
        /// The map, in any format `gridpath::formats::load_map_bytes` reads.
        text: String,
    },
    /// A map made by a `gridpath` generator (`R`, `--seed`): the same values make the same map.
    Generated {
        /// Which generator.
        generator: Generator,
        /// Its seed.
        seed: u64,
        /// Columns.
        width: u32,
        /// Rows.
        height: u32,
    },
}

/// What the HUD says about the loaded map, and where it came from.
#[derive(Resource, Clone, Debug, Default)]
pub struct MapInfo {
    /// File name (`default.map` for the built-in map; the generator and seed of a generated
    /// one).
    pub name: String,
    /// Why the requested map could not be used at start-up, if it could not (the built-in map
    /// is shown instead).
    pub error: Option<String>,
    /// The file the map was read from or last saved to; `None` for embedded and generated maps.
    pub path: Option<PathBuf>,
}

/// A new map replaced the old one (possibly of another size): rebuild everything that
/// depends on the map, and put units back at the start.
#[derive(Message, Clone, Copy, Debug, Default)]
pub struct MapLoaded;

/// A map with its endpoints, ready to become the [`NavGrid`] and the [`Endpoints`].
#[derive(Clone, Debug)]
pub struct Level {
    /// The cells.
    pub grid: Grid,
    /// Where units start.
    pub start: Pos,
    /// Where units go.
    pub goal: Pos,
}

/// The built-in level.
pub fn builtin_level() -> Level {
    let parsed =
        formats::parse_map(BUILTIN_MAP).expect("the embedded default map parses (checked by the app tests)");
    Level { grid: parsed.grid, start: BUILTIN_START, goal: BUILTIN_GOAL }
}

/// Parses map text into a level (any format `gridpath::formats::parse_map` reads).
///
/// # Errors
/// A readable message when the text is not a map, or the map has no ground cell.
pub fn parse_level(text: &str) -> Result<Level, String> {
    level_of(formats::parse_map(text).map_err(|e| e.to_string())?)
}

/// A level from a parsed map, which must have no fences (`gridpath::Grid::set_fence`: the
/// height steps of HOG's 2007 `octile-corner` maps), as the game neither draws nor saves them.
/// Endpoints marked in the file (`S`/`G` in the ASCII format, the
/// `.tpmap` header, Tiled objects) are used; otherwise the start is the ground cell nearest the
/// top-left corner and the goal the one nearest the bottom-right corner.
///
/// # Errors
/// The map has fences (see above), no ground cell, or a marked endpoint is not passable.
pub fn level_of(parsed: ParsedMap) -> Result<Level, String> {
    let grid = parsed.grid;
    if grid.has_fences() {
        // A 2007 octile-corner map's height steps: the view would hide them and a save would
        // lose them, so the game leaves such maps to the gridpath CLI.
        return Err(format!(
            "it has height steps ({} fenced cell sides, an octile-corner map): tilepath cannot draw or save \
             those yet; `gridpath solve` and `gridpath scen` read it",
            grid.fence_count()
        ));
    }
    let (w, h) = (grid.width(), grid.height());
    let start = match parsed.start {
        Some(start) => start,
        None => nearest_ground(&grid, Pos::new(0, 0)).ok_or("the map has no ground cell")?,
    };
    let goal = match parsed.goal {
        Some(goal) => goal,
        None => nearest_ground(&grid, Pos::new(w - 1, h - 1)).ok_or("the map has no ground cell")?,
    };
    for (which, pos) in [("start", start), ("goal", goal)] {
        if !grid.is_passable(pos) {
            return Err(format!("the {which} {pos} is not on a passable cell"));
        }
    }
    if start == goal {
        return Err(format!("the start and the goal are the same cell {start}"));
    }
    Ok(Level { grid, start, goal })
}

/// The ground cell closest to `corner` (straight-line distance), if there is one.
fn nearest_ground(grid: &Grid, corner: Pos) -> Option<Pos> {
    grid.positions().filter(|&p| matches!(grid.tile(p), Some(Tile::Ground { .. }))).min_by_key(|p| {
        let dx = u64::from(p.x.abs_diff(corner.x));
        let dy = u64::from(p.y.abs_diff(corner.y));
        dx * dx + dy * dy
    })
}

/// Reads the level `source` names.
///
/// # Errors
/// A message naming the file and the problem.
pub fn read_level(source: &MapSource) -> Result<Level, String> {
    // gridpath's load errors name the file and the problem (line and column when malformed).
    let level = match source {
        MapSource::BuiltIn => Ok(builtin_level()),
        MapSource::File(path) => {
            let parsed = formats::load_map(path).map_err(|e| load_failure(&e))?;
            level_of(parsed).map_err(|e| format!("cannot open map {}: {e}", path.display()))
        }
        MapSource::Text { name, text } => {
            let parsed =
                formats::load_map_bytes(Path::new(name), text.as_bytes()).map_err(|e| load_failure(&e))?;
            level_of(parsed).map_err(|e| format!("cannot open map {name}: {e}"))
        }
        &MapSource::Generated { generator, seed, width, height } => {
            generated_level(generator, seed, width, height)
                .map_err(|e| format!("cannot make map {}: {e}", source_name(source)))
        }
    }?;
    check_size(&level.grid).map_err(|e| format!("cannot open map {}: {e}", source_name(source)))?;
    Ok(level)
}

/// What the player reads when a map file cannot be loaded: gridpath's message, which names the
/// file and the problem, led by what failed, without saying "cannot" twice.
fn load_failure(error: &formats::LoadError) -> String {
    match error {
        formats::LoadError::Io { path, source } => format!("cannot read map {}: {source}", path.display()),
        other => format!("cannot open map {other}"),
    }
}

/// A generated map with endpoints in its largest open area, as far apart as
/// `gridpath::generate::pick_endpoints` finds them.
fn generated_level(generator: Generator, seed: u64, width: u32, height: u32) -> Result<Level, String> {
    let grid = generate(generator, width, height, seed).map_err(|e| e.to_string())?;
    match pick_endpoints(&grid) {
        Some((start, goal)) if start != goal => Ok(Level { grid, start, goal }),
        _ => Err("no room for a start and a goal".to_owned()),
    }
}

/// Refuses maps wider or taller than [`MAX_MAP_SIDE`].
fn check_size(grid: &Grid) -> Result<(), String> {
    let (w, h) = (grid.width(), grid.height());
    if w > MAX_MAP_SIDE || h > MAX_MAP_SIDE {
        return Err(format!(
            "{w} x {h} cells is too large: tilepath draws maps up to {MAX_MAP_SIDE} x {MAX_MAP_SIDE}"
        ));
    }
    Ok(())
}

/// The file `source` reads, if it is a file.
pub fn source_path(source: &MapSource) -> Option<PathBuf> {
    match source {
        MapSource::File(path) => Some(path.clone()),
        MapSource::BuiltIn | MapSource::Text { .. } | MapSource::Generated { .. } => None,
    }
}

/// The name the HUD shows for `source`.
pub fn source_name(source: &MapSource) -> String {
    match source {
        // Named after its file: saves of it are `default.tpmap`.
        MapSource::BuiltIn => "default.map".to_owned(),
        MapSource::File(path) => {
            path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
        }
        MapSource::Text { name, .. } => name.clone(),
        MapSource::Generated { generator, seed, .. } => format!("{} seed {seed}", generator.name()),
    }
}

fn load_requested_map(
    mut commands: Commands,
    source: Res<MapSource>,
    mut loaded: MessageWriter<MapLoaded>,
    mut notices: MessageWriter<Notice>,
) {
    let (level, info) = match read_level(&source) {
        Ok(level) => (level, MapInfo { name: source_name(&source), error: None, path: source_path(&source) }),
        Err(error) => {
            // Never a blank window: say what went wrong and carry on with the built-in map.
            notices.write(Notice::error(error.clone()));
            let info = MapInfo { name: source_name(&MapSource::BuiltIn), error: Some(error), path: None };
            (builtin_level(), info)
        }
    };
    install_level(&mut commands, level);
    commands.insert_resource(info);
    loaded.write(MapLoaded);
}

/// Makes `level` the current map and endpoints: a new [`NavGrid`] the first time, else the
/// grid is replaced in it (which tells the plugin that everything planned for the old one is
/// void).
pub fn install_level(commands: &mut Commands, level: Level) {
    let Level { grid, start, goal } = level;
    commands.insert_resource(Endpoints { start, goal });
    commands.queue(move |world: &mut World| match world.get_resource_mut::<NavGrid>() {
        Some(mut nav) => nav.replace(grid),
        None => world.insert_resource(NavGrid::centered(grid, TILE_SIZE)),
    });
}
