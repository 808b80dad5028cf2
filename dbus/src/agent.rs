//! The agent's loop: register with the daemon, show what it pushes, answer what is clicked,
//! reconnect when it goes away.
//!
//! One task owns everything (the queue, the daemon connection, the bus), so there are no locks
//! and every event is handled in the order it came. Nothing is ever answered without a click:
//! a dismissed notification, an absent notification server or a lost daemon leave requests to
//! expire as a deny.
//!
//! A notification server that changed owner while requests were held is shown nothing until
//! they have all ended ([`crate::trust`]); meanwhile the agent stays registered, so it hears
//! them end, and they are answered with `assent watch` or `assent approve`.

use std::future::Future;
use std::path::PathBuf;
use std::pin::pin;
use std::time::{Duration, Instant};

use assent_client::protocol::{PendingItem, WireError};

use crate::daemon::{Daemon, Pushed};
use crate::desktop::{Desktop, Event};
use crate::error::Error;
use crate::queue::{Clicked, Group, GroupId, Held, Kind, Queue, Shown};
use crate::text::{self, Note};
use crate::trust::{Distrust, Trust};

/// The first wait before reconnecting to the daemon; it doubles up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(200);
/// The longest wait between two attempts to reach the daemon.
pub const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// How long the daemon may take to answer a registration before the agent tries again.
pub const REGISTER_TIMEOUT: Duration = Duration::from_secs(10);

/// How often the agent asks for a notification server while there is none (one started on
/// demand by the bus, which owns no name until asked, is found this way).
pub const SERVER_POLL: Duration = Duration::from_secs(10);

/// How the agent runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The daemon's socket.
    pub socket: PathBuf,
    /// What the agent calls itself when it registers (`assent-notify 0.1.0`).
    pub name: String,
}

/// Why [`serve`] returned.
enum Ended {
    /// The daemon went away: reconnect.
    Daemon,
    /// The notification server went away: unregister until one is back.
    Server,
    /// Stop (shutdown, or the session bus is gone).
    Stop(Result<(), Error>),
}

