//! Tiled `.tmx` maps: the reader (with the `tiled` feature) and the writer.
//!
//! # The convention
//! * Orthogonal, finite maps only; the map's width and height are the grid's (`1..=8192`).
//! * Cells start as floor (ground of cost 1). Tile layers are applied in file order (group layers
//!   recursively, hidden layers too), so later layers override earlier ones:
//!   * in a tile layer named `walls` (any case), every non-empty cell is a wall;
//!   * in any other tile layer, the tile's properties from its tileset decide:
//!     `walkable = false` makes a wall; `cost = N` (`1..=63`) makes ground of that cost;
//!     `terrain = "water"` or `"trees"` picks gridpath's other terrain classes (with `cost`,
//!     default 1); `walkable = true` alone is floor; `marker = "start"` or `"goal"` marks the
//!     start or goal cell without changing its terrain. A tile without these properties leaves
//!     the cell as it was (decoration).
//! * Objects named `start` and `goal` (any case) in an object layer mark the endpoints too: the
//!   cell under the object's centre.
//! * A map with no `walls` layer and no tile carrying one of these properties is refused: it
//!   says nothing about where one can walk.
//!
//! The shipped tileset `assets/maps/tilepath.tsx` ([`TILESET_TSX`]) uses the app's
//! `assets/tiles.png` and sets: floor `cost = 1`, wall `walkable = false`, start and goal
//! `marker`, grass `cost = 2`, mud `cost = 5`, water `cost = 10`, trees `terrain = "trees"`.
//!
//! Unsupported, with an error saying so: isometric, staggered and hexagonal maps, infinite
//! maps, zstd-compressed layers. CSV, base64, zlib and gzip layer data are read.
//!
//! Limits, checked before the `tiled` crate parses anything, since it would otherwise overflow
//! its stack, index past its data or allocate without bound: elements nest at most 64 deep;
//! each layer's data holds exactly width × height tiles (compressed data is inflated only that
//! far); all layers together declare at most 2 × 8192 × 8192 tiles; a tileset declares at most
//! 2¹⁸ tiles.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::grid::{Grid, Pos, Tile};

/// The tileset `assets/maps/tilepath.tsx`, as written next to converted maps: eleven 32×32 tiles
/// from `../tiles.png` with the properties of the [module docs](self).
pub const TILESET_TSX: &str = include_str!("tilepath.tsx");

/// Tile ids in [`TILESET_TSX`] (the app's `TileLook` order).
mod ids {
    pub const FLOOR: u32 = 0;
    pub const WALL: u32 = 1;
    pub const START: u32 = 2;
    pub const GOAL: u32 = 3;
    pub const GRASS: u32 = 7;
    pub const MUD: u32 = 8;
    pub const WATER: u32 = 9;
    pub const TREES: u32 = 10;
}

/// A problem with a Tiled map.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TmxError {
    /// Not well-formed Tiled XML (the `tiled` crate's message).
    #[error("not a valid Tiled map: {0}")]
    Xml(String),
    /// Isometric, staggered or hexagonal.
    #[error("{0} maps are not supported: only orthogonal ones")]
    Orientation(String),
    /// An infinite map.
    #[error("infinite maps are not supported: in Tiled, untick Map > Map Properties > Infinite")]
    Infinite,
    /// A width or height of 0.
    #[error("the map is {width}x{height}: each side needs at least one cell")]
    Empty {
        /// Map width in tiles.
        width: u64,
        /// Map height in tiles.
        height: u64,
    },
    /// A side above [`MAX_SIDE`](crate::MAX_SIDE).
    #[error("a side of {side} cells is too big: maps are 1..={} cells a side", crate::MAX_SIDE)]
    TooBig {
        /// The offending side length.
        side: u64,
    },
    /// An external tileset or template could not be read.
    #[error("cannot read {}: {message}", path.display())]
    Resource {
        /// The file, as the map names it (relative to the map's folder).
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// Layer data that does not fit its layer, or an unsupported encoding.
    #[error("layer {layer:?}: {message}")]
    Layer {
        /// The layer's name.
        layer: String,
        /// What is wrong.
        message: String,
    },
    /// A tile property with a bad value (`cost = 0`, `terrain = "lava"`...).
    #[error("tile {tile} of tileset {tileset:?}: {message}")]
    Property {
        /// The tileset's name.
        tileset: String,
        /// The tile's id in its tileset.
        tile: u32,
        /// What is wrong.
        message: String,
    },
    /// A `start` or `goal` object outside the map.
    #[error("object {name:?} is outside the map")]
    Object {
        /// The object's name.
        name: String,
    },
    /// No `walls` layer and no tile property: nothing says where one can walk.
    #[error(
        "nothing marks walls: add a tile layer named 'walls', or tiles with a 'walkable' or 'cost' \
         property (see tilepath.tsx)"
    )]
    NoTerrain,
    /// gridpath was built without the `tiled` feature.
    #[error("this build cannot read Tiled maps (gridpath's `tiled` feature is off)")]
    Disabled,
}

