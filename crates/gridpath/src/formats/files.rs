//! Map files on disk: loading with the format chosen by extension, one error type for every
//! kind of bad file, and atomic writes.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::{ParseError, ParseErrorKind, ParsedMap, TmxError};

/// Largest map file [`load_map`] reads: 96 MiB. Enough for an 8192 × 8192 map (the largest
/// grid, [`MAX_SIDE`](crate::MAX_SIDE)) at one byte per cell (Moving AI, ASCII, `.tpmap` with
/// ASCII cells), even with CRLF line ends; a Tiled CSV layer needs 2–3 bytes a cell, so Tiled maps
/// up to about 5000 × 5000 fit. Anything bigger is refused before a byte of it is read.
pub const MAX_FILE_BYTES: u64 = 96 * 1024 * 1024;

/// Why a map file could not be loaded. Each kind of bad file has its own variant, and every
/// message names the file, so it can be shown as it is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file is missing or unreadable.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The file is larger than [`MAX_FILE_BYTES`] (checked before reading it).
    #[error("{} is {}: map files are limited to {}", path.display(), mib(*size), mib(*limit))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
        /// The limit in bytes.
        limit: u64,
    },
    /// The file is not text: invalid UTF-8 or a NUL byte.
    #[error("{} is not a text map file (binary content at byte {offset})", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
        /// Byte offset of the first invalid byte.
        offset: usize,
    },
    /// The text does not follow its format.
    #[error("{}: {source}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// Where and what.
        #[source]
        source: ParseError,
    },
    /// The map is well formed but larger than [`MAX_SIDE`](crate::MAX_SIDE) cells a side.
    #[error("{}: the map has a side of {side} cells; at most {} are allowed", path.display(), crate::MAX_SIDE)]
    MapTooBig {
        /// The file.
        path: PathBuf,
        /// The offending side length, in cells.
        side: u64,
    },
    /// A Tiled `.tmx` problem: bad XML, an unsupported kind of map, a missing tileset, no walls.
    #[error("{}: {source}", path.display())]
    Tiled {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: TmxError,
    },
}

/// A byte count for people: `200.0 MiB`.
fn mib(bytes: u64) -> String {
    #[expect(clippy::cast_precision_loss, reason = "one decimal is all that is shown")]
    let m = bytes as f64 / (1024.0 * 1024.0);
    format!("{m:.1} MiB")
}

impl LoadError {
    /// The file the error is about.
    #[must_use]
    pub fn path(&self) -> &Path {
        match self {
            LoadError::Io { path, .. }
            | LoadError::TooLarge { path, .. }
            | LoadError::NotText { path, .. }
            | LoadError::Malformed { path, .. }
            | LoadError::MapTooBig { path, .. }
            | LoadError::Tiled { path, .. } => path,
        }
    }

    fn parse(path: &Path, e: ParseError) -> Self {
        let path = path.to_path_buf();
        match e.kind {
            ParseErrorKind::MapTooBig { side } => LoadError::MapTooBig { path, side },
            ParseErrorKind::Malformed => LoadError::Malformed { path, source: e },
        }
    }

    #[cfg_attr(not(feature = "tiled"), expect(dead_code, reason = "only the Tiled reader needs it"))]
    pub(crate) fn tiled(path: &Path, e: TmxError) -> Self {
        let path = path.to_path_buf();
        match e {
            TmxError::TooBig { side } => LoadError::MapTooBig { path, side },
            source => LoadError::Tiled { path, source },
        }
    }
}

/// Map file formats, for choosing a reader or writer by file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapFormat {
    /// Moving AI `.map` (start and goal are not stored).
    MovingAi,
    /// The ASCII grid (`.txt`): `.` `#` `S` `G`; terrain costs are not stored.
    Ascii,
    /// The tutorials' digit grid (`.csv`): `0` `1` `3` `4`; terrain costs are not stored.
    Digits,
    /// tilepath's own format (`.tpmap`): exact ([`parse_tilepath`](super::parse_tilepath)).
    Tilepath,
    /// Tiled (`.tmx`), with the tileset `tilepath.tsx` ([`write_tmx`](super::write_tmx)).
    Tmx,
}

