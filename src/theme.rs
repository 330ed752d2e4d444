//! Colours shared by the on-screen text (HUD, help overlay, controls panel), so they read as one UI.

use bevy::prelude::Color;

/// Ordinary text.
pub(crate) const TEXT_COLOR: Color = Color::srgb(0.90, 0.91, 0.94);
/// Good news: a found route, an optimal result.
pub(crate) const GOOD_COLOR: Color = Color::srgb(0.55, 0.88, 0.60);
