//! The daemon side, as a library: the routes, both interactive transports,
//! and file transfer, over any [`Backend`].
//!
//! | route | what |
//! |---|---|
//! | `POST /sandboxes/{id}/exec` | one-shot: JSON ExecRequest in, a frame stream out (200, `application/octet-stream`) |
//! | `POST /sandboxes/{id}/exec?stdin=1` | transport A: a bare `200 OK`, then frames both ways on the raw connection |
//! | `GET /sandboxes/{id}/exec` + WebSocket upgrade | transport B: the first message is the ExecRequest, then frames in binary messages |
//! | `POST /sandboxes/{id}/files?path=DIR` | push: a tar body, extracted beneath DIR; JSON WireFilesPutResult |
//! | `GET /sandboxes/{id}/files?path=FILE` | pull: the file's bytes |
//!
//! Every route wants `Authorization: Bearer KEY` when the daemon has a key
//! (401 otherwise). Errors before streaming are JSON `{"error": "..."}` with
//! a 4xx status; after a 200 is committed, failures are in-band (an exit
//! frame with `exit_code: -1`); on a WebSocket, close codes 1008 and 1011.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame as BodyFrame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};

use crate::frame::{Direction, FrameType};
use crate::http::{Prefixed, query_param, read_head};
use crate::io::{AsyncFrameReader, PushReader, encode, encode_exit};
use crate::sandbox::{Backend, Input, Output, Process, Sandbox, valid_id};
use crate::wire::{ErrorBody, ExecRequest, ExecResult};

/// How the daemon is set up.
#[derive(Clone, Debug)]
pub struct Config {
    /// The bearer key every request must carry; `None` lets anyone in.
    pub key: Option<String>,
    /// How long a WebSocket client has to send its ExecRequest.
    pub first_message_timeout: Duration,
    /// How long a connection has to send its first request's head; one
    /// that does not is closed.
    pub head_timeout: Duration,
    /// The largest request body (an ExecRequest, a tar archive).
    pub max_body: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            key: None,
            first_message_timeout: Duration::from_secs(30),
            head_timeout: Duration::from_secs(30),
            max_body: 256 << 20,
        }
    }
}

struct Daemon {
    backend: Arc<dyn Backend>,
    config: Config,
}

type Body = BoxBody<Bytes, Infallible>;

/// Serves connections from `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, backend: Arc<dyn Backend>, config: Config) {
    let d = Arc::new(Daemon { backend, config });
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let d = d.clone();
        tokio::spawn(async move {
            let _ = connection(d, stream).await;
        });
    }
}

/// Binds `addr` and serves on a task of its own: the address it listens on.
pub async fn spawn(
    addr: SocketAddr,
    backend: Arc<dyn Backend>,
    config: Config,
) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr).await?;
    let at = listener.local_addr()?;
    tokio::spawn(serve(listener, backend, config));
    Ok(at)
}

fn json_error(status: StatusCode, reason: impl Into<String>) -> Response<Body> {
    let body = serde_json::to_vec(&ErrorBody {
        error: reason.into(),
    })
    .expect("an error serializes");
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("a response")
}

/// Why a request is refused before anything streams: its status and why.
type Refusal = (StatusCode, String);

fn refused((status, why): Refusal) -> Response<Body> {
    json_error(status, why)
}

/// The sandbox a path `/sandboxes/{id}/{what}` names, and `what`; or why not.
fn route_of<'p>(d: &Daemon, path: &'p str) -> Result<(Arc<dyn Sandbox>, &'p str), Refusal> {
    let no_route = || (StatusCode::NOT_FOUND, format!("no route `{path}`"));
    let rest = path.strip_prefix("/sandboxes/").ok_or_else(no_route)?;
    let (id, what) = rest.split_once('/').ok_or_else(no_route)?;
    if !valid_id(id) {
        return Err((
            StatusCode::BAD_REQUEST,
            format!("`{id}` is not a sandbox id"),
        ));
    }
    let s = d
        .backend
        .sandbox(id)
        .ok_or_else(|| (StatusCode::NOT_FOUND, format!("no sandbox `{id}`")))?;
    Ok((s, what))
}

/// `None` when the request may go on; the 401 otherwise.
fn authorize(d: &Daemon, header: Option<&[u8]>) -> Option<Response<Body>> {
    let key = d.config.key.as_ref()?;
    let given = header
        .and_then(|h| std::str::from_utf8(h).ok())
        .and_then(|h| h.strip_prefix("Bearer "));
    match given {
        Some(g) if g == key => None,
        Some(_) => Some(json_error(StatusCode::UNAUTHORIZED, "wrong key")),
        None => Some(json_error(
            StatusCode::UNAUTHORIZED,
            "missing `Authorization: Bearer KEY`",
        )),
    }
}

