//! The Http object's rules for what an object writes to an exchange,
//! without a socket: a request taken, handed out, and answered.

use bson::{Bson, doc};
use hyper::StatusCode;
use othc::model::{Seg, Verb};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::{Context, ENTRIES, Flow, HIGH_WATER, Http, Incoming, Notify, Part};
use crate::abi::{self, Ticket, errno};
use crate::natives::Asked;
use crate::natives::Reply;
use crate::{Payload, Sender};

const WATCHER: Sender = Sender::Instance(crate::ActorId::at(3));

fn message(d: bson::Document) -> Payload {
    let mut data = Vec::new();
    d.to_writer(&mut data).unwrap();
    Payload {
        content_type: "application/bson".into(),
        data,
    }
}

fn response(status: i32, headers: &[(&str, &str)], body: &str, streamed: bool) -> Payload {
    let headers: Vec<Bson> = headers
        .iter()
        .map(|(n, v)| Bson::Document(doc! { "name": *n, "value": *v }))
        .collect();
    message(doc! {
        "$type": "HttpResponse",
        "status": status,
        "headers": headers,
        "body": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: body.as_bytes().to_vec() },
        "streamed": streamed,
    })
}

fn segs(p: &[&str]) -> Vec<Seg> {
    p.iter().map(|s| Seg::Literal(s.to_string())).collect()
}

/// A request as the router would hand it over: the entry `verb path`
/// reaches, found the way the router finds it (literal segments equal,
/// `{id}` any).
fn asked<'a>(
    verb: i32,
    path: &'a [Seg],
    from: Sender,
    ticket: Ticket,
    payload: Option<&'a Payload>,
) -> Asked<'a> {
    let verb = Verb::from_wire(verb).unwrap();
    let entry = ENTRIES
        .iter()
        .position(|(_, v, p)| {
            let pattern: Vec<&str> = p.split('/').filter(|s| !s.is_empty()).collect();
            *v == verb
                && pattern.len() == path.len()
                && pattern.iter().zip(path).all(|(want, got)| {
                    want.starts_with('{') || matches!(got, Seg::Literal(l) if l == want)
                })
        })
        .expect("an entry of Http's");
    Asked {
        entry,
        from,
        ticket,
        path,
        payload,
    }
}

/// A listener's news goes nowhere here: there is no listener.
fn unheard() -> Notify {
    Arc::new(|_| true)
}

struct Bench {
    http: Http,
    /// The flow of the last request taken, as its listener shares it.
    flow: Arc<Flow>,
}

impl Bench {
    fn new() -> Bench {
        let mut b = Bench {
            http: Http::default(),
            flow: Arc::default(),
        };
        assert_eq!(b.call(abi::WATCH, &["requests"], None), None);
        b
    }

    fn call(&mut self, verb: i32, path: &[&str], payload: Option<&Payload>) -> Option<Reply> {
        let cx = Context {
            notify: &unheard,
            look: std::time::Duration::ZERO,
        };
        let path = segs(path);
        self.http
            .serve(cx, asked(verb, &path, WATCHER, Ticket(1), payload))
    }

    /// A request from a client, handed to the watcher; its response parts.
    fn request(&mut self, id: u64) -> UnboundedReceiver<Part> {
        let (parts, rx) = unbounded_channel();
        self.flow = Arc::default();
        self.http.take(Incoming::new(
            id,
            ("GET", "/a?b"),
            [("host", &b"x"[..])],
            &[],
            parts,
            self.flow.clone(),
        ));
        let out = self.http.hand_out(1 << 20);
        assert_eq!(out.len(), 1);
        let (to, ticket, p) = &out[0];
        assert_eq!((*to, *ticket), (WATCHER, Ticket(1)));
        let d = bson::Document::from_reader(&mut p.data.as_slice()).unwrap();
        assert_eq!(d.get_str("$type"), Ok("HttpRequest"));
        assert_eq!(d.get_i64("id"), Ok(id as i64));
        assert_eq!(d.get_str("target"), Ok("/a?b"));
        rx
    }
}

fn refused(r: Option<Reply>, want: abi::Errno, says: &str) {
    match r {
        Some(Reply::Error { errno, desc }) => {
            assert_eq!(errno, want, "{desc}");
            assert!(desc.contains(says), "{desc:?} says {says:?}");
        }
        other => panic!("expected errno {want}, got {other:?}"),
    }
}

