//! The event loop of a listening image looks for more work for `--spin`
//! before it sleeps (running.md, "Looking before sleeping"): a client's
//! next request that comes meanwhile is taken without waking a sleeping
//! thread, and once the look is over the loop sleeps, costing nothing
//! while idle. The report's `caught` and `slept` count the waits that
//! ended each way, the loop's on the host line and the listener's on the
//! Http object's.

mod web;

use std::time::Duration;

use web::load;
use web::report::{number, report};

/// One client's requests, one after another on one connection.
const REQUESTS: u64 = 300;

fn site(name: &str) -> std::path::PathBuf {
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), name);
    let public = dir.join("public");
    std::fs::create_dir_all(&public).unwrap();
    std::fs::write(public.join("index.html"), "<p>home</p>\n").unwrap();
    web::build_site_serving(&public, &format!("{name}_build"), "--debug")
}

fn addr(run: &web::Running) -> String {
    run.base.trim_start_matches("http://").to_string()
}

/// With `--spin 0` every wait sleeps: nothing is caught looking.
#[test]
fn without_a_look_every_wait_sleeps() {
    let bundle = site("spin_none");
    let mut run = web::start(&bundle, &["--spin", "0"]);
    let tally = load::drive(&addr(&run), &["/"], 1, REQUESTS);
    assert_eq!(tally.ok, REQUESTS, "{tally:?}");
    let r = report(&mut run);
    assert_eq!(number(&r, "host", "caught"), 0, "{:?}", r["host"]);
    // Nor does the listener's thread look.
    assert_eq!(number(&r, "web", "caught"), 0, "{:?}", r["web"]);
    assert_eq!(number(&r, "web", "slept"), 0, "{:?}", r["web"]);
    assert!(
        number(&r, "host", "slept") >= REQUESTS,
        "one sleep a request at least: {:?}",
        r["host"]
    );
}

/// With a long look, a client's next request is caught while looking
/// (on more than one core: on one, the loop never looks); once the look
/// is over, an idle image spends no CPU time.
#[test]
fn a_long_look_catches_the_next_request_and_then_sleeps() {
    let bundle = site("spin_long");
    // A look of a second: far longer than a request takes to come.
    let mut run = web::start(&bundle, &["--spin", "1000000"]);
    let tally = load::drive(&addr(&run), &["/"], 1, REQUESTS);
    assert_eq!(tally.ok, REQUESTS, "{tally:?}");
    let r = report(&mut run);
    let (caught, slept) = (number(&r, "host", "caught"), number(&r, "host", "slept"));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores > 1 {
        assert!(
            caught >= REQUESTS - 10,
            "{caught} of {REQUESTS} requests caught looking ({slept} sleeps)"
        );
        // The listener's thread too: each request comes while it looks
        // (after the response before it), and it never stopped looking.
        let (l_caught, l_slept) = (number(&r, "web", "caught"), number(&r, "web", "slept"));
        assert!(
            l_caught >= REQUESTS - 10,
            "{l_caught} of {REQUESTS} requests caught by the listener looking ({l_slept} sleeps)"
        );
    } else {
        assert_eq!(caught, 0, "looked on one core");
    }
    // The report woke the loop, which looks for a second again: past it,
    // the image is idle and sleeps (a second of looking is 100 ticks).
    std::thread::sleep(Duration::from_millis(1500));
    let pid = run.child.id();
    let before = web::cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(1));
    let spent = web::cpu_ticks(pid) - before;
    assert!(spent <= 10, "{spent} ticks of CPU in a second of idleness");
    assert!(run.alive(), "{}", run.stderr());
}
