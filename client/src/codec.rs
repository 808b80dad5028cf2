//! Encoding and decoding of packets: the only place that knows the codec is bincode.
//!
//! A packet is `varint(PROTOCOL_VERSION)` followed by one message in bincode's standard
//! configuration. Size has one definition, the packet's length on the wire: both sides refuse a
//! packet over [`MAX_MESSAGE_LEN`], and nothing that fits is refused by the decoder.
//!
//! The decoder's limit is there for what a hostile length inside a packet could make it
//! allocate. bincode counts against it each value at its width in memory (8 bytes for a
//! `u64` the wire carries as a 1-byte varint, 8 for each string's length prefix, the string's
//! bytes as they are), so a packet claims at most [`CLAIM_PER_BYTE`] times its length: the limit
//! is that many times [`MAX_MESSAGE_LEN`] (1 MiB), never lower than what a packet that fits can
//! claim, and still a bound on what one packet can make the decoder allocate.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::CodecError;
use crate::protocol::{MAX_MESSAGE_LEN, PROTOCOL_VERSION, REQUEST_VARIANTS, Request, Response};

/// The most bytes bincode counts against its limit for one byte on the wire (a `u64` or a
/// length prefix: 8 in memory, 1 on the wire); our messages have no wider value.
pub const CLAIM_PER_BYTE: usize = 8;

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_MESSAGE_LEN * CLAIM_PER_BYTE }>()
}

/// Encode a message with the version prefix. Fails if the result exceeds [`MAX_MESSAGE_LEN`].
fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, CodecError> {
    let mut out = bincode::encode_to_vec(PROTOCOL_VERSION, config())
        .map_err(|e| CodecError::Encode(e.to_string()))?;
    let body = bincode::serde::encode_to_vec(message, config())
        .map_err(|e| CodecError::Encode(e.to_string()))?;
    out.extend_from_slice(&body);
    if out.len() > MAX_MESSAGE_LEN {
        return Err(CodecError::TooLarge { len: out.len() });
    }
    Ok(out)
}

/// Split the version prefix off a packet and check it.
fn body(packet: &[u8]) -> Result<&[u8], CodecError> {
    if packet.is_empty() {
        return Err(CodecError::Empty);
    }
    if packet.len() > MAX_MESSAGE_LEN {
        return Err(CodecError::TooLarge { len: packet.len() });
    }
    let (version, used): (u32, usize) = bincode::decode_from_slice(packet, config())
        .map_err(|e| CodecError::Malformed(format!("no protocol version: {e}")))?;
    if version != PROTOCOL_VERSION {
        return Err(CodecError::Version { theirs: version });
    }
    Ok(&packet[used..])
}

fn decode_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, CodecError> {
    let (message, used): (T, usize) = bincode::serde::decode_from_slice(body, config())
        .map_err(|e| CodecError::Malformed(e.to_string()))?;
    if used != body.len() {
        return Err(CodecError::Malformed(format!(
            "{} bytes left over after the message",
            body.len() - used
        )));
    }
    Ok(message)
}

/// How many bytes `value` takes on the wire inside a message (an upper bound on a list item's
/// share of a packet, for cutting lists into pages). Something that cannot be encoded counts
/// as larger than any packet.
pub fn encoded_len<T: Serialize>(value: &T) -> usize {
    let mut counter = bincode::enc::write::SizeWriter::default();
    match bincode::serde::encode_into_writer(value, &mut counter, config()) {
        Ok(()) => counter.bytes_written,
        Err(_) => MAX_MESSAGE_LEN + 1,
    }
}

/// Encode a request for the daemon.
pub fn encode_request(request: &Request) -> Result<Vec<u8>, CodecError> {
    encode(request)
}

/// Encode a response for a client.
pub fn encode_response(response: &Response) -> Result<Vec<u8>, CodecError> {
    encode(response)
}

/// Decode a client's packet, telling a wrong version and an unknown request apart from garbage.
pub fn decode_request(packet: &[u8]) -> Result<Request, CodecError> {
    let body = body(packet)?;
    let (tag, _): (u32, usize) = bincode::decode_from_slice(body, config())
        .map_err(|e| CodecError::Malformed(format!("no request tag: {e}")))?;
    if tag >= REQUEST_VARIANTS {
        return Err(CodecError::UnknownRequest { tag });
    }
    decode_body(body)
}

