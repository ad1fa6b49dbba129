//! examples/site end to end, as its README says: `othc run` of the image,
//! fetched with curl (statuses, headers, the files' bytes, a streamed
//! listing, StaticSite out of the data path, Ctrl-C), and opened in
//! headless Chromium (the page renders with its stylesheet and image).

mod web;

use std::process::Command;
use std::sync::Mutex;

use web::curl;

/// The tests here build the same objects (their bindings are generated
/// beside the sources): one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const PUBLIC: &str = "examples/site/public";

fn file(name: &str) -> Vec<u8> {
    std::fs::read(web::root().join(PUBLIC).join(name)).unwrap()
}

#[test]
fn the_site_example_serves_its_files() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !web::have("curl", "curl") {
        return;
    }
    // The README's command (building in place), on a free port.
    let run = web::start(
        std::path::Path::new("examples/site/Site.oth"),
        &[
            "--set",
            r#"listen=HttpConfig { listen: "127.0.0.1:0" }"#,
            "--trace",
        ],
    );
    let base = run.base.clone();
    for (path, name, ty) in [
        ("/", "index.html", "text/html"),
        ("/index.html", "index.html", "text/html"),
        ("/style.css", "style.css", "text/css"),
        ("/logo.png", "logo.png", "image/png"),
        ("/notes/first.txt", "notes/first.txt", "text/plain"),
    ] {
        let got = curl(&[], &format!("{base}{path}"));
        assert_eq!(got.status, 200, "{path}");
        assert_eq!(got.header("content-type"), Some(ty), "{path}");
        let want = file(name);
        assert_eq!(
            got.header("content-length"),
            Some(want.len().to_string().as_str()),
            "{path}"
        );
        assert!(got.body == want, "{path}: the body is the file's bytes");
    }
    let head = curl(&["-I"], &format!("{base}/logo.png"));
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some("79"));
    assert!(head.body.is_empty());

    let missing = curl(&[], &format!("{base}/missing.html"));
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("othismo-error"), Some("not_found"));
    let put = curl(&["-X", "PUT", "--data", "x"], &format!("{base}/new.txt"));
    assert_eq!(put.status, 405, "{}", put.text());

    // A directory without index.html: a listing, streamed as it is listed.
    let listing = curl(&[], &format!("{base}/notes/"));
    assert_eq!(listing.status, 200);
    assert_eq!(listing.header("transfer-encoding"), Some("chunked"));
    assert_eq!(
        listing.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let html = listing.text();
    assert!(
        html.contains(r#"<a href="/notes/first.txt">first.txt</a>"#)
            && html.contains(r#"<a href="/notes/second.txt">second.txt</a>"#)
            && html.ends_with("</html>\n"),
        "{html}"
    );
    let json = curl(&[], &format!("{base}/notes?list"));
    assert_eq!(json.header("content-type"), Some("application/x-ndjson"));
    assert_eq!(json.text().lines().count(), 2, "{}", json.text());

    let (status, err) = run.interrupt();
    assert_eq!(status, 0, "{err}");
    // StaticSite (`site`) never saw the bytes it served: the answers of
    // the files' reads go from `public` to `server`.
    // The trace shows the HTTP traffic: each exchange taken, and the
    // response written for it.
    assert!(
        err.contains("web <- http: exchange 1 GET / (0 bytes)")
            && err.contains("<- answer HttpRequest 1 GET / (0 bytes of body)")
            && err.contains("-> web: write /exchanges/1 HttpResponse 200 (648 bytes of body)"),
        "the trace shows HTTP traffic:\n{err}"
    );
    // `/` is stat'd once (HttpServer's stat, relayed): the read that
    // follows goes straight to the index, not through a second stat.
    let first: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.contains("exchange 1 GET /"))
        .take_while(|l| !l.contains("write /exchanges/1"))
        .filter_map(|l| l.split_once("-> public: ").map(|(_, asked)| asked))
        .collect();
    assert_eq!(
        first,
        ["stat /", "stat /index.html", "read /index.html"],
        "what the files were asked for GET /:\n{err}"
    );
    for line in err.lines().filter(|l| l.starts_with("site:")) {
        assert!(
            !["text/css", "image/png", "text/html ("]
                .iter()
                .any(|t| line.contains(&format!("<- done {t}"))),
            "StaticSite got file content: {line}"
        );
    }
    assert!(
        err.lines()
            .any(|l| l.starts_with("server:") && l.contains("<- done image/png (79 bytes)")),
        "the image's bytes reached HttpServer from the files:\n{err}"
    );
}

#[test]
fn the_site_renders_in_chromium() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !web::have("curl", "curl") || !web::have("chromium", "chromium") {
        return;
    }
    let bundle = web::build("examples/site/Site.oth", "site_chromium");
    let run = web::start(&bundle, &[]);
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "chromium");
    let shot = dir.join("shot.png");
    let chromium = |extra: &[&str]| {
        Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=400,300",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .args(extra)
            .arg(format!("{}/", run.base))
            .output()
            .expect("chromium runs")
    };
    let dom = chromium(&["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains(r#"<h1 id="title">Served by objects</h1>"#)
            && dom.contains(r#"<img id="logo" src="/logo.png""#),
        "the DOM:\n{dom}"
    );
    let o = chromium(&[&format!("--screenshot={}", shot.display())]);
    assert!(
        shot.exists(),
        "no screenshot: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // The page's pixels: the stylesheet's background and heading colour,
    // and the image's own colour over the area it takes.
    let decoder = png::Decoder::new(std::fs::File::open(&shot).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let count = |rgb: [u8; 3]| {
        buf[..info.buffer_size()]
            .chunks(channels)
            .filter(|p| p[..3] == rgb)
            .count()
    };
    let background = count([0xfd, 0xf6, 0xe3]);
    let logo = count([0x2a, 0xa1, 0x98]);
    let heading = count([38, 139, 210]);
    let all = (info.width * info.height) as usize;
    assert!(
        background > all / 2,
        "the stylesheet's background: {background} of {all} pixels"
    );
    assert!(logo >= 64 * 64 * 9 / 10, "the image: {logo} pixels");
    assert!(heading > 100, "the heading's colour: {heading} pixels");

    // A directory named without its slash: redirected to the slash form,
    // so the page's relative stylesheet and image resolve under it (the
    // page records in its DOM that both took effect).
    let about = Command::new("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("{}/about", run.base))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&about.stdout);
    assert!(
        dom.contains(r#"data-image="loaded""#) && dom.contains(r#"data-style="rgb(203, 75, 22)""#),
        "the page at /about, its stylesheet and image:\n{dom}"
    );
    drop(run);
}

/// `othc run` of the site with `args`, from `cwd`, to its end (at most
/// 60 s: a run that goes on serving fails the test); its exit status and
/// stderr.
fn run_to_end(cwd: &std::path::Path, args: &[&str]) -> (i32, String) {
    let image = web::root().join("examples/site/Site.oth");
    let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
        .current_dir(cwd)
        .arg("run")
        .arg(&image)
        // Not the example's own build folder, which a developer runs.
        .arg("--out")
        .arg(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("misconfigured_site"))
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("othc runs");
    let (status, err) = test_support::ended_within(
        &mut child,
        std::time::Duration::from_secs(60),
        "the misconfigured site",
    );
    (status.code().unwrap_or(-1), err)
}

/// A site its startup requests cannot configure stops at once, listeners
/// closed, status 1: run where its files' folder does not exist (it used
/// to listen on and answer every page 404), or on an address already
/// taken.
#[test]
fn a_misconfigured_site_stops_at_once() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let elsewhere = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "site_elsewhere");
    let (status, err) = run_to_end(
        &elsewhere,
        &["--set", r#"listen=HttpConfig { listen: "127.0.0.1:0" }"#],
    );
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("error: startup request write /public failed: 1 not_found")
            && err.contains("the image stops"),
        "{err}"
    );

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let (status, err) = run_to_end(
        &web::root(),
        &[
            "--set",
            &format!(r#"listen=HttpConfig {{ listen: "{addr}" }}"#),
        ],
    );
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains(&format!(
            "error: startup request write /web failed: 10 unavailable: cannot listen on {addr}"
        )),
        "{err}"
    );
    assert!(
        err.contains("another process listens there; stop it, or give HttpConfig another `listen`"),
        "{err}"
    );
    assert!(!err.contains("listening on"), "{err}");
    // An address that is not this host's (TEST-NET-1): said so.
    let (status, err) = run_to_end(
        &web::root(),
        &["--set", r#"listen=HttpConfig { listen: "192.0.2.1:8080" }"#],
    );
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("cannot listen on 192.0.2.1:8080: ")
            && err.contains("that address is not one of this host's"),
        "{err}"
    );
}

/// StaticSite forwards a read at once when the stat just before it found
/// a file (HttpServer stats every path it reads): the last stat of a path
/// decides, so a path stat'd as a file that has become a directory since
/// is served as the directory, and back again.
#[test]
fn a_file_that_becomes_a_directory_is_served_as_one() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !web::have("curl", "curl") {
        return;
    }
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "site_changes");
    std::fs::write(dir.join("x"), "a file\n").unwrap();
    let files = format!(
        r#"files=FilesConfig {{ dir: "{}", readonly: true }}"#,
        dir.display()
    );
    let bundle = web::build_with(
        "examples/site/Site.oth",
        "site_changes_build",
        "--debug",
        &[&files],
    );
    let run = web::start(&bundle, &[]);
    let base = run.base.clone();

    let stat = curl(&[], &format!("{base}/x?stat"));
    assert_eq!(stat.status, 200, "{}", stat.text());
    assert!(stat.text().contains(r#""kind":"file""#), "{}", stat.text());
    let got = curl(&[], &format!("{base}/x"));
    assert_eq!((got.status, got.text().as_str()), (200, "a file\n"));

    // Only stat'd this time, then made a directory with an index.
    let stat = curl(&[], &format!("{base}/x?stat"));
    assert!(stat.text().contains(r#""kind":"file""#), "{}", stat.text());
    std::fs::remove_file(dir.join("x")).unwrap();
    std::fs::create_dir(dir.join("x")).unwrap();
    std::fs::write(dir.join("x/index.html"), "an index\n").unwrap();
    let moved = curl(&[], &format!("{base}/x"));
    assert_eq!(moved.status, 301, "{}", moved.text());
    let index = curl(&[], &format!("{base}/x/"));
    assert_eq!((index.status, index.text().as_str()), (200, "an index\n"));

    // And a file again.
    std::fs::remove_dir_all(dir.join("x")).unwrap();
    std::fs::write(dir.join("x"), "a file again\n").unwrap();
    let got = curl(&[], &format!("{base}/x"));
    assert_eq!((got.status, got.text().as_str()), (200, "a file again\n"));
}
