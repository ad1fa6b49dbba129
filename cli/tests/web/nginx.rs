//! Debian's nginx, started beside a site to compare with: serving one
//! directory on a free loopback port, with as many worker processes as the
//! machine has cores, its logs and temporary files in a scratch folder.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// nginx, stopped when dropped.
pub struct Nginx {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Nginx {
    /// The master process's id (its workers are its children).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Nginx {
    /// SIGTERM, so the master stops its workers before it exits: SIGKILL
    /// left them running, orphaned, one pair per test or bench run.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..100 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Started as root, nginx runs its workers as `www-data`, who may not
/// enter a scratch folder (mktemp's are 0700): they run as root too then.
fn user() -> &'static str {
    let root = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|u| u.split_whitespace().next() == Some("0"))
        })
        .unwrap_or(false);
    if root { "user root;\n" } else { "" }
}

/// nginx serving `public` (its default static module: `root`, nothing
/// else), its files in `work`; returns once it accepts connections.
pub fn start(work: &Path, public: &Path) -> Nginx {
    let port = free_port();
    let public = public.canonicalize().unwrap();
    std::fs::create_dir_all(work).unwrap();
    let conf = work.join("nginx.conf");
    std::fs::write(
        &conf,
        format!(
            "daemon off;\n{user}worker_processes {workers};\npid {pid};\nerror_log {log} warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  include /etc/nginx/mime.types;\n  access_log off;\n\
             client_body_temp_path {tmp};\n  proxy_temp_path {tmp};\n  fastcgi_temp_path {tmp};\n\
             uwsgi_temp_path {tmp};\n  scgi_temp_path {tmp};\n\
             server {{ listen 127.0.0.1:{port}; root {root}; }}\n}}\n",
            user = user(),
            workers = cores(),
            pid = work.join("nginx.pid").display(),
            log = work.join("nginx.log").display(),
            tmp = work.display(),
            root = public.display(),
        ),
    )
    .unwrap();
    let child = Command::new("nginx")
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(work.join("nginx.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("nginx runs");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Nginx {
        child,
        base: format!("http://127.0.0.1:{port}"),
    }
}
