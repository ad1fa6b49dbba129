//! The guest a microVM boots: a kernel and an initramfs, prepared by the
//! daemon itself and cached under its state directory by content hash.
//!
//! - The kernel is Debian's cloud kernel, fetched with `apt-get download`
//!   and unpacked with `dpkg-deb -x` (never installed on the host), or one
//!   given with `--kernel`. qemu's microvm machine boots an uncompressed
//!   (PVH) `vmlinux`; Debian ships an LZ4-compressed bzImage, so the vmlinux
//!   is unpacked from it here.
//! - The initramfs holds the agent as `/init`, the Othismo runtime as
//!   `/bin/othismo-run`, busybox (Debian's static build) for a shell and
//!   the usual commands, the shared libraries the two dynamic binaries
//!   link (as `ldd` lists them), and the kernel's virtio modules, numbered
//!   in the order the agent loads them.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::vm::cpio::Cpio;

/// The virtio modules the agent port needs, in load order (paths under the
/// kernel's `lib/modules/VERSION/kernel/`). A kernel with virtio built in
/// needs none of them.
pub const VIRTIO_MODULES: [&str; 4] = [
    "drivers/virtio/virtio_ring.ko",
    "drivers/virtio/virtio.ko",
    "drivers/virtio/virtio_mmio.ko",
    "drivers/char/virtio_console.ko",
];

/// The busybox applets linked in `/bin`.
const APPLETS: &[&str] = &[
    "sh", "ash", "cat", "echo", "sleep", "ls", "mkdir", "rm", "cp", "mv", "env", "true", "false",
    "pwd", "basename", "dirname", "printf", "head", "tail", "wc", "ps", "kill", "id", "uname",
    "ip", "grep", "sed", "sort", "dd", "test", "[", "timeout", "date", "hostname", "mount", "cmp",
    "od", "stat", "touch", "find", "xargs", "tr", "cut", "seq",
];

/// Where the kernel comes from.
#[derive(Debug, Clone)]
pub enum KernelSource {
    /// Debian's `linux-image-cloud-amd64`, through apt.
    Debian,
    /// A kernel image (vmlinux, or a bzImage to unpack) and, when virtio is
    /// modular in it, the directory holding its modules
    /// (`lib/modules/VERSION`).
    Given {
        image: PathBuf,
        modules: Option<PathBuf>,
    },
}

/// What the guest is made of.
#[derive(Debug, Clone)]
pub struct GuestSpec {
    pub kernel: KernelSource,
    /// The agent binary (`crucible-agent`).
    pub agent: PathBuf,
    /// The Othismo runtime (`othismo-run`), when the guest is to run images.
    pub runtime: Option<PathBuf>,
    /// Where downloads and prepared guests are kept.
    pub state: PathBuf,
}

/// A prepared guest.
#[derive(Debug, Clone)]
pub struct Guest {
    pub vmlinux: PathBuf,
    pub initrd: PathBuf,
    /// The content hash naming the pair (the snapshot cache's key too).
    pub hash: String,
}

type Progress<'a> = &'a mut dyn FnMut(&str);

