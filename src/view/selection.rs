//! The selection seen: a yellow ring around every selected unit and the outline of the box
//! being dragged.

use bevy::prelude::*;
use gridpath::Pos;

use crate::AppSystems;
use crate::input::pointer::Selected;
use crate::map::geometry::TILE_SIZE;
use crate::map::problem::SearchProblem;
use crate::units::selection::SelectBox;
use crate::view::sprites::UnitBody;

/// The ring around selected units.
const SELECTED_COLOR: Color = Color::srgb(1.0, 0.86, 0.30);
/// Radius of the selection ring, as a share of the unit sprite's size.
const RING_RADIUS: f32 = 0.6;
/// Outline of the selection box.
const BOX_COLOR: Color = Color::srgb(1.0, 0.86, 0.30);

/// Selection tint and the selection box outline.
pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (draw_selection_rings, draw_select_box.run_if(not(resource_equals(SelectBox(None)))))
            .in_set(AppSystems::Present),
    );
}

/// Rings every selected unit in yellow. A ring rather than a tint: the sprite's colours
/// multiply a tint, and yellow on the purple body came out brown.
fn draw_selection_rings(
    mut gizmos: Gizmos,
    units: Query<(&Transform, &Children), (With<Selected>, Without<UnitBody>)>,
    bodies: Query<&Transform, With<UnitBody>>,
) {
    for (transform, children) in &units {
        // The body's scale includes its enlargement when zoomed out: the ring grows with it.
        let scale = children.iter().find_map(|child| bodies.get(child).ok()).map_or(1.0, |body| body.scale.x);
        let radius = RING_RADIUS * TILE_SIZE * scale;
        gizmos.circle_2d(
            Isometry2d::from_translation(transform.translation.truncate()),
            radius,
            SELECTED_COLOR,
        );
    }
}

fn draw_select_box(mut gizmos: Gizmos, select_box: Res<SelectBox>, problem: SearchProblem) {
    let Some((a, b)) = select_box.0 else { return };
    let geometry = problem.geometry();
    let (low, high) = (Pos::new(a.x.min(b.x), a.y.min(b.y)), Pos::new(a.x.max(b.x), a.y.max(b.y)));
    let (p, q) = (geometry.cell_center(low), geometry.cell_center(high));
    let size = (q - p).abs() + Vec2::splat(TILE_SIZE);
    gizmos.rect_2d(Isometry2d::from_translation((p + q) / 2.0), size, BOX_COLOR);
}
