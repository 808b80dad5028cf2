//! The kernel's Landlock, asked once: which ABI it offers, and whether that is enough to
//! confine what the doors run (files, TCP and signals: ABI 6 or later).

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The first ABI with everything a confined run is denied: files (1-3, 5), TCP (4) and
/// signals to processes outside the run (6).
pub const CONFINES_FROM: u32 = 6;

/// A ceiling below the kernel's, set once at start (`assentd --landlock-abi`): a daemon that
/// must behave as on an older kernel (tests, a machine whose doors run elsewhere).
static CEILING: AtomicU32 = AtomicU32::new(u32::MAX);

/// Lowers the ABI the daemon acts on to at most `abi`.
pub fn limit(abi: u32) {
    CEILING.store(abi, Ordering::Relaxed);
}

/// The Landlock ABI the daemon acts on: the kernel's, under any ceiling; 0 without Landlock.
pub fn abi() -> u32 {
    static KERNEL: OnceLock<u32> = OnceLock::new();
    (*KERNEL.get_or_init(kernel_abi)).min(CEILING.load(Ordering::Relaxed))
}

/// The kernel can confine a run.
pub fn confines() -> bool {
    abi() >= CONFINES_FROM
}

/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`: the ABI version, or
/// an error where the kernel has no Landlock, it is off, or a filter forbids the call.
#[allow(unsafe_code)]
fn kernel_abi() -> u32 {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: with a null attribute pointer and size 0 the kernel reads no memory; the call
    // only returns the ABI version (or -1 and errno). No pointer outlives the call.
    let version = unsafe {
        nix::libc::syscall(
            nix::libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(version).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_ceiling_only_lowers() {
        let kernel = super::abi();
        super::limit(u32::MAX);
        assert_eq!(super::abi(), kernel);
    }
}
