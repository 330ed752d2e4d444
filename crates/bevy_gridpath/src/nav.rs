//! The map units walk on: [`NavGrid`], a [`gridpath::Grid`] placed in the world, whose edit
//! methods record what changed; the plugin announces it as a [`GridChanged`] message.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bevy::prelude::*;
use gridpath::{Grid, GridError, Pos, Tile};

use crate::GridPathSystems;

pub(crate) fn plugin(app: &mut App) {
    app.add_message::<GridChanged>();
    app.init_resource::<GridSnapshot>();
    app.add_systems(Update, publish_grid_changes.in_set(GridPathSystems::Request));
}

/// The walkable map: a [`Grid`] and where it lies in the world.
///
/// Cell `(x, y)` is a square of [`NavGrid::tile_size`] world units; `x` grows to the right and
/// `y` downwards (row 0 is the top row, as in map files), so world y decreases with the row.
/// Edit through the methods here, not through a `&mut Grid`: they record which cells changed,
/// which is how routes crossing an edit are re-planned.
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_gridpath::prelude::*;
///
/// let mut nav = NavGrid::centered(Grid::new(4, 2).unwrap(), 10.0);
/// assert_eq!(nav.cell_center(Pos::new(0, 0)), Vec2::new(-15.0, 5.0));
/// assert_eq!(nav.cell_at(Vec2::new(12.0, -3.0)), Some(Pos::new(3, 1)));
/// assert_eq!(nav.set_wall(Pos::new(1, 1), true), Ok(true));
/// assert!(!nav.grid().is_passable(Pos::new(1, 1)));
/// ```
#[derive(Resource, Debug)]
pub struct NavGrid {
    grid: Grid,
    layout: GridLayout,
    /// Which grid this is: a number no grid a `NavGrid` held before in this process had.
    generation: u64,
    /// Edits not yet announced.
    pending: Pending,
    /// The cells edited lately, for [`NavGrid::cells_edited_since`].
    log: EditLog,
}

/// The cells edited since [`EditLog::floor`], each with the grid's revision once it changed:
/// what a cache built on an earlier version needs to forget, without reading messages every
/// frame it runs.
#[derive(Debug, Clone, Default)]
struct EditLog {
    cells: Vec<(u64, Pos)>,
    /// Every edit after this revision is logged (an edit of any cell, or more edits than the
    /// log keeps, moves it on).
    floor: u64,
}

impl EditLog {
    /// Edits kept at most, however small the grid: past them, the older half is dropped.
    const MIN_KEPT: usize = 4096;

    fn push(&mut self, revision: u64, cell: Pos, cells_on_grid: usize) {
        self.cells.push((revision, cell));
        let kept = Self::MIN_KEPT.max(cells_on_grid / 8);
        if self.cells.len() > kept {
            let dropped = self.cells.len() / 2;
            self.floor = self.cells[dropped - 1].0;
            self.cells.drain(..dropped);
        }
    }

    /// Nothing is known cell by cell before `revision`.
    fn restart(&mut self, revision: u64) {
        self.cells.clear();
        self.floor = revision;
    }
}

/// Where a `width` × `height` grid lies in the world: cell `(x, y)` is a square of `tile_size`
/// world units, `x` to the right and `y` downwards from `origin`, the world position of cell
/// (0, 0)'s top-left corner. The conversions between cells and world points, for a
/// [`NavGrid`] and for anything drawn over it.
///
/// ```
/// use bevy::math::Vec2;
/// use bevy_gridpath::GridLayout;
/// use bevy_gridpath::prelude::Pos;
///
/// let layout = GridLayout::centered(4, 2, 10.0);
/// assert_eq!(layout.cell_center(Pos::new(0, 0)), Vec2::new(-15.0, 5.0));
/// assert_eq!(layout.cell_at(Vec2::new(12.0, -3.0)), Some(Pos::new(3, 1)));
/// assert_eq!(layout.cell_at(Vec2::new(21.0, 0.0)), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridLayout {
    /// World position of the top-left corner of cell (0, 0).
    pub origin: Vec2,
    /// Side of a cell in world units.
    pub tile_size: f32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

impl GridLayout {
    /// A `width` × `height` grid centred on the world origin.
    pub fn centered(width: u32, height: u32, tile_size: f32) -> Self {
        let origin = Vec2::new(-(width as f32), height as f32) * tile_size / 2.0;
        Self { origin, tile_size, width, height }
    }

    /// Size of the whole grid in world units.
    pub fn world_size(&self) -> Vec2 {
        Vec2::new(self.width as f32, self.height as f32) * self.tile_size
    }

