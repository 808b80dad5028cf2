//! Many clients at once, and hostile ones: nobody waits on anybody else.

use std::sync::mpsc;
use std::time::Duration;

use assent_client::protocol::{DecidedBy, Decision, Origin, Request, Response};
use assent_tests::{
    Options, TestDaemon, approver, check, decided, held_check, hold, set_timeouts, verdict_of,
};

const CLIENTS: usize = 200;
const HELD: usize = 50;

/// Many agents at once, a quarter of them waiting for a person: every one of them gets its own
/// right answer (allowed or denied as the approver chose), and the daemon is still serving.
#[test]
fn two_hundred_concurrent_clients_all_get_the_right_answer() {
    let daemon = TestDaemon::with(Options {
        max_pending_per_uid: 64,
        ..Options::default()
    });
    // The approver answers every held request as it appears: allow when the command says
    // "allow", deny otherwise.
    let mut approve = approver(daemon.socket());
    approve.args(["answer-all", &HELD.to_string(), "30000"]);
    let approver = assent_tests::Detached::spawn(&approve);

    let (tx, rx) = mpsc::channel();
    let threads: Vec<_> = (0..CLIENTS)
        .map(|i| {
            let tx = tx.clone();
            let socket = daemon.socket().to_path_buf();
            std::thread::spawn(move || {
                let mut conn = assent_tests::connect(&socket);
                set_timeouts(&conn, Duration::from_secs(30));
                let result = if i % (CLIENTS / HELD) == 0 {
                    let verb = if i % 8 == 0 { "allow" } else { "deny" };
                    let command = format!("rm -rf build-{verb}-{i}");
                    hold(&mut conn, &held_check(&command, true, None));
                    let outcome = decided(&mut conn);
                    assert_eq!(outcome.by, DecidedBy::User, "{i}: {outcome:?}");
                    assert_eq!(outcome.allow, verb == "allow", "{i}: {outcome:?}");
                    outcome.allow
                } else {
                    let verdict = verdict_of(
                        &mut conn,
                        &check(&format!("ls -la /tmp/{i}"), Origin::Agent),
                    );
                    assert_eq!(verdict.decision, Decision::Allow, "{i}: {verdict:?}");
                    true
                };
                let _ = tx.send((i, result));
            })
        })
        .collect();
    drop(tx);
    let mut finished = 0;
    while finished < CLIENTS {
        match rx.recv_timeout(Duration::from_secs(40)) {
            Ok(_) => finished += 1,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("clients stalled after {finished}"),
        }
    }
    let panicked = threads
        .into_iter()
        .map(std::thread::JoinHandle::join)
        .filter(Result::is_err)
        .count();
    assert_eq!(panicked, 0, "{panicked} clients got a wrong answer");
    assert_eq!(finished, CLIENTS);

    let output = approver.wait_with_output(Duration::from_secs(40));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        HELD.to_string(),
        "the approver answered every held request; stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    match daemon.connect().request(&Request::Status) {
        Ok(Response::Status(status)) => {
            assert_eq!(status.pending, 0, "{status:?}");
            assert_eq!(status.held, HELD as u64, "{status:?}");
        }
        other => panic!("the daemon should still serve a status, got {other:?}"),
    }
}

/// One client that connects and never says anything must not stall the daemon for others.
#[test]
fn a_silent_client_does_not_delay_others() {
    let daemon = TestDaemon::start();
    let _silent: Vec<_> = (0..5).map(|_| daemon.connect()).collect();
    let mut conn = daemon.connect();
    for i in 0..100 {
        let verdict = verdict_of(&mut conn, &check(&format!("ls {i}"), Origin::Agent));
        assert_eq!(verdict.decision, Decision::Allow);
    }
}

/// A client that floods requests and never reads its replies fills its own socket; the daemon
/// must block only that connection, not the others.
#[test]
fn a_client_that_never_reads_does_not_delay_others() {
    let daemon = TestDaemon::start();
    let mut flooder = daemon.connect();
    set_timeouts(&flooder, Duration::from_millis(200));
    let mut sent = 0;
    // Send until the socket buffers are full (the send times out) or plenty went out.
    while sent < 20_000
        && flooder
            .send(&Request::Log {
                limit: 1000,
                from: 0,
            })
            .is_ok()
    {
        sent += 1;
    }
    let mut conn = daemon.connect();
    for i in 0..100 {
        let verdict = verdict_of(&mut conn, &check(&format!("ls {i}"), Origin::Agent));
        assert_eq!(verdict.decision, Decision::Allow);
    }
    drop(flooder);
    // A waiting requester is also unaffected by it.
    let mut requester = daemon.connect();
    hold(&mut requester, &held_check("rm -rf build", false, None));
}
