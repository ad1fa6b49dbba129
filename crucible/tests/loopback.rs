//! Client ↔ daemon over loopback, the local backend running real commands:
//! every close code and error path of the transports (what every backend
//! does with a command is the conformance suite's, `tests/suite`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crucible::client::{Client, ClientError, Transport, collect_within};
use crucible::daemon::{self, Config};
use crucible::guest::FilesError;
use crucible::local::LocalBackend;
use crucible::sandbox::{Backend, Process, Sandbox};
use crucible::wire::{ExecRequest, ExecResult, WireFilesPutResult};

const KEY: &str = "sesame";
const LIMIT: Duration = Duration::from_secs(20);

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("crucible")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A sandbox whose guest cannot be reached.
struct Unreachable;

impl Sandbox for Unreachable {
    fn exec(&self, _: &ExecRequest, _: bool) -> Result<Process, String> {
        Err("agent unreachable".into())
    }
    fn put_files(&self, _: &str, _: &[u8]) -> Result<WireFilesPutResult, FilesError> {
        Err(FilesError::bad("agent unreachable"))
    }
    fn get_file(&self, _: &str) -> Result<Vec<u8>, FilesError> {
        Err(FilesError::bad("agent unreachable"))
    }
}

struct Both {
    local: LocalBackend,
}

impl Backend for Both {
    fn sandbox(&self, id: &str) -> Option<Arc<dyn Sandbox>> {
        if id == "down" {
            return Some(Arc::new(Unreachable));
        }
        self.local.sandbox(id)
    }
}

async fn daemon(name: &str, config: Config) -> (SocketAddr, PathBuf) {
    let root = scratch(name);
    let local = LocalBackend::new(root.join("sandboxes"));
    local.create("box").unwrap();
    let at = daemon::spawn(
        "127.0.0.1:0".parse().unwrap(),
        Arc::new(Both { local }),
        config,
    )
    .await
    .unwrap();
    (at, root)
}

fn keyed() -> Config {
    Config {
        key: Some(KEY.into()),
        ..Config::default()
    }
}

fn client(at: SocketAddr) -> Client {
    Client::new(&format!("http://{at}"), Some(KEY.into()))
}

/// A WebSocket to sandbox `box`'s exec, with the key, driven by hand.
async fn raw_websocket(
    at: SocketAddr,
) -> tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{at}/sandboxes/box/exec")
        .into_client_request()
        .unwrap();
    req.headers_mut()
        .insert("authorization", format!("Bearer {KEY}").parse().unwrap());
    tokio_tungstenite::connect_async(req).await.unwrap().0
}

fn sh(script: &str) -> ExecRequest {
    ExecRequest::new(["sh", "-c", script])
}

#[tokio::test]
async fn a_missing_or_wrong_key_is_401_everywhere() {
    let (at, _) = daemon("auth", keyed()).await;
    let req = sh("true");
    for key in [None, Some("wrong".to_string())] {
        let c = Client::new(&at.to_string(), key.clone());
        for t in [Transport::Post, Transport::Hijack, Transport::Websocket] {
            match c.exec("box", &req, t).await {
                Err(ClientError::Http { status: 401, .. }) => {}
                Err(e) => panic!("{t:?} {key:?}: {e}"),
                Ok(_) => panic!("{t:?} {key:?}: let in"),
            }
        }
        assert!(matches!(
            c.pull("box", "/x").await,
            Err(ClientError::Http { status: 401, .. })
        ));
        assert!(matches!(
            c.push("box", "/", Vec::new()).await,
            Err(ClientError::Http { status: 401, .. })
        ));
    }
}

/// A key no header can carry (a line break in CRUCIBLE_KEY, say) is an
/// error naming it, on every call and transport: it used to panic the
/// request builder, and to add a header of its own to a hijack's head.
#[tokio::test]
async fn a_key_with_a_control_character_is_an_error_not_a_panic_or_a_header() {
    let (at, _) = daemon("bad_key", keyed()).await;
    for key in ["sesame\r\nx-admin: 1", "ses\u{7}ame"] {
        let c = Client::new(&at.to_string(), Some(key.into()));
        for t in [Transport::Post, Transport::Hijack, Transport::Websocket] {
            match c.exec("box", &sh("true"), t).await {
                Err(ClientError::BadKey) => {}
                Err(e) => panic!("{t:?} {key:?}: {e}"),
                Ok(_) => panic!("{t:?} {key:?}: sent"),
            }
        }
        assert!(matches!(
            c.pull("box", "/x").await,
            Err(ClientError::BadKey)
        ));
        assert!(matches!(c.info("box").await, Err(ClientError::BadKey)));
        let said = ClientError::BadKey.to_string();
        assert!(
            said.contains("CRUCIBLE_KEY") && said.contains("control character"),
            "{said}"
        );
    }
}

