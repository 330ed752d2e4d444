//! Developer tools: the scripted mode (`--script`, `--screenshot`) the window test drives.

pub mod script;
