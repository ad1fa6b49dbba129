//! Warm snapshots: one template VM per guest and size is booted and, once
//! its agent is up, saved with qemu's migration to a file; each
//! new sandbox of that size resumes from the file instead of booting (a
//! fraction of a second instead of seconds under TCG, and less host memory:
//! the kernel's boot work is not redone). After a resume the host gives the
//! guest its clock and fresh randomness (see `qemu::start`), so VMs from one
//! snapshot neither live in its past nor share its random numbers.
//!
//! A snapshot is two files: the guest's memory (the RAM file, which the
//! template VM runs in) and the state of its devices (the state file, which
//! the migration writes, leaving the memory out). Resumed VMs map the RAM
//! file privately, so the pages of the kernel and the initramfs that every
//! VM holds are in the host's memory once, however many VMs run; a page a
//! VM writes becomes its own copy.
//!
//! The files are cached under the state directory, named by everything
//! that makes them valid: the guest's content hash, the size, the
//! accelerator, the machine qemu is asked for (its command line) and the
//! qemu binary (a state saved by one qemu version may not load in another).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::vm::image::Guest;
pub use crate::vm::qemu::ram_of;
use crate::vm::qemu::{self, How, Size, VmConfig};
use crate::vm::qmp::Qmp;

/// How a snapshot is kept, in its file names: a state file of the devices
/// beside a RAM file of the guest's memory. Snapshots kept any other way
/// (older daemons saved the memory inside the state file) are not used.
const FORMAT: &str = "shared-ram";

/// Where the snapshot for `size` is kept (its state file).
pub fn path_for(state: &Path, guest: &Guest, cfg: &VmConfig, size: Size) -> PathBuf {
    let qemu_id = std::fs::metadata(&cfg.qemu)
        .map(|m| {
            use std::os::unix::fs::MetadataExt;
            format!("{:x}-{:x}", m.len(), m.mtime())
        })
        .unwrap_or_default();
    state.join("snapshots").join(format!(
        "{}-{}m-{}c-{}-{}-{qemu_id}.{FORMAT}.vmstate",
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
    if path.exists() && ram_of(path).exists() {
        return Ok(started.elapsed());
    }
    let parent = path.parent().expect("a snapshot path has a directory");
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let dir = parent.join(format!("template-{}", std::process::id()));
    let ram_tmp = path.with_extension(format!("ram-tmp{}", std::process::id()));
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    // Whatever happens below, neither file is left half made: on success
    // both have been renamed away before this goes.
    let _unfinished = Unfinished([ram_tmp.clone(), tmp.clone()]);
    let mut vm = qemu::start(guest, cfg, size, &dir, How::Template(&ram_tmp)).await?;
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
        return Err(format!("saving the template VM: {e}"));
    }
    // Most of the guest's memory is zeros (its free pages are zeroed):
    // left as holes, it takes neither disk nor page cache until read.
    if let Err(e) = punch_zero_holes(&ram_tmp) {
        eprintln!("crucible: keeping {} whole: {e}", ram_tmp.display());
    }
    // The RAM file first: the state file's presence says the pair is whole.
    // A VM still resumed from an earlier pair keeps its mapping of the
    // replaced file.
    let ram = ram_of(path);
    std::fs::rename(&ram_tmp, &ram).map_err(|e| format!("{}: {e}", ram.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(started.elapsed())
}

/// The files a snapshot is written to before it is renamed into place,
/// removed when it is dropped (those already renamed are not there).
struct Unfinished([PathBuf; 2]);

impl Drop for Unfinished {
    fn drop(&mut self) {
        for p in &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Over QMP: migrates the VM's state into `file` (qemu stops it when the
/// migration completes).
fn save(qmp: &Path, file: &str) -> Result<(), String> {
    let mut qmp = Qmp::connect(qmp, Duration::from_secs(10))?;
    // The memory is in the RAM file already; the state file gets the rest.
    qmp.ignore_shared_memory()?;
    // Migrated while it runs (idle, it converges at once): a state saved
    // from a stopped VM stays stopped where it is loaded, while one saved
    // running starts running there, with no monitor needed to resume it.
    // `cat` writes the file: this qemu alone may spawn (see `qemu::argv`).
    let quoted = file.replace('\'', r"'\''");
    qmp.ask(json!({"execute": "migrate", "arguments": {"uri": format!("exec:cat > '{quoted}'")}}))?;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let r = qmp.ask(json!({"execute": "query-migrate"}))?;
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

/// Turns every all-zero 64 KiB stretch of `file` into a hole (its size
/// kept); where the file system cannot, the file stays as it is.
fn punch_zero_holes(file: &Path) -> std::io::Result<()> {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    const STRETCH: usize = 64 << 10;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(file)?;
    let mut buf = vec![0u8; STRETCH];
    let mut at: i64 = 0;
    loop {
        let mut n = 0;
        while n < STRETCH {
            match f.read(&mut buf[n..])? {
                0 => break,
                k => n += k,
            }
        }
        if n == 0 {
            return Ok(());
        }
        if buf[..n].iter().all(|&b| b == 0) {
            // SAFETY: a plain system call on a descriptor we own.
            let r = unsafe {
                libc::fallocate(
                    f.as_raw_fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    at,
                    n as i64,
                )
            };
            if r != 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
        at += n as i64;
    }
}
