//! `crucible`: a daemon with the local backend, and a minimal client in the
//! spirit of the seed's `scripts/wsexec`.
//!
//!   crucible serve --listen 127.0.0.1:7070 --root DIR --key KEY --sandbox dev
//!   crucible exec --url http://127.0.0.1:7070 --key KEY --sandbox dev -- sh -c 'echo hi; cat'
//!   crucible push --sandbox dev --path /work FILES.tar
//!   crucible pull --sandbox dev --path /work/out.txt > out.txt

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use crucible::client::{Client, Transport};
use crucible::daemon::{self, Config};
use crucible::sandbox::{LocalBackend, Output};
use crucible::wire::ExecRequest;

#[derive(Parser)]
#[command(
    name = "crucible",
    version,
    about = "The crucible wire protocol: a daemon with a local backend, and a client"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve sandboxes that run commands as local child processes (no
    /// isolation: for development and tests)
    Serve {
        /// Where to listen
        #[arg(long, default_value = "127.0.0.1:7070")]
        listen: String,
        /// The directory holding one directory per sandbox
        #[arg(long)]
        root: PathBuf,
        /// The bearer key clients must send (none: anyone may)
        #[arg(long, env = "CRUCIBLE_KEY")]
        key: Option<String>,
        /// A sandbox to create (repeatable)
        #[arg(long = "sandbox", value_name = "ID", required = true)]
        sandboxes: Vec<String>,
        /// The largest request body (an exec request, a pushed tar archive),
        /// in MiB; larger ones are answered 413
        #[arg(long = "max-body", value_name = "MIB", default_value_t = 256)]
        max_body_mib: usize,
        /// Seconds a connection has to send a request's head (and a
        /// WebSocket client its exec request) before it is closed
        #[arg(long = "head-timeout", value_name = "SECONDS", default_value_t = 30)]
        head_timeout_s: u64,
    },
    /// Run a command in a sandbox; stdin goes to it (interactive
    /// transports), its output comes back, and its exit code is this one's
    Exec {
        #[command(flatten)]
        target: Target,
        /// How: `post` (one-shot, no stdin), `hijack` or `websocket`
        #[arg(long, value_enum, default_value = "websocket")]
        transport: Transport,
        /// Environment for the command, `K=V` (repeatable)
        #[arg(long = "env", value_name = "K=V")]
        env: Vec<String>,
        /// The guest working directory
        #[arg(long)]
        cwd: Option<String>,
        /// Kill the command after this many seconds
        #[arg(long)]
        timeout: Option<u64>,
        /// The command and its arguments
        #[arg(last = true, required = true)]
        cmd: Vec<String>,
    },
    /// Push a tar archive (a file, or `-` for stdin) beneath a guest directory
    Push {
        #[command(flatten)]
        target: Target,
        #[arg(long)]
        path: String,
        tar: PathBuf,
    },
    /// Print one guest file's bytes on stdout
    Pull {
        #[command(flatten)]
        target: Target,
        #[arg(long)]
        path: String,
    },
}

#[derive(Args)]
struct Target {
    /// The daemon
    #[arg(long, default_value = "http://127.0.0.1:7070")]
    url: String,
    /// The bearer key
    #[arg(long, env = "CRUCIBLE_KEY")]
    key: Option<String>,
    /// The sandbox
    #[arg(long)]
    sandbox: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match cli.command {
        Command::Serve {
            listen,
            root,
            key,
            sandboxes,
            max_body_mib,
            head_timeout_s,
        } => {
            let backend = LocalBackend::new(root);
            for s in &sandboxes {
                backend.create(s)?;
            }
            let config = Config {
                key,
                max_body: max_body_mib.saturating_mul(1 << 20),
                head_timeout: std::time::Duration::from_secs(head_timeout_s),
                first_message_timeout: std::time::Duration::from_secs(head_timeout_s),
            };
            let listener = tokio::net::TcpListener::bind(&listen).await?;
            eprintln!(
                "listening on {} (sandboxes: {})",
                listener.local_addr()?,
                sandboxes.join(", ")
            );
            daemon::serve(listener, Arc::new(backend), config).await;
            Ok(ExitCode::SUCCESS)
        }
        Command::Exec {
            target,
            transport,
            env,
            cwd,
            timeout,
            cmd,
        } => {
            let mut req = ExecRequest::new(cmd);
            for kv in env {
                let (k, v) = kv.split_once('=').ok_or("`--env` takes K=V")?;
                req.env.insert(k.into(), v.into());
            }
            req.cwd = cwd;
            req.timeout_s = timeout;
            let c = Client::new(&target.url, target.key);
            let mut s = c.exec(&target.sandbox, &req, transport).await?;
            if transport != Transport::Post {
                // Stdin is read on a thread of its own and handed over.
                let (tx, mut rx) = tokio::sync::mpsc::channel::<Option<Vec<u8>>>(4);
                std::thread::spawn(move || {
                    let mut stdin = std::io::stdin().lock();
                    let mut buf = vec![0; 32 * 1024];
                    loop {
                        match stdin.read(&mut buf) {
                            Ok(0) | Err(_) => {
                                let _ = tx.blocking_send(None);
                                return;
                            }
                            Ok(n) => {
                                if tx.blocking_send(Some(buf[..n].to_vec())).is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
                let mut open = true;
                loop {
                    tokio::select! {
                        chunk = rx.recv(), if open => match chunk {
                            Some(Some(b)) => s.stdin(&b).await?,
                            _ => {
                                s.close_stdin().await?;
                                open = false;
                            }
                        },
                        out = s.next() => match out {
                            Some(o) => if let Some(code) = show(o?)? { return Ok(code) },
                            None => return Err("the stream ended without an exit".into()),
                        },
                    }
                }
            }
            while let Some(o) = s.next().await {
                if let Some(code) = show(o?)? {
                    return Ok(code);
                }
            }
            Err("the stream ended without an exit".into())
        }
        Command::Push { target, path, tar } => {
            let bytes = if tar.as_os_str() == "-" {
                let mut b = Vec::new();
                std::io::stdin().read_to_end(&mut b)?;
                b
            } else {
                std::fs::read(&tar)?
            };
            let c = Client::new(&target.url, target.key);
            let r = c.push(&target.sandbox, &path, bytes).await?;
            println!("{}", serde_json::to_string(&r)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Pull { target, path } => {
            let c = Client::new(&target.url, target.key);
            let bytes = c.pull(&target.sandbox, &path).await?;
            std::io::stdout().write_all(&bytes)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Prints what the command said; its exit code once it exits.
fn show(o: Output) -> std::io::Result<Option<ExitCode>> {
    match o {
        Output::Stdout(b) => {
            let mut out = std::io::stdout().lock();
            out.write_all(&b)?;
            out.flush()?;
        }
        Output::Stderr(b) => {
            let mut err = std::io::stderr().lock();
            err.write_all(&b)?;
            err.flush()?;
        }
        Output::Exit(r) => {
            if let Some(e) = &r.error {
                eprintln!("crucible: the command was lost: {e}");
                return Ok(Some(ExitCode::from(125)));
            }
            return Ok(Some(ExitCode::from(r.exit_code.clamp(0, 255) as u8)));
        }
    }
    Ok(None)
}