/// Decode the daemon's packet.
pub fn decode_response(packet: &[u8]) -> Result<Response, CodecError> {
    decode_body(body(packet)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::*;

    /// The version byte of this build's packets (a varint below 128 is one byte).
    const VERSION: u8 = PROTOCOL_VERSION as u8;

    fn shell(command: &str) -> Subject {
        Subject::Shell {
            command: command.into(),
            cwd: "/home/u".into(),
            truncated: false,
        }
    }

    fn every_request() -> Vec<Request> {
        vec![
            Request::Check(CheckRequest {
                subject: shell("ls -la"),
                origin: Origin::Agent,
                context: Context {
                    session: Some("s1".into()),
                    requires_confirmation: Some(true),
                    confidence: Some(0.5),
                    prompt: true,
                    agent: None,
                    confines: true,
                    grant: true,
                    asks_when_held: false,
                },
                wait: true,
            }),
            Request::Explain(ExplainRequest {
                subject: Subject::Tool {
                    name: "writeFile".into(),
                    args_json: r#"{"path":".env"}"#.into(),
                    cwd: Some("/home/u/project".into()),
                },
                origin: Origin::Tool,
                context: Context::default(),
            }),
            Request::Cancel {
                token: "pa_x".into(),
            },
            Request::Answer {
                token: "pa_y".into(),
                allow: true,
                session: None,
                item: Some(2),
                remember: Remember::For { secs: 60 },
            },
            Request::ListPending { from: 3 },
            Request::Status,
            Request::Log { limit: 20, from: 0 },
            Request::CheckBatch(BatchRequest {
                subjects: vec![
                    shell("rm -rf build"),
                    Subject::Tool {
                        name: "file.delete".into(),
                        args_json: r#"{"path":"x"}"#.into(),
                        cwd: None,
                    },
                ],
                origin: Origin::Tool,
                context: Context::default(),
                wait: true,
            }),
            Request::RegisterApprover(ApproverHello {
                name: "assent-notify 0.1.0".into(),
                buttons: Some(false),
            }),
            Request::ListRemembered { from: 0 },
            Request::Forget {
                id: Some("r_1".into()),
            },
            Request::Prompted {
                token: "pa_z".into(),
                allow: true,
                remember: Remember::Session,
            },
            Request::Redeem(RedeemRequest {
                token: "pa_r".into(),
                subject: shell("rm -rf build"),
                origin: Origin::Agent,
                context: Context::default(),
            }),
            Request::Grant(GrantRequest {
                token: "pg_1".into(),
                subject: shell("make"),
            }),
            Request::Refused(RefusedRequest {
                subject: shell("make"),
                origin: Origin::Agent,
            }),
        ]
    }

    #[test]
    fn every_request_round_trips_and_the_variant_count_is_right() {
        let requests = every_request();
        assert_eq!(requests.len() as u32, REQUEST_VARIANTS);
        for request in requests {
            let packet = encode_request(&request).expect("encodes");
            assert_eq!(decode_request(&packet).expect("decodes"), request);
        }
    }

    #[test]
    fn every_response_round_trips() {
        let finding = Finding {
            id: "fs.rm_recursive".into(),
            level: Level::Destructive,
            message: "deletes a directory tree".into(),
            span: Span { start: 0, end: 6 },
        };
        let verdict = Verdict {
            decision: Decision::Confirm,
            level: Level::Destructive,
            findings: vec![finding.clone()],
            reason: "default policy".into(),
            token: Some("pa_0".into()),
            expires_in_ms: Some(300_000),
            confine: None,
            grant: None,
            another_answers: false,
        };
        let responses = vec![
            Response::Verdict(verdict.clone()),
            Response::Decided(Decided {
                allow: false,
                by: DecidedBy::Timeout,
                reason: "expired".into(),
            }),
            Response::Explained(Explanation {
                verdict: verdict.clone(),
                commands: vec![CommandInfo {
                    path: "list[0]".into(),
                    argv: vec!["rm".into(), "-rf".into()],
                    span: Span { start: 0, end: 6 },
                }],
            }),
            Response::Done,
            Response::Pending(PendingList {
                items: vec![PendingItem {
                    token: "pa_0".into(),
                    uid: 1000,
                    pid: 42,
                    origin: Origin::Agent,
                    subject: "rm -rf x".into(),
                    cwd: Some("/tmp".into()),
                    level: Level::Destructive,
                    findings: vec![finding.clone()],
                    session: None,
                    expires_in_ms: 5,
                    items: vec![PendingBatchItem {
                        item: 2,
                        subject: "tool file.delete {}".into(),
                        cwd: None,
                        level: Level::Destructive,
                        findings: vec![finding.clone()],
                    }],
                    program: "claude".into(),
                    signature: "rm -rf x in /tmp".into(),
                    agent: None,
                    digest: String::new(),
                }],
                next: Some(2),
            }),
            Response::Held(PendingItem {
                token: "pa_2".into(),
                uid: 1000,
                pid: 43,
                origin: Origin::Interactive,
                subject: "git push".into(),
                cwd: None,
                level: Level::Moderate,
                findings: vec![],
                session: Some("conv".into()),
                expires_in_ms: 9,
                items: vec![],
                program: "bash".into(),
                signature: "git push in /".into(),
                agent: None,
                digest: "0123456789abcdef0123456789abcdef".into(),
            }),
            Response::Withdrawn(Withdrawn {
                token: "pa_2".into(),
                outcome: Decided {
                    allow: true,
                    by: DecidedBy::User,
                    reason: "allowed".into(),
                },
            }),
            Response::Remembered(RememberedList {
                approvals: vec![RememberedApproval {
                    id: "r_1".into(),
                    uid: 1000,
                    scope: RememberedScope::Until { ms: 5 },
                    signature: "git push in /".into(),
                    created_ms: 1,
                    uses: 2,
                }],
                next: None,
            }),
            Response::Forgot { removed: 3 },
            Response::BatchVerdict(BatchVerdict {
                items: vec![verdict.clone()],
                token: Some("pa_1".into()),
                expires_in_ms: Some(1000),
            }),
            Response::BatchDecided(BatchDecided {
                items: vec![Decided {
                    allow: true,
                    by: DecidedBy::Policy,
                    reason: "safe".into(),
                }],
            }),
            Response::Status(StatusInfo {
                version: "0.1.0".into(),
                protocol: PROTOCOL_VERSION,
                mode: "user".into(),
                socket: "/run/x".into(),
                uptime_secs: 3,
                allowed: 1,
                denied: 2,
                held: 3,
                pending: 0,
                policy: "embedded default".into(),
                policy_error: Some("x".into()),
                approvers: 1,
                sessions: "posix".into(),
                no_approver: "hold".into(),
                audit_failing: Some("no space".into()),
                audit_waiting: 3,
                audit_lost: 0,
                state_error: None,
                observe: Some("everyone".into()),
                policy_waiting: None,
                landlock_abi: 7,
                hold_ttl_secs: 300,
                approvers_without_buttons: 1,
                refusals_unknown: Some("the kernel's audit is off".into()),
                kept_rulesets: 2,
                rulesets_passed: 40,
            }),
            Response::Log(LogPage {
                events: vec![AuditEvent {
                    time_ms: 1,
                    uid: 0,
                    pid: 1,
                    origin: Origin::Interactive,
                    subject: "ls".into(),
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
                    refused_places: vec![
                        "fs.make_reg /home/u/Documents (files outside the project)".into(),
                    ],
                    grant: Some("redeemed".into()),
                }],
                next: Some(7),
            }),
            Response::Refusals(Refusals {
                unknown: None,
                refused: vec![Refusal {
                    access: "fs.write_file".into(),
                    path: Some("/home/u/notes.txt".into()),
                    place: "files outside the project".into(),
                }],
            }),
            Response::Error(WireError {
                kind: ErrorKind::NotFound,
                message: "no such request".into(),
            }),
        ];
        for response in responses {
            let packet = encode_response(&response).expect("encodes");
            assert_eq!(decode_response(&packet).expect("decodes"), response);
        }
    }

    /// Frozen bytes: if one of these changes, the wire format changed and PROTOCOL_VERSION must
    /// be bumped.
    #[test]
    fn frozen_bytes() {
        let check = Request::Check(CheckRequest {
            subject: shell("ls"),
            origin: Origin::Interactive,
            context: Context::default(),
            wait: false,
        });
        assert_eq!(
            encode_request(&check).expect("encodes"),
            [
                15, 0, 0, 2, b'l', b's', 7, b'/', b'h', b'o', b'm', b'e', b'/', b'u', 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0
            ]
        );
        assert_eq!(encode_request(&Request::Status).expect("encodes"), [15, 5]);
        assert_eq!(encode_response(&Response::Done).expect("encodes"), [15, 3]);
        let error = Response::Error(WireError {
            kind: ErrorKind::Expired,
            message: "e".into(),
        });
        assert_eq!(
            encode_response(&error).expect("encodes"),
            [15, 7, 5, 1, b'e']
        );
        // Answer: token, allow, session, item, and (version 3) remember.
        let answer = Request::Answer {
            token: "pa_y".into(),
            allow: true,
            session: None,
            item: Some(2),
            remember: Remember::For { secs: 7 },
        };
        assert_eq!(
            encode_request(&answer).expect("encodes"),
            [15, 3, 4, b'p', b'a', b'_', b'y', 1, 0, 1, 2, 2, 7]
        );
        // CheckBatch: [Tool "t" "{}" (version 7: no cwd)], origin tool, no context (prompt false, confines false, version 11: grant false; version 14: asks_when_held false), wait.
        let batch = Request::CheckBatch(BatchRequest {
            subjects: vec![Subject::Tool {
                name: "t".into(),
                args_json: "{}".into(),
                cwd: None,
            }],
            origin: Origin::Tool,
            context: Context::default(),
            wait: true,
        });
        assert_eq!(
            encode_request(&batch).expect("encodes"),
            [
                15, 7, 1, 1, 1, b't', 2, b'{', b'}', 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1
            ]
        );
        let batch_verdict = Response::BatchVerdict(BatchVerdict {
            items: vec![],
            token: None,
            expires_in_ms: None,
        });
        assert_eq!(
            encode_response(&batch_verdict).expect("encodes"),
            [15, 8, 0, 0, 0]
        );
        let batch_decided = Response::BatchDecided(BatchDecided {
            items: vec![Decided {
                allow: true,
                by: DecidedBy::User,
                reason: "r".into(),
            }],
        });
        assert_eq!(
            encode_response(&batch_decided).expect("encodes"),
            [15, 9, 1, 1, 1, 1, b'r']
        );
        // Version 3's requests and responses, appended after the earlier ones; version 5
        // pages the lists.
        assert_eq!(
            encode_request(&Request::ListRemembered { from: 0 }).expect("encodes"),
            [15, 9, 0]
        );
        let prompted = Request::Prompted {
            token: "t".into(),
            allow: false,
            remember: Remember::Always,
        };
        assert_eq!(
            encode_request(&prompted).expect("encodes"),
            [15, 11, 1, b't', 0, 3]
        );
        assert_eq!(
            encode_response(&Response::Forgot { removed: 2 }).expect("encodes"),
            [15, 13, 2]
        );
        // Version 8: a held request ends with its digest.
        let held = Response::Held(PendingItem {
            token: "t".into(),
            uid: 1,
            pid: 2,
            origin: Origin::Agent,
            subject: "s".into(),
            cwd: None,
            level: Level::Safe,
            findings: vec![],
            session: None,
            expires_in_ms: 3,
            items: vec![],
            program: "p".into(),
            signature: String::new(),
            agent: None,
            digest: "d".into(),
        });
        let bytes = encode_response(&held).expect("encodes");
        assert_eq!(bytes[..2], [15, 10], "{bytes:?}");
        assert_eq!(bytes[bytes.len() - 3..], [0, 1, b'd'], "{bytes:?}");
        // Version 11: a verdict's confinement carries the project the daemon found, not a
        // flag; then the grant (none here); version 12: whether another person answers.
        let verdict = Response::Verdict(Verdict {
            decision: Decision::Allow,
            level: Level::Safe,
            findings: vec![],
            reason: String::new(),
            token: None,
            expires_in_ms: None,
            confine: Some(Confinement {
                project: Some("/p".into()),
                ..Confinement::default()
            }),
            grant: None,
            another_answers: true,
        });
        let bytes = encode_response(&verdict).expect("encodes");
        // Version 13: then whether the kernel is to log what the run is refused.
        assert_eq!(
            bytes[bytes.len() - 15..],
            [1, 0, 1, 2, b'/', b'p', 0, 0, 0, 0, 0, 0, 0, 0, 1],
            "{bytes:?}"
        );
    }

    #[test]
    fn wrong_version_is_named() {
        let mut packet = encode_request(&Request::Status).expect("encodes");
        packet[0] = VERSION + 1;
        assert_eq!(
            decode_request(&packet),
            Err(CodecError::Version {
                theirs: u32::from(VERSION) + 1
            })
        );
    }

    #[test]
    fn unknown_request_is_not_garbage() {
        assert_eq!(
            decode_request(&[VERSION, 99]),
            Err(CodecError::UnknownRequest { tag: 99 })
        );
    }

    #[test]
    fn garbage_empty_trailing_and_oversized_are_errors() {
        assert_eq!(decode_request(&[]), Err(CodecError::Empty));
        assert!(matches!(
            decode_request(&[VERSION, 0, 0xff]),
            Err(CodecError::Malformed(_))
        ));
        assert!(matches!(
            decode_request(&[VERSION, 5, 0]),
            Err(CodecError::Malformed(_))
        ));
        let big = vec![1u8; MAX_MESSAGE_LEN + 1];
        assert!(matches!(
            decode_request(&big),
            Err(CodecError::TooLarge { .. })
        ));
    }

    #[test]
    fn a_claimed_huge_length_does_not_allocate_it() {
        // Check(Shell{command: <length 2^60>...}): the decode limit refuses before allocating.
        let packet = [VERSION, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x10];
        assert!(matches!(
            decode_request(&packet),
            Err(CodecError::Malformed(_))
        ));
    }

    /// One definition of size: a reply as long as the wire allows decodes, whatever it holds
    /// (here the worst case for the decoder's count, many events of small integers, each
    /// counted at 8 bytes for its 1-byte varint), and one byte more is refused by both sides.
    #[test]
    fn a_reply_as_long_as_the_wire_allows_decodes() {
        let event = AuditEvent {
            time_ms: 1,
            uid: 2,
            pid: 3,
            origin: Origin::Agent,
            subject: String::new(),
            level: Level::Safe,
            findings: vec![],
            decision: Decision::Allow,
            by: DecidedBy::Policy,
            reason: String::new(),
            token: None,
            agent: None,
            program: None,
            cwd: None,
            refused: None,
            refused_places: Vec::new(),
            grant: None,
        };
        let page = |n: usize, subject: usize| {
            let mut events = vec![event.clone(); n];
            events[0].subject = "s".repeat(subject);
            Response::Log(LogPage { events, next: None })
        };
        // As many events as fit, then pad the first one's subject to the exact limit.
        let (mut n, mut over) = (1, 2);
        while encode_response(&page(over, 0)).is_ok() {
            (n, over) = (over, over * 2);
        }
        while over - n > 1 {
            let mid = (n + over) / 2;
            if encode_response(&page(mid, 0)).is_ok() {
                n = mid;
            } else {
                over = mid;
            }
        }
        let short = encode_response(&page(n, 0)).expect("fits").len();
        let mut pad = MAX_MESSAGE_LEN - short;
        while encode_response(&page(n, pad)).is_err() {
            pad -= 1; // the subject's own length prefix may grow by a byte or two
        }
        let exact = page(n, pad);
        let packet = encode_response(&exact).expect("fits");
        assert!(packet.len() >= MAX_MESSAGE_LEN - 2, "{}", packet.len());
        assert!(n > 7_500, "{n} events fill a packet");
        assert_eq!(decode_response(&packet).expect("decodes"), exact);
        // One byte past the wire's limit: the encoder refuses it, and so does the decoder.
        assert!(matches!(
            encode_response(&page(n + 1, pad)),
            Err(CodecError::TooLarge { .. })
        ));
        let mut over = packet.clone();
        over.resize(MAX_MESSAGE_LEN + 1, 0);
        assert!(matches!(
            decode_response(&over),
            Err(CodecError::TooLarge { .. })
        ));
    }

    #[test]
    fn an_oversized_message_is_refused_on_encode() {
        let request = Request::Check(CheckRequest {
            subject: shell(&"x".repeat(MAX_MESSAGE_LEN)),
            origin: Origin::Agent,
            context: Context::default(),
            wait: true,
        });
        assert!(matches!(
            encode_request(&request),
            Err(CodecError::TooLarge { .. })
        ));
    }
}
