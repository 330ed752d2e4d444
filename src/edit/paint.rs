//! Map editing with mouse and keys: paint with the current brush (walls by default, or terrain
//! costs: the brushes plugin) along the dragged line, erase with the right button (unless crowd
//! units are selected: then the right button gives orders), drag the start and goal markers,
//! place them with `S` / `G`, clear walls with `C`, make a new map with a `gridpath` generator
//! with `R` (`Shift+R` picks the next generator: noise, maze, rooms, caves).
//!
//! The editor only reads [`HoverTile`]; which tile the OS cursor is over is decided elsewhere
//! (the cursor plugin, a test, or a script), so all of this runs without a window. While the
//! pointer is over a UI node marked [`BlocksMap`](crate::input::pointer::BlocksMap) (the controls panel), the map under it
//! counts as not hovered: clicks on the panel never paint.

use bevy::platform::collections::HashSet;
use bevy::prelude::*;
use bevy_gridpath::{FollowFlowField, Mover, NavGrid, PathRequest, PathStatus, Waypoints};
use gridpath::generate::Generator;
use gridpath::{Endpoint, Pos, Tile};

use crate::AppSystems;
use crate::edit::brushes::CurrentBrush;
use crate::edit::files::{LoadMapSystems, OpenMap};
use crate::input::bindings::{Control, ControlSystems, control_sent, shift_held};
use crate::input::pointer::Selected;
use crate::input::pointer::{HoverTile, PointerSystems};
use crate::map::level::MapSource;
use crate::map::problem::{SearchProblem, SearchProblemMut};
use crate::map::terrain::terrain_problem;
use crate::notice::Notice;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Drag>();
    app.init_resource::<MapSeed>();
    app.init_resource::<MapGenerator>();
    app.add_systems(
        Startup,
        generate_at_start
            .run_if(resource_exists::<GenerateAtStart>)
            .after(crate::map::level::LoadLevelSystems),
    );
    app.add_systems(
        Update,
        (
            // Ctrl+S saves the map: it must not also place the start.
            place_endpoints_by_key.run_if(on_message::<Control>).after(ControlSystems),
            clear_walls.run_if(control_sent(Control::ClearWalls)).after(ControlSystems),
            make_random_map.run_if(on_message::<Control>).after(ControlSystems).before(LoadMapSystems),
            // Shift+left-drag draws a selection box instead (the selection plugin).
            begin_drag.run_if(resource_equals(Drag::Idle).and_then(not(shift_held))),
            continue_drag.run_if(not(resource_equals(Drag::Idle))),
            end_drag.run_if(not(resource_equals(Drag::Idle))),
        )
            .chain()
            .in_set(AppSystems::RecordInput)
            .in_set(EditSystems)
            .after(PointerSystems),
    );
}

/// The systems that edit the map and the endpoints (by keys and by the mouse). Whatever places
/// something on the map in the same frame (a unit spawned at the cursor) runs after them, so it
/// sees the cells as they are after this frame's strokes.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EditSystems;

/// What a held mouse button is doing.
#[derive(Resource, Default, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drag {
    /// No button held (or the press began off the map).
    #[default]
    Idle,
    /// Painting `tile` along the cursor's track.
    Paint {
        /// The button that started the stroke; releasing it ends the stroke.
        button: MouseButton,
        /// What is painted: a wall (left button) or floor (right button).
        tile: Tile,
        /// The last cell painted, where the next segment of the line starts.
        last: Option<Pos>,
    },
    /// Dragging the start or goal marker.
    Move {
        /// The button that grabbed the marker.
        button: MouseButton,
        /// Which marker.
        which: Endpoint,
    },
}

/// The seed of the next generated map (`R`, `--seed`); it grows by one per map, so a session's
/// sequence of maps is reproducible, and the HUD names the seed of the map shown.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapSeed(pub u64);

impl Default for MapSeed {
    fn default() -> Self {
        Self(1)
    }
}

/// The generator `R` uses (`Shift+R` steps through noise, maze, rooms, caves).
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct MapGenerator(pub Generator);

impl Default for MapGenerator {
    fn default() -> Self {
        Self(Generator::ALL[0])
    }
}

/// Present when the command line asked for a generated start-up map (`--seed`, `--generator`).
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct GenerateAtStart;

