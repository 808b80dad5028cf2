//! Unit tests of the store: every way a held request ends, and every answer error.

use super::*;
use crate::config::AuditConfig;
use crate::peer::{AgentFacts, AnswererFacts, Proc};

fn store(ttl: Duration, max: usize) -> Pending {
    let (audit, _writer) = Audit::start(
        &AuditConfig {
            journald: false,
            jsonl: None,
        },
        100,
    );
    Pending::new(
        ttl,
        max,
        Arc::new(audit),
        Arc::new(Stats::default()),
        Arc::new(Approvers::default()),
    )
}

fn requester(uid: u32, conn_id: u64) -> Requester {
    Requester {
        uid,
        pid: 100,
        sid: Some(100),
        conn_id,
        audit_session: None,
        chain: vec![
            Proc {
                pid: 100,
                start: 5000,
                comm: "assent".into(),
            },
            Proc {
                pid: 90,
                start: 4000,
                comm: "claude".into(),
            },
        ],
        agent: Some(AgentFacts {
            proc: Proc {
                pid: 90,
                start: 4000,
                comm: "claude".into(),
            },
            sid: 80,
            tty: 34816,
            cgroup: None,
        }),
    }
}

fn hold(uid: u32, conn_id: u64, session: Option<&str>) -> Hold {
    Hold {
        owner: uid,
        requester: requester(uid, conn_id),
        session: session.map(str::to_string),
        origin: Origin::Agent,
        sent: Sent::One {
            exact: "shell\0/home/u\0false\0rm -rf build".into(),
        },
        items: vec![Item {
            subject: "rm -rf build".into(),
            cwd: Some("/home/u".into()),
            level: Level::Destructive,
            findings: vec![],
            reason: "test".into(),
            decided: None,
            signature: "rm -rf build in /home/u".into(),
            approval: crate::policy::Approval::Click,
        }],
        wait: true,
        program: "claude".into(),
        agent: Some("Claude Code".into()),
    }
}

/// The outcome a single request's waiter hears.
async fn outcome(held: Held) -> Decided {
    let mut items = held.outcome.expect("waits").await.expect("settled");
    assert_eq!(items.len(), 1, "a single request has one outcome");
    items.remove(0)
}

fn approver(uid: u32) -> Answerer {
    Answerer {
        uid,
        pid: 200,
        sid: Some(200),
        conn_id: 99,
        session: None,
        audit_session: None,
        ancestors: vec![Proc {
            pid: 200,
            start: 6000,
            comm: "assent".into(),
        }],
        facts: AnswererFacts {
            tty: 34817,
            cgroup: Some("/user.slice/session-2.scope".into()),
        },
        agent: false,
    }
}

#[tokio::test]
async fn an_answer_reaches_the_waiter_and_the_second_answer_finds_nothing() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending.hold(hold(1000, 1, None)).expect("held");
    assert!(held.token.starts_with("pa_") && held.token.len() == 35);
    assert_eq!(
        pending.answer(&held.token, &approver(1000), true),
        Ok(vec![Approved {
            owner: 1000,
            signature: "rm -rf build in /home/u".into(),
            session: None,
            sid: Some(100),
        }]),
        "an allow says what a remembered approval would cover"
    );
    assert_eq!(
        pending.answer(&held.token, &approver(1000), false),
        Err(RequestError::NotFound)
    );
    let decided = outcome(held).await;
    assert!(decided.allow);
    assert_eq!(decided.by, DecidedBy::User);
    assert!(pending.is_empty());
}

#[tokio::test]
async fn answer_errors_leave_the_request_held() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending.hold(hold(1000, 1, Some("s1"))).expect("held");
    let token = &held.token;
    assert!(matches!(
        pending.answer(token, &approver(1001), true),
        Err(RequestError::UserMismatch { .. })
    ));
    let scoped = Answerer {
        session: Some("s2".into()),
        ..approver(1000)
    };
    assert!(matches!(
        pending.answer(token, &scoped, true),
        Err(RequestError::SessionMismatch { .. })
    ));
    let same_conn = Answerer {
        conn_id: 1,
        ..approver(1000)
    };
    assert_eq!(
        pending.answer(token, &same_conn, true),
        Err(RequestError::SelfApproval(None))
    );
    let same_session = Answerer {
        sid: Some(100),
        ..approver(1000)
    };
    assert_eq!(
        pending.answer(token, &same_session, true),
        Err(RequestError::SelfApproval(Some(
            "the answer comes from the requester's own login session (100)".into()
        )))
    );
    let unknown_session = Answerer {
        sid: None,
        ..approver(1000)
    };
    assert!(matches!(
        pending.answer(token, &unknown_session, true),
        Err(RequestError::Identity(_))
    ));
    assert_eq!(pending.len(), 1);
    // Root may answer for anyone, from another session.
    assert_eq!(
        pending.answer(token, &approver(0), false),
        Ok(vec![]),
        "a deny is never remembered"
    );
    assert!(!outcome(held).await.allow);
}

