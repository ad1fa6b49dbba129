//! The client side: one-shot exec, interactive exec over either transport,
//! file push and pull. Every way of running a command gives the same
//! [`Session`]: send stdin, close it, read what comes back.

use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::header::HeaderValue;
use hyper_util::rt::TokioIo;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::frame::{Direction, FrameError, FrameType};
use crate::http::{percent_encode, read_head};
use crate::io::{AsyncFrameReader, AsyncFrameWriter, PushReader, encode};
use crate::sandbox::{Input, NewSandbox, Output, SandboxInfo};
use crate::wire::{ExecRequest, ExecResult, WireFilesPutResult};

mod error;
pub use error::ClientError;
use error::http_error;

/// Which way an exec goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// `POST /exec`: no stdin, the output streamed back.
    Post,
    /// `POST /exec?stdin=1` on a hijacked connection.
    Hijack,
    /// `GET /exec` as a WebSocket.
    Websocket,
}

/// What a finished command said.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Collected {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub result: Option<ExecResult>,
}

/// A running command, whichever transport carries it.
pub struct Session {
    input: Option<mpsc::Sender<Input>>,
    output: mpsc::Receiver<Result<Output, ClientError>>,
}

impl Session {
    /// Sends bytes to the command's stdin (nothing for a one-shot exec).
    pub async fn stdin(&self, data: &[u8]) -> Result<(), ClientError> {
        match &self.input {
            Some(tx) => tx
                .send(Input::Stdin(data.to_vec()))
                .await
                .map_err(|_| ClientError::Unexpected("the session has ended".into())),
            None => Err(ClientError::Unexpected(
                "a one-shot exec takes no stdin".into(),
            )),
        }
    }

    /// Closes the command's stdin.
    pub async fn close_stdin(&mut self) -> Result<(), ClientError> {
        if let Some(tx) = self.input.take() {
            let _ = tx.send(Input::Close).await;
        }
        Ok(())
    }

    /// What the command says next; `None` after its exit.
    pub async fn next(&mut self) -> Option<Result<Output, ClientError>> {
        self.output.recv().await
    }

    /// Everything until the exit.
    pub async fn collect(mut self) -> Result<Collected, ClientError> {
        let mut c = Collected::default();
        while let Some(o) = self.next().await {
            match o? {
                Output::Stdout(b) => c.stdout.extend(b),
                Output::Stderr(b) => c.stderr.extend(b),
                Output::Exit(r) => c.result = Some(r),
            }
        }
        match c.result {
            Some(_) => Ok(c),
            None => Err(ClientError::Protocol(FrameError::MissingExit)),
        }
    }

    /// Ends the session at once (closing the connection kills the command).
    pub fn abandon(self) {}
}

/// A daemon at `host:port`, with its key.
#[derive(Clone, Debug)]
pub struct Client {
    pub addr: String,
    pub key: Option<String>,
}

fn output_of(kind: FrameType, payload: Vec<u8>) -> Result<Output, ClientError> {
    Ok(match kind {
        FrameType::Stdout => Output::Stdout(payload),
        FrameType::Stderr => Output::Stderr(payload),
        FrameType::Exit => Output::Exit(
            serde_json::from_slice(&payload).map_err(|e| FrameError::BadExit(e.to_string()))?,
        ),
        other => return Err(ClientError::Protocol(FrameError::WrongDirection(other))),
    })
}

type Events = mpsc::Sender<Result<Output, ClientError>>;

/// Hands every whole frame `reader` holds to the session; false when it
/// must stop (the session is gone, or the stream is broken).
async fn pass_on(reader: &mut PushReader, tx: &Events) -> bool {
    loop {
        match reader.next_frame() {
            Ok(Some(f)) => {
                if tx.send(output_of(f.kind, f.payload)).await.is_err() {
                    return false;
                }
            }
            Ok(None) => return true,
            Err(e) => {
                let _ = tx.send(Err(e.into())).await;
                return false;
            }
        }
    }
}

/// The bytes ended: a stream that stopped short is an error.
async fn finish(reader: &mut PushReader, tx: &Events) {
    if let Err(e) = reader.end() {
        let _ = tx.send(Err(e.into())).await;
    }
}

