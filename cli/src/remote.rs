//! `othc run IMAGE --on crucible://HOST:PORT[/SANDBOX]`: the bundle is
//! pushed to a sandbox on a crucible host and run there by `othismo-run`
//! over an interactive exec (the WebSocket transport), with stdin, stdout,
//! stderr and the exit status passed through. Without SANDBOX a sandbox
//! is created for the run (on a microVM host, a VM boots) and deleted
//! after it, however the run ends.

use std::io::Write;
use std::path::Path;

use crucible::client::{Client, ClientError, Transport};
use crucible::sandbox::{NewSandbox, Output};
use crucible::wire::ExecRequest;
use othismo_runtime::Limits;

use super::{EXIT_ERRORS, EXIT_USAGE};

/// Where `--on` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// `HOST:PORT`.
    pub addr: String,
    pub sandbox: Option<String>,
}

/// Parses `crucible://HOST:PORT[/SANDBOX]`.
pub fn parse_host(s: &str) -> Result<Host, String> {
    let rest = s.strip_prefix("crucible://").ok_or_else(|| {
        format!("`{s}` is not a crucible host: write crucible://HOST:PORT or crucible://HOST:PORT/SANDBOX")
    })?;
    let (addr, sandbox) = match rest.split_once('/') {
        Some((a, "")) => (a, None),
        Some((a, id)) => (a, Some(id.to_string())),
        None => (rest, None),
    };
    let port_ok = addr
        .rsplit_once(':')
        .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok());
    if !port_ok {
        return Err(format!(
            "`{s}`: the host needs a port (crucible://HOST:PORT)"
        ));
    }
    if let Some(id) = &sandbox {
        crucible::sandbox::check_id(id)?;
    }
    Ok(Host {
        addr: addr.to_string(),
        sandbox,
    })
}

/// Runs bundle `bundle` on `host`: the run's exit status.
pub fn run_on(host: &Host, key: Option<String>, bundle: &Path, limits: &Limits, trace: bool) -> u8 {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let c = Client::new(&host.addr, key);
    rt.block_on(async {
        let shown = format!("crucible://{}", host.addr);
        let (id, ours) = match &host.sandbox {
            Some(id) => match c.info(id).await {
                Ok(info) if info.state == "running" => (id.clone(), false),
                Ok(info) => {
                    eprintln!(
                        "error: sandbox `{id}` on {shown} is {}{}",
                        info.state,
                        info.reason.map(|r| format!(": {r}")).unwrap_or_default()
                    );
                    return EXIT_USAGE;
                }
                Err(e) => return failed(&shown, &format!("sandbox `{id}`"), e),
            },
            None => {
                eprintln!("othc: creating a sandbox on {shown}");
                match c.create(&NewSandbox::default()).await {
                    Ok(info) => (info.id, true),
                    Err(e) => return failed(&shown, "creating a sandbox", e),
                }
            }
        };
        let status = push_and_run(&c, &shown, &id, bundle, limits, trace).await;
        if ours && let Err(e) = c.delete(&id).await {
            eprintln!("warning: deleting sandbox `{id}` on {shown}: {e}");
        }
        status
    })
}

/// Says what failed on the host, in words a user can act on.
fn failed(host: &str, what: &str, e: ClientError) -> u8 {
    match e {
        ClientError::Http { status: 401, error } => {
            eprintln!("error: {host} refused the key ({error}): give it with --key or CRUCIBLE_KEY")
        }
        ClientError::Http { status: 404, error } => eprintln!("error: {host}: {what}: {error}"),
        ClientError::Http { status, error } => {
            eprintln!("error: {host}: {what} failed ({status}): {error}")
        }
        other => eprintln!("error: cannot reach {host} ({what}): {other}"),
    }
    EXIT_USAGE
}

/// The bundle at `bundle`, its file name and the archive it is pushed in;
/// a usage error (said) when it cannot be read.
fn packed(bundle: &Path) -> Result<(String, Vec<u8>), u8> {
    let bytes = std::fs::read(bundle).map_err(|e| {
        eprintln!("error: cannot read `{}`: {e}", bundle.display());
        EXIT_USAGE
    })?;
    let name = bundle
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "image.othimg".into());
    let tar = pack(&name, &bytes).map_err(|e| {
        eprintln!("error: packing the bundle: {e}");
        EXIT_USAGE
    })?;
    Ok((name, tar))
}