/// The cells a straight segment from `a` to `b` passes through, 4-connected (each cell shares
/// an edge with the next), both ends included. A wall painted along it has no diagonal gaps a
/// unit could slip through.
pub fn line_cells(a: Pos, b: Pos) -> Vec<Pos> {
    let (ax, ay) = (i64::from(a.x), i64::from(a.y));
    let (dx, dy) = (i64::from(b.x) - ax, i64::from(b.y) - ay);
    let (nx, ny) = (dx.abs(), dy.abs());
    let (sx, sy) = (dx.signum(), dy.signum());
    let mut cells = Vec::with_capacity(usize::try_from(nx + ny + 1).unwrap_or(0));
    let (mut x, mut y) = (ax, ay);
    let (mut ix, mut iy) = (0, 0);
    cells.push(a);
    while ix < nx || iy < ny {
        // Step along whichever axis the segment crosses a cell border on first:
        // compare (ix + ½) / nx with (iy + ½) / ny without dividing.
        if (1 + 2 * ix) * ny < (1 + 2 * iy) * nx {
            x += sx;
            ix += 1;
        } else {
            y += sy;
            iy += 1;
        }
        // Every step stays between a and b, so the coordinates fit in u32.
        cells.push(Pos::new(x as u32, y as u32));
    }
    cells
}

/// Why `cell` cannot hold the `which` endpoint, if it cannot.
fn endpoint_problem(problem: &SearchProblemMut, which: Endpoint, cell: Pos) -> Option<String> {
    let other = match which {
        Endpoint::Start => problem.goal(),
        Endpoint::Goal => problem.start(),
    };
    if !problem.grid().is_passable(cell) {
        Some(format!("the {which} must be on a free cell, not a wall"))
    } else if cell == other {
        Some("the start and the goal must be different cells".to_owned())
    } else {
        None
    }
}

/// Moves the `which` endpoint to `cell` when allowed; returns why not otherwise.
///
/// Generic over the smart pointer so a `ResMut` is only marked changed by a real move.
fn move_endpoint(problem: &mut SearchProblemMut, which: Endpoint, cell: Pos) -> Result<(), String> {
    let current = match which {
        Endpoint::Start => problem.start(),
        Endpoint::Goal => problem.goal(),
    };
    if current == cell {
        return Ok(());
    }
    if let Some(problem) = endpoint_problem(problem, which, cell) {
        return Err(problem);
    }
    match which {
        Endpoint::Start => problem.set_start(cell),
        Endpoint::Goal => problem.set_goal(cell),
    }
    Ok(())
}

/// Cells no wall may cover: where units stand or are stepping into, and the goals crowd units
/// head for.
#[derive(Debug, Default)]
struct Protected {
    units: HashSet<Pos>,
    goals: HashSet<Pos>,
}

/// Why painting `tile` on `cell` is refused, if it is: nothing but ground may cover the start,
/// the goal, a cell a unit stands on or is stepping into or a crowd's goal; terrain costs are
/// refused while the algorithm cannot use them.
fn paint_problem(
    problem: &SearchProblemMut,
    protected: &Protected,
    cell: Pos,
    tile: Tile,
) -> Option<&'static str> {
    if matches!(tile, Tile::Ground { .. }) {
        terrain_problem(problem.settings(), tile)
    } else if cell == problem.start() {
        Some("can't build on the start: move it first")
    } else if cell == problem.goal() {
        Some("can't build on the goal: move it first")
    } else if protected.units.contains(&cell) {
        Some("can't build under a unit")
    } else if protected.goals.contains(&cell) {
        Some("can't build on a goal units are heading to")
    } else {
        None
    }
}

/// Paints `tile` on `cells`, skipping refused cells. Returns the first refusal.
fn paint(
    problem: &mut SearchProblemMut,
    protected: &Protected,
    cells: &[Pos],
    tile: Tile,
) -> Option<&'static str> {
    let mut edits: Vec<(Pos, Tile)> = Vec::new();
    let mut refusal = None;
    for &cell in cells {
        // Read through `Deref` first: only a real change may mark the problem changed.
        if problem.grid().tile(cell).is_none_or(|t| t == tile) || edits.iter().any(|&(c, _)| c == cell) {
            continue;
        }
        if let Some(problem) = paint_problem(problem, protected, cell, tile) {
            refusal = refusal.or(Some(problem));
            continue;
        }
        edits.push((cell, tile));
    }
    // One bulk edit: the grid brings its derived data (JPS's jump bits: whole rows and
    // columns) in step once for the stroke, not once per cell.
    // Checked in bounds above: an error would leave the grid as it was.
    if !edits.is_empty() {
        let _ = problem.nav_mut().set_tiles(&edits);
    }
    refusal
}

