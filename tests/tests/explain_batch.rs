//! `assent explain --batch` never drops a line: one output record per input line, in order,
//! whatever the line holds, and the lines after a bad one are still explained.
//!
//! Every command line here is data for the analyser; none is run.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Output, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;

use assent_client::protocol::MAX_MESSAGE_LEN;
use assent_tests::{KillOnDrop, PROCESS_TIMEOUT, RECV_TIMEOUT, TestDaemon, assent, wait_bounded};
use serde_json::{Value, json};

/// A JSON Lines input line for a shell command explained in `/tmp`.
fn shell_line(command: &str) -> Vec<u8> {
    json!({"command": command, "cwd": "/tmp"})
        .to_string()
        .into_bytes()
}

/// Write `lines` (each followed by a newline, but for the last when `last_newline` is false)
/// to `stdin` from a thread of its own, so a child writing its answers meanwhile cannot block
/// on a full pipe; stdin is closed at the end.
fn feed(mut stdin: ChildStdin, lines: Vec<Vec<u8>>, last_newline: bool) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let count = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            let _ = stdin.write_all(&line);
            if i + 1 < count || last_newline {
                let _ = stdin.write_all(b"\n");
            }
        }
    })
}

/// Run `assent explain --batch` on `lines` against `daemon`.
fn run_batch(daemon: &TestDaemon, lines: Vec<Vec<u8>>, last_newline: bool) -> Output {
    let mut child = assent(daemon.socket())
        .args(["explain", "--batch"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("assent explain --batch starts");
    let writer = feed(
        child.stdin.take().expect("stdin is piped"),
        lines,
        last_newline,
    );
    let output = wait_bounded(child, PROCESS_TIMEOUT);
    writer.join().expect("the writer thread does not panic");
    output
}

/// Each stdout line as JSON.
fn records(output: &Output) -> Vec<Value> {
    let text = String::from_utf8(output.stdout.clone()).expect("the output is UTF-8");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

/// An explained record: its decision and level, after checking it has no error.
fn verdict(record: &Value) -> (&str, &str) {
    assert!(record.get("error").is_none(), "{record}");
    (
        record["decision"]
            .as_str()
            .unwrap_or_else(|| panic!("{record}")),
        record["level"]
            .as_str()
            .unwrap_or_else(|| panic!("{record}")),
    )
}

/// An error record's kind, after checking it carries a message and the input.
fn error_kind(record: &Value) -> &str {
    assert!(record.get("decision").is_none(), "{record}");
    let message = record["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{record}"));
    assert!(message.len() > 20, "the error says what to do: {record}");
    assert!(record["input"].is_string(), "{record}");
    record["kind"]
        .as_str()
        .unwrap_or_else(|| panic!("{record}"))
}

fn finding_ids(record: &Value) -> Vec<&str> {
    record["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("{record}"))
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect()
}

/// A batch that mixes good lines with every kind of bad one gets one record per line, in
/// order: an error for each bad line, the right verdict for each good one, before and after.
#[test]
fn every_line_gets_one_record_in_order() {
    let daemon = TestDaemon::start();
    let deep_shell = format!("echo {}x{}", "$(echo ".repeat(300), ")".repeat(300));
    let over_limit = shell_line(&format!("echo {}", "a".repeat(MAX_MESSAGE_LEN + 70_000)));
    let deep_json = format!(
        r#"{{"tool":"web.search","args":{}{}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let long_but_fits = format!("echo {}", "b".repeat(20_000));
    let lines: Vec<Vec<u8>> = vec![
        shell_line("ls -la"),                                           // 1
        shell_line(&deep_shell),                                        // 2
        over_limit,                                                     // 3
        b"{\"command\":\"ls \xff\xfe\",\"cwd\":\"/tmp\"}".to_vec(),     // 4
        br#"{"command": "ls -la""#.to_vec(),                            // 5
        Vec::new(),                                                     // 6
        deep_json.into_bytes(),                                         // 7
        br#"{"origin":"agent"}"#.to_vec(),                              // 8
        br#""ls -la""#.to_vec(),                                        // 9
        br#"{"command":"ls","cwd":"not/absolute"}"#.to_vec(),           // 10
        shell_line("rm -rf /"),                                         // 11
        shell_line(&long_but_fits),                                     // 12
        br#"{"tool":"web.search","args":{"query":"assent"}}"#.to_vec(), // 13
        b"   \r".to_vec(),                                              // 14
        shell_line("git status"),                                       // 15, no newline after it
    ];
    let count = lines.len();
    let output = run_batch(&daemon, lines, false);

    let records = records(&output);
    assert_eq!(records.len(), count, "{records:#?}");
    for (i, record) in records.iter().enumerate() {
        assert_eq!(record["line"], i + 1, "{record}");
    }
    assert_eq!(verdict(&records[0]), ("allow", "safe"));
    assert_eq!(records[0]["command"], "ls -la");

    // Nesting past the analyser's depth is a verdict, never an error: opaque, not allowed.
    let (decision, level) = verdict(&records[1]);
    assert_eq!(level, "opaque", "{}", records[1]);
    assert_ne!(decision, "allow", "{}", records[1]);
    assert!(finding_ids(&records[1]).contains(&"opaque.too_deep"));

    assert_eq!(error_kind(&records[2]), "too_large");
    let shown = records[2]["input"].as_str().expect("input is a string");
    assert!(shown.starts_with(r#"{"command":"echo aaa"#), "{shown}");
    assert!(shown.ends_with('…') && shown.len() < 1024, "{shown}");
    let message = records[2]["error"].as_str().expect("error is a string");
    assert!(message.contains(&MAX_MESSAGE_LEN.to_string()), "{message}");

    assert_eq!(error_kind(&records[3]), "not_utf8");
    assert_eq!(
        records[3]["input"],
        "{\"command\":\"ls \u{fffd}\u{fffd}\",\"cwd\":\"/tmp\"}"
    );
    assert_eq!(error_kind(&records[4]), "bad_json");
    assert_eq!(records[4]["input"], r#"{"command": "ls -la""#);
    assert_eq!(error_kind(&records[5]), "empty");
    assert_eq!(error_kind(&records[6]), "too_deep");
    assert_eq!(error_kind(&records[7]), "bad_line");
    assert_eq!(error_kind(&records[8]), "bad_line");
    // The daemon's own refusal of one line, with its kind.
    assert_eq!(error_kind(&records[9]), "invalid");
    let message = records[9]["error"].as_str().expect("error is a string");
    assert!(message.contains("absolute"), "{message}");

    assert_eq!(verdict(&records[10]), ("deny", "forbidden"));
    assert_eq!(records[10]["command"], "rm -rf /");
    // Longer than a command is sent whole (16 KiB): cut, so never called safe.
    let (_, level) = verdict(&records[11]);
    assert_ne!(level, "safe", "{}", records[11]);
    assert_eq!(verdict(&records[12]), ("allow", "safe"));
    assert_eq!(records[12]["origin"], "tool");
    assert_eq!(error_kind(&records[13]), "empty");
    assert_eq!(verdict(&records[14]), ("allow", "safe"));
    assert_eq!(records[14]["command"], "git status");

    // Some lines failed: exit 1, and nothing on stderr (the records say it all).
    assert_eq!(output.status.code(), Some(1), "{records:#?}");
    assert!(output.stderr.is_empty(), "{:?}", output.stderr);
}

/// A batch whose lines are all explained exits 0 whatever the decisions.
#[test]
fn a_clean_batch_exits_zero() {
    let daemon = TestDaemon::start();
    let output = run_batch(
        &daemon,
        vec![shell_line("ls"), shell_line("rm -rf /"), shell_line("pwd")],
        true,
    );
    let records = records(&output);
    assert_eq!(records.len(), 3, "{records:#?}");
    assert_eq!(verdict(&records[1]), ("deny", "forbidden"));
    assert_eq!(output.status.code(), Some(0), "{records:#?}");
}

/// `assent explain --batch` with its stdin and stdout in the test's hands, one line at a time.
struct Interactive {
    child: KillOnDrop,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<String>,
}

impl Interactive {
    fn start(daemon: &TestDaemon) -> Interactive {
        let mut child = assent(daemon.socket())
            .args(["explain", "--batch"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("assent explain --batch starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Interactive {
            child: KillOnDrop(Some(child)),
            stdin,
            answers,
        }
    }

    /// Write one line and wait for its record.
    fn ask(&mut self, line: &[u8]) -> Value {
        let stdin = self.stdin.as_mut().expect("stdin is still open");
        stdin.write_all(line).expect("the line is written");
        stdin.write_all(b"\n").expect("the newline is written");
        stdin.flush().expect("stdin flushes");
        let answer = self
            .answers
            .recv_timeout(RECV_TIMEOUT)
            .expect("a record comes for each line, as soon as it is explained");
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer}"))
    }

    /// Close stdin and wait for the exit code.
    fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let output = wait_bounded(self.child.take(), PROCESS_TIMEOUT);
        assert!(
            self.answers.try_recv().is_err(),
            "no record after the last line"
        );
        output.status.code()
    }
}

/// A daemon restarted in the middle of a batch costs no line: the request that finds the
/// connection closed is sent again once over a new one.
#[test]
fn a_restarted_daemon_costs_no_line() {
    let mut daemon = TestDaemon::start();
    let mut batch = Interactive::start(&daemon);
    assert_eq!(verdict(&batch.ask(&shell_line("ls"))), ("allow", "safe"));
    daemon.restart();
    let record = batch.ask(&shell_line("rm -rf /"));
    assert_eq!(record["line"], 2);
    assert_eq!(verdict(&record), ("deny", "forbidden"));
    assert_eq!(verdict(&batch.ask(&shell_line("pwd"))), ("allow", "safe"));
    assert_eq!(batch.finish(), Some(0));
}

/// A daemon gone for good: every line left gets an `unavailable` record (client-side faults
/// still get their own kind), and the exit code says the gate was unavailable.
#[test]
fn a_daemon_gone_mid_batch_leaves_a_record_per_line() {
    let mut daemon = TestDaemon::start();
    let mut batch = Interactive::start(&daemon);
    assert_eq!(verdict(&batch.ask(&shell_line("ls"))), ("allow", "safe"));
    daemon.stop();
    let _ = std::fs::remove_file(daemon.socket());
    for number in 2..=3 {
        let record = batch.ask(&shell_line("pwd"));
        assert_eq!(record["line"], number);
        assert_eq!(error_kind(&record), "unavailable");
        let message = record["error"].as_str().expect("error is a string");
        assert!(message.contains("assentd"), "{message}");
    }
    assert_eq!(error_kind(&batch.ask(b"{")), "bad_json");
    assert_eq!(error_kind(&batch.ask(&shell_line("ls"))), "unavailable");
    assert_eq!(batch.finish(), Some(126));
}
