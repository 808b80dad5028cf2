//! Unit tests of the queue.

use super::*;
use assent_client::protocol::{Decided, Level, Origin, PendingBatchItem};

fn item(token: &str, subject: &str) -> PendingItem {
    PendingItem {
        token: token.into(),
        uid: 1000,
        pid: 7,
        origin: Origin::Agent,
        subject: subject.into(),
        cwd: Some("/tmp".into()),
        level: Level::Destructive,
        findings: vec![],
        session: None,
        expires_in_ms: 10_000,
        items: vec![],
        program: "claude".into(),
        signature: String::new(),
        agent: None,
        // The daemon's digest stands for the whole request; here, its subject.
        digest: format!("digest of {subject}"),
    }
}

fn withdrawn(token: &str, by: DecidedBy) -> Withdrawn {
    Withdrawn {
        token: token.into(),
        outcome: Decided {
            allow: false,
            by,
            reason: String::new(),
        },
    }
}

fn shown(queue: &mut Queue, id: GroupId, notification: u32) {
    queue.set_shown(id, Shown::Up(notification));
}

#[test]
fn identical_requests_share_a_group_and_one_answer() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let Held::New(first) = queue.held(item("pa_a", "make clean"), now) else {
        panic!("a new group");
    };
    assert_eq!(
        queue.held(item("pa_b", "make clean"), now),
        Held::Joined(first)
    );
    assert_eq!(queue.held(item("pa_b", "make clean"), now), Held::Known);
    // The same shown text with another digest (the daemon saw a different request: a
    // longer command cut in the listing, another cwd, another program) is not the same.
    let mut looks_alike = item("pa_c", "make clean");
    looks_alike.digest = "digest of make clean; rm -rf ~".into();
    assert!(matches!(queue.held(looks_alike, now), Held::New(_)));
    let mut no_digest = item("pa_d", "make clean");
    no_digest.digest = String::new();
    assert!(matches!(queue.held(no_digest, now), Held::New(_)));
    assert_eq!(queue.groups().len(), 3);
    shown(&mut queue, first, 11);
    let Clicked::Answer(group, answers) = queue.clicked(11, action::ALLOW_SESSION) else {
        panic!("an answer");
    };
    assert_eq!(group.id, first);
    let tokens: Vec<&str> = answers.iter().map(|a| a.token.as_str()).collect();
    assert_eq!(tokens, ["pa_a", "pa_b"]);
    assert!(
        answers
            .iter()
            .all(|a| a.allow && a.remember == Remember::Session)
    );
    assert_eq!(queue.groups().len(), 2);
}

#[test]
fn a_deny_is_always_once_and_unknown_keys_do_nothing() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let Held::New(id) = queue.held(item("pa_a", "x"), now) else {
        panic!("a new group");
    };
    shown(&mut queue, id, 3);
    assert!(matches!(queue.clicked(3, "default"), Clicked::Ignored));
    assert!(matches!(queue.clicked(3, action::REVIEW), Clicked::Ignored));
    assert!(matches!(queue.clicked(4, action::DENY), Clicked::Ignored));
    let Clicked::Answer(_, answers) = queue.clicked(3, action::DENY) else {
        panic!("an answer");
    };
    assert_eq!(
        answers,
        [Answer {
            token: "pa_a".into(),
            allow: false,
            item: None,
            remember: Remember::Once
        }]
    );
}

#[test]
fn a_dismissal_answers_nothing_and_expiry_then_says_missed() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let Held::New(id) = queue.held(item("pa_a", "x"), now) else {
        panic!("a new group");
    };
    shown(&mut queue, id, 5);
    assert!(queue.dismissed(5));
    assert!(!queue.dismissed(5));
    assert_eq!(queue.get(id).map(|g| g.shown), Some(Shown::Dismissed));
    assert!(matches!(
        queue.clicked(5, action::ALLOW_ONCE),
        Clicked::Ignored
    ));
    let ended = queue.withdrawn(&withdrawn("pa_a", DecidedBy::Timeout));
    assert_eq!(ended.removed.len(), 1);
    assert_eq!(ended.missed.map(|m| m.token), Some("pa_a".into()));
    assert!(queue.groups().is_empty());
}

