//! Batches end to end (seed 003): several tool calls judged together, the held ones under one
//! batch token that a person answers as a whole or item by item, through real sockets and the
//! real `assent` binary.

use std::io::Write;
use std::process::Stdio;

use assent_client::Connection;
use assent_client::protocol::{
    BatchDecided, BatchRequest, BatchVerdict, Context, DecidedBy, Decision, ErrorKind, Origin,
    Request, Response, Subject,
};
use assent_tests::{
    KillOnDrop, Options, PROCESS_TIMEOUT, RECV_TIMEOUT, TestDaemon, assent, is_token, refused,
    run_bounded, run_detached, wait_bounded, wait_until,
};

fn tool(name: &str) -> Subject {
    Subject::Tool {
        name: name.into(),
        args_json: "{}".into(),
        cwd: None,
    }
}

/// Three tool calls: a read the policy allows, and two destructive calls it holds.
fn three(wait: bool) -> Request {
    Request::CheckBatch(BatchRequest {
        subjects: vec![
            tool("file.read"),
            tool("file.delete"),
            tool("payment.submit"),
        ],
        origin: Origin::Tool,
        context: Context::default(),
        wait,
    })
}

/// Send the batch; expect items 2 and 3 held under one token.
fn held_batch(conn: &mut Connection, wait: bool) -> String {
    let verdict: BatchVerdict = match conn.request(&three(wait)) {
        Ok(Response::BatchVerdict(verdict)) => verdict,
        other => panic!("expected a batch verdict, got {other:?}"),
    };
    let decisions: Vec<Decision> = verdict.items.iter().map(|v| v.decision).collect();
    assert_eq!(
        decisions,
        [Decision::Allow, Decision::Confirm, Decision::Confirm],
        "{verdict:?}"
    );
    assert!(verdict.items.iter().all(|v| v.token.is_none()));
    assert!(verdict.expires_in_ms.is_some());
    let token = verdict.token.expect("a held batch has a token");
    assert!(is_token(&token), "{token}");
    token
}

fn batch_decided(conn: &mut Connection) -> BatchDecided {
    match conn.recv() {
        Ok(Response::BatchDecided(decided)) => decided,
        other => panic!("expected BatchDecided, got {other:?}"),
    }
}

/// `assent approve|deny TOKEN [--item N]` from another login session; returns its exit code.
fn answer_elsewhere(daemon: &TestDaemon, verb: &str, token: &str, item: Option<u32>) -> i32 {
    let mut command = assent(daemon.socket());
    command.arg(verb).arg(token);
    if let Some(n) = item {
        command.arg("--item").arg(n.to_string());
    }
    let output = run_detached(&mut command);
    if !output.status.success() {
        eprintln!("{}", String::from_utf8_lossy(&output.stderr));
    }
    output.status.code().expect("exited")
}

#[test]
fn approving_a_batch_as_a_whole_allows_every_held_item() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = held_batch(&mut requester, true);
    // `assent pending` lists the batch as one entry with its held items.
    let mut observer = daemon.connect();
    match observer.request(&Request::ListPending { from: 0 }) {
        Ok(Response::Pending(list)) => {
            assert_eq!(list.items.len(), 1, "{list:?}");
            let numbers: Vec<u32> = list.items[0].items.iter().map(|i| i.item).collect();
            assert_eq!(numbers, [2, 3]);
        }
        other => panic!("expected the pending list, got {other:?}"),
    }
    assert_eq!(answer_elsewhere(&daemon, "approve", &token, None), 0);
    let decided = batch_decided(&mut requester);
    assert_eq!(decided.items.len(), 3);
    assert!(decided.items.iter().all(|d| d.allow), "{decided:?}");
    assert_eq!(decided.items[0].by, DecidedBy::Policy);
    assert_eq!(decided.items[1].by, DecidedBy::User);
    assert_eq!(decided.items[2].by, DecidedBy::User);
    // Every item is audited, with the batch token.
    let audited = |conn: &mut Connection| match conn.request(&Request::Log {
        limit: 100,
        from: 0,
    }) {
        Ok(Response::Log(page)) => page
            .events
            .iter()
            .filter(|e| e.token.as_deref() == Some(token.as_str()) && e.decision == Decision::Allow)
            .count(),
        other => panic!("expected the log, got {other:?}"),
    };
    assert!(wait_until(RECV_TIMEOUT, || audited(&mut observer) == 3));
}