#[tokio::test]
async fn the_limit_is_per_uid_and_frees_up() {
    let pending = store(Duration::from_secs(60), 2);
    let a = pending.hold(hold(1000, 1, None)).expect("first");
    let _b = pending.hold(hold(1000, 2, None)).expect("second");
    assert!(matches!(
        pending.hold(hold(1000, 3, None)),
        Err(RequestError::LimitReached { limit: 2, .. })
    ));
    pending
        .hold(hold(1001, 4, None))
        .expect("another uid has its own limit");
    pending
        .cancel(&a.token, 1000, "test")
        .expect("owner cancels");
    pending.hold(hold(1000, 5, None)).expect("a slot freed up");
}

#[tokio::test]
async fn a_requester_of_unknown_session_is_not_answered_by_its_own_uid() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending
        .hold(Hold {
            requester: Requester {
                sid: None,
                ..requester(1000, 1)
            },
            ..hold(1000, 1, None)
        })
        .expect("held");
    // It could be in the answerer's own session: the same uid may not answer it.
    assert_eq!(
        pending.answer(&held.token, &approver(1000), true),
        Err(RequestError::SelfApproval(None))
    );
    // Another uid allowed to answer (root) still may.
    assert_eq!(
        pending
            .answer(&held.token, &approver(0), true)
            .map(|a| a.len()),
        Ok(1)
    );
}

#[tokio::test(start_paused = true)]
async fn expiry_denies_once_and_a_late_answer_hears_expired() {
    let pending = store(Duration::from_secs(5), 4);
    let held = pending.hold(hold(1000, 1, None)).expect("held");
    let unwaited = pending
        .hold(Hold {
            wait: false,
            ..hold(1000, 2, None)
        })
        .expect("held");
    tokio::time::advance(Duration::from_secs(6)).await;
    assert!(pending.expire(&held.token));
    assert!(!pending.expire(&held.token), "it ends once");
    let decided = outcome(held).await;
    assert_eq!(decided.by, DecidedBy::Timeout);
    assert!(!decided.allow);
    assert_eq!(
        pending.sweep(),
        1,
        "the sweeper ends the request nobody waits on"
    );
    assert_eq!(
        pending.answer(&unwaited.token, &approver(1000), true),
        Err(RequestError::Expired)
    );
}

#[tokio::test]
async fn cancel_needs_the_owner_and_drain_ends_everything() {
    let pending = store(Duration::from_secs(60), 4);
    let a = pending.hold(hold(1000, 1, None)).expect("held");
    let b = pending.hold(hold(1000, 2, None)).expect("held");
    assert!(matches!(
        pending.cancel(&a.token, 1001, "test"),
        Err(RequestError::UserMismatch { .. })
    ));
    pending.drain(&Decided {
        allow: false,
        by: DecidedBy::Shutdown,
        reason: "gate stopping".into(),
    });
    for held in [a, b] {
        let decided = outcome(held).await;
        assert_eq!(decided.by, DecidedBy::Shutdown);
    }
    assert!(pending.is_empty());
}

/// A batch of three: item 1 allowed by the policy, items 2 and 3 held.
fn batch(uid: u32, conn_id: u64) -> Hold {
    let item = |subject: &str, decided: Option<Decided>| Item {
        subject: subject.into(),
        cwd: None,
        level: Level::Destructive,
        findings: vec![],
        reason: "test".into(),
        decided,
        signature: format!("{subject} (signature)"),
        approval: crate::policy::Approval::Click,
    };
    Hold {
        requester: requester(uid, conn_id),
        owner: uid,
        session: None,
        origin: Origin::Tool,
        sent: Sent::Batch,
        items: vec![
            item(
                "tool file.read {}",
                Some(Decided {
                    allow: true,
                    by: DecidedBy::Policy,
                    reason: "safe".into(),
                }),
            ),
            item("tool file.delete {}", None),
            item("tool payment.submit {}", None),
        ],
        wait: true,
        program: "gemini".into(),
        agent: None,
    }
}