/// One connection: transport A if its first request asks for it, else HTTP.
async fn connection(d: Arc<Daemon>, mut stream: TcpStream) -> std::io::Result<()> {
    // A connection that never sends a whole head is not kept for ever.
    let head = tokio::time::timeout(d.config.head_timeout, read_head(&mut stream)).await;
    let Ok(Some((head_len, read))) = head.unwrap_or(Ok(None)) else {
        return Ok(());
    };
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    let hijack = match req.parse(&read[..head_len]) {
        Ok(httparse::Status::Complete(_)) => {
            let (path, query) = req
                .path
                .unwrap_or("")
                .split_once('?')
                .unwrap_or((req.path.unwrap_or(""), ""));
            req.method == Some("POST")
                && path.ends_with("/exec")
                && query_param(query, "stdin").is_some_and(|v| v == "1" || v == "true")
        }
        _ => false,
    };
    if hijack {
        return hijacked(d, stream, head_len, read).await;
    }
    let io = TokioIo::new(Prefixed::new(read, stream));
    let svc = hyper::service::service_fn(move |r| {
        let d = d.clone();
        async move { Ok::<_, Infallible>(handle(d, r).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .serve_connection(io, svc)
        .with_upgrades()
        .await;
    Ok(())
}

async fn read_body(d: &Daemon, body: Incoming) -> Result<Bytes, Refusal> {
    let limited = http_body_util::Limited::new(body, d.config.max_body);
    limited.collect().await.map(|c| c.to_bytes()).map_err(|e| {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("cannot read the body: {e}"),
        )
    })
}

async fn handle(d: Arc<Daemon>, req: Request<Incoming>) -> Response<Body> {
    if let Some(r) = authorize(&d, req.headers().get("authorization").map(|v| v.as_bytes())) {
        return r;
    }
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    let (sandbox, what) = match route_of(&d, &path) {
        Ok(r) => r,
        Err(why) => return refused(why),
    };
    match (req.method().clone(), what) {
        (Method::POST, "exec") => {
            if query_param(&query, "stdin").is_some() {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    "interactive exec (`?stdin=1`) must be the first request of its connection",
                );
            }
            let body = match read_body(&d, req.into_body()).await {
                Ok(b) => b,
                Err(why) => return refused(why),
            };
            match ExecRequest::parse(&body) {
                Ok(exec) => one_shot(sandbox, exec),
                Err(e) => json_error(StatusCode::BAD_REQUEST, e),
            }
        }
        (Method::GET, "exec") => websocket(d, sandbox, req),
        (Method::POST, "files") => {
            let Some(dest) = query_param(&query, "path") else {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    "`?path=` names the guest directory",
                );
            };
            let body = match read_body(&d, req.into_body()).await {
                Ok(b) => b,
                Err(why) => return refused(why),
            };
            match tokio::task::spawn_blocking(move || sandbox.put_files(&dest, &body)).await {
                Ok(Ok(result)) => Response::builder()
                    .header("content-type", "application/json")
                    .body(
                        Full::new(Bytes::from(
                            serde_json::to_vec(&result).expect("serializes"),
                        ))
                        .boxed(),
                    )
                    .expect("a response"),
                Ok(Err(e)) => json_error(
                    StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST),
                    e.reason,
                ),
                Err(e) => json_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            }
        }
        (Method::GET, "files") => {
            let Some(file) = query_param(&query, "path") else {
                return json_error(StatusCode::BAD_REQUEST, "`?path=` names the guest file");
            };
            match tokio::task::spawn_blocking(move || sandbox.get_file(&file)).await {
                Ok(Ok(bytes)) => Response::builder()
                    .header("content-type", "application/octet-stream")
                    .body(Full::new(Bytes::from(bytes)).boxed())
                    .expect("a response"),
                Ok(Err(e)) => json_error(
                    StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST),
                    e.reason,
                ),
                Err(e) => json_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            }
        }
        (m, w) => json_error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("no route {m} /sandboxes/{{id}}/{w}"),
        ),
    }
}

