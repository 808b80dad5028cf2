//! A daemon running as root finds, reads and plans as the requester: with its supplementary
//! groups too. A project under a directory only the requester's team may enter (a shared
//! server's `/srv/team`, mode 0770) is the project of a confined run, writable there, and the
//! daemon keeps a ruleset ready for it as for any other. The real daemon (root), a real second
//! user in a real group, the real door, real Landlock.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use assent_tests::agents::Sandbox;
use assent_tests::confined::landlock;
use assent_tests::{TestDaemon, run_bounded};

const TEAM: &str = "assent-grp-team";

/// `assent ARGS` as the sandbox's user, with the groups the user database gives it (as a
/// login would), in `cwd`.
fn as_member(sandbox: &Sandbox, socket: &Path, cwd: &Path, args: &[&str]) -> Output {
    run_bounded(
        Command::new("setpriv")
            .args(["--reuid", &sandbox.uid.to_string()])
            .args(["--regid", &sandbox.gid.to_string()])
            .args(["--init-groups", "--"])
            .arg(sandbox.bin.join("assent"))
            .arg("--socket")
            .arg(socket)
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .env("HOME", &sandbox.home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
}

fn passed(sandbox: &Sandbox, socket: &Path, cwd: &Path) -> u64 {
    let out = as_member(sandbox, socket, cwd, &["status", "--json"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("status --json: {e}: {out:?}"));
    value
        .get("rulesets_passed")
        .and_then(serde_json::Value::as_u64)
        .unwrap_or_else(|| panic!("no rulesets_passed in {value}"))
}

#[test]
fn a_project_only_the_requesters_team_may_enter_is_its_project() {
    if !landlock()
        || !assent_tests::needs::needs_root("to make a user, a group and a team's directory")
    {
        return;
    }
    let sandbox = Sandbox::new("assent-grp");
    let made = run_bounded(Command::new("groupadd").args(["-f", TEAM]));
    assert!(made.status.success(), "groupadd: {made:?}");
    let joined = run_bounded(Command::new("usermod").args(["-aG", TEAM, "assent-grp"]));
    assert!(joined.status.success(), "usermod: {joined:?}");
    let team = nix::unistd::Group::from_name(TEAM)
        .expect("group database")
        .expect("the team's group");

    // Not in temp, which every confined run may change anyway.
    std::fs::create_dir_all("/srv").expect("/srv");
    let shared = tempfile::Builder::new()
        .prefix("assent-team-")
        .tempdir_in("/srv")
        .expect("a team directory");
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o770)).expect("chmod");
    nix::unistd::chown(shared.path(), None, Some(team.gid)).expect("chgrp");
    let app = shared.path().join("app");
    std::fs::create_dir_all(app.join(".git")).expect("the team's repository");
    let owner = nix::unistd::Uid::from_raw(sandbox.uid);
    let group = nix::unistd::Gid::from_raw(sandbox.gid);
    for dir in [&app, &app.join(".git")] {
        nix::unistd::chown(dir.as_path(), Some(owner), Some(group)).expect("chown");
    }

    let daemon = TestDaemon::with(assent_tests::Options::default());
    let line = "echo built >> out.txt";
    let mut runs = Vec::new();
    let mut kept = false;
    for _ in 0..30 {
        let before = passed(&sandbox, daemon.socket(), &app);
        let out = as_member(&sandbox, daemon.socket(), &app, &["sh", "-c", line]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "the run may write in its project (run {}): {out:?}",
            runs.len() + 1
        );
        runs.push(out);
        if passed(&sandbox, daemon.socket(), &app) > before {
            kept = true;
            break;
        }
    }
    let written = std::fs::read_to_string(app.join("out.txt")).expect("written");
    assert_eq!(written.lines().count(), runs.len(), "{runs:?}");
    assert!(
        kept,
        "the daemon planned as the member and passed a kept ruleset: {runs:?}"
    );
}
