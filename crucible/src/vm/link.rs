//! The host's end of the agent port: one reader task routing the agent's
//! messages to their sessions, one writer task, and a [`Sandbox`] on top.
//! When the port ends (the VM died, the agent crashed), every session still
//! open is told so: an exec ends with `exit_code: -1` and the reason, a
//! file transfer fails with 502, and the link reports itself dead.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use crate::guest::FilesError;
use crate::sandbox::{Input, Output, Process, Sandbox};
use crate::vm::wire::{self, FilesFailure, Kind, Message, Start};
use crate::wire::{ExecRequest, ExecResult, WireFilesPutResult};

/// How long a file transfer may take before the agent counts as hung.
pub const FILES_DEADLINE: Duration = Duration::from_secs(120);

/// How long past a command's own timeout the agent has to say it ended.
const EXIT_GRACE: Duration = Duration::from_secs(10);

enum Route {
    Exec(mpsc::Sender<Output>),
    Files(std::sync::mpsc::Sender<Result<Message, String>>),
}

/// The sessions' routes and whether the link is dead, under one lock: a
/// route is opened only on a live link, and burying the link ends every
/// route open at that moment, so no session can open after the burial's
/// sweep and wait for ever. (Two locks let `exec` check, the link die and
/// sweep, then `exec` open a route nobody would ever end.)
#[derive(Default)]
struct State {
    routes: HashMap<u32, Route>,
    /// Why the link is dead, once it is.
    dead: Option<String>,
}

struct Shared {
    state: Mutex<State>,
    pongs: Mutex<Vec<oneshot::Sender<Vec<u8>>>>,
}

impl Shared {
    /// The state (a poisoned lock as the crate treats one: `crate::lock`).
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        crate::lock(&self.state)
    }

    fn pongs(&self) -> std::sync::MutexGuard<'_, Vec<oneshot::Sender<Vec<u8>>>> {
        crate::lock(&self.pongs)
    }

    /// Opens session `id`'s route, unless the link is dead (then why).
    fn open(&self, id: u32, route: Route) -> Result<(), String> {
        let mut state = self.state();
        if let Some(why) = &state.dead {
            return Err(why.clone());
        }
        state.routes.insert(id, route);
        Ok(())
    }

    /// Closes session `id`'s route; whether it was still open.
    fn close(&self, id: u32) -> bool {
        self.state().routes.remove(&id).is_some()
    }
}

/// The host's end of one agent's port.
#[derive(Clone)]
pub struct AgentLink {
    shared: Arc<Shared>,
    to_agent: mpsc::UnboundedSender<Message>,
    next: Arc<AtomicU32>,
}

