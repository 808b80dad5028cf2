//! One-time grants (an agent's hook allowed a line, the door redeems it to run confined) are
//! in the audit trail: given, redeemed, and refused (spent, another line, unknown), each with
//! its token, so a person reading `assent log` sees which door ran what it was allowed.

use assent_client::protocol::{
    AuditEvent, CheckRequest, Context, Decision, GrantRequest, Origin, Request, Response,
};
use assent_tests::{TestDaemon, connect, shell};

fn grant_events(conn: &mut assent_client::Connection) -> Vec<AuditEvent> {
    match conn.request(&Request::Log { limit: 50, from: 0 }) {
        Ok(Response::Log(page)) => page
            .events
            .into_iter()
            .filter(|e| e.grant.is_some())
            .collect(),
        other => panic!("a log page: {other:?}"),
    }
}

#[test]
fn a_grant_given_redeemed_and_refused_is_audited() {
    if !assent_tests::needs::skip_unless(
        assentd::landlock::confines(),
        "a kernel with Landlock ABI 6 or later (grants come with a confinement)",
    ) {
        return;
    }
    let daemon = TestDaemon::start();
    let mut conn = connect(daemon.socket());
    let check = Request::Check(CheckRequest {
        subject: shell("ls -la"),
        origin: Origin::Agent,
        context: Context {
            confines: true,
            grant: true,
            ..Context::default()
        },
        wait: false,
    });
    let token = match conn.request(&check) {
        Ok(Response::Verdict(verdict)) => verdict.grant.expect("an allowed, confined line's grant"),
        other => panic!("a verdict: {other:?}"),
    };
    let redeem = |conn: &mut assent_client::Connection, command: &str| {
        conn.request(&Request::Grant(GrantRequest {
            token: token.clone(),
            subject: shell(command),
        }))
    };
    assert!(matches!(
        redeem(&mut conn, "ls -la"),
        Ok(Response::Granted(_))
    ));
    assert!(redeem(&mut conn, "ls -la").is_err(), "spent");

    // Another line under a fresh grant: refused, and the grant is spent all the same.
    let other = match conn.request(&check) {
        Ok(Response::Verdict(verdict)) => verdict.grant.expect("a grant"),
        other => panic!("a verdict: {other:?}"),
    };
    let wrong = conn.request(&Request::Grant(GrantRequest {
        token: other.clone(),
        subject: shell("rm -rf build"),
    }));
    assert!(wrong.is_err(), "{wrong:?}");

    let events = grant_events(&mut conn);
    let steps: Vec<(String, String, Decision)> = events
        .iter()
        .map(|e| {
            let step = e.grant.clone().unwrap_or_default();
            let step = step.split(':').next().unwrap_or_default().to_owned();
            (e.token.clone().unwrap_or_default(), step, e.decision)
        })
        .collect();
    for expected in [
        (token.clone(), "issued", Decision::Allow),
        (token.clone(), "redeemed", Decision::Allow),
        (token.clone(), "refused", Decision::Deny),
        (other.clone(), "issued", Decision::Allow),
        (other.clone(), "refused", Decision::Deny),
    ] {
        let (t, step, decision) = &expected;
        assert!(
            steps
                .iter()
                .any(|(et, es, ed)| et == t && es == step && ed == decision),
            "{expected:?} in {steps:?}"
        );
    }
    let spent = events
        .iter()
        .find(|e| e.token.as_deref() == Some(&token) && e.decision == Decision::Deny)
        .expect("the spent redeem");
    assert!(
        spent
            .grant
            .as_deref()
            .is_some_and(|g| g.contains("already used")),
        "{spent:?}"
    );
    let wrong = events
        .iter()
        .find(|e| e.token.as_deref() == Some(&other) && e.decision == Decision::Deny)
        .expect("the wrong line's redeem");
    assert!(
        wrong
            .grant
            .as_deref()
            .is_some_and(|g| g.contains("another command")),
        "{wrong:?}"
    );
    assert_eq!(wrong.subject, "rm -rf build", "the line the door asked for");
}

#[test]
fn a_grants_verdict_names_no_places_and_its_redeem_gives_them_all() {
    if !assent_tests::needs::skip_unless(
        assentd::landlock::confines(),
        "a kernel with Landlock ABI 6 or later (grants come with a confinement)",
    ) {
        return;
    }
    let daemon = TestDaemon::start();
    let mut conn = connect(daemon.socket());
    let check = Request::Check(CheckRequest {
        subject: shell("ls -la"),
        origin: Origin::Agent,
        context: Context {
            confines: true,
            grant: true,
            ..Context::default()
        },
        wait: false,
    });
    let verdict = match conn.request(&check) {
        Ok(Response::Verdict(verdict)) => verdict,
        other => panic!("a verdict: {other:?}"),
    };
    // The hook learns that the line runs confined, not the places: they go to the door.
    let told = verdict.confine.expect("a confined line");
    assert!(
        told.write.is_empty() && told.hide.is_empty() && told.write_within.is_empty(),
        "{told:?}"
    );
    assert!(told.offline, "the rest as judged: {told:?}");
    let token = verdict.grant.expect("a grant");
    let run = match conn.request(&Request::Grant(GrantRequest {
        token,
        subject: shell("ls -la"),
    })) {
        Ok(Response::Granted(run)) => run,
        other => panic!("granted: {other:?}"),
    };
    assert!(
        run.confine.write.iter().any(|w| w == "/tmp"),
        "{:?}",
        run.confine
    );
    assert!(
        run.confine.hide.iter().any(|h| h.ends_with("/.ssh")),
        "{:?}",
        run.confine
    );
}
