//! What a confined run may do to a terminal, and which terminal is its own. A seccomp filter
//! refuses the two `ioctl`s that make a terminal type: `TIOCSTI` (push bytes into a terminal's
//! input, for whatever reads it next, the person's shell among them) and `TIOCLINUX` (the
//! console's selection paste). A confined run has no controlling terminal (`cli/child.rs`; a
//! shell confined in place that leads its session on the terminal of its own streams keeps that
//! one, `controlling_is`), which is all an ordinary user needs for the kernel to refuse both on
//! any other terminal; root keeps `CAP_SYS_ADMIN`, which lets it push into any terminal it holds
//! a descriptor of, such as the standard streams a door on a terminal passes on. Landlock cannot
//! say it: its `ioctl` right is checked when a file is opened, never on a descriptor inherited
//! from before the domain. As Flatpak and bubblewrap do.
//!
//! The filter is the door's and every process it starts (seccomp filters are inherited and
//! cannot be removed; `no_new_privs` is set already, for Landlock). Other architectures'
//! system calls (x32's, or a 32-bit one on x86-64) are refused whole.

use std::path::{Path, PathBuf};

use nix::libc;

/// `AUDIT_ARCH_*` of this build's architecture, and the number of `ioctl` on it.
#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7;

/// The x32 system calls' bit: on x86-64 they share the architecture's number.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// Offsets in `struct seccomp_data`: the call's number, the architecture, and the low half of
/// the second argument (the `ioctl` request: the kernel reads it as 32 bits).
const NR: u32 = 0;
const ARCH_AT: u32 = 4;
const ARG1_LOW: u32 = 16 + 8;

fn statement(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
        jt,
        jf,
        k,
    }
}

/// Installs the filter on this thread (a door and bash have one) and so on what it starts.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn refuse_terminal_typing() -> Result<(), String> {
    let load = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
    let allow = statement(libc::BPF_RET | libc::BPF_K, libc::SECCOMP_RET_ALLOW);
    let refuse = statement(
        libc::BPF_RET | libc::BPF_K,
        libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
    );
    let ioctl = libc::SYS_ioctl as u32;
    let at_least = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    // A jump's offsets count statements skipped after it.
    let mut program = vec![
        /* 0 */ statement(load, ARCH_AT),
        /* 1 */ jump(ARCH, 1, 0), // this architecture: on to 3
        /* 2 */ refuse,
        /* 3 */ statement(load, NR),
        /* 4 */
        libc::sock_filter {
            code: at_least,
            jt: 5, // x32: to 10
            jf: 0,
            k: X32_SYSCALL_BIT,
        },
        /* 5 */ jump(ioctl, 0, 3), // not ioctl: to 9
        /* 6 */ statement(load, ARG1_LOW),
        /* 7 */ jump(libc::TIOCSTI as u32, 2, 0), // to 10
        /* 8 */ jump(libc::TIOCLINUX as u32, 1, 0), // to 10
        /* 9 */ allow,
        /* 10 */ refuse,
    ];
    let filter = libc::sock_fprog {
        len: u16::try_from(program.len()).map_err(|_| "filter too long")?,
        filter: program.as_mut_ptr(),
    };
    // SAFETY: `filter` points at `program`, which lives until the call returns; the kernel
    // copies it.
    let done = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &filter as *const libc::sock_fprog,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(format!("seccomp: {}", std::io::Error::last_os_error()))
    }
}

/// Installs the filter: none on this architecture.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn refuse_terminal_typing() -> Result<(), String> {
    Err("no terminal filter on this architecture".into())
}

/// Gives up the door's controlling terminal, so that what it starts has none: `TIOCNOTTY`,
/// which for a process that leads no session clears its own terminal and touches nothing else.
/// The command then stays in the door's process group (an agent that ends its tool by killing
/// the group reaches it; Ctrl-Z stops both). False when that cannot be done: the door leads its
/// session (giving the terminal up would hang up the session's foreground), or whether it has a
/// terminal cannot be told; the command then needs a session of its own.
pub fn give_up_terminal() -> bool {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    use std::os::fd::AsRawFd;
    if nix::unistd::getsid(None).ok() == Some(nix::unistd::getpid()) {
        return false;
    }
    let flags = OFlag::O_RDWR | OFlag::O_NOCTTY | OFlag::O_CLOEXEC;
    match open("/dev/tty", flags, Mode::empty()) {
        // No controlling terminal to give up.
        Err(nix::errno::Errno::ENXIO) => true,
        Err(_) => false,
        Ok(tty) => {
            // SAFETY: `tty` is an open descriptor owned here; TIOCNOTTY takes no argument.
            let done = unsafe { libc::ioctl(tty.as_raw_fd(), libc::TIOCNOTTY) };
            done == 0
        }
    }
}

/// Whether this process's controlling terminal is `own`, the terminal on its standard streams
/// (`own_terminal`): `TIOCGSID` answers only on the caller's controlling terminal (or a
/// multiplexer's side, which `own` never is), with its session, which must be this one.
/// A shell that leads its session on a terminal of its own (an agent that runs each call on a
/// pseudo-terminal it made) may keep it: the run may write there anyway, and the seccomp filter
/// refuses the typing the terminal would otherwise allow. False when there is none, or it is
/// another (the person's, with the streams elsewhere).
pub fn controlling_is(own: &Path) -> bool {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    use std::os::fd::AsRawFd;
    let flags = OFlag::O_RDONLY | OFlag::O_NOCTTY | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let Ok(terminal) = open(own, flags, Mode::empty()) else {
        return false;
    };
    let mut session: libc::pid_t = 0;
    // SAFETY: `terminal` is an open descriptor owned here; TIOCGSID writes one pid_t.
    let asked = unsafe { libc::ioctl(terminal.as_raw_fd(), libc::TIOCGSID, &mut session) };
    asked == 0 && nix::unistd::getsid(None).is_ok_and(|sid| sid.as_raw() == session)
}

/// The terminal on the standard streams, when there is one: the run may write to its own.
/// Asked of the descriptor first (one `ioctl`): an agent's run has pipes there, and reading
/// `/proc` for each would cost more than the rest of the door's work after the reply.
pub fn own_terminal() -> Option<PathBuf> {
    use std::io::IsTerminal;
    [2, 1, 0].into_iter().find_map(|fd| {
        let terminal = match fd {
            0 => std::io::stdin().is_terminal(),
            1 => std::io::stdout().is_terminal(),
            _ => std::io::stderr().is_terminal(),
        };
        if !terminal {
            return None;
        }
        let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
        a_pty(&link).then_some(link)
    })
}

/// `/dev/pts/N`: a terminal's own side, never the multiplexer `/dev/pts/ptmx` (opening it
/// makes new terminals) or anything else below.
fn a_pty(path: &Path) -> bool {
    path.strip_prefix("/dev/pts").ok().is_some_and(|rest| {
        let name = rest.as_os_str().as_encoded_bytes();
        !name.is_empty() && name.iter().all(u8::is_ascii_digit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_terminals_own_side_is_its_terminal() {
        for (path, pty) in [
            ("/dev/pts/0", true),
            ("/dev/pts/17", true),
            ("/dev/pts/ptmx", false),
            ("/dev/pts/", false),
            ("/dev/pts/1/x", false),
            ("/dev/pts/../tty", false),
            ("/dev/tty1", false),
        ] {
            assert_eq!(a_pty(Path::new(path)), pty, "{path}");
        }
    }
}
