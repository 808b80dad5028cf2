use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command};

use assent_client::protocol::{Remember, RememberedScope, Subject};
use nix::unistd::{Pid, getsid};
use proptest::prelude::*;

use super::file::FILE_NAME;
use super::*;

const ALICE: u32 = 1000;
const BOB: u32 = 1001;
const SIG: &str = "cargo test in /home/alice/proj";
const HOUR: u64 = 3600;

fn label(l: &str) -> SessionKey {
    SessionKey::Label(l.to_string())
}

fn remember(store: &Remembered, owner: u32, how: Remember, session: &SessionKey) -> String {
    store
        .remember(owner, SIG, how, session)
        .expect("remembering works")
        .expect("an id")
}

/// A process leading its own session (`setsid` execs in place: the child is no group leader),
/// killed and reaped on drop.
struct Leader(Child);

impl Leader {
    fn start() -> Leader {
        Leader(
            Command::new("setsid")
                .args(["sleep", "60"])
                .spawn()
                .expect("setsid and sleep exist"),
        )
    }

    fn sid(&self) -> i32 {
        let pid = i32::try_from(self.0.id()).expect("pids fit in i32");
        // setsid has exec'd by the time its session id is its pid.
        for _ in 0..1000 {
            if getsid(Some(Pid::from_raw(pid))).map(Pid::as_raw) == Ok(pid) {
                return pid;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("the child never led its own session");
    }

    fn end(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Leader {
    fn drop(&mut self) {
        self.end();
    }
}

#[test]
fn once_remembers_nothing() {
    let store = Remembered::open(None);
    assert_eq!(
        store.remember(ALICE, SIG, Remember::Once, &label("c1")),
        Ok(None)
    );
    assert_eq!(store.lookup(ALICE, SIG, &label("c1")), None);
    assert!(store.list(ALICE).is_empty());
}

#[test]
fn always_matches_the_same_owner_and_signature_only() {
    let store = Remembered::open(None);
    let id = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    assert!(is_id(&id), "{id}");
    assert_eq!(store.lookup(ALICE, SIG, &label("any")), Some(id.clone()));
    assert_eq!(
        store.lookup(ALICE, SIG, &SessionKey::Unknown),
        Some(id.clone())
    );
    assert_eq!(store.lookup(BOB, SIG, &SessionKey::Unknown), None);
    assert_eq!(
        store.lookup(ALICE, "cargo test in /home/alice", &SessionKey::Unknown),
        None
    );
    let listed = store.list(ALICE);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].scope, RememberedScope::Always);
    assert_eq!(listed[0].uses, 2, "each lookup that matched counts");
}

#[test]
fn a_session_label_rule_matches_that_label_only() {
    let store = Remembered::open(None);
    let id = remember(&store, ALICE, Remember::Session, &label("conv-1"));
    assert_eq!(store.lookup(ALICE, SIG, &label("conv-1")), Some(id));
    assert_eq!(store.lookup(ALICE, SIG, &label("conv-2")), None);
    assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Unknown), None);
    assert_eq!(
        store.list(ALICE)[0].scope,
        RememberedScope::SessionLabel {
            label: "conv-1".into()
        }
    );
}

#[test]
fn a_session_rule_needs_a_session() {
    let store = Remembered::open(None);
    let refused = store.remember(ALICE, SIG, Remember::Session, &SessionKey::Unknown);
    assert!(matches!(refused, Err(RequestError::Invalid(ref m)) if m.contains("no session")));
}

#[test]
fn a_login_session_rule_ends_with_the_session() {
    let mut leader = Leader::start();
    let sid = leader.sid();
    let store = Remembered::open(None);
    let id = remember(&store, ALICE, Remember::Session, &SessionKey::Login(sid));
    assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Login(sid)), Some(id));
    assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Login(sid + 1)), None);
    assert_eq!(
        store.list(ALICE)[0].scope,
        RememberedScope::LoginSession { sid }
    );
    leader.end();
    assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Login(sid)), None);
    assert!(
        store.list(ALICE).is_empty(),
        "an ended session's rule is dropped"
    );
}

