//! `crucible`: a daemon (microVM or local backend), and a minimal client in
//! the spirit of the seed's `scripts/wsexec`.
//!
//!   crucible serve --listen 127.0.0.1:7070 --root DIR --key KEY --sandbox dev
//!   crucible serve --backend microvm --root DIR --sandbox dev
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
use crucible::local::LocalBackend;
use crucible::sandbox::{Backend, Output};
use crucible::vm;
use crucible::vm::backend::MicroVmBackend;
use crucible::vm::image::{GuestSpec, KernelSource};
use crucible::vm::qemu::{Accel, VmConfig};
use crucible::wire::ExecRequest;

#[derive(Parser)]
#[command(
    name = "crucible",
    version,
    about = "The crucible wire protocol: a daemon (microVM or local sandboxes), and a client"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve sandboxes: microVMs (`--backend microvm`), or local child
    /// processes (`--backend local`, the default: no isolation, for
    /// development and tests)
    Serve(Box<Serve>),
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
struct Serve {
    /// Where to listen
    #[arg(long, default_value = "127.0.0.1:7070")]
    listen: String,
    /// The state directory: one directory per sandbox (local); the VMs,
    /// the prepared guests and the downloads (microvm)
    #[arg(long)]
    root: PathBuf,
    /// The bearer key clients must send (none: anyone may)
    #[arg(long, env = "CRUCIBLE_KEY")]
    key: Option<String>,
    /// A sandbox to create at start (repeatable); more with `POST /sandboxes`
    #[arg(long = "sandbox", value_name = "ID")]
    sandboxes: Vec<String>,
    /// The largest request body (an exec request, a pushed tar archive),
    /// in MiB; larger ones are answered 413
    #[arg(long = "max-body", value_name = "MIB", default_value_t = 256)]
    max_body_mib: usize,
    /// Seconds a connection has to send a request's head (and a
    /// WebSocket client its exec request) before it is closed
    #[arg(long = "head-timeout", value_name = "SECONDS", default_value_t = 30)]
    head_timeout_s: u64,
    /// What a sandbox is
    #[arg(long, value_enum, default_value = "local")]
    backend: BackendKind,
    #[command(flatten)]
    vm: VmArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum BackendKind {
    /// A directory and child processes: no isolation
    Local,
    /// A qemu microVM per sandbox, reached through its agent
    Microvm,
}

/// The microVM backend's settings.
#[derive(Args)]
#[command(next_help_heading = "MicroVM backend")]
struct VmArgs {
    /// How guest code runs: `kvm`, `tcg` (qemu's translator), or `auto`:
    /// KVM only when a short probe shows guest kernel code runs at
    /// hardware speed
    #[arg(long, value_enum, default_value = "auto")]
    accel: AccelArg,
    /// Each sandbox's memory, in MiB (a create request may ask for another)
    #[arg(long = "memory", value_name = "MIB", default_value_t = 512)]
    memory_mib: u32,
    /// Each sandbox's vCPUs (a create request may ask for another number)
    #[arg(long, default_value_t = 1)]
    vcpus: u32,
    /// A kernel image (vmlinux or an LZ4 bzImage) instead of Debian's cloud
    /// kernel
    #[arg(long, value_name = "PATH")]
    kernel: Option<PathBuf>,
    /// The modules directory (`lib/modules/VERSION`) of `--kernel`, when
    /// its virtio drivers are modules
    #[arg(long = "kernel-modules", value_name = "DIR", requires = "kernel")]
    kernel_modules: Option<PathBuf>,
    /// The guest agent (default: `crucible-agent` beside this program)
    #[arg(long, value_name = "PATH")]
    agent: Option<PathBuf>,
    /// The Othismo runtime put in the guest (default: `othismo-run` beside
    /// this program, when it is there)
    #[arg(long, value_name = "PATH")]
    runtime: Option<PathBuf>,
    /// Seconds a VM has to boot to its agent
    #[arg(long = "boot-timeout", value_name = "SECONDS", default_value_t = 60)]
    boot_timeout_s: u64,
    /// Boot every sandbox from its kernel; without this, sandboxes of the
    /// default size resume from a warm snapshot made (once, then cached)
    /// at start
    #[arg(long = "no-snapshot")]
    no_snapshot: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum AccelArg {
    Auto,
    Kvm,
    Tcg,
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
        Command::Serve(serve) => {
            serve_daemon(*serve).await?;
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
                let mut rx = crucible::client::stdin_chunks();
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

async fn serve_daemon(serve: Serve) -> Result<(), Box<dyn std::error::Error>> {
    let config = Config {
        key: serve.key,
        max_body: serve.max_body_mib.saturating_mul(1 << 20),
        head_timeout: std::time::Duration::from_secs(serve.head_timeout_s),
        first_message_timeout: std::time::Duration::from_secs(serve.head_timeout_s),
    };
    let backend: Arc<dyn Backend> = match serve.backend {
        BackendKind::Local => {
            let backend = LocalBackend::new(&serve.root);
            for s in &serve.sandboxes {
                backend.create(s)?;
            }
            Arc::new(backend)
        }
        BackendKind::Microvm => {
            let backend = microvm(&serve.root, &serve.vm).await?;
            for s in &serve.sandboxes {
                let started = std::time::Instant::now();
                backend.create_default(s).await.map_err(|e| e.reason)?;
                eprintln!(
                    "crucible: sandbox {s} up in {:.2} s",
                    started.elapsed().as_secs_f64()
                );
            }
            Arc::new(backend)
        }
    };
    let listener = tokio::net::TcpListener::bind(&serve.listen).await?;
    eprintln!(
        "listening on {} (sandboxes: {})",
        listener.local_addr()?,
        if serve.sandboxes.is_empty() {
            "none yet".to_string()
        } else {
            serve.sandboxes.join(", ")
        }
    );
    daemon::serve(listener, backend, config).await;
    Ok(())
}

/// The microVM backend: the accelerator chosen (and why, on stderr), the
/// guest prepared.
async fn microvm(
    root: &std::path::Path,
    args: &VmArgs,
) -> Result<MicroVmBackend, Box<dyn std::error::Error>> {
    let beside = |name: &str| {
        std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|d| d.join(name)))
            .filter(|p| p.is_file())
    };
    let agent = args
        .agent
        .clone()
        .or_else(|| beside("crucible-agent"))
        .ok_or("no guest agent: build crucible-agent (it goes beside crucible) or give --agent")?;
    let runtime = args.runtime.clone().or_else(|| beside("othismo-run"));
    let qemu = vm::qemu::find_qemu()?;
    let (accel, why) = match args.accel {
        AccelArg::Kvm => (Accel::Kvm, "asked for with --accel kvm".to_string()),
        AccelArg::Tcg => (Accel::Tcg, "asked for with --accel tcg".to_string()),
        AccelArg::Auto => vm::accel::choose(),
    };
    eprintln!("crucible: accelerator {}: {why}", accel.name());
    let spec = GuestSpec {
        kernel: match &args.kernel {
            Some(image) => KernelSource::Given {
                image: image.clone(),
                modules: args.kernel_modules.clone(),
            },
            None => KernelSource::Debian,
        },
        agent,
        runtime,
        state: root.to_path_buf(),
    };
    let started = std::time::Instant::now();
    let guest = vm::image::prepare(&spec, &mut |step| eprintln!("crucible: {step}"))?;
    eprintln!(
        "crucible: guest {} ready in {:.1} s",
        guest.hash,
        started.elapsed().as_secs_f64()
    );
    let config = VmConfig {
        qemu,
        accel,
        memory_mib: args.memory_mib,
        vcpus: args.vcpus,
        boot_deadline: std::time::Duration::from_secs(args.boot_timeout_s),
    };
    let mut backend = MicroVmBackend::new(guest, config, root.join("vms"));
    if !args.no_snapshot {
        eprintln!("crucible: making the warm snapshot sandboxes start from (once per guest)");
        let took = backend.use_snapshot(root).await?;
        eprintln!("crucible: snapshot ready in {:.1} s", took.as_secs_f64());
    }
    Ok(backend)
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
