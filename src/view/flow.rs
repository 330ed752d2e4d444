//! The flow-field view (`D`): the distance from every cell to the goal
//! (`gridpath::FlowField::dijkstra`, with the current moves and corner rule) as a heat map, a
//! small arrow per cell toward its next step, and — on small maps — each cell's contour step
//! number (`FlowField::wavefront`: the goal is 1, each step away one more), as the classic
//! wavefront tutorial prints them. The search tint is hidden meanwhile; the path stays.
//!
//! On maps above [`INLINE_FLOW_CELLS`] the field and its heat map are worked out on a thread of
//! their own, one at a time: a Dijkstra over a 2048 x 2048 map and its 4 million texels froze
//! every edit frame for a fifth of a second. The last heat map stays until the new one is done.

use bevy::prelude::*;
use bevy_gridpath::NavVersion;
use gridpath::{FlowField, Grid, Pos, Rules};

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::geometry::TILE_SIZE;
use crate::map::problem::{SearchProblem, problem_changed};
use crate::view::assets::cell_image;
use bevy_gridpath::OffFrame;

/// Depth of the heat map: over the terrain (0), under the path overlay (1).
const HEAT_Z: f32 = 0.5;
/// Depth of the step numbers: over the path overlay, under the markers (2).
const NUMBER_Z: f32 = 1.5;
/// Opacity of the heat map (0–255): the terrain shows through a little.
const HEAT_ALPHA: u8 = 220;
/// Maps with at most this many cells (24 × 24) get step numbers: on bigger maps a fitted cell is
/// too small on screen for a number and an arrow.
pub const MAX_NUMBERED_CELLS: usize = 576;
/// Maps with at most this many cells get arrows (gizmos are redrawn every frame).
const MAX_ARROW_CELLS: usize = 16_384;
/// Step number text size, in world units (a cell is [`TILE_SIZE`] wide).
const NUMBER_SIZE: f32 = 12.0;
/// Arrow colour: dark, so it reads on every heat colour.
const ARROW_COLOR: Color = Color::srgba(0.05, 0.05, 0.1, 0.7);
/// Heat colours from the goal (0) to the farthest reached cell (1): yellow, green, teal, blue.
const HEAT_STOPS: [(f32, [f32; 3]); 4] = [
    (0.0, [0.99, 0.91, 0.15]),
    (0.35, [0.37, 0.79, 0.38]),
    (0.7, [0.13, 0.57, 0.55]),
    (1.0, [0.23, 0.32, 0.55]),
];

/// Maps with more cells than this get their field and heat map on a thread of their own.
pub const INLINE_FLOW_CELLS: usize = 512 * 512;

/// The flow-field view's plugin (part of the game's view; a headless app with an asset server
/// for images can run it alone).
pub fn plugin(app: &mut App) {
    app.init_resource::<FlowView>();
    app.init_resource::<Fields>();
    app.init_resource::<FlowJobs>();
    app.add_systems(Startup, spawn_heat_map);
    app.add_systems(
        Update,
        toggle_flow_view.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
    app.add_systems(
        Update,
        (
            finish_flow_field.run_if(flow_building),
            show_flow_field.run_if(
                flow_shown
                    .and_then(problem_changed.or_else(resource_changed::<FlowView>).or_else(flow_wanted)),
            ),
            hide_flow_field.run_if(not(flow_shown).and_then(resource_changed::<FlowView>)),
            // Past the arrow limit, not even a pass over the cells every frame.
            draw_flow_arrows.run_if(flow_shown.and_then(arrows_fit)),
        )
            .chain()
            .in_set(AppSystems::Present),
    );
}

/// Whether the flow-field view is on (key `D`).
#[derive(Resource, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FlowView {
    /// Shown.
    pub shown: bool,
}

/// The fields on screen: distance and next steps for the heat map and the arrows.
#[derive(Resource, Default)]
struct Fields {
    cost: Option<FlowField>,
}

/// A big map's field and heat map under way on their thread, and whether another is due.
#[derive(Resource, Default)]
pub struct FlowJobs {
    running: OffFrame<FlowStamp, FlowHeat>,
    /// The map or goal changed while one was worked out: again once it is done.
    wanted: bool,
    /// Which map (its [`NavVersion::generation`]) the heat map shown is of.
    shown: Option<u64>,
    /// What the heat map shown was worked out for.
    built: Option<FlowStamp>,
}

impl FlowJobs {
    /// `true` while a big map's field is worked out, or another is due: the heat map shown is
    /// the last one.
    pub fn is_updating(&self) -> bool {
        self.running.is_running() || self.wanted
    }
}

/// What a field was worked out for.
#[derive(Clone, Copy, Debug, PartialEq)]
struct FlowStamp {
    version: NavVersion,
    goal: Pos,
    rules: Rules,
}

impl FlowStamp {
    fn of(problem: &SearchProblem) -> Self {
        Self { version: problem.nav().version(), goal: problem.goal(), rules: problem.settings().rules }
    }
}

