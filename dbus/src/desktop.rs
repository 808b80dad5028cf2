//! The desktop side: `org.freedesktop.Notifications` on the session bus.
//!
//! One bus connection for the agent's life. `ActionInvoked` and `NotificationClosed` come on
//! one ordered stream, subscribed before any `Notify`: a server that sends a click as
//! `ActionInvoked` then `NotificationClosed` (notification-daemon does) is read in that order,
//! so the close never overtakes the click. A signal counts only from the connection that
//! answered the `Notify` for its id, with one of that notification's random keys
//! ([`registry`]); anything else on the bus that sends one is ignored.
//!
//! The server may be absent, or restart: every call here fails softly (logged, `None`), and
//! [`Event::Server`] says when the name changes owner; what the old owner showed stops
//! counting then.
//!
//! The keys are not secret from the user's other programs: any of them may monitor the session
//! bus and read them off the `Notify` call, then call `Notify` with the shown id as its
//! `replaces_id` and those keys, so that the person's click on the text it wrote comes back
//! (from a server that sends its signals to everyone, as GNOME Shell and mako do) as a click on
//! the held request. So a second connection monitors the bus for `Notify` calls, and
//! [`Event::Replaced`] says when another connection replaced a notification this agent shows.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;
use zbus::Variant;
use zbus::message::Type;

use crate::error::Error;
use crate::text::{Caps, Note};

pub mod registry;

use registry::Registry;

/// How long any call to the notification server may take before it counts as failed.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The bus name the agent owns while it runs, one agent per session bus.
pub const AGENT_NAME: &str = "org.assent.Notify";

/// The application name shown by the server.
const APP_NAME: &str = "assent";

/// The icon: a standard freedesktop icon name.
const APP_ICON: &str = "dialog-warning";

#[zbus::proxy(
    interface = "org.freedesktop.Notifications",
    default_service = "org.freedesktop.Notifications",
    default_path = "/org/freedesktop/Notifications"
)]
trait Notifications {
    /// Close a notification.
    fn close_notification(&self, id: u32) -> zbus::Result<()>;
}

/// The server's well-known name, object and interface.
const SERVICE: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";
const INTERFACE: &str = "org.freedesktop.Notifications";

/// Something the desktop did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A button of notification `id` was clicked, by the server that showed it.
    Action {
        /// The notification.
        id: u32,
        /// The action it stands for (a [`crate::text::action`] name, not the random key).
        key: &'static str,
    },
    /// Notification `id` was closed by the server or the user.
    Closed {
        /// The notification.
        id: u32,
        /// Why (1 expired, 2 dismissed, 3 closed by a call, 4 other).
        reason: u32,
    },
    /// The server's name changed owner: `true` when a server now owns it. The capabilities
    /// have been asked again already.
    Server(bool),
    /// Another connection than this agent's called `Notify` with the id of a notification
    /// the agent shows as its `replaces_id`: what it shows now is not the agent's, and none of
    /// what it showed counts any more.
    Replaced {
        /// The notification.
        id: u32,
        /// The unique bus name that replaced it.
        by: String,
    },
    /// The session bus connection ended.
    BusLost,
}

/// The notification server, as the agent sees it.
pub struct Desktop {
    connection: zbus::Connection,
    proxy: NotificationsProxy<'static>,
    /// `ActionInvoked` and `NotificationClosed` from anyone, in the order the bus delivered them.
    signals: zbus::MessageStream,
    owner: zbus::proxy::OwnerChangedStream<'static>,
    /// The unique name of the server that answered last, the one notifications go to.
    server: Option<String>,
    /// What was shown, by whom, with which keys.
    registry: Registry,
    caps: Caps,
    /// A notification server answered the last time we asked, and has not left since.
    present: bool,
    /// Every `Notify` call on the bus, from a monitor connection; `None` when the bus would not
    /// let it monitor (logged).
    calls: Option<zbus::MessageStream>,
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desktop")
            .field("caps", &self.caps)
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

/// Run a call with [`CALL_TIMEOUT`].
async fn bounded<T>(call: impl Future<Output = zbus::Result<T>>) -> Result<T, String> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!("no reply within {CALL_TIMEOUT:?}")),
    }
}

