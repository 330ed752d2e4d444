//! Search tracing: an observer sees every step a search takes, for visualisation and teaching.
//!
//! Searches are generic over [`Observer`]; with [`NoTrace`] every call is an inlined no-op, so an
//! untraced search compiles to the same code as one without any tracing.

use crate::Pos;

/// One step of a search, in the order it happened.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceEvent {
    /// A cell entered the open list for the first time.
    Opened {
        /// The cell.
        pos: Pos,
        /// Cost from the start (for backward searches: from the goal).
        g: f64,
        /// Heuristic estimate (already weighted).
        h: f64,
        /// Priority used by the open list.
        f: f64,
    },
    /// A cell already on the open list got a cheaper cost.
    Updated {
        /// The cell.
        pos: Pos,
        /// New cost from the start.
        g: f64,
        /// Heuristic estimate.
        h: f64,
        /// New priority.
        f: f64,
    },
    /// A cell was taken from the open list and expanded (it is now closed/visited).
    Closed {
        /// The cell.
        pos: Pos,
    },
    /// Jump Point Search found a jump point (it is then opened as usual).
    JumpPoint {
        /// The cell.
        pos: Pos,
    },
    /// Bidirectional search: the following events belong to the search from the goal (`true`) or
    /// from the start (`false`).
    Direction {
        /// `true` for the backward search.
        backward: bool,
    },
}

impl TraceEvent {
    /// The event for a cell pushed onto the open list: [`TraceEvent::Updated`] if it was there
    /// already (`seen`), else [`TraceEvent::Opened`].
    #[must_use]
    pub(crate) fn pushed(seen: bool, pos: Pos, g: f64, h: f64, f: f64) -> Self {
        if seen { TraceEvent::Updated { pos, g, h, f } } else { TraceEvent::Opened { pos, g, h, f } }
    }
}

/// Receives [`TraceEvent`]s from a search.
pub trait Observer {
    /// `false` only for observers that ignore everything; lets searches skip building events.
    const ENABLED: bool = true;
    /// Called for every event, in order.
    fn event(&mut self, event: TraceEvent);
}

/// The observer that ignores everything (zero cost).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTrace;

impl Observer for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn event(&mut self, _event: TraceEvent) {}
}

impl Observer for Vec<TraceEvent> {
    fn event(&mut self, event: TraceEvent) {
        self.push(event);
    }
}