impl MapFormat {
    /// The format a file name's extension names (case-insensitive): `.map`, `.txt`, `.csv`,
    /// `.tpmap`, `.tmx`; `None` for anything else.
    #[must_use]
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "map" => MapFormat::MovingAi,
            "txt" => MapFormat::Ascii,
            "csv" => MapFormat::Digits,
            "tpmap" => MapFormat::Tilepath,
            "tmx" => MapFormat::Tmx,
            _ => return None,
        })
    }

    /// The usual file extension, without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            MapFormat::MovingAi => "map",
            MapFormat::Ascii => "txt",
            MapFormat::Digits => "csv",
            MapFormat::Tilepath => "tpmap",
            MapFormat::Tmx => "tmx",
        }
    }

    /// Writes `map` in this format. Only [`MapFormat::Tilepath`] keeps everything; the others
    /// drop what they cannot say (see each writer). Tiled maps refer to the tileset
    /// `tilepath.tsx` next to them ([`TILESET_TSX`](super::TILESET_TSX)).
    #[must_use]
    pub fn write(self, map: &ParsedMap) -> String {
        match self {
            MapFormat::MovingAi => super::write_movingai(&map.grid),
            MapFormat::Ascii => super::write_ascii(&map.grid, map.start, map.goal),
            MapFormat::Digits => super::write_digits(&map.grid, map.start, map.goal),
            MapFormat::Tilepath => super::write_tilepath(&map.grid, map.start, map.goal),
            MapFormat::Tmx => super::write_tmx(&map.grid, map.start, map.goal, "tilepath.tsx"),
        }
    }
}

/// Loads a map file, choosing the format by extension: `.tmx` is Tiled (needs the `tiled`
/// feature; external tilesets are read relative to the map), `.tpmap` tilepath's own format,
/// anything else is recognised by content ([`parse_map_bytes`](super::parse_map_bytes): Moving
/// AI, digit grid or ASCII).
///
/// The size is checked before reading: files over [`MAX_FILE_BYTES`] are refused.
///
/// ```
/// use gridpath::formats::{load_map, LoadError};
/// let e = load_map(std::path::Path::new("no/such/file.map")).unwrap_err();
/// assert!(matches!(e, LoadError::Io { .. }));
/// ```
///
/// # Errors
/// A [`LoadError`] variant per kind of bad file.
pub fn load_map(path: &Path) -> Result<ParsedMap, LoadError> {
    let bytes = read_limited(path, MAX_FILE_BYTES).map_err(|e| e.into_load_error(path))?;
    if MapFormat::from_path(path) == Some(MapFormat::Tmx) {
        return load_tmx_file(path, &bytes);
    }
    load_map_bytes(path, &bytes)
}

/// [`load_map`] for the scenarios of a `.scen` file, whose lines give the size of the map they
/// were made on (`size`). A map of HOG's 2007 `octile-corner` format is scaled to that size as
/// HOG scaled it for them ([`parse_octile_corner_grid`](super::parse_octile_corner_grid)): the
/// `wc3maps512` scenarios were made on their 2007 maps scaled to 512 × 512. Any other map loads
/// as it is.
///
/// # Errors
/// As [`load_map`].
pub fn load_map_for_scen(path: &Path, size: Option<(u32, u32)>) -> Result<ParsedMap, LoadError> {
    let bytes = read_limited(path, MAX_FILE_BYTES).map_err(|e| e.into_load_error(path))?;
    let text = check_text(path, &bytes)?;
    if let (Some(size), true) = (size, super::corner::is_octile_corner(text)) {
        let grid =
            super::parse_octile_corner_grid(text, Some(size)).map_err(|e| LoadError::parse(path, e))?;
        return Ok(ParsedMap { grid, start: None, goal: None });
    }
    load_map(path)
}

#[cfg(feature = "tiled")]
fn load_tmx_file(path: &Path, bytes: &[u8]) -> Result<ParsedMap, LoadError> {
    check_text(path, bytes)?;
    let mut read = |p: &Path| {
        read_limited(p, MAX_FILE_BYTES).map_err(|e| match e {
            Limited::Io(e) => e,
            Limited::TooLarge(size) => io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{size} bytes, over the {MAX_FILE_BYTES}-byte limit"),
            ),
        })
    };
    super::parse_tmx(bytes, path, &mut read).map_err(|e| LoadError::tiled(path, e))
}

#[cfg(not(feature = "tiled"))]
fn load_tmx_file(path: &Path, bytes: &[u8]) -> Result<ParsedMap, LoadError> {
    load_map_bytes(path, bytes)
}

