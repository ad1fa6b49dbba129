//! The watch on the waits of the event loop that no limit bounds: a disk's
//! answer to `Files`, and standard output taking what `Console` writes. An
//! instance's call ends within `--max-time`, but a disk's answer may never
//! come (a network file system whose server went away), nor a pipe's
//! reader (`| less`, a stuck log shipper), and while the loop's thread
//! waits nothing else is served: the process looks alive and answers
//! nobody. A disk seen to be slow has its next requests done on a worker
//! (`workers`), but the request that finds it so is waited for here. So a
//! wait past `STALL` is said on standard error by the ticker's thread (the
//! loop's own is the one held), and the loop says when it is over.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::ActorId;

/// How long the loop waits on a disk before saying so.
pub(crate) const STALL: Duration = Duration::from_secs(2);

/// What the loop waits for.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Wait {
    /// A `Files` object's disk, for a request.
    Disk = 0,
    /// A disk, for the next part of a file an instance reads.
    Part = 1,
    /// Standard output, to take a line `Console` writes.
    Output = 2,
}

impl Wait {
    fn of(n: u8) -> Wait {
        match n {
            0 => Wait::Disk,
            1 => Wait::Part,
            _ => Wait::Output,
        }
    }

    /// What the wait is for, said of instance `who`.
    fn what(self, who: &str) -> String {
        match self {
            Wait::Disk => format!("on the disk of `{who}` (Files), which has not answered"),
            Wait::Part => {
                format!("on a disk for a part of a file `{who}` reads, which has not answered")
            }
            Wait::Output => {
                format!("to write `{who}`'s output: standard output's reader is not taking it")
            }
        }
    }

    /// Its end, after `took`.
    fn over(self, took: Duration) -> String {
        let (who, did) = match self {
            Wait::Disk | Wait::Part => ("the disk", "answered"),
            Wait::Output => ("standard output", "took the output"),
        };
        format!(
            "{who} {did} after {:.1} s: the runtime serves again",
            took.as_secs_f64()
        )
    }
}

/// What the loop is waiting on, shared with the ticker's thread.
pub(crate) struct Stall {
    base: Instant,
    /// When the wait began, in milliseconds since `base` plus one; 0 when
    /// the loop waits on no disk.
    since: AtomicU64,
    /// For whom (the `Files` or `Console` instance, or the one reading a
    /// file's parts), and what (a `Wait`).
    who: AtomicUsize,
    what: AtomicU8,
    /// Whether this wait has been said.
    said: AtomicBool,
    /// The instances' names, by index.
    names: Vec<String>,
}

/// A wait being watched: [`Stall::over`] ends it.
#[must_use]
pub(crate) struct Waiting(Instant, Wait);

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
            what: AtomicU8::new(0),
            said: AtomicBool::new(false),
            names,
        }
    }

    /// The loop begins to wait, for instance `who`, on `what`.
    pub(crate) fn begin(&self, who: ActorId, what: Wait) -> Waiting {
        let now = Instant::now();
        self.who.store(who.index(), Ordering::Relaxed);
        self.what.store(what as u8, Ordering::Relaxed);
        self.said.store(false, Ordering::Relaxed);
        let ms = now.duration_since(self.base).as_millis() as u64 + 1;
        self.since.store(ms, Ordering::Release);
        Waiting(now, what)
    }

    /// The wait is over: its end in words, if its beginning was said.
    pub(crate) fn over(&self, w: Waiting) -> Option<String> {
        self.since.store(0, Ordering::Release);
        self.said
            .load(Ordering::Relaxed)
            .then(|| w.1.over(w.0.elapsed()))
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
        let what = Wait::of(self.what.load(Ordering::Relaxed)).what(who);
        Some(format!(
            "warning: the runtime has waited {} s {what}: nothing else is served until it is over",
            STALL.as_secs()
        ))
    }
}

impl crate::Runtime<'_> {
    /// The loop's wait is over: said, if it was said to begin.
    pub(crate) fn stall_over(&mut self, w: Waiting) {
        if let Some(said) = self.stall.over(w) {
            let _ = writeln!(self.io.err, "{said}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_is_said_once_past_the_stall_and_its_end_after() {
        let s = Stall::new(vec!["site".into(), "files".into()]);
        let w = s.begin(ActorId::at(1), Wait::Disk);
        assert_eq!(s.check(), None, "said before its time");
        std::thread::sleep(STALL + Duration::from_millis(20));
        let said = s.check().expect("said");
        assert!(said.contains("on the disk of `files` (Files)"), "{said}");
        assert_eq!(s.check(), None, "said twice");
        let over = s.over(w).expect("its end said");
        assert!(over.starts_with("the disk answered after 2."), "{over}");
        // A short wait is neither said nor its end.
        let w = s.begin(ActorId::at(0), Wait::Output);
        assert_eq!(s.check(), None);
        assert_eq!(s.over(w), None);
        assert_eq!(s.check(), None, "said with no wait");
    }
}
