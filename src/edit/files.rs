//! Maps in and out at run time: open a map file dropped on the window, cycle through the maps
//! that come with the game (`[` / `]`), save the map (`Ctrl+S`), and never lose edits silently
//! (quitting, or opening another map, with unsaved edits autosaves them first; the newest
//! [`AUTOSAVES_KEPT`] autosaves of each map name are kept).
//!
//! Every way of opening a map ends in one [`OpenMap`] message and one system
//! (`open_requested_maps`): it reads the map and, only when that worked, replaces the level and
//! sends [`MapLoaded`] (units, overlays, flow fields and the camera follow). A map that cannot
//! be read leaves the current map, its edits and its units exactly as they were, and says why
//! in the HUD and on stderr.

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use bevy::window::{FileDragAndDrop, WindowCloseRequested};
use gridpath::formats::{self, MapFormat};
use gridpath::{Grid, Pos};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::level::{
    BUILTIN_MAP, Level, MapInfo, MapLoaded, MapSource, read_level, source_name, source_path,
};
use crate::map::problem::{Endpoints, SearchProblem, SearchProblemMut, cost_blind};
use crate::notice::Notice;

/// The maps that come with the game, in the order `]` opens them: `assets/maps/`, embedded in
/// the binary so it runs from any directory. The first is the built-in map.
/// The Tiled map reads its tileset (`tilepath.tsx`) from gridpath's built-in copy.
pub const CATALOG: [(&str, &str); 3] = [
    ("default.map", BUILTIN_MAP),
    ("tutorial.txt", include_str!("../../assets/maps/tutorial.txt")),
    ("tutorial.tmx", include_str!("../../assets/maps/tutorial.tmx")),
];

pub(super) fn plugin(app: &mut App) {
    app.add_message::<OpenMap>();
    // Registered by the window plugin too; headless tests write it themselves.
    app.add_message::<FileDragAndDrop>();
    app.add_message::<WindowCloseRequested>();
    app.init_resource::<CatalogPosition>();
    app.init_resource::<SaveDir>();
    app.init_resource::<UnsavedEdits>();
    app.configure_sets(Update, LoadMapSystems.in_set(AppSystems::RecordInput).after(ControlSystems));
    app.add_systems(
        Update,
        (
            open_dropped_files.run_if(on_message::<FileDragAndDrop>),
            cycle_catalog_maps.run_if(on_message::<Control>),
            open_requested_maps.run_if(on_message::<OpenMap>),
            save_map.run_if(on_message::<Control>),
            export_benchmark.run_if(on_message::<Control>),
        )
            .chain()
            .in_set(LoadMapSystems),
    );
    app.add_systems(Update, track_unsaved_edits.in_set(AppSystems::Plan));
    // After the window plugin turned a close request into an exit, before the app stops.
    app.add_systems(Last, autosave_on_exit.after(bevy::window::ExitSystems));
}

/// The systems that open maps; whatever asks for a map (keys, the generator) runs before.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LoadMapSystems;

/// Replace the map with the one `source` names, if it can be read.
#[derive(Message, Clone, Debug)]
pub struct OpenMap(pub MapSource);

/// Which map of [`CATALOG`] `[` / `]` step from: the last one opened (the built-in map at first).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CatalogPosition(pub usize);

/// Where saved maps and autosaves go: a per-user data folder
/// (`$XDG_DATA_HOME/tilepath/maps`, by default `~/.local/share/tilepath/maps`; `%APPDATA%` on
/// Windows), or the `--save-dir` folder.
#[derive(Resource, Debug, Clone, PartialEq, Eq)]
pub struct SaveDir(pub PathBuf);

impl Default for SaveDir {
    fn default() -> Self {
        Self(default_save_dir())
    }
}

/// The per-user folder for saved maps: the platform's data folder (`dirs::data_dir`).
fn default_save_dir() -> PathBuf {
    // No data folder at all (a bare container without HOME): next to wherever the game was started.
    dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("tilepath").join("maps")
}

/// Whether the map on screen differs from any file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unsaved {
    /// Nothing to save: the map is as it was opened or last saved.
    #[default]
    Nothing,
    /// A freshly generated map: not on disk, but its generator and seed make it again.
    Generated,
    /// Edits (walls, terrain, endpoints) that are on no disk.
    Edits,
}

/// Tracks edits made since the map was opened or saved.
#[derive(Resource, Debug, Default)]
pub struct UnsavedEdits {
    /// What the map looked like when it was opened or saved: grid revision, start and goal.
    baseline: Option<(u64, Pos, Pos)>,
    /// What is unsaved now.
    pub state: Unsaved,
}

