//! The search problem: the map (the plugin's [`NavGrid`]), the [`Endpoints`] and the
//! [`SearchSettings`], each its own resource, read together through [`SearchProblem`] and
//! changed through [`SearchProblemMut`].

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_gridpath::NavGrid;
use gridpath::{Algorithm, Grid, Pos, Settings};

use crate::map::geometry::Geometry;

/// Where units start and where they go.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoints {
    /// Where the lab's unit starts.
    pub start: Pos,
    /// Where units go.
    pub goal: Pos,
}

/// How routes are searched: algorithm, rules, heuristic, weight.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Default, Deref, DerefMut)]
pub struct SearchSettings(pub Settings);

/// Whether units' routes are pulled taut into straight segments (`gridpath::smooth`) or walked
/// cell to cell as the search found them.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, Deref, DerefMut)]
pub struct SmoothRoutes(pub bool);

/// Whether routes are re-planned incrementally (D* Lite, `gridpath::Incremental`): the main
/// search and the lab's unit repair their last search after an edit instead of starting over.
#[derive(Resource, Debug, Clone, Copy, PartialEq, Eq, Default, Deref, DerefMut)]
pub struct IncrementalReplanning(pub bool);

/// The read side of the search problem, for [`SearchProblem`] and [`SearchProblemMut`].
macro_rules! read_problem {
    ($param:ident) => {
        impl $param<'_> {
            /// The map.
            pub fn grid(&self) -> &Grid {
                self.nav.grid()
            }

            /// The map placed in the world.
            pub fn nav(&self) -> &NavGrid {
                &self.nav
            }

            /// Where units start.
            pub fn start(&self) -> Pos {
                self.endpoints.start
            }

            /// Where units go.
            pub fn goal(&self) -> Pos {
                self.endpoints.goal
            }

            /// The start and the goal.
            pub fn endpoints(&self) -> Endpoints {
                *self.endpoints
            }

            /// How routes are searched.
            pub fn settings(&self) -> &Settings {
                &self.settings.0
            }

            /// Where the map lies in world space.
            pub fn geometry(&self) -> Geometry {
                Geometry::of(self.nav.grid())
            }
        }
    };
}

/// The search problem, read together: the map, the endpoints and the settings.
#[derive(SystemParam)]
pub struct SearchProblem<'w> {
    nav: Res<'w, NavGrid>,
    endpoints: Res<'w, Endpoints>,
    settings: Res<'w, SearchSettings>,
}

read_problem!(SearchProblem);

impl SearchProblem<'_> {
    /// `true` when the map, the endpoints or the settings changed since the system asking last
    /// ran.
    pub fn is_changed(&self) -> bool {
        self.nav.is_changed() || self.endpoints.is_changed() || self.settings.is_changed()
    }
}

/// Run condition: the search problem changed (see [`SearchProblem::is_changed`]).
pub fn problem_changed(problem: SearchProblem) -> bool {
    problem.is_changed()
}

/// The search problem for systems that change it. Each part is its own resource: changing the
/// goal marks only the endpoints changed, painting only the map.
#[derive(SystemParam)]
pub struct SearchProblemMut<'w> {
    nav: ResMut<'w, NavGrid>,
    endpoints: ResMut<'w, Endpoints>,
    settings: ResMut<'w, SearchSettings>,
}

read_problem!(SearchProblemMut);

impl SearchProblemMut<'_> {
    /// The map, to edit (its edit methods record what changed).
    pub fn nav_mut(&mut self) -> &mut NavGrid {
        &mut self.nav
    }

    /// Moves the start.
    pub fn set_start(&mut self, start: Pos) {
        self.endpoints.start = start;
    }

    /// Moves the goal.
    pub fn set_goal(&mut self, goal: Pos) {
        self.endpoints.goal = goal;
    }

    /// The settings, to change.
    pub fn settings_mut(&mut self) -> &mut Settings {
        &mut self.settings.0
    }

    /// Puts a new map and its endpoints in place (the plugin drops what it planned for the old
    /// one).
    pub fn install(&mut self, grid: Grid, endpoints: Endpoints) {
        self.nav.replace(grid);
        *self.endpoints = endpoints;
    }
}

/// Why `algorithm` cannot be used on a map with terrain costs, if it cannot: Lazy Theta* cannot
/// run on one (`gridpath` refuses), BFS and the wavefront would run but count steps, ignoring
/// costs. (JPS runs on terrain costs since issue 24, exactly.)
pub fn cost_blind(algorithm: Algorithm) -> Option<&'static str> {
    match algorithm {
        Algorithm::Bfs => Some("BFS counts steps: it ignores terrain costs"),
        Algorithm::Wavefront => Some("the wavefront counts steps: it ignores terrain costs"),
        Algorithm::LazyTheta => Some("Lazy Theta* needs uniform terrain cost"),
        Algorithm::AStar
        | Algorithm::Dijkstra
        | Algorithm::Greedy
        | Algorithm::Jps
        | Algorithm::Bidirectional
        | Algorithm::Theta => None,
    }
}