#[tokio::test]
async fn a_batch_answered_as_a_whole_settles_every_held_item() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending.hold(batch(1000, 1)).expect("held");
    assert!(held.token.starts_with("pa_") && held.token.len() == 35);
    assert_eq!(pending.len(), 2, "each held item counts");
    let listed = pending.list(1000);
    assert_eq!(listed.len(), 1, "a batch is one entry");
    let numbers: Vec<u32> = listed[0].items.iter().map(|i| i.item).collect();
    assert_eq!(numbers, [2, 3]);
    assert_eq!(
        pending
            .answer(&held.token, &approver(1000), true)
            .map(|a| a.len()),
        Ok(2),
        "both held items are allowed, each to be remembered"
    );
    assert_eq!(
        pending.answer(&held.token, &approver(1000), true),
        Err(RequestError::NotFound)
    );
    let items = held.outcome.expect("waits").await.expect("settled");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].by, DecidedBy::Policy);
    assert!(items.iter().all(|d| d.allow));
    assert_eq!(items[1].by, DecidedBy::User);
    assert_eq!(items[2].by, DecidedBy::User);
    assert!(pending.is_empty());
}

#[tokio::test]
async fn a_batch_answered_item_by_item_mixes_allow_and_deny() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending.hold(batch(1000, 1)).expect("held");
    let token = &held.token;
    let by = approver(1000);
    // Out of range, and an item the policy already decided: not found, and nothing changes.
    for n in [0, 4] {
        let error = pending.answer_item(token, Some(n), &by, true);
        assert!(
            matches!(&error, Err(RequestError::NoSuchItem(m)) if m.contains("items 1 to 3")),
            "{error:?}"
        );
    }
    assert!(matches!(
        pending.answer_item(token, Some(1), &by, true),
        Err(RequestError::NoSuchItem(_))
    ));
    // The same checks as a single answer.
    assert!(matches!(
        pending.answer_item(token, Some(2), &approver(1001), true),
        Err(RequestError::UserMismatch { .. })
    ));
    let same_session = Answerer {
        sid: Some(100),
        ..approver(1000)
    };
    assert_eq!(
        pending.answer_item(token, Some(2), &same_session, true),
        Err(RequestError::SelfApproval(Some(
            "the answer comes from the requester's own login session (100)".into()
        )))
    );
    assert_eq!(
        pending
            .answer_item(token, Some(2), &by, true)
            .map(|a| a.into_iter().map(|a| a.signature).collect::<Vec<_>>()),
        Ok(vec!["tool file.delete {} (signature)".to_string()]),
        "each item is remembered by its own signature"
    );
    assert_eq!(pending.len(), 1);
    assert_eq!(pending.list(1000)[0].items.len(), 1);
    assert_eq!(pending.answer_item(token, Some(3), &by, false), Ok(vec![]));
    let items = held.outcome.expect("waits").await.expect("settled");
    let allowed: Vec<bool> = items.iter().map(|d| d.allow).collect();
    assert_eq!(allowed, [true, true, false]);
    assert!(pending.is_empty());
    // A single request's token takes no item.
    let single = pending.hold(hold(1000, 2, None)).expect("held");
    assert!(matches!(
        pending.answer_item(&single.token, Some(1), &by, true),
        Err(RequestError::Invalid(_))
    ));
}

