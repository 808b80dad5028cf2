//! Encoding and decoding of packets: the only place that knows the codec is bincode.
//!
//! A packet is `varint(PROTOCOL_VERSION)` followed by one message in bincode's standard
//! configuration with a decode limit of [`MAX_MESSAGE_LEN`], so a length claimed inside a
//! hostile packet can never make the decoder allocate more than one packet's worth.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::CodecError;
use crate::protocol::{MAX_MESSAGE_LEN, PROTOCOL_VERSION, REQUEST_VARIANTS, Request, Response};

fn config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<MAX_MESSAGE_LEN>()
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
                },
                wait: true,
            }),
            Request::Explain(ExplainRequest {
                subject: Subject::Tool {
                    name: "writeFile".into(),
                    args_json: r#"{"path":".env"}"#.into(),
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
            Request::ListPending,
            Request::Status,
            Request::Log { limit: 20 },
            Request::CheckBatch(BatchRequest {
                subjects: vec![
                    shell("rm -rf build"),
                    Subject::Tool {
                        name: "file.delete".into(),
                        args_json: r#"{"path":"x"}"#.into(),
                    },
                ],
                origin: Origin::Tool,
                context: Context::default(),
                wait: true,
            }),
            Request::RegisterApprover(ApproverHello {
                name: "assent-notify 0.1.0".into(),
            }),
            Request::Rules,
            Request::Forget {
                id: Some("r_1".into()),
            },
            Request::Prompted {
                token: "pa_z".into(),
                allow: true,
                remember: Remember::Session,
            },
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
                }],
                omitted: 2,
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
            }),
            Response::Withdrawn(Withdrawn {
                token: "pa_2".into(),
                outcome: Decided {
                    allow: true,
                    by: DecidedBy::User,
                    reason: "allowed".into(),
                },
            }),
            Response::Rules(RuleList {
                rules: vec![RememberedRule {
                    id: "r_1".into(),
                    uid: 1000,
                    scope: RuleScope::Until { ms: 5 },
                    signature: "git push in /".into(),
                    created_ms: 1,
                    uses: 2,
                }],
                omitted: 0,
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
            }),
            Response::Log(vec![AuditEvent {
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
            }]),
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
                4, 0, 0, 2, b'l', b's', 7, b'/', b'h', b'o', b'm', b'e', b'/', b'u', 0, 0, 0, 0, 0,
                0, 0
            ]
        );
        assert_eq!(encode_request(&Request::Status).expect("encodes"), [4, 5]);
        assert_eq!(encode_response(&Response::Done).expect("encodes"), [4, 3]);
        let error = Response::Error(WireError {
            kind: ErrorKind::Expired,
            message: "e".into(),
        });
        assert_eq!(
            encode_response(&error).expect("encodes"),
            [4, 7, 5, 1, b'e']
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
            [4, 3, 4, b'p', b'a', b'_', b'y', 1, 0, 1, 2, 2, 7]
        );
        // CheckBatch: [Tool "t" "{}"], origin tool, no context (prompt false), wait.
        let batch = Request::CheckBatch(BatchRequest {
            subjects: vec![Subject::Tool {
                name: "t".into(),
                args_json: "{}".into(),
            }],
            origin: Origin::Tool,
            context: Context::default(),
            wait: true,
        });
        assert_eq!(
            encode_request(&batch).expect("encodes"),
            [4, 7, 1, 1, 1, b't', 2, b'{', b'}', 2, 0, 0, 0, 0, 1]
        );
        let batch_verdict = Response::BatchVerdict(BatchVerdict {
            items: vec![],
            token: None,
            expires_in_ms: None,
        });
        assert_eq!(
            encode_response(&batch_verdict).expect("encodes"),
            [4, 8, 0, 0, 0]
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
            [4, 9, 1, 1, 1, 1, b'r']
        );
        // Version 3's requests and responses, appended after the earlier ones.
        assert_eq!(encode_request(&Request::Rules).expect("encodes"), [4, 9]);
        let prompted = Request::Prompted {
            token: "t".into(),
            allow: false,
            remember: Remember::Always,
        };
        assert_eq!(
            encode_request(&prompted).expect("encodes"),
            [4, 11, 1, b't', 0, 3]
        );
        assert_eq!(
            encode_response(&Response::Forgot { removed: 2 }).expect("encodes"),
            [4, 13, 2]
        );
    }

    #[test]
    fn wrong_version_is_named() {
        let mut packet = encode_request(&Request::Status).expect("encodes");
        packet[0] = 9;
        assert_eq!(
            decode_request(&packet),
            Err(CodecError::Version { theirs: 9 })
        );
    }

    #[test]
    fn unknown_request_is_not_garbage() {
        assert_eq!(
            decode_request(&[4, 99]),
            Err(CodecError::UnknownRequest { tag: 99 })
        );
    }

    #[test]
    fn garbage_empty_trailing_and_oversized_are_errors() {
        assert_eq!(decode_request(&[]), Err(CodecError::Empty));
        assert!(matches!(
            decode_request(&[4, 0, 0xff]),
            Err(CodecError::Malformed(_))
        ));
        assert!(matches!(
            decode_request(&[4, 5, 0]),
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
        let packet = [4u8, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x10];
        assert!(matches!(
            decode_request(&packet),
            Err(CodecError::Malformed(_))
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