#[test]
fn items_answered_one_by_one_get_their_own_outcome() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = held_batch(&mut requester, true);
    assert_eq!(answer_elsewhere(&daemon, "approve", &token, Some(2)), 0);
    // Item 1 was allowed by the policy and item 9 does not exist: refused (exit 1).
    assert_eq!(answer_elsewhere(&daemon, "deny", &token, Some(1)), 1);
    assert_eq!(answer_elsewhere(&daemon, "deny", &token, Some(9)), 1);
    assert_eq!(answer_elsewhere(&daemon, "deny", &token, Some(3)), 0);
    let decided = batch_decided(&mut requester);
    let allowed: Vec<bool> = decided.items.iter().map(|d| d.allow).collect();
    assert_eq!(allowed, [true, true, false], "{decided:?}");
}

#[test]
fn a_batch_cannot_be_approved_by_its_requester() {
    let daemon = TestDaemon::start();
    let mut requester = daemon.connect();
    let token = held_batch(&mut requester, false);
    for item in [None, Some(2)] {
        let reply = requester.request(&Request::Answer {
            token: token.clone(),
            allow: true,
            session: None,
            item,
            remember: assent_client::protocol::Remember::Once,
        });
        assert_eq!(refused(reply), ErrorKind::SelfApproval);
    }
    // Another process of the same login session is refused too.
    let mut command = assent(daemon.socket());
    command.args(["approve", &token]);
    let output = run_bounded(&mut command);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("self_approval"));
    // The audit trail says who tried, for a batch as for a single request.
    let events = daemon.connect().log(100).expect("the log");
    let refused: Vec<_> = events
        .iter()
        .filter(|e| e.reason.starts_with("answer refused (self_approval)"))
        .collect();
    assert!(!refused.is_empty(), "{events:#?}");
    assert!(
        refused
            .iter()
            .all(|e| e.subject.starts_with("batch of 3: ") && e.token.as_deref() == Some(&token)),
        "{refused:#?}"
    );
}