/// Writes a grid as a Tiled map using the tileset at `tileset_source` (a path relative to the
/// map, normally `tilepath.tsx`, whose content is [`TILESET_TSX`]): one CSV tile layer `terrain`
/// and, when a start or goal is given, a tile layer `markers` with the start and goal tiles.
///
/// Each cell gets the tile the app draws for it: wall, floor, grass (ground cost 2–4), mud
/// (5–9), water (ground cost 10 and up, and Moving AI water), trees. Read back, those tiles
/// mean wall, floor, ground 2, ground 5, ground 10 and trees of cost 1: other costs and the water
/// class do not survive. Save as `.tpmap` to keep every cell exactly.
#[must_use]
pub fn write_tmx(grid: &Grid, start: Option<Pos>, goal: Option<Pos>, tileset_source: &str) -> String {
    let (w, h) = (grid.width(), grid.height());
    let markers = start.is_some() || goal.is_some();
    let mut out =
        String::with_capacity((w as usize * 3 + 2) * h as usize * if markers { 2 } else { 1 } + 600);
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <map version=\"1.10\" tiledversion=\"1.10.2\" orientation=\"orthogonal\" \
         renderorder=\"right-down\" width=\"{w}\" height=\"{h}\" tilewidth=\"32\" tileheight=\"32\" \
         infinite=\"0\" nextlayerid=\"{}\" nextobjectid=\"1\">\n \
         <tileset firstgid=\"1\" source=\"{}\"/>\n",
        if markers { 3 } else { 2 },
        xml_escape(tileset_source)
    );
    let terrain = |p: Pos| {
        1 + match grid.tile(p) {
            Some(Tile::Wall) | None => ids::WALL,
            Some(Tile::Ground { cost: 1 }) => ids::FLOOR,
            Some(Tile::Ground { cost: 2..=4 }) => ids::GRASS,
            Some(Tile::Ground { cost: 5..=9 }) => ids::MUD,
            Some(Tile::Ground { .. } | Tile::Water { .. }) => ids::WATER,
            Some(Tile::Trees { .. }) => ids::TREES,
        }
    };
    write_layer(&mut out, 1, "terrain", w, h, terrain);
    if markers {
        let marker = |p: Pos| {
            if Some(p) == start {
                ids::START + 1
            } else if Some(p) == goal {
                ids::GOAL + 1
            } else {
                0
            }
        };
        write_layer(&mut out, 2, "markers", w, h, marker);
    }
    out.push_str("</map>\n");
    out
}

/// One CSV tile layer, laid out as Tiled writes it: a row per line, every row but the last ending
/// in a comma.
fn write_layer(out: &mut String, id: u32, name: &str, w: u32, h: u32, gid: impl Fn(Pos) -> u32) {
    let _ = writeln!(out, " <layer id=\"{id}\" name=\"{name}\" width=\"{w}\" height=\"{h}\">");
    out.push_str("  <data encoding=\"csv\">\n");
    for y in 0..h {
        for x in 0..w {
            let _ = write!(out, "{}", gid(Pos::new(x, y)));
            if x + 1 < w || y + 1 < h {
                out.push(',');
            }
        }
        out.push('\n');
    }
    out.push_str("</data>\n </layer>\n");
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(feature = "tiled")]
pub use reader::parse_tmx;

#[cfg(feature = "tiled")]
mod reader {
    use std::collections::HashMap;
    use std::io::{self, Cursor, Read};
    use std::path::{Path, PathBuf};