#[test]
fn a_rule_for_a_while_expires() {
    let store = Remembered::open(None);
    let now = 1_000_000;
    let id = store
        .remember_at(
            ALICE,
            SIG,
            Remember::For { secs: HOUR },
            &SessionKey::Unknown,
            now,
        )
        .expect("remembered")
        .expect("an id");
    let until = now + HOUR * 1000;
    assert_eq!(
        store.list_at(ALICE, now)[0].scope,
        RememberedScope::Until { ms: until }
    );
    let session = SessionKey::Unknown;
    assert_eq!(store.lookup_at(ALICE, SIG, &session, until - 1), Some(id));
    assert_eq!(store.lookup_at(ALICE, SIG, &session, until), None);
    assert!(store.list_at(ALICE, until).is_empty());
}

#[test]
fn a_duration_must_be_sane() {
    let store = Remembered::open(None);
    for secs in [0, MAX_REMEMBER_SECS + 1, u64::MAX] {
        let refused = store.remember(ALICE, SIG, Remember::For { secs }, &SessionKey::Unknown);
        assert!(
            matches!(refused, Err(RequestError::Invalid(_))),
            "{secs}: {refused:?}"
        );
    }
    let longest = Remember::For {
        secs: MAX_REMEMBER_SECS,
    };
    assert!(
        store
            .remember(ALICE, SIG, longest, &SessionKey::Unknown)
            .is_ok()
    );
}

#[test]
fn identical_rules_are_not_duplicated() {
    let store = Remembered::open(None);
    let always = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    assert_eq!(
        remember(&store, ALICE, Remember::Always, &SessionKey::Unknown),
        always
    );
    // Anything narrower is already covered by the "always".
    assert_eq!(
        remember(&store, ALICE, Remember::Session, &label("c")),
        always
    );
    assert_eq!(store.list(ALICE).len(), 1);

    let store = Remembered::open(None);
    let session = remember(&store, ALICE, Remember::Session, &label("c"));
    assert_eq!(
        remember(&store, ALICE, Remember::Session, &label("c")),
        session
    );
    assert_ne!(
        remember(&store, ALICE, Remember::Session, &label("d")),
        session
    );
    let short = store
        .remember_at(
            ALICE,
            SIG,
            Remember::For { secs: 60 },
            &SessionKey::Unknown,
            1000,
        )
        .expect("ok");
    let long = store
        .remember_at(
            ALICE,
            SIG,
            Remember::For { secs: HOUR },
            &SessionKey::Unknown,
            2000,
        )
        .expect("ok");
    assert_eq!(short, long, "a second duration extends the first");
    let until: Vec<_> = store
        .list_at(ALICE, 2000)
        .into_iter()
        .filter_map(|r| match r.scope {
            RememberedScope::Until { ms } => Some(ms),
            _ => None,
        })
        .collect();
    assert_eq!(until, vec![2000 + HOUR * 1000]);
    assert_ne!(
        remember(&store, BOB, Remember::Session, &label("c")),
        session
    );
}

#[test]
fn a_uid_has_a_limit() {
    let store = Remembered::open(None);
    for n in 0..MAX_REMEMBERED_PER_UID {
        let sig = format!("true {n} in /");
        let how = Remember::Always;
        assert!(
            store
                .remember(ALICE, &sig, how, &SessionKey::Unknown)
                .is_ok()
        );
    }
    let refused = store.remember(
        ALICE,
        "one more in /",
        Remember::Always,
        &SessionKey::Unknown,
    );
    assert!(matches!(
        refused,
        Err(RequestError::TooManyRemembered { uid: ALICE, .. })
    ));
    assert_eq!(
        refused.map_err(|e| e.to_wire().kind),
        Err(assent_client::protocol::ErrorKind::LimitReached)
    );
    assert!(
        store
            .remember(BOB, "one more in /", Remember::Always, &SessionKey::Unknown)
            .is_ok()
    );
}

#[test]
fn forget_by_id_only_ones_own_unless_root() {
    let store = Remembered::open(None);
    let alices = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    let bobs = remember(&store, BOB, Remember::Always, &SessionKey::Unknown);
    let hidden = store.forget(ALICE, Some(&bobs));
    assert!(
        matches!(hidden, Err(RequestError::NoSuchItem(_))),
        "{hidden:?}"
    );
    assert_eq!(
        hidden.map_err(|e| e.to_wire().kind),
        Err(assent_client::protocol::ErrorKind::NotFound)
    );
    assert!(store.forget(ALICE, Some("r_00000000")).is_err());
    assert_eq!(store.forget(ALICE, Some(&alices)), Ok(1));
    assert!(store.forget(ALICE, Some(&alices)).is_err(), "gone");
    assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Unknown), None);
    assert_eq!(
        store.forget(0, Some(&bobs)),
        Ok(1),
        "root may forget anyone's"
    );
    assert_eq!(store.lookup(BOB, SIG, &SessionKey::Unknown), None);
}