#[test]
fn withdrawn_elsewhere_closes_without_a_missed_notice() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let Held::New(id) = queue.held(item("pa_a", "x"), now) else {
        panic!("a new group");
    };
    queue.held(item("pa_b", "x"), now);
    shown(&mut queue, id, 9);
    let ended = queue.withdrawn(&withdrawn("pa_a", DecidedBy::Timeout));
    assert!(ended.removed.is_empty());
    assert_eq!(ended.shrunk, [id]);
    assert!(ended.missed.is_none());
    let ended = queue.withdrawn(&withdrawn("pa_b", DecidedBy::User));
    assert_eq!(ended.removed[0].notification(), Some(9));
    assert!(ended.missed.is_none());
    let ended = queue.withdrawn(&withdrawn("pa_zz", DecidedBy::Timeout));
    assert!(ended.removed.is_empty() && ended.missed.is_none());
}

#[test]
fn a_batch_is_answered_whole_or_reviewed_item_by_item() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let mut batch = item("pa_batch", "3 operations");
    batch.items = (1..=3)
        .map(|n| PendingBatchItem {
            item: n,
            subject: format!("step {n}"),
            cwd: None,
            level: Level::Moderate,
            findings: vec![],
        })
        .collect();
    let Held::New(id) = queue.held(batch.clone(), now) else {
        panic!("a new group");
    };
    // A batch never merges with an identical one.
    let mut twin = batch.clone();
    twin.token = "pa_twin".into();
    assert!(matches!(queue.held(twin, now), Held::New(_)));
    shown(&mut queue, id, 1);
    assert!(matches!(
        queue.clicked(1, action::ALLOW_ONCE),
        Clicked::Ignored
    ));
    let Clicked::Review(old, items) = queue.clicked(1, action::REVIEW) else {
        panic!("a review");
    };
    assert_eq!(old.id, id);
    assert_eq!(items.len(), 3);
    assert_eq!(queue.waiting().len(), 4);
    shown(&mut queue, items[1], 20);
    let Clicked::Answer(_, answers) = queue.clicked(20, action::ALLOW_ALWAYS) else {
        panic!("an answer");
    };
    assert_eq!(
        answers,
        [Answer {
            token: "pa_batch".into(),
            allow: true,
            item: Some(2),
            remember: Remember::Always
        }]
    );
    // The batch ends: its remaining items go with one missed notice.
    let ended = queue.withdrawn(&withdrawn("pa_batch", DecidedBy::Timeout));
    assert_eq!(ended.removed.len(), 2);
    assert_eq!(ended.missed.map(|m| m.items.len()), Some(3));
    let Held::New(twin_id) = queue.held(item("pa_other", "y"), now) else {
        panic!("a new group");
    };
    assert!(queue.get(twin_id).is_some());
}

#[test]
fn a_lost_server_puts_shown_groups_back_in_waiting_but_not_dismissed_ones() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let Held::New(a) = queue.held(item("pa_a", "a"), now) else {
        panic!("a new group");
    };
    let Held::New(b) = queue.held(item("pa_b", "b"), now) else {
        panic!("a new group");
    };
    let Held::New(c) = queue.held(item("pa_c", "c"), now) else {
        panic!("a new group");
    };
    shown(&mut queue, a, 1);
    shown(&mut queue, b, 2);
    queue.dismissed(2);
    assert_eq!(queue.server_lost(), [a, c]);
    assert_eq!(queue.waiting(), [a, c]);
    shown(&mut queue, c, 3);
    assert_eq!(queue.clear(), [3]);
    assert!(queue.groups().is_empty());
}

#[test]
fn time_left_is_the_latest_deadline() {
    let now = Instant::now();
    let mut queue = Queue::new();
    let Held::New(id) = queue.held(item("pa_a", "a"), now) else {
        panic!("a new group");
    };
    let mut later = item("pa_b", "a");
    later.expires_in_ms = 20_000;
    queue.held(later, now);
    let group = queue.get(id).expect("the group exists");
    assert_eq!(group.left(now), Duration::from_secs(20));
    assert_eq!(group.count(), 2);
    assert_eq!(group.left(now + Duration::from_secs(30)), Duration::ZERO);
}
