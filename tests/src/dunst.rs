//! A real notification server for the agent's end-to-end test: Debian's dunst, on an X display
//! of its own (Xvfb), on a [`PrivateBus`].
//!
//! Nothing clicks: dunst's context menu (`dunstctl context`) runs the `dmenu` command of its
//! configuration with one line per action of every displayed notification on its stdin, in the
//! form `#Deny (summary) [3,deny]`, and invokes the action of the line that command prints
//! (`ActionInvoked(3, "deny")` to the notification's sender). The command here is a script the
//! test writes: it keeps the menu it was offered in `menu.txt` and prints the line that contains
//! the text in `choice.txt` (a fixed-string `grep`). Nothing it reads is ever run.
//!
//! The bus must have no `<servicedir>` (as [`PrivateBus`] has none): otherwise a call to
//! `org.freedesktop.Notifications` before dunst owns the name would activate a second dunst
//! from the system's service files, without a display.
//!
//! [`Dunst`] stops dunst, then its display, when dropped, also when a test fails.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use crate::dbus::PrivateBus;
use crate::x11::{Shot, TermOnDrop, Xvfb, require};
use crate::{RECV_TIMEOUT, run_bounded, wait_until};

/// The Debian packages the test needs besides `dbus-daemon`: `dunst` (dunst, dunstctl) and
/// `xvfb` (Xvfb). `dunstctl` calls `dbus-send`, from `dbus-bin`, which dunst depends on.
pub const PACKAGES: &str = "dunst xvfb";

/// The `dmenu` stand-in: keep the menu, print the one chosen line.
const PICK_SCRIPT: &str = r#"#!/bin/sh
# dunst's context menu command for the tests (see tests/src/dunst.rs): keep the menu dunst
# offers in menu.txt, print the line holding the fixed text in choice.txt. Nothing read is run.
dir=$(dirname "$0")
cat > "$dir/menu.txt.part"
mv "$dir/menu.txt.part" "$dir/menu.txt"
grep -m 1 -F -f "$dir/choice.txt" "$dir/menu.txt"
exit 0
"#;

/// Fail the test, naming the Debian packages, unless Xvfb, dunst, dunstctl and dbus-send are
/// all on `PATH`.
pub fn require_installed() {
    require("Xvfb", "xvfb", DRIVES);
    require("dunst", "dunst", DRIVES);
    require("dunstctl", "dunst", DRIVES);
    require("dbus-send", "dbus-bin", DRIVES);
}

/// What the tests that need these programs drive, for the message that names the package.
const DRIVES: &str = "the real dunst under Xvfb";

/// One line of dunst's context menu: `#LABEL (SUMMARY) [ID,KEY]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MenuLine {
    /// The button's label.
    pub label: String,
    /// The notification's summary.
    pub summary: String,
    /// The notification's id.
    pub id: u32,
    /// The action key.
    pub key: String,
}

impl MenuLine {
    /// Parse one line; `None` for what is not an action (dunst also lists URLs).
    pub fn parse(line: &str) -> Option<MenuLine> {
        let rest = line.strip_prefix('#')?.strip_suffix(']')?;
        let (text, id_key) = rest.rsplit_once(" [")?;
        let (id, key) = id_key.split_once(',')?;
        let (label, summary) = text.split_once(" (")?;
        Some(MenuLine {
            label: label.to_string(),
            summary: summary.strip_suffix(')')?.to_string(),
            id: id.parse().ok()?,
            key: key.to_string(),
        })
    }
}

/// dunst on a display of its own, owning `org.freedesktop.Notifications` on a [`PrivateBus`].
pub struct Dunst {
    // Dropped in this order: dunst before its display.
    dunst: TermOnDrop,
    xvfb: Xvfb,
    bus_address: String,
    dunstctl: PathBuf,
    dir: tempfile::TempDir,
}