#[tokio::test(start_paused = true)]
async fn the_rest_of_a_batch_expires_and_a_late_answer_hears_expired() {
    let pending = store(Duration::from_secs(5), 4);
    let held = pending.hold(batch(1000, 1)).expect("held");
    assert_eq!(
        pending
            .answer_item(&held.token, Some(2), &approver(1000), true)
            .map(|a| a.len()),
        Ok(1)
    );
    tokio::time::advance(Duration::from_secs(6)).await;
    assert_eq!(
        pending.answer_item(&held.token, Some(3), &approver(1000), true),
        Err(RequestError::Expired)
    );
    assert!(!pending.expire(&held.token), "it ended once");
    let items = held.outcome.expect("waits").await.expect("settled");
    assert!(items[1].allow);
    assert_eq!(items[2].by, DecidedBy::Timeout);
    assert!(!items[2].allow);
    assert!(pending.is_empty());
    // The limit counts held items, and frees them when the batch ends.
    let store2 = store(Duration::from_secs(5), 3);
    let _first = store2.hold(batch(1000, 1)).expect("two held");
    assert!(matches!(
        store2.hold(batch(1000, 2)),
        Err(RequestError::LimitReached { limit: 3, .. })
    ));
    tokio::time::advance(Duration::from_secs(6)).await;
    assert_eq!(store2.sweep(), 1);
    store2.hold(batch(1000, 3)).expect("the slots freed up");
}

#[tokio::test]
async fn two_racing_answers_to_one_item_one_wins() {
    let pending = Arc::new(store(Duration::from_secs(60), 4));
    let held = pending.hold(batch(1000, 1)).expect("held");
    let racers: Vec<_> = (0..2)
        .map(|i| {
            let pending = Arc::clone(&pending);
            let token = held.token.clone();
            std::thread::spawn(move || {
                pending.answer_item(&token, Some(2), &approver(1000), i == 0)
            })
        })
        .collect();
    let results: Vec<_> = racers
        .into_iter()
        .map(|r| r.join().expect("no panic"))
        .collect();
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    assert!(
        results
            .iter()
            .any(|r| matches!(r, Err(RequestError::NoSuchItem(_))))
    );
    assert_eq!(pending.len(), 1, "item 3 is still held");
    pending
        .cancel(&held.token, 1000, "test")
        .expect("the owner cancels the rest");
    let items = held.outcome.expect("waits").await.expect("settled");
    assert_eq!(items[2].by, DecidedBy::Cancelled);
}

#[test]
fn the_approval_an_answer_needs_is_read_without_taking_the_request() {
    let store = store(Duration::from_secs(60), 8);
    let mut needs = hold(1000, 1, None);
    needs.items[0].approval = crate::policy::Approval::Password;
    let held = store.hold(needs).expect("held");
    let by = approver(1000);
    assert_eq!(
        store.allowing(&held.token, None, &by).map(|a| a.approval),
        Ok(crate::policy::Approval::Password)
    );
    // Still held: the check took nothing.
    assert_eq!(
        store.allowing(&held.token, None, &by).map(|a| a.approval),
        Ok(crate::policy::Approval::Password)
    );
    // Who may not answer at all learns that first.
    assert_eq!(
        store.allowing(&held.token, None, &approver(1001)),
        Err(RequestError::UserMismatch {
            caller: 1001,
            owner: 1000
        })
    );
    assert_eq!(
        store.allowing("pa_nope", None, &by),
        Err(RequestError::NotFound)
    );
}

#[test]
fn a_process_the_requesting_agent_started_may_not_answer_whatever_its_session() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending.hold(hold(1000, 1, None)).expect("held");
    // `setsid assent approve` run by the agent (pid 90): a session of its own, a child of the
    // agent.
    let child = Answerer {
        ancestors: vec![
            Proc {
                pid: 300,
                start: 7000,
                comm: "assent".into(),
            },
            Proc {
                pid: 90,
                start: 4000,
                comm: "claude".into(),
            },
        ],
        sid: Some(300),
        ..approver(1000)
    };
    match pending.answer(&held.token, &child, true) {
        Err(RequestError::SelfApproval(Some(why))) => {
            assert!(why.contains("descends from 90 (claude)"), "{why}");
            assert!(why.contains("100 (assent) <- 90 (claude)"), "{why}");
        }
        other => panic!("a child of the agent answered: {other:?}"),
    }
    let events = pending.audit.recent(None, 10);
    assert!(
        events
            .iter()
            .any(|e| e.reason.contains("answer refused (self_approval)")
                && e.reason.contains("90 (claude)")),
        "{events:?}"
    );
    // A process that only reuses the agent's pid (another start time) is not its child.
    let reused = Answerer {
        ancestors: vec![Proc {
            pid: 90,
            start: 9999,
            comm: "bash".into(),
        }],
        ..approver(1000)
    };
    assert_eq!(
        pending.answer(&held.token, &reused, true).map(|a| a.len()),
        Ok(1)
    );
}

