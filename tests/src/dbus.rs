//! D-Bus helpers for the notification agent's tests: a private bus, a recording notification
//! server on it, and `assent-notify` started against both.
//!
//! Nothing here touches the user's session bus: [`PrivateBus`] starts its own `dbus-daemon`
//! from a configuration with no `<servicedir>` (so nothing is ever activated on it), and every
//! process the tests start gets that bus's address.
//!
//! [`Notifications`] owns `org.freedesktop.Notifications` on the private bus, records every
//! `Notify` and `CloseNotification`, and emits `ActionInvoked` and `NotificationClosed` when a
//! test says so, addressed (as real servers do) only to the connection that called `Notify`.
//! A test clicks a button by its label: the agent's action keys are random.
//!
//! [`Forger`] is another connection on the bus, as an agent's own program would be: it sends
//! the same signals from the same path and interface, to see that they do not count, and
//! replaces a shown notification by its id.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::{KillOnDrop, RECV_TIMEOUT, our_command, wait_until};

const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";

/// A `dbus-daemon` of the test's own; killed on drop.
pub struct PrivateBus {
    address: String,
    _child: KillOnDrop,
    _dir: tempfile::TempDir,
}

impl PrivateBus {
    /// Start a bus and wait for its address.
    pub fn start() -> PrivateBus {
        let dir = tempfile::tempdir().expect("a temporary directory can be made");
        let config = dir.path().join("bus.conf");
        // No <servicedir>: nothing is activated on this bus, so an absent notification server
        // stays absent. Everything is allowed between the test's own processes.
        std::fs::write(
            &config,
            format!(
                r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
                dir.path().join("bus.sock").display()
            ),
        )
        .expect("the bus configuration is written");
        let mut child = Command::new("dbus-daemon")
            .arg("--nofork")
            .arg("--print-address")
            .arg(format!("--config-file={}", config.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            // It complains about fd limits it may not raise as root in a container: noise.
            .stderr(Stdio::null())
            .spawn()
            .expect("dbus-daemon starts (apt-get install dbus-daemon)");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("dbus-daemon prints its address");
        let address = line.trim().to_string();
        assert!(!address.is_empty(), "dbus-daemon printed no address");
        PrivateBus {
            address,
            _child: KillOnDrop(Some(child)),
            _dir: dir,
        }
    }

    /// Its address, for `DBUS_SESSION_BUS_ADDRESS`.
    pub fn address(&self) -> &str {
        &self.address
    }
}

/// One notification as the server received it.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// Its id.
    pub id: u32,
    /// The `replaces_id` it was sent with.
    pub replaces: u32,
    /// The summary.
    pub summary: String,
    /// The body.
    pub body: String,
    /// The action keys, in order (labels in `labels`); random per notification.
    pub actions: Vec<String>,
    /// The action labels.
    pub labels: Vec<String>,
    /// The `urgency` hint, if sent.
    pub urgency: Option<u8>,
    /// The expire timeout, in milliseconds.
    pub expire_ms: i32,
    /// Still open (not closed by a call, a dismissal or an action the test closed).
    pub open: bool,
    /// The unique bus name of the connection that called `Notify`.
    pub sender: String,
}

#[derive(Debug, Default)]
struct Recorded {
    shown: Vec<Shown>,
    next_id: u32,
    /// Every `CloseNotification` id, in order.
    close_calls: Vec<u32>,
}

struct Server {
    recorded: Arc<Mutex<Recorded>>,
    capabilities: Vec<String>,
}

fn lock(recorded: &Mutex<Recorded>) -> MutexGuard<'_, Recorded> {
    recorded.lock().unwrap_or_else(|p| p.into_inner())
}