/// Parses map bytes already in memory; `name` is the file name (its extension chooses the format
/// as in [`load_map`]) and is named in errors. A `.tmx` can use only tilesets embedded in it:
/// for external ones call `parse_tmx` (`tiled` feature) with a reader.
///
/// ```
/// use gridpath::formats::{load_map_bytes, LoadError};
/// let map = load_map_bytes("a.tpmap".as_ref(), b"tilepath 1\nwidth 2\nheight 1\nmap\n.#\n").unwrap();
/// assert_eq!(map.grid.width(), 2);
/// let e = load_map_bytes("b.txt".as_ref(), b"\x00\x01binary").unwrap_err();
/// assert!(matches!(e, LoadError::NotText { offset: 0, .. }));
/// ```
///
/// # Errors
/// A [`LoadError`]: [`NotText`](LoadError::NotText), [`Malformed`](LoadError::Malformed),
/// [`MapTooBig`](LoadError::MapTooBig) or [`Tiled`](LoadError::Tiled).
pub fn load_map_bytes(name: &Path, bytes: &[u8]) -> Result<ParsedMap, LoadError> {
    let text = check_text(name, bytes)?;
    match MapFormat::from_path(name) {
        Some(MapFormat::Tilepath) => super::parse_tilepath(text),
        Some(MapFormat::Tmx) => return tmx_from_memory(name, bytes),
        _ => super::parse_map(text),
    }
    .map_err(|e| LoadError::parse(name, e))
}

/// A `.tmx` held in memory has no folder to read tilesets from, so only the shipped tileset
/// is served (by its file name, [`TILESET_TSX`](super::TILESET_TSX)): that is what lets the game
/// embed `assets/maps/*.tmx` and open them from any directory.
#[cfg(feature = "tiled")]
fn tmx_from_memory(name: &Path, bytes: &[u8]) -> Result<ParsedMap, LoadError> {
    let mut shipped_only = |p: &Path| -> io::Result<Vec<u8>> {
        if p.file_name().is_some_and(|n| n == "tilepath.tsx") {
            return Ok(super::TILESET_TSX.as_bytes().to_vec());
        }
        Err(io::Error::new(io::ErrorKind::NotFound, format!("{} is not in memory", p.display())))
    };
    super::parse_tmx(bytes, name, &mut shipped_only).map_err(|e| LoadError::tiled(name, e))
}

#[cfg(not(feature = "tiled"))]
fn tmx_from_memory(name: &Path, _bytes: &[u8]) -> Result<ParsedMap, LoadError> {
    Err(LoadError::Tiled { path: name.to_path_buf(), source: TmxError::Disabled })
}

/// The text of `bytes` without a UTF-8 byte order mark, or [`LoadError::NotText`] for invalid
/// UTF-8 or a NUL byte (valid UTF-8, but no text map has one: a sure sign of a binary file).
fn check_text<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, LoadError> {
    let not_text = |offset| LoadError::NotText { path: path.to_path_buf(), offset };
    let nul = bytes.iter().position(|&b| b == 0);
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => return Err(not_text(nul.map_or(e.valid_up_to(), |n| n.min(e.valid_up_to())))),
    };
    if let Some(offset) = nul {
        return Err(not_text(offset));
    }
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

pub(crate) enum Limited {
    Io(io::Error),
    TooLarge(u64),
}

impl Limited {
    fn into_load_error(self, path: &Path) -> LoadError {
        match self {
            Limited::Io(source) => LoadError::Io { path: path.to_path_buf(), source },
            Limited::TooLarge(size) => {
                LoadError::TooLarge { path: path.to_path_buf(), size, limit: MAX_FILE_BYTES }
            }
        }
    }
}

/// Reads a whole file of at most `limit` bytes; the size is checked from the metadata first, and
/// the read stops past the limit in case the file grows meanwhile.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<Vec<u8>, Limited> {
    let file = File::open(path).map_err(Limited::Io)?;
    let size = file.metadata().map_err(Limited::Io)?.len();
    if size > limit {
        return Err(Limited::TooLarge(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes).map_err(Limited::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Limited::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Replaces the file at `path` with `bytes` atomically: the bytes go to a temporary file in the
/// same folder, are flushed to disk (`sync_all`), and the temporary file is renamed over
/// `path`. Readers see the old file or the new one, never a part; on any failure the old file
/// is left as it was and the temporary file is removed. A replaced file keeps its permissions;
/// a new one gets the usual mode for new files.
///
/// # Errors
/// Any I/O error: the folder is missing or read-only, the disk is full, the rename fails.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".tilepath-save-").suffix(".tmp");
    // tempfile makes private (0600) files; a saved map should get the mode any new file gets
    // (0666 less the umask), and a replaced one keeps its own mode, set below.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    // In the target's own folder: a rename is atomic only within one file system.
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Ok(old) = std::fs::metadata(path) {
        // Best effort: a mode we may not set (another owner's file) is no reason to lose the save.
        let _ = tmp.as_file().set_permissions(old.permissions());
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    // Make the rename itself durable; some platforms cannot open a folder, which is no failure.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}