    /// The world point at the grid's centre.
    pub fn center(&self) -> Vec2 {
        self.origin + Vec2::new(self.world_size().x, -self.world_size().y) / 2.0
    }

    /// The centre of `cell` in world space.
    pub fn cell_center(&self, cell: Pos) -> Vec2 {
        self.origin + Vec2::new(cell.x as f32 + 0.5, -(cell.y as f32 + 0.5)) * self.tile_size
    }

    /// From the centre of a body's top-left cell to the centre of the body, for a body
    /// `agent_size` cells wide (gridpath anchors a large agent at its top-left cell).
    pub fn body_offset(&self, agent_size: u8) -> Vec2 {
        let half = f32::from(agent_size.max(1) - 1) / 2.0;
        Vec2::new(half, -half) * self.tile_size
    }

    /// The centre of the `agent_size` × `agent_size` body whose top-left cell is `anchor`.
    pub fn body_center(&self, anchor: Pos, agent_size: u8) -> Vec2 {
        self.cell_center(anchor) + self.body_offset(agent_size)
    }

    /// The top-left cell of the `agent_size` × `agent_size` body centred on `world`.
    pub fn anchor_at(&self, world: Vec2, agent_size: u8) -> Option<Pos> {
        self.cell_at(world - self.body_offset(agent_size))
    }

    /// The cell containing the world point `world`, or `None` off the grid.
    pub fn cell_at(&self, world: Vec2) -> Option<Pos> {
        let col = ((world.x - self.origin.x) / self.tile_size).floor();
        let row = ((self.origin.y - world.y) / self.tile_size).floor();
        let inside = (0.0..self.width as f32).contains(&col) && (0.0..self.height as f32).contains(&row);
        // The range check makes both casts exact and in range.
        inside.then(|| Pos::new(col as u32, row as u32))
    }
}

/// A [`NavVersion::generation`] no grid had before.
fn next_generation() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl Clone for NavGrid {
    /// A copy of the map with a generation of its own: a copy put back later (an undo) is
    /// another grid to everything planned on the original since.
    fn clone(&self) -> Self {
        Self {
            grid: self.grid.clone(),
            layout: self.layout,
            generation: next_generation(),
            pending: self.pending.clone(),
            log: self.log.clone(),
        }
    }
}

/// Edits since the last [`GridChanged`].
#[derive(Debug, Clone, Default)]
struct Pending {
    cells: Vec<Pos>,
    all: bool,
    replaced: bool,
}

/// The grid at one version, shared by the work that reads it off the frame (the planning
/// batches of that version, the subgoal graph's job): one copy of the grid per version, made
/// when first asked for.
#[derive(Resource, Default)]
pub(crate) struct GridSnapshot(Option<(NavVersion, Arc<Grid>)>);

impl GridSnapshot {
    /// The grid at `nav`'s version.
    pub(crate) fn of(&mut self, nav: &NavGrid) -> Arc<Grid> {
        let version = nav.version();
        match &self.0 {
            Some((seen, grid)) if *seen == version => Arc::clone(grid),
            _ => Arc::clone(&self.0.insert((version, Arc::new(nav.grid().clone()))).1),
        }
    }
}

/// Which grid a route was planned on: the grid and its edit revision. A result planned on an
/// older version is not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct NavVersion {
    /// Which grid: a number no grid a [`NavGrid`] held before in this process had (a new
    /// `NavGrid`, a clone, [`NavGrid::replace`] and an [`NavGrid::edit`] that sets the revision
    /// back each take the next), so that a `NavGrid` put in whole for another level is never
    /// taken for the one before.
    pub generation: u64,
    /// [`Grid::revision`] of this grid.
    pub revision: u64,
}

/// The [`NavGrid`] changed since the last frame; written once per frame at the start of
/// [`GridPathSystems::Request`].
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub enum GridChanged {
    /// These cells changed (each listed once per edit that touched it).
    Cells(Vec<Pos>),
    /// Any cell may have changed ([`NavGrid::edit`], [`NavGrid::fill`]).
    All,
    /// A new grid replaced the old one ([`NavGrid::replace`]), possibly of another size.
    Replaced,
}

impl GridChanged {
    /// `true` when `cell` may have changed.
    pub fn touches(&self, cell: Pos) -> bool {
        match self {
            GridChanged::Cells(cells) => cells.contains(&cell),
            GridChanged::All | GridChanged::Replaced => true,
        }
    }
}