/// The next item of a stream (a `StreamExt::next` without the extra crate).
async fn next<S: Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    poll_fn(|cx| Pin::new(&mut *stream).poll_next(cx)).await
}

/// A connection that monitors the bus for `Notify` calls, whoever sends them to whomever. A
/// monitor may send nothing more; the bus lets a connection of the same user become one.
async fn monitor_notify_calls() -> zbus::Result<zbus::MessageStream> {
    let connection = zbus::connection::Builder::session().build().await?;
    let rule = zbus::MatchRule::builder()
        .msg_type(Type::MethodCall)
        .member("Notify")
        .build()?;
    zbus::fdo::MonitoringProxy::new(&connection)
        .await?
        .become_monitor(&[rule], 0)
        .await?;
    Ok(zbus::MessageStream::from(connection))
}

/// The next message of an optional stream; never, without one.
async fn next_call(calls: &mut Option<zbus::MessageStream>) -> Option<zbus::Result<zbus::Message>> {
    match calls {
        Some(stream) => next(stream).await,
        None => std::future::pending().await,
    }
}

/// Who sent `message` (the bus sets it; a client cannot forge it).
fn sender(message: &zbus::Message) -> Option<String> {
    message.header().sender().map(|s| s.to_string())
}

impl Desktop {
    /// Connect to the session bus (`$DBUS_SESSION_BUS_ADDRESS`), take [`AGENT_NAME`],
    /// subscribe to the server's signals, and ask its capabilities if it is there.
    pub async fn connect() -> Result<Desktop, Error> {
        // Owning AGENT_NAME makes this the only agent on this session bus: a second one (say,
        // the systemd user unit and the XDG autostart entry both enabled) finds it taken.
        let connection = zbus::connection::Builder::session()
            .name(AGENT_NAME)
            .allow_name_replacements(false)
            .replace_existing_names(false)
            .build()
            .await
            .map_err(|e| match e {
                zbus::Error::NameTaken => Error::AlreadyRunning,
                other => Error::Bus(other.to_string()),
            })?;
        let bus = |e: zbus::Error| Error::Bus(e.to_string());
        let proxy = NotificationsProxy::builder(&connection)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(bus)?;
        // Subscribe before the first Notify: a click that came before the subscription would be
        // lost. No sender in the rule: the sender is checked per notification, and what is
        // ignored is logged.
        let rule = zbus::MatchRule::builder()
            .msg_type(Type::Signal)
            .interface(INTERFACE)
            .build()
            .map_err(bus)?;
        let signals = zbus::MessageStream::for_match_rule(rule, &connection, None)
            .await
            .map_err(bus)?;
        let owner = proxy.inner().receive_owner_changed().await.map_err(bus)?;
        let calls = match tokio::time::timeout(CALL_TIMEOUT, monitor_notify_calls()).await {
            Ok(Ok(calls)) => Some(calls),
            Ok(Err(error)) => {
                tracing::warn!(%error, "cannot monitor the session bus: a notification another program replaces by its id is not noticed");
                None
            }
            Err(_) => {
                tracing::warn!(
                    "cannot monitor the session bus (no reply in time): a notification another program replaces by its id is not noticed"
                );
                None
            }
        };
        let mut desktop = Desktop {
            connection,
            proxy,
            signals,
            owner,
            server: None,
            registry: Registry::default(),
            caps: Caps::default(),
            present: false,
            calls,
        };
        desktop.refresh_caps().await;
        Ok(desktop)
    }

    /// What the server can do (the specification's minimum when it is absent).
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// Whether a notification server is there to show requests.
    pub fn present(&self) -> bool {
        self.present
    }