#[test]
fn a_response_goes_once_and_a_streamed_body_follows_it() {
    let mut b = Bench::new();
    let mut rx = b.request(7);
    refused(
        b.call(
            abi::WRITE,
            &["exchanges", "7", "body"],
            Some(&Payload {
                content_type: "text/plain".into(),
                data: b"x".to_vec(),
            }),
        ),
        errno::INVALID,
        "no streamed response yet",
    );
    let r = b.call(
        abi::WRITE,
        &["exchanges", "7"],
        Some(&response(200, &[("content-type", "text/plain")], "a", true)),
    );
    assert_eq!(r, Some(Reply::done(None)));
    match rx.try_recv() {
        Ok(Part::Head {
            status,
            headers,
            body,
            streamed,
            length: None,
        }) => {
            assert_eq!(status, StatusCode::OK);
            assert_eq!(headers["content-type"], "text/plain");
            assert_eq!((body.as_slice(), streamed), (&b"a"[..], true));
        }
        _ => panic!("the head went first"),
    }
    refused(
        b.call(
            abi::WRITE,
            &["exchanges", "7"],
            Some(&response(200, &[], "", false)),
        ),
        errno::EXISTS,
        "has its response",
    );
    let part = Payload {
        content_type: "text/plain".into(),
        data: b"b".to_vec(),
    };
    assert_eq!(
        b.call(abi::WRITE, &["exchanges", "7", "body"], Some(&part)),
        Some(Reply::done(None))
    );
    assert!(matches!(rx.try_recv(), Ok(Part::Chunk(c)) if c == b"b"));
    assert_eq!(
        b.call(abi::REMOVE, &["exchanges", "7"], None),
        Some(Reply::done(None))
    );
    // The channel is closed: the body has ended.
    assert!(rx.try_recv().is_err() && rx.is_closed());
    refused(
        b.call(abi::REMOVE, &["exchanges", "7"], None),
        errno::NOT_FOUND,
        "no exchange 7",
    );
}

#[test]
fn what_http_cannot_send_is_refused_with_the_reason() {
    let mut b = Bench::new();
    let _rx = b.request(1);
    for (p, says) in [
        (response(99, &[], "", false), "99 is not an HTTP status"),
        (
            response(200, &[("bad name", "x")], "", false),
            "`bad name` is not a header name",
        ),
        (
            response(200, &[("x-a", "line\nbreak")], "", false),
            "the value of `x-a`",
        ),
        (
            response(200, &[("Content-Length", "3")], "", false),
            "set by Http itself",
        ),
        (
            message(doc! { "$type": "HttpHeader", "name": "a", "value": "b" }),
            "expected a HttpResponse message, got a HttpHeader",
        ),
    ] {
        refused(
            b.call(abi::WRITE, &["exchanges", "1"], Some(&p)),
            errno::INVALID,
            says,
        );
    }
    refused(
        b.call(
            abi::WRITE,
            &["exchanges", "x"],
            Some(&response(200, &[], "", false)),
        ),
        errno::NOT_FOUND,
        "an exchange id is a number",
    );
}

#[test]
fn a_client_that_left_makes_its_exchange_unknown() {
    let mut b = Bench::new();
    let rx = b.request(2);
    drop(rx);
    refused(
        b.call(
            abi::WRITE,
            &["exchanges", "2"],
            Some(&response(200, &[], "late", false)),
        ),
        errno::NOT_FOUND,
        "its client has gone",
    );
    let _rx = b.request(3);
    b.http.gone(3);
    refused(
        b.call(
            abi::WRITE,
            &["exchanges", "3"],
            Some(&response(200, &[], "", false)),
        ),
        errno::NOT_FOUND,
        "no exchange 3",
    );
}

#[test]
fn an_exchange_ended_unanswered_is_a_bad_gateway() {
    let mut b = Bench::new();
    let mut rx = b.request(4);
    assert_eq!(
        b.call(abi::REMOVE, &["exchanges", "4"], None),
        Some(Reply::done(None))
    );
    assert!(matches!(
        rx.try_recv(),
        Ok(Part::Head {
            status: StatusCode::BAD_GATEWAY,
            ..
        })
    ));
}

/// An exchange the object cannot finish: a streamed body is cut off, never
/// ended as if whole; one not responded to is a bad gateway saying why. The
/// same when the object serving it stops.
#[test]
fn an_exchange_that_fails_is_cut_off_or_a_bad_gateway() {
    let mut b = Bench::new();
    let why = Payload {
        content_type: "text/plain".into(),
        data: b"unavailable: gave out midway".to_vec(),
    };
    let mut rx = b.request(5);
    let head = response(200, &[], "begun", true);
    b.call(abi::WRITE, &["exchanges", "5"], Some(&head));
    b.call(abi::WRITE, &["exchanges", "5", "failed"], Some(&why));
    assert!(matches!(
        rx.try_recv(),
        Ok(Part::Head { streamed: true, .. })
    ));
    assert!(matches!(rx.try_recv(), Ok(Part::Failed(w)) if w == "unavailable: gave out midway"));
    // It is over: nothing more is taken for it.
    refused(
        b.call(abi::WRITE, &["exchanges", "5", "body"], Some(&why)),
        errno::NOT_FOUND,
        "no exchange 5",
    );

    let mut rx = b.request(6);
    b.call(abi::WRITE, &["exchanges", "6", "failed"], Some(&why));
    match rx.try_recv() {
        Ok(Part::Head { status, body, .. }) => {
            assert_eq!(status, StatusCode::BAD_GATEWAY);
            assert_eq!(body, b"unavailable: gave out midway\n");
        }
        _ => panic!("a bad gateway"),
    }

    let mut rx = b.request(7);
    b.call(abi::WRITE, &["exchanges", "7"], Some(&head));
    b.http.withdraw(WATCHER, None);
    assert!(matches!(rx.try_recv(), Ok(Part::Head { .. })));
    assert!(matches!(rx.try_recv(), Ok(Part::Failed(w)) if w.contains("has stopped")));
}