/// A field and its heat map's texels.
struct FlowHeat {
    cost: Option<FlowField>,
    /// The farthest reached cell's distance (at least 1): the far end of the heat scale.
    farthest: f64,
    texels: Vec<u8>,
}

impl FlowHeat {
    /// The distance field to `goal` and its heat map (the farthest reached cell at the far end
    /// of the scale).
    fn of(grid: &Grid, goal: Pos, rules: Rules) -> Self {
        // The goal is always on a free cell (the editor sees to it); a failure shows an empty field.
        let cost = FlowField::dijkstra(grid, goal, rules).ok();
        let farthest = grid
            .positions()
            .filter_map(|p| cost.as_ref().and_then(|f| f.distance(p)))
            .fold(0.0_f64, f64::max)
            .max(1.0);
        let texels = heat_texels(grid, cost.as_ref(), farthest);
        Self { cost, farthest, texels }
    }
}

/// Run condition: a big map's field is worked out on its thread.
fn flow_building(jobs: Res<FlowJobs>) -> bool {
    jobs.running.is_running()
}

/// Run condition: another field is due.
fn flow_wanted(jobs: Res<FlowJobs>) -> bool {
    jobs.wanted
}

/// The heat map sprite: one texel per cell, stretched over the map.
#[derive(Component)]
struct HeatMap;

/// A step number drawn in a cell.
#[derive(Component)]
struct StepNumber;

/// Run condition: the map is small enough for an arrow per cell.
fn arrows_fit(problem: SearchProblem) -> bool {
    problem.grid().len() <= MAX_ARROW_CELLS
}

/// Run condition: the flow-field view is on.
fn flow_shown(view: Res<FlowView>) -> bool {
    view.shown
}

fn spawn_heat_map(mut commands: Commands) {
    commands.spawn((
        Name::new("Heat map"),
        HeatMap,
        Sprite::default(),
        Transform::from_xyz(0.0, 0.0, HEAT_Z),
        Visibility::Hidden,
    ));
}

fn toggle_flow_view(mut controls: MessageReader<Control>, mut view: ResMut<FlowView>) {
    for control in controls.read() {
        if *control == Control::ToggleFlowField {
            view.shown = !view.shown;
        }
    }
}

/// The heat colour of `t` (0 at the goal, 1 at the farthest reached cell), as sRGB bytes.
pub fn heat_color(t: f32) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    let upper = HEAT_STOPS.iter().position(|&(at, _)| at >= t).unwrap_or(HEAT_STOPS.len() - 1).max(1);
    let ((a, from), (b, to)) = (HEAT_STOPS[upper - 1], HEAT_STOPS[upper]);
    let mix = if b > a { (t - a) / (b - a) } else { 0.0 };
    // Each channel stays in 0..=1, so the byte conversion is exact enough and in range.
    std::array::from_fn(|i| ((from[i] + (to[i] - from[i]) * mix) * 255.0).round() as u8)
}

/// Rebuilds the fields, the heat map and the step numbers for the current map and goal: within
/// the frame, or on a big map on a thread of its own ([`finish_flow_field`] shows it).
fn show_flow_field(
    mut commands: Commands,
    problem: SearchProblem,
    (mut fields, mut jobs): (ResMut<Fields>, ResMut<FlowJobs>),
    mut images: ResMut<Assets<Image>>,
    heat_map: Single<(&mut Sprite, &mut Visibility), With<HeatMap>>,
    numbers: Query<Entity, With<StepNumber>>,
) {
    for entity in &numbers {
        commands.entity(entity).despawn();
    }
    jobs.wanted = false;
    let grid = problem.grid();
    let rules = problem.settings().rules;
    let geometry = problem.geometry();
    let generation = problem.nav().version().generation;
    let (mut sprite, mut visibility) = heat_map.into_inner();
    if grid.len() > INLINE_FLOW_CELLS {
        if jobs.shown != Some(generation) {
            // Another map: the last one's heat map is not about it, even while a job runs.
            *visibility = Visibility::Hidden;
            fields.cost = None;
        }
        let stamp = FlowStamp::of(&problem);
        let on_screen = jobs.built == Some(stamp) && *visibility != Visibility::Hidden;
        if jobs.running.stamp() == Some(&stamp) || on_screen {
            // The field running or shown is this one (the start moved, a setting the field
            // ignores changed): no second Dijkstra over the map.
            return;
        }
        if jobs.running.is_running() {
            jobs.wanted = true;
            return;
        }
        let (grid, goal) = (grid.clone(), problem.goal());
        let job = move || FlowHeat::of(&grid, goal, rules);
        match jobs.running.start("flow field", stamp, job) {
            Ok(()) => return,
            // No thread: worked out within the frame, as on a small map.
            Err(error) => warn!("no thread to work out the flow field on ({error}): within the frame"),
        }
    }
    let FlowHeat { cost, farthest, texels } = FlowHeat::of(grid, problem.goal(), rules);
    *sprite = Sprite {
        image: images.add(cell_image(geometry, texels)),
        custom_size: Some(geometry.world_size()),
        ..default()
    };
    *visibility = Visibility::Inherited;
    jobs.shown = Some(generation);
    jobs.built = Some(FlowStamp::of(&problem));
    if grid.len() <= MAX_NUMBERED_CELLS
        && let Ok(steps) = FlowField::wavefront(grid, problem.goal(), rules)
    {
        for cell in grid.positions() {
            let Some(number) = steps.step_number(cell) else { continue };
            let t = cost.as_ref().and_then(|f| f.distance(cell)).map_or(0.0, |d| d / farthest);
            // Dark digits on the light (near) half of the scale, light ones on the dark half.
            let color = if t < 0.5 { Color::srgb(0.08, 0.08, 0.12) } else { Color::srgb(0.95, 0.96, 0.98) };
            commands.spawn((
                StepNumber,
                Text2d::new(format!("{number:02}")),
                TextFont { font_size: FontSize::Px(NUMBER_SIZE), ..default() },
                TextColor(color),
                Transform::from_translation(geometry.cell_center(cell).extend(NUMBER_Z)),
            ));
        }
    }
    fields.cost = cost;
}