#[tokio::test]
async fn bad_ids_unknown_sandboxes_and_bad_requests_are_4xx_before_streaming() {
    let (at, _) = daemon("errors", keyed()).await;
    let c = client(at);
    for t in [Transport::Post, Transport::Hijack, Transport::Websocket] {
        let e = c.exec("no such!", &sh("true"), t).await.err().unwrap();
        assert!(
            matches!(e, ClientError::Http { status: 400, .. }),
            "{t:?}: {e}"
        );
        let e = c.exec("nobox", &sh("true"), t).await.err().unwrap();
        assert!(
            matches!(e, ClientError::Http { status: 404, .. }),
            "{t:?}: {e}"
        );
    }
    let empty = ExecRequest::new(Vec::<String>::new());
    for t in [Transport::Post, Transport::Hijack] {
        let e = c.exec("box", &empty, t).await.err().unwrap();
        match e {
            ClientError::Http { status: 400, error } => assert!(error.contains("cmd"), "{error}"),
            e => panic!("{t:?}: {e}"),
        }
    }
    // On a WebSocket, a bad ExecRequest closes with 1008 and the reason.
    let s = c.exec("box", &empty, Transport::Websocket).await.unwrap();
    match collect_within(s, LIMIT).await {
        Err(ClientError::Refused(reason)) => assert!(reason.contains("cmd"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_guest_that_cannot_be_reached_is_reported_in_band_or_by_1011() {
    let (at, _) = daemon("unreachable", keyed()).await;
    let c = client(at);
    for t in [Transport::Post, Transport::Hijack] {
        let s = c.exec("down", &sh("true"), t).await.unwrap();
        let got = collect_within(s, LIMIT).await.unwrap();
        assert_eq!(
            got.result,
            Some(ExecResult::lost("agent unreachable")),
            "{t:?}"
        );
    }
    let s = c
        .exec("down", &sh("true"), Transport::Websocket)
        .await
        .unwrap();
    match collect_within(s, LIMIT).await {
        Err(ClientError::Unreachable(reason)) => assert_eq!(reason, "agent unreachable"),
        other => panic!("{other:?}"),
    }
    // A program that does not exist: the local guest cannot start it.
    let s = c
        .exec(
            "box",
            &ExecRequest::new(["no-such-program-here"]),
            Transport::Post,
        )
        .await
        .unwrap();
    let r = collect_within(s, LIMIT).await.unwrap().result.unwrap();
    assert_eq!(r.exit_code, -1);
    assert!(r.error.unwrap().contains("cannot start"));
    // One whose name is 70,000 characters: the error quoting it is cut to
    // fit the exit frame (the daemon used to panic writing it), on every
    // transport.
    let huge = "x".repeat(70_000);
    for t in [Transport::Post, Transport::Hijack] {
        let s = c
            .exec("box", &ExecRequest::new([huge.as_str()]), t)
            .await
            .unwrap();
        let r = collect_within(s, LIMIT).await.unwrap().result.unwrap();
        assert_eq!(r.exit_code, -1, "{t:?}");
        let e = r.error.unwrap();
        assert!(
            e.contains("cannot start") && e.ends_with("bytes cut)"),
            "{t:?}: {}",
            &e[..80]
        );
    }
    // On a WebSocket the loss is a 1011 close, its reason cut to fit too.
    let s = c
        .exec(
            "box",
            &ExecRequest::new([huge.as_str()]),
            Transport::Websocket,
        )
        .await
        .unwrap();
    match collect_within(s, LIMIT).await {
        Err(ClientError::Unreachable(reason)) => {
            assert!(
                reason.contains("cannot start") && reason.len() <= 123,
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_oversize_frame_from_the_client_ends_the_session() {
    use futures_util::{SinkExt, StreamExt};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (at, _) = daemon("oversize", keyed()).await;
    // Transport A, by hand: a header declaring 65537 bytes.
    let body = serde_json::to_vec(&sh("cat")).unwrap();
    let mut s = tokio::net::TcpStream::connect(at).await.unwrap();
    let head = format!(
        "POST /sandboxes/box/exec?stdin=1 HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    s.write_all(&body).await.unwrap();
    s.write_all(&[0, 0, 0, 0, 0, 1, 0, 1]).await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(LIMIT, s.read_to_end(&mut all))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&all);
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n\r\n"), "{text}");
    let frames =
        crucible::frame::decode_all(&all[19..], crucible::frame::Direction::GuestToHost).unwrap();
    let r = frames.last().unwrap().exit_result().unwrap();
    assert_eq!(r.exit_code, -1);
    assert!(r.error.unwrap().contains("65537"));
    // Transport B: the same header in a binary message closes with 1008.
    use tokio_tungstenite::tungstenite::Message;
    let mut ws = raw_websocket(at).await;
    ws.send(Message::Text(
        serde_json::to_string(&sh("cat")).unwrap().into(),
    ))
    .await
    .unwrap();
    ws.send(Message::Binary(vec![0, 0, 0, 0, 0, 1, 0, 1].into()))
        .await
        .unwrap();
    let close = loop {
        match ws.next().await.unwrap().unwrap() {
            Message::Close(c) => break c.unwrap(),
            _ => continue,
        }
    };
    assert_eq!(u16::from(close.code), 1008);
    assert!(close.reason.contains("65537"), "{}", close.reason);
}

#[tokio::test]
async fn frames_split_across_and_packed_into_messages_are_one_stream() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (at, _) = daemon("ws_packing", keyed()).await;
    let mut ws = raw_websocket(at).await;
    // Binary first message: the daemon parses it either way.
    ws.send(Message::Binary(
        serde_json::to_vec(&sh("cat")).unwrap().into(),
    ))
    .await
    .unwrap();
    let mut bytes = crucible::io::encode(crucible::frame::FrameType::Stdin, b"abc");
    bytes.extend(crucible::io::encode(
        crucible::frame::FrameType::Stdin,
        b"def",
    ));
    bytes.extend(crucible::io::encode(
        crucible::frame::FrameType::StdinClose,
        b"",
    ));
    // Split one frame's header across messages, and pack the rest in one.
    ws.send(Message::Binary(bytes[..5].to_vec().into()))
        .await
        .unwrap();
    ws.send(Message::Binary(bytes[5..].to_vec().into()))
        .await
        .unwrap();
    let mut stream = Vec::new();
    let code = loop {
        match ws.next().await.unwrap().unwrap() {
            Message::Binary(b) => stream.extend_from_slice(&b),
            Message::Close(c) => break u16::from(c.unwrap().code),
            _ => {}
        }
    };
    assert_eq!(code, 1000, "closed with 1000 after the exit frame");
    let frames =
        crucible::frame::decode_all(&stream, crucible::frame::Direction::GuestToHost).unwrap();
    let out = crucible::frame::coalesce(&frames);
    assert_eq!(out[0].payload, b"abcdef");
    assert_eq!(
        frames.last().unwrap().exit_result().unwrap(),
        ExecResult::code(0)
    );
}

#[tokio::test]
async fn a_plain_get_is_426_and_a_silent_websocket_is_closed_1008() {
    use futures_util::StreamExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_tungstenite::tungstenite::Message;
    let config = Config {
        first_message_timeout: Duration::from_millis(300),
        ..keyed()
    };
    let (at, _) = daemon("ws_426", config).await;
    let mut s = tokio::net::TcpStream::connect(at).await.unwrap();
    let get = format!(
        "GET /sandboxes/box/exec HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {KEY}\r\nconnection: close\r\n\r\n"
    );
    s.write_all(get.as_bytes()).await.unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.unwrap();
    assert!(String::from_utf8_lossy(&all).starts_with("HTTP/1.1 426"));
    let mut ws = raw_websocket(at).await;
    let close = loop {
        match tokio::time::timeout(LIMIT, ws.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap()
        {
            Message::Close(c) => break c.unwrap(),
            _ => continue,
        }
    };
    assert_eq!(u16::from(close.code), 1008);
    assert!(close.reason.contains("no ExecRequest"), "{}", close.reason);
}

/// A server that answers the first request with `answer`, then hangs up.
async fn misbehaving(answer: Vec<u8>) -> SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let at = l.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut s, _) = l.accept().await.unwrap();
        let mut buf = vec![0; 4096];
        let _ = s.read(&mut buf).await;
        s.write_all(&answer).await.unwrap();
        s.shutdown().await.unwrap();
    });
    at
}

#[tokio::test]
async fn a_stream_cut_short_by_the_daemon_is_an_error_not_an_end() {
    use crucible::frame::{FrameError, FrameType};
    let stdout = crucible::io::encode(FrameType::Stdout, b"half");
    // Transport A: output, then the connection closes with no exit frame.
    let mut a = b"HTTP/1.1 200 OK\r\n\r\n".to_vec();
    a.extend_from_slice(&stdout);
    let c = Client::new(&misbehaving(a).await.to_string(), None);
    let s = c.exec_hijack("box", &sh("true")).await.unwrap();
    match collect_within(s, LIMIT).await {
        Err(ClientError::Protocol(FrameError::MissingExit)) => {}
        other => panic!("{other:?}"),
    }
    // One-shot: a body that stops inside a frame.
    let mut body = stdout.clone();
    body.truncate(body.len() - 2);
    let mut p = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    p.extend_from_slice(&body);
    let c = Client::new(&misbehaving(p).await.to_string(), None);
    let s = c.exec_post("box", &sh("true")).await.unwrap();
    match collect_within(s, LIMIT).await {
        Err(ClientError::Protocol(FrameError::TruncatedPayload { .. })) => {}
        other => panic!("{other:?}"),
    }
    // A JSON error before streaming is the daemon's error, word for word.
    let e = br#"{"error":"no sandbox `box`"}"#;
    let mut p = format!(
        "HTTP/1.1 404 Not Found\r\ncontent-length: {}\r\n\r\n",
        e.len()
    )
    .into_bytes();
    p.extend_from_slice(e);
    let c = Client::new(&misbehaving(p).await.to_string(), None);
    match c.exec_hijack("box", &sh("true")).await {
        Err(ClientError::Http { status: 404, error }) => assert_eq!(error, "no sandbox `box`"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("accepted"),
    }
}

#[tokio::test]
async fn a_connection_that_sends_nothing_is_closed() {
    use tokio::io::AsyncReadExt;
    let config = Config {
        head_timeout: Duration::from_millis(200),
        ..keyed()
    };
    let (at, _) = daemon("silent", config).await;
    let mut s = tokio::net::TcpStream::connect(at).await.unwrap();
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(LIMIT, s.read(&mut buf))
        .await
        .unwrap()
        .unwrap_or(0);
    assert_eq!(n, 0, "closed without a word");
}

/// The closing handshake: after its close frame the daemon keeps the
/// connection until the client's close comes, and then ends it. Closing
/// at once left what the client had sent meanwhile (its pings) unread,
/// and a socket closed with unread data is reset, which lost the client
/// the frames it had not read yet (the exit frame, the output, the close).
#[tokio::test]
async fn the_daemon_waits_for_the_clients_close_before_it_ends_the_connection() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::MaybeTlsStream;
    use tokio_tungstenite::tungstenite::Message;
    let (at, _) = daemon("ws_closing", keyed()).await;
    let mut ws = raw_websocket(at).await;
    ws.send(Message::Text(
        serde_json::to_string(&sh("echo hi")).unwrap().into(),
    ))
    .await
    .unwrap();
    let mut stream = Vec::new();
    let close = loop {
        match tokio::time::timeout(LIMIT, ws.next()).await.unwrap() {
            Some(Ok(Message::Binary(b))) => stream.extend_from_slice(&b),
            Some(Ok(Message::Close(c))) => break c.unwrap(),
            other => panic!("before the close: {other:?}"),
        }
    };
    assert_eq!(u16::from(close.code), 1000);
    let frames =
        crucible::frame::decode_all(&stream, crucible::frame::Direction::GuestToHost).unwrap();
    assert_eq!(
        frames.last().unwrap().exit_result().unwrap(),
        ExecResult::code(0)
    );
    // Our close is not sent yet (tungstenite answers on the next read).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let open = |ws: &tokio_tungstenite::WebSocketStream<MaybeTlsStream<tokio::net::TcpStream>>| {
        let MaybeTlsStream::Plain(tcp) = ws.get_ref() else {
            panic!("a plain connection")
        };
        let mut byte = [0u8; 1];
        match tcp.try_read(&mut byte) {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(()),
            Ok(0) => Err("ended".to_string()),
            other => Err(format!("{other:?}")),
        }
    };
    assert_eq!(
        open(&ws),
        Ok(()),
        "the daemon ended the connection before the client's close"
    );
    // Our close goes; the daemon ends the connection then.
    assert!(
        tokio::time::timeout(LIMIT, ws.next())
            .await
            .unwrap()
            .is_none()
    );
    let deadline = tokio::time::Instant::now() + LIMIT;
    while open(&ws).is_ok() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the connection stayed open"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A client that pings while the command runs (Python's `websockets`, as
/// a user's script would use it) gets every frame, one exit frame last,
/// and a 1000 close, with and without permessage-deflate: pongs never
/// displace, reorder or cut off the frame stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinging_client_gets_every_frame_and_one_close() {
    let ready = test_support::ensure_python_module("websockets.sync.client", "websockets>=13");
    if !test_support::runnable(ready) {
        return;
    }
    let (at, _) = daemon("ws_pinging", keyed()).await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/crucible-clients/ws_pinging_client.py");
    // The command ends as a ping goes out (every 0.25 s, 1 s of sleep).
    let out = tokio::process::Command::new("python3")
        .arg(&script)
        .arg(format!("ws://{at}/sandboxes/box/exec"))
        .args([KEY, "6", "1", "0.25"])
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), out)
        .await
        .expect("the client ended within 5 minutes")
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let runs: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(runs.len(), 12, "{stdout}");
    let bad: Vec<_> = runs
        .iter()
        .filter(|r| {
            r["frames"] != serde_json::json!([1, 3]) || r["close"] != 1000 || r["left"] != 0
        })
        .collect();
    assert!(
        bad.is_empty(),
        "runs that lost frames or the close:\n{bad:#?}"
    );
}
