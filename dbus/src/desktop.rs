//! The desktop side: `org.freedesktop.Notifications` on the session bus.
//!
//! One bus connection for the agent's life. `ActionInvoked` and `NotificationClosed` are sent
//! only to the connection that called `Notify`, so both signal streams are made on that same
//! connection before any `Notify`. zbus's signal streams accept a signal only from the current
//! owner of the server's name, so another program on the bus cannot click a button for the user.
//!
//! The server may be absent, or restart: every call here fails softly (logged, `None`), and
//! [`Event::Server`] says when the name changes owner so the agent can show its requests again.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::time::Duration;

use futures_core::Stream;
use zbus::Variant;

use crate::error::Error;
use crate::text::{Caps, Note};

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
    /// Show or replace a notification; returns its id.
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &self,
        app_name: &str,
        replaces_id: u32,
        app_icon: &str,
        summary: &str,
        body: &str,
        actions: &[&str],
        hints: HashMap<&str, Variant<'_>>,
        expire_timeout: i32,
    ) -> zbus::Result<u32>;

    /// Close a notification.
    fn close_notification(&self, id: u32) -> zbus::Result<()>;

    /// What the server supports (`actions`, `body-markup`, …).
    fn get_capabilities(&self) -> zbus::Result<Vec<String>>;

    /// A button was clicked.
    #[zbus(signal)]
    fn action_invoked(&self, id: u32, action_key: String) -> zbus::Result<()>;

    /// A notification was closed: 1 expired, 2 dismissed, 3 closed by `CloseNotification`.
    #[zbus(signal)]
    fn notification_closed(&self, id: u32, reason: u32) -> zbus::Result<()>;
}

/// Something the desktop did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A button of notification `id` was clicked.
    Action {
        /// The notification.
        id: u32,
        /// The button's key.
        key: String,
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
    /// The session bus connection ended.
    BusLost,
}

/// The notification server, as the agent sees it.
pub struct Desktop {
    proxy: NotificationsProxy<'static>,
    actions: ActionInvokedStream,
    closed: NotificationClosedStream,
    owner: zbus::proxy::OwnerChangedStream<'static>,
    caps: Caps,
    /// A notification server answered the last time we asked, and has not left since.
    present: bool,
}

impl std::fmt::Debug for Desktop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Desktop")
            .field("caps", &self.caps)
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
        let proxy = NotificationsProxy::builder(&connection)
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
            .map_err(|e| Error::Bus(e.to_string()))?;
        // Subscribe before the first Notify: the signals go only to this connection, and a
        // click that comes before the subscription would be lost.
        let actions = proxy
            .receive_action_invoked()
            .await
            .map_err(|e| Error::Bus(e.to_string()))?;
        let closed = proxy
            .receive_notification_closed()
            .await
            .map_err(|e| Error::Bus(e.to_string()))?;
        let owner = proxy
            .inner()
            .receive_owner_changed()
            .await
            .map_err(|e| Error::Bus(e.to_string()))?;
        let mut desktop = Desktop {
            proxy,
            actions,
            closed,
            owner,
            caps: Caps::default(),
            present: false,
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
        match bounded(self.proxy.get_capabilities()).await {
            Ok(list) => {
                self.caps = Caps::from_list(&list);
                self.present = true;
                tracing::info!(capabilities = ?list, "notification server found");
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
                tracing::warn!(%error, "no notification server on the session bus: not an approval agent until one starts");
            }
        }
    }

    /// Show `note`, replacing notification `replaces` (0 for a new one). Returns its id, or
    /// `None` (logged) when the server did not take it.
    pub async fn notify(&self, replaces: u32, note: &Note) -> Option<u32> {
        let mut actions = Vec::with_capacity(note.actions.len() * 2);
        for (key, label) in &note.actions {
            actions.push(*key);
            actions.push(*label);
        }
        let mut hints = HashMap::new();
        hints.insert("urgency", Variant::from(note.urgency as u8));
        let call = self.proxy.notify(
            APP_NAME,
            replaces,
            APP_ICON,
            &note.summary,
            &note.body,
            &actions,
            hints,
            note.expire_ms,
        );
        match bounded(call).await {
            Ok(id) => {
                tracing::debug!(id, replaces, "notification shown");
                Some(id)
            }
            Err(error) => {
                tracing::warn!(%error, "could not show a notification");
                None
            }
        }
    }

    /// Close notification `id`; a notification already gone is not an error.
    pub async fn close(&self, id: u32) {
        if let Err(error) = bounded(self.proxy.close_notification(id)).await {
            tracing::debug!(id, %error, "could not close a notification");
        }
    }

    /// The next thing the desktop did. Cancel-safe: the streams keep what they have not
    /// yielded.
    pub async fn next_event(&mut self) -> Event {
        enum Got {
            Action(Option<ActionInvoked>),
            Closed(Option<NotificationClosed>),
            Owner(Option<Option<zbus::names::UniqueName<'static>>>),
        }
        loop {
            let got = tokio::select! {
                signal = next(&mut self.actions) => Got::Action(signal),
                signal = next(&mut self.closed) => Got::Closed(signal),
                owner = next(&mut self.owner) => Got::Owner(owner),
            };
            match got {
                Got::Action(Some(signal)) => match signal.args() {
                    Ok(args) => {
                        return Event::Action {
                            id: *args.id(),
                            key: args.action_key().clone(),
                        };
                    }
                    Err(error) => tracing::debug!(%error, "malformed ActionInvoked"),
                },
                Got::Closed(Some(signal)) => match signal.args() {
                    Ok(args) => {
                        return Event::Closed {
                            id: *args.id(),
                            reason: *args.reason(),
                        };
                    }
                    Err(error) => tracing::debug!(%error, "malformed NotificationClosed"),
                },
                Got::Owner(Some(owner)) => {
                    let present = owner.is_some();
                    if present {
                        self.refresh_caps().await;
                    } else {
                        tracing::warn!("the notification server left the session bus");
                        self.caps = Caps::default();
                        self.present = false;
                    }
                    return Event::Server(present);
                }
                Got::Action(None) | Got::Closed(None) | Got::Owner(None) => return Event::BusLost,
            }
        }
    }
}
