//! Front-end throughput: parse + resolve of generated inputs.
//!
//! `cargo bench -p othc --bench front_end` prints, for N = 1,000 and 10,000
//! message types (plus an object serving each), the median time of five runs,
//! MB/s and messages/s. Numbers, not assertions: see the issue notes.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use othc::loader::MemoryLoader;

/// One file with `n` messages in a schema block and an object with an entry
/// per message: the shape of a large real header.
fn generate(n: usize) -> String {
    let mut s = String::from("export schemas application/bson {\n");
    for i in 0..n {
        s.push_str(&format!(
            "  ## Message number {i}.\n  message M{i} {{\n    id: uuid\n    name: string\n    tags?: [string]\n    counts: {{u32}}\n    next?: M{}\n  }}\n",
            (i + 1) % n
        ));
    }
    s.push_str("}\n\nexport object Big {\n  serves {\n");
    for i in 0..n {
        s.push_str(&format!(
            "    /items/m{i}/{{id}}  write M{i} -> text/plain\n"
        ));
    }
    s.push_str("  }\n  needs /dev/cons {\n    /  write text/plain\n  }\n}\n");
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    for n in [1_000, 10_000] {
        let src = generate(n);
        let mut loader = MemoryLoader::new();
        loader.add("big.oth", src.clone());
        let mut parse = Vec::new();
        let mut full = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            let p = oth_syntax::parse_file(&src);
            assert!(p.errors.is_empty());
            parse.push(t.elapsed());
            let t = Instant::now();
            let fe = othc::load(&loader, &[PathBuf::from("big.oth")]).expect("loads");
            assert!(!fe.diags.has_errors());
            full.push(t.elapsed());
        }
        let mb = src.len() as f64 / 1e6;
        for (what, d) in [
            ("parse (file only)", median(parse)),
            ("parse+resolve (with BSON blocks)", median(full)),
        ] {
            let secs = d.as_secs_f64();
            println!(
                "N={n:>6}  {what:<34} {:>8.2} ms  {:>7.1} MB/s  {:>10.0} messages/s  ({:.2} MB)",
                secs * 1e3,
                mb / secs,
                n as f64 / secs,
                mb
            );
        }
    }
}