/// What a job the agent put in the background keeps of it, after it left the agent's process
/// tree (a double fork, or the agent exited): its session, its terminal, the agent's own
/// cgroup; and the agents seen asking, and coding agents by name, answer nothing.
#[test]
fn what_the_agent_left_behind_may_not_answer() {
    let pending = store(Duration::from_secs(60), 4);
    let orphan = |ancestors: Vec<Proc>, sid: i32, tty: i32, cgroup: &str| Answerer {
        ancestors,
        sid: Some(sid),
        facts: AnswererFacts {
            tty,
            cgroup: Some(cgroup.into()),
        },
        ..approver(1000)
    };
    let alone = || {
        vec![
            Proc {
                pid: 400,
                start: 8000,
                comm: "assent".into(),
            },
            Proc {
                pid: 1,
                start: 1,
                comm: "systemd".into(),
            },
        ]
    };
    let held = pending.hold(hold(1000, 1, None)).expect("held");
    let refused = |who: &Answerer, says: &str| match pending.answer(&held.token, who, true) {
        Err(RequestError::SelfApproval(Some(why))) => assert!(why.contains(says), "{why}"),
        other => panic!("{who:?} answered: {other:?}"),
    };
    // Reparented to init, still in the agent's session (no setsid).
    refused(
        &orphan(alone(), 80, 0, "/x"),
        "POSIX session (80) of the agent 90 (claude)",
    );
    // setsid, but still on the agent's terminal.
    refused(
        &orphan(alone(), 401, 34816, "/x"),
        "terminal of the agent 90 (claude)",
    );
    // Below any process named as a coding agent, whoever asked.
    let mut under_codex = alone();
    under_codex.insert(
        1,
        Proc {
            pid: 55,
            start: 10,
            comm: "codex".into(),
        },
    );
    refused(
        &orphan(under_codex, 402, 0, "/x"),
        "descends from 55 (codex), a coding agent",
    );
    // The agent of another request that is still remembered.
    let other = Hold {
        requester: Requester {
            agent: Some(AgentFacts {
                proc: Proc {
                    pid: 70,
                    start: 700,
                    comm: "node".into(),
                },
                sid: 71,
                tty: 0,
                cgroup: Some("/user.slice/app-agent.scope".into()),
            }),
            ..requester(1000, 2)
        },
        ..hold(1000, 2, None)
    };
    pending.hold(other).expect("held");
    let mut under_node = alone();
    under_node.insert(
        1,
        Proc {
            pid: 70,
            start: 700,
            comm: "node".into(),
        },
    );
    refused(
        &orphan(under_node, 403, 0, "/x"),
        "descends from 70 (node), an agent that asked",
    );
    // That agent had a cgroup of its own: a double-forked job of it stays there.
    refused(
        &orphan(alone(), 404, 0, "/user.slice/app-agent.scope/sub"),
        "cgroup /user.slice/app-agent.scope",
    );
    // A person elsewhere: another session, terminal and cgroup, no agent above.
    assert_eq!(
        pending
            .answer(
                &held.token,
                &orphan(alone(), 405, 34817, "/user.slice/app-agent.scopeX"),
                true
            )
            .map(|a| a.len()),
        Ok(1)
    );
}

#[test]
fn one_audit_session_is_one_session_whatever_the_posix_ones() {
    let pending = store(Duration::from_secs(60), 4);
    let in_audit = |id: u32| Hold {
        requester: Requester {
            audit_session: Some(id),
            ..requester(1000, 1)
        },
        ..hold(1000, 1, None)
    };
    let token = pending.hold(in_audit(7)).expect("held").token;
    let same = Answerer {
        audit_session: Some(7),
        ..approver(1000)
    };
    assert!(matches!(
        pending.answer(&token, &same, true),
        Err(RequestError::SelfApproval(Some(_)))
    ));
    // An approval agent is compared by its POSIX session: the desktop's user services share
    // one audit session with the terminals.
    let agent = Answerer {
        agent: true,
        ..same.clone()
    };
    assert_eq!(pending.answer(&token, &agent, true).map(|a| a.len()), Ok(1));
    let token = pending.hold(in_audit(7)).expect("held").token;
    let other = Answerer {
        audit_session: Some(8),
        ..approver(1000)
    };
    assert_eq!(pending.answer(&token, &other, true).map(|a| a.len()), Ok(1));
}