impl AgentLink {
    /// Starts the link's tasks over a connected port (the agent's `Ready`
    /// already read by [`AgentLink::connect`]); must run inside a tokio
    /// runtime.
    fn start(
        mut read: impl AsyncRead + Unpin + Send + 'static,
        mut write: impl AsyncWrite + Unpin + Send + 'static,
    ) -> AgentLink {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            pongs: Mutex::new(Vec::new()),
        });
        let (to_agent, mut outbox) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(m) = outbox.recv().await {
                if write.write_all(&m.encode()).await.is_err() {
                    break;
                }
            }
        });
        let s = shared.clone();
        tokio::spawn(async move {
            let why = loop {
                match read_message(&mut read).await {
                    Ok(Some(m)) => route(&s, m).await,
                    Ok(None) => break "the VM's agent port closed (the VM stopped)".to_string(),
                    Err(e) => break format!("the VM's agent port failed: {e}"),
                }
            };
            bury(&s, why);
        });
        AgentLink {
            shared,
            to_agent,
            next: Arc::new(AtomicU32::new(1)),
        }
    }

    /// Waits (up to `deadline`) for the agent's `Ready` on a fresh port,
    /// then starts the link.
    pub async fn connect(
        mut read: impl AsyncRead + Unpin + Send + 'static,
        write: impl AsyncWrite + Unpin + Send + 'static,
        deadline: Duration,
    ) -> Result<AgentLink, String> {
        let first = tokio::time::timeout(deadline, read_message(&mut read))
            .await
            .map_err(|_| format!("the agent did not say it was ready within {deadline:?}"))?
            .map_err(|e| format!("the agent's port: {e}"))?;
        match first {
            Some(m) if m.kind == Kind::Ready => Ok(AgentLink::start(read, write)),
            Some(m) => Err(format!("the agent began with {:?}, not Ready", m.kind)),
            None => Err("the agent's port closed before it was ready".into()),
        }
    }

    /// Starts the link over the port of a VM restored from a snapshot:
    /// its agent said it was ready long ago, in the template, so it is
    /// asked to answer a ping instead (a `Ready` it sends on reopening the
    /// port is ignored).
    pub async fn resume(
        read: impl AsyncRead + Unpin + Send + 'static,
        write: impl AsyncWrite + Unpin + Send + 'static,
        deadline: Duration,
    ) -> Result<AgentLink, String> {
        let link = AgentLink::start(read, write);
        link.ask(Message::new(0, Kind::Ping, Vec::new()), deadline)
            .await
            .map_err(|e| format!("the restored VM's agent: {e}"))?;
        Ok(link)
    }

    /// Why the link is dead, if it is.
    pub fn dead(&self) -> Option<String> {
        self.shared.state().dead.clone()
    }

    fn session(&self) -> u32 {
        // 0 is the VM's own session.
        loop {
            let id = self.next.fetch_add(1, Ordering::Relaxed);
            if id != 0 {
                return id;
            }
        }
    }

    /// Sends a session-0 message and waits for the agent's `Pong`.
    pub async fn ask(&self, m: Message, deadline: Duration) -> Result<Vec<u8>, String> {
        let (tx, rx) = oneshot::channel();
        self.shared.pongs().push(tx);
        if let Some(why) = self.dead() {
            return Err(why);
        }
        let _ = self.to_agent.send(m);
        match tokio::time::timeout(deadline, rx).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err(self.dead().unwrap_or_else(|| "the link closed".into())),
            Err(_) => Err(format!(
                "the agent did not answer within {deadline:?} (hung)"
            )),
        }
    }

    /// Pings the agent every `every`; one that does not answer within
    /// `deadline` is hung: the link is dead from then on, and every open
    /// session learns so, as when the VM dies.
    pub fn watch(&self, every: Duration, deadline: Duration) {
        let link = self.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                if link.dead().is_some() {
                    return;
                }
                let ping = Message::new(0, Kind::Ping, Vec::new());
                if link.ask(ping, deadline).await.is_err() {
                    if link.dead().is_none() {
                        bury(
                            &link.shared,
                            format!(
                                "the agent did not answer a ping within {deadline:?}: it is hung"
                            ),
                        );
                    }
                    return;
                }
            }
        });
    }

    /// Asks the agent to power the VM off (no answer comes).
    pub fn power_off(&self) {
        let _ = self
            .to_agent
            .send(Message::new(0, Kind::PowerOff, Vec::new()));
    }

    /// A file transfer: the agent's answer, waited for on this thread.
    fn files(&self, m: Message) -> Result<Message, FilesError> {
        let (tx, rx) = std::sync::mpsc::channel();
        let id = m.session;
        self.shared
            .open(id, Route::Files(tx))
            .map_err(unreachable)?;
        let _ = self.to_agent.send(m);
        let answer = rx.recv_timeout(FILES_DEADLINE);
        self.shared.close(id);
        match answer {
            Ok(Ok(m)) => Ok(m),
            Ok(Err(why)) => Err(unreachable(why)),
            Err(_) => Err(unreachable(format!(
                "the agent did not answer within {FILES_DEADLINE:?} (hung)"
            ))),
        }
    }
}

fn unreachable(why: String) -> FilesError {
    FilesError::new(crate::failure::FailureKind::Unreachable, why)
}