/// Prepares (or finds in the cache) the guest `spec` describes.
pub fn prepare(spec: &GuestSpec, progress: Progress<'_>) -> Result<Guest, String> {
    std::fs::create_dir_all(&spec.state).map_err(|e| io_error(&spec.state, e))?;
    let (vmlinux, modules) = match &spec.kernel {
        KernelSource::Debian => debian_kernel(&spec.state, progress)?,
        KernelSource::Given { image, modules } => {
            let bytes = std::fs::read(image).map_err(|e| io_error(image, e))?;
            (unpack_vmlinux(&bytes)?, modules.clone())
        }
    };
    let busybox = debian_package(&spec.state, "busybox-static", progress)?.join("bin/busybox");
    let mut cpio = Cpio::default();
    for d in [
        "/bin", "/dev", "/proc", "/sys", "/tmp", "/root", "/etc", "/lib", "/modules",
    ] {
        cpio.dir(d);
    }
    add_binary(&mut cpio, &spec.agent, "/init")?;
    if let Some(rt) = &spec.runtime {
        add_binary(&mut cpio, rt, "/bin/othismo-run")?;
    }
    cpio.file("/bin/busybox", 0o755, &read(&busybox)?);
    for a in APPLETS {
        cpio.symlink(&format!("/bin/{a}"), "busybox");
    }
    if let Some(dir) = &modules {
        for (i, m) in VIRTIO_MODULES.iter().enumerate() {
            let at = dir.join("kernel").join(m);
            // A module that is not there is built in (or not needed).
            if let Ok(bytes) = std::fs::read(&at) {
                let name = Path::new(m)
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy();
                cpio.file(&format!("/modules/{i}-{name}"), 0o644, &bytes);
            }
        }
    }
    let initrd = cpio.finish();
    let mut h = Sha256::new();
    h.update((vmlinux.len() as u64).to_le_bytes());
    h.update(&vmlinux);
    h.update(&initrd);
    let hash: String = h.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = spec.state.join("guests").join(&hash);
    let guest = Guest {
        vmlinux: dir.join("vmlinux"),
        initrd: dir.join("initrd"),
        hash,
    };
    if !guest.initrd.exists() {
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        write_atomically(&guest.vmlinux, &vmlinux)?;
        write_atomically(&guest.initrd, &initrd)?;
    }
    Ok(guest)
}

fn io_error(p: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", p.display())
}

fn read(p: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(p).map_err(|e| io_error(p, e))
}

fn write_atomically(p: &Path, bytes: &[u8]) -> Result<(), String> {
    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(|e| io_error(&tmp, e))?;
    std::fs::rename(&tmp, p).map_err(|e| io_error(p, e))
}

/// Puts a binary at `at`, with the shared libraries it links at their own
/// paths (once each).
fn add_binary(cpio: &mut Cpio, binary: &Path, at: &str) -> Result<(), String> {
    cpio.file(at, 0o755, &stripped(binary)?);
    for lib in shared_libraries(binary)? {
        let shown = lib.to_string_lossy().into_owned();
        if cpio.has(&shown) {
            continue;
        }
        let mut dir = PathBuf::from("/");
        if let Some(parent) = lib.parent() {
            for c in parent.components().skip(1) {
                dir.push(c);
                let d = dir.to_string_lossy().into_owned();
                if !cpio.has(&d) {
                    cpio.dir(&d);
                }
            }
        }
        // The library itself, not a link to it: the guest has no other copy.
        cpio.file(&shown, 0o755, &read(&lib)?);
    }
    Ok(())
}

/// A binary's bytes without its symbols and debug information (a debug
/// build of the runtime is mostly that, and the guest holds it in memory),
/// when `strip` is there to do it.
fn stripped(binary: &Path) -> Result<Vec<u8>, String> {
    let tmp = std::env::temp_dir().join(format!(
        "crucible-strip-{}-{}",
        std::process::id(),
        binary.file_name().unwrap_or_default().to_string_lossy()
    ));
    let done = Command::new("strip")
        .arg("-o")
        .arg(&tmp)
        .arg(binary)
        .output()
        .is_ok_and(|o| o.status.success());
    let bytes = if done { std::fs::read(&tmp).ok() } else { None };
    let _ = std::fs::remove_file(&tmp);
    match bytes {
        Some(b) => Ok(b),
        None => read(binary),
    }
}

