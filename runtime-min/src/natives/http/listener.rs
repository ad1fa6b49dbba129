//! The Http object's listener: hyper's HTTP/1.1 server on a thread of its
//! own, which turns each request into an `Incoming` for the event loop and
//! waits for the parts of its response. Malformed requests, huge heads and
//! slow clients are dealt with here, by hyper and the limits below, and
//! never reach the image; a client that leaves only closes its exchange.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame, Incoming as HyperBody, SizeHint};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::sync::{mpsc, watch};

use super::look::{Look, look};
use super::outbox::{Batch, hand_on};
use super::send_timeout::SendTimeout;
use super::troubles::Troubles;
use super::wire::Config;
use super::{Flow, HIGH_WATER, HttpEvent, Incoming, Notify, Part, answer};

/// The longest a request head may take to arrive.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The most bytes of a request head: hyper's read buffer, and the limit
/// past which a head is answered 431.
const MAX_HEAD: usize = 64 * 1024;
/// Connections open at once; more are closed as they come.
const MAX_CONNECTIONS: usize = 1024;

/// The event loop's hold on a listener.
pub(crate) struct Handle {
    pub addr: SocketAddr,
    /// Where the parts of responses go, a turn's worth at a time (`outbox`).
    pub batches: mpsc::UnboundedSender<Batch>,
    stop: watch::Sender<bool>,
    /// Set when the listener reports that it and its connections are done.
    pub closed: bool,
    /// Its thread's look, for the report's counts.
    pub look: Arc<Look>,
}

