//! The audit trail: every decision is an event.
//!
//! `record` never blocks a decision: it pushes the event onto an in-memory ring (what `assent
//! log` reads) and onto the writer's queue. The writer thread appends JSON Lines to a file
//! and/or emits a journald record with `ASSENT_*` fields (target `assent::audit`, which `main`
//! routes to the journal). Callers reply to the client first and record afterwards, so a slow
//! disk never holds a decision.
//!
//! What is guaranteed: an event `record` took is written, in order, unless the daemon is killed
//! before the writer gets to it. Nothing is dropped under a burst: when the writer falls
//! [`HIGH_WATER`] events behind, connections wait (`keep_up`) before reading their next request
//! until it catches up. When the file cannot be written (a full disk), the daemon keeps
//! answering, the events wait in memory (up to [`MAX_BACKLOG`]; past that they are counted as
//! lost, and status says how many), status and the journal say the audit is failing (the
//! journal once a minute, not per event), and the writer tries again until the disk takes them:
//! a failed write is cut back to the last whole line, so the file never holds a torn one.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use assent_client::protocol::AuditEvent;

use crate::config::AuditConfig;

/// Events waiting for the writer past which connections wait before their next request.
pub const HIGH_WATER: usize = 1024;
/// Events waiting in memory while the file cannot be written; more are counted as lost.
pub const MAX_BACKLOG: usize = 100_000;
/// The most events written in one go.
const BATCH: usize = 256;
/// The JSON Lines file is rotated to `<name>.1` past this size.
const ROTATE_AT: u64 = 16 * 1024 * 1024;
/// How much of the file's tail is read back at start for `assent log`.
const TAIL_BYTES: u64 = 2 * 1024 * 1024;
/// How long the writer waits before trying a failed write again.
const RETRY: Duration = Duration::from_secs(1);
/// How often a failing audit is said again in the journal.
const SAY_AGAIN: Duration = Duration::from_secs(60);

/// The audit trail's handle, shared by every connection.
#[derive(Debug)]
pub struct Audit {
    ring: Mutex<VecDeque<AuditEvent>>,
    capacity: usize,
    queue: Arc<Queue>,
}

/// The writer's state as status reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    /// Why the last write failed, while it has not succeeded since.
    pub failing: Option<String>,
    /// Events taken but not yet written.
    pub waiting: u64,
    /// Events that could not be kept (the backlog was full while the disk failed).
    pub lost: u64,
}

#[derive(Debug, Default)]
struct Queue {
    state: Mutex<QueueState>,
    /// Wakes the writer: events arrived, or close.
    wake: Condvar,
    /// Wakes connections waiting for the writer to catch up.
    caught_up: tokio::sync::Notify,
    lost: AtomicU64,
}

#[derive(Debug, Default)]
struct QueueState {
    events: VecDeque<AuditEvent>,
    /// Taken by the writer and not yet written.
    in_hand: usize,
    closed: bool,
    failing: Option<String>,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The writer thread, to be joined at shutdown after [`Audit::close`].
#[derive(Debug)]
pub struct Writer(Option<JoinHandle<()>>);

impl Audit {
    /// Start the trail: mend a torn last line, read back the tail of the file for `assent
    /// log`, start the writer.
    pub fn start(config: &AuditConfig, capacity: usize) -> (Audit, Writer) {
        let mut ring = VecDeque::with_capacity(capacity.min(4096));
        if let Some(path) = &config.jsonl {
            mend_torn_end(path);
            for event in read_tail(path, capacity) {
                push_bounded(&mut ring, event, capacity);
            }
        }
        let queue = Arc::new(Queue::default());
        let sink = Sink {
            journald: config.journald,
            jsonl: config.jsonl.clone(),
            file: None,
            written: 0,
            said: None,
        };
        let writer = {
            let queue = Arc::clone(&queue);
            std::thread::Builder::new()
                .name("assent-audit".into())
                .spawn(move || sink.run(&queue))
                .map_err(|error| tracing::error!(%error, "could not start the audit writer"))
                .ok()
        };
        let audit = Audit {
            ring: Mutex::new(ring),
            capacity,
            queue,
        };
        (audit, Writer(writer))
    }

