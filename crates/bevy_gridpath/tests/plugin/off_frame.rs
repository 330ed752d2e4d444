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
