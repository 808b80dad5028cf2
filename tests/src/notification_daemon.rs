//! A second real notification server: GNOME's notification-daemon (the reference server of the
//! specification, a GTK program), on an X display of its own ([`Xvfb`]) and a [`PrivateBus`].
//!
//! notification-daemon keeps no record a test can read back, so what it was asked to show is
//! recorded on the bus: `dbus-monitor` watches the `Notify` calls made to it
//! ([`NotificationDaemon::notify_calls`]), and the screen shows what it drew of them
//! ([`NotificationDaemon::shot`]).
//!
//! It shows one bubble at a time and, under Xvfb with no window manager, leaves a bubble on the
//! screen after it is closed: one server per notification to look at.
//!
//! [`NotificationDaemon`] stops the server, the monitor and the display when dropped, also when
//! a test fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::dbus::PrivateBus;
use crate::x11::{Shot, TermOnDrop, Xvfb, is_executable, require};
use crate::{RECV_TIMEOUT, run_bounded, wait_until};

/// Where Debian installs the server (package `notification-daemon`); it is not on `PATH`.
pub const PROGRAM: &str = "/usr/lib/notification-daemon/notification-daemon";

/// What the tests that need these programs drive, for the message that names the package.
const DRIVES: &str = "GNOME's notification-daemon under Xvfb";

/// Fail the test, naming the Debian packages, unless notification-daemon, Xvfb, dbus-monitor
/// and dbus-send are installed.
pub fn require_installed() {
    assert!(
        is_executable(Path::new(PROGRAM)),
        "{PROGRAM} is not installed: this test drives {DRIVES} \
         (apt-get install notification-daemon)"
    );
    require("Xvfb", "xvfb", DRIVES);
    require("dbus-monitor", "dbus-bin", DRIVES);
    require("dbus-send", "dbus-bin", DRIVES);
}

/// One `Notify` call as the bus carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyCall {
    /// The summary (the bold first line).
    pub summary: String,
    /// The body, as sent (markup included).
    pub body: String,
    /// The actions' labels, in order (the keys left out).
    pub labels: Vec<String>,
}

/// notification-daemon on a display of its own, owning `org.freedesktop.Notifications` on a
/// [`PrivateBus`], with its `Notify` calls recorded.
pub struct NotificationDaemon {
    // Dropped in this order: the server and the monitor before the display.
    server: TermOnDrop,
    _monitor: TermOnDrop,
    xvfb: Xvfb,
    dir: tempfile::TempDir,
}

impl NotificationDaemon {
    /// Start Xvfb, the bus monitor and notification-daemon, and wait until the server answers
    /// on the bus. Fails the test, naming the packages, if a program is missing.
    pub fn start(bus: &PrivateBus) -> NotificationDaemon {
        require_installed();
        let dir = tempfile::tempdir().expect("a temporary directory can be made");
        let xvfb = Xvfb::start(dir.path());

        let monitor_log = dir.path().join("monitor.log");
        let monitor = Command::new(require("dbus-monitor", "dbus-bin", DRIVES))
            .arg("--address")
            .arg(bus.address())
            .arg("type='method_call',interface='org.freedesktop.Notifications',member='Notify'")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&monitor_log).expect("the monitor log is created"))
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-monitor starts");
        let monitor = TermOnDrop(monitor);
        // It says NameAcquired once it is a monitor.
        assert!(
            wait_until(RECV_TIMEOUT, || std::fs::read_to_string(&monitor_log)
                .is_ok_and(|log| log.contains("NameAcquired"))),
            "dbus-monitor did not start on the test bus"
        );

        let log = std::fs::File::create(dir.path().join("server.log"))
            .expect("the server's log is created");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("the home directory can be made");
        let server = Command::new(PROGRAM)
            .env("DISPLAY", xvfb.display())
            .env("DBUS_SESSION_BUS_ADDRESS", bus.address())
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_RUNTIME_DIR", dir.path())
            .env("GDK_BACKEND", "x11")
            .env("NO_AT_BRIDGE", "1")
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log file can be shared"))
            .stderr(log)
            .spawn()
            .expect("notification-daemon starts");
        let mut started = NotificationDaemon {
            server: TermOnDrop(server),
            _monitor: monitor,
            xvfb,
            dir,
        };
        let address = bus.address().to_string();
        let ready = wait_until(RECV_TIMEOUT, || {
            !started.server.running() || server_information(&address).is_some()
        });
        let xvfb_running = started.xvfb.running();
        assert!(
            ready && started.server.running(),
            "notification-daemon did not start on {} (Xvfb running: {}); its log:\n{}",
            started.xvfb.display(),
            xvfb_running,
            started.log()
        );
        started
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// What is on the server's screen now.
    pub fn shot(&self) -> Shot {
        self.xvfb.shot()
    }

    /// The screen once something new is drawn on it (see [`Xvfb::wait_drawn`]).
    pub fn wait_drawn(&self, before: &Shot) -> Shot {
        self.xvfb.wait_drawn(before)
    }

    /// The `Notify` calls made to the server so far, as `dbus-monitor` printed them.
    pub fn notify_calls(&self) -> Vec<NotifyCall> {
        let log = std::fs::read_to_string(self.monitor_log()).unwrap_or_default();
        parse_monitor(&log)
    }

    /// Wait (at most [`RECV_TIMEOUT`]) for a `Notify` call; the first.
    pub fn wait_notify(&self) -> NotifyCall {
        let mut calls = Vec::new();
        assert!(
            wait_until(RECV_TIMEOUT, || {
                calls = self.notify_calls();
                !calls.is_empty()
            }),
            "nothing asked notification-daemon to show a notification; the bus monitor saw:\n{}",
            std::fs::read_to_string(self.monitor_log()).unwrap_or_default()
        );
        calls.remove(0)
    }

    fn monitor_log(&self) -> PathBuf {
        self.dir.path().join("monitor.log")
    }
}