/// Run `assent tool --batch ARGS` with `input` on stdin.
fn tool_batch(daemon: &TestDaemon, args: &[&str], input: &str) -> KillOnDrop {
    let mut command = assent(daemon.socket());
    command
        .args(["tool", "--batch"])
        .args(args)
        .stdin(Stdio::piped());
    let mut child = command.spawn().expect("assent starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("the batch is written");
    KillOnDrop(Some(child))
}

const THREE: &str = "{\"tool\": \"file.read\", \"args\": {\"path\": \"notes.txt\"}}\n\
                     {\"tool\": \"file.delete\", \"args\": {\"path\": \"notes.txt\"}}\n\
                     {\"tool\": \"payment.submit\", \"args\": {\"amount\": 5}}\n";

#[test]
fn the_tool_batch_binary_exits_by_outcome() {
    let daemon = TestDaemon::start();
    // Every item allowed: 0, one JSON line per item.
    let mut reads = tool_batch(
        &daemon,
        &["--json"],
        "{\"tool\": \"file.read\", \"args\": {}}\n{\"tool\": \"web.search\"}\n",
    );
    let output = wait_bounded(reads.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["item"], 2);
    assert_eq!(lines[1]["decision"], "allow");

    // --no-wait: the batch token on stdout, exit 2; then it is answered.
    let mut held = tool_batch(&daemon, &["--no-wait"], THREE);
    let output = wait_bounded(held.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let token = String::from_utf8_lossy(&output.stdout).trim().to_string();
    assert!(is_token(&token), "{output:?}");
    assert_eq!(answer_elsewhere(&daemon, "approve", &token, None), 0);

    // Waiting, with one held item denied: 1, and the per-item outcome in JSON.
    let mut waiting = tool_batch(&daemon, &["--json"], THREE);
    let mut observer = daemon.connect();
    let mut token = None;
    assert!(wait_until(RECV_TIMEOUT, || {
        if let Ok(Response::Pending(list)) = observer.request(&Request::ListPending { from: 0 }) {
            token = list.items.first().map(|i| i.token.clone());
        }
        token.is_some()
    }));
    let token = token.expect("listed");
    assert_eq!(answer_elsewhere(&daemon, "approve", &token, Some(2)), 0);
    assert_eq!(answer_elsewhere(&daemon, "deny", &token, Some(3)), 0);
    let output = wait_bounded(waiting.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let decisions: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            v["decision"].as_str().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(decisions, ["allow", "allow", "deny"]);

    // A malformed line is a usage error; nothing is sent.
    let mut bad = tool_batch(&daemon, &[], "{\"args\": {}}\n");
    let output = wait_bounded(bad.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(64), "{output:?}");

    // No daemon: 126.
    drop(daemon);
    let gone = TestDaemon::start();
    let socket = gone.dir().join("absent.sock");
    let mut command = assent(&socket);
    command.args(["tool", "--batch"]).stdin(Stdio::piped());
    let mut child = command.spawn().expect("assent starts");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(THREE.as_bytes())
        .expect("written");
    let output = wait_bounded(child, PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(126), "{output:?}");
}

/// With `no_approver = "ask"` and no approval agent, the items that need a person are not
/// held (the verdict's Confirm carries no token): `assent tool --batch` has no prompt to hand
/// them to, so they are denied, in words and in JSON, with no token, and nothing waits.
#[test]
fn items_that_need_a_person_with_nobody_to_ask_are_denied_not_held() {
    let daemon = TestDaemon::with(Options {
        no_approver: Some(assentd::policy::NoApprover::Ask),
        ..Options::default()
    });
    let mut json = tool_batch(&daemon, &["--json"], THREE);
    let output = wait_bounded(json.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    let decisions: Vec<&str> = lines
        .iter()
        .map(|l| l["decision"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(decisions, ["allow", "deny", "deny"], "{lines:#?}");
    assert!(lines.iter().all(|l| l["token"].is_null()), "{lines:#?}");

    let mut words = tool_batch(&daemon, &[], THREE);
    let output = wait_bounded(words.take(), PROCESS_TIMEOUT);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("item 2 denied"), "{said}");
    assert!(!said.contains("held"), "{said}");
    assert!(output.stdout.is_empty(), "no token printed: {output:?}");
    assert!(
        assent_tests::pending_tokens(&mut daemon.connect()).is_empty(),
        "nothing was held"
    );
}

/// The policy maps the requester to another user (`nobody`): a waiting batch tells the
/// requester that another person must answer it, as a single check's wait does, and neither
/// how to answer nor who answers.
#[test]
fn a_batch_another_person_answers_says_so_while_it_waits() {
    let uid = nix::unistd::getuid().as_raw();
    let daemon = TestDaemon::with(Options {
        policy: Some(format!("[approvers]\n\"{uid}\" = 65534\n")),
        hold_ttl: std::time::Duration::from_secs(2),
        ..Options::default()
    });
    let mut waiting = tool_batch(&daemon, &[], THREE);
    let output = wait_bounded(waiting.take(), PROCESS_TIMEOUT);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("another person must answer"), "{said}");
    assert!(said.contains("waiting for another person"), "{said}");
    assert!(!said.contains("assent approve"), "{said}");
    assert!(
        !said.contains("nobody") && !said.contains("65534"),
        "{said}"
    );
}
