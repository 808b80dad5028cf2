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

/// Linked against musl (the shipped client), dlmalloc instead of musl's allocator, which
/// unmaps freed memory at once (client/Cargo.toml says what that cost).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

/// The process's entry, called by the C library (the test harness has its own).
#[cfg(not(test))]
#[allow(unsafe_code)] // `no_mangle` is what makes this the program's `main`.
#[unsafe(no_mangle)]
extern "C" fn main(argc: std::ffi::c_int, argv: *const *const std::ffi::c_char) -> std::ffi::c_int {
    use std::io::Write as _;
    standard_descriptors();
    // SAFETY: the C library calls `main` with `argc` pointers to NUL-terminated strings at
    // `argv`, which live as long as the process.
    let args = unsafe { arguments(argc, argv) };
    let code = run(args);
    let _ = std::io::stdout().flush();
    std::ffi::c_int::from(code)
}

/// The program's arguments as `main` was given them. The standard library's own
/// `std::env::args_os` is only filled where it runs its start-up or the C library hands the
/// arguments to initialisers (glibc does, musl does not): read here, they are the same with both.
///
/// # Safety
///
/// `argv` holds `argc` pointers to NUL-terminated strings that outlive the call.
#[cfg(not(test))]
#[allow(unsafe_code)]
unsafe fn arguments(
    argc: std::ffi::c_int,
    argv: *const *const std::ffi::c_char,
) -> Vec<std::ffi::OsString> {
    use std::os::unix::ffi::OsStrExt as _;
    let count = usize::try_from(argc).unwrap_or(0);
    (0..count)
        .filter_map(|i| {
            // SAFETY: `i < argc`, and each of the first `argc` entries is a valid C string.
            let arg = unsafe { *argv.add(i) };
            (!arg.is_null()).then(|| {
                // SAFETY: as above.
                let bytes = unsafe { std::ffi::CStr::from_ptr(arg) }.to_bytes();
                std::ffi::OsStr::from_bytes(bytes).to_owned()
            })
        })
        .collect()
}

#[cfg_attr(test, allow(dead_code))]
fn run(argv: Vec<std::ffi::OsString>) -> u8 {
    let mut args = argv.into_iter();
    let argv0 = args.next().unwrap_or_default();
    // Invoked as `assent-sh` (a symlink), it is a shell: `assent-sh -c STRING`.
    let name = std::path::Path::new(&argv0)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == "assent-sh" {
        cli::shell::as_shell(args.collect())
    } else {
        cli::main(args.collect())
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
