//! What comes from outside the image: console input lines, HTTP requests
//! (and the news that an exchange's client is done), and the signals that
//! stop a run. All of it arrives on one channel, which the event loop reads
//! only when the image is idle: whatever comes in waits for the queue to
//! drain, so no module is ever re-entered and deliveries stay in FIFO order.
//! After an HTTP event, the HTTP events that have come by then are taken in
//! with it (`ready`), so a busy site's requests are served a few to a turn
//! instead of each waking the loop.
//!
//! Console input is read by a thread of its own, one line per ask: the loop
//! asks only when the console has a watcher and nothing else is waiting, so
//! piped input is taken exactly as it would be typed, and a run that never
//! watches the console never reads standard input.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::time::{Duration, Instant};

use crate::ActorId;
use crate::InputLine;
use crate::natives::http::HttpEvent;

/// One thing from outside.
pub(crate) enum Outside {
    /// The next console input line (or why there is none).
    Line(InputLine),
    /// Console input has ended.
    InputEnded,
    /// What the listener of Http instance `actor` took or saw.
    Http { actor: ActorId, event: HttpEvent },
    /// SIGINT or SIGTERM (by name).
    Stop(&'static str),
    /// SIGUSR1: a report of what the runtime holds, on stderr.
    Report,
    /// A worker's call has returned.
    Finished(Box<crate::workers::Finished>),
    /// What came from the other nodes.
    Cluster(crate::cluster::node::FromCluster),
    /// A thread of the runtime's own panicked (`fault`): which, and why.
    Failed { thread: String, why: String },
}

/// The channel from outside, and what feeds it.
pub(crate) struct Inbox {
    tx: Sender<Outside>,
    rx: Receiver<Outside>,
    /// Console input, until its thread takes it.
    input: Option<Box<dyn Iterator<Item = InputLine> + Send>>,
    /// Asks the input thread for one more line.
    ask: Option<SyncSender<()>>,
    /// Whether a line has been asked for and has not come yet.
    asked: bool,
    watching_signals: bool,
    /// How long `next` keeps looking for something before it sleeps
    /// (`listening`); zero, it sleeps at once.
    look: Duration,
    /// Waits that ended while looking, and waits that slept: the report's
    /// `caught` and `slept`.
    pub caught: u64,
    pub slept: u64,
}

/// Looks at the channel this many times between clock reads (some
/// 40 ns each) and yields (a system call): a look is a few atomic loads.
const LOOKS: u32 = 64;

impl Inbox {
    pub fn new(input: Box<dyn Iterator<Item = InputLine> + Send>) -> Inbox {
        let (tx, rx) = mpsc::channel();
        Inbox {
            tx,
            rx,
            input: Some(input),
            ask: None,
            asked: false,
            watching_signals: false,
            look: Duration::ZERO,
            caught: 0,
            slept: 0,
        }
    }

    /// Where the runtime's own threads (listeners) send what they take.
    pub fn sender(&self) -> Sender<Outside> {
        self.tx.clone()
    }

    /// Where the workers tell what they finished: this channel, so the
    /// loop waits on one thing.
    pub fn worker_done(&self) -> crate::workers::Done {
        let tx = self.tx.clone();
        Arc::new(move |r| {
            let msg = match r {
                Ok(f) => Outside::Finished(Box::new(f)),
                Err(crate::workers::Failed { thread, why }) => Outside::Failed { thread, why },
            };
            tx.send(msg).is_ok()
        })
    }

    /// Where the cluster's node tells what came from the other nodes.
    pub fn cluster_delivery(&self) -> crate::cluster::node::Deliver {
        let tx = self.tx.clone();
        Arc::new(move |f| {
            let _ = tx.send(Outside::Cluster(f));
        })
    }