/// The server's name and version (`GetServerInformation`), or `None` while no one owns the
/// name.
fn server_information(address: &str) -> Option<String> {
    let mut command = Command::new("dbus-send");
    command
        .arg(format!("--bus={address}"))
        .args([
            "--print-reply",
            "--dest=org.freedesktop.Notifications",
            "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications.GetServerInformation",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let output = run_bounded(&mut command);
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The `Notify` calls in `dbus-monitor`'s text: after the `member=Notify` line come the app
/// name, the id it replaces, the icon, the summary and the body as `string "…"` arguments (a
/// body may span lines), then the actions as an array of key and label strings.
fn parse_monitor(log: &str) -> Vec<NotifyCall> {
    let mut calls = Vec::new();
    for call in log.split("member=Notify").skip(1) {
        // The arguments end where the next message starts.
        let call = call
            .split("\nmethod call ")
            .next()
            .unwrap_or(call)
            .split("\nsignal ")
            .next()
            .unwrap_or(call);
        let Some((strings, rest)) = call.split_once("\n   array [") else {
            continue;
        };
        // `string "` starts each string argument at the start of a line; a body's own lines
        // are part of the one before.
        let texts: Vec<String> = strings
            .split("\n   string \"")
            .skip(1)
            .map(|s| s.trim_end().strip_suffix('"').unwrap_or(s).to_string())
            .collect();
        let (Some(summary), Some(body)) = (texts.get(2), texts.get(3)) else {
            continue;
        };
        let actions = rest.split("\n   ]").next().unwrap_or(rest);
        let words: Vec<String> = actions
            .split("\n      string \"")
            .skip(1)
            .map(|s| s.trim_end().strip_suffix('"').unwrap_or(s).to_string())
            .collect();
        calls.push(NotifyCall {
            summary: summary.clone(),
            body: body.clone(),
            labels: words.iter().skip(1).step_by(2).cloned().collect(),
        });
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notify_call_reads_from_the_monitors_text() {
        let log = "signal time=1 sender=org.freedesktop.DBus -> destination=:1.16 serial=2 \
                   path=/org/freedesktop/DBus; interface=org.freedesktop.DBus; member=NameAcquired\n   \
                   string \":1.16\"\n\
                   method call time=2 sender=:1.17 -> destination=org.freedesktop.Notifications \
                   serial=3 path=/org/freedesktop/Notifications; \
                   interface=org.freedesktop.Notifications; member=Notify\n   \
                   string \"assent\"\n   uint32 0\n   string \"dialog-warning\"\n   \
                   string \"Claude Code wants to run a command\"\n   \
                   string \"<b>rm -rf x</b>\nin \"/tmp\"\"\n   array [\n      \
                   string \"once\"\n      string \"Allow once\"\n      \
                   string \"deny\"\n      string \"Deny\"\n   ]\n   array [\n   ]\n   int32 0\n";
        assert_eq!(
            parse_monitor(log),
            vec![NotifyCall {
                summary: "Claude Code wants to run a command".into(),
                body: "<b>rm -rf x</b>\nin \"/tmp\"".into(),
                labels: vec!["Allow once".into(), "Deny".into()],
            }]
        );
        assert!(parse_monitor("member=Notify\n   string \"x\"").is_empty());
    }
}
