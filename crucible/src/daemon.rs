//! The daemon side, as a library: the routes, both interactive transports,
//! and file transfer, over any [`Backend`].
//!
//! | route | what |
//! |---|---|
//! | `POST /sandboxes` | create one: JSON `{"id"?, "memory_mib"?, "vcpus"?}` in; 201 and JSON SandboxInfo |
//! | `GET /sandboxes/{id}` | JSON SandboxInfo: its state (`running`, `starting`, `dead` with the reason) |
//! | `DELETE /sandboxes/{id}` | stop it and free everything it held; 204 |
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
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

use crate::failure::FailureKind;
use crate::http::{Prefixed, query_param, read_head};
use crate::sandbox::{Backend, NewSandbox, Sandbox, check_id};
use crate::wire::{ErrorBody, ExecRequest};

mod transports;
use transports::*;

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
    check_id(id).map_err(|why| (StatusCode::BAD_REQUEST, why))?;
    let s = d
        .backend
        .sandbox(id)
        .ok_or_else(|| (StatusCode::NOT_FOUND, format!("no sandbox `{id}`")))?;
    Ok((s, what))
}

/// A request on `/sandboxes` or `/sandboxes/{id}` itself.
enum Lifecycle {
    Create,
    Info(String),
    Delete(String),
    Refused(Refusal),
}

fn lifecycle(path: &str, method: &Method) -> Option<Lifecycle> {
    if path == "/sandboxes" || path == "/sandboxes/" {
        return Some(if method == Method::POST {
            Lifecycle::Create
        } else {
            Lifecycle::Refused((
                StatusCode::METHOD_NOT_ALLOWED,
                format!("{method} /sandboxes: POST creates a sandbox"),
            ))
        });
    }
    let id = path.strip_prefix("/sandboxes/")?;
    if id.contains('/') {
        return None;
    }
    if let Err(why) = check_id(id) {
        return Some(Lifecycle::Refused((StatusCode::BAD_REQUEST, why)));
    }
    Some(match *method {
        Method::GET => Lifecycle::Info(id.to_string()),
        Method::DELETE => Lifecycle::Delete(id.to_string()),
        _ => Lifecycle::Refused((
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} /sandboxes/{id}: GET tells its state, DELETE stops it"),
        )),
    })
}

async fn create(d: &Daemon, body: Incoming) -> Response<Body> {
    let body = match read_body(d, body).await {
        Ok(b) => b,
        Err(why) => return refused(why),
    };
    let spec: NewSandbox = if body.iter().all(u8::is_ascii_whitespace) {
        NewSandbox::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(s) => s,
            Err(e) => {
                return json_error(
                    StatusCode::BAD_REQUEST,
                    format!(
                        "not a sandbox request (`{{\"id\", \"memory_mib\", \"vcpus\"}}`, each optional): {e}"
                    ),
                );
            }
        }
    };
    match d.backend.create(spec).await {
        Ok(info) => json_ok(StatusCode::CREATED, &info),
        Err(e) => backend_error(e.kind, e.reason),
    }
}

fn json_ok<T: serde::Serialize>(status: StatusCode, value: &T) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(serde_json::to_vec(value).expect("serializes"))).boxed())
        .expect("a response")
}

/// The JSON error for a status a backend chose (a files or lifecycle error).
fn backend_error(kind: FailureKind, reason: String) -> Response<Body> {
    json_error(status_of(kind), reason)
}

/// The HTTP status a failure answers: the one place kinds become statuses.
pub fn status_of(kind: FailureKind) -> StatusCode {
    match kind {
        FailureKind::Invalid => StatusCode::BAD_REQUEST,
        FailureKind::NotFound => StatusCode::NOT_FOUND,
        FailureKind::Conflict => StatusCode::CONFLICT,
        FailureKind::Unsupported => StatusCode::METHOD_NOT_ALLOWED,
        FailureKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        FailureKind::Unreachable => StatusCode::BAD_GATEWAY,
    }
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
    if let Some(r) = lifecycle(&path, req.method()) {
        return match r {
            Lifecycle::Create => create(&d, req.into_body()).await,
            Lifecycle::Info(id) => match d.backend.info(&id) {
                Some(info) => json_ok(StatusCode::OK, &info),
                None => json_error(StatusCode::NOT_FOUND, format!("no sandbox `{id}`")),
            },
            Lifecycle::Delete(id) => match d.backend.delete(&id).await {
                Ok(()) => Response::builder()
                    .status(StatusCode::NO_CONTENT)
                    .body(Full::new(Bytes::new()).boxed())
                    .expect("a response"),
                Err(e) => backend_error(e.kind, e.reason),
            },
            Lifecycle::Refused(why) => refused(why),
        };
    }
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
                Ok(Err(e)) => backend_error(e.kind, e.reason),
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
                Ok(Err(e)) => backend_error(e.kind, e.reason),
                Err(e) => json_error(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            }
        }
        (m, w) => json_error(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("no route {m} /sandboxes/{{id}}/{w}"),
        ),
    }
}
