//! The microVM backend: each sandbox a VM ([`qemu`](crate::vm::qemu)),
//! reached only through its agent. A sandbox whose VM stopped stays listed
//! as dead (with the reason) until it is deleted.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::failure::FailureKind;
use crate::sandbox::{
    Backend, Later, LifecycleError, NewSandbox, Sandbox, SandboxInfo, check_id, fresh_id,
};
use crate::vm::image::Guest;
use crate::vm::qemu::{self, How, Size, Vm, VmConfig};
use crate::vm::snapshot;

/// The most memory and vCPUs one sandbox may ask for.
pub const MAX_MEMORY_MIB: u32 = 16 * 1024;
pub const MAX_VCPUS: u32 = 16;

pub struct MicroVmBackend {
    guest: Guest,
    config: VmConfig,
    /// A saved VM of the default size that new sandboxes of that size
    /// resume from, when there is one.
    snapshot: Option<PathBuf>,
    /// Where each VM's directory (socket, console log) goes.
    root: PathBuf,
    vms: Mutex<BTreeMap<String, Entry>>,
}

enum Entry {
    Booting,
    Up(Box<Vm>),
}

impl MicroVmBackend {
    /// The backend's VMs live in directories under `root`; what an earlier
    /// daemon left there (its VMs died with it) is cleared.
    pub fn new(guest: Guest, config: VmConfig, root: impl Into<PathBuf>) -> MicroVmBackend {
        let root = root.into();
        let _ = std::fs::remove_dir_all(&root);
        MicroVmBackend {
            guest,
            config,
            snapshot: None,
            root,
            vms: Mutex::new(BTreeMap::new()),
        }
    }

    /// Makes (or finds in `state`) the snapshot that sandboxes of the
    /// default size start from: how long it took.
    pub async fn use_snapshot(
        &mut self,
        state: &std::path::Path,
    ) -> Result<std::time::Duration, String> {
        let size = self.default_size();
        let path = snapshot::path_for(state, &self.guest, &self.config, size);
        let took = snapshot::make(&self.guest, &self.config, size, &path).await?;
        self.snapshot = Some(path);
        Ok(took)
    }

    /// The least memory a VM of this guest boots in: its initramfs is in
    /// memory twice while it unpacks, with the kernel beside it.
    pub fn least_memory_mib(&self) -> u32 {
        let initrd = std::fs::metadata(&self.guest.initrd).map_or(0, |m| m.len());
        u32::try_from((initrd * 3) >> 20)
            .unwrap_or(u32::MAX)
            .saturating_add(96)
    }

    fn default_size(&self) -> Size {
        Size {
            memory_mib: self.config.memory_mib,
            vcpus: self.config.vcpus,
        }
    }

    /// Boots sandbox `id` with the default size (for `--sandbox` at start).
    pub async fn create_default(&self, id: &str) -> Result<SandboxInfo, LifecycleError> {
        Backend::create(
            self,
            NewSandbox {
                id: Some(id.to_string()),
                ..NewSandbox::default()
            },
        )
        .await
    }
}

impl Backend for MicroVmBackend {
    fn sandbox(&self, id: &str) -> Option<Arc<dyn Sandbox>> {
        match crate::lock(&self.vms).get(id)? {
            Entry::Up(vm) => Some(Arc::new(vm.link.clone())),
            // A VM still booting is not there yet.
            Entry::Booting => None,
        }
    }

    fn create(&self, spec: NewSandbox) -> Later<'_, SandboxInfo> {
        Box::pin(async move {
            let id = spec.id.unwrap_or_else(fresh_id);
            check_id(&id).map_err(|why| LifecycleError::new(FailureKind::Invalid, why))?;
            let size = Size {
                memory_mib: spec.memory_mib.unwrap_or(self.config.memory_mib),
                vcpus: spec.vcpus.unwrap_or(self.config.vcpus),
            };
            let least = self.least_memory_mib();
            if !(least..=MAX_MEMORY_MIB).contains(&size.memory_mib) {
                return Err(LifecycleError::new(
                    FailureKind::Invalid,
                    format!(
                        "memory_mib must be {least} to {MAX_MEMORY_MIB}, not {} (the guest's \
                         initramfs unpacks into its memory)",
                        size.memory_mib
                    ),
                ));
            }
            if !(1..=MAX_VCPUS).contains(&size.vcpus) {
                return Err(LifecycleError::new(
                    FailureKind::Invalid,
                    format!("vcpus must be 1 to {MAX_VCPUS}, not {}", size.vcpus),
                ));
            }
            {
                let mut vms = crate::lock(&self.vms);
                if vms.contains_key(&id) {
                    return Err(LifecycleError::new(
                        FailureKind::Conflict,
                        format!("sandbox `{id}` exists"),
                    ));
                }
                vms.insert(id.clone(), Entry::Booting);
            }
            let dir = self.root.join(&id);
            let how = match &self.snapshot {
                Some(p) if size == self.default_size() => How::Restore(p),
                _ => How::Cold,
            };
            let booted = qemu::start(&self.guest, &self.config, size, &dir, how).await;
            let mut vms = crate::lock(&self.vms);
            match booted {
                Ok(mut vm) => match vms.get_mut(&id) {
                    Some(e) => {
                        let info = vm.info(&id);
                        *e = Entry::Up(Box::new(vm));
                        Ok(info)
                    }
                    // Deleted while it booted: it goes (dropping a Vm kills qemu).
                    None => Err(LifecycleError::new(
                        FailureKind::Conflict,
                        format!("sandbox `{id}` was deleted while it started"),
                    )),
                },
                Err(why) => {
                    vms.remove(&id);
                    Err(LifecycleError::new(
                        FailureKind::Internal,
                        format!("sandbox `{id}` did not start: {why}"),
                    ))
                }
            }
        })
    }

    fn info(&self, id: &str) -> Option<SandboxInfo> {
        let mut vms = crate::lock(&self.vms);
        Some(match vms.get_mut(id)? {
            Entry::Booting => SandboxInfo {
                state: "starting".into(),
                ..SandboxInfo::running(id)
            },
            Entry::Up(v) => v.info(id),
        })
    }

    fn delete(&self, id: &str) -> Later<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            let entry = crate::lock(&self.vms).remove(&id);
            match entry {
                None => Err(LifecycleError::new(
                    FailureKind::NotFound,
                    format!("no sandbox `{id}`"),
                )),
                Some(Entry::Up(vm)) => {
                    vm.stop().await;
                    Ok(())
                }
                // The boot sees its entry gone and stops the VM.
                Some(Entry::Booting) => Ok(()),
            }
        })
    }
}