// Calls are handled one after another in the order they arrive, as the real servers (a GLib
// main loop, dunst's loop) do: a `Notify` replacing an id and a `CloseNotification` of that id
// sent right after it must not swap places, or the replacement finds nothing to replace.
#[zbus::interface(name = "org.freedesktop.Notifications", spawn = false)]
impl Server {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        #[zbus(header)] header: zbus::message::Header<'_>,
        _app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        hints: HashMap<String, zbus::OwnedVariant>,
        expire_timeout: i32,
    ) -> u32 {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let urgency = hints.get("urgency").and_then(|v| u8::try_from(&**v).ok());
        let (keys, labels) = actions
            .chunks(2)
            .map(|pair| (pair[0].clone(), pair.get(1).cloned().unwrap_or_default()))
            .unzip();
        let mut recorded = lock(&self.recorded);
        let existing = (replaces_id != 0)
            .then(|| {
                recorded
                    .shown
                    .iter()
                    .position(|n| n.id == replaces_id && n.open)
            })
            .flatten();
        let id = match existing {
            // A replaced notification keeps its id; the old version is kept as closed history.
            Some(index) => {
                recorded.shown[index].open = false;
                replaces_id
            }
            None => {
                recorded.next_id += 1;
                recorded.next_id
            }
        };
        recorded.shown.push(Shown {
            id,
            replaces: replaces_id,
            summary,
            body,
            actions: keys,
            labels,
            urgency,
            expire_ms: expire_timeout,
            open: true,
            sender,
        });
        id
    }

    async fn close_notification(&self, #[zbus(connection)] connection: &zbus::Connection, id: u32) {
        let sender = {
            let mut recorded = lock(&self.recorded);
            recorded.close_calls.push(id);
            close_open(&mut recorded, id)
        };
        if let Some(sender) = sender {
            let _ = connection
                .emit_signal(
                    Some(sender.as_str()),
                    PATH,
                    INTERFACE,
                    "NotificationClosed",
                    &(id, 3u32),
                )
                .await;
        }
    }

    fn get_capabilities(&self) -> Vec<String> {
        self.capabilities.clone()
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "assent-test".into(),
            "assent".into(),
            "0".into(),
            "1.2".into(),
        )
    }
}

/// Mark notification `id` closed; returns the sender it was shown to, if it was open.
fn close_open(recorded: &mut Recorded, id: u32) -> Option<String> {
    let mut sender = None;
    for n in recorded.shown.iter_mut().filter(|n| n.id == id && n.open) {
        n.open = false;
        sender = Some(n.sender.clone());
    }
    sender
}

/// A notification server on a [`PrivateBus`]; it leaves the bus when dropped or stopped.
pub struct Notifications {
    recorded: Arc<Mutex<Recorded>>,
    connection: Option<zbus::Connection>,
    runtime: tokio::runtime::Runtime,
}

/// The capabilities of a full-featured server.
pub const FULL_CAPABILITIES: [&str; 3] = ["actions", "body", "body-markup"];

impl Notifications {
    /// A server with actions and body markup, numbering its notifications from `first_id`.
    pub fn start(bus: &PrivateBus, first_id: u32) -> Notifications {
        Notifications::with_capabilities(bus, first_id, &FULL_CAPABILITIES)
    }

    /// A server with the given capabilities.
    pub fn with_capabilities(
        bus: &PrivateBus,
        first_id: u32,
        capabilities: &[&str],
    ) -> Notifications {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .thread_name("test-notifications")
            .build()
            .expect("a tokio runtime can be built");
        let recorded = Arc::new(Mutex::new(Recorded {
            next_id: first_id.saturating_sub(1),
            ..Recorded::default()
        }));
        let server = Server {
            recorded: recorded.clone(),
            capabilities: capabilities.iter().map(|c| c.to_string()).collect(),
        };
        let address = bus.address().to_string();
        let connection = runtime.block_on(async move {
            tokio::time::timeout(RECV_TIMEOUT, async {
                zbus::connection::Builder::address(address.as_str())
                    .serve_at(PATH, server)
                    .name(INTERFACE)
                    .build()
                    .await
            })
            .await
            .expect("the notification server connects in time")
            .expect("the notification server owns its name")
        });
        Notifications {
            recorded,
            connection: Some(connection),
            runtime,
        }
    }

    fn connection(&self) -> &zbus::Connection {
        self.connection
            .as_ref()
            .expect("the server is running until stopped")
    }

    /// Leave the bus (the name is released, as when a notification daemon exits).
    pub fn stop(mut self) {
        if let Some(connection) = self.connection.take() {
            self.runtime.block_on(async move {
                let _ = connection.release_name(INTERFACE).await;
                let _ = connection.close().await;
            });
        }
    }

    /// Every notification shown so far (replaced versions included, marked closed).
    pub fn shown(&self) -> Vec<Shown> {
        lock(&self.recorded).shown.clone()
    }

    /// Every `CloseNotification` call's id.
    pub fn close_calls(&self) -> Vec<u32> {
        lock(&self.recorded).close_calls.clone()
    }

    /// Wait (at most [`RECV_TIMEOUT`]) for an open notification that `matches`; panics with
    /// everything shown if none comes.
    pub fn wait_for(&self, what: &str, matches: impl Fn(&Shown) -> bool) -> Shown {
        let mut found = None;
        wait_until(RECV_TIMEOUT, || {
            found = self
                .shown()
                .into_iter()
                .rev()
                .find(|n| n.open && matches(n));
            found.is_some()
        });
        found.unwrap_or_else(|| panic!("no notification {what}; shown: {:#?}", self.shown()))
    }

