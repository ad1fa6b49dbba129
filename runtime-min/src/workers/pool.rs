//! The worker threads and the part of the runtime that owns them: jobs
//! handed out while a thread is free, held back while none is, done on the
//! loop's thread when there are none; what a thread finishes told through
//! the `Done` it was started with.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use super::{Finished, Job};

/// The calls and disk work a run hands to other threads: the part of the
/// runtime that owns its pool. It knows nothing of the loop: what the
/// threads finish goes where the `Done` it is given when it starts them
/// says.
pub(crate) struct Workers {
    /// The threads, started when the first job goes to one (never with
    /// `--workers 1`: every call is made on the loop's thread).
    pool: Option<Pool>,
    /// The threads asked for (`--workers`): 1 until the run's starts are
    /// done, and if they could not be started.
    wanted: usize,
    /// Calls into instances handed to workers so far.
    pub(crate) calls: u64,
    /// Jobs waiting for a worker to be free (disk work of a slow disk).
    waiting: VecDeque<Job>,
    /// Jobs out and not yet finished (on a worker, or done on the loop's
    /// thread when there is none).
    pub(crate) in_flight: usize,
}

impl Workers {
    /// None yet: every call is made on the loop's thread until `allow`.
    pub(crate) fn new() -> Workers {
        Workers {
            pool: None,
            wanted: 1,
            calls: 0,
            waiting: VecDeque::new(),
            in_flight: 0,
        }
    }

    /// `n` threads may be used from now on (`--workers`; the run's starts
    /// are done).
    pub(crate) fn allow(&mut self, n: usize) {
        self.wanted = n;
    }

    /// Whether there are workers to hand work to.
    pub(crate) fn any(&self) -> bool {
        self.wanted > 1
    }

    /// Hands `job` to a free worker, starting them when first needed (what
    /// they finish goes to `done()`); with none free it waits for one.
    /// Given back when it must be done on the loop's thread: there are no
    /// workers (or they could not be started, or are gone).
    pub(crate) fn send(&mut self, job: Job, done: impl FnOnce() -> Done) -> Option<Job> {
        if self.pool.is_none() && self.any() {
            self.pool = Pool::start(self.wanted, done());
            if self.pool.is_none() {
                self.wanted = 1;
            }
        }
        self.in_flight += 1;
        let Some(pool) = &self.pool else {
            return Some(job);
        };
        if self.in_flight > pool.threads {
            self.in_flight -= 1;
            self.waiting.push_back(job);
            return None;
        }
        if let Err(mpsc::SendError(job)) = pool.jobs.send(job) {
            self.pool = None;
            self.wanted = 1;
            return Some(job);
        }
        None
    }

    /// A job came back: the next waiting one, if any, to send.
    pub(crate) fn finished(&mut self) -> Option<Job> {
        self.in_flight -= 1;
        self.waiting.pop_front()
    }
}

/// The worker threads, taking jobs from one channel.
pub(crate) struct Pool {
    jobs: Sender<Job>,
    threads: usize,
}

/// A worker thread's own panic (`fault`): which thread, and why.
pub(crate) struct Failed {
    pub thread: String,
    pub why: String,
}

/// Where a worker tells what it finished, or that it failed; false once
/// nobody listens (the worker then stops).
pub(crate) type Done = Arc<dyn Fn(Result<Finished, Failed>) -> bool + Send + Sync>;

impl Pool {
    /// `n` threads; what they finish goes to `done`. Fewer if the system
    /// has no more threads to give (at least one, or none at all: `None`).
    pub fn start(n: usize, done: Done) -> Option<Pool> {
        let (jobs, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let mut started = 0;
        for i in 0..n {
            let (rx, done) = (rx.clone(), done.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("worker {i}"))
                .spawn(move || work(&rx, &done));
            if spawned.is_ok() {
                started += 1;
            }
        }
        (started > 0).then_some(Pool {
            jobs,
            threads: started,
        })
    }
}

fn work(jobs: &Mutex<Receiver<Job>>, done: &Done) {
    loop {
        // The lock is held only while waiting for the next job.
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return };
        let finished = crate::fault::caught(|| {
            crate::fault::inject("worker");
            job.run()
        });
        match finished {
            Ok(f) => {
                if !done(Ok(f)) {
                    return;
                }
            }
            Err(why) => {
                let thread = std::thread::current()
                    .name()
                    .unwrap_or("worker")
                    .to_string();
                done(Err(Failed { thread, why }));
                return;
            }
        }
    }
}
