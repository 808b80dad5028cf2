//! Starting the command: `clone(CLONE_VM | CLONE_VFORK)` and `execve`, as `posix_spawn` does,
//! without the part of it a door does not need.
//!
//! glibc's `posix_spawn` child shares the parent's memory, so before it unblocks signals it
//! sets every signal that might have a handler back to its default: it asks for all 64 actions
//! and sets those that have one, about 120 system calls on every confined run (~30 µs here, a
//! tenth of what confinement adds). A door installs no signal handler (its own `main` skips
//! the standard library's start-up, which is what installs them; it hears signals on a
//! signalfd), so no handler can run in the child, and the only action to change is SIGPIPE's,
//! set back to its default as the door always did. Everything the child touches is built
//! before the clone; the child only makes system calls (no allocation, no lock, no panic) and
//! reports an `execve` that failed through memory the parent reads after it resumes.

use std::ffi::{CString, c_int, c_void};
use std::sync::atomic::{AtomicI32, Ordering};

use nix::libc;
use nix::sys::signal::SigSet;
use nix::unistd::Pid;

/// The child's stack: what it calls is a few system call wrappers deep.
const STACK: usize = 64 * 1024;

/// What the child needs, all of it made before the clone.
pub(super) struct Start {
    /// The files to try in order: the program itself when it names a `/`, else each `PATH`
    /// entry's file of that name, as `execvp` and `posix_spawnp` search.
    pub candidates: Vec<CString>,
    pub argv: Vec<CString>,
    /// `/bin/bash`'s `argv` to execute instead when no candidate executes: a line started
    /// without bash goes to bash then, which answers as it would have (a file the kernel will
    /// not run, a program the confinement may not execute).
    pub fallback: Option<Vec<CString>>,
    pub envp: Vec<CString>,
    /// The signal mask the command starts with.
    pub mask: SigSet,
    pub own_session: bool,
    /// A descriptor to close in the child.
    pub close: Option<c_int>,
}

/// The child's view of a [`Start`]: raw pointers, and where it reports a failed start.
struct Child {
    candidates: Vec<*const libc::c_char>,
    argv: Vec<*const libc::c_char>,
    fallback: Option<Vec<*const libc::c_char>>,
    envp: Vec<*const libc::c_char>,
    mask: libc::sigset_t,
    own_session: bool,
    close: c_int,
    error: AtomicI32,
}