impl UnsavedEdits {
    /// The map `grid` with `endpoints` is saved (or freshly opened) in state `state`.
    pub(crate) fn reset(&mut self, grid: &Grid, endpoints: Endpoints, state: Unsaved) {
        self.baseline = Some(snapshot(grid, endpoints));
        self.state = state;
    }

    /// The endpoints were moved by the program, not by the player (a scenario's next query):
    /// not an edit worth saving.
    pub(crate) fn accept_endpoints(&mut self, start: Pos, goal: Pos) {
        if let Some((_, s, g)) = &mut self.baseline {
            (*s, *g) = (start, goal);
        }
    }

    /// `true` when the map shown is on no disk (edited or generated).
    pub fn is_unsaved(&self) -> bool {
        self.state != Unsaved::Nothing
    }
}

/// What decides whether the map changed: grid revision, start, goal.
fn snapshot(grid: &Grid, endpoints: Endpoints) -> (u64, Pos, Pos) {
    (grid.revision(), endpoints.start, endpoints.goal)
}

/// Marks the map edited when its cells or endpoints differ from the last load or save.
fn track_unsaved_edits(problem: SearchProblem, mut unsaved: ResMut<UnsavedEdits>) {
    let now = snapshot(problem.grid(), problem.endpoints());
    match unsaved.baseline {
        // The first frame: the start-up map is the baseline.
        None => unsaved.baseline = Some(now),
        Some(baseline) if baseline != now && unsaved.state != Unsaved::Edits => {
            unsaved.state = Unsaved::Edits;
        }
        Some(_) => {}
    }
}

fn open_dropped_files(mut drops: MessageReader<FileDragAndDrop>, mut open: MessageWriter<OpenMap>) {
    for drop in drops.read() {
        if let FileDragAndDrop::DroppedFile { path_buf, .. } = drop {
            open.write(OpenMap(MapSource::File(path_buf.clone())));
        }
    }
}

/// The source of catalog map `index`.
pub fn catalog_source(index: usize) -> MapSource {
    let (name, text) = CATALOG[index % CATALOG.len()];
    if index.is_multiple_of(CATALOG.len()) {
        MapSource::BuiltIn
    } else {
        MapSource::Text { name: name.to_owned(), text: text.to_owned() }
    }
}

fn cycle_catalog_maps(
    mut controls: MessageReader<Control>,
    mut position: ResMut<CatalogPosition>,
    mut open: MessageWriter<OpenMap>,
) {
    for control in controls.read() {
        let step = match control {
            Control::NextMap => 1,
            Control::PreviousMap => CATALOG.len() - 1,
            _ => continue,
        };
        position.0 = (position.0 + step) % CATALOG.len();
        open.write(OpenMap(catalog_source(position.0)));
    }
}

/// Opens the map of the latest [`OpenMap`] request: on success it replaces the level (keeping
/// the search settings) and sends [`MapLoaded`]; on failure only a notice says why.
///
/// Unsaved edits are autosaved first. If even that fails, the map stays and the notice says so;
/// asking for the same map again then discards the edits (the player was told).
fn open_requested_maps(
    mut requests: MessageReader<OpenMap>,
    mut problem: SearchProblemMut,
    mut info: ResMut<MapInfo>,
    mut unsaved: ResMut<UnsavedEdits>,
    save_dir: Res<SaveDir>,
    mut discard_for: Local<Option<String>>,
    mut loaded: MessageWriter<MapLoaded>,
    mut notices: MessageWriter<Notice>,
) {
    let Some(OpenMap(source)) = requests.read().last().cloned() else { return };
    let name = source_name(&source);
    let level = match read_level(&source) {
        Ok(level) => level,
        Err(error) => {
            notices.write(Notice::error(format!("{error} (the current map stays)")));
            return;
        }
    };
    let mut message = format!("opened {name} ({} x {})", level.grid.width(), level.grid.height());
    if unsaved.state == Unsaved::Edits {
        match autosave(problem.grid(), problem.endpoints(), &info, &save_dir.0) {
            Ok(path) => {
                message.push_str(&format!(
                    "; your edits of {} were autosaved to {}",
                    info.name,
                    path.display()
                ));
            }
            Err(error) if discard_for.as_deref() != Some(name.as_str()) => {
                notices.write(Notice::error(format!(
                    "cannot autosave the edits of {}: {error}. The map stays; open {name} again to \
                     discard the edits",
                    info.name
                )));
                *discard_for = Some(name);
                return;
            }
            Err(_) => message.push_str(&format!("; the edits of {} were discarded", info.name)),
        }
    }
    *discard_for = None;
    install_level(&mut problem, level, &mut notices);
    *info = MapInfo { name, error: None, path: source_path(&source) };
    let state =
        if matches!(source, MapSource::Generated { .. }) { Unsaved::Generated } else { Unsaved::Nothing };
    unsaved.reset(problem.grid(), problem.endpoints(), state);
    loaded.write(MapLoaded);
    notices.write(Notice::info(message));
}