impl Handle {
    pub fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

/// What every connection of one listener shares.
struct Shared {
    notify: Notify,
    max_body: usize,
    timeout: Duration,
    next_id: AtomicU64,
    connections: AtomicUsize,
    look: Arc<Look>,
}

/// Binds (here, so a bad address is the configuring write's error) and
/// starts serving on a thread, which looks for work for `span` before it
/// sleeps (`look`).
pub(crate) fn start(config: &Config, notify: Notify, span: Duration) -> std::io::Result<Handle> {
    let listener = std::net::TcpListener::bind(&config.listen)?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = watch::channel(false);
    let (batches, to_hand_on) = mpsc::unbounded_channel();
    let shared = Arc::new(Shared {
        notify,
        max_body: config.max_body,
        timeout: Duration::from_millis(config.timeout_ms),
        next_id: AtomicU64::new(1),
        connections: AtomicUsize::new(0),
        look: Look::new(span),
    });
    let looking = shared.look.clone();
    let look_counts = shared.look.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    std::thread::Builder::new()
        .name(format!("http {addr}"))
        .spawn(move || {
            let done = shared.notify.clone();
            let ran = crate::fault::caught(|| {
                rt.block_on(async {
                    // Until the Http object is gone: a connection still
                    // finishing after the listener stops gets its parts too.
                    tokio::spawn(hand_on(to_hand_on, looking.clone()));
                    tokio::spawn(look(looking));
                    accept(listener, shared, stopped).await
                })
            });
            done(match ran.and_then(|accepted| accepted) {
                Ok(()) => HttpEvent::Stopped,
                Err(why) => HttpEvent::Failed(why),
            });
        })?;
    Ok(Handle {
        addr,
        batches,
        stop,
        closed: false,
        look: look_counts,
    })
}

async fn accept(
    listener: std::net::TcpListener,
    shared: Arc<Shared>,
    mut stopped: watch::Receiver<bool>,
) -> Result<(), String> {
    // A socket the reactor cannot watch is a port nobody serves: the run
    // must not go on as if it were served.
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|e| format!("cannot watch its socket: {e}"))?;
    let beat = tokio::spawn(heartbeat());
    let mut conns = tokio::task::JoinSet::new();
    let mut troubles = Troubles::of(listener.local_addr().ok());
    loop {
        tokio::select! {
            a = listener.accept() => match a {
                Ok((stream, _)) => {
                    crate::fault::inject("listener");
                    if shared.connections.load(Ordering::Relaxed) >= MAX_CONNECTIONS {
                        troubles.turned_away(MAX_CONNECTIONS);
                        continue;
                    }
                    // A streamed body goes out part by part: Nagle's
                    // algorithm would hold each small part back until the
                    // client's delayed ACK (40 ms a part), as nginx's
                    // `tcp_nodelay on` avoids.
                    let _ = stream.set_nodelay(true);
                    shared.connections.fetch_add(1, Ordering::Relaxed);
                    conns.spawn(connection(stream, shared.clone(), stopped.clone()));
                }
                // Out of file descriptors, say: wait a little, go on.
                Err(e) => {
                    troubles.accept_failed(&e);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
            _ = stopped.changed() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    // What is open finishes; the event loop bounds how long it waits.
    while conns.join_next().await.is_some() {}
    beat.abort();
    Ok(())
}

/// The interval of `heartbeat`: shorter than every timeout the listener
/// sets (the head's 10 s; `timeoutMs`, 30 s by default).
const BEAT: Duration = Duration::from_secs(1);

/// A timer always due within `BEAT`. tokio wakes its own thread (an
/// `eventfd` write, then an `epoll_wait` that returns at once) whenever a
/// timer is set to fire before every other one, since the thread may be
/// asleep until then; hyper's head timeout and the response's are each set
/// once a request, so with no other timer pending (one connection, say)
/// each request paid that twice over (strace of one request: two `eventfd`
/// writes and two empty `epoll_wait`s). With this one always sooner,
/// setting them wakes nobody; they fire on time all the same.
async fn heartbeat() {
    let mut beat = tokio::time::interval(BEAT);
    beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        beat.tick().await;
    }
}

async fn connection(
    stream: tokio::net::TcpStream,
    shared: Arc<Shared>,
    mut stopped: watch::Receiver<bool>,
) {
    let svc = {
        let shared = shared.clone();
        hyper::service::service_fn(move |r| {
            let shared = shared.clone();
            async move { Ok::<_, Infallible>(exchange(shared, r).await) }
        })
    };
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        .max_buf_size(MAX_HEAD)
        // A client that takes nothing of its response for `timeoutMs` is
        // cut off, as one whose response does not start in that time is
        // answered 504.
        .serve_connection(TokioIo::new(SendTimeout::new(stream, shared.timeout)), svc);
    tokio::pin!(conn);
    let stopping = *stopped.borrow();
    if stopping {
        conn.as_mut().graceful_shutdown();
        let _ = conn.await;
    } else {
        tokio::select! {
            _ = conn.as_mut() => {}
            _ = stopped.changed() => {
                conn.as_mut().graceful_shutdown();
                let _ = conn.await;
            }
        }
    }
    shared.connections.fetch_sub(1, Ordering::Relaxed);
}

/// Tells the event loop when an exchange's client side is over, if the
/// loop still holds the exchange.
struct Gone {
    shared: Arc<Shared>,
    id: u64,
    /// Whether the loop holds it: from its hand-over until a whole
    /// response comes back (the loop forgets an exchange as it sends its
    /// whole response), so a finished request costs the loop no wake-up.
    held: bool,
}

impl Drop for Gone {
    fn drop(&mut self) {
        if self.held {
            (self.shared.notify)(HttpEvent::Gone(self.id));
        }
    }
}

fn respond(
    part: Part,
    rx: Option<(mpsc::UnboundedReceiver<Part>, Arc<Flow>)>,
    gone: Gone,
) -> Response<Parts> {
    let Part::Head {
        status,
        headers,
        body,
        streamed,
        length,
    } = part
    else {
        return respond(
            answer(StatusCode::INTERNAL_SERVER_ERROR, "a body part came first"),
            None,
            gone,
        );
    };
    let (rest, flow) = match rx {
        Some((rx, flow)) if streamed => (Some(rx), Some(flow)),
        _ => (None, None),
    };
    let mut r = Response::new(Parts {
        left: length.filter(|_| rest.is_some()),
        first: (!body.is_empty()).then(|| Bytes::from(body)),
        rest,
        flow,
        gone,
    });
    *r.status_mut() = status;
    *r.headers_mut() = headers;
    r
}

async fn exchange(shared: Arc<Shared>, req: Request<HyperBody>) -> Response<Parts> {
    let id = shared.next_id.fetch_add(1, Ordering::Relaxed);
    shared.look.busy();
    let mut gone = Gone {
        shared: shared.clone(),
        id,
        held: false,
    };
    let (head, body) = req.into_parts();
    if let Some(refused) = head_refused(&head) {
        return respond(refused, None, gone);
    }
    let body = match read_body(&shared, body).await {
        Ok(b) => b,
        Err(refused) => return respond(refused, None, gone),
    };
    let (parts, mut rx) = mpsc::unbounded_channel();
    let flow = Arc::new(Flow::default());
    let target = head.uri.path_and_query().map_or("/", |p| p.as_str());
    let headers = head.headers.iter().map(|(n, v)| (n.as_str(), v.as_bytes()));
    let incoming = Incoming::new(
        id,
        (head.method.as_str(), target),
        headers,
        &body,
        parts,
        flow.clone(),
    );
    let stopped = || answer(StatusCode::SERVICE_UNAVAILABLE, "the image has stopped");
    if !(shared.notify)(HttpEvent::Request(incoming)) {
        return respond(stopped(), None, gone);
    }
    gone.held = true;
    match tokio::time::timeout(shared.timeout, rx.recv()).await {
        Ok(Some(part)) => {
            gone.held = !matches!(
                part,
                Part::Head {
                    streamed: false,
                    ..
                }
            );
            respond(part, Some((rx, flow)), gone)
        }
        Ok(None) => respond(stopped(), None, gone),
        Err(_) => respond(
            answer(
                StatusCode::GATEWAY_TIMEOUT,
                "the site did not respond in time",
            ),
            None,
            gone,
        ),
    }
}

/// The answer to a request head the listener refuses on its own, if it
/// does: one too long, without its one Host, or whose body's length could
/// be read two ways.
fn head_refused(head: &hyper::http::request::Parts) -> Option<Part> {
    // hyper bounds its buffer, not the head: a head this long is refused
    // here, before anything of it is copied.
    let head_bytes: usize = head
        .headers
        .iter()
        .map(|(n, v)| n.as_str().len() + v.len() + 4)
        .sum::<usize>()
        + head.uri.to_string().len();
    if head_bytes > MAX_HEAD {
        return Some(answer(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            &format!("the request head is over {MAX_HEAD} bytes"),
        ));
    }
    // RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host.
    if head.version == hyper::Version::HTTP_11
        && head.headers.get_all(hyper::header::HOST).iter().count() != 1
    {
        return Some(answer(
            StatusCode::BAD_REQUEST,
            "an HTTP/1.1 request has exactly one Host header",
        ));
    }
    // RFC 9112 §6.1: a transfer coding other than one `chunked` (two
    // headers, `gzip, chunked`) can be read one way here and another by a
    // proxy in front, the request smuggling nginx refuses too. (A length
    // given both ways, hyper reads as chunked and closes the connection
    // after, as §6.3 says.)
    let codings: Vec<_> = head
        .headers
        .get_all(hyper::header::TRANSFER_ENCODING)
        .iter()
        .collect();
    if !codings.is_empty()
        && (codings.len() > 1 || !codings[0].as_bytes().eq_ignore_ascii_case(b"chunked"))
    {
        return Some(answer(
            StatusCode::BAD_REQUEST,
            "the body's length is given more than one way (Transfer-Encoding)",
        ));
    }
    None
}

/// The request's body, whole, or the answer that refuses it: over the
/// limit (a declared length before any of it is read), malformed, or too
/// slow.
async fn read_body(shared: &Shared, body: HyperBody) -> Result<Vec<u8>, Part> {
    let too_large = || {
        answer(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("the body is over {} bytes", shared.max_body),
        )
    };
    if body.size_hint().lower() > shared.max_body as u64 {
        return Err(too_large());
    }
    let limited = http_body_util::Limited::new(body, shared.max_body);
    match tokio::time::timeout(shared.timeout, limited.collect()).await {
        Ok(Ok(b)) => Ok(b.to_bytes().to_vec()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(too_large()),
        // Framing hyper could not read: a bad chunk size, say.
        Ok(Err(_)) => Err(answer(StatusCode::BAD_REQUEST, "the body is malformed")),
        Err(_) => Err(answer(
            StatusCode::REQUEST_TIMEOUT,
            "the body came too slowly",
        )),
    }
}

/// A response body: the part that came with the head, then (streamed) each
/// part as it is written; the exchange is over when hyper drops it.
struct Parts {
    first: Option<Bytes>,
    rest: Option<mpsc::UnboundedReceiver<Part>>,
    /// What of it waits in `rest`, shared with the event loop.
    flow: Option<Arc<Flow>>,
    /// Bytes still to come of a body whose length was given.
    left: Option<u64>,
    gone: Gone,
}

impl Parts {
    /// A part, counted against the length given, if one was: a body that
    /// would go past it is cut off there (an error: hyper closes the
    /// connection rather than end the body as if it were whole).
    fn part(&mut self, b: Bytes) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        if let Some(left) = &mut self.left {
            if b.len() as u64 > *left {
                self.rest = None;
                return Poll::Ready(Some(Err(cut_off("longer than its `length`"))));
            }
            *left -= b.len() as u64;
        }
        Poll::Ready(Some(Ok(Frame::data(b))))
    }

    /// A part taken from `rest`: if writes were held back until the
    /// connection had taken enough, the event loop is told it has.
    fn taken(&self, n: usize) {
        let Some(flow) = &self.flow else { return };
        let before = flow.queued.fetch_sub(n, Ordering::AcqRel);
        if before - n <= HIGH_WATER && flow.wanted.swap(false, Ordering::AcqRel) {
            (self.gone.shared.notify)(HttpEvent::Drained(self.gone.id));
        }
    }
}

fn cut_off(why: &str) -> std::io::Error {
    std::io::Error::other(format!("the response body was cut off: {why}"))
}

impl Body for Parts {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        if let Some(b) = self.first.take() {
            return self.part(b);
        }
        let Some(rest) = self.rest.as_mut() else {
            return Poll::Ready(None);
        };
        loop {
            return match rest.poll_recv(cx) {
                // An empty part would end a chunked body early.
                Poll::Ready(Some(Part::Chunk(c))) if c.is_empty() => continue,
                Poll::Ready(Some(Part::Chunk(c))) => {
                    self.taken(c.len());
                    self.part(c.into())
                }
                Poll::Ready(Some(Part::Failed(why))) => {
                    self.rest = None;
                    Poll::Ready(Some(Err(cut_off(&why))))
                }
                // A second head cannot happen (the object is refused it).
                Poll::Ready(Some(Part::Head { .. }) | None) => {
                    self.rest = None;
                    if self.left.is_some_and(|l| l > 0) {
                        return Poll::Ready(Some(Err(cut_off("it ended before its `length`"))));
                    }
                    Poll::Ready(None)
                }
                Poll::Pending => Poll::Pending,
            };
        }
    }

    fn is_end_stream(&self) -> bool {
        self.first.is_none() && self.rest.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        match (&self.first, &self.rest, self.left) {
            (first, None, _) => SizeHint::with_exact(first.as_ref().map_or(0, |b| b.len() as u64)),
            (_, Some(_), Some(left)) => SizeHint::with_exact(left),
            _ => SizeHint::default(),
        }
    }
}
