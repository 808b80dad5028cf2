//! `assent`: the thin client. Puts a command through the gate, then runs it or not.
//!
//! Exit codes are part of the contract with hooks and agents (see `EXIT CODES` in `--help`).
//! Start-up is the user's wait on every command, so the allow path does one connect, one send,
//! one receive, and nothing else.
//!
//! The program has its own C `main` instead of Rust's: the standard library's start-up reads
//! `/proc/self/maps` to place the main thread's stack guard, installs an alternate signal stack
//! and its handlers, and ignores SIGPIPE, about twenty system calls before the first line of
//! ours on every gated command (BENCHMARKS.md, "Whole process"). What of it matters here is done
//! below: descriptors 0 to 2 are made to exist (so the daemon's socket can never be one of
//! them), and standard output is flushed before the exit. SIGPIPE keeps its default: a client
//! whose reader has gone ends as any command-line tool does, and the socket is written with
//! `MSG_NOSIGNAL`.

#![deny(unsafe_code)]
#![cfg_attr(not(test), no_main)]

mod cli;

/// The process's entry, called by the C library (the test harness has its own).
#[cfg(not(test))]
#[allow(unsafe_code)] // `no_mangle` is what makes this the program's `main`.
#[unsafe(no_mangle)]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    use std::io::Write as _;
    standard_descriptors();
    let code = run();
    let _ = std::io::stdout().flush();
    std::ffi::c_int::from(code)
}

#[cfg_attr(test, allow(dead_code))]
fn run() -> u8 {
    let mut args = std::env::args_os();
    let argv0 = args.next().unwrap_or_default();
    // Invoked as `assent-sh` (a symlink), it is a shell: `assent-sh -c STRING`.
    let name = std::path::Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "assent-sh" {
        cli::shell::as_shell(args.collect())
    } else {
        cli::main()
    }
}

/// Open `/dev/null` on any of descriptors 0, 1 and 2 that a caller left closed, as the standard
/// library's start-up would: otherwise the daemon's socket could be opened as descriptor 1 and
/// what is printed would be sent to the daemon. A descriptor opened here that is above 2 shows
/// all three are open, and is closed again.
#[cfg_attr(test, allow(dead_code))]
fn standard_descriptors() {
    use std::os::fd::{AsRawFd as _, IntoRawFd as _};
    for _ in 0..3 {
        let Ok(null) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/null")
        else {
            return;
        };
        if null.as_raw_fd() > 2 {
            return;
        }
        // It took the place of a closed standard descriptor: it stays open for the process.
        let _ = null.into_raw_fd();
    }
}