/// What walls may not cover now.
///
/// Units are whatever the pathfinding plugin moves or plans for (anything with a
/// [`PathStatus`]): the editor knows them by the plugin's components, not by the units feature.
fn protected_cells(
    nav: &NavGrid,
    units: &Query<UnitPlace, With<PathStatus>>,
    goals: &Query<UnitGoal>,
) -> Protected {
    let standing = units.iter().flat_map(|(transform, mover, request, waypoints)| {
        // A large agent's cells are its body's top-left cells: the whole body is protected.
        let size = request.map_or(1, |r| r.settings.agent_size.max(1));
        let on = nav.anchor_at(transform.translation.truncate(), size);
        let anchors = on.into_iter().chain(mover.and_then(Mover::cell)).chain(mover.and_then(Mover::next));
        let walking = walking_line(nav, mover, waypoints);
        anchors.chain(walking).flat_map(move |anchor| nav.body_cells(anchor, size))
    });
    let heading = goals.iter().flat_map(|(request, follow)| {
        let size = request.map_or(1, |r| r.settings.agent_size.max(1));
        request
            .map(|r| r.goal)
            .or(follow.map(|f| f.goal))
            .into_iter()
            .flat_map(move |goal| nav.body_cells(goal, size))
    });
    Protected { units: standing.collect(), goals: heading.collect() }
}

/// The cells (top-left cells of the body) of the straight line a mover walks now: from the last
/// cell centre it reached to its next waypoint, with the cells beside a diagonal step (the
/// corner rule reads them). A smoothed route's segment crosses cells that are neither where the
/// mover stands nor where it steps next; a wall painted on one of them would be walked into
/// before the re-planned route arrives.
fn walking_line(nav: &NavGrid, mover: Option<&Mover>, waypoints: Option<&Waypoints>) -> Vec<Pos> {
    let (Some(from), Some(to)) =
        (mover.and_then(Mover::cell), waypoints.and_then(|w| w.front()).map(|w| w.cell))
    else {
        return Vec::new();
    };
    let (dx, dy) = (from.x.abs_diff(to.x), from.y.abs_diff(to.y));
    match (dx, dy) {
        (0, 0) => Vec::new(),
        (1, 1) => vec![Pos::new(from.x, to.y), Pos::new(to.x, from.y)],
        (0 | 1, 0 | 1) => Vec::new(),
        _ => gridpath::sight::segment_cells(nav.grid(), from, to),
    }
}

/// Where a unit is: its transform, the cells its mover stands on or steps into, its request
/// (its size) and its route (the line it walks).
type UnitPlace =
    (&'static Transform, Option<&'static Mover>, Option<&'static PathRequest>, Option<&'static Waypoints>);
/// Where a unit goes: its route request or its flow field.
type UnitGoal = AnyOf<(&'static PathRequest, &'static FollowFlowField)>;

fn place_endpoints_by_key(
    mut controls: MessageReader<Control>,
    hover: Res<HoverTile>,
    mut problem: SearchProblemMut,
    mut notices: MessageWriter<Notice>,
) {
    for control in controls.read() {
        let which = match control {
            Control::PlaceStart => Endpoint::Start,
            Control::PlaceGoal => Endpoint::Goal,
            _ => continue,
        };
        let Some(cell) = hover.0 else {
            notices.write(Notice::warning(format!("point at a map cell to place the {which}")));
            continue;
        };
        if let Err(problem) = move_endpoint(&mut problem, which, cell) {
            notices.write(Notice::warning(problem));
        }
    }
}

fn clear_walls(mut problem: SearchProblemMut, mut notices: MessageWriter<Notice>) {
    let walls: Vec<Pos> =
        problem.grid().positions().filter(|&p| problem.grid().tile(p) == Some(Tile::Wall)).collect();
    if walls.is_empty() {
        return;
    }
    // In bounds by construction; an error would leave the grid as it was. One bulk edit: cell
    // by cell, each would recompute its rows' and columns' jump bits (seconds on a 1024² city).
    let floor: Vec<(Pos, Tile)> = walls.iter().map(|&cell| (cell, Tile::FLOOR)).collect();
    let _ = problem.nav_mut().set_tiles(&floor);
    notices.write(Notice::info(format!("cleared {} walls", walls.len())));
}