impl NavGrid {
    /// `grid` with its top-left corner at `origin`, each cell `tile_size` world units wide.
    pub fn new(grid: Grid, tile_size: f32, origin: Vec2) -> Self {
        let layout = GridLayout { origin, tile_size, width: grid.width(), height: grid.height() };
        let log = EditLog { cells: Vec::new(), floor: grid.revision() };
        Self { grid, layout, generation: next_generation(), pending: Pending::default(), log }
    }

    /// `grid` centred on the world origin, each cell `tile_size` world units wide.
    pub fn centered(grid: Grid, tile_size: f32) -> Self {
        let layout = GridLayout::centered(grid.width(), grid.height(), tile_size);
        Self::new(grid, tile_size, layout.origin)
    }

    /// The map.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// Where the map lies in the world.
    pub fn layout(&self) -> GridLayout {
        self.layout
    }

    /// Side of a cell in world units.
    pub fn tile_size(&self) -> f32 {
        self.layout.tile_size
    }

    /// World position of the top-left corner of cell (0, 0).
    pub fn origin(&self) -> Vec2 {
        self.layout.origin
    }

    /// Size of the whole map in world units.
    pub fn world_size(&self) -> Vec2 {
        self.layout.world_size()
    }

    /// The version routes are planned on.
    pub fn version(&self) -> NavVersion {
        NavVersion { generation: self.generation, revision: self.grid.revision() }
    }

    /// The centre of `cell` in world space.
    pub fn cell_center(&self, cell: Pos) -> Vec2 {
        self.layout.cell_center(cell)
    }

    /// The cell containing the world point `world`, or `None` off the map.
    pub fn cell_at(&self, world: Vec2) -> Option<Pos> {
        self.layout.cell_at(world)
    }

    /// The centre of the `agent_size` × `agent_size` body whose top-left cell is `anchor`
    /// (where a [`Mover`](crate::Mover) of that size stands on `anchor`).
    pub fn body_center(&self, anchor: Pos, agent_size: u8) -> Vec2 {
        self.layout.body_center(anchor, agent_size)
    }

    /// The top-left cell of the `agent_size` × `agent_size` body centred on `world`.
    pub fn anchor_at(&self, world: Vec2, agent_size: u8) -> Option<Pos> {
        self.layout.anchor_at(world, agent_size)
    }

    /// The cells on the grid under the `agent_size` × `agent_size` body whose top-left cell is
    /// `anchor` (just `anchor` for size 1).
    pub fn body_cells(&self, anchor: Pos, agent_size: u8) -> impl Iterator<Item = Pos> + use<> {
        let size = u32::from(agent_size.max(1));
        let (width, height) = (self.layout.width, self.layout.height);
        let xs = anchor.x..(anchor.x + size).min(width);
        let ys = anchor.y..(anchor.y + size).min(height);
        ys.flat_map(move |y| xs.clone().map(move |x| Pos::new(x, y)))
    }

    /// Sets one cell. Returns whether it changed.
    ///
    /// # Errors
    /// `pos` off the grid or a bad terrain cost; nothing changes then.
    pub fn set_tile(&mut self, pos: Pos, tile: Tile) -> Result<bool, GridError> {
        let changed = self.grid.set_tile(pos, tile)? != tile;
        if changed {
            self.pending.cells.push(pos);
            self.log.push(self.grid.revision(), pos, self.grid.len());
        }
        Ok(changed)
    }

    /// Makes `pos` a wall, or plain ground. Returns whether it changed.
    ///
    /// # Errors
    /// `pos` off the grid; nothing changes then.
    pub fn set_wall(&mut self, pos: Pos, wall: bool) -> Result<bool, GridError> {
        self.set_tile(pos, if wall { Tile::Wall } else { Tile::FLOOR })
    }

    /// Sets many cells at once (cheaper than one call each for big edits). Returns how many
    /// changed.
    ///
    /// # Errors
    /// An edit off the grid or with a bad terrain cost; nothing changes then.
    pub fn set_tiles(&mut self, edits: &[(Pos, Tile)]) -> Result<usize, GridError> {
        let before: Vec<Option<Tile>> = edits.iter().map(|&(pos, _)| self.grid.tile(pos)).collect();
        let changed = self.grid.set_tiles(edits)?;
        let cells =
            edits.iter().zip(before).filter(|&(&(_, tile), old)| old != Some(tile)).map(|(&(p, _), _)| p);
        let (revision, len) = (self.grid.revision(), self.grid.len());
        for cell in cells {
            self.pending.cells.push(cell);
            self.log.push(revision, cell, len);
        }
        Ok(changed)
    }

    /// Sets every cell to `tile`.
    ///
    /// # Errors
    /// A bad terrain cost; nothing changes then.
    pub fn fill(&mut self, tile: Tile) -> Result<(), GridError> {
        self.grid.fill(tile)?;
        self.pending.all = true;
        self.log.restart(self.grid.revision());
        Ok(())
    }