async fn read_message(r: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Option<Message>> {
    let mut head = [0u8; wire::HEADER];
    let mut got = 0;
    while got < wire::HEADER {
        let n = r.read(&mut head[got..]).await?;
        if n == 0 {
            return if got == 0 {
                Ok(None)
            } else {
                Err(std::io::ErrorKind::UnexpectedEof.into())
            };
        }
        got += n;
    }
    let (session, kind, len) = wire::header(&head)?;
    let mut payload = vec![0; len];
    r.read_exact(&mut payload).await?;
    Ok(Some(Message {
        session,
        kind,
        payload,
    }))
}

async fn route(s: &Shared, m: Message) {
    if m.session == 0 {
        if m.kind == Kind::Pong {
            let waiter = {
                let mut pongs = s.pongs();
                (!pongs.is_empty()).then(|| pongs.remove(0))
            };
            if let Some(w) = waiter {
                let _ = w.send(m.payload);
            }
        }
        return;
    }
    let exec = {
        let mut state = s.state();
        let routes = &mut state.routes;
        match routes.get(&m.session) {
            Some(Route::Exec(tx)) => {
                let tx = tx.clone();
                if m.kind == Kind::Exit {
                    routes.remove(&m.session);
                }
                Some(tx)
            }
            Some(Route::Files(_)) => {
                if let Some(Route::Files(tx)) = routes.remove(&m.session) {
                    let _ = tx.send(Ok(m));
                }
                return;
            }
            None => return,
        }
    };
    let Some(tx) = exec else { return };
    let out = match m.kind {
        Kind::Stdout => Output::Stdout(m.payload),
        Kind::Stderr => Output::Stderr(m.payload),
        Kind::Exit => Output::Exit(
            m.parse::<ExecResult>()
                .unwrap_or_else(|e| ExecResult::lost(format!("the agent's exit: {e}"))),
        ),
        _ => return,
    };
    // A client that stopped reading holds the agent's messages back here,
    // as a slow reader would hold a local command's pipe.
    let _ = tx.send(out).await;
}

/// The port is gone: every open session learns why.
fn bury(s: &Shared, why: String) {
    let routes: Vec<Route> = {
        let mut state = s.state();
        state.dead = Some(why.clone());
        state.routes.drain().map(|(_, r)| r).collect()
    };
    for r in routes {
        match r {
            Route::Exec(tx) => {
                let _ = tx.try_send(Output::Exit(ExecResult::lost(why.clone())));
            }
            Route::Files(tx) => {
                let _ = tx.send(Err(why.clone()));
            }
        }
    }
    s.pongs().clear();
}

impl Sandbox for AgentLink {
    fn exec(&self, req: &ExecRequest, interactive: bool) -> Result<Process, String> {
        let id = self.session();
        let (out_tx, out_rx) = mpsc::channel(64);
        self.shared.open(id, Route::Exec(out_tx.clone()))?;
        let start = Start {
            request: req.clone(),
            interactive,
        };
        let _ = self.to_agent.send(Message::json(id, Kind::Exec, &start));
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let input = interactive.then(|| {
            let (in_tx, mut in_rx) = mpsc::channel::<Input>(64);
            let to_agent = self.to_agent.clone();
            tokio::spawn(async move {
                while let Some(i) = in_rx.recv().await {
                    let m = match i {
                        Input::Stdin(b) => Message::new(id, Kind::Stdin, b),
                        Input::Close => Message::new(id, Kind::StdinClose, Vec::new()),
                    };
                    if to_agent.send(m).is_err() {
                        break;
                    }
                }
            });
            in_tx
        });
        // The client gone: the agent kills the session's group. A command
        // with a timeout that the agent does not end in time is lost.
        let (to_agent, shared) = (self.to_agent.clone(), self.shared.clone());
        let deadline = req.timeout_s.map(|t| Duration::from_secs(t) + EXIT_GRACE);
        tokio::spawn(async move {
            let overdue = async {
                match deadline {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = kill_rx => {}
                _ = overdue => {
                    if shared.close(id) {
                        let _ = out_tx.try_send(Output::Exit(ExecResult::lost(
                            "the agent did not end the command at its timeout (hung)",
                        )));
                    }
                }
            }
            let _ = to_agent.send(Message::new(id, Kind::Kill, Vec::new()));
        });
        Ok(Process {
            output: out_rx,
            input,
            _kill: kill_tx,
        })
    }

    fn put_files(&self, dest: &str, tar: &[u8]) -> Result<WireFilesPutResult, FilesError> {
        let mut payload = Vec::with_capacity(dest.len() + 1 + tar.len());
        payload.extend_from_slice(dest.as_bytes());
        payload.push(0);
        payload.extend_from_slice(tar);
        let m = self.files(Message::new(self.session(), Kind::Put, payload))?;
        answer(m, Kind::PutDone, |m| {
            m.parse().map_err(|e| unreachable(e.to_string()))
        })
    }

    fn get_file(&self, path: &str) -> Result<Vec<u8>, FilesError> {
        let m = self.files(Message::new(self.session(), Kind::Get, path.as_bytes()))?;
        answer(m, Kind::GetDone, |m| Ok(m.payload))
    }
}

fn answer<T>(
    m: Message,
    done: Kind,
    take: impl FnOnce(Message) -> Result<T, FilesError>,
) -> Result<T, FilesError> {
    if m.kind == done {
        return take(m);
    }
    match m.parse::<FilesFailure>() {
        Ok(f) if m.kind == Kind::FilesFailed => Err(FilesError::new(f.kind, f.reason)),
        _ => Err(unreachable(format!("the agent answered {:?}", m.kind))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> Shared {
        Shared {
            state: Mutex::new(State::default()),
            pongs: Mutex::new(Vec::new()),
        }
    }

    /// The two orders a session's opening and the link's burial can take,
    /// each one step under the link's one lock: opened before, the burial
    /// ends it (a lost exit); after, it is refused with why. There is no
    /// third order in which it opens unseen by the burial.
    #[test]
    fn a_session_opened_before_the_burial_is_ended_and_after_it_refused() {
        let s = shared();
        let (tx, mut rx) = mpsc::channel(4);
        s.open(1, Route::Exec(tx)).unwrap();
        bury(&s, "the port closed".into());
        match rx.try_recv() {
            Ok(Output::Exit(r)) => assert_eq!(r.exit_code, -1),
            _ => panic!("the open session was not ended"),
        }
        let (tx, _rx) = mpsc::channel(4);
        assert_eq!(s.open(2, Route::Exec(tx)), Err("the port closed".into()));
        assert!(s.state().routes.is_empty());
    }
}