    use base64::Engine as _;
    use quick_xml::events::{BytesStart, Event};
    use tiled::{LayerType, ObjectShape, Orientation, PropertyValue, TileLayer};

    use super::TmxError;
    use crate::MAX_SIDE;
    use crate::formats::ParsedMap;
    use crate::formats::short;
    use crate::grid::{Grid, MAX_COST, Pos, Tile};

    /// Parses a Tiled map (the [module docs](super) give the convention). `map_path` is the
    /// map's own path: tilesets and templates it names are resolved relative to its folder and
    /// read through `read`, which lets tests and fuzzers serve them from memory.
    ///
    /// Before the `tiled` crate sees the XML, a guard pass checks the map's orientation, size
    /// and every layer's data length (decompressing at most the expected bytes), so a crafted
    /// file can neither make `tiled` index past its data nor inflate a small file into gigabytes.
    ///
    /// # Errors
    /// [`TmxError`] for any problem.
    pub fn parse_tmx(
        bytes: &[u8],
        map_path: &Path,
        read: &mut dyn FnMut(&Path) -> io::Result<Vec<u8>>,
    ) -> Result<ParsedMap, TmxError> {
        guard(bytes)?;
        let reader = Reader { map_path: map_path.to_path_buf(), map: bytes, read };
        let map = tiled::Loader::with_reader(reader).load_tmx_map(map_path).map_err(|e| match e {
            tiled::Error::ResourceLoadingError { path, err } => {
                TmxError::Resource { path, message: err.to_string() }
            }
            other => TmxError::Xml(other.to_string()),
        })?;
        convert(&map)
    }