/// `R` asks for a new map from the current generator with the next seed; `Shift+R` switches
/// to the next generator first. The map is opened like a file (autosaving unsaved edits first).
fn make_random_map(
    mut controls: MessageReader<Control>,
    problem: SearchProblem,
    mut generator: ResMut<MapGenerator>,
    mut seed: ResMut<MapSeed>,
    mut open: MessageWriter<OpenMap>,
) {
    for control in controls.read() {
        match control {
            Control::RandomMap => {}
            Control::NextGenerator => {
                let all = Generator::ALL;
                let index = all.iter().position(|g| g.name() == generator.0.name()).unwrap_or(0);
                generator.0 = all[(index + 1) % all.len()];
            }
            _ => continue,
        }
        let (width, height) = (problem.grid().width(), problem.grid().height());
        open.write(OpenMap(MapSource::Generated { generator: generator.0, seed: seed.0, width, height }));
        seed.0 += 1;
    }
}

/// `--seed` / `--generator`: replace the start-up map by a generated one of the same size.
fn generate_at_start(
    problem: SearchProblem,
    generator: Res<MapGenerator>,
    mut seed: ResMut<MapSeed>,
    mut open: MessageWriter<OpenMap>,
) {
    let (width, height) = (problem.grid().width(), problem.grid().height());
    open.write(OpenMap(MapSource::Generated { generator: generator.0, seed: seed.0, width, height }));
    seed.0 += 1;
}

fn begin_drag(
    buttons: Res<ButtonInput<MouseButton>>,
    hover: Res<HoverTile>,
    problem: SearchProblem,
    brush: Res<CurrentBrush>,
    selected: Query<(), With<Selected>>,
    mut drag: ResMut<Drag>,
) {
    // A press off the map does nothing, even if the cursor then moves onto the map.
    let Some(cell) = hover.0 else { return };
    if buttons.just_pressed(MouseButton::Left) {
        *drag = if cell == problem.start() {
            Drag::Move { button: MouseButton::Left, which: Endpoint::Start }
        } else if cell == problem.goal() {
            Drag::Move { button: MouseButton::Left, which: Endpoint::Goal }
        } else {
            Drag::Paint { button: MouseButton::Left, tile: brush.0.tile(), last: None }
        };
    } else if buttons.just_pressed(MouseButton::Right) && selected.is_empty() {
        // With units selected, the right button gives orders (the selection plugin).
        *drag = Drag::Paint { button: MouseButton::Right, tile: Tile::FLOOR, last: None };
    }
}

fn continue_drag(
    hover: Res<HoverTile>,
    mut drag: ResMut<Drag>,
    mut problem: SearchProblemMut,
    units: Query<UnitPlace, With<PathStatus>>,
    goals: Query<UnitGoal>,
    mut notices: MessageWriter<Notice>,
) {
    match *drag {
        Drag::Idle => {}
        Drag::Paint { button, tile, last } => {
            let Some(cell) = hover.0 else {
                // Off the map: the stroke resumes where the cursor comes back.
                *drag = Drag::Paint { button, tile, last: None };
                return;
            };
            if last == Some(cell) {
                return;
            }
            // Fill the gap since the last sample: a fast mouse skips cells between frames.
            let mut cells = last.map_or_else(|| vec![cell], |from| line_cells(from, cell));
            if last.is_some() {
                cells.remove(0);
            }
            // Only walls need the protected cells: no need to collect them for terrain.
            let protected = if tile.is_wall() {
                protected_cells(problem.nav(), &units, &goals)
            } else {
                Protected::default()
            };
            // The grid records the changed cells: the plugin announces them as `GridChanged`.
            let refusal = paint(&mut problem, &protected, &cells, tile);
            if let Some(problem) = refusal {
                notices.write(Notice::warning(problem));
            }
            *drag = Drag::Paint { button, tile, last: Some(cell) };
        }
        Drag::Move { which, .. } => {
            // Invalid cells are skipped silently: the marker waits at its last valid cell.
            if let Some(cell) = hover.0 {
                let _ = move_endpoint(&mut problem, which, cell);
            }
        }
    }
}

fn end_drag(buttons: Res<ButtonInput<MouseButton>>, mut drag: ResMut<Drag>) {
    let button = match *drag {
        Drag::Idle => return,
        Drag::Paint { button, .. } | Drag::Move { button, .. } => button,
    };
    if !buttons.pressed(button) {
        *drag = Drag::Idle;
    }
}