    /// Edits the grid through `edit`, for changes the methods above do not cover; every cell
    /// counts as changed. An edit that leaves the grid's revision no higher than it was (a new
    /// grid put in through it starts again at 0) makes it another grid, of a new
    /// [`NavVersion::generation`]: a version seen before must never name what it holds now.
    ///
    /// ```
    /// use bevy_gridpath::NavGrid;
    /// use bevy_gridpath::gridpath::{Grid, Pos};
    ///
    /// let mut nav = NavGrid::centered(Grid::new(8, 8).unwrap(), 16.0);
    /// for x in 0..4 {
    ///     nav.set_wall(Pos::new(x, 0), true).unwrap();
    /// }
    /// let seen = nav.version();
    /// nav.edit(|grid| *grid = Grid::new(8, 8).unwrap());
    /// for x in 0..6 {
    ///     nav.set_wall(Pos::new(x, 7), true).unwrap();
    /// }
    /// assert_ne!(nav.version().generation, seen.generation);
    /// assert_eq!(nav.cells_edited_since(seen), None, "another grid since");
    /// ```
    pub fn edit<R>(&mut self, edit: impl FnOnce(&mut Grid) -> R) -> R {
        self.pending.all = true;
        let before = self.grid.revision();
        let result = edit(&mut self.grid);
        if self.grid.revision() <= before {
            self.generation = next_generation();
        }
        self.log.restart(self.grid.revision());
        result
    }

    /// Puts a new map in place of the current one, keeping the tile size and, for a map of the
    /// same size, the origin; a map of another size is centred where the old one was centred.
    /// Every route is planned again.
    pub fn replace(&mut self, grid: Grid) {
        let center = self.layout.center();
        let centered = GridLayout::centered(grid.width(), grid.height(), self.layout.tile_size);
        self.layout = GridLayout { origin: center + centered.origin, ..centered };
        self.grid = grid;
        self.generation = next_generation();
        self.pending = Pending { replaced: true, ..Pending::default() };
        self.log.restart(self.grid.revision());
    }

    /// The cells edited since `version` (each once per edit that changed it), when known cell
    /// by cell: `None` for another grid ([`NavGrid::replace`], another `NavGrid`), after an
    /// edit of any cell ([`NavGrid::edit`], [`NavGrid::fill`]) since, or edits too many ago.
    /// For a cache built on `version` that forgets only what the edits may have changed
    /// (a new version with `Some(empty)`: nothing did).
    ///
    /// ```
    /// use bevy_gridpath::NavGrid;
    /// use bevy_gridpath::gridpath::{Grid, Pos};
    ///
    /// let mut nav = NavGrid::centered(Grid::new(8, 8).unwrap(), 16.0);
    /// let seen = nav.version();
    /// nav.set_wall(Pos::new(3, 3), true).unwrap();
    /// nav.set_wall(Pos::new(3, 3), true).unwrap(); // no change: not an edit
    /// assert_eq!(nav.cells_edited_since(seen), Some(vec![Pos::new(3, 3)]));
    /// assert_eq!(nav.cells_edited_since(nav.version()), Some(vec![]));
    /// nav.edit(|grid| grid.set_wall(Pos::new(4, 4), true).unwrap());
    /// assert_eq!(nav.cells_edited_since(seen), None, "any cell may have changed");
    /// ```
    pub fn cells_edited_since(&self, version: NavVersion) -> Option<Vec<Pos>> {
        let known = version.generation == self.generation
            && version.revision >= self.log.floor
            && version.revision <= self.grid.revision();
        known.then(|| self.log.cells.iter().filter(|e| e.0 > version.revision).map(|e| e.1).collect())
    }

    /// `true` when edits wait to be announced.
    fn has_pending(&self) -> bool {
        self.pending.replaced || self.pending.all || !self.pending.cells.is_empty()
    }
}

/// Announces the edits made since the last frame.
pub(crate) fn publish_grid_changes(mut nav: ResMut<NavGrid>, mut changed: MessageWriter<GridChanged>) {
    if !nav.has_pending() {
        return;
    }
    // Taking the list is the plugin's bookkeeping, not a change of the map: a system that
    // reacts to `resource_changed::<NavGrid>` must see one change per edit, not a second one
    // when the edit is announced.
    let pending = std::mem::take(&mut nav.bypass_change_detection().pending);
    changed.write(if pending.replaced {
        GridChanged::Replaced
    } else if pending.all {
        GridChanged::All
    } else {
        GridChanged::Cells(pending.cells)
    });
}