    struct Reader<'a> {
        map_path: PathBuf,
        map: &'a [u8],
        read: &'a mut dyn FnMut(&Path) -> io::Result<Vec<u8>>,
    }

    impl tiled::ResourceReader for Reader<'_> {
        type Resource = Cursor<Vec<u8>>;
        type Error = io::Error;

        fn read_from(&mut self, path: &Path) -> io::Result<Self::Resource> {
            if path == self.map_path {
                return Ok(Cursor::new(self.map.to_vec()));
            }
            let bytes = (self.read)(path)?;
            check_resource(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            Ok(Cursor::new(bytes))
        }
    }

    /// Most tiles all layers together may declare: two layers of the largest grid (the terrain
    /// and markers layers [`write_tmx`](super::write_tmx) writes).
    const MAX_TILES: u64 = 2 * (MAX_SIDE as u64) * (MAX_SIDE as u64);

    /// Deeper than any file Tiled writes (map, groups, layer, data; properties of classes).
    const MAX_DEPTH: usize = 64;

    /// Most tiles a tileset may declare: `tiled` reserves and fills a tile table of `tilecount`
    /// entries (about 200 bytes each) before looking at the tiles. 2¹⁸ covers a 4096 × 4096
    /// pixel image cut into 8 × 8 tiles.
    const MAX_TILECOUNT: u64 = 1 << 18;

    /// Checks a tileset, template or map before `tiled` parses it: XML nested deeper than
    /// [`MAX_DEPTH`] (`tiled` parses group layers and class properties recursively, and a deep
    /// enough nest would overflow the stack: an abort, not an error) and tilesets declaring more
    /// than [`MAX_TILECOUNT`] tiles are refused. Malformed XML passes here; `tiled` reports it.
    fn check_resource(bytes: &[u8]) -> Result<(), TmxError> {
        let mut xml = quick_xml::Reader::from_reader(bytes);
        let mut buf = Vec::new();
        let mut depth = 0usize;
        loop {
            match xml.read_event_into(&mut buf) {
                Ok(Event::Start(ref e)) => {
                    check_tileset(e)?;
                    depth += 1;
                    if depth > MAX_DEPTH {
                        return Err(too_deep());
                    }
                }
                Ok(Event::Empty(ref e)) => check_tileset(e)?,
                Ok(Event::End(_)) => depth = depth.saturating_sub(1),
                Ok(Event::Eof) | Err(_) => return Ok(()),
                Ok(_) => {}
            }
            buf.clear();
        }
    }

    /// A `<tileset>` element's `tilecount` must be at most [`MAX_TILECOUNT`].
    fn check_tileset(e: &BytesStart<'_>) -> Result<(), TmxError> {
        if e.local_name().as_ref() != b"tileset" {
            return Ok(());
        }
        let Some(count) = attr(e, b"tilecount")? else { return Ok(()) };
        // Too many digits for a u64 is too many tiles too; other junk is for `tiled` to report.
        let too_many = match count.parse::<u64>() {
            Ok(n) => n > MAX_TILECOUNT,
            Err(_) => !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit()),
        };
        if too_many {
            return Err(TmxError::Xml(format!(
                "a tileset declares {} tiles; at most {MAX_TILECOUNT} are supported",
                short(&count)
            )));
        }
        Ok(())
    }

    fn too_deep() -> TmxError {
        TmxError::Xml(format!("elements nested more than {MAX_DEPTH} deep"))
    }

    fn xml_error(e: &quick_xml::Error) -> TmxError {
        TmxError::Xml(e.to_string())
    }

    /// A side length attribute: `None` when absent or not a number (then `tiled` reports it).
    fn side_attr(e: &BytesStart<'_>, name: &[u8]) -> Result<Option<u64>, TmxError> {
        let Some(v) = attr(e, name)? else { return Ok(None) };
        match v.parse::<u64>() {
            Ok(side) if side > u64::from(MAX_SIDE) => Err(TmxError::TooBig { side }),
            Ok(side) => Ok(Some(side)),
            // Digits too many for a u64 are still a number: a side far too big.
            Err(_) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                Err(TmxError::TooBig { side: u64::MAX })
            }
            Err(_) => Ok(None),
        }
    }

    /// An attribute's value, read as `tiled` reads it: by local name (`x:width` is `width` too),
    /// every attribute parsed, the last one of a name winning.
    fn attr(e: &BytesStart<'_>, name: &[u8]) -> Result<Option<String>, TmxError> {
        let mut value = None;
        for a in e.attributes() {
            let a = a.map_err(|e| TmxError::Xml(e.to_string()))?;
            let v = a.unescape_value().map_err(|e| xml_error(&e))?;
            if a.key.local_name().as_ref() == name {
                value = Some(v.into_owned());
            }
        }
        Ok(value)
    }

    /// The layer being scanned by [`guard`].
    struct LayerScan {
        name: String,
        /// Cells the layer's data must hold (`None`: no usable size, `tiled` will refuse it).
        cells: Option<u64>,
    }

    /// A `<data>` element being scanned.
    struct DataScan {
        encoding: Option<String>,
        compression: Option<String>,
        text: Option<String>,
    }

    /// What an open element is to `tiled`: only `layer`s directly in the map or a group, and the
    /// `data` directly in those, are read; everything else inside them is skipped unread.
    #[derive(Clone, Copy, PartialEq)]
    enum Open {
        Map,
        Group,
        Layer,
        Data,
        Other,
    }

    /// Checks what `tiled` trusts: the map's orientation, `infinite` flag and size, what
    /// [`check_resource`] checks, and that every tile layer `tiled` reads holds exactly
    /// width × height tiles in its data (`tiled` indexes its tile vector without a bounds check).
    /// Mirrors `tiled`'s reading: layers directly in the map or a group; of a `<data>`, the first
    /// text or CDATA directly inside it.
    fn guard(bytes: &[u8]) -> Result<(), TmxError> {
        let mut xml = quick_xml::Reader::from_reader(bytes);
        let mut buf = Vec::new();
        let mut open: Vec<Open> = Vec::new();
        let mut layer: Option<LayerScan> = None;
        let mut data: Option<DataScan> = None;
        // Tiles in all layers together: `tiled` keeps 24 bytes per tile.
        let mut total = 0u64;
        loop {
            let event = xml.read_event_into(&mut buf).map_err(|e| xml_error(&e))?;
            match event {
                Event::Eof => return Ok(()),
                Event::Start(ref e) | Event::Empty(ref e) => {
                    let empty = matches!(event, Event::Empty(_));
                    check_tileset(e)?;
                    let kind = match (open.last(), e.local_name().as_ref()) {
                        (None, b"map") => {
                            check_map(e)?;
                            Open::Map
                        }
                        (Some(Open::Map | Open::Group), b"group") => Open::Group,
                        (Some(Open::Map | Open::Group), b"layer") => {
                            let w = side_attr(e, b"width")?;
                            let h = side_attr(e, b"height")?;
                            let name = attr(e, b"name")?.unwrap_or_default();
                            let cells = w.zip(h).map(|(w, h)| w * h);
                            // Counted as declared, before the data: `tiled` fills that many.
                            total = add_tiles(total, cells.unwrap_or(0))?;
                            layer = Some(LayerScan { name, cells });
                            Open::Layer
                        }
                        (Some(Open::Layer), b"data") => {
                            let scan = DataScan {
                                encoding: attr(e, b"encoding")?,
                                compression: attr(e, b"compression")?,
                                text: None,
                            };
                            if empty {
                                check_data(layer.as_ref(), &scan)?;
                            } else {
                                data = Some(scan);
                            }
                            Open::Data
                        }
                        _ => Open::Other,
                    };
                    if !empty {
                        open.push(kind);
                        // See `check_resource`.
                        if open.len() > MAX_DEPTH {
                            return Err(too_deep());
                        }
                    }
                }
                Event::End(_) => match open.pop() {
                    Some(Open::Data) => {
                        if let Some(d) = data.take() {
                            check_data(layer.as_ref(), &d)?;
                        }
                    }
                    Some(Open::Layer) => layer = None,
                    _ => {}
                },
                Event::Text(ref t) => {
                    if let Some(d) =
                        data.as_mut().filter(|d| open.last() == Some(&Open::Data) && d.text.is_none())
                    {
                        d.text = Some(t.unescape().map_err(|e| xml_error(&e))?.into_owned());
                    }
                }
                Event::CData(ref t) => {
                    if let Some(d) =
                        data.as_mut().filter(|d| open.last() == Some(&Open::Data) && d.text.is_none())
                    {
                        d.text = Some(String::from_utf8_lossy(t.as_ref()).into_owned());
                    }
                }
                _ => {}
            }
            buf.clear();
        }
    }

    fn check_map(e: &BytesStart<'_>) -> Result<(), TmxError> {
        if let Some(o) = attr(e, b"orientation")?
            && o != "orthogonal"
        {
            return Err(TmxError::Orientation(short(&o)));
        }
        if attr(e, b"infinite")?.is_some_and(|v| v != "0") {
            return Err(TmxError::Infinite);
        }
        let (w, h) = (side_attr(e, b"width")?, side_attr(e, b"height")?);
        if let (Some(width), Some(height)) = (w, h)
            && (width == 0 || height == 0)
        {
            return Err(TmxError::Empty { width, height });
        }
        Ok(())
    }

    fn add_tiles(total: u64, more: u64) -> Result<u64, TmxError> {
        let total = total.saturating_add(more);
        if total > MAX_TILES {
            return Err(TmxError::Xml(format!(
                "the layers declare more than {MAX_TILES} tiles in all (two 8192 × 8192 layers)"
            )));
        }
        Ok(total)
    }

    /// Checks that one layer's data holds the layer's width × height tiles.
    fn check_data(layer: Option<&LayerScan>, d: &DataScan) -> Result<(), TmxError> {
        let Some(layer) = layer else { return Ok(()) };
        let Some(cells) = layer.cells else { return Ok(()) };
        let bad = |message: String| TmxError::Layer { layer: layer.name.clone(), message };
        let text = d.text.as_deref().unwrap_or("");
        // Tiles in the data, counted the way `tiled` decodes them.
        let count = match (d.encoding.as_deref(), d.compression.as_deref()) {
            (Some("csv"), None) => text.split(',').count() as u64,
            (Some("base64"), compression @ (None | Some("zlib" | "gzip"))) => {
                let raw = base64::engine::general_purpose::STANDARD
                    .decode(text.trim().as_bytes())
                    .map_err(|e| bad(format!("bad base64 data: {e}")))?;
                // One byte more than the expected tiles need: more means the data is too long,
                // and a decompression bomb stops there.
                let limit = cells.saturating_mul(4).saturating_add(1);
                let inflated = |r: &mut dyn Read| {
                    let mut out = Vec::new();
                    r.take(limit).read_to_end(&mut out).map(|_| out.len() as u64)
                };
                let bytes = match compression {
                    None => Ok(raw.len() as u64),
                    Some("zlib") => inflated(&mut flate2::read::ZlibDecoder::new(&raw[..])),
                    _ => inflated(&mut flate2::read::GzDecoder::new(&raw[..])),
                }
                .map_err(|e| bad(format!("bad compressed data: {e}")))?;
                if bytes >= limit {
                    return Err(bad(format!("the layer data holds more than the expected {cells} tiles")));
                }
                bytes / 4
            }
            (encoding, compression) => {
                return Err(bad(format!(
                    "layer data encoding {:?} with compression {:?} is not supported: use CSV or base64 \
                     (zlib, gzip or none)",
                    short(encoding.unwrap_or("xml")),
                    short(compression.unwrap_or("none"))
                )));
            }
        };
        if count == cells {
            Ok(())
        } else {
            Err(bad(format!("the layer data has {count} tiles, expected {cells} (width × height)")))
        }
    }

    /// What a tile does to its cell.
    #[derive(Clone, Copy)]
    enum Effect {
        Nothing,
        Set(Tile),
        Start,
        Goal,
    }

    fn effect(tile: &tiled::Tile<'_>, tileset: &str, id: u32) -> Result<Effect, TmxError> {
        let bad = |message: String| TmxError::Property { tileset: tileset.to_string(), tile: id, message };
        let props = &tile.properties;
        let get = |name: &str| props.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v);
        if let Some(v) = get("marker") {
            return match v {
                PropertyValue::StringValue(s) if s.eq_ignore_ascii_case("start") => Ok(Effect::Start),
                PropertyValue::StringValue(s) if s.eq_ignore_ascii_case("goal") => Ok(Effect::Goal),
                other => Err(bad(format!("marker {other:?} is not \"start\" or \"goal\""))),
            };
        }
        let walkable = match get("walkable") {
            None => None,
            Some(PropertyValue::BoolValue(b)) => Some(*b),
            Some(PropertyValue::StringValue(s)) if s == "true" || s == "false" => Some(s == "true"),
            Some(other) => return Err(bad(format!("walkable {other:?} is not true or false"))),
        };
        let cost = match get("cost") {
            None => None,
            Some(v) => {
                let n = match v {
                    PropertyValue::IntValue(n) => Some(i64::from(*n)),
                    PropertyValue::FloatValue(f) if f.fract() == 0.0 && f.abs() < 1e6 =>
                    {
                        #[expect(clippy::cast_possible_truncation, reason = "a whole number below 1e6")]
                        Some(*f as i64)
                    }
                    PropertyValue::StringValue(s) => s.trim().parse().ok(),
                    _ => None,
                };
                let cost = n
                    .and_then(|n| u8::try_from(n).ok())
                    .filter(|c| (1..=MAX_COST).contains(c))
                    .ok_or_else(|| bad(format!("cost {v:?} is not a whole number in 1..={MAX_COST}")))?;
                Some(cost)
            }
        };
        let class = match get("terrain") {
            None => None,
            Some(PropertyValue::StringValue(s)) if ["ground", "water", "trees"].contains(&s.as_str()) => {
                Some(s.as_str())
            }
            Some(other) => {
                return Err(bad(format!("terrain {other:?} is not \"ground\", \"water\" or \"trees\"")));
            }
        };
        if walkable == Some(false) {
            return Ok(Effect::Wall);
        }
        if walkable.is_none() && cost.is_none() && class.is_none() {
            return Ok(Effect::Nothing);
        }
        let cost = cost.unwrap_or(1);
        Ok(Effect::Set(match class {
            Some("water") => Tile::Water { cost },
            Some("trees") => Tile::Trees { cost },
            _ => Tile::Ground { cost },
        }))
    }

    impl Effect {
        #[expect(non_upper_case_globals, reason = "reads as a variant")]
        const Wall: Effect = Effect::Set(Tile::Wall);
    }

    struct Builder {
        grid: Grid,
        start: Option<Pos>,
        goal: Option<Pos>,
        /// Some cell was decided by a `walls` layer or a tile property.
        decided: bool,
        /// Effects by (tileset index, tile id): the properties are read once per tile kind.
        effects: HashMap<(usize, u32), Effect>,
    }

    fn convert(map: &tiled::Map) -> Result<ParsedMap, TmxError> {
        if map.orientation != Orientation::Orthogonal {
            return Err(TmxError::Orientation(map.orientation.to_string()));
        }
        if map.infinite() {
            return Err(TmxError::Infinite);
        }
        let (width, height) = (map.width, map.height);
        for side in [width, height] {
            if side > MAX_SIDE {
                return Err(TmxError::TooBig { side: side.into() });
            }
        }
        let grid = Grid::unmasked(width, height, Tile::FLOOR)
            .map_err(|_| TmxError::Empty { width: width.into(), height: height.into() })?;
        let mut b = Builder { grid, start: None, goal: None, decided: false, effects: HashMap::new() };
        for layer in map.layers() {
            apply(&mut b, map, &layer)?;
        }
        if !b.decided {
            return Err(TmxError::NoTerrain);
        }
        // The layers set cells without masks; move masks and forced-neighbour bits in one pass.
        b.grid.refresh_moves();
        Ok(ParsedMap { grid: b.grid, start: b.start, goal: b.goal })
    }

    fn apply(b: &mut Builder, map: &tiled::Map, layer: &tiled::Layer<'_>) -> Result<(), TmxError> {
        match layer.layer_type() {
            LayerType::Tiles(TileLayer::Finite(tiles)) => {
                let walls = layer.name.eq_ignore_ascii_case("walls");
                let (w, h) = (b.grid.width().min(tiles.width()), b.grid.height().min(tiles.height()));
                for y in 0..h {
                    for x in 0..w {
                        // Both below MAX_SIDE, so the casts to i32 are exact.
                        #[expect(clippy::cast_possible_wrap, reason = "at most 8192")]
                        let Some(t) = tiles.get_tile(x as i32, y as i32) else { continue };
                        let pos = Pos::new(x, y);
                        let effect = if walls {
                            Effect::Wall
                        } else {
                            let key = (t.tileset_index(), t.id());
                            if let Some(e) = b.effects.get(&key) {
                                *e
                            } else {
                                let e = match t.get_tile() {
                                    Some(tile) => effect(&tile, &t.get_tileset().name, t.id())?,
                                    None => Effect::Nothing,
                                };
                                b.effects.insert(key, e);
                                e
                            }
                        };
                        match effect {
                            Effect::Nothing => {}
                            Effect::Set(tile) => {
                                b.decided = true;
                                // In bounds and the cost checked: cannot fail.
                                let _ = b.grid.set_tile_unmasked(pos, tile);
                            }
                            Effect::Start => b.start = Some(pos),
                            Effect::Goal => b.goal = Some(pos),
                        }
                    }
                }
            }
            LayerType::Objects(objects) => {
                for object in objects.objects() {
                    let is_start = object.name.eq_ignore_ascii_case("start");
                    if !is_start && !object.name.eq_ignore_ascii_case("goal") {
                        continue;
                    }
                    let (mut cx, mut cy) = (object.x, object.y);
                    match object.shape {
                        ObjectShape::Rect { width, height } | ObjectShape::Ellipse { width, height } => {
                            cx += width / 2.0;
                            // Tile objects are anchored at their bottom-left corner.
                            cy += if object.get_tile().is_some() { -height / 2.0 } else { height / 2.0 };
                        }
                        _ => {}
                    }
                    let cell = |v: f32, size: u32, limit: u32| {
                        #[expect(clippy::cast_precision_loss, reason = "tile sizes are small")]
                        let c = (v / size as f32).floor();
                        #[expect(
                            clippy::cast_possible_truncation,
                            clippy::cast_sign_loss,
                            reason = "checked to be in 0..limit first"
                        )]
                        ((0.0..8192.0).contains(&c) && (c as u32) < limit).then_some(c as u32)
                    };
                    let pos = cell(cx, map.tile_width, b.grid.width())
                        .zip(cell(cy, map.tile_height, b.grid.height()))
                        .map(|(x, y)| Pos::new(x, y))
                        .ok_or_else(|| TmxError::Object { name: object.name.clone() })?;
                    if is_start {
                        b.start = Some(pos);
                    } else {
                        b.goal = Some(pos);
                    }
                }
            }
            LayerType::Group(group) => {
                for inner in group.layers() {
                    apply(b, map, &inner)?;
                }
            }
            LayerType::Tiles(TileLayer::Infinite(_)) => return Err(TmxError::Infinite),
            LayerType::Image(_) => {}
        }
        Ok(())
    }
}