#[test]
fn an_answerer_whose_parents_cannot_be_read_is_refused() {
    let pending = store(Duration::from_secs(60), 4);
    let held = pending.hold(hold(1000, 1, None)).expect("held");
    let gone = Answerer {
        ancestors: Vec::new(),
        ..approver(1000)
    };
    assert!(matches!(
        pending.answer(&held.token, &gone, true),
        Err(RequestError::Identity(_))
    ));
    assert_eq!(pending.len(), 1);
}

/// A request held without a waiter, then answered by a person, is redeemed once by its
/// requester for exactly its subject; every other attempt is refused and spends nothing.
#[tokio::test]
async fn an_answered_token_is_redeemed_once_by_its_requester_for_its_subject() {
    let pending = store(Duration::from_secs(60), 4);
    let exact = "shell\0/home/u\0false\0rm -rf build";
    let no_wait = |session: Option<&str>| Hold {
        wait: false,
        ..hold(1000, 1, session)
    };
    let held = pending.hold(no_wait(Some("s1"))).expect("held");
    let token = held.token.clone();
    let s1 = Some("s1".to_string());
    // Not answered yet: still held, and redeeming again later is fine.
    assert!(matches!(
        pending.redeem(&token, 1000, &s1, exact),
        Ok(Redeemed::StillHeld { .. })
    ));
    pending
        .answer(&token, &approver(1000), true)
        .expect("a person approves");
    // Another uid, another session label, another subject: refused, nothing spent.
    assert!(matches!(
        pending.redeem(&token, 1001, &s1, exact),
        Err(RequestError::UserMismatch { .. })
    ));
    assert!(matches!(
        pending.redeem(&token, 1000, &Some("s2".into()), exact),
        Err(RequestError::SessionMismatch { .. })
    ));
    assert!(matches!(
        pending.redeem(&token, 1000, &s1, "shell\0/home/u\0false\0rm -rf /"),
        Err(RequestError::Invalid(_))
    ));
    match pending.redeem(&token, 1000, &s1, exact) {
        Ok(Redeemed::Answered(decided)) => assert!(decided.allow && decided.by == DecidedBy::User),
        other => panic!("redeemed: {other:?}"),
    }
    assert_eq!(
        pending.redeem(&token, 1000, &s1, exact),
        Err(RequestError::NotFound),
        "a token is spent once"
    );
    // A deny is redeemed as a deny.
    let held = pending.hold(no_wait(None)).expect("held");
    pending
        .answer(&held.token, &approver(1000), false)
        .expect("a person denies");
    match pending.redeem(&held.token, 1000, &None, exact) {
        Ok(Redeemed::Answered(decided)) => assert!(!decided.allow),
        other => panic!("redeemed: {other:?}"),
    }
    assert_eq!(
        pending.redeem("pa_unknown", 1000, &None, exact),
        Err(RequestError::NotFound)
    );
}

/// An answered token is redeemable for one hold TTL; after it, `expired`.
#[tokio::test]
async fn an_answered_token_expires_after_the_ttl() {
    let pending = store(Duration::from_millis(50), 4);
    let exact = "shell\0/home/u\0false\0rm -rf build";
    let held = pending
        .hold(Hold {
            wait: false,
            ..hold(1000, 1, None)
        })
        .expect("held");
    pending
        .answer(&held.token, &approver(1000), true)
        .expect("approved");
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert_eq!(
        pending.redeem(&held.token, 1000, &None, exact),
        Err(RequestError::Expired)
    );
    assert_eq!(
        pending.redeem(&held.token, 1000, &None, exact),
        Err(RequestError::Expired),
        "still expired, not unknown"
    );
}

