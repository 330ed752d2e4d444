//! Distance estimates for the informed searches.

use crate::Pos;
use crate::grid::SQRT2;

/// A distance estimate between two cells.
///
/// Octile is exact on an open 8-connected grid and the best admissible choice there; Manhattan is
/// exact on an open 4-connected grid but overestimates diagonal moves; Euclidean and Chebyshev
/// are admissible but weaker; Zero turns A* into Dijkstra.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Heuristic {
    /// `dx + dy`.
    Manhattan,
    /// `sqrt(dx² + dy²)`.
    Euclidean,
    /// `max(dx, dy) + (√2 − 1) · min(dx, dy)`: the true length on an open 8-connected grid.
    #[default]
    Octile,
    /// `max(dx, dy)`.
    Chebyshev,
    /// Always 0.
    Zero,
}

impl Heuristic {
    /// Every heuristic, in display order.
    pub const ALL: [Heuristic; 5] = [
        Heuristic::Manhattan,
        Heuristic::Euclidean,
        Heuristic::Octile,
        Heuristic::Chebyshev,
        Heuristic::Zero,
    ];

    /// The estimate from `a` to `b`.
    ///
    /// ```
    /// use gridpath::{Heuristic, Pos};
    /// let (a, b) = (Pos::new(0, 0), Pos::new(3, 1));
    /// assert_eq!(Heuristic::Manhattan.estimate(a, b), 4.0);
    /// assert!((Heuristic::Octile.estimate(a, b) - (2.0 + 2f64.sqrt())).abs() < 1e-12);
    /// ```
    #[must_use]
    #[inline]
    pub fn estimate(self, a: Pos, b: Pos) -> f64 {
        let dx = f64::from(a.x.abs_diff(b.x));
        let dy = f64::from(a.y.abs_diff(b.y));
        self.of_delta(dx, dy)
    }

    #[inline(always)]
    pub(crate) fn of_delta(self, dx: f64, dy: f64) -> f64 {
        match self {
            Heuristic::Manhattan => dx + dy,
            Heuristic::Euclidean => (dx * dx + dy * dy).sqrt(),
            Heuristic::Octile => {
                let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
                hi + (SQRT2 - 1.0) * lo
            }
            Heuristic::Chebyshev => dx.max(dy),
            Heuristic::Zero => 0.0,
        }
    }

    /// Short lowercase name, as the CLI spells it.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Heuristic::Manhattan => "manhattan",
            Heuristic::Euclidean => "euclidean",
            Heuristic::Octile => "octile",
            Heuristic::Chebyshev => "chebyshev",
            Heuristic::Zero => "zero",
        }
    }

    /// Human label, capitalised (also what `Display` prints).
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Heuristic::Manhattan => "Manhattan",
            Heuristic::Euclidean => "Euclidean",
            Heuristic::Octile => "Octile",
            Heuristic::Chebyshev => "Chebyshev",
            Heuristic::Zero => "Zero",
        }
    }

    /// `true` when this estimate never exceeds the true cost under `moves` (costs ≥ 1).
    #[must_use]
    pub const fn is_admissible(self, moves: crate::Moves) -> bool {
        match self {
            Heuristic::Manhattan => matches!(moves, crate::Moves::Four),
            _ => true,
        }
    }
}

crate::names::named_enum!(Heuristic, "heuristic", label);