#[test]
fn requests_wait_for_a_watcher_and_go_round_in_turn() {
    let mut b = Bench::new();
    let second = Sender::Instance(crate::ActorId::at(9));
    let cx = Context {
        notify: &unheard,
        look: std::time::Duration::ZERO,
    };
    assert_eq!(
        b.http.serve(
            cx,
            asked(abi::WATCH, &segs(&["requests"]), second, Ticket(5), None)
        ),
        None
    );
    let mut rxs = Vec::new();
    for id in 1..=3 {
        let (parts, rx) = unbounded_channel();
        rxs.push(rx);
        b.http.take(Incoming::new(
            id,
            ("GET", "/"),
            [],
            &[],
            parts,
            Arc::default(),
        ));
    }
    let to: Vec<Sender> = b
        .http
        .hand_out(1 << 20)
        .into_iter()
        .map(|(s, _, _)| s)
        .collect();
    assert_eq!(to, vec![WATCHER, second, WATCHER]);
    // Over the payload limit: answered 413 here, never handed out.
    let (parts, mut rx) = unbounded_channel();
    b.http.take(Incoming::new(
        9,
        ("PUT", "/"),
        [],
        &[0; 100],
        parts,
        Arc::default(),
    ));
    assert!(b.http.hand_out(50).is_empty());
    assert!(matches!(
        rx.try_recv(),
        Ok(Part::Head {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            ..
        })
    ));
}

/// What the listener does when its connection takes a part.
fn take_part(b: &mut Bench, rx: &mut UnboundedReceiver<Part>) {
    let Ok(Part::Chunk(c)) = rx.try_recv() else {
        panic!("a part was waiting")
    };
    b.flow.queued.fetch_sub(c.len(), Ordering::AcqRel);
    if b.flow.wanted.swap(false, Ordering::AcqRel) {
        b.http.drained(8);
    }
}

#[test]
fn a_write_that_leaves_too_much_waiting_is_answered_once_the_connection_takes_it() {
    let mut b = Bench::new();
    let mut rx = b.request(8);
    let head = response(200, &[], "", true);
    assert_eq!(
        b.call(abi::WRITE, &["exchanges", "8"], Some(&head)),
        Some(Reply::done(None))
    );
    assert!(matches!(rx.try_recv(), Ok(Part::Head { .. })));
    let part = Payload {
        content_type: "application/octet-stream".into(),
        data: vec![7; HIGH_WATER * 3 / 4],
    };
    let body = ["exchanges", "8", "body"];
    // Under the mark: answered at once. Over it: held, nothing due.
    assert_eq!(
        b.call(abi::WRITE, &body, Some(&part)),
        Some(Reply::done(None))
    );
    assert_eq!(b.call(abi::WRITE, &body, Some(&part)), None);
    assert!(b.http.take_due().is_empty());
    // The connection takes the first part: back under the mark.
    take_part(&mut b, &mut rx);
    assert_eq!(
        b.http.take_due(),
        vec![(WATCHER, Ticket(1), Reply::done(None))]
    );
    // Held again; then the client goes: the writer hears it has.
    assert_eq!(b.call(abi::WRITE, &body, Some(&part)), None);
    b.http.gone(8);
    match b.http.take_due().as_slice() {
        [(WATCHER, Ticket(1), Reply::Error { errno, .. })] => assert_eq!(*errno, errno::NOT_FOUND),
        other => panic!("the held write was not refused: {other:?}"),
    }
    // A body ended while a write is held: the write went, and is done.
    let mut rx = b.request(8);
    b.call(abi::WRITE, &["exchanges", "8"], Some(&head));
    assert!(matches!(rx.try_recv(), Ok(Part::Head { .. })));
    b.call(abi::WRITE, &body, Some(&part));
    assert_eq!(b.call(abi::WRITE, &body, Some(&part)), None);
    assert_eq!(
        b.call(abi::REMOVE, &["exchanges", "8"], None),
        Some(Reply::done(None))
    );
    assert_eq!(
        b.http.take_due(),
        vec![(WATCHER, Ticket(1), Reply::done(None))]
    );
}

#[test]
fn a_length_is_only_for_a_streamed_body_no_shorter_than_its_first_part() {
    let mut b = Bench::new();
    let _rx = b.request(9);
    let mut with_length = |streamed: bool, length: i64| {
        let mut p = response(200, &[], "abc", streamed);
        let mut d = bson::Document::from_reader(&mut p.data.as_slice()).unwrap();
        d.insert("length", length);
        p = message(d);
        b.call(abi::WRITE, &["exchanges", "9"], Some(&p))
    };
    refused(with_length(false, 3), errno::INVALID, "for a streamed body");
    refused(
        with_length(true, 2),
        errno::INVALID,
        "longer than its `length`",
    );
    refused(
        with_length(true, -1),
        errno::INVALID,
        "`length` must be a non-negative integer",
    );
    assert_eq!(with_length(true, 10), Some(Reply::done(None)));
}
