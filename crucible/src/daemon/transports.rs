//! The exec transports once a route has picked the sandbox: one-shot (a
//! frame stream as the response body), transport A (frames both ways on the
//! hijacked connection) and transport B (frames in WebSocket messages).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame as BodyFrame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role};

use crate::frame::{Direction, FrameType};
use crate::io::{AsyncFrameReader, PushReader, encode, encode_exit};
use crate::sandbox::{Input, Output, Process, Sandbox};
use crate::wire::{ExecRequest, ExecResult};

use super::{Body, Daemon, authorize, json_error, refused, route_of};

/// The frames of what a process says, ending with its exit frame; the
/// process is dropped (killed) when the receiver of these goes away.
pub(super) fn frames_of(p: Process) -> tokio::sync::mpsc::Receiver<Vec<u8>> {
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

pub(super) fn one_shot(sandbox: Arc<dyn Sandbox>, exec: ExecRequest) -> Response<Body> {
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
pub(super) async fn write_response(
    stream: &mut TcpStream,
    resp: Response<Body>,
) -> std::io::Result<()> {
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
pub(super) async fn hijacked(
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

/// How long an ending session waits for the client's close frame.
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// Ends a session: `frame` (a close) sent, then what the client still
/// sends read and dropped until its own close frame comes (the closing
/// handshake) or `CLOSE_WAIT` passes. Dropping the connection at once
/// would leave frames the client sent meanwhile (its pings) unread in our
/// socket, and a socket closed with unread data is reset, which throws
/// away what the client had not read yet: the exit frame, even the close.
async fn end<S>(ws: &mut WebSocketStream<S>, frame: Message)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    if ws.send(frame).await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(CLOSE_WAIT, async {
        while let Some(Ok(m)) = ws.next().await {
            if m.is_close() {
                break;
            }
        }
    })
    .await;
}

pub(super) fn close(code: CloseCode, reason: &str) -> Message {
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
pub(super) fn websocket(
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

/// A session's first message, its `ExecRequest`; `None` (the session
/// closed, saying why) when none comes in time or it is not one.
async fn first_request<S>(d: &Daemon, ws: &mut WebSocketStream<S>) -> Option<ExecRequest>
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
            end(ws, close(CloseCode::Policy, &why)).await;
            return None;
        }
        Ok(Some(Ok(Message::Text(t)))) => t.as_bytes().to_vec(),
        Ok(Some(Ok(Message::Binary(b)))) => b.to_vec(),
        Ok(_) => return None,
    };
    match ExecRequest::parse(&body) {
        Ok(e) => Some(e),
        Err(e) => {
            end(ws, close(CloseCode::Policy, &e)).await;
            None
        }
    }
}

pub(super) async fn ws_session<S>(
    d: Arc<Daemon>,
    sandbox: Arc<dyn Sandbox>,
    mut ws: WebSocketStream<S>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let Some(exec) = first_request(&d, &mut ws).await else {
        return;
    };
    let mut p = match sandbox.exec(&exec, true) {
        Ok(p) => p,
        Err(e) => {
            end(&mut ws, close(CloseCode::Error, &e)).await;
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
                    end(&mut ws, close(CloseCode::Normal, "")).await;
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
                                end(&mut ws, close(CloseCode::Policy, &e.to_string())).await;
                                return; // `out` dropped: the command is killed
                            }
                        }
                    }
                }
                Some(Ok(Message::Text(_))) => {
                    end(&mut ws, close(CloseCode::Policy, "after the ExecRequest, only binary frames")).await;
                    return;
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return,
                Some(Ok(_)) => {} // ping, pong: answered by the library
            }
        }
    }
}
