//! How fast diagnostics follow a keystroke, and whether memory stays flat.
//!
//! `cargo bench -p othc-lsp --bench latency` drives the server in process
//! (the debounce included) and prints, per input, the median and worst
//! time from an edit's `didChange` to the diagnostics that reflect it,
//! beside the anchor measured in the same run: the bare `othc::compile` of
//! the same text. Inputs: the hello example (goal ≤ 20 ms) and the bench's
//! 10,000-message schema (1.6 MB; goal ≤ 100 ms). Then resident memory
//! after 100, 1,000 and `OTH_BENCH_EDITS` (default 10,000) edits of hello.
//! Numbers, not assertions.

#[path = "../../cli/benches/shapes/mod.rs"]
#[allow(dead_code)]
mod shapes;

// The allocator of the othc binary, which serves `othc lsp`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use lsp_types::Url;
use serde_json::{Value, json};

struct Bench {
    tx: Sender<Message>,
    rx: Receiver<Message>,
    version: i32,
}

impl Bench {
    fn notify(&self, method: &str, params: Value) {
        self.tx
            .send(Message::Notification(Notification::new(
                method.into(),
                params,
            )))
            .unwrap();
    }

    /// Waits for diagnostics of `uri` that are (not) empty, as `broken` says.
    fn wait(&self, uri: &Url, broken: bool) {
        loop {
            let m = self
                .rx
                .recv_timeout(Duration::from_secs(60))
                .expect("diagnostics");
            if let Message::Notification(n) = m
                && n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri.as_str()
                && n.params["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.is_empty() != broken)
            {
                return;
            }
        }
    }

    /// Changes `uri`'s text from `from` to `to` as an editor does (one
    /// incremental change over the part that differs) and times the
    /// diagnostics that follow.
    fn edit(&mut self, uri: &Url, from: &str, to: &str, broken: bool) -> Duration {
        self.version += 1;
        let head = from
            .bytes()
            .zip(to.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let tail = from[head..]
            .bytes()
            .rev()
            .zip(to[head..].bytes().rev())
            .take_while(|(a, b)| a == b)
            .count();
        let ix = othc_lsp::lines::LineIndex::new(from);
        let range = ix.range(othc::source::Span::new(head, from.len() - tail));
        let t = Instant::now();
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": self.version },
                    "contentChanges": [{ "range": range, "text": &to[head..to.len() - tail] }] }),
        );
        self.wait(uri, broken);
        t.elapsed()
    }
}

fn start() -> (Bench, std::thread::JoinHandle<()>) {
    let (server, client) = Connection::memory();
    let handle = std::thread::spawn(move || {
        let _ = othc_lsp::serve(&server, othc_lsp::Config::default());
    });
    client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(1),
            "initialize".into(),
            json!({ "capabilities": {} }),
        )))
        .unwrap();
    loop {
        if let Message::Response(_) = client.receiver.recv().unwrap() {
            break;
        }
    }
    let b = Bench {
        tx: client.sender,
        rx: client.receiver,
        version: 1,
    };
    b.notify("initialized", json!({}));
    (b, handle)
}

fn open(b: &Bench, uri: &Url, text: &str) {
    b.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "oth", "version": 1, "text": text } }),
    );
}

fn median(mut v: Vec<Duration>) -> (Duration, Duration) {
    v.sort();
    (v[v.len() / 2], *v.last().unwrap())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The bare check of `path` (with `text` as its content), median of 5.
fn anchor(path: &Path, text: &str) -> Duration {
    let mut loader = othc::loader::MemoryLoader::new();
    let dir = path.parent().unwrap();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_file() {
            loader.add(e.path(), std::fs::read(e.path()).unwrap());
        }
    }
    loader.add(path, text.to_string());
    let roots = [path.to_path_buf()];
    median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(othc::compile(&loader, &roots, &Default::default()).unwrap());
                t.elapsed()
            })
            .collect(),
    )
    .0
}

fn case(name: &str, path: PathBuf, good: &str, bad: &str, edits: usize) {
    let (mut b, _h) = start();
    let uri = Url::from_file_path(&path).unwrap();
    open(&b, &uri, good);
    std::thread::sleep(Duration::from_millis(300));
    let mut times = Vec::new();
    for i in 0..edits {
        let broken = i % 2 == 0;
        let (from, to) = if broken { (good, bad) } else { (bad, good) };
        times.push(b.edit(&uri, from, to, broken));
    }
    let (med, worst) = median(times);
    let bare = anchor(&path, bad);
    println!(
        "{name:<28} edit → diagnostics: median {:7.2} ms, worst {:7.2} ms | bare check {:7.2} ms | ratio {:.2}",
        ms(med),
        ms(worst),
        ms(bare),
        med.as_secs_f64() / bare.as_secs_f64()
    );
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tmp = std::env::temp_dir().join(format!("othc-lsp-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let hello_dir = tmp.join("hello");
    std::fs::create_dir_all(&hello_dir).unwrap();
    for e in std::fs::read_dir(root.join("examples/hello"))
        .unwrap()
        .flatten()
    {
        if e.path().is_file() {
            std::fs::copy(e.path(), hello_dir.join(e.file_name())).unwrap();
        }
    }
    let hello = hello_dir.join("Hello.oth");
    let good = std::fs::read_to_string(&hello).unwrap();
    let bad = good.replace("/shouter  /loud", "/shouter  /lod");
    println!(
        "debounce {} ms (included)",
        othc_lsp::Config::default().debounce.as_millis()
    );
    case("hello", hello.clone(), &good, &bad, 100);

    let big = tmp.join("Big.oth");
    let src = shapes::schemas(10_000);
    std::fs::write(&big, &src).unwrap();
    let broken = src.replacen("parent: M4999\n", "parent: Mx4999\n", 1);
    case("schema, 10,000 messages", big, &src, &broken, 20);

    let total: usize = std::env::var("OTH_BENCH_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let (mut b, _h) = start();
    let uri = Url::from_file_path(&hello).unwrap();
    open(&b, &uri, &good);
    let mut marks = vec![100, 1_000, total];
    marks.dedup();
    print!("resident memory over edits of hello:");
    for i in 0..total {
        let broken = i % 2 == 0;
        let (from, to) = if broken { (&good, &bad) } else { (&bad, &good) };
        b.edit(&uri, from, to, broken);
        if marks.contains(&(i + 1)) {
            print!(" {} edits {} KiB;", i + 1, test_support::resident_kib());
        }
    }
    println!();
    let _ = std::fs::remove_dir_all(&tmp);
}