#[test]
fn forget_all_is_ones_own_or_everything_for_root() {
    let store = Remembered::open(None);
    remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    let other = store.remember(ALICE, "ls in /", Remember::Session, &label("x"));
    assert!(matches!(other, Ok(Some(_))));
    remember(&store, BOB, Remember::Always, &SessionKey::Unknown);
    assert_eq!(store.forget(ALICE, None), Ok(2));
    assert_eq!(store.forget(ALICE, None), Ok(0));
    assert_eq!(store.list(BOB).len(), 1);
    remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    assert_eq!(store.forget(0, None), Ok(2));
    assert!(store.list(0).is_empty());
}

#[test]
fn root_sees_everyone_oldest_first_and_users_their_own() {
    let store = Remembered::open(None);
    let session = SessionKey::Unknown;
    let a = store
        .remember_at(BOB, "b in /", Remember::Always, &session, 10)
        .expect("ok");
    let b = store
        .remember_at(ALICE, "a in /", Remember::Always, &session, 20)
        .expect("ok");
    let c = store
        .remember_at(BOB, "c in /", Remember::Always, &session, 30)
        .expect("ok");
    let ids = |caller| -> Vec<Option<String>> {
        store
            .list_at(caller, 40)
            .into_iter()
            .map(|r| Some(r.id))
            .collect()
    };
    assert_eq!(ids(0), vec![a.clone(), b.clone(), c.clone()]);
    assert_eq!(ids(BOB), vec![a, c]);
    assert_eq!(ids(ALICE), vec![b]);
    assert!(ids(4242).is_empty());
}

#[test]
fn truncated_commands_are_never_remembered() {
    let subject = Subject::Shell {
        command: "x".repeat(100),
        cwd: "/tmp".into(),
        truncated: true,
    };
    let sig = signature(&subject);
    let store = Remembered::open(None);
    assert!(
        store
            .remember(ALICE, &sig, Remember::Always, &SessionKey::Unknown)
            .is_err()
    );
    assert_eq!(store.lookup(ALICE, &sig, &SessionKey::Unknown), None);
}

#[test]
fn persisted_rules_survive_a_restart_and_session_rules_do_not() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let (always, until, uses);
    {
        let store = Remembered::open(Some(dir.path()));
        remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
        until = store
            .remember(BOB, SIG, Remember::For { secs: HOUR }, &SessionKey::Unknown)
            .expect("ok")
            .expect("an id");
        remember(&store, ALICE, Remember::Session, &label("c"));
        store
            .remember(ALICE, "gone in /", Remember::Always, &SessionKey::Unknown)
            .expect("ok");
        assert_eq!(store.forget(ALICE, None).map(|n| n > 0), Ok(true));
        always = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
        store.lookup(ALICE, SIG, &SessionKey::Unknown);
        store.lookup(ALICE, SIG, &label("c"));
        uses = 2;
        store.flush();
        store.sync().expect("written");
    }
    let path = dir.path().join(FILE_NAME);
    let mode = std::fs::metadata(&path)
        .expect("the file exists")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let text = std::fs::read_to_string(&path).expect("readable");
    assert!(text.contains("\"version\": 1"), "{text}");
    assert!(
        !text.contains("gone in"),
        "forgotten rules are not written: {text}"
    );
    let store = Remembered::open(Some(dir.path()));
    let all = store.list(0);
    assert_eq!(all.len(), 2, "{all:?}");
    let a = all
        .iter()
        .find(|r| r.id == always)
        .expect("the always rule came back");
    assert_eq!(
        (a.uid, a.scope.clone(), a.signature.as_str(), a.uses),
        (ALICE, RememberedScope::Always, SIG, uses)
    );
    let b = all
        .iter()
        .find(|r| r.id == until)
        .expect("the timed rule came back");
    assert!(matches!(b.scope, RememberedScope::Until { .. }));
    assert_eq!(store.lookup(ALICE, SIG, &label("c")), Some(always));
    assert!(
        std::fs::read_dir(dir.path()).expect("listable").all(|e| {
            let name = e.expect("an entry").file_name();
            !name.to_string_lossy().ends_with(".tmp")
        }),
        "no temporary file is left behind"
    );
}

