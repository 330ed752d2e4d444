//! [`GridPathDebugPlugin`]: gizmos for the grid's walls, every remaining route and the flow
//! fields' arrows. Needs Bevy's gizmos (`bevy_gizmos`, and `bevy_gizmos_render` to see them).

use bevy::prelude::*;
use gridpath::Pos;

use crate::GridPathSystems;
use crate::flow::FlowFields;
use crate::nav::NavGrid;
use crate::plan::Waypoints;

/// Most cells outlined or arrows drawn per frame: past that the drawing samples the map (a
/// 1024 x 1024 map would otherwise draw a million shapes a frame).
const MAX_SHAPES: u32 = 4096;

/// Draws what the pathfinding sees: wall outlines, routes and flow arrows. Toggle parts with
/// [`GridPathDebug`].
pub struct GridPathDebugPlugin;

impl Plugin for GridPathDebugPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<GridPathDebug>();
        app.add_systems(
            Update,
            (draw_walls, draw_routes, draw_flow_arrows)
                .after(GridPathSystems::Move)
                .run_if(resource_exists::<NavGrid>),
        );
    }
}

/// Which debug drawings are on, and their colours.
#[derive(Resource, Debug, Clone, Copy, PartialEq)]
pub struct GridPathDebug {
    /// Outline wall cells.
    pub walls: Option<Color>,
    /// Draw every entity's remaining route.
    pub routes: Option<Color>,
    /// Draw an arrow per cell of every flow field (sampled on big maps).
    pub flow: Option<Color>,
}

impl Default for GridPathDebug {
    fn default() -> Self {
        Self {
            walls: Some(Color::srgb(0.9, 0.3, 0.3)),
            routes: Some(Color::srgb(1.0, 0.9, 0.2)),
            flow: Some(Color::srgba(0.4, 0.8, 1.0, 0.6)),
        }
    }
}

/// Every `stride`-th cell in both directions, with `stride` chosen so at most [`MAX_SHAPES`]
/// cells come out.
fn sampled_cells(nav: &NavGrid) -> impl Iterator<Item = Pos> + use<> {
    let (w, h) = (nav.grid().width(), nav.grid().height());
    let cells = u64::from(w) * u64::from(h);
    let mut stride = 1u32;
    while cells / u64::from(stride * stride) > u64::from(MAX_SHAPES) {
        stride += 1;
    }
    (0..h)
        .step_by(stride as usize)
        .flat_map(move |y| (0..w).step_by(stride as usize).map(move |x| Pos::new(x, y)))
}

fn draw_walls(mut gizmos: Gizmos, nav: Res<NavGrid>, debug: Res<GridPathDebug>) {
    let Some(color) = debug.walls else { return };
    let size = Vec2::splat(nav.tile_size() * 0.9);
    for cell in sampled_cells(&nav).filter(|&c| !nav.grid().is_passable(c)) {
        gizmos.rect_2d(nav.cell_center(cell), size, color);
    }
}

fn draw_routes(mut gizmos: Gizmos, debug: Res<GridPathDebug>, units: Query<(&Transform, &Waypoints)>) {
    let Some(color) = debug.routes else { return };
    for (transform, waypoints) in &units {
        if waypoints.is_empty() {
            continue;
        }
        let points =
            std::iter::once(transform.translation.truncate()).chain(waypoints.iter().map(|w| w.point));
        gizmos.linestrip_2d(points, color);
    }
}

fn draw_flow_arrows(
    mut gizmos: Gizmos,
    nav: Res<NavGrid>,
    fields: Res<FlowFields>,
    debug: Res<GridPathDebug>,
) {
    let Some(color) = debug.flow else { return };
    for field in fields.iter().filter_map(|(_, shared)| shared.field.as_ref()) {
        for cell in sampled_cells(&nav) {
            if let Some(next) = field.next_step(cell) {
                let from = nav.cell_center(cell);
                let to = from + (nav.cell_center(next) - from) * 0.4;
                gizmos.arrow_2d(from, to, color);
            }
        }
    }
}
