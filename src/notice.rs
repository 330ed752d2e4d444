//! Short messages for the player — refused edits, load errors, changed settings — shown in the
//! HUD and written to the log.

use bevy::prelude::*;

pub(super) fn plugin(app: &mut App) {
    app.add_message::<Notice>();
    app.add_systems(Update, log_notices.in_set(crate::AppSystems::Present));
}

/// How serious a [`Notice`] is; decides its colour in the HUD and its log level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// A change the player asked for (e.g. "algorithm: JPS").
    Info,
    /// Something the player asked for was refused (e.g. a wall on the goal).
    Warning,
    /// Something failed (e.g. a map that does not parse).
    Error,
}

/// A message for the player.
#[derive(Message, Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The text, one line.
    pub text: String,
    /// How serious it is.
    pub severity: Severity,
}

impl Notice {
    /// An informational notice.
    pub fn info(text: impl Into<String>) -> Self {
        Self { text: text.into(), severity: Severity::Info }
    }

    /// A refused request.
    pub fn warning(text: impl Into<String>) -> Self {
        Self { text: text.into(), severity: Severity::Warning }
    }

    /// A failure.
    pub fn error(text: impl Into<String>) -> Self {
        Self { text: text.into(), severity: Severity::Error }
    }
}

fn log_notices(mut notices: MessageReader<Notice>) {
    for notice in notices.read() {
        match notice.severity {
            Severity::Info => info!("{}", notice.text),
            Severity::Warning => warn!("{}", notice.text),
            Severity::Error => error!("{}", notice.text),
        }
    }
}