    /// Wait for an open notification whose body contains `text`.
    pub fn wait_for_body(&self, text: &str) -> Shown {
        self.wait_for(&format!("with {text:?} in its body"), |n| {
            n.body.contains(text)
        })
    }

    /// Wait until notification `id` is closed; returns whether it was.
    pub fn wait_closed(&self, id: u32) -> bool {
        wait_until(RECV_TIMEOUT, || {
            !self.shown().iter().any(|n| n.id == id && n.open)
        })
    }

    /// Whether notification `id` is open.
    pub fn is_open(&self, id: u32) -> bool {
        self.shown().iter().any(|n| n.id == id && n.open)
    }

    /// Send signal `member` with `body` to `destination` only, as real servers do.
    fn emit<B>(&self, destination: &str, member: &str, body: &B)
    where
        B: zbus::export::serde::Serialize + zbus::Type + Sync,
    {
        let connection = self.connection().clone();
        self.runtime
            .block_on(connection.emit_signal(Some(destination), PATH, INTERFACE, member, body))
            .expect("the signal is sent");
    }

    fn sender_of(&self, id: u32) -> String {
        self.shown()
            .iter()
            .rev()
            .find(|n| n.id == id)
            .map(|n| n.sender.clone())
            .unwrap_or_else(|| panic!("no notification {id} was shown"))
    }

    /// The key of the button labelled `label` on notification `id` (its latest version).
    pub fn key(&self, id: u32, label: &str) -> String {
        let shown = self.shown();
        let notification = shown
            .iter()
            .rev()
            .find(|n| n.id == id)
            .unwrap_or_else(|| panic!("no notification {id} was shown"));
        let index = notification
            .labels
            .iter()
            .position(|l| l == label)
            .unwrap_or_else(|| panic!("no button {label:?} on {notification:#?}"));
        notification.actions[index].clone()
    }

    /// Click the button labelled `label` on notification `id`. Like dunst, the notification
    /// stays open: the agent must close it.
    pub fn click(&self, id: u32, label: &str) {
        let sender = self.sender_of(id);
        let key = self.key(id, label);
        self.emit(&sender, "ActionInvoked", &(id, key));
    }

    /// Click the button labelled `label` on notification `id` (its latest version), sending
    /// `ActionInvoked` to every connection on the bus, as GNOME Shell and mako send their
    /// signals.
    pub fn click_to_all(&self, id: u32, label: &str) {
        let key = self.key(id, label);
        let connection = self.connection().clone();
        self.runtime
            .block_on(connection.emit_signal(
                None::<&str>,
                PATH,
                INTERFACE,
                "ActionInvoked",
                &(id, key),
            ))
            .expect("the signal is sent");
    }

    /// Click the button labelled `label` and close the notification at once, as
    /// notification-daemon does: `ActionInvoked` then `NotificationClosed` (reason 2), back to
    /// back on the server's connection.
    pub fn click_and_close(&self, id: u32, label: &str) {
        let sender = self.sender_of(id);
        let key = self.key(id, label);
        lock(&self.recorded).shown.iter_mut().for_each(|n| {
            if n.id == id {
                n.open = false;
            }
        });
        self.emit(&sender, "ActionInvoked", &(id, key));
        self.emit(&sender, "NotificationClosed", &(id, 2u32));
    }

    /// Dismiss notification `id`, as a user closing it without a button does (reason 2).
    pub fn dismiss(&self, id: u32) {
        let sender = self.sender_of(id);
        lock(&self.recorded).shown.iter_mut().for_each(|n| {
            if n.id == id {
                n.open = false;
            }
        });
        self.emit(&sender, "NotificationClosed", &(id, 2u32));
    }
}

impl Drop for Notifications {
    fn drop(&mut self) {
        if let Some(connection) = self.connection.take() {
            self.runtime.block_on(async move {
                let _ = connection.close().await;
            });
        }
    }
}

/// Another connection on a [`PrivateBus`] that sends the notification server's signals: what an
/// agent's own program could do.
pub struct Forger {
    connection: zbus::Connection,
    runtime: tokio::runtime::Runtime,
}