/// What `ldd` says `binary` loads (nothing for a static binary).
fn shared_libraries(binary: &Path) -> Result<Vec<PathBuf>, String> {
    let out = Command::new("ldd")
        .arg(binary)
        .output()
        .map_err(|e| format!("running ldd on {}: {e}", binary.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut libs = Vec::new();
    for line in text.lines() {
        // `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)`, or the
        // loader alone: `/lib64/ld-linux-x86-64.so.2 (0x...)`.
        let path = match line.split_once("=>") {
            Some((_, rest)) => rest.trim().split(' ').next().unwrap_or(""),
            None => line.trim().split(' ').next().unwrap_or(""),
        };
        if path.starts_with('/') {
            libs.push(PathBuf::from(path));
        }
    }
    Ok(libs)
}

/// A Debian package unpacked under the state directory (downloaded once).
fn debian_package(state: &Path, package: &str, progress: Progress<'_>) -> Result<PathBuf, String> {
    let debs = state.join("debs");
    let dir = debs.join(package);
    if dir.join(".unpacked").exists() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&debs).map_err(|e| io_error(&debs, e))?;
    progress(&format!("fetching Debian's {package} (apt-get download)"));
    let out = Command::new("apt-get")
        .args(["download", package])
        .current_dir(&debs)
        .output()
        .map_err(|e| format!("running apt-get download {package}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "apt-get download {package} failed ({}): {} (is `apt-get update` done?)",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let deb = std::fs::read_dir(&debs)
        .map_err(|e| io_error(&debs, e))?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            name.starts_with(&format!("{package}_")) && name.ends_with(".deb")
        })
        .ok_or_else(|| {
            format!(
                "apt-get download {package} left no .deb in {}",
                debs.display()
            )
        })?;
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new("dpkg-deb")
        .arg("-x")
        .arg(&deb)
        .arg(&dir)
        .output()
        .map_err(|e| format!("running dpkg-deb: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "dpkg-deb -x {} failed: {}",
            deb.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    std::fs::write(dir.join(".unpacked"), "").map_err(|e| io_error(&dir, e))?;
    Ok(dir)
}

/// Debian's cloud kernel: the vmlinux and its modules directory.
fn debian_kernel(
    state: &Path,
    progress: Progress<'_>,
) -> Result<(Vec<u8>, Option<PathBuf>), String> {
    // The meta package names the versioned one, which holds the files.
    let out = Command::new("apt-cache")
        .args(["depends", "linux-image-cloud-amd64"])
        .output()
        .map_err(|e| format!("running apt-cache: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let package = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Depends: "))
        .find(|p| p.starts_with("linux-image-"))
        .ok_or_else(|| {
            "apt-cache knows no linux-image-cloud-amd64: run `apt-get update`, or give a kernel with --kernel"
                .to_string()
        })?
        .to_string();
    let dir = debian_package(state, &package, progress)?;
    let version = package.trim_start_matches("linux-image-");
    let bzimage = dir.join("boot").join(format!("vmlinuz-{version}"));
    let vmlinux_cache = dir.join("vmlinux");
    let vmlinux = match std::fs::read(&vmlinux_cache) {
        Ok(v) => v,
        Err(_) => {
            let v = unpack_vmlinux(&read(&bzimage)?)?;
            write_atomically(&vmlinux_cache, &v)?;
            v
        }
    };
    Ok((vmlinux, Some(dir.join("lib/modules").join(version))))
}

/// The ELF `vmlinux` in a kernel image: the image itself when it is one,
/// else the LZ4 (legacy format) stream a bzImage carries, unpacked.
pub fn unpack_vmlinux(image: &[u8]) -> Result<Vec<u8>, String> {
    if image.starts_with(b"\x7fELF") {
        return Ok(image.to_vec());
    }
    const MAGIC: [u8; 4] = [0x02, 0x21, 0x4c, 0x18];
    const BLOCK: usize = 8 << 20;
    let start = image
        .windows(4)
        .position(|w| w == MAGIC)
        .ok_or("the kernel image is neither an ELF vmlinux nor an LZ4-compressed bzImage")?;
    let mut at = start + 4;
    let mut out = Vec::new();
    let mut block = vec![0u8; BLOCK];
    // Blocks until the stream ends: the kernel's build appends its size
    // and more after the last block, which do not read as a block.
    while at + 4 <= image.len() {
        let size = u32::from_le_bytes(image[at..at + 4].try_into().expect("4 bytes")) as usize;
        if size == 0 || size > image.len() - at - 4 || size > BLOCK + BLOCK / 255 + 16 {
            break;
        }
        match lz4_flex::block::decompress_into(&image[at + 4..at + 4 + size], &mut block) {
            Ok(n) => out.extend_from_slice(&block[..n]),
            Err(_) => break,
        }
        at += 4 + size;
    }
    if !out.starts_with(b"\x7fELF") {
        return Err("the kernel image's LZ4 stream did not unpack to an ELF vmlinux".into());
    }
    Ok(out)
}
