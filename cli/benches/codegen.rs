//! `othc gen --lang as` on the 10,000-message input of the checker's bench
//! (its `schemas` shape, plus the `objects` shape): the median time of the
//! generator in-process, and of `othc gen` as a whole process. Goal: under
//! 100 ms for the whole process (wit-bindgen takes ~190 ms for its
//! equivalent here). Numbers, not assertions.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use othc::backends::assemblyscript;
use othc::loader::MemoryLoader;
use othc::model::FileIx;

#[path = "shapes/mod.rs"]
#[allow(dead_code)]
mod shapes;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let runs = 7;
    let dir = std::env::temp_dir().join(format!("othc-gen-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (shape, src) in [
        ("schemas", shapes::schemas(10_000)),
        ("objects", shapes::objects(10_000)),
    ] {
        let mut loader = MemoryLoader::new();
        loader.add("big.oth", src.clone());
        let c = othc::compile(&loader, &[PathBuf::from("big.oth")], &Default::default())
            .expect("loads");
        assert!(!c.front.diags.has_errors());
        let text = &c
            .front
            .sources
            .get(c.front.program.module(c.front.program.roots[0]).file)
            .text;
        let mut times = Vec::new();
        let mut size = 0;
        let mut per_message = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let g = assemblyscript::generate(&c.checked.model, FileIx(0), text);
            times.push(t.elapsed());
            size = g.text.len();
            per_message = bytes_per_message(&g.text);
        }
        let gen_time = median(times);
        let file = dir.join(format!("{shape}.oth"));
        std::fs::write(&file, &src).expect("writes");
        let mut walls = Vec::new();
        for _ in 0..runs {
            let t = Instant::now();
            let out = Command::new(env!("CARGO_BIN_EXE_othc"))
                .args(["gen", "--lang", "as"])
                .arg(&file)
                .arg("-o")
                .arg(&dir)
                .output()
                .expect("othc runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            walls.push(t.elapsed());
        }
        println!(
            "{shape:<8} N=10,000 ({:.2} MB in, {:.2} MB out, {per_message} bytes a message class; goal ≤ 600): generate {:.1} ms in-process; othc gen --lang as {:.1} ms whole process (median of {runs}; goal < 100 ms)",
            src.len() as f64 / 1e6,
            size as f64 / 1e6,
            gen_time.as_secs_f64() * 1e3,
            median(walls).as_secs_f64() * 1e3,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The mean size of the bench's message classes `M0`…: each from its
/// `export class` line to the end of its `bson.shape` line, list helpers
/// (shared by all) not counted.
fn bytes_per_message(text: &str) -> usize {
    let (mut total, mut count) = (0, 0);
    let mut rest = text;
    while let Some(at) = rest.find("\nexport class M") {
        let class = &rest[at + 1..];
        let shape = class
            .find("\nbson.shape<")
            .expect("each class has its shape line");
        let end = shape
            + 1
            + class[shape + 1..]
                .find('\n')
                .unwrap_or(class.len() - shape - 1)
            + 1;
        total += end;
        count += 1;
        rest = &class[end..];
    }
    total / count.max(1)
}