    /// Record one event. Never blocks on I/O.
    pub fn record(&self, event: AuditEvent) {
        let queued = {
            let mut state = self.queue.lock();
            if state.closed {
                // Shutting down: the writer has gone; the journal still hears of it.
                tracing::warn!(subject = %event.subject, "audit event after the writer stopped");
                false
            } else if state.events.len() >= MAX_BACKLOG {
                let lost = self.queue.lost.fetch_add(1, Ordering::Relaxed) + 1;
                if lost.is_power_of_two() {
                    tracing::error!(
                        lost,
                        "audit backlog full while the audit cannot be written: events lost"
                    );
                }
                false
            } else {
                state.events.push_back(event.clone());
                true
            }
        };
        // Woken after the lock is released: a writer woken while it is held would wake only
        // to wait for it, one more hand-over between threads on the path of every reply.
        if queued {
            self.queue.wake.notify_one();
        }
        if let Ok(mut ring) = self.ring.lock() {
            push_bounded(&mut ring, event, self.capacity);
        }
    }

    /// Wait while the writer is more than [`HIGH_WATER`] events behind a disk that works: a
    /// connection calls it before reading its next request, so a burst slows down instead of
    /// losing events. A failing disk is not waited for (the daemon keeps answering).
    pub async fn keep_up(&self) {
        loop {
            let notified = self.queue.caught_up.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = self.queue.lock();
                if state.events.len() < HIGH_WATER || state.failing.is_some() || state.closed {
                    return;
                }
            }
            notified.await;
        }
    }

    /// The writer's health, for status.
    pub fn health(&self) -> Health {
        let state = self.queue.lock();
        Health {
            failing: state.failing.clone(),
            waiting: (state.events.len() + state.in_hand) as u64,
            lost: self.queue.lost.load(Ordering::Relaxed),
        }
    }

    /// Recent events, oldest first; only `uid`'s own unless `uid` is `None` (root).
    pub fn recent(&self, uid: Option<u32>, limit: usize) -> Vec<AuditEvent> {
        let Ok(ring) = self.ring.lock() else {
            return Vec::new();
        };
        let mut events: Vec<AuditEvent> = ring
            .iter()
            .rev()
            .filter(|e| uid.is_none_or(|u| e.uid == u))
            .take(limit)
            .cloned()
            .collect();
        events.reverse();
        events
    }

    /// Stop queueing; the writer writes what it has and ends.
    pub fn close(&self) {
        self.queue.lock().closed = true;
        self.queue.wake.notify_all();
        self.queue.caught_up.notify_waiters();
    }
}

impl Writer {
    /// Wait for the writer to finish its queue. Call after [`Audit::close`].
    pub fn join(mut self) {
        if let Some(handle) = self.0.take() {
            let _ = handle.join();
        }
    }
}

fn push_bounded(ring: &mut VecDeque<AuditEvent>, event: AuditEvent, capacity: usize) {
    if capacity == 0 {
        return;
    }
    while ring.len() >= capacity {
        ring.pop_front();
    }
    ring.push_back(event);
}

/// A crash in the middle of a write can leave a partial last line: cut it off, so the next
/// event starts a line of its own.
fn mend_torn_end(path: &Path) {
    let Ok(mut file) = OpenOptions::new().read(true).write(true).open(path) else {
        return;
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len == 0 {
        return;
    }
    let start = len.saturating_sub(TAIL_BYTES);
    let mut tail = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err()
        || (&mut file).take(TAIL_BYTES).read_to_end(&mut tail).is_err()
        || tail.last() == Some(&b'\n')
    {
        return;
    }
    let keep = tail
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(start, |at| start + at as u64 + 1);
    match file.set_len(keep) {
        Ok(()) => tracing::warn!(
            path = %path.display(),
            cut = len - keep,
            "the audit file ended in a torn line (a crash mid-write); cut it off"
        ),
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "could not cut a torn line off the audit file")
        }
    }
}

/// The last `limit` parseable events of a JSON Lines file. Unreadable lines are skipped.
fn read_tail(path: &Path, limit: usize) -> Vec<AuditEvent> {
    let Ok(mut file) = File::open(path) else {
        return Vec::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut reader = BufReader::new(file.take(TAIL_BYTES));
    if start > 0 {
        // Skip the partial line the seek landed in.
        let mut skipped = Vec::new();
        let _ = reader.read_until(b'\n', &mut skipped);
    }
    let events: Vec<AuditEvent> = reader
        .lines()
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str(&line).ok())
        .collect();
    let skip = events.len().saturating_sub(limit);
    events.into_iter().skip(skip).collect()
}

/// The writer thread's side.
struct Sink {
    journald: bool,
    jsonl: Option<PathBuf>,
    file: Option<File>,
    /// Bytes in the open file up to its last whole line: what a failed write is cut back to.
    written: u64,
    /// When the failure was last said in the journal.
    said: Option<Instant>,
}