/// Puts `level` in place, keeping the search settings; an algorithm the new map rules out (BFS
/// on terrain costs, say) falls back to A*, with a notice.
fn install_level(problem: &mut SearchProblemMut, level: Level, notices: &mut MessageWriter<Notice>) {
    let mut settings = *problem.settings();
    let refused = settings
        .algorithm
        .check(&level.grid, &settings)
        .err()
        .or_else(|| if level.grid.has_uniform_cost() { None } else { cost_blind(settings.algorithm) });
    if let Some(refused) = refused {
        notices.write(Notice::warning(format!("{refused}: switched to A*")));
        settings.algorithm = gridpath::Algorithm::AStar;
    }
    if settings != *problem.settings() {
        *problem.settings_mut() = settings;
    }
    problem.install(level.grid, Endpoints { start: level.start, goal: level.goal });
}

/// `name` reduced to what is safe in a file name: letters, digits, `-`, `_` and `.`; the
/// extension dropped.
fn file_stem(name: &str) -> String {
    let stem =
        Path::new(name).file_stem().map_or_else(|| name.to_owned(), |s| s.to_string_lossy().into_owned());
    let clean: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '-' })
        .collect();
    let clean = clean.trim_matches(['-', '.']).to_owned();
    if clean.is_empty() { "map".to_owned() } else { clean }
}

/// How many autosaves of one map name are kept; older ones are deleted when a new one is written.
pub const AUTOSAVES_KEPT: usize = 5;

/// Writes the map to a new `autosave-<name>~<n>.tpmap` in `dir` (`n` one above the newest
/// autosave of that name, so none is ever overwritten), then deletes all but the newest
/// [`AUTOSAVES_KEPT`] of that name; returns the path. `~` never occurs in a cleaned name, so
/// the autosaves of `maze-7` and of `maze` cannot be taken for each other.
fn autosave(grid: &Grid, endpoints: Endpoints, info: &MapInfo, dir: &Path) -> Result<PathBuf, String> {
    let stem = file_stem(&info.name);
    let mut numbers = autosave_numbers(dir, &stem);
    let next = numbers.iter().max().map_or(1, |n| n + 1);
    let path = dir.join(autosave_name(&stem, next));
    write_map(grid, endpoints, &path)?;
    numbers.sort_unstable();
    let drop = (numbers.len() + 1).saturating_sub(AUTOSAVES_KEPT);
    for old in &numbers[..drop] {
        let old_path = dir.join(autosave_name(&stem, *old));
        if let Err(error) = std::fs::remove_file(&old_path) {
            // The new autosave is written: an old one left behind loses nothing.
            eprintln!("tilepath: could not delete the old autosave {}: {error}", old_path.display());
        }
    }
    Ok(path)
}

/// The file name of autosave number `n` of the map named `stem`.
fn autosave_name(stem: &str, n: u64) -> String {
    format!("autosave-{stem}~{n}.tpmap")
}

/// The numbers of the autosaves of `stem` in `dir` (none when the folder cannot be read).
fn autosave_numbers(dir: &Path, stem: &str) -> Vec<u64> {
    let prefix = format!("autosave-{stem}~");
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let number = name.strip_prefix(&prefix)?.strip_suffix(".tpmap")?;
            // Only plain decimal numbers: `~1.bak.tpmap` or `~+1.tpmap` are someone else's.
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            number.parse().ok()
        })
        .collect()
}

/// `<stem>.<extension>` in `dir`, or `<stem>-2.<extension>`, `<stem>-3.<extension>`... the
/// first that does not exist.
fn unused_path(dir: &Path, stem: &str, extension: &str) -> PathBuf {
    (1..)
        .map(|n| {
            if n == 1 {
                dir.join(format!("{stem}.{extension}"))
            } else {
                dir.join(format!("{stem}-{n}.{extension}"))
            }
        })
        .find(|path| !path.exists())
        .unwrap_or_else(|| dir.join(format!("{stem}.{extension}")))
}