/// The frames of what a process says, ending with its exit frame; the
/// process is dropped (killed) when the receiver of these goes away.
fn frames_of(p: Process) -> tokio::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        // The whole process moves in (not just its output), so it lives, and
        // its command runs, as long as this task does.
        let mut p = p;
        loop {
            let said = tokio::select! {
                o = p.output.recv() => o,
                // Nobody listens any more: `p` goes, and the command with it,
                // even if it is silent.
                _ = tx.closed() => return,
            };
            let bytes = match said {
                Some(Output::Stdout(b)) => encode(FrameType::Stdout, &b),
                Some(Output::Stderr(b)) => encode(FrameType::Stderr, &b),
                Some(Output::Exit(r)) => {
                    let _ = tx.send(encode_exit(&r)).await;
                    return;
                }
                None => {
                    let _ = tx
                        .send(encode_exit(&ExecResult::lost(
                            "the command's output stopped",
                        )))
                        .await;
                    return;
                }
            };
            if tx.send(bytes).await.is_err() {
                return; // the client went away: `p` goes, and the command with it
            }
        }
    });
    rx
}

fn one_shot(sandbox: Arc<dyn Sandbox>, exec: ExecRequest) -> Response<Body> {
    // The 200 is committed before the command starts: a failure to start it
    // is reported in-band, as a synthesized exit frame.
    let rx = match sandbox.exec(&exec, false) {
        Ok(p) => frames_of(p),
        Err(e) => {
            let (tx, rx) = tokio::sync::mpsc::channel(1);
            let _ = tx.try_send(encode_exit(&ExecResult::lost(e)));
            rx
        }
    };
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|b| (Ok::<_, Infallible>(BodyFrame::data(Bytes::from(b))), rx))
    });
    Response::builder()
        .header("content-type", "application/octet-stream")
        .body(BodyExt::boxed(StreamBody::new(stream)))
        .expect("a response")
}

/// Writes a whole response on a raw connection (transport A, before it
/// leaves HTTP).
async fn write_response(stream: &mut TcpStream, resp: Response<Body>) -> std::io::Result<()> {
    let status = resp.status();
    let body = resp
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(&body).await?;
    stream.shutdown().await
}

/// Transport A: the request is read off the raw connection; after a bare
/// `200 OK` it carries frames both ways until the exit frame. Closing the
/// connection before closing stdin kills the command.
async fn hijacked(
    d: Arc<Daemon>,
    mut stream: TcpStream,
    head_len: usize,
    read: Vec<u8>,
) -> std::io::Result<()> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    let _ = req.parse(&read[..head_len]);
    let header = |name: &str| {
        req.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value)
    };
    if let Some(r) = authorize(&d, header("authorization")) {
        return write_response(&mut stream, r).await;
    }
    let path = req.path.unwrap_or("").split('?').next().unwrap_or("");
    let sandbox = match route_of(&d, path) {
        Ok((s, _)) => s,
        Err(why) => return write_response(&mut stream, refused(why)).await,
    };
    let len: usize = match header("content-length")
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.trim().parse().ok())
    {
        Some(n) if n <= d.config.max_body => n,
        Some(_) => {
            let r = json_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the ExecRequest is too large",
            );
            return write_response(&mut stream, r).await;
        }
        None => {
            let r = json_error(
                StatusCode::LENGTH_REQUIRED,
                "the ExecRequest needs a Content-Length",
            );
            return write_response(&mut stream, r).await;
        }
    };
    let mut body = read[head_len..].to_vec();
    let ahead = body.split_off(len.min(body.len()));
    while body.len() < len {
        let mut chunk = vec![0; len - body.len()];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let exec = match ExecRequest::parse(&body) {
        Ok(e) => e,
        Err(e) => return write_response(&mut stream, json_error(StatusCode::BAD_REQUEST, e)).await,
    };
    stream.write_all(b"HTTP/1.1 200 OK\r\n\r\n").await?;
    let mut p = match sandbox.exec(&exec, true) {
        Ok(p) => p,
        Err(e) => {
            stream.write_all(&encode_exit(&ExecResult::lost(e))).await?;
            return stream.shutdown().await;
        }
    };
    let input = p.input.take().expect("an interactive process takes stdin");
    let (rd, mut wr) = stream.into_split();
    let mut frames = AsyncFrameReader::new(rd, Direction::HostToGuest);
    frames.feed(&ahead);
    let mut out = frames_of(p);
    // Client frames go to the command's stdin. This side ends when the
    // client closes stdin (the command runs on), or breaks the stream or
    // closes the connection first (the command is killed).
    let (broken_tx, mut broken_rx) = tokio::sync::oneshot::channel::<String>();
    tokio::spawn(async move {
        loop {
            match frames.read_frame().await {
                Ok(Some(f)) if f.kind == FrameType::Stdin => {
                    if input.send(Input::Stdin(f.payload)).await.is_err() {
                        return;
                    }
                }
                Ok(Some(_)) => {
                    let _ = input.send(Input::Close).await;
                    return;
                }
                Ok(None) => {
                    let _ = broken_tx.send("the client closed the connection".into());
                    return;
                }
                Err(e) => {
                    let _ = broken_tx.send(format!("the client's stream is broken: {e}"));
                    return;
                }
            }
        }
    });
    let mut watching = true;
    loop {
        tokio::select! {
            bytes = out.recv() => {
                let Some(bytes) = bytes else { break };
                if wr.write_all(&bytes).await.is_err() {
                    return Ok(()); // gone: dropping `out` kills the command
                }
            }
            why = &mut broken_rx, if watching => {
                watching = false;
                if let Ok(why) = why {
                    // The command is killed (`out` dropped); say so if anyone listens.
                    drop(out);
                    let _ = wr.write_all(&encode_exit(&ExecResult::lost(why))).await;
                    return wr.shutdown().await;
                }
            }
        }
    }
    wr.shutdown().await
}