/// A single request and a batch of one item go through the same store and the same settle;
/// what was sent only changes how they are listed, audited and answered.
#[tokio::test]
async fn a_single_request_is_a_batch_of_one_shown_as_itself() {
    let pending = store(Duration::from_secs(60), 8);
    let single = pending.hold(hold(1000, 1, None)).expect("held");
    let mut one = hold(1000, 2, None);
    one.sent = Sent::Batch;
    let batch_of_one = pending.hold(one).expect("held");
    assert_eq!(pending.len(), 2);
    let listed = pending.list(1000);
    let shown = |token: &str| {
        listed
            .iter()
            .find(|i| i.token == token)
            .expect("listed")
            .clone()
    };
    let (a, b) = (shown(&single.token), shown(&batch_of_one.token));
    assert_eq!((a.subject.as_str(), a.items.len()), ("rm -rf build", 0));
    assert_eq!(a.signature, "rm -rf build in /home/u");
    assert_eq!(
        (b.subject.as_str(), b.items.len()),
        ("batch of 1 items, 1 held", 1)
    );
    // Item numbers belong to batches; the same answer is refused alike before and at the answer.
    let by = approver(1000);
    let invalid = |r: Result<usize, RequestError>| matches!(r, Err(RequestError::Invalid(_)));
    assert!(invalid(
        pending
            .allowing(&single.token, Some(1), &by)
            .map(|a| a.approved.len())
    ));
    assert!(invalid(
        pending
            .answer_item(&single.token, Some(1), &by, true)
            .map(|a| a.len())
    ));
    assert_eq!(
        pending
            .answer_item(&batch_of_one.token, Some(1), &by, true)
            .map(|a| a.len()),
        Ok(1)
    );
    assert_eq!(
        pending.answer(&single.token, &by, false).map(|a| a.len()),
        Ok(0)
    );
    let single_outcome = outcome(single).await;
    assert!(!single_outcome.allow);
    let items = batch_of_one.outcome.expect("waits").await.expect("settled");
    assert!(items.len() == 1 && items[0].allow);
    let events = pending.audit.recent(None, 10);
    let reasons: Vec<&str> = events.iter().map(|e| e.reason.as_str()).collect();
    assert!(
        reasons.contains(&"denied by uid 1000 (pid 200)"),
        "{reasons:?}"
    );
    assert!(
        reasons.contains(&"batch item 1: allowed by uid 1000 (pid 200)"),
        "{reasons:?}"
    );
    assert!(pending.is_empty());
}

/// What cannot be held is refused before it takes a token or a slot.
#[test]
fn a_request_that_holds_nothing_is_not_held() {
    let pending = store(Duration::from_secs(60), 8);
    let mut decided = hold(1000, 1, None);
    decided.items[0].decided = Some(Decided {
        allow: true,
        by: DecidedBy::Policy,
        reason: "safe".into(),
    });
    assert!(matches!(
        pending.hold(decided),
        Err(RequestError::Internal(_))
    ));
    let mut two = hold(1000, 1, None);
    two.items.push(two.items[0].clone());
    assert!(matches!(pending.hold(two), Err(RequestError::Internal(_))));
    assert!(pending.is_empty());
    assert!(pending.hold(hold(1000, 1, None)).is_ok());
}

/// Approvers group identical requests on the digest: two commands that read the same up to
/// the listing's cut but differ after it have different digests, though their listed subjects
/// are the same; the very same request twice has the same one.
#[test]
fn the_digest_covers_what_the_listing_cuts_off() {
    let pending = store(Duration::from_secs(60), 8);
    let long = |tail: &str| {
        let command = format!("echo {}{tail}", "a".repeat(5000));
        let mut h = hold(1000, 1, None);
        h.sent = Sent::One {
            exact: format!("shell\0/home/u\0false\0{command}"),
        };
        h.items[0].subject = command;
        h
    };
    let harmless = pending.hold(long(" ok")).expect("held");
    let twin = pending.hold(long(" ok")).expect("held");
    let other = pending.hold(long("; rm -rf ~")).expect("held");
    let mut labelled = long(" ok");
    labelled.session = Some("other".into());
    let labelled = pending.hold(labelled).expect("held");
    let listed = pending.list(1000);
    let of = |token: &str| {
        listed
            .iter()
            .find(|i| i.token == token)
            .expect("listed")
            .clone()
    };
    let (a, b, c, d) = (
        of(&harmless.token),
        of(&twin.token),
        of(&other.token),
        of(&labelled.token),
    );
    assert_eq!(
        a.subject, c.subject,
        "the listing cut both at the same place"
    );
    assert_eq!(a.digest.len(), 32, "{}", a.digest);
    assert_eq!(a.digest, b.digest);
    assert_ne!(a.digest, c.digest);
    assert_ne!(
        a.digest, d.digest,
        "the session label is part of the request"
    );
}