#[test]
fn drop_writes_what_is_left() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let id = {
        let store = Remembered::open(Some(dir.path()));
        remember(&store, ALICE, Remember::Always, &SessionKey::Unknown)
    };
    let store = Remembered::open(Some(dir.path()));
    assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Unknown), Some(id));
}

#[test]
fn a_corrupt_file_is_moved_aside_and_the_store_still_works() {
    for bad in ["{not json", "{\"version\":2,\"rules\":[]}", "[1,2,3]", ""] {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::write(dir.path().join(FILE_NAME), bad).expect("written");
        let store = Remembered::open(Some(dir.path()));
        assert!(store.list(0).is_empty());
        let aside: Vec<_> = std::fs::read_dir(dir.path())
            .expect("listable")
            .map(|e| {
                e.expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| n.starts_with("remembered.json.bad-"))
            .collect();
        assert_eq!(aside.len(), 1, "{bad:?}: {aside:?}");
        let kept = std::fs::read_to_string(dir.path().join(&aside[0])).expect("readable");
        assert_eq!(kept, bad, "the bad file is kept as it was");
        let id = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
        store.sync().expect("written");
        drop(store);
        let store = Remembered::open(Some(dir.path()));
        assert_eq!(store.lookup(ALICE, SIG, &SessionKey::Unknown), Some(id));
    }
}

#[test]
fn bad_rules_in_a_good_file_are_skipped() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let doc = r#"{"version":1,"rules":[
        {"id":"r_0000000a","uid":1000,"signature":"a in /","created_ms":1,"uses":0},
        {"id":"bad","uid":1000,"signature":"b in /","created_ms":2,"uses":0},
        {"id":"r_0000000a","uid":1000,"signature":"c in /","created_ms":3,"uses":0},
        {"id":"r_0000000b","uid":1000,"signature":"d in /","created_ms":4,"uses":0,"until_ms":5}
    ]}"#;
    std::fs::write(dir.path().join(FILE_NAME), doc).expect("written");
    let store = Remembered::open(Some(dir.path()));
    let sigs: Vec<String> = store.list(0).into_iter().map(|r| r.signature).collect();
    assert_eq!(sigs, vec!["a in /"]);
}

#[test]
fn in_memory_only_has_nothing_to_sync() {
    let store = Remembered::open(None);
    remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    assert_eq!(store.sync(), Ok(()));
}

// ---- signatures ----

fn shell(command: &str, cwd: &str) -> String {
    signature(&Subject::Shell {
        command: command.into(),
        cwd: cwd.into(),
        truncated: false,
    })
}

fn tool(name: &str, args: &str) -> String {
    signature(&Subject::Tool {
        name: name.into(),
        args_json: args.into(),
        cwd: None,
    })
}

