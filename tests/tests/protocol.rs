//! The wire protocol end to end: verdicts for the basic cases, and every kind of bad packet,
//! through a real socket to the real daemon.

use assent_client::protocol::{
    CheckRequest, Context, Decision, ErrorKind, ExplainRequest, Level, MAX_MESSAGE_LEN, Origin,
    PROTOCOL_VERSION, Request, Response, Subject, TRUNCATE_COMMAND_AT,
};
use assent_tests::{TestDaemon, check, held_check, pending_tokens, refused, shell, verdict_of};

/// After a connection was broken on purpose, a fresh one must still be served correctly: one
/// bad client never takes the daemon down.
fn assert_daemon_still_serves(daemon: &TestDaemon) {
    let mut conn = daemon.connect();
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => assert_eq!(status.protocol, PROTOCOL_VERSION),
        other => panic!("a fresh connection should get the status, got {other:?}"),
    }
    let verdict = verdict_of(&mut conn, &check("ls -la", Origin::Agent));
    assert_eq!(verdict.decision, Decision::Allow);
}

/// Expect the daemon to have closed `conn`: the next receive is end of connection.
fn assert_closed(conn: &mut assent_client::Connection) {
    match conn.recv() {
        Err(assent_client::Error::Closed) => {}
        other => panic!("expected the daemon to close the connection, got {other:?}"),
    }
}

/// The everyday case must cost nothing: a read-only command from an agent runs at once.
#[test]
fn a_safe_command_from_an_agent_is_allowed() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let verdict = verdict_of(&mut conn, &check("ls -la", Origin::Agent));
    assert_eq!(verdict.decision, Decision::Allow, "{verdict:?}");
    assert_eq!(verdict.level, Level::Safe, "{verdict:?}");
    assert_eq!(verdict.token, None, "an allowed check holds nothing");
}

/// Deleting a project directory is what the gate exists for: an agent's `rm -rf /home/user/project/src` waits
/// for a person.
#[test]
fn a_destructive_command_from_an_agent_is_held() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let verdict = verdict_of(
        &mut conn,
        &check("rm -rf /home/user/project/src", Origin::Agent),
    );
    assert_eq!(verdict.decision, Decision::Confirm, "{verdict:?}");
    assert_eq!(verdict.level, Level::Destructive, "{verdict:?}");
    assert!(
        verdict.token.as_deref().is_some_and(assent_tests::is_token),
        "a held verdict carries a token: {verdict:?}"
    );
    assert!(verdict.expires_in_ms.is_some(), "{verdict:?}");
}

/// "Don't delete my house": wiping the root is refused outright for automation, not held.
#[test]
fn a_forbidden_command_from_an_agent_is_denied() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let verdict = verdict_of(&mut conn, &check("rm -rf /", Origin::Agent));
    assert_eq!(verdict.decision, Decision::Deny, "{verdict:?}");
    assert_eq!(verdict.level, Level::Forbidden, "{verdict:?}");
    assert_eq!(verdict.token, None, "a denial holds nothing");
}

/// Publishing is held for agents but is the person's own business at their shell.
#[test]
fn git_push_is_held_for_an_agent_and_allowed_for_a_person() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let agent = verdict_of(&mut conn, &check("git push", Origin::Agent));
    assert_eq!(agent.decision, Decision::Confirm, "{agent:?}");
    let person = verdict_of(&mut conn, &check("git push", Origin::Interactive));
    assert_eq!(person.decision, Decision::Allow, "{person:?}");
}

/// Tools not in the registry are held (fail closed), whatever origin the caller claims.
#[test]
fn an_unknown_tool_call_is_held() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let request = Request::Check(CheckRequest {
        subject: Subject::Tool {
            name: "writeFile".into(),
            args_json: r#"{"path":".env","content":"x"}"#.into(),
            cwd: None,
        },
        origin: Origin::Interactive,
        context: Context::default(),
        wait: false,
    });
    let verdict = verdict_of(&mut conn, &request);
    assert_eq!(verdict.decision, Decision::Confirm, "{verdict:?}");
    let token = verdict.token.expect("a held tool call has a token");
    assert!(pending_tokens(&mut conn).contains(&token));
}

/// A command cut to fit the wire cannot be analysed whole, so an agent may never run it on
/// the strength of its first 16 KiB.
#[test]
fn a_truncated_command_is_never_allowed_for_an_agent() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let mut command = String::from("echo ");
    command.push_str(&"a".repeat(TRUNCATE_COMMAND_AT - command.len()));
    let request = Request::Check(CheckRequest {
        subject: Subject::Shell {
            command,
            cwd: "/tmp".into(),
            truncated: true,
        },
        origin: Origin::Agent,
        context: Context::default(),
        wait: false,
    });
    let verdict = verdict_of(&mut conn, &request);
    assert_ne!(verdict.decision, Decision::Allow, "{verdict:?}");
}

