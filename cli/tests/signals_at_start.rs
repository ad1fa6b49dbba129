//! A listening image says `listening on` only once it catches signals: a
//! SIGUSR1 sent the moment the line appears is answered with a report, and
//! a SIGTERM stops it gracefully (exit 0). The line used to come just
//! before the signals were caught, and a supervisor or test that asked for
//! a report as soon as it read the line killed the process (SIGUSR1's
//! default action) about one start in ten on a busy machine.

mod web;

use std::time::Duration;

/// Starts, each asked for a report (or stopped) at once.
const STARTS: usize = 24;

#[test]
fn signals_sent_as_soon_as_it_listens_are_caught() {
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "signals_at_start");
    let public = dir.join("public");
    std::fs::create_dir_all(&public).unwrap();
    std::fs::write(public.join("index.html"), "<p>home</p>\n").unwrap();
    let bundle = web::build_site_serving(&public, "signals_at_start_build", "--debug");
    for n in 0..STARTS {
        // Sent the moment `start` has read the line.
        let mut run = web::start(&bundle, &[]);
        let pid = run.child.id() as libc::pid_t;
        if n % 2 == 0 {
            // SAFETY: a signal to the child this test started and holds.
            assert_eq!(unsafe { libc::kill(pid, libc::SIGUSR1) }, 0);
            run.wait_err("report: host");
            assert!(run.alive(), "start {n}: {}", run.stderr());
        } else {
            // SAFETY: as above.
            assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
            let (code, err) = run.ended_within(Duration::from_secs(20), "SIGTERM did not stop it");
            assert_eq!(code, 0, "start {n}: {err}");
            assert!(
                err.contains("SIGTERM: no new connections"),
                "start {n}: {err}"
            );
        }
    }
}