    /// Asks for the next console line, once: it comes as `Line` or
    /// `InputEnded`.
    pub fn ask_line(&mut self) {
        if self.asked {
            return;
        }
        if self.ask.is_none() {
            let Some(mut input) = self.input.take() else {
                return;
            };
            let (ask, asked) = mpsc::sync_channel::<()>(1);
            let tx = self.tx.clone();
            let spawned = std::thread::Builder::new()
                .name("console input".into())
                .spawn(move || {
                    while asked.recv().is_ok() {
                        let line = input.next();
                        let ended = matches!(line, None | Some(InputLine::Failed(_)));
                        let msg = line.map_or(Outside::InputEnded, Outside::Line);
                        if tx.send(msg).is_err() || ended {
                            return;
                        }
                    }
                });
            if spawned.is_err() {
                // No thread to read with (the system is out of them): as if
                // input had ended, which the run can go on without.
                let _ = self.tx.send(Outside::InputEnded);
                self.asked = true;
                return;
            }
            self.ask = Some(ask);
        }
        if let Some(ask) = &self.ask {
            self.asked = ask.send(()).is_ok();
        }
    }

    /// What has come already, if anything: never waits.
    pub fn ready(&mut self) -> Option<Outside> {
        let got = self.rx.try_recv().ok();
        self.took(got)
    }

    /// The next thing from outside, waiting for it (until `deadline`, if
    /// there is one); `None` when the deadline passed first.
    pub fn next(&mut self, deadline: Option<Instant>) -> Option<Outside> {
        if let Some(o) = self.look_awhile(deadline) {
            return self.took(Some(o));
        }
        self.slept += 1;
        let got = match deadline {
            None => self.rx.recv().ok(),
            Some(d) => self
                .rx
                .recv_timeout(d.saturating_duration_since(Instant::now()))
                .ok(),
        };
        self.took(got)
    }

    /// Before `next` sleeps: looks for something for `self.look` (at most
    /// until `deadline`), giving the core to any other thread that wants
    /// it meanwhile. A thread that sleeps is woken by a system call and, on
    /// an idle core of a virtual machine, only some tens of microseconds
    /// later, which is more than a small request takes to serve; a site's
    /// next requests mostly come within that (dev/performance.md).
    fn look_awhile(&mut self, deadline: Option<Instant>) -> Option<Outside> {
        if self.look.is_zero() {
            return None;
        }
        let mut until = Instant::now() + self.look;
        if let Some(d) = deadline {
            until = until.min(d);
        }
        loop {
            for _ in 0..LOOKS {
                if let Ok(o) = self.rx.try_recv() {
                    self.caught += 1;
                    return Some(o);
                }
                std::hint::spin_loop();
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::yield_now();
        }
    }

    /// `got`, taken: a console line (or its end) answers the ask.
    fn took(&mut self, got: Option<Outside>) -> Option<Outside> {
        if matches!(got, Some(Outside::Line(_) | Outside::InputEnded)) {
            self.asked = false;
        }
        got
    }

    /// Something has started listening (an Http object, a cluster node):
    /// from now on `next` looks for `look` before it sleeps (`--spin`), and
    /// signals are watched (`watch_signals`).
    pub fn listening(&mut self, look: Duration) {
        self.look = look;
        self.watch_signals();
    }

    /// From now on SIGINT and SIGTERM stop the run gracefully (`Stop`)
    /// instead of killing the process, and SIGUSR1 asks for a report: done when something starts
    /// listening, so a run without a listener keeps the default behaviour.
    fn watch_signals(&mut self) {
        if self.watching_signals {
            return;
        }
        self.watching_signals = true;
        let tx = self.tx.clone();
        let (ready_tx, ready) = mpsc::channel::<()>();
        // Without the thread, the signals keep their default effect.
        let _ = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                use tokio::signal::unix::{SignalKind, signal};
                let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .build()
                else {
                    return;
                };
                rt.block_on(async move {
                    let (Ok(mut int), Ok(mut term), Ok(mut usr1)) = (
                        signal(SignalKind::interrupt()),
                        signal(SignalKind::terminate()),
                        signal(SignalKind::user_defined1()),
                    ) else {
                        return;
                    };
                    let _ = ready_tx.send(());
                    loop {
                        let msg = tokio::select! {
                            _ = int.recv() => Outside::Stop("SIGINT"),
                            _ = term.recv() => Outside::Stop("SIGTERM"),
                            _ = usr1.recv() => Outside::Report,
                        };
                        if tx.send(msg).is_err() {
                            return;
                        }
                    }
                });
            });
        // Listening is announced only once a signal would be caught.
        let _ = ready.recv();
    }
}
