//! The audit trail: every decision is an event.
//!
//! `record` never blocks a decision: it pushes the event onto an in-memory ring (what `assent
//! log` reads) and hands it to a writer thread over a bounded queue. The writer appends JSON
//! Lines to a file and/or emits a journald record with `ASSENT_*` fields (target
//! `assent::audit`, which `main` routes to the journal). Callers reply to the client first and
//! record afterwards, so a slow disk never holds a decision. If the queue is full the event
//! still reaches the ring and the loss is counted and logged, never waited for.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;

use assent_client::protocol::AuditEvent;
use tokio::sync::mpsc;

use crate::config::AuditConfig;

/// Events waiting for the writer before new ones are counted as dropped.
const QUEUE_LEN: usize = 4096;
/// The JSON Lines file is rotated to `<name>.1` past this size.
const ROTATE_AT: u64 = 16 * 1024 * 1024;
/// How much of the file's tail is read back at start for `assent log`.
const TAIL_BYTES: u64 = 2 * 1024 * 1024;

/// The audit trail's handle, shared by every connection.
#[derive(Debug)]
pub struct Audit {
    ring: Mutex<VecDeque<AuditEvent>>,
    capacity: usize,
    queue: Mutex<Option<mpsc::Sender<AuditEvent>>>,
    dropped: AtomicU64,
}

/// The writer thread, to be joined at shutdown after [`Audit::close`].
#[derive(Debug)]
pub struct Writer(Option<JoinHandle<()>>);

impl Audit {
    /// Start the trail: read back the tail of the file for `assent log`, start the writer.
    pub fn start(config: &AuditConfig, capacity: usize) -> (Audit, Writer) {
        let mut ring = VecDeque::with_capacity(capacity.min(4096));
        if let Some(path) = &config.jsonl {
            for event in read_tail(path, capacity) {
                push_bounded(&mut ring, event, capacity);
            }
        }
        let (tx, rx) = mpsc::channel(QUEUE_LEN);
        let sink = Sink {
            journald: config.journald,
            jsonl: config.jsonl.clone(),
            file: None,
            written: 0,
        };
        let writer = std::thread::Builder::new()
            .name("assent-audit".into())
            .spawn(move || sink.run(rx))
            .map_err(|error| tracing::error!(%error, "could not start the audit writer"))
            .ok();
        let audit = Audit {
            ring: Mutex::new(ring),
            capacity,
            queue: Mutex::new(Some(tx)),
            dropped: AtomicU64::new(0),
        };
        (audit, Writer(writer))
    }

    /// Record one event. Never blocks on I/O.
    pub fn record(&self, event: AuditEvent) {
        if let Ok(queue) = self.queue.lock()
            && let Some(tx) = queue.as_ref()
            && tx.try_send(event.clone()).is_err()
        {
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(dropped, "audit queue full: event kept in memory only");
        }
        if let Ok(mut ring) = self.ring.lock() {
            push_bounded(&mut ring, event, self.capacity);
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

    /// Stop queueing; the writer drains what it has and ends.
    pub fn close(&self) {
        if let Ok(mut queue) = self.queue.lock() {
            queue.take();
        }
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

/// The last `limit` parseable events of a JSON Lines file. Unreadable lines are skipped: the
/// file is ours, but a crash mid-write can leave a torn last line.
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
    /// Bytes in the open file, counted so rotation needs no `fstat` per event.
    written: u64,
}

impl Sink {
    fn run(mut self, mut rx: mpsc::Receiver<AuditEvent>) {
        while let Some(event) = rx.blocking_recv() {
            if self.journald {
                to_journal(&event);
            }
            if self.jsonl.is_some()
                && let Err(error) = self.append(&event)
            {
                tracing::error!(%error, "could not write the audit file");
                self.file = None;
            }
        }
    }

    fn append(&mut self, event: &AuditEvent) -> std::io::Result<()> {
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
        let mut line = serde_json::to_vec(event).map_err(std::io::Error::other)?;
        line.push(b'\n');
        // One write per event: a crash loses at most the event being written.
        file.write_all(&line)?;
        self.written += line.len() as u64;
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
        }
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
}
