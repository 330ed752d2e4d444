//! Large units (`J`: 2 × 2, `Shift+J`: 3 × 3): spawned with their top-left cell under the
//! cursor, drawn at their size, they plan with their clearance (gridpath's `agent_size`) to the
//! main goal and walk with the plugin's `Mover`, so their whole body stays off walls.

use bevy::prelude::*;
use bevy_gridpath::{GridPathSystems, Mover, PathRequest};
use gridpath::Pos;

use crate::AppSystems;
use crate::edit::files::LoadMapSystems;
use crate::edit::paint::EditSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::input::pointer::HoverTile;
use crate::map::problem::{SearchProblem, SmoothRoutes};
use crate::notice::Notice;
use crate::units::lab::{Unit, UnitLook, UnitSpeed};

/// Depth of large units: above the crowd, below the lab's unit.
const BIG_Z: f32 = 2.8;
/// Their tint.
const BIG_COLOR: Color = Color::srgb(1.0, 0.72, 0.45);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        spawn_big_units
            .run_if(on_message::<Control>)
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems)
            .after(EditSystems)
            .after(LoadMapSystems),
    );
    app.add_systems(Update, request_big_routes.in_set(AppSystems::Plan).before(GridPathSystems::Request));
}

/// A unit `size` cells wide and high; its [`Unit`] cell is its body's top-left cell.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct BigUnit {
    /// Side of its body, in cells (2 or 3).
    pub size: u8,
}

fn spawn_big_units(
    mut controls: MessageReader<Control>,
    mut commands: Commands,
    hover: Res<HoverTile>,
    problem: SearchProblem,
    speed: Res<UnitSpeed>,
    mut notices: MessageWriter<Notice>,
) {
    for control in controls.read() {
        let Control::SpawnBigUnit(size) = *control else { continue };
        let Some(anchor) = hover.0 else {
            notices.write(Notice::warning("point at a map cell to spawn a large unit there"));
            continue;
        };
        if problem.grid().clearance(anchor) < size {
            notices.write(Notice::warning(format!("a {size}x{size} unit does not fit there")));
            continue;
        }
        let mut mover = Mover::new(speed.0);
        mover.place(anchor);
        let at = problem.nav().body_center(anchor, size).extend(BIG_Z);
        commands.spawn((
            Name::new(format!("Unit {size}x{size}")),
            BigUnit { size },
            Unit::new(anchor),
            mover,
            UnitLook { scale: f32::from(size), color: BIG_COLOR },
            PathRequest::new(problem.goal()),
            Transform::from_translation(at),
        ));
    }
}

/// Keeps each large unit's request on the main goal with the current settings and its size.
fn request_big_routes(
    problem: SearchProblem,
    smooth: Res<SmoothRoutes>,
    mut units: Query<(&BigUnit, &mut PathRequest)>,
) {
    for (big, mut request) in &mut units {
        let settings = bevy_gridpath::gridpath::Settings { agent_size: big.size, ..*problem.settings() };
        let goal = body_over(problem.goal(), big.size, (problem.grid().width(), problem.grid().height()));
        request.set_if_neq(PathRequest { goal, settings, smooth: smooth.0 });
    }
}

/// The top-left cell of a `size` × `size` body on a `width` × `height` map that covers `cell`,
/// as centred on it as the map's edges allow: where a large unit stands "on" the goal.
pub fn body_over(cell: Pos, size: u8, (width, height): (u32, u32)) -> Pos {
    let size = u32::from(size.max(1));
    let start = |v: u32, side: u32| v.saturating_sub(size / 2).min(side.saturating_sub(size));
    Pos::new(start(cell.x, width), start(cell.y, height))
}