impl Sink {
    fn run(mut self, queue: &Queue) {
        loop {
            let batch: Vec<AuditEvent> = {
                let mut state = queue.lock();
                while state.events.is_empty() && !state.closed {
                    state = queue
                        .wake
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if state.events.is_empty() {
                    return; // closed, and everything written
                }
                let n = state.events.len().min(BATCH);
                state.in_hand = n;
                state.events.drain(..n).collect()
            };
            if self.journald {
                for event in &batch {
                    to_journal(event);
                }
            }
            // The file: until it takes the batch, or the daemon stops with the disk still full.
            let mut lines = Vec::new();
            for event in &batch {
                if let Ok(mut line) = serde_json::to_vec(event) {
                    line.push(b'\n');
                    lines.extend_from_slice(&line);
                }
            }
            while self.jsonl.is_some() {
                match self.append(&lines) {
                    Ok(()) => {
                        let mut state = queue.lock();
                        if state.failing.take().is_some() {
                            tracing::info!(
                                waiting = state.events.len(),
                                "the audit file takes writes again; events kept in memory are being written"
                            );
                        }
                        self.said = None;
                        break;
                    }
                    Err(error) => {
                        let mut state = queue.lock();
                        let waiting = state.events.len() + batch.len();
                        if self.said.is_none_or(|at| at.elapsed() >= SAY_AGAIN) {
                            tracing::error!(
                                %error,
                                waiting,
                                "could not write the audit file; events wait in memory and the write is retried"
                            );
                            self.said = Some(Instant::now());
                        }
                        state.failing = Some(format!("{error} (since {})", now_text()));
                        queue.caught_up.notify_waiters();
                        if state.closed {
                            tracing::error!(
                                lost = waiting,
                                "the daemon stops with audit events the disk would not take"
                            );
                            return;
                        }
                        let _ = queue
                            .wake
                            .wait_timeout(state, RETRY)
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                    }
                }
            }
            let mut state = queue.lock();
            state.in_hand = 0;
            if state.events.len() < HIGH_WATER {
                queue.caught_up.notify_waiters();
            }
        }
    }

    /// Append whole lines; on failure cut the file back to its last whole line and close it,
    /// so the retry starts clean (a disk that filled mid-write leaves no torn line).
    fn append(&mut self, lines: &[u8]) -> std::io::Result<()> {
        let Some(path) = self.jsonl.as_deref() else {
            return Ok(());
        };
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let file = open_append(path)?;
                self.written = file.metadata()?.len();
                self.file.insert(file)
            }
        };
        if let Err(error) = file.write_all(lines) {
            let _ = file.set_len(self.written);
            self.file = None;
            return Err(error);
        }
        self.written += lines.len() as u64;
        if self.written > ROTATE_AT {
            self.file = None;
            std::fs::rename(path, path.with_extension("jsonl.1"))?;
        }
        Ok(())
    }
}

fn open_append(path: &Path) -> std::io::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// Now, for the status line.
fn now_text() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}