    /// Ask the server's capabilities again; log what the agent cannot do with it.
    pub async fn refresh_caps(&mut self) {
        let call = self.connection.call_method(
            Some(SERVICE),
            PATH,
            Some(INTERFACE),
            "GetCapabilities",
            &(),
        );
        let reply = bounded(call).await.and_then(|reply| {
            let list: Vec<String> = reply.body().deserialize().map_err(|e| e.to_string())?;
            Ok((sender(&reply), list))
        });
        match reply {
            Ok((server, list)) => {
                self.caps = Caps::from_list(&list);
                self.present = true;
                self.server = server;
                tracing::info!(capabilities = ?list, server = ?self.server, "notification server found");
                if !self.caps.actions {
                    tracing::warn!(
                        "the notification server shows no action buttons: notifications say to answer with `assent approve TOKEN` or `assent deny TOKEN`"
                    );
                }
                if !self.caps.body_markup {
                    tracing::warn!("the notification server shows no body markup: plain text");
                }
            }
            Err(error) => {
                self.caps = Caps::default();
                self.present = false;
                self.server = None;
                tracing::warn!(%error, "no notification server on the session bus: not an approval agent until one starts");
            }
        }
    }

    /// Show `note`, replacing notification `replaces` (0 for a new one). Returns its id, or
    /// `None` (logged) when the server did not take it, or when it was answered by another
    /// connection than the server the agent knows (the name changed hands: the owner change
    /// follows, and what the new owner showed does not count until then).
    pub async fn notify(&mut self, replaces: u32, note: &Note) -> Option<u32> {
        let mut keys = Vec::with_capacity(note.actions.len());
        for (action, _) in &note.actions {
            let Some(key) = registry::new_key() else {
                tracing::warn!("could not draw an action key from the OS RNG: not shown");
                return None;
            };
            keys.push((key, *action));
        }
        let mut actions = Vec::with_capacity(note.actions.len() * 2);
        for ((key, _), (_, label)) in keys.iter().zip(&note.actions) {
            actions.push(key.as_str());
            actions.push(*label);
        }
        let mut hints = HashMap::new();
        hints.insert("urgency", Variant::from(note.urgency as u8));
        let body = (
            APP_NAME,
            replaces,
            APP_ICON,
            note.summary.as_str(),
            note.body.as_str(),
            actions,
            hints,
            note.expire_ms,
        );
        let call =
            self.connection
                .call_method(Some(SERVICE), PATH, Some(INTERFACE), "Notify", &body);
        let reply = bounded(call).await.and_then(|reply| {
            let id: u32 = reply.body().deserialize().map_err(|e| e.to_string())?;
            Ok((sender(&reply), id))
        });
        match reply {
            Ok((Some(server), id)) if self.server.as_deref() == Some(server.as_str()) => {
                tracing::debug!(id, replaces, "notification shown");
                self.registry.shown(id, replaces, &server, keys);
                Some(id)
            }
            Ok((server, id)) => {
                tracing::warn!(id, ?server, known = ?self.server, "a notification was taken by another server than the one the agent knows: its answers will not count");
                None
            }
            Err(error) => {
                tracing::warn!(%error, "could not show a notification");
                None
            }
        }
    }

    /// Close notification `id`; a notification already gone is not an error.
    pub async fn close(&mut self, id: u32) {
        self.registry.forget(id);
        if let Err(error) = bounded(self.proxy.close_notification(id)).await {
            tracing::debug!(id, %error, "could not close a notification");
        }
    }

    /// A signal from the notification stream as an event, if it counts.
    fn signal(&mut self, message: &zbus::Message) -> Option<Event> {
        let header = message.header();
        let member = header.member().map(|m| m.as_str().to_string());
        let from = sender(message).unwrap_or_default();
        match member.as_deref() {
            Some("ActionInvoked") => {
                let (id, key): (u32, String) = match message.body().deserialize() {
                    Ok(args) => args,
                    Err(error) => {
                        tracing::debug!(%error, %from, "malformed ActionInvoked");
                        return None;
                    }
                };
                match self.registry.action(id, &from, &key) {
                    Some(action) => Some(Event::Action { id, key: action }),
                    None => {
                        tracing::debug!(id, %from, %key, "ActionInvoked ignored: not from the server that showed it, or not one of its keys");
                        None
                    }
                }
            }
            Some("NotificationClosed") => {
                let (id, reason): (u32, u32) = match message.body().deserialize() {
                    Ok(args) => args,
                    Err(error) => {
                        tracing::debug!(%error, %from, "malformed NotificationClosed");
                        return None;
                    }
                };
                if self.registry.closed(id, &from) {
                    Some(Event::Closed { id, reason })
                } else {
                    tracing::debug!(id, %from, "NotificationClosed ignored: not one this agent has open at that server");
                    None
                }
            }
            _ => None,
        }
    }