impl Forger {
    /// Connect to `bus`.
    pub fn connect(bus: &PrivateBus) -> Forger {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime can be built");
        let address = bus.address().to_string();
        let connection = runtime
            .block_on(async move {
                tokio::time::timeout(
                    RECV_TIMEOUT,
                    zbus::connection::Builder::address(address.as_str()).build(),
                )
                .await
            })
            .expect("the forger connects in time")
            .expect("the forger connects");
        Forger {
            connection,
            runtime,
        }
    }

    /// Its unique bus name.
    pub fn name(&self) -> String {
        self.connection
            .unique_name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    }

    /// Send `ActionInvoked(id, key)` to `destination` (`None`: to everyone), from the server's
    /// path and interface.
    pub fn click(&self, destination: Option<&str>, id: u32, key: &str) {
        self.runtime
            .block_on(self.connection.emit_signal(
                destination,
                PATH,
                INTERFACE,
                "ActionInvoked",
                &(id, key.to_string()),
            ))
            .expect("the signal is sent");
    }

    /// Call the server's `Notify` with `replaces_id` = `id`: the notification shown as `id` now
    /// says `summary` and `body`, with `actions` (key, label pairs). Returns the id the server
    /// gave, or its error.
    pub fn replace(
        &self,
        id: u32,
        summary: &str,
        body: &str,
        actions: &[(&str, &str)],
    ) -> Result<u32, String> {
        let actions: Vec<&str> = actions.iter().flat_map(|(k, l)| [*k, *l]).collect();
        let hints: HashMap<&str, zbus::Variant> = HashMap::new();
        let body = (
            "assent",
            id,
            "dialog-warning",
            summary,
            body,
            actions,
            hints,
            0i32,
        );
        let call =
            self.connection
                .call_method(Some(INTERFACE), PATH, Some(INTERFACE), "Notify", &body);
        let reply = self
            .runtime
            .block_on(async { tokio::time::timeout(RECV_TIMEOUT, call).await })
            .map_err(|_| "no reply in time".to_string())?
            .map_err(|e| e.to_string())?;
        reply.body().deserialize::<u32>().map_err(|e| e.to_string())
    }
}

/// A running `assent-notify` with its log in a file; killed on drop.
pub struct Agent {
    child: crate::Detached,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

impl Agent {
    /// Start `assent-notify --socket SOCKET` on `bus`, detached from the test process in a
    /// login session of its own (the daemon does not let what the requester started, nor its
    /// session, answer its requests), and wait until it has registered (a notification server
    /// must be on the bus: the agent registers only while one is).
    pub fn start(socket: &Path, bus: &PrivateBus) -> Agent {
        let agent = Agent::spawn(socket, bus);
        agent.wait_registered(1);
        agent
    }

    /// [`Agent::start`] without waiting for the registration.
    pub fn spawn(socket: &Path, bus: &PrivateBus) -> Agent {
        let dir = tempfile::tempdir().expect("a temporary directory can be made");
        let log = dir.path().join("assent-notify.log");
        let mut command = our_command("assent-notify");
        command
            .arg("--socket")
            .arg(socket)
            .env("DBUS_SESSION_BUS_ADDRESS", bus.address())
            .env("ASSENT_LOG", "debug,zbus=info")
            .env_remove("JOURNAL_STREAM");
        let child = crate::Detached::spawn_logged(&command, &log);
        Agent {
            child,
            log,
            _dir: dir,
        }
    }

    /// Its log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// How many times it has registered with a daemon.
    pub fn registrations(&self) -> usize {
        self.log().matches("registered as approval agent").count()
    }

    /// Wait until it has registered `count` times; panics with its log if it does not.
    pub fn wait_registered(&self, count: usize) {
        assert!(
            wait_until(RECV_TIMEOUT, || self.registrations() >= count),
            "assent-notify did not register (#{count}); its log:\n{}",
            self.log()
        );
    }

    /// Wait until its log contains `text`; returns whether it did.
    pub fn wait_log(&self, text: &str) -> bool {
        wait_until(RECV_TIMEOUT, || self.log().contains(text))
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        self.child
            .program_pid()
            .is_some_and(|pid| alive(pid) && self.child.exit_code(Duration::ZERO).is_none())
    }

    /// Stop it with SIGTERM and wait; returns its exit status code.
    pub fn terminate(self) -> Option<i32> {
        let pid = self.child.program_pid().expect("assent-notify started");
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
        let code = self.child.exit_code(Duration::from_secs(10));
        assert!(code.is_some(), "assent-notify did not stop on SIGTERM");
        code
    }
}

/// Whether `pid` is a live process (not a zombie).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, r)| r.trim_start().starts_with('Z'))
        })
        .is_some_and(|zombie| !zombie)
}
