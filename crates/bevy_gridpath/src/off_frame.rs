//! Work too long for a frame — a big map's subgoal graph ([`crate::SubgoalRoutes`]), a game's
//! own long searches or fields — run on a thread of its own, one job at a time per [`OffFrame`],
//! with what it was started for (its stamp: the map version, the problem), so that a result for
//! a map since changed is recognised and not used. Not Bevy's async pool: on two cores that pool
//! has one thread, and the units' path planning waits for whatever runs there.

use std::thread::JoinHandle;

/// One job at a time on a thread of its own: its handle and its stamp.
///
/// ```
/// use bevy_gridpath::OffFrame;
///
/// let mut jobs = OffFrame::default();
/// jobs.start("answer", "for version 7", || 6 * 7).expect("a thread");
/// // One at a time: a second job waits for the first to be taken.
/// assert!(jobs.start("another", "for version 8", || 0).is_err());
/// let (answer, stamp) = loop {
///     if let Some(done) = jobs.take_finished() {
///         break done;
///     }
///     // A system would look once a frame.
///     std::thread::sleep(std::time::Duration::from_millis(1));
/// };
/// assert_eq!((answer.ok(), stamp), (Some(42), "for version 7"));
/// ```
pub struct OffFrame<S, T> {
    running: Option<(JoinHandle<T>, S)>,
}

impl<S, T> Default for OffFrame<S, T> {
    fn default() -> Self {
        Self { running: None }
    }
}

impl<S, T: Send + 'static> OffFrame<S, T> {
    /// Starts `job` on a thread named `name`, stamped `stamp`. The caller waits for the running
    /// job first ([`OffFrame::is_running`]): one at a time, as a job cannot be cancelled and
    /// changes one after another must not leave a thread each.
    ///
    /// # Errors
    /// A job is running and not yet taken ([`std::io::ErrorKind::ResourceBusy`]), or the
    /// system gave no thread; either way `job` is dropped, unrun, and the running job stays.
    pub fn start(
        &mut self,
        name: &str,
        stamp: S,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> std::io::Result<()> {
        if self.running.is_some() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::ResourceBusy,
                "a job is running: one at a time, the next once it is taken",
            ));
        }
        let handle = std::thread::Builder::new().name(name.to_owned()).spawn(job)?;
        self.running = Some((handle, stamp));
        Ok(())
    }

    /// `true` while a job runs (or is done and not yet taken).
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The running job's stamp.
    pub fn stamp(&self) -> Option<&S> {
        self.running.as_ref().map(|(_, stamp)| stamp)
    }

    /// The job's result and stamp once it is done (`Err`: it panicked), else `None`.
    pub fn take_finished(&mut self) -> Option<(std::thread::Result<T>, S)> {
        let (handle, stamp) = self.running.take_if(|(handle, _)| handle.is_finished())?;
        // Finished: `join` returns at once.
        Some((handle.join(), stamp))
    }
}
