//! What the CLI checks about a route, apart from the searches: an independent check that a large
//! agent's body fits along it.

use gridpath::{Grid, Pos, Tile, sight};

/// The terrain class of a tile, 0 for a wall or a cell off the grid.
fn class(tile: Option<Tile>) -> u8 {
    match tile {
        Some(Tile::Ground { .. }) => 1,
        Some(Tile::Water { .. }) => 2,
        Some(Tile::Trees { .. }) => 3,
        Some(Tile::Wall) | None => 0,
    }
}

/// The class of every cell of the `k` × `k` body with its top-left cell on `p`, when they are
/// all passable and of one class; `None` otherwise (off the grid included).
fn body(grid: &Grid, p: Pos, k: u32) -> Option<u8> {
    let own = class(grid.tile(p));
    let fits = (0..k).all(|dy| {
        (0..k).all(|dx| {
            let (x, y) = (p.x.checked_add(dx), p.y.checked_add(dy));
            x.zip(y).is_some_and(|(x, y)| class(grid.tile(Pos::new(x, y))) == own)
        })
    });
    (own != 0 && fits).then_some(own)
}

/// `true` when a `k` × `k` body, anchored at its top-left cell, can walk `vertices` under the
/// Moving AI rules (8 directions, no corner cutting), checked cell by cell on `grid` itself
/// (not on the searches' derived agent grid): each segment is taken as the anchor cells it
/// crosses ([`sight::path_cells`]; a grid path is its own cells), and on every step between
/// two of them the whole body stands on passable cells of the start's class at both ends, and
/// a diagonal step also has room for the body at both orthogonal neighbours (what the body
/// sweeps when it passes the corner).
pub(crate) fn body_fits_along(grid: &Grid, vertices: &[Pos], k: u32) -> bool {
    let Some(&first) = vertices.first() else { return false };
    let Some(own) = body(grid, first, k) else { return false };
    let cells = sight::path_cells(grid, vertices);
    let fits = |p: Pos| body(grid, p, k) == Some(own);
    cells.windows(2).all(|w| {
        let (a, b) = (w[0], w[1]);
        let near = a.x.abs_diff(b.x) <= 1 && a.y.abs_diff(b.y) <= 1;
        let diagonal = a.x != b.x && a.y != b.y;
        near && fits(b) && (!diagonal || (fits(Pos::new(b.x, a.y)) && fits(Pos::new(a.x, b.y))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_needs_room_on_every_step() {
        let map = gridpath::formats::parse_ascii("....\n....\n..#.\n....").unwrap();
        let grid = &map.grid;
        let p = |x, y| Pos::new(x, y);
        assert!(body_fits_along(grid, &[p(0, 0), p(1, 0)], 2));
        assert!(!body_fits_along(grid, &[p(0, 0), p(1, 1)], 2), "the body would stand on the wall");
        assert!(!body_fits_along(grid, &[p(1, 0), p(1, 2)], 2), "the body's right column meets the wall");
        assert!(body_fits_along(grid, &[p(1, 0), p(1, 2)], 1));
        assert!(!body_fits_along(grid, &[p(2, 0), p(3, 0)], 2), "off the grid");
    }
}
