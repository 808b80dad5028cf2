//! What a test needs from the machine, and one way to say it is missing.
//!
//! `cargo test --workspace` is the fast inner loop: a test whose program or privilege is
//! missing says so on stderr (`skipped: …`, with the Debian package or the step that provides
//! it) and passes without running. Under `CI=true` a missing need fails the test instead:
//! CI installs everything (`.ci/test` does, as the README's test command), so there a skip
//! would hide a test that never ran.
//!
//! ```ignore
//! if !needs(&[TMUX, ZSH]) {
//!     return;
//! }
//! ```

use std::path::Path;

use crate::x11::is_executable;

/// A program a test runs, and what installs it.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The program: a name looked up on `PATH`, or an absolute path.
    pub program: &'static str,
    /// What provides it: a Debian package, or a command.
    pub install: &'static str,
}

/// `nm` and `c++filt`, to read the symbols of a built binary.
pub const BINUTILS: Tool = Tool {
    program: "c++filt",
    install: "apt-get install binutils",
};
/// `tmux`, which drives the interactive shells.
pub const TMUX: Tool = Tool {
    program: "tmux",
    install: "apt-get install tmux",
};
/// `strace`, to see which system calls a door made.
pub const STRACE: Tool = Tool {
    program: "strace",
    install: "apt-get install strace",
};
/// `zsh`.
pub const ZSH: Tool = Tool {
    program: "zsh",
    install: "apt-get install zsh",
};
/// `shellcheck`, for the shell hook and the package's maintainer scripts.
pub const SHELLCHECK: Tool = Tool {
    program: "shellcheck",
    install: "apt-get install shellcheck",
};
/// `dbus-daemon`, for the private buses.
pub const DBUS_DAEMON: Tool = Tool {
    program: "dbus-daemon",
    install: "apt-get install dbus-daemon",
};
/// `dbus-send` and `dbus-monitor`.
pub const DBUS_BIN: Tool = Tool {
    program: "dbus-monitor",
    install: "apt-get install dbus-bin",
};
/// `Xvfb`, the X display of the notification tests.
pub const XVFB: Tool = Tool {
    program: "Xvfb",
    install: "apt-get install xvfb",
};
/// dunst and `dunstctl`.
pub const DUNST: Tool = Tool {
    program: "dunst",
    install: "apt-get install dunst",
};
/// GNOME's notification-daemon (not on `PATH`).
pub const NOTIFICATION_DAEMON: Tool = Tool {
    program: crate::notification_daemon::PROGRAM,
    install: "apt-get install notification-daemon",
};
/// `systemd-analyze`, which checks the units.
pub const SYSTEMD_ANALYZE: Tool = Tool {
    program: "systemd-analyze",
    install: "apt-get install systemd",
};
/// `systemd-socket-activate`, which passes a socket as systemd would.
pub const SYSTEMD_SOCKET_ACTIVATE: Tool = Tool {
    program: "systemd-socket-activate",
    install: "apt-get install systemd",
};
/// cargo-deb, which builds the Debian package.
pub const CARGO_DEB: Tool = Tool {
    program: "cargo-deb",
    install: "cargo install cargo-deb --locked --version 3.8.0",
};
/// `dpkg-deb` and `dpkg`.
pub const DPKG: Tool = Tool {
    program: "dpkg-deb",
    install: "apt-get install dpkg",
};
/// `python3`, for the raw socket client.
pub const PYTHON3: Tool = Tool {
    program: "python3",
    install: "apt-get install python3",
};

/// `node`, which npm runs on.
pub const NODE: Tool = Tool {
    program: "node",
    install: "apt-get install nodejs",
};
/// `npm`, which installs the real agents (`tests/agents/`).
pub const NPM: Tool = Tool {
    program: "npm",
    install: "apt-get install npm",
};

/// `man`, to render the man pages as a person reads them (at 80 columns).
pub const MAN: Tool = Tool {
    program: "man",
    install: "apt-get install man-db",
};

/// Whether `tool` is installed.
pub fn installed(tool: &Tool) -> bool {
    if tool.program.starts_with('/') {
        return is_executable(Path::new(tool.program));
    }
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| is_executable(&dir.join(tool.program)))
    })
}

/// Whether every tool is installed; if not, the test is to return at once (see the module
/// doc: it says why, and under `CI=true` it fails here instead).
pub fn needs(tools: &[Tool]) -> bool {
    let missing: Vec<String> = tools
        .iter()
        .filter(|tool| !installed(tool))
        .map(|tool| format!("{} ({})", tool.program, tool.install))
        .collect();
    skip_unless(missing.is_empty(), &missing.join(", "))
}

/// Whether root runs the test; if not, the test is to return at once (see [`needs`]).
pub fn needs_root(why: &str) -> bool {
    skip_unless(nix::unistd::geteuid().is_root(), &format!("root ({why})"))
}

/// `ok`, or a skip that names `what` is missing (a failure under `CI=true`).
pub fn skip_unless(ok: bool, what: &str) -> bool {
    if ok {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none_or(|ci| ci != "true"),
        "this test needs {what}, and under CI=true a test that cannot run fails"
    );
    eprintln!("skipped: this test needs {what}");
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const MISSING: Tool = Tool {
        program: "assent-no-such-program",
        install: "nothing installs it",
    };

    #[test]
    fn a_missing_tool_is_a_skip_and_under_ci_a_failure() {
        assert!(needs(&[]));
        assert!(installed(&Tool {
            program: "/bin/sh",
            install: "",
        }));
        let under_ci = std::env::var_os("CI").is_some_and(|ci| ci == "true");
        let outcome = std::panic::catch_unwind(|| needs(&[MISSING]));
        if under_ci {
            assert!(
                outcome.is_err(),
                "under CI=true a missing tool fails the test"
            );
        } else {
            assert_eq!(outcome.ok(), Some(false), "a missing tool is a skip");
        }
    }
}