fn close(code: CloseCode, reason: &str) -> Message {
    // A close reason is at most 123 bytes.
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    Message::Close(Some(CloseFrame {
        code,
        reason: reason[..end].to_string().into(),
    }))
}

/// Transport B: the upgrade, answered here; the session runs on its own task.
fn websocket(
    d: Arc<Daemon>,
    sandbox: Arc<dyn Sandbox>,
    mut req: Request<Incoming>,
) -> Response<Body> {
    let h = req.headers();
    let upgrade = h
        .get("upgrade")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    let Some(key) = h.get("sec-websocket-key").filter(|_| upgrade).cloned() else {
        return json_error(
            StatusCode::UPGRADE_REQUIRED,
            "GET /sandboxes/{id}/exec is a WebSocket: upgrade, or POST for a one-shot exec",
        );
    };
    let accept = derive_accept_key(key.as_bytes());
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        let Ok(upgraded) = on_upgrade.await else {
            return;
        };
        let ws = WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, None).await;
        ws_session(d, sandbox, ws).await;
    });
    Response::builder()
        .status(StatusCode::SWITCHING_PROTOCOLS)
        .header("upgrade", "websocket")
        .header("connection", "Upgrade")
        .header("sec-websocket-accept", accept)
        .body(Full::new(Bytes::new()).boxed())
        .expect("a response")
}

async fn ws_session<S>(d: Arc<Daemon>, sandbox: Arc<dyn Sandbox>, mut ws: WebSocketStream<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let first = tokio::time::timeout(d.config.first_message_timeout, ws.next()).await;
    let body = match first {
        Err(_) => {
            let why = format!(
                "no ExecRequest within {} s",
                d.config.first_message_timeout.as_secs()
            );
            let _ = ws.send(close(CloseCode::Policy, &why)).await;
            return;
        }
        Ok(Some(Ok(Message::Text(t)))) => t.as_bytes().to_vec(),
        Ok(Some(Ok(Message::Binary(b)))) => b.to_vec(),
        Ok(_) => return,
    };
    let exec = match ExecRequest::parse(&body) {
        Ok(e) => e,
        Err(e) => {
            let _ = ws.send(close(CloseCode::Policy, &e)).await;
            return;
        }
    };
    let mut p = match sandbox.exec(&exec, true) {
        Ok(p) => p,
        Err(e) => {
            let _ = ws.send(close(CloseCode::Error, &e)).await;
            return;
        }
    };
    let mut input = p.input.take();
    let mut out = frames_of(p);
    let mut reader = PushReader::new(Direction::HostToGuest);
    loop {
        tokio::select! {
            bytes = out.recv() => {
                let Some(bytes) = bytes else { break };
                let last = bytes.first() == Some(&(FrameType::Exit as u8));
                if ws.send(Message::Binary(bytes.into())).await.is_err() {
                    return;
                }
                if last {
                    let _ = ws.send(close(CloseCode::Normal, "")).await;
                    return;
                }
            }
            msg = ws.next() => match msg {
                Some(Ok(Message::Binary(b))) => {
                    reader.feed(&b);
                    loop {
                        match reader.next_frame() {
                            Ok(Some(f)) => {
                                let i = if f.kind == FrameType::Stdin {
                                    Input::Stdin(f.payload)
                                } else {
                                    Input::Close
                                };
                                let closing = i == Input::Close;
                                if let Some(tx) = &input {
                                    let _ = tx.send(i).await;
                                }
                                if closing {
                                    input = None;
                                }
                            }
                            Ok(None) => break,
                            Err(e) => {
                                let _ = ws.send(close(CloseCode::Policy, &e.to_string())).await;
                                return; // `out` dropped: the command is killed
                            }
                        }
                    }
                }
                Some(Ok(Message::Text(_))) => {
                    let _ = ws.send(close(CloseCode::Policy, "after the ExecRequest, only binary frames")).await;
                    return;
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {} // ping, pong: answered by the library
            }
        }
    }
}
