//! Warm snapshots: one template VM per guest and size is booted and, once
//! its agent is up, saved with qemu's migration to a file; each
//! new sandbox of that size resumes from the file instead of booting (a
//! fraction of a second instead of seconds under TCG, and less host memory:
//! the kernel's boot work is not redone). After a resume the host gives the
//! guest its clock and fresh randomness (see `qemu::start`), so VMs from one
//! snapshot neither live in its past nor share its random numbers.
//!
//! The file is cached under the state directory, named by everything that
//! makes it valid: the guest's content hash, the size, the accelerator, the
//! machine qemu is asked for (its command line) and the qemu binary (a state saved by one qemu version may not load in
//! another).

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::vm::image::Guest;
use crate::vm::qemu::{self, How, Size, VmConfig};

/// Where the snapshot for `size` is kept.
pub fn path_for(state: &Path, guest: &Guest, cfg: &VmConfig, size: Size) -> PathBuf {
    let qemu_id = std::fs::metadata(&cfg.qemu)
        .map(|m| {
            use std::os::unix::fs::MetadataExt;
            format!("{:x}-{:x}", m.len(), m.mtime())
        })
        .unwrap_or_default();
    state.join("snapshots").join(format!(
        "{}-{}m-{}c-{}-{}-{qemu_id}.vmstate",
        guest.hash,
        size.memory_mib,
        size.vcpus,
        cfg.accel.name(),
        qemu::machine_key(cfg),
    ))
}

/// Makes the snapshot at `path` (unless it is there): how long it took.
pub async fn make(
    guest: &Guest,
    cfg: &VmConfig,
    size: Size,
    path: &Path,
) -> Result<Duration, String> {
    let started = Instant::now();
    if path.exists() {
        return Ok(started.elapsed());
    }
    let parent = path.parent().expect("a snapshot path has a directory");
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let dir = parent.join(format!("template-{}", std::process::id()));
    let mut vm = qemu::start(guest, cfg, size, &dir, How::Template).await?;
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let qmp = dir.join("qmp.sock");
    let tmp_shown = tmp.display().to_string();
    let saved = tokio::task::spawn_blocking(move || save(&qmp, &tmp_shown))
        .await
        .map_err(|e| e.to_string())
        .and_then(|r| r);
    // The template's work is done, saved or not.
    let _ = vm.child().kill().await;
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = saved {
        let _ = std::fs::remove_file(&tmp);
        return Err(format!("saving the template VM: {e}"));
    }
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(started.elapsed())
}

/// Over QMP: migrates the VM's state into `file` (qemu stops it when the
/// migration completes).
fn save(qmp: &Path, file: &str) -> Result<(), String> {
    let stream = UnixStream::connect(qmp).map_err(|e| format!("QMP {}: {e}", qmp.display()))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
    let mut writer = stream;
    // The greeting, then each command's answer (events are skipped).
    let mut greeting = String::new();
    reader.read_line(&mut greeting).map_err(|e| e.to_string())?;
    let mut ask = |cmd: Value| -> Result<Value, String> {
        writeln!(writer, "{cmd}").map_err(|e| e.to_string())?;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 {
                return Err("QMP closed".into());
            }
            let v: Value =
                serde_json::from_str(&line).map_err(|e| format!("QMP said {line}: {e}"))?;
            if let Some(r) = v.get("return") {
                return Ok(r.clone());
            }
            if let Some(e) = v.get("error") {
                return Err(format!("QMP {cmd}: {e}"));
            }
        }
    };
    ask(json!({"execute": "qmp_capabilities"}))?;
    // Migrated while it runs (idle, it converges at once): a state saved
    // from a stopped VM stays stopped where it is loaded, while one saved
    // running starts running there, with no monitor needed to resume it.
    // `cat` writes the file: this qemu alone may spawn (see `qemu::argv`).
    let quoted = file.replace('\'', r"'\''");
    ask(json!({"execute": "migrate", "arguments": {"uri": format!("exec:cat > '{quoted}'")}}))?;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let r = ask(json!({"execute": "query-migrate"}))?;
        match r.get("status").and_then(Value::as_str) {
            Some("completed") => return Ok(()),
            Some("failed") | Some("cancelled") => {
                return Err(format!("the migration {}", r));
            }
            _ if Instant::now() > deadline => return Err("the migration took over 120 s".into()),
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}
