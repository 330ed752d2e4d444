//! Terrain brushes: what a left-drag paints. The wall brush (`0` or `W`) is the default; `1`–`4`
//! paint floor (cost 1), grass (2), mud (5) and shallows (10). Every cost-aware algorithm honours
//! the costs (and crowd units walk slower on them); a brush with costs is refused while the
//! chosen algorithm cannot use them (BFS, the wavefront, Lazy Theta*), with the reason.
//!
//! Shallows are expensive *ground*, drawn pale and sandy: `gridpath`'s `Tile::Water` (the maps'
//! deep blue water) is a terrain class of its own that only connects to water (the Moving AI
//! rule), so painted water would be an island nobody could enter from the shore, not a slow
//! crossing. The two look different on purpose, and the help explains both.

use bevy::prelude::*;

use crate::AppSystems;
use crate::input::bindings::{Control, ControlSystems};
use crate::map::problem::SearchProblem;
use crate::map::terrain::{Brush, brush_problem};
use crate::notice::Notice;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<CurrentBrush>();
    app.add_systems(
        Update,
        select_brush.run_if(on_message::<Control>).in_set(AppSystems::RecordInput).after(ControlSystems),
    );
}

/// The brush a left-drag paints with.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CurrentBrush(pub Brush);

fn select_brush(
    mut controls: MessageReader<Control>,
    mut brush: ResMut<CurrentBrush>,
    problem: SearchProblem,
    mut notices: MessageWriter<Notice>,
) {
    for control in controls.read() {
        let Control::SelectBrush(chosen) = *control else { continue };
        if let Some(problem) = brush_problem(problem.settings(), chosen) {
            notices.write(Notice::warning(format!("{} brush not available: {problem}", chosen.name())));
            continue;
        }
        brush.set_if_neq(CurrentBrush(chosen));
        let cost = chosen.cost().map_or_else(String::new, |c| format!(" (cost {c})"));
        notices.write(Notice::info(format!("brush: {}{cost}", chosen.name())));
    }
}
