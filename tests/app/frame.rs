//! The frame: `LogicPlugin` runs the systems of every schedule of a frame in turn on the thread
//! that updates the app (Bevy's single-threaded executor), the heavy work split over the compute
//! pool inside the systems.

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use bevy::prelude::*;
use tilepath::map::level::MapSource;

use crate::unstarted_app;

/// The schedules that ran a recording system, and on which thread.
#[derive(Resource, Clone, Default)]
struct Ran(Arc<Mutex<Vec<(&'static str, ThreadId)>>>);

fn recorder(schedule: &'static str) -> impl FnMut(Res<Ran>) {
    move |ran: Res<Ran>| ran.0.lock().expect("not poisoned").push((schedule, std::thread::current().id()))
}

#[test]
fn every_schedule_of_a_frame_runs_its_systems_on_the_thread_that_updates_the_app() {
    let mut app = unstarted_app(MapSource::BuiltIn);
    let ran = Ran::default();
    app.insert_resource(ran.clone());
    // Several systems per schedule, none ordered against another: a multi-threaded executor
    // would hand them to the compute pool's threads.
    for _ in 0..4 {
        app.add_systems(First, recorder("First"))
            .add_systems(PreUpdate, recorder("PreUpdate"))
            .add_systems(Update, recorder("Update"))
            .add_systems(PostUpdate, recorder("PostUpdate"))
            .add_systems(Last, recorder("Last"))
            .add_systems(FixedUpdate, recorder("FixedUpdate"));
    }
    for _ in 0..10 {
        app.update();
    }
    let here = std::thread::current().id();
    let ran = ran.0.lock().expect("not poisoned");
    for schedule in ["First", "PreUpdate", "Update", "PostUpdate", "Last", "FixedUpdate"] {
        assert!(ran.iter().any(|&(s, _)| s == schedule), "{schedule} never ran");
    }
    let elsewhere: Vec<_> = ran.iter().filter(|&&(_, thread)| thread != here).collect();
    assert!(elsewhere.is_empty(), "systems ran off the updating thread: {elsewhere:?}");
}