impl Dunst {
    /// Start Xvfb on a free display, then dunst on it and on `bus`, and wait until dunst
    /// answers on the bus. Fails the test, naming the packages, if a program is missing.
    pub fn start(bus: &PrivateBus) -> Dunst {
        require_installed();
        let dunst_program = require("dunst", "dunst", DRIVES);
        let dunstctl = require("dunstctl", "dunst", DRIVES);

        let dir = tempfile::tempdir().expect("a temporary directory can be made");
        let xvfb = Xvfb::start(dir.path());

        let script = dir.path().join("pick.sh");
        std::fs::write(&script, PICK_SCRIPT).expect("the pick script is written");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
            .expect("the pick script is made executable");
        std::fs::write(dir.path().join("choice.txt"), "").expect("the choice file is written");
        // dunst splits the dmenu setting into words: the path must be one plain word.
        let script_text = script.to_str().expect("the temporary path is UTF-8");
        assert!(
            script_text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b)),
            "unexpected characters in {script_text:?}"
        );
        let config = dir.path().join("dunstrc");
        // Notifications stay until closed (the agent closes them on an answer); each one is
        // its own entry in the menu.
        std::fs::write(
            &config,
            format!(
                "[global]\n\
                 \x20   dmenu = {script_text}\n\
                 \x20   stack_duplicates = false\n\
                 \x20   show_indicators = false\n\
                 [urgency_low]\n\x20   timeout = 0\n\
                 [urgency_normal]\n\x20   timeout = 0\n\
                 [urgency_critical]\n\x20   timeout = 0\n"
            ),
        )
        .expect("the dunstrc is written");

        let log =
            std::fs::File::create(dir.path().join("dunst.log")).expect("the dunst log is created");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).expect("the home directory can be made");
        let dunst = Command::new(dunst_program)
            .arg("-config")
            .arg(&config)
            .arg("-verbosity")
            .arg("info")
            .env("DISPLAY", xvfb.display())
            .env("DBUS_SESSION_BUS_ADDRESS", bus.address())
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env_remove("WAYLAND_DISPLAY")
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the log file can be shared"))
            .stderr(log)
            .spawn()
            .expect("dunst starts");
        let mut started = Dunst {
            dunst: TermOnDrop(dunst),
            xvfb,
            bus_address: bus.address().to_string(),
            dunstctl,
            dir,
        };
        let ready = wait_until(RECV_TIMEOUT, || {
            if !started.dunst.running() {
                return true;
            }
            started.ctl(&["is-paused"]).status.success()
        });
        let xvfb_running = started.xvfb.running();
        assert!(
            ready && started.dunst.running(),
            "dunst did not start on {} (Xvfb running: {}); its log:\n{}",
            started.xvfb.display(),
            xvfb_running,
            started.log()
        );
        started
    }

    /// The X display dunst shows on (`:N`).
    pub fn display(&self) -> &str {
        self.xvfb.display()
    }

    /// What is on dunst's screen now.
    pub fn shot(&self) -> Shot {
        self.xvfb.shot()
    }

    /// The screen once something new is drawn on it (see [`Xvfb::wait_drawn`]).
    pub fn wait_drawn(&self, before: &Shot) -> Shot {
        self.xvfb.wait_drawn(before)
    }

    /// dunst's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("dunst.log")).unwrap_or_default()
    }

    /// Run `dunstctl ARGS` against this dunst (bounded).
    pub fn ctl(&self, args: &[&str]) -> Output {
        let mut command = Command::new(&self.dunstctl);
        command
            .args(args)
            .env("DBUS_SESSION_BUS_ADDRESS", &self.bus_address)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        run_bounded(&mut command)
    }

    /// `dunstctl ARGS`, which must succeed; its stdout.
    fn ctl_ok(&self, args: &[&str]) -> String {
        let output = self.ctl(args);
        assert!(
            output.status.success(),
            "dunstctl {args:?} failed: {}\ndunst's log:\n{}",
            String::from_utf8_lossy(&output.stderr),
            self.log()
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// `dunstctl count KIND` (`displayed`, `waiting`, `history`).
    pub fn count(&self, kind: &str) -> usize {
        let text = self.ctl_ok(&["count", kind]);
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("dunstctl count {kind} printed {text:?}"))
    }

    /// Wait (at most [`RECV_TIMEOUT`]) until dunst displays `n` notifications; returns whether
    /// it did.
    pub fn wait_displayed(&self, n: usize) -> bool {
        wait_until(RECV_TIMEOUT, || self.count("displayed") == n)
    }

    /// `dunstctl history`: the closed notifications, as dunst's JSON.
    pub fn history(&self) -> String {
        self.ctl_ok(&["history"])
    }

    /// Open dunst's context menu (`dunstctl context`) and choose the line that contains
    /// `choice` (fixed text, e.g. `",deny]"`). Returns at once: dunst runs the menu in a thread
    /// of its own; see [`Dunst::menu`] for what it offered.
    pub fn choose(&self, choice: &str) {
        let menu = self.dir.path().join("menu.txt");
        let _ = std::fs::remove_file(&menu);
        std::fs::write(self.dir.path().join("choice.txt"), format!("{choice}\n"))
            .expect("the choice is written");
        self.ctl_ok(&["context"]);
    }

    /// The menu dunst offered on the last [`Dunst::choose`] (waits for it, at most
    /// [`RECV_TIMEOUT`]); every line, actions or not.
    pub fn menu(&self) -> Vec<String> {
        let menu = self.dir.path().join("menu.txt");
        assert!(
            wait_until(RECV_TIMEOUT, || menu.is_file()),
            "dunst ran no context menu; its log:\n{}",
            self.log()
        );
        std::fs::read_to_string(&menu)
            .expect("the menu is readable")
            .lines()
            .map(str::to_string)
            .collect()
    }
}