/// Explain is a dry run: it reports the decision a check would get but holds nothing.
#[test]
fn explain_reports_a_hold_without_holding() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let request = Request::Explain(ExplainRequest {
        subject: shell("ls"),
        origin: Origin::Agent,
        context: Context {
            requires_confirmation: Some(true),
            ..Context::default()
        },
    });
    match conn.request(&request) {
        Ok(Response::Explained(explained)) => {
            assert_eq!(explained.verdict.decision, Decision::Confirm);
            assert_eq!(explained.verdict.token, None);
        }
        other => panic!("expected an explanation, got {other:?}"),
    }
    assert!(
        pending_tokens(&mut conn).is_empty(),
        "explain held something"
    );
}

/// `assent status` relies on these numbers: the protocol, the mode, and what was allowed,
/// held and is pending now.
#[test]
fn status_counts_checks_and_pending() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    verdict_of(&mut conn, &check("ls", Origin::Agent));
    assent_tests::hold(&mut conn, &held_check("ls", false, None));
    match conn.request(&Request::Status) {
        Ok(Response::Status(status)) => {
            assert_eq!(status.protocol, PROTOCOL_VERSION);
            assert_eq!(status.mode, "user");
            assert_eq!(status.pending, 1, "{status:?}");
            assert_eq!(status.held, 1, "{status:?}");
            assert!(status.allowed >= 1, "{status:?}");
            assert_eq!(status.socket, daemon.socket().display().to_string());
        }
        other => panic!("expected the status, got {other:?}"),
    }
}

/// A client from another release must hear which versions disagree, then be disconnected,
/// rather than have its bytes misread as a request.
#[test]
fn a_wrong_protocol_version_is_named_and_closes_the_connection() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    conn.send_raw(&[99, 5]).expect("the packet is sent");
    match conn.recv() {
        Ok(Response::Error(error)) => {
            assert_eq!(error.kind, ErrorKind::VersionMismatch);
            assert!(
                error.message.contains("99"),
                "the message names the client's version: {}",
                error.message
            );
            assert!(
                error
                    .message
                    .contains(&format!("protocol {PROTOCOL_VERSION}")),
                "the message names the daemon's version: {}",
                error.message
            );
        }
        other => panic!("expected version_mismatch, got {other:?}"),
    }
    assert_closed(&mut conn);
    assert_daemon_still_serves(&daemon);
}

/// Bytes that do not decode are refused with a reason and the connection is dropped, since its
/// framing can no longer be trusted.
#[test]
fn a_garbage_packet_is_a_bad_message_and_closes_the_connection() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    conn.send_raw(&[PROTOCOL_VERSION as u8, 0, 0xff, 0xfe, 0x00, 0x13])
        .expect("the packet is sent");
    assert_eq!(
        refused(conn.recv().and_then(error_reply)),
        ErrorKind::BadMessage
    );
    assert_closed(&mut conn);
    assert_daemon_still_serves(&daemon);
}

/// A packet over the 128 KiB limit is refused, not truncated and half-read.
#[test]
fn an_oversized_packet_is_too_large_and_closes_the_connection() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let mut packet = vec![b'a'; MAX_MESSAGE_LEN + 1];
    packet[0] = 1;
    packet[1] = 0;
    conn.send_raw(&packet)
        .expect("a 128 KiB + 1 packet is sent");
    assert_eq!(
        refused(conn.recv().and_then(error_reply)),
        ErrorKind::TooLarge
    );
    assert_closed(&mut conn);
    assert_daemon_still_serves(&daemon);
}

/// On SOCK_SEQPACKET an empty packet reads like end of connection, so the daemon ends it.
#[test]
fn an_empty_packet_ends_the_connection() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    conn.send_raw(&[]).expect("an empty packet is sent");
    assert_closed(&mut conn);
    assert_daemon_still_serves(&daemon);
}

/// A newer client's request is refused by name but the connection stays usable, so clients can
/// probe for features.
#[test]
fn an_unknown_request_is_refused_and_the_connection_goes_on() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    conn.send_raw(&[PROTOCOL_VERSION as u8, 99])
        .expect("the packet is sent");
    assert_eq!(
        refused(conn.recv().and_then(error_reply)),
        ErrorKind::UnknownRequest
    );
    match conn.request(&Request::Status) {
        Ok(Response::Status(_)) => {}
        other => panic!("the connection should go on after unknown_request, got {other:?}"),
    }
    assert_daemon_still_serves(&daemon);
}

