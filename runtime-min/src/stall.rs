//! The watch on the one wait of the event loop that no limit bounds: a
//! disk's answer to `Files`. An instance's call ends within `--max-time`,
//! but a disk's may never come (a network file system whose server went
//! away), and while the loop's thread waits for it nothing else is served:
//! the process looks alive and answers nobody. A disk seen to be slow has
//! its next requests done on a worker (`workers`), but the request that
//! finds it so is waited for here. So a wait past `STALL` is said on
//! standard error by the ticker's thread (the loop's own is the one held),
//! and the loop says when the disk answers.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the loop waits on a disk before saying so.
pub(crate) const STALL: Duration = Duration::from_secs(2);

/// What the loop is waiting on, shared with the ticker's thread.
pub(crate) struct Stall {
    base: Instant,
    /// When the wait began, in milliseconds since `base` plus one; 0 when
    /// the loop waits on no disk.
    since: AtomicU64,
    /// For whom: the `Files` instance, or the instance reading a file's
    /// parts (`reading`).
    who: AtomicUsize,
    reading: AtomicBool,
    /// Whether this wait has been said.
    said: AtomicBool,
    /// The instances' names, by index.
    names: Vec<String>,
}

/// A wait being watched: [`Stall::over`] ends it.
#[must_use]
pub(crate) struct Waiting(Instant);

impl Waiting {
    /// When it began (the one clock read a disk call on the loop needs).
    pub(crate) fn began(&self) -> Instant {
        self.0
    }
}

impl Stall {
    pub(crate) fn new(names: Vec<String>) -> Stall {
        Stall {
            base: Instant::now(),
            since: AtomicU64::new(0),
            who: AtomicUsize::new(0),
            reading: AtomicBool::new(false),
            said: AtomicBool::new(false),
            names,
        }
    }

    /// The loop begins to wait on a disk for instance `who` (a `Files`
    /// object, or the reader of a file's parts when `reading`).
    pub(crate) fn begin(&self, who: usize, reading: bool) -> Waiting {
        let now = Instant::now();
        self.who.store(who, Ordering::Relaxed);
        self.reading.store(reading, Ordering::Relaxed);
        self.said.store(false, Ordering::Relaxed);
        let ms = now.duration_since(self.base).as_millis() as u64 + 1;
        self.since.store(ms, Ordering::Release);
        Waiting(now)
    }

    /// The disk answered: how long it took, if the wait was said (the loop
    /// then says it is over).
    pub(crate) fn over(&self, w: Waiting) -> Option<Duration> {
        self.since.store(0, Ordering::Release);
        self.said.load(Ordering::Relaxed).then(|| w.0.elapsed())
    }

    /// From the ticker's thread: the loop's wait, in words, once it has
    /// lasted `STALL` (and only once per wait).
    pub(crate) fn check(&self) -> Option<String> {
        let since = self.since.load(Ordering::Acquire);
        if since == 0 || self.said.load(Ordering::Relaxed) {
            return None;
        }
        let waited = (self.base.elapsed().as_millis() as u64 + 1).saturating_sub(since);
        if waited < STALL.as_millis() as u64 {
            return None;
        }
        self.said.store(true, Ordering::Relaxed);
        let who = self.names.get(self.who.load(Ordering::Relaxed));
        let who = who.map_or("?", String::as_str);
        let what = if self.reading.load(Ordering::Relaxed) {
            format!("for a part of a file `{who}` reads")
        } else {
            format!("on the disk of `{who}` (Files)")
        };
        Some(format!(
            "warning: the runtime has waited {} s {what}, which has not answered: \
             nothing else is served until it does",
            STALL.as_secs()
        ))
    }
}

impl crate::Runtime<'_> {
    /// The loop's wait on a disk is over: said, if it was said to begin.
    pub(crate) fn stall_over(&mut self, w: Waiting) {
        if let Some(took) = self.stall.over(w) {
            let _ = writeln!(
                self.io.err,
                "the disk answered after {:.1} s: the runtime serves again",
                took.as_secs_f64()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_is_said_once_past_the_stall_and_its_end_after() {
        let s = Stall::new(vec!["site".into(), "files".into()]);
        let w = s.begin(1, false);
        assert_eq!(s.check(), None, "said before its time");
        std::thread::sleep(STALL + Duration::from_millis(20));
        let said = s.check().expect("said");
        assert!(said.contains("on the disk of `files` (Files)"), "{said}");
        assert_eq!(s.check(), None, "said twice");
        assert!(s.over(w).is_some_and(|d| d >= STALL));
        // A short wait is neither said nor its end.
        let w = s.begin(0, true);
        assert_eq!(s.check(), None);
        assert_eq!(s.over(w), None);
        assert_eq!(s.check(), None, "said with no wait");
    }
}