    /// A `Notify` call seen on the bus, as [`Event::Replaced`] when another connection than
    /// this agent's sent it to replace a notification the agent shows.
    fn replaced(&mut self, message: &zbus::Message) -> Option<Event> {
        let header = message.header();
        if header.message_type() != Type::MethodCall
            || header.member().map(|m| m.as_str()) != Some("Notify")
            || header.interface().is_some_and(|i| i.as_str() != INTERFACE)
        {
            return None;
        }
        let from = sender(message)?;
        let own = self.connection.unique_name().map(|n| n.to_string());
        if own.as_deref() == Some(from.as_str()) {
            return None;
        }
        type Notify = (
            String,
            u32,
            String,
            String,
            String,
            Vec<String>,
            HashMap<String, zbus::OwnedVariant>,
            i32,
        );
        let replaces = match message.body().deserialize::<Notify>() {
            Ok(args) => args.1,
            Err(error) => {
                tracing::debug!(%error, %from, "a Notify call that is not the specification's");
                return None;
            }
        };
        if replaces == 0 || !self.registry.has(replaces) {
            return None;
        }
        // Nothing it showed counts any more: the server may show another's text on its keys.
        self.registry.clear();
        Some(Event::Replaced {
            id: replaces,
            by: from,
        })
    }

    /// The next thing the desktop did. Cancel-safe: the streams keep what they have not
    /// yielded.
    pub async fn next_event(&mut self) -> Event {
        enum Got {
            Signal(Option<zbus::Result<zbus::Message>>),
            Owner(Option<Option<zbus::names::UniqueName<'static>>>),
            Call(Option<zbus::Result<zbus::Message>>),
        }
        loop {
            let got = tokio::select! {
                // A replacement first: a program that floods the bus with signals (forged
                // clicks are cheap) must not keep it waiting until the person has clicked on
                // what it wrote. Then the signals: what the old server sent before it left is
                // read before its leaving, as far as both have arrived.
                biased;
                call = next_call(&mut self.calls) => Got::Call(call),
                signal = next(&mut self.signals) => Got::Signal(signal),
                owner = next(&mut self.owner) => Got::Owner(owner),
            };
            match got {
                Got::Signal(Some(Ok(message))) => {
                    if let Some(event) = self.signal(&message) {
                        return event;
                    }
                }
                Got::Signal(Some(Err(error))) => {
                    tracing::debug!(%error, "bad message on the signal stream")
                }
                Got::Call(Some(Ok(message))) => {
                    if let Some(event) = self.replaced(&message) {
                        return event;
                    }
                }
                Got::Call(Some(Err(error))) => {
                    tracing::debug!(%error, "bad message on the monitor")
                }
                Got::Call(None) => {
                    tracing::warn!(
                        "the session bus ended the monitor connection: a notification another program replaces by its id is not noticed"
                    );
                    self.calls = None;
                }
                Got::Owner(Some(owner)) => {
                    // Whatever the old owner showed, its clicks stop counting now.
                    self.registry.clear();
                    let present = owner.is_some();
                    if present {
                        tracing::warn!(new = ?owner.as_ref().map(|o| o.to_string()), old = ?self.server, "org.freedesktop.Notifications changed owner");
                        self.refresh_caps().await;
                    } else {
                        tracing::warn!("the notification server left the session bus");
                        self.caps = Caps::default();
                        self.present = false;
                        self.server = None;
                    }
                    return Event::Server(present);
                }
                Got::Signal(None) | Got::Owner(None) => return Event::BusLost,
            }
        }
    }
}