/// A request the daemon understands but cannot accept (a relative working directory) is an
/// error reply on a connection that goes on.
#[test]
fn a_relative_working_directory_is_invalid() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let request = Request::Check(CheckRequest {
        subject: Subject::Shell {
            command: "ls".into(),
            cwd: "relative/dir".into(),
            truncated: false,
        },
        origin: Origin::Agent,
        context: Context::default(),
        wait: false,
    });
    assert_eq!(refused(conn.request(&request)), ErrorKind::Invalid);
    let verdict = verdict_of(&mut conn, &check("ls", Origin::Agent));
    assert_eq!(verdict.decision, Decision::Allow);
}

/// Turn an error reply into the library's `Refused`, as `Connection::request` does.
fn error_reply(response: Response) -> Result<Response, assent_client::Error> {
    match response {
        Response::Error(error) => Err(assent_client::Error::Refused(error)),
        other => Ok(other),
    }
}

/// Text that is not UTF-8 where a string is expected is a bad message, not a panic.
#[test]
fn invalid_utf8_in_a_command_is_a_bad_message() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let mut packet =
        assent_client::codec::encode_request(&check("ls", Origin::Agent)).expect("encodes");
    let at = packet
        .windows(2)
        .position(|w| w == b"ls")
        .expect("the command is in the packet");
    packet[at] = 0xff;
    packet[at + 1] = 0xfe;
    conn.send_raw(&packet).expect("the packet is sent");
    assert_eq!(
        refused(conn.recv().and_then(error_reply)),
        ErrorKind::BadMessage
    );
    assert_closed(&mut conn);
    assert_daemon_still_serves(&daemon);
}

/// Hostile tool arguments (JSON nested far past any parser's comfort) are held, and the daemon
/// neither crashes nor stalls on them.
#[test]
fn deeply_nested_tool_arguments_are_held_without_harm() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let depth = 50_000;
    let request = Request::Check(CheckRequest {
        subject: Subject::Tool {
            name: "writeFile".into(),
            args_json: format!("{}{}", "[".repeat(depth), "]".repeat(depth)),
            cwd: None,
        },
        origin: Origin::Tool,
        context: Context::default(),
        wait: false,
    });
    let verdict = verdict_of(&mut conn, &request);
    assert_eq!(verdict.decision, Decision::Confirm, "{verdict:?}");
    assert_daemon_still_serves(&daemon);
}

/// A shell line nested thousands deep (subshells, substitutions, braces) must get a verdict
/// that is never Allow-by-accident for hidden parts, and must not overflow the daemon's stack.
#[test]
fn deeply_nested_command_lines_get_a_verdict() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let n = 2000;
    let lines = [
        format!("{}rm -rf /{}", "(".repeat(n), ")".repeat(n)),
        format!("{}rm -rf /{}", "$(echo ".repeat(n), ")".repeat(n)),
        format!("{}rm -rf /;{}", "{ ".repeat(n), "}; ".repeat(n)),
        format!(
            "{}rm -rf /;{}",
            "if true; then ".repeat(n / 4),
            "fi; ".repeat(n / 4)
        ),
    ];
    for line in &lines {
        let verdict = verdict_of(&mut conn, &check(line, Origin::Agent));
        assert_ne!(
            verdict.decision,
            Decision::Allow,
            "{}…: {verdict:?}",
            &line[..40]
        );
    }
    assert_daemon_still_serves(&daemon);
}

/// Every reply must fit one packet (findings are capped for that): a command under the 16 KiB
/// wire limit whose findings quote large parts of it still gets its verdict and token, and the
/// pending list still shows every held request.
#[test]
fn a_verdict_with_many_large_findings_still_fits_one_packet() {
    let daemon = TestDaemon::start();
    let mut conn = daemon.connect();
    let others: Vec<String> = (0..3)
        .map(|i| assent_tests::hold(&mut conn, &held_check(&format!("ls {i}"), false, None)))
        .collect();
    // `echo "$("$("$(…)")")"`: every level is a command whose name is only known at run time,
    // and each finding quotes that name.
    let n = 2500;
    let line = format!("echo {}{}", "\"$(".repeat(n), ")\"".repeat(n));
    assert!(line.len() < TRUNCATE_COMMAND_AT);
    let verdict = verdict_of(&mut conn, &check(&line, Origin::Agent));
    assert_eq!(
        verdict.decision,
        Decision::Confirm,
        "{:?}",
        verdict.findings.len()
    );
    let token = verdict.token.expect("a held verdict carries its token");
    let listed = pending_tokens(&mut daemon.connect());
    for token in others.iter().chain([&token]) {
        assert!(
            listed.contains(token),
            "{token} is missing from the pending list"
        );
    }
}