/// One journal record with fields an administrator can query:
/// `journalctl ASSENT_DECISION=deny`, `journalctl ASSENT_LEVEL=destructive`.
fn to_journal(event: &AuditEvent) {
    tracing::info!(
        target: "assent::audit",
        assent_decision = event.decision.as_str(),
        assent_by = event.by.as_str(),
        assent_level = event.level.as_str(),
        assent_origin = event.origin.as_str(),
        assent_uid = event.uid,
        assent_pid = event.pid,
        assent_findings = event.findings.join(","),
        assent_token = event.token.as_deref().unwrap_or(""),
        assent_agent = event.agent.as_deref().unwrap_or(""),
        assent_program = event.program.as_deref().unwrap_or(""),
        assent_cwd = event.cwd.as_deref().unwrap_or(""),
        assent_refused = event.refused.as_deref().unwrap_or(""),
        assent_subject = event.subject.as_str(),
        assent_reason = event.reason.as_str(),
        "{} {} ({})",
        event.decision.as_str(),
        event.level.as_str(),
        event.by.as_str(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use assent_client::protocol::{DecidedBy, Decision, Level, Origin};

    fn event(uid: u32, subject: &str) -> AuditEvent {
        AuditEvent {
            time_ms: 1,
            uid,
            pid: 2,
            origin: Origin::Agent,
            subject: subject.into(),
            level: Level::Safe,
            findings: vec![],
            decision: Decision::Allow,
            by: DecidedBy::Policy,
            reason: String::new(),
            token: None,
            agent: None,
            program: None,
            cwd: Some("/w".into()),
            refused: None,
            refused_places: Vec::new(),
            grant: None,
        }
    }

    /// The file says where each command was to run, and a line written before the working
    /// directory was recorded (protocol 9) is still read, without one.
    #[test]
    fn the_file_keeps_the_cwd_and_older_lines_still_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        let old = r#"{"time_ms":1,"uid":7,"pid":2,"origin":"agent","subject":"old","level":"safe","findings":[],"decision":"allow","by":"policy","reason":"","token":null,"program":null,"agent":null}"#;
        std::fs::write(&path, format!("{old}\n")).expect("write");
        let config = AuditConfig {
            journald: false,
            jsonl: Some(path.clone()),
        };
        let (audit, writer) = Audit::start(&config, 10);
        audit.record(event(7, "new"));
        audit.close();
        writer.join();
        let written = lines(&path);
        assert!(written[1].contains(r#""cwd":"/w""#), "{written:?}");
        let (again, writer) = Audit::start(&config, 10);
        let read: Vec<(String, Option<String>)> = again
            .recent(None, 10)
            .into_iter()
            .map(|e| (e.subject, e.cwd))
            .collect();
        assert_eq!(
            read,
            [("old".into(), None), ("new".into(), Some("/w".into()))]
        );
        again.close();
        writer.join();
    }

    #[test]
    fn events_reach_the_file_and_come_back_after_a_restart() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = AuditConfig {
            journald: false,
            jsonl: Some(dir.path().join("audit.jsonl")),
        };
        let (audit, writer) = Audit::start(&config, 10);
        for i in 0..15 {
            audit.record(event(1000 + i % 2, &format!("cmd {i}")));
        }
        assert_eq!(audit.recent(None, 100).len(), 10, "the ring is bounded");
        assert_eq!(audit.recent(Some(1001), 2)[1].subject, "cmd 13");
        audit.close();
        writer.join();
        // A torn last line from a crash is skipped.
        let mut file = open_append(&dir.path().join("audit.jsonl")).expect("reopen");
        file.write_all(b"{\"time_ms\":").expect("write");
        let (again, writer) = Audit::start(&config, 4);
        let subjects: Vec<String> = again
            .recent(None, 100)
            .into_iter()
            .map(|e| e.subject)
            .collect();
        assert_eq!(subjects, ["cmd 11", "cmd 12", "cmd 13", "cmd 14"]);
        again.close();
        writer.join();
    }

    fn lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn a_burst_loses_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        let config = AuditConfig {
            journald: false,
            jsonl: Some(path.clone()),
        };
        let (audit, writer) = Audit::start(&config, 10);
        for i in 0..20_000 {
            audit.record(event(1000, &format!("cmd {i}")));
        }
        audit.close();
        writer.join();
        let written = lines(&path);
        assert_eq!(written.len(), 20_000);
        assert!(written[19_999].contains("cmd 19999"));
        assert_eq!(audit.health().lost, 0);
    }

    #[test]
    fn a_full_disk_keeps_events_waiting_and_writes_them_whole_when_space_returns() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        // The audit file is a link to the full device: every write fails with ENOSPC.
        std::os::unix::fs::symlink("/dev/full", &path).expect("symlink");
        let config = AuditConfig {
            journald: false,
            jsonl: Some(path.clone()),
        };
        let (audit, writer) = Audit::start(&config, 10);
        for i in 0..50 {
            audit.record(event(1000, &format!("cmd {i}")));
        }
        let failing = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            audit.health().failing.is_some()
        });
        assert!(failing, "status says the audit is failing");
        let health = audit.health();
        assert!(
            health.failing.as_deref().unwrap_or("").contains("No space"),
            "{health:?}"
        );
        assert_eq!(health.waiting, 50);
        assert_eq!(health.lost, 0);
        // Space returns: the file is a real one again (as a cleaned-up disk would take writes).
        std::fs::remove_file(&path).expect("unlink");
        std::fs::write(&path, "").expect("a real file");
        let recovered = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            audit.health() == Health::default()
        });
        assert!(recovered, "{:?}", audit.health());
        audit.record(event(1000, "after"));
        audit.close();
        writer.join();
        let written = lines(&path);
        assert_eq!(written.len(), 51, "every event, once");
        for (i, line) in written.iter().take(50).enumerate() {
            let parsed: AuditEvent = serde_json::from_str(line).expect("whole lines only");
            assert_eq!(parsed.subject, format!("cmd {i}"), "in order");
        }
    }

    #[test]
    fn a_torn_last_line_is_cut_at_start() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        let whole = serde_json::to_string(&event(1, "whole")).expect("json");
        std::fs::write(&path, format!("{whole}\n{{\"time_ms\":12")).expect("write");
        let config = AuditConfig {
            journald: false,
            jsonl: Some(path.clone()),
        };
        let (audit, writer) = Audit::start(&config, 10);
        audit.record(event(1, "next"));
        audit.close();
        writer.join();
        let written = lines(&path);
        assert_eq!(written.len(), 2, "{written:?}");
        assert!(written[1].contains("\"next\""), "{written:?}");
    }
}
