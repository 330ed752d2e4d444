//! Units, all of them `bevy_gridpath` users: the lab's unit, crowds and their steering, large
//! units, the selection and orders, and the scenario replay that sends units through a `.scen`
//! file.

use bevy::prelude::*;

pub mod big;
pub mod crowd;
pub mod lab;
pub mod scenario;
pub(crate) mod selection;
pub(crate) mod steering;

pub use steering::{CrowdAvoidance, UNIT_RADIUS, walker_radius};

pub(super) fn plugin(app: &mut App) {
    app.add_plugins((
        lab::plugin,
        crowd::plugin,
        big::plugin,
        selection::plugin,
        steering::plugin,
        scenario::plugin,
    ));
}