/// Writes the map, its terrain and its endpoints to `path` in the `.tpmap` format, atomically
/// (a temporary file in the same folder, then a rename), creating the folder if needed.
fn write_map(grid: &Grid, endpoints: Endpoints, path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = formats::write_tilepath(grid, Some(endpoints.start), Some(endpoints.goal));
    formats::write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Where `Ctrl+S` writes: over the file the map came from when that is a `.tpmap` (the player's
/// own save), else a new `<name>.tpmap` in the save folder — `<name>-2.tpmap` and so on when
/// that name is taken, so no other file is ever overwritten.
pub fn save_target(info: &MapInfo, dir: &Path) -> PathBuf {
    if let Some(path) = &info.path
        && MapFormat::from_path(path) == Some(MapFormat::Tilepath)
    {
        return path.clone();
    }
    unused_path(dir, &file_stem(&info.name), "tpmap")
}

/// Benchmark queries written with an exported map.
pub const EXPORTED_QUERIES: usize = 100;

/// `Ctrl+E`: writes the map as a Moving AI `.map` in the save folder with
/// [`EXPORTED_QUERIES`] benchmark queries beside it (`.map.scen`), the way `gridpath generate
/// --scen` does, so `gridpath scen` and `gridpath bench` run it. The queries are made on the map
/// as the file holds it (the format caps terrain costs at 9), so the file and its optima agree.
fn export_benchmark(
    mut controls: MessageReader<Control>,
    problem: SearchProblem,
    info: Res<MapInfo>,
    save_dir: Res<SaveDir>,
    mut notices: MessageWriter<Notice>,
) {
    if !controls.read().any(|c| *c == Control::ExportBenchmark) {
        return;
    }
    match write_benchmark(problem.grid(), &file_stem(&info.name), &save_dir.0) {
        Ok((path, queries)) => notices.write(Notice::info(format!(
            "exported {} with {queries} benchmark queries (.scen beside it): gridpath scen {}.scen",
            path.display(),
            path.display()
        ))),
        Err(error) => notices.write(Notice::error(format!("cannot export {}: {error}", info.name))),
    };
}

/// Writes `grid` as `<stem>.map` (a free name) in `dir` and its queries as `<stem>.map.scen`;
/// returns the map's path and the number of queries.
fn write_benchmark(grid: &Grid, stem: &str, dir: &Path) -> Result<(PathBuf, usize), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = unused_path(dir, stem, "map");
    let text = formats::write_movingai(grid);
    let written = formats::parse_movingai(&text).map_err(|e| e.to_string())?;
    let name = path.file_name().map_or_else(|| "map".into(), |n| n.to_string_lossy().into_owned());
    let queries = gridpath::scenarios::make_scenarios(&written, &name, EXPORTED_QUERIES, 1);
    let scen = path.with_extension("map.scen");
    formats::write_atomic(&path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    formats::write_atomic(&scen, formats::write_scen(&queries).as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", scen.display()))?;
    Ok((path, queries.len()))
}

/// `Ctrl+S`: saves the map with its terrain, start and goal; the HUD and stderr say where.
fn save_map(
    mut controls: MessageReader<Control>,
    problem: SearchProblem,
    mut info: ResMut<MapInfo>,
    save_dir: Res<SaveDir>,
    mut unsaved: ResMut<UnsavedEdits>,
    mut notices: MessageWriter<Notice>,
) {
    if !controls.read().any(|c| *c == Control::SaveMap) {
        return;
    }
    let path = save_target(&info, &save_dir.0);
    match write_map(problem.grid(), problem.endpoints(), &path) {
        Ok(()) => {
            notices.write(Notice::info(format!("saved to {}", path.display())));
            info.name = source_name(&MapSource::File(path.clone()));
            info.path = Some(path);
            unsaved.reset(problem.grid(), problem.endpoints(), Unsaved::Nothing);
        }
        Err(error) => {
            notices.write(Notice::error(format!("cannot save {}: {error}", info.name)));
        }
    }
}

/// On quit (window closed, `AppExit`, Ctrl+C in the terminal): unsaved edits go to a new
/// autosave in the save folder — never over the player's own file nor an older autosave — and
/// the path is printed on stderr. A generated map nobody edited is not saved: its generator and
/// seed make it again.
fn autosave_on_exit(
    mut exits: MessageReader<AppExit>,
    mut closes: MessageReader<WindowCloseRequested>,
    problem: Option<SearchProblem>,
    info: Res<MapInfo>,
    save_dir: Res<SaveDir>,
    mut unsaved: ResMut<UnsavedEdits>,
) {
    let quitting = exits.read().count() + closes.read().count() > 0;
    let Some(problem) = problem.filter(|_| quitting && unsaved.state == Unsaved::Edits) else { return };
    match autosave(problem.grid(), problem.endpoints(), &info, &save_dir.0) {
        Ok(path) => {
            eprintln!("tilepath: unsaved map {} autosaved to {}", info.name, path.display());
            unsaved.reset(problem.grid(), problem.endpoints(), Unsaved::Nothing);
        }
        Err(error) => eprintln!("tilepath: could not autosave the unsaved map {}: {error}", info.name),
    }
}
