//! Engine-free grid pathfinding: A*, Dijkstra, breadth-first, greedy best-first, Jump Point
//! Search, bidirectional A*, the classic "contour line" wavefront, the any-angle Theta* and Lazy
//! Theta*, and flow fields, on 4- or 8-connected grids with terrain costs, plus map formats
//! (Moving AI, tutorial grids, tilepath's own `.tpmap`, Tiled `.tmx`) and seeded random map
//! generators.
//!
//! Beyond a cell-to-cell route: exact line of sight under the movement rules and a
//! string-pulling smoother ([`sight`], [`smooth`]), agents of 1×1 to 4×4 cells
//! ([`Settings::agent_size`], [`Grid::clearance`], [`FlowField::for_agent`]) and partial
//! routes toward an unreachable goal ([`Settings::partial`], [`Outcome`]). A preprocessed
//! exact search for the Moving AI rules, [`SubgoalGraph`] (subgoal graphs with a contraction
//! hierarchy), repairs itself after edits, so it never answers for a map that has changed. The
//! options' names parse and print one way everywhere (`"theta".parse::<Algorithm>()`,
//! [`ParseNameError`]).
//!
//! ```
//! use gridpath::{formats, Algorithm, Pos, Searcher, Settings};
//!
//! let map = formats::parse_ascii(
//!     "S...#....\n\
//!      ..#.#.##.\n\
//!      ..#...#.G",
//! )
//! .unwrap();
//! let (start, goal) = (map.start.unwrap(), map.goal.unwrap());
//! let mut searcher = Searcher::new();
//! let astar = searcher.find_path(&map.grid, start, goal, &Settings::default()).unwrap();
//! let jps = searcher
//!     .find_path(&map.grid, start, goal, &Settings::with_algorithm(Algorithm::Jps))
//!     .unwrap();
//! assert!((astar.cost - jps.cost).abs() < 1e-9);
//! assert_eq!(astar.cells.first(), Some(&start));
//! assert_eq!(astar.cells.last(), Some(&Pos::new(8, 2)));
//! ```
//!
//! Coordinates: `x` is the column, `y` the row, `(0, 0)` the top-left cell. Costs: a cardinal
//! step costs 1 and a diagonal step √2, times the terrain cost of the cell entered
//! ([`Grid`] documents the exact rule).
#![deny(missing_docs)]
#![warn(clippy::pedantic)]
#![expect(clippy::inline_always, reason = "the search loops' helpers must inline into them")]
#![expect(clippy::float_cmp, reason = "exact compares are meant: tie-breaks, step counts, weight 1")]
#![expect(clippy::many_single_char_names, reason = "grid math reads best as i, j, g, h, f")]

pub mod avoid;
pub mod field;
pub mod formats;
pub mod generate;
mod grid;
mod heuristic;
mod names;
#[cfg(feature = "peers")]
pub mod peers;
pub mod scenarios;
mod search;
pub mod sight;
mod subgoal;
pub mod trace;

pub use field::{FieldKind, FlowField};
pub use grid::{
    Corners, Grid, GridError, IllegalStep, MAX_AGENT_SIZE, MAX_COST, MAX_SIDE, Moves, Pos, Rules, SQRT2, Tile,
};
pub use heuristic::Heuristic;
pub use names::ParseNameError;
pub use search::{Algorithm, Endpoint, Incremental, Outcome, Path, SearchError, Searcher, Settings, Stats};
pub use sight::smooth;
pub use subgoal::{SubgoalGraph, SubgoalQuery};
pub use trace::{NoTrace, Observer, TraceEvent};
