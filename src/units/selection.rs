//! Selecting crowd units and giving them orders. `Shift`+left-drag draws a selection box (the
//! units inside it become the selection; an empty box clears it), `A` selects every crowd
//! unit, and a right-click with units selected sends them to the cell under the cursor: two
//! or more share the goal's flow field, a single unit plans its own route with the chosen
//! algorithm. Without a selection the right button erases, as before.

use bevy::input::common_conditions::{input_just_pressed, input_just_released};
use bevy::prelude::*;
use gridpath::Pos;

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems, shift_held};
use crate::input::pointer::HoverTile;
use crate::input::pointer::Selected;
use crate::map::problem::SearchProblem;
use crate::notice::Notice;
use crate::units::crowd::{CrowdUnit, Target, give_order};
use crate::units::lab::Unit;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<SelectBox>();
    app.add_systems(
        Update,
        (
            begin_select_box
                .run_if(shift_held.and_then(input_just_pressed(MouseButton::Left)))
                .run_if(resource_equals(SelectBox(None))),
            stretch_select_box.run_if(not(resource_equals(SelectBox(None)))),
            select_boxed_units
                .run_if(input_just_released(MouseButton::Left))
                .run_if(not(resource_equals(SelectBox(None)))),
            select_all_units.run_if(on_message::<Control>),
            order_selected_units.run_if(input_just_pressed(MouseButton::Right)),
        )
            .chain()
            .in_set(AppSystems::RecordInput)
            .after(ControlSystems),
    );
}

/// The selection box being dragged: the cell where it began and the cell under the cursor.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SelectBox(pub Option<(Pos, Pos)>);

impl SelectBox {
    /// `true` when `cell` lies inside the box (edges included).
    pub fn contains(&self, cell: Pos) -> bool {
        self.0.is_some_and(|(a, b)| {
            (a.x.min(b.x)..=a.x.max(b.x)).contains(&cell.x) && (a.y.min(b.y)..=a.y.max(b.y)).contains(&cell.y)
        })
    }
}

fn begin_select_box(hover: Res<HoverTile>, mut select_box: ResMut<SelectBox>) {
    if let Some(cell) = hover.0 {
        *select_box = SelectBox(Some((cell, cell)));
    }
}

fn stretch_select_box(hover: Res<HoverTile>, mut select_box: ResMut<SelectBox>) {
    if let (Some(cell), Some((anchor, current))) = (hover.0, select_box.0)
        && cell != current
    {
        *select_box = SelectBox(Some((anchor, cell)));
    }
}

/// The button was released: the units inside the box become the selection.
fn select_boxed_units(
    mut commands: Commands,
    mut select_box: ResMut<SelectBox>,
    units: Query<(Entity, &Unit, Has<Selected>), With<CrowdUnit>>,
    mut notices: MessageWriter<Notice>,
) {
    let mut count = 0;
    for (entity, unit, selected) in &units {
        let inside = select_box.contains(unit.cell());
        count += usize::from(inside);
        match (inside, selected) {
            (true, false) => {
                commands.entity(entity).insert(Selected);
            }
            (false, true) => {
                commands.entity(entity).remove::<Selected>();
            }
            _ => {}
        }
    }
    *select_box = SelectBox(None);
    notices.write(Notice::info(format!("{count} units selected")));
}

fn select_all_units(
    mut commands: Commands,
    mut controls: MessageReader<Control>,
    units: Query<Entity, (With<CrowdUnit>, Without<Selected>)>,
    all: Query<(), With<CrowdUnit>>,
    mut notices: MessageWriter<Notice>,
) {
    if !controls.read().any(|c| *c == Control::SelectAll) {
        return;
    }
    for entity in &units {
        commands.entity(entity).insert(Selected);
    }
    notices.write(Notice::info(format!("{} units selected", all.iter().len())));
}

/// Right-click with units selected: send them to the cell under the cursor.
fn order_selected_units(
    mut commands: Commands,
    hover: Res<HoverTile>,
    problem: SearchProblem,
    units: Query<Entity, (With<CrowdUnit>, With<Selected>)>,
    mut notices: MessageWriter<Notice>,
) {
    let Some(cell) = hover.0 else { return };
    let count = units.iter().len();
    if count == 0 {
        return;
    }
    if !problem.grid().is_passable(cell) {
        notices.write(Notice::warning("units can't go into a wall"));
        return;
    }
    let shared = count >= 2;
    for entity in &units {
        give_order(&mut commands, entity, Target::Cell(cell), shared);
    }
    let how = if shared { "sharing one flow field" } else { "on its own route" };
    notices.write(Notice::info(format!("{count} units sent to {cell}, {how}")));
}