impl Client {
    /// `addr` is `host:port`, or `http://host:port` (a trailing `/` ignored).
    pub fn new(addr: &str, key: Option<String>) -> Client {
        let addr = addr
            .trim_start_matches("http://")
            .trim_start_matches("ws://")
            .trim_end_matches('/')
            .to_string();
        Client { addr, key }
    }

    /// The `authorization` header's value, if there is a key: one a header
    /// can carry, or `BadKey` (a key with a line break would otherwise
    /// panic the request builder, or add headers of its own to a hijacked
    /// connection's head).
    fn bearer(&self) -> Result<Option<HeaderValue>, ClientError> {
        self.key
            .as_ref()
            .map(|k| HeaderValue::from_str(&format!("Bearer {k}")).map_err(|_| ClientError::BadKey))
            .transpose()
    }

    async fn http(
        &self,
        req: Request<Full<Bytes>>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, ClientError> {
        let stream = TcpStream::connect(&self.addr).await?;
        let (mut send, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| ClientError::Unexpected(e.to_string()))?;
        tokio::spawn(conn);
        send.send_request(req)
            .await
            .map_err(|e| ClientError::Unexpected(e.to_string()))
    }

    /// The body of a 200; the daemon's error otherwise.
    async fn ok_body(&self, req: Request<Full<Bytes>>) -> Result<Bytes, ClientError> {
        let resp = self.http(req).await?;
        let status = resp.status().as_u16();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| ClientError::Unexpected(e.to_string()))?
            .to_bytes();
        if !(200..300).contains(&status) {
            return Err(http_error(status, &body));
        }
        Ok(body)
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        body: Vec<u8>,
    ) -> Result<Request<Full<Bytes>>, ClientError> {
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header("host", &self.addr);
        if let Some(k) = self.bearer()? {
            b = b.header("authorization", k);
        }
        b.body(Full::new(Bytes::from(body)))
            .map_err(|e| ClientError::Unexpected(format!("cannot make the request: {e}")))
    }

    /// Starts a command by `transport`.
    pub async fn exec(
        &self,
        id: &str,
        req: &ExecRequest,
        transport: Transport,
    ) -> Result<Session, ClientError> {
        match transport {
            Transport::Post => self.exec_post(id, req).await,
            Transport::Hijack => self.exec_hijack(id, req).await,
            Transport::Websocket => self.exec_websocket(id, req).await,
        }
    }