/// Shows a big map's field and heat map once their thread is done, if the view is still shown
/// and they are for the map and goal as they are now (else the next, due since the change, is
/// started by [`show_flow_field`]).
fn finish_flow_field(
    problem: SearchProblem,
    view: Res<FlowView>,
    (mut fields, mut jobs): (ResMut<Fields>, ResMut<FlowJobs>),
    mut images: ResMut<Assets<Image>>,
    heat_map: Single<(&mut Sprite, &mut Visibility), With<HeatMap>>,
) {
    let Some((result, stamp)) = jobs.running.take_finished() else { return };
    let (mut sprite, mut visibility) = heat_map.into_inner();
    let Ok(FlowHeat { cost, texels, .. }) = result else {
        // Not worked out again until the map or goal changes: it would fail the same way. The
        // heat map shown is not the map's any more.
        error!("the flow field's thread failed (a bug: please report the map)");
        *visibility = Visibility::Hidden;
        (fields.cost, jobs.shown, jobs.built, jobs.wanted) = (None, None, None, false);
        return;
    };
    if !view.shown || stamp != FlowStamp::of(&problem) {
        return;
    }
    let geometry = problem.geometry();
    *sprite = Sprite {
        image: images.add(cell_image(geometry, texels)),
        custom_size: Some(geometry.world_size()),
        ..default()
    };
    *visibility = Visibility::Inherited;
    jobs.shown = Some(stamp.version.generation);
    jobs.built = Some(stamp);
    // Changed back meanwhile: this is the field due.
    jobs.wanted = false;
    fields.cost = cost;
}

/// One texel per cell: its distance to the goal on the heat scale; clear where the goal cannot
/// be reached.
fn heat_texels(grid: &Grid, cost: Option<&FlowField>, farthest: f64) -> Vec<u8> {
    let mut texels = Vec::with_capacity(grid.len() * 4);
    for cell in grid.positions() {
        match cost.and_then(|f| f.distance(cell)) {
            Some(distance) => {
                let [r, g, b] = heat_color((distance / farthest) as f32);
                texels.extend([r, g, b, HEAT_ALPHA]);
            }
            // Walls and cells that cannot reach the goal stay as they are.
            None => texels.extend([0, 0, 0, 0]),
        }
    }
    texels
}

/// Hides the heat map and removes the step numbers.
fn hide_flow_field(
    mut commands: Commands,
    (mut fields, mut jobs): (ResMut<Fields>, ResMut<FlowJobs>),
    mut heat_map: Single<&mut Visibility, With<HeatMap>>,
    numbers: Query<Entity, With<StepNumber>>,
) {
    for entity in &numbers {
        commands.entity(entity).despawn();
    }
    **heat_map = Visibility::Hidden;
    fields.cost = None;
    // Hidden, nothing is due: shown again, the view works its field out anew.
    jobs.wanted = false;
}

/// A small arrow in every reached cell toward its next step; beside the number on small maps.
fn draw_flow_arrows(mut gizmos: Gizmos, problem: SearchProblem, fields: Res<Fields>) {
    let grid = problem.grid();
    let geometry = problem.geometry();
    let numbered = grid.len() <= MAX_NUMBERED_CELLS;
    // With numbers in the middle, the arrow sits between the number and the cell's edge.
    let (from, to) = if numbered { (0.24, 0.48) } else { (-0.3, 0.3) };
    // Huge maps get no arrows (`arrows_fit`): thousands of gizmos a frame would drown the frame rate.
    let field = fields.cost.as_ref();
    for (cell, next) in grid.positions().filter_map(|c| Some((c, field?.next_step(c)?))) {
        let (a, b) = (geometry.cell_center(cell), geometry.cell_center(next));
        let direction = (b - a).normalize_or_zero();
        let start = a + direction * from * TILE_SIZE;
        let end = a + direction * to * TILE_SIZE;
        gizmos.arrow_2d(start, end, ARROW_COLOR).with_tip_length(TILE_SIZE * 0.14);
    }
}