async fn push_and_run(
    c: &Client,
    host: &str,
    id: &str,
    bundle: &Path,
    limits: &Limits,
    trace: bool,
) -> u8 {
    let (name, tar) = match packed(bundle) {
        Ok(p) => p,
        Err(status) => return status,
    };
    let dest = "/run/othc";
    if let Err(e) = c.push(id, dest, tar).await {
        return failed(host, &format!("pushing the bundle to sandbox `{id}`"), e);
    }
    let mut cmd = vec![
        "othismo-run".to_string(),
        format!("{dest}/{name}"),
        format!("--code={dest}/code"),
    ];
    cmd.extend(limits.to_args());
    if trace {
        cmd.push("--trace".into());
    }
    let mut session = match c
        .exec(id, &ExecRequest::new(cmd), Transport::Websocket)
        .await
    {
        Ok(s) => s,
        Err(e) => return failed(host, &format!("starting the run in sandbox `{id}`"), e),
    };
    let mut rx = crucible::client::stdin_chunks();
    let mut open = true;
    loop {
        tokio::select! {
            chunk = rx.recv(), if open => {
                let sent = match chunk {
                    Some(Some(b)) => session.stdin(&b).await,
                    _ => {
                        open = false;
                        session.close_stdin().await
                    }
                };
                if let Err(e) = sent {
                    return failed(host, "sending stdin", e);
                }
            }
            out = session.next() => match out {
                Some(Ok(Output::Stdout(b))) => {
                    let mut o = std::io::stdout().lock();
                    let _ = o.write_all(&b).and_then(|()| o.flush());
                }
                Some(Ok(Output::Stderr(b))) => {
                    let mut o = std::io::stderr().lock();
                    let _ = o.write_all(&b).and_then(|()| o.flush());
                }
                Some(Ok(Output::Exit(r))) => {
                    if let Some(why) = r.error {
                        eprintln!("error: the run in sandbox `{id}` on {host} was lost: {why}");
                        return EXIT_ERRORS;
                    }
                    return u8::try_from(r.exit_code).unwrap_or(EXIT_ERRORS);
                }
                Some(Err(e)) => return failed(host, &format!("the run in sandbox `{id}`"), e),
                None => {
                    eprintln!("error: {host}: the run's stream ended without an exit");
                    return EXIT_ERRORS;
                }
            },
        }
    }
}

/// The push: the bundle, and beside it in `code/` each of its modules
/// compiled here (the host compiles far faster than a guest under
/// emulation; see `othismo_runtime::code`).
fn pack(name: &str, bundle: &[u8]) -> Result<Vec<u8>, String> {
    let (_, modules) = othc::bundle::read(bundle)?;
    let mut tar = tar::Builder::new(Vec::new());
    let mut add = |path: &str, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        tar.append_data(&mut h, path, data)
            .map_err(|e| e.to_string())
    };
    add(name, bundle)?;
    eprintln!(
        "othc: compiling {} module(s) for the host's guests",
        modules.len()
    );
    for (module, wasm) in &modules {
        let code =
            othismo_runtime::code::precompile(wasm).map_err(|e| format!("`{module}`: {e}"))?;
        add(
            &format!("code/{}", othismo_runtime::code::file_name(wasm)),
            &code,
        )?;
    }
    tar.into_inner().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_parse_and_bad_ones_say_what_to_write() {
        assert_eq!(
            parse_host("crucible://127.0.0.1:7070").unwrap(),
            Host {
                addr: "127.0.0.1:7070".into(),
                sandbox: None
            }
        );
        assert_eq!(
            parse_host("crucible://h:1/dev").unwrap().sandbox.as_deref(),
            Some("dev")
        );
        assert!(
            parse_host("http://h:1")
                .unwrap_err()
                .contains("crucible://HOST:PORT")
        );
        assert!(parse_host("crucible://h").unwrap_err().contains("port"));
        assert!(
            parse_host("crucible://h:1/a/b")
                .unwrap_err()
                .contains("sandbox id")
        );
    }
}