/// Run until `shutdown` resolves (`Ok`) or the session bus is lost (`Err`).
pub async fn run(config: Config, shutdown: impl Future<Output = ()>) -> Result<(), Error> {
    let mut desktop = Desktop::connect().await?;
    let mut shutdown = pin!(shutdown);
    let mut backoff = FIRST_BACKOFF;
    let mut last_error = String::new();
    // Kept across registrations: a server that took the name while requests were held is not
    // shown them after a reconnection either.
    let mut distrust = Distrust::default();
    loop {
        // An approval agent nobody can see would let requests wait where nobody looks: it
        // registers only while a notification server is there.
        if !desktop.present() {
            tracing::info!("waiting for a notification server before registering");
            loop {
                let poll = tokio::time::sleep(SERVER_POLL);
                tokio::select! {
                    () = poll => desktop.refresh_caps().await,
                    () = &mut shutdown => return Ok(()),
                    event = desktop.next_event() => {
                        if event == Event::BusLost {
                            return Err(Error::Bus("the session bus connection ended".into()));
                        }
                    }
                }
                if desktop.present() {
                    break;
                }
            }
        }
        let register = tokio::time::timeout(
            REGISTER_TIMEOUT,
            Daemon::register(&config.socket, &config.name, desktop.caps().actions),
        );
        let registered = tokio::select! {
            registered = register => registered.unwrap_or_else(|_| {
                Err(Error::Unexpected(format!("no reply to the registration within {REGISTER_TIMEOUT:?}")))
            }),
            () = &mut shutdown => return Ok(()),
        };
        match registered {
            Ok(daemon) => {
                tracing::info!(socket = %config.socket.display(), "registered as approval agent");
                backoff = FIRST_BACKOFF;
                last_error.clear();
                let mut agent = Agent {
                    desktop: &mut desktop,
                    daemon,
                    queue: Queue::new(),
                    distrust: &mut distrust,
                };
                let ended = agent.serve(shutdown.as_mut()).await;
                agent.close_all().await;
                match ended {
                    Ended::Daemon => {
                        tracing::warn!("lost the connection to assentd; its held requests ended")
                    }
                    Ended::Server => {
                        tracing::warn!(
                            "the notification server left: unregistered until one is back"
                        );
                        continue;
                    }
                    Ended::Stop(result) => return result,
                }
            }
            Err(error) => {
                // Log a new reason once; the same one again only at debug level.
                let message = error.to_string();
                if message != last_error {
                    tracing::warn!(%error, retry_in = ?backoff, "could not register with assentd");
                    last_error = message;
                } else {
                    tracing::debug!(%error, retry_in = ?backoff, "could not register with assentd");
                }
            }
        }
        // Wait, while still following the notification server.
        let sleep = tokio::time::sleep(backoff);
        let mut sleep = pin!(sleep);
        loop {
            tokio::select! {
                () = &mut sleep => break,
                () = &mut shutdown => return Ok(()),
                event = desktop.next_event() => {
                    if event == Event::BusLost {
                        return Err(Error::Bus("the session bus connection ended".into()));
                    }
                }
            }
        }
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// One registration's state.
struct Agent<'a> {
    desktop: &'a mut Desktop,
    daemon: Daemon,
    queue: Queue,
    distrust: &'a mut Distrust,
}

enum Input {
    Daemon(Result<Pushed, Error>),
    Desktop(Event),
    /// A request held when the server changed owner has passed its deadline.
    Deadline,
    Shutdown,
}

/// Sleep until `at`, or forever.
async fn until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

impl Agent<'_> {
    async fn serve(&mut self, mut shutdown: std::pin::Pin<&mut impl Future<Output = ()>>) -> Ended {
        loop {
            let deadline = self.distrust.next_deadline();
            let input = tokio::select! {
                pushed = self.daemon.recv() => Input::Daemon(pushed),
                event = self.desktop.next_event() => Input::Desktop(event),
                () = until(deadline) => Input::Deadline,
                () = &mut shutdown => Input::Shutdown,
            };
            match input {
                Input::Daemon(Ok(pushed)) => {
                    if let Some(ended) = self.pushed(pushed).await {
                        return ended;
                    }
                }
                Input::Deadline => {
                    let trust = self.distrust.expire(Instant::now());
                    if let Some(ended) = self.trust(trust).await {
                        return ended;
                    }
                }
                Input::Daemon(Err(error)) => {
                    tracing::debug!(%error, "daemon connection ended");
                    return Ended::Daemon;
                }
                Input::Desktop(Event::BusLost) => {
                    return Ended::Stop(Err(Error::Bus("the session bus connection ended".into())));
                }
                Input::Desktop(Event::Server(present)) => {
                    if let Some(ended) = self.server_changed(present).await {
                        return ended;
                    }
                }
                Input::Desktop(Event::Replaced { id, by }) => self.replaced(id, &by).await,
                Input::Desktop(event) => {
                    if let Err(error) = self.desktop_event(event).await {
                        tracing::debug!(%error, "daemon connection ended");
                        return Ended::Daemon;
                    }
                }
                Input::Shutdown => return Ended::Stop(Ok(())),
            }
        }
    }

    /// The notification server's name changed owner (`present`: somebody owns it now).
    async fn server_changed(&mut self, present: bool) -> Option<Ended> {
        let held = self.queue.tokens();
        // Whatever was up is gone with the old owner, or is the new owner's to fake.
        let waiting = self.queue.server_lost();
        if !held.is_empty() {
            self.distrust.changed(held);
            tracing::warn!(
                held = self.distrust.len(),
                "org.freedesktop.Notifications changed owner while requests are held: nothing more is shown until they have ended; answer them with `assent watch` or `assent approve`"
            );
        }
        if self.distrust.active() {
            // Stay registered, to hear them end.
            return None;
        }
        if !present {
            return Some(Ended::Server);
        }
        for id in waiting {
            self.show(id).await;
        }
        None
    }

    /// Another program replaced notification `id` (see [`Event::Replaced`]): the person may be
    /// reading its text on a request's buttons. Every notification is closed, and nothing more
    /// is shown until the requests held now have ended, as when the server changes owner: they
    /// stay answerable by `assent watch` and `assent approve`.
    async fn replaced(&mut self, id: u32, by: &str) {
        let shown: Vec<u32> = self
            .queue
            .groups()
            .iter()
            .filter_map(Group::notification)
            .collect();
        self.queue.server_lost();
        self.distrust.changed(self.queue.tokens());
        tracing::warn!(
            id,
            %by,
            held = self.distrust.len(),
            "a held request's notification was replaced by another program: no click on it counts, every notification is closed, and nothing more is shown until the requests held now have ended; answer them with `assent watch` or `assent approve`"
        );
        for id in shown {
            self.desktop.close(id).await;
        }
    }

    /// After a request ended: when trust came back, show what waits (or leave, if there is no
    /// server to show it on).
    async fn trust(&mut self, trust: Trust) -> Option<Ended> {
        if trust == Trust::Unchanged {
            return None;
        }
        tracing::warn!(
            "every request held when the notification server changed owner has ended: its notifications are trusted again"
        );
        if !self.desktop.present() {
            return Some(Ended::Server);
        }
        for id in self.queue.waiting() {
            self.show(id).await;
        }
        None
    }

    async fn pushed(&mut self, pushed: Pushed) -> Option<Ended> {
        let now = Instant::now();
        match pushed {
            Pushed::Held(item) => {
                tracing::info!(
                    token = %item.token,
                    uid = item.uid,
                    pid = item.pid,
                    program = %item.program,
                    level = item.level.as_str(),
                    items = item.items.len(),
                    "held request"
                );
                tracing::debug!(subject = %item.subject, "held request's subject");
                match self.queue.held(*item, now) {
                    Held::New(id) => self.show(id).await,
                    Held::Joined(id) => {
                        // A new request is not dismissed even if its twin was.
                        if self.queue.get(id).map(|g| g.shown) == Some(Shown::Dismissed) {
                            self.queue.set_shown(id, Shown::Waiting);
                        }
                        self.show(id).await;
                    }
                    Held::Known => {}
                }
            }
            Pushed::Withdrawn(withdrawn) => {
                tracing::info!(
                    token = %withdrawn.token,
                    by = withdrawn.outcome.by.as_str(),
                    allow = withdrawn.outcome.allow,
                    "request ended"
                );
                let ended = self.queue.withdrawn(&withdrawn);
                for group in &ended.removed {
                    if let Some(id) = group.notification() {
                        self.desktop.close(id).await;
                    }
                }
                for id in ended.shrunk {
                    if matches!(self.queue.get(id).map(|g| g.shown), Some(Shown::Up(_))) {
                        self.show(id).await;
                    }
                }
                if let Some(item) = ended.missed {
                    self.missed(&item).await;
                }
                let trust = self.distrust.ended(&withdrawn.token);
                return self.trust(trust).await;
            }
            Pushed::Replied(answer, Ok(())) => {
                tracing::info!(token = %answer.token, allow = answer.allow, item = ?answer.item, remember = %answer.remember.describe(), "answer recorded");
            }
            Pushed::Replied(answer, Err(error)) => self.refused(&answer.token, &error).await,
        }
        None
    }

    async fn desktop_event(&mut self, event: Event) -> Result<(), Error> {
        match event {
            Event::Action { id, key } => match self.queue.clicked(id, key) {
                Clicked::Answer(group, answers) => {
                    // Some servers keep a notification after a click: close it.
                    self.desktop.close(id).await;
                    tracing::info!(group = group.id, action = %key, requests = answers.len(), "answering");
                    for answer in answers {
                        self.daemon.answer(answer).await?;
                    }
                }
                Clicked::Review(_, items) => {
                    self.desktop.close(id).await;
                    for item in items {
                        self.show(item).await;
                    }
                }
                Clicked::Remembering(group) => {
                    // A fresh notification, not a replacement: the server may close the
                    // clicked one after this, and that must not count as dismissing the new.
                    tracing::info!(group, "showing the remembering answers");
                    self.desktop.close(id).await;
                    self.show(group).await;
                }
                Clicked::Ignored => tracing::debug!(id, %key, "action on no held request"),
            },
            Event::Closed { id, reason } => {
                if self.queue.dismissed(id) {
                    tracing::info!(
                        id,
                        reason,
                        "notification closed without an answer: the request stays held until it expires"
                    );
                }
            }
            Event::Server(_) | Event::BusLost | Event::Replaced { .. } => {}
        }
        Ok(())
    }

    /// Show (or update) a group's notification; left waiting if the server does not take it.
    async fn show(&mut self, id: GroupId) {
        if self.distrust.active() {
            tracing::debug!(
                group = id,
                "not shown: the notification server is not trusted yet"
            );
            return;
        }
        let now = Instant::now();
        let caps = self.desktop.caps();
        let Some(group) = self.queue.get(id) else {
            return;
        };
        let left = group.left(now);
        if left.is_zero() {
            return;
        }
        let Some(note) = note_for(group, left, caps) else {
            return;
        };
        let replaces = group.notification().unwrap_or(0);
        match self.desktop.notify(replaces, &note).await {
            Some(notification) => self.queue.set_shown(id, Shown::Up(notification)),
            None => {
                tracing::warn!(token = %group.item.token, "request not shown; it waits for a notification server");
                self.queue.set_shown(id, Shown::Waiting);
            }
        }
    }

    async fn missed(&mut self, item: &PendingItem) {
        if self.distrust.active() {
            return;
        }
        tracing::info!(token = %item.token, "request expired unanswered: denied once");
        let note = text::missed(item, self.desktop.caps());
        self.desktop.notify(0, &note).await;
    }

    async fn refused(&mut self, token: &str, error: &WireError) {
        tracing::warn!(%token, kind = error.kind.as_str(), message = %error.message, "assentd refused an answer");
        if self.distrust.active() {
            return;
        }
        let note = text::refused(&error.to_string(), self.desktop.caps());
        self.desktop.notify(0, &note).await;
    }

    /// Close every notification of this registration's requests.
    async fn close_all(&mut self) {
        for id in self.queue.clear() {
            self.desktop.close(id).await;
        }
    }
}

/// The notification for a group, or `None` if a reviewed item has gone from its batch.
fn note_for(group: &Group, left: Duration, caps: text::Caps) -> Option<Note> {
    match group.kind {
        Kind::Request => Some(text::request(
            &group.item,
            group.count(),
            left,
            caps,
            group.remembering,
        )),
        Kind::Batch => Some(text::batch(&group.item, left, caps)),
        Kind::ReviewItem(n) => {
            let entry = group.item.items.iter().find(|e| e.item == n)?;
            Some(text::review_item(
                &group.item,
                entry,
                left,
                caps,
                group.remembering,
            ))
        }
    }
}