    /// One-shot exec: `POST /sandboxes/{id}/exec`.
    pub async fn exec_post(&self, id: &str, req: &ExecRequest) -> Result<Session, ClientError> {
        let body = serde_json::to_vec(req).expect("serializes");
        let mut r = self.request(
            "POST",
            &format!("/sandboxes/{}/exec", percent_encode(id)),
            body,
        )?;
        r.headers_mut().insert(
            "content-type",
            "application/json".parse().expect("a header"),
        );
        let resp = self.http(r).await?;
        let status = resp.status().as_u16();
        let mut body = resp.into_body();
        if status != 200 {
            let bytes = body
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            return Err(http_error(status, &bytes));
        }
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            let mut reader = PushReader::new(Direction::GuestToHost);
            loop {
                match body.frame().await {
                    Some(Ok(f)) => {
                        if let Ok(data) = f.into_data() {
                            reader.feed(&data);
                        }
                        if !pass_on(&mut reader, &tx).await {
                            return;
                        }
                    }
                    Some(Err(e)) => {
                        let _ = tx.send(Err(ClientError::Unexpected(e.to_string()))).await;
                        return;
                    }
                    None => return finish(&mut reader, &tx).await,
                }
            }
        });
        Ok(Session {
            input: None,
            output: rx,
        })
    }

    /// Interactive exec, transport A: a hijacked connection.
    pub async fn exec_hijack(&self, id: &str, req: &ExecRequest) -> Result<Session, ClientError> {
        let body = serde_json::to_vec(req).expect("serializes");
        let mut stream = TcpStream::connect(&self.addr).await?;
        let mut head = format!(
            "POST /sandboxes/{}/exec?stdin=1 HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            percent_encode(id),
            self.addr,
            body.len()
        );
        if let Some(k) = self.bearer()? {
            let k = k.to_str().map_err(|_| ClientError::BadKey)?;
            head.push_str(&format!("authorization: {k}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(&body).await?;
        let Some((head_len, read)) = read_head(&mut stream).await? else {
            return Err(ClientError::Unexpected(
                "the daemon closed the connection without answering".into(),
            ));
        };
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut resp = httparse::Response::new(&mut headers);
        resp.parse(&read[..head_len])
            .map_err(|e| ClientError::Unexpected(format!("not an HTTP answer: {e}")))?;
        let status = resp.code.unwrap_or(0);
        if status != 200 {
            let len: usize = resp
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse().ok())
                .unwrap_or(0);
            let mut body = read[head_len..].to_vec();
            use tokio::io::AsyncReadExt;
            while body.len() < len {
                let mut chunk = vec![0; len - body.len()];
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
            return Err(http_error(status, &body));
        }
        let ahead = read[head_len..].to_vec();
        let (rd, wr) = stream.into_split();
        let (in_tx, mut in_rx) = mpsc::channel::<Input>(16);
        tokio::spawn(async move {
            let mut w = AsyncFrameWriter::new(wr);
            while let Some(i) = in_rx.recv().await {
                let r = match i {
                    Input::Stdin(b) => w.write(FrameType::Stdin, &b).await,
                    Input::Close => w.stdin_close().await,
                };
                if r.is_err() {
                    return;
                }
            }
            // Dropping the session before closing stdin: the write half
            // closes with it (and the daemon kills the command).
        });
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            let mut r = AsyncFrameReader::new(rd, Direction::GuestToHost);
            r.feed(&ahead);
            loop {
                match r.read_frame().await {
                    Ok(Some(f)) => {
                        if tx.send(output_of(f.kind, f.payload)).await.is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(e) => {
                        let _ = tx.send(Err(e.into())).await;
                        return;
                    }
                }
            }
        });
        Ok(Session {
            input: Some(in_tx),
            output: rx,
        })
    }

    /// Interactive exec, transport B: a WebSocket.
    pub async fn exec_websocket(
        &self,
        id: &str,
        req: &ExecRequest,
    ) -> Result<Session, ClientError> {
        let mut r = format!("ws://{}/sandboxes/{}/exec", self.addr, percent_encode(id))
            .into_client_request()
            .map_err(|e| ClientError::Unexpected(e.to_string()))?;
        if let Some(k) = self.bearer()? {
            r.headers_mut().insert("authorization", k);
        }
        let stream = TcpStream::connect(&self.addr).await?;
        let (mut ws, _) = match tokio_tungstenite::client_async(r, stream).await {
            Ok(x) => x,
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                let status = resp.status().as_u16();
                let body = resp.body().clone().unwrap_or_default();
                return Err(http_error(status, &body));
            }
            Err(e) => return Err(ClientError::Unexpected(e.to_string())),
        };
        ws.send(Message::Text(
            serde_json::to_string(req).expect("serializes").into(),
        ))
        .await
        .map_err(|e| ClientError::Unexpected(e.to_string()))?;
        let (in_tx, mut in_rx) = mpsc::channel::<Input>(16);
        let (tx, rx) = mpsc::channel(16);
        tokio::spawn(async move {
            let mut reader = PushReader::new(Direction::GuestToHost);
            let mut input_open = true;
            loop {
                tokio::select! {
                    i = in_rx.recv(), if input_open => {
                        let bytes = match i {
                            Some(Input::Stdin(b)) => encode(FrameType::Stdin, &b),
                            Some(Input::Close) => {
                                input_open = false;
                                encode(FrameType::StdinClose, &[])
                            }
                            None => {
                                input_open = false;
                                continue;
                            }
                        };
                        if ws.send(Message::Binary(bytes.into())).await.is_err() {
                            input_open = false;
                        }
                    }
                    // The session was dropped: close, and the command goes.
                    _ = tx.closed() => {
                        let _ = ws.close(None).await;
                        return;
                    }
                    msg = ws.next() => match msg {
                        Some(Ok(Message::Binary(b))) => {
                            reader.feed(&b);
                            if !pass_on(&mut reader, &tx).await {
                                return;
                            }
                        }
                        Some(Ok(Message::Close(frame))) => {
                            let (code, reason) = frame
                                .map(|f| (f.code, f.reason.to_string()))
                                .unwrap_or((CloseCode::Status, String::new()));
                            let err = match code {
                                CloseCode::Normal if reader.ended() => None,
                                CloseCode::Policy => Some(ClientError::Refused(reason)),
                                CloseCode::Error => Some(ClientError::Unreachable(reason)),
                                _ => Some(ClientError::Protocol(reader.end().err().unwrap_or(FrameError::MissingExit))),
                            };
                            if let Some(e) = err {
                                let _ = tx.send(Err(e)).await;
                            }
                            return;
                        }
                        Some(Ok(_)) => {}
                        Some(Err(e)) => {
                            let _ = tx.send(Err(ClientError::Unexpected(e.to_string()))).await;
                            return;
                        }
                        None => return finish(&mut reader, &tx).await,
                    }
                }
            }
        });
        Ok(Session {
            input: Some(in_tx),
            output: rx,
        })
    }

    /// Pushes a tar archive; it is extracted beneath guest directory `dest`.
    pub async fn push(
        &self,
        id: &str,
        dest: &str,
        tar: Vec<u8>,
    ) -> Result<WireFilesPutResult, ClientError> {
        let path = format!(
            "/sandboxes/{}/files?path={}",
            percent_encode(id),
            percent_encode(dest)
        );
        let mut r = self.request("POST", &path, tar)?;
        r.headers_mut().insert(
            "content-type",
            "application/x-tar".parse().expect("a header"),
        );
        let body = self.ok_body(r).await?;
        serde_json::from_slice(&body)
            .map_err(|e| ClientError::Unexpected(format!("not a WireFilesPutResult: {e}")))
    }

    /// Creates a sandbox (`POST /sandboxes`): on a microVM host, boots it.
    pub async fn create(&self, spec: &NewSandbox) -> Result<SandboxInfo, ClientError> {
        let body = serde_json::to_vec(spec).expect("a sandbox request serializes");
        let mut r = self.request("POST", "/sandboxes", body)?;
        r.headers_mut().insert(
            "content-type",
            "application/json".parse().expect("a header"),
        );
        let body = self.ok_body(r).await?;
        serde_json::from_slice(&body)
            .map_err(|e| ClientError::Unexpected(format!("not a SandboxInfo: {e}")))
    }

    /// What the daemon says of sandbox `id` (`GET /sandboxes/{id}`).
    pub async fn info(&self, id: &str) -> Result<SandboxInfo, ClientError> {
        let p = format!("/sandboxes/{}", percent_encode(id));
        let body = self.ok_body(self.request("GET", &p, Vec::new())?).await?;
        serde_json::from_slice(&body)
            .map_err(|e| ClientError::Unexpected(format!("not a SandboxInfo: {e}")))
    }

    /// Stops sandbox `id` and frees what it held (`DELETE /sandboxes/{id}`).
    pub async fn delete(&self, id: &str) -> Result<(), ClientError> {
        let p = format!("/sandboxes/{}", percent_encode(id));
        self.ok_body(self.request("DELETE", &p, Vec::new())?)
            .await?;
        Ok(())
    }

    /// Pulls one guest file.
    pub async fn pull(&self, id: &str, path: &str) -> Result<Vec<u8>, ClientError> {
        let p = format!(
            "/sandboxes/{}/files?path={}",
            percent_encode(id),
            percent_encode(path)
        );
        Ok(self
            .ok_body(self.request("GET", &p, Vec::new())?)
            .await?
            .to_vec())
    }
}

/// This process's stdin, read on a thread of its own and handed over in
/// chunks; `None` once it ends (or fails): what a command-line client
/// feeds an interactive session.
pub fn stdin_chunks() -> mpsc::Receiver<Option<Vec<u8>>> {
    let (tx, rx) = mpsc::channel(4);
    std::thread::spawn(move || {
        use std::io::Read;
        let mut stdin = std::io::stdin().lock();
        let mut buf = vec![0; 32 * 1024];
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.blocking_send(None);
                    return;
                }
                Ok(n) => {
                    if tx.blocking_send(Some(buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

/// A session's output within `limit`, for tests and the command line.
pub async fn collect_within(s: Session, limit: Duration) -> Result<Collected, ClientError> {
    tokio::time::timeout(limit, s.collect())
        .await
        .map_err(|_| ClientError::Unexpected(format!("no exit within {} s", limit.as_secs())))?
}
