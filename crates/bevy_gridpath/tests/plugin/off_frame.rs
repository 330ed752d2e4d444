//! `OffFrame`: one job at a time on a thread of its own, its result given once with its stamp.

use bevy_gridpath::OffFrame;

fn finished<S, T: Send + 'static>(jobs: &mut OffFrame<S, T>) -> (std::thread::Result<T>, S) {
    loop {
        if let Some(done) = jobs.take_finished() {
            return done;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

#[test]
fn a_job_gives_its_result_with_its_stamp_once() {
    let mut jobs = OffFrame::default();
    assert!(!jobs.is_running() && jobs.take_finished().is_none());
    jobs.start("test job", 7, || 6 * 7).expect("a thread");
    assert!(jobs.is_running());
    assert_eq!(jobs.stamp(), Some(&7));
    let (result, stamp) = finished(&mut jobs);
    assert_eq!((result.ok(), stamp), (Some(42), 7));
    assert!(!jobs.is_running() && jobs.take_finished().is_none(), "taken once");
}

#[test]
fn a_job_that_panics_says_so() {
    let mut jobs: OffFrame<(), u32> = OffFrame::default();
    jobs.start("test job", (), || panic!("on purpose")).expect("a thread");
    let (result, ()) = finished(&mut jobs);
    assert!(result.is_err());
    assert!(!jobs.is_running(), "and the next may start");
}

#[test]
fn a_second_job_is_refused_while_one_runs() {
    let mut jobs = OffFrame::default();
    let (hold, wait) = std::sync::mpsc::channel::<()>();
    jobs.start("test job", 1, move || wait.recv().map_or(0, |()| 1)).expect("a thread");
    let refused = jobs.start("second job", 2, || 2);
    assert_eq!(refused.map_err(|e| e.kind()), Err(std::io::ErrorKind::ResourceBusy));
    assert_eq!(jobs.stamp(), Some(&1), "the running job stays");
    hold.send(()).expect("the job waits");
    let (result, stamp) = finished(&mut jobs);
    assert_eq!((result.ok(), stamp), (Some(1), 1), "and gives its own result");
    jobs.start("third job", 3, || 3).expect("taken: the next may start");
    assert_eq!(finished(&mut jobs).0.ok(), Some(3));
}