/// The files `execvp` would try for `program` with this `PATH` (unset: the C library's
/// default, `/bin:/usr/bin`); an empty entry is the working directory.
pub(super) fn candidates(program: &CString) -> Vec<CString> {
    let name = program.as_bytes();
    if name.contains(&b'/') || name.is_empty() {
        return vec![program.clone()];
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/bin:/usr/bin".into());
    path.as_encoded_bytes()
        .split(|b| *b == b':')
        .filter_map(|dir| {
            let mut file = dir.to_vec();
            if !file.is_empty() {
                file.push(b'/');
            }
            file.extend_from_slice(name);
            CString::new(file).ok()
        })
        .collect()
}

/// Starts the command; its pid, or why it could not start (the last `execve`'s error, as
/// `posix_spawnp` gives it).
#[allow(unsafe_code)] // clone(2) with a stack of its own, and the child's raw system calls.
pub(super) fn spawn(start: &Start) -> std::io::Result<Pid> {
    let pointers = |strings: &[CString]| -> Vec<*const libc::c_char> {
        strings
            .iter()
            .map(|s| s.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect()
    };
    let child = Child {
        candidates: start.candidates.iter().map(|s| s.as_ptr()).collect(),
        argv: pointers(&start.argv),
        fallback: start.fallback.as_deref().map(pointers),
        envp: pointers(&start.envp),
        mask: *start.mask.as_ref(),
        own_session: start.own_session,
        close: start.close.unwrap_or(-1),
        error: AtomicI32::new(0),
    };
    // Reserved, not zeroed: the child touches a page or two of it, and zeroing all of it was
    // sixteen page faults of every confined run. There is no guard page below it: the child
    // makes a handful of system calls, far from 64 KiB deep, and never allocates (so the
    // allocator's lock, which a forked child could find held, is never taken there either).
    let mut stack: Vec<u8> = Vec::with_capacity(STACK);
    // The stack grows down: the child starts at its end, aligned as the ABI asks.
    let top = {
        let end = stack.as_mut_ptr().wrapping_add(STACK);
        end.wrapping_sub(end as usize % 16)
    };
    // Every signal blocked across the clone, as glibc does: the child sets its own mask just
    // before `execve`.
    let mut old = SigSet::empty();
    nix::sys::signal::pthread_sigmask(
        nix::sys::signal::SigmaskHow::SIG_BLOCK,
        Some(&SigSet::all()),
        Some(&mut old),
    )
    .map_err(std::io::Error::from)?;
    // SAFETY: `top` is the aligned end of `stack`'s reserved memory (the child writes it; Rust
    // never reads it), which outlives the child's use of it: with
    // CLONE_VFORK this thread resumes only once the child has called `execve` or `_exit`.
    // `child` likewise lives until then, and the child only reads it and stores its error.
    let pid = unsafe {
        libc::clone(
            run,
            top.cast::<c_void>(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            std::ptr::from_ref(&child).cast_mut().cast::<c_void>(),
        )
    };
    let cloned = std::io::Error::last_os_error();
    let _ = nix::sys::signal::pthread_sigmask(
        nix::sys::signal::SigmaskHow::SIG_SETMASK,
        Some(&old),
        None,
    );
    drop(stack);
    if pid < 0 {
        return Err(cloned);
    }
    let pid = Pid::from_raw(pid);
    match child.error.load(Ordering::Acquire) {
        0 => Ok(pid),
        error => {
            // The child has exited (127): reaped here, so no zombie is left.
            let _ = nix::sys::wait::waitpid(pid, None);
            Err(std::io::Error::from_raw_os_error(error))
        }
    }
}

/// The child: SIGPIPE's default action back, a session of its own if asked, the descriptor
/// closed, its signal mask, then each candidate file until one executes, else the fallback.
#[allow(unsafe_code)]
extern "C" fn run(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the parent's `Child`, alive and unchanged while the parent waits.
    let child = unsafe { &*arg.cast::<Child>() };
    // SAFETY: plain system calls on values made before the clone; nothing here allocates.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(libc::SIGPIPE, &default, std::ptr::null_mut());
        if child.own_session && libc::setsid() < 0 {
            child
                .error
                .store(*libc::__errno_location(), Ordering::Release);
            libc::_exit(127);
        }
        if child.close >= 0 {
            libc::close(child.close);
        }
        libc::sigprocmask(libc::SIG_SETMASK, &child.mask, std::ptr::null_mut());
        let mut error = libc::ENOENT;
        let mut denied = false;
        for file in &child.candidates {
            libc::execve(*file, child.argv.as_ptr(), child.envp.as_ptr());
            error = *libc::__errno_location();
            match error {
                // As `execvp`: a file that is not there, or not ours to run, is passed over,
                // and a search that found only the latter says so; any other error ends it.
                libc::EACCES => denied = true,
                libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
                _ => {
                    denied = false;
                    break;
                }
            }
        }
        if denied {
            error = libc::EACCES;
        }
        if let Some(bash) = &child.fallback {
            libc::execve(bash[0], bash.as_ptr(), child.envp.as_ptr());
            error = *libc::__errno_location();
        }
        child.error.store(error, Ordering::Release);
        libc::_exit(127)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(text: &str) -> CString {
        CString::new(text).expect("no NUL")
    }

    #[test]
    fn a_name_is_searched_for_along_path_and_a_path_is_not() {
        assert_eq!(candidates(&c("/bin/ls")), [c("/bin/ls")]);
        assert_eq!(candidates(&c("./x")), [c("./x")]);
        let found = candidates(&c("ls"));
        assert!(
            found.iter().all(|f| f.as_bytes().ends_with(b"ls")),
            "{found:?}"
        );
        assert!(!found.is_empty());
    }

    #[test]
    fn a_started_command_runs_and_a_missing_one_says_why() {
        let start = |program: &str| Start {
            candidates: candidates(&c(program)),
            argv: vec![c(program), c("-c"), c("exit 7")],
            fallback: None,
            envp: vec![c("PATH=/usr/bin:/bin")],
            mask: SigSet::empty(),
            own_session: false,
            close: None,
        };
        let pid = spawn(&start("sh")).expect("sh starts");
        assert_eq!(
            nix::sys::wait::waitpid(pid, None),
            Ok(nix::sys::wait::WaitStatus::Exited(pid, 7))
        );
        let error = spawn(&start("no-such-program-anywhere")).expect_err("not found");
        assert_eq!(error.kind(), std::io::ErrorKind::NotFound);
        let error = spawn(&start("/etc/passwd")).expect_err("not executable");
        assert_eq!(error.kind(), std::io::ErrorKind::PermissionDenied);
    }
}