#[test]
fn signature_table() {
    let cases: &[(String, &str)] = &[
        (
            shell("cargo test", "/home/u/proj"),
            "cargo test in /home/u/proj",
        ),
        (
            shell("cargo test", "/home/u/My Proj"),
            "cargo test in '/home/u/My Proj'",
        ),
        (
            shell("cargo test", "/tmp/it's"),
            r"cargo test in '/tmp/it'\''s'",
        ),
        (shell("ls", "relative"), "ls in 'relative'"),
        (
            tool("Read", r#"{"file_path":"/etc/hosts","limit":10}"#),
            "reading /etc/hosts",
        ),
        (
            tool("read_file", r#"{"absolute_path":"/etc/hosts"}"#),
            "reading /etc/hosts",
        ),
        (
            tool("Write", r#"{"file_path":"/tmp/a b","content":"x"}"#),
            "writing '/tmp/a b'",
        ),
        (
            tool("write_file", r#"{"file_path":"/tmp/x","content":"y"}"#),
            "writing /tmp/x",
        ),
        (
            tool(
                "Edit",
                r#"{"file_path":"/s/m.rs","old_string":"a","new_string":"b"}"#,
            ),
            "editing /s/m.rs",
        ),
        (
            tool("MultiEdit", r#"{"file_path":"/s/m.rs","edits":[]}"#),
            "editing /s/m.rs",
        ),
        (
            tool(
                "NotebookEdit",
                r#"{"notebook_path":"/n.ipynb","new_source":""}"#,
            ),
            "editing /n.ipynb",
        ),
        (
            tool(
                "replace",
                r#"{"file_path":"/s/m.rs","old_string":"a","new_string":"b"}"#,
            ),
            "editing /s/m.rs",
        ),
        (
            tool(
                "WebFetch",
                r#"{"url":"https://docs.rs/tokio","prompt":"p"}"#,
            ),
            "fetching https://docs.rs/tokio",
        ),
        (
            tool("Grep", r#"{"pattern":"fn main","path":"src/"}"#),
            "searching for 'fn main' under src/",
        ),
        (
            tool("search_file_content", r#"{"pattern":"TODO"}"#),
            "searching for TODO",
        ),
        (
            tool("Glob", r#"{"pattern":"**/*.rs"}"#),
            "files matching **/*.rs",
        ),
        (
            tool("glob", r#"{"pattern":"*.md","dir_path":"/d"}"#),
            "files matching *.md under /d",
        ),
        (
            tool("Bash", r#"{"command":"cargo test","cwd":"/home/u/proj"}"#),
            "cargo test in /home/u/proj",
        ),
        (
            tool("run_shell_command", r#"{"command":"ls","dir_path":"/p"}"#),
            "ls in /p",
        ),
        (
            tool("Bash", r#"{"command":"ls"}"#),
            r#"tool Bash {"command":"ls"}"#,
        ),
        (
            tool(
                "calendar.delete_event",
                r#"{ "event_id" : "evt123", "a": 1 }"#,
            ),
            r#"tool calendar.delete_event {"a":1,"event_id":"evt123"}"#,
        ),
        (
            tool("Read", r#"{"file_path":"/a","path":"/b"}"#),
            r#"tool Read {"file_path":"/a","path":"/b"}"#,
        ),
        (
            tool("Read", r#"{"file_path":7}"#),
            r#"tool Read {"file_path":7}"#,
        ),
        (
            tool("web_fetch", r#"{"prompt":"summarise https://x"}"#),
            r#"tool web_fetch {"prompt":"summarise https://x"}"#,
        ),
        (tool("x", r#"{"n": 0.1}"#), r#"tool x {"n": 0.1}"#),
        (tool("x", "not json"), r"tool x (not JSON) 'not json'"),
        (tool("odd name", "{}"), "tool 'odd name' {}"),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}

#[test]
fn signatures_that_must_differ() {
    let pairs = [
        (shell("git push", "/a"), shell("git push", "/b")),
        (shell("git push", "/a"), shell("git push --force", "/a")),
        (shell("cargo test", "/a"), shell("cargo test ", "/a")),
        // " in " inside the command or the cwd cannot shift the split.
        (shell("a in /b", "/c"), shell("a", "/b in /c")),
        (shell("a", "/b' in '/c"), shell("a in '/b'", "/c")),
        // A shell command that spells a tool's signature is not that tool call.
        (
            shell("reading /x", "/y"),
            tool("Read", r#"{"file_path":"/x in /y"}"#),
        ),
        (
            shell("pattern 'fn main'", "/src"),
            tool("Grep", r#"{"pattern":"fn main","path":"/src"}"#),
        ),
        (
            shell("searching for x under", "/p"),
            tool("Grep", r#"{"pattern":"x","path":"under in /p"}"#),
        ),
        (shell("tool", "5"), tool("in", "5")),
        (shell("tool x", "/y"), tool("x", r#""/y""#)),
        // Read and Write of one file, and the whole arguments of different calls.
        (
            tool("Read", r#"{"file_path":"/x"}"#),
            tool("Write", r#"{"file_path":"/x"}"#),
        ),
        (
            tool("Grep", r#"{"pattern":"a"}"#),
            tool("Glob", r#"{"pattern":"a"}"#),
        ),
        (tool("x", r#""a""#), tool("x", "a")),
        (
            tool("x", r#"{"n":0.1}"#),
            tool("x", r#"{"n":0.10000000000000001}"#),
        ),
        (tool("x", r#"{"n":1}"#), tool("x", r#"{"n":1.0}"#)),
        (shell("x", "/p"), format!("x in /p{TRUNCATED_MARK}")),
    ];
    for (a, b) in pairs {
        assert_ne!(a, b);
    }
    let truncated = signature(&Subject::Shell {
        command: "x".into(),
        cwd: "/p".into(),
        truncated: true,
    });
    assert_ne!(truncated, shell("x", "/p"));
}

fn piece() -> impl Strategy<Value = String> {
    // Few, nasty pieces: collisions between different inputs would show up quickly.
    let parts = prop::sample::select(vec![
        "a", " ", " in ", "in", "'", "\\", "/", "\"", "{", "}", "(", ")", "reading", "tool", "for",
        " under ", "5", "\n",
    ]);
    prop::collection::vec(parts, 0..6).prop_map(|v| v.concat())
}

fn subject() -> impl Strategy<Value = Subject> {
    let names = prop::sample::select(vec![
        "Read", "Write", "Grep", "Glob", "Bash", "WebFetch", "in", "x y", "tool",
    ]);
    let keys = prop::sample::select(vec![
        "file_path",
        "path",
        "pattern",
        "url",
        "command",
        "cwd",
    ]);
    prop_oneof![
        (piece(), piece(), any::<bool>()).prop_map(|(command, cwd, truncated)| Subject::Shell {
            command,
            cwd,
            truncated
        }),
        (names, prop::collection::btree_map(keys, piece(), 0..3)).prop_map(|(name, args)| {
            Subject::Tool {
                name: name.to_string(),
                args_json: serde_json::to_string(&args).expect("strings serialise"),
                cwd: None,
            }
        }),
        (piece(), piece()).prop_map(|(name, args_json)| Subject::Tool {
            name,
            args_json,
            cwd: None,
        }),
    ]
}

/// Subjects that are the same request: the same shell command, or a shell tool spelling it.
fn same_request(a: &Subject, b: &Subject) -> bool {
    a == b || {
        let shell_of = |s: &Subject| match s {
            Subject::Shell {
                command,
                cwd,
                truncated: false,
            } => Some((command.clone(), cwd.clone())),
            Subject::Tool {
                name, args_json, ..
            } if name == "Bash" => {
                let v: serde_json::Value = serde_json::from_str(args_json).ok()?;
                let command = v.get("command")?.as_str()?.to_string();
                let cwd = v.get("cwd")?.as_str()?.to_string();
                (v.as_object()?.len() == 2).then_some((command, cwd))
            }
            _ => None,
        };
        shell_of(a).is_some() && shell_of(a) == shell_of(b)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]
    #[test]
    fn different_requests_never_share_a_signature(a in subject(), b in subject()) {
        if signature(&a) == signature(&b) {
            let (sa, sb) = (a.clone(), b.clone());
            let same_tool_call = match (&sa, &sb) {
                (
                    Subject::Tool {
                        name: n1,
                        args_json: j1,
                        ..
                    },
                    Subject::Tool {
                        name: n2,
                        args_json: j2,
                        ..
                    },
                ) => {
                    // The same meaning: same name and equal JSON, or the same path/pattern/url
                    // for the tools whose signature is that argument.
                    n1 == n2
                        && serde_json::from_str::<serde_json::Value>(j1).ok()
                            == serde_json::from_str::<serde_json::Value>(j2).ok()
                        || known_family(n1).is_some()
                            && known_family(n1) == known_family(n2)
                            && main_args(n1, j1) == main_args(n2, j2)
                }
                _ => false,
            };
            prop_assert!(same_request(&a, &b) || same_tool_call, "{a:?} and {b:?} share {}", signature(&a));
        }
    }
}

fn known_family(name: &str) -> Option<&'static str> {
    match name {
        "Read" => Some("read"),
        "Write" => Some("write"),
        "Grep" => Some("grep"),
        "Glob" => Some("glob"),
        "WebFetch" => Some("fetch"),
        _ => None,
    }
}

/// The arguments a known tool's signature is made of, in order.
fn main_args(name: &str, args_json: &str) -> Option<Vec<String>> {
    let v: serde_json::Value = serde_json::from_str(args_json).ok()?;
    let get = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    Some(match known_family(name)? {
        "read" | "write" => vec![get("file_path").or_else(|| get("path"))?],
        "grep" | "glob" => vec![get("pattern")?, get("path").unwrap_or_default()],
        _ => vec![get("url")?],
    })
}

/// The rules on disk now, as another daemon starting would read them.
fn on_disk(dir: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(FILE_NAME)).unwrap_or_default();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    doc["rules"]
        .as_array()
        .map(|rules| {
            rules
                .iter()
                .filter_map(|r| r["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn remembering_and_forgetting_are_on_disk_when_they_return() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Remembered::open(Some(dir.path()));
    let always = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    // No sync, no flush: what `remember` returned is already what a restart reads.
    assert_eq!(on_disk(dir.path()), std::slice::from_ref(&always));
    let until = store
        .remember(BOB, SIG, Remember::For { secs: HOUR }, &SessionKey::Unknown)
        .expect("ok")
        .expect("an id");
    let mut both = on_disk(dir.path());
    both.sort_by_key(|id| id != &always);
    assert_eq!(both, [always.clone(), until.clone()]);
    assert_eq!(store.forget(ALICE, Some(&always)), Ok(1));
    assert_eq!(on_disk(dir.path()), [until]);
    // A session rule is memory only: nothing to write, nothing waited for.
    remember(&store, ALICE, Remember::Session, &label("c"));
    assert_eq!(on_disk(dir.path()).len(), 1);
}

#[test]
fn a_change_the_disk_refuses_is_not_made_and_says_so() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let state = dir.path().join("state");
    std::fs::create_dir(&state).expect("mkdir");
    let store = Remembered::open(Some(&state));
    let kept = remember(&store, ALICE, Remember::Always, &SessionKey::Unknown);
    // The state directory goes away (a full or read-only disk fails the same way, and root
    // ignores permissions): every write fails.
    std::fs::remove_dir_all(&state).expect("rm");
    let refused = store.remember(BOB, SIG, Remember::Always, &SessionKey::Unknown);
    let Err(RequestError::NotSaved(why)) = refused else {
        panic!("expected not_saved, got {refused:?}");
    };
    assert!(why.contains("nothing changed"), "{why}");
    assert!(
        store.list(0).iter().all(|r| r.uid != BOB),
        "nothing remembered"
    );
    assert_eq!(store.lookup(BOB, SIG, &SessionKey::Unknown), None);
    let refused = store.forget(ALICE, Some(&kept));
    assert!(
        matches!(refused, Err(RequestError::NotSaved(_))),
        "{refused:?}"
    );
    assert_eq!(
        store.lookup(ALICE, SIG, &SessionKey::Unknown),
        Some(kept.clone()),
        "a forget that was not saved leaves the rule as the disk has it"
    );
    // The disk comes back: the next change is written, with everything in force.
    std::fs::create_dir(&state).expect("mkdir again");
    let again = remember(&store, BOB, Remember::Always, &SessionKey::Unknown);
    let mut both = on_disk(&state);
    both.sort_by_key(|id| id != &kept);
    assert_eq!(both, [kept, again]);
}

#[test]
fn temporary_files_a_crash_left_are_removed_at_start() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let stale = dir.path().join(format!(".{FILE_NAME}.4242.deadbeef.tmp"));
    std::fs::write(&stale, "{half a docu").expect("write");
    let other = dir.path().join("audit.jsonl");
    std::fs::write(&other, "").expect("write");
    let _store = Remembered::open(Some(dir.path()));
    assert!(!stale.exists(), "the stale temporary file is gone");
    assert!(other.exists(), "nothing else is touched");
}

#[test]
fn loading_many_rules_is_linear() {
    // 200,000 rules over 400 uids (the per-uid cap keeps 1024 each): the load once compared
    // every id with every other (70 s). A linear load reads this in well under a second even
    // in a debug build; the bound here is loose enough for a loaded machine and far below the
    // quadratic time.
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut text = String::from("{\"version\":1,\"rules\":[");
    for i in 0..200_000u32 {
        if i > 0 {
            text.push(',');
        }
        text.push_str(&format!(
            "{{\"id\":\"r_{i:08x}\",\"uid\":{},\"signature\":\"cmd {i} in /\",\"created_ms\":{i},\"uses\":0}}",
            i % 400
        ));
    }
    text.push_str("]}");
    std::fs::write(dir.path().join(FILE_NAME), text).expect("write");
    let started = std::time::Instant::now();
    let store = Remembered::open(Some(dir.path()));
    let took = started.elapsed();
    assert_eq!(store.list(0).len(), 200_000);
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}
