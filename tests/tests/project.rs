//! The project is the repository the working directory is in, as the real daemon finds it on
//! the disk, not any directory the agent stands in: the same lines in a repository's
//! subdirectory are the repository's (moderate), and in a directory of the home with no
//! repository (`~/Documents`), or in a repository inside a hidden directory of the home, they
//! touch the person's data (held). A directory the policy names is a project too, and the
//! confinement a door gets names the one project the line was judged in.
//!
//! Nothing here is run: the daemon only judges the lines. The directories lie in the
//! requester's real home (the daemon's `~`, from the user database), outside `/tmp`.

use std::path::Path;

use assent_client::protocol::{
    CheckRequest, Context, Decision, Level, Origin, Request, Subject, Verdict,
};
use assent_tests::{Options, TestDaemon, home_scratch, verdict_of};

/// An agent's check of `command` run in `cwd`, from a door that confines.
fn check(command: &str, cwd: &Path) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::Shell {
            command: command.into(),
            cwd: text(cwd),
            truncated: false,
        },
        origin: Origin::Agent,
        context: Context {
            confines: true,
            ..Context::default()
        },
        wait: false,
    })
}

/// An agent's `Write` tool call of `file` made from `cwd`.
fn write_tool(file: &str, cwd: &Path) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::Tool {
            name: "Write".into(),
            args_json: serde_json::json!({ "file_path": file, "content": "x" }).to_string(),
            cwd: Some(text(cwd)),
        },
        origin: Origin::Agent,
        context: Context::default(),
        wait: false,
    })
}

fn text(path: &Path) -> String {
    path.to_str()
        .expect("the test's paths are UTF-8")
        .to_owned()
}

fn ids(verdict: &Verdict) -> Vec<&str> {
    verdict.findings.iter().map(|f| f.id.as_str()).collect()
}

fn mkdir(path: &Path) {
    std::fs::create_dir_all(path).expect("the test's directories are made");
}

#[test]
fn lines_are_the_repositorys_in_it_and_the_persons_data_elsewhere_in_the_home() {
    let daemon = TestDaemon::start();
    let scratch = home_scratch("assent-project-");
    let repo = scratch.path().join("app");
    mkdir(&repo.join(".git"));
    mkdir(&repo.join("crates/a"));
    // Only ever read by the daemon, never run.
    std::fs::write(repo.join("build.sh"), "cargo build --release\n").expect("build.sh");
    let documents = scratch.path().join("Documents/thesis");
    mkdir(&documents);
    // The person's files the lines below would replace (a file not there is only made).
    std::fs::write(documents.join("thesis.tex"), "\\chapter{}\n").expect("thesis.tex");
    std::fs::write(scratch.path().join("Documents/README.md"), "notes\n").expect("README.md");
    // A hidden directory of the home: a repository there is no project.
    let hidden = home_scratch(".assent-project-");
    let hidden_repo = hidden.path().join("repo");
    mkdir(&hidden_repo.join(".git"));
    std::fs::write(hidden_repo.join("notes.txt"), "notes\n").expect("notes.txt");
    let mut conn = daemon.connect();

    for line in [
        "rm -rf ../build",
        "bash ../../build.sh",
        "sed -i s/a/b/ ../../README.md",
    ] {
        let v = verdict_of(&mut conn, &check(line, &repo.join("crates/a")));
        assert_eq!(
            (v.decision, v.level),
            (Decision::Allow, Level::Moderate),
            "{line} in a crate of the repository: {:?}",
            ids(&v)
        );
    }
    let v = verdict_of(
        &mut conn,
        &check("sed -i s/a/b/ ../../README.md", &repo.join("crates/a")),
    );
    assert_eq!(ids(&v), ["overwrite.project"]);
    // The door is handed the project the line was judged in, not left to look for one.
    if assentd::landlock::confines() {
        let confine = v.confine.expect("a confining door gets a confinement");
        assert_eq!(confine.project.as_deref(), Some(text(&repo).as_str()));
    }

    for (line, cwd, id) in [
        (": > thesis.tex", &documents, "overwrite.data"),
        ("sed -i d thesis.tex", &documents, "overwrite.data"),
        ("rm -rf ../build", &documents, "delete.data"),
        ("sed -i s/a/b/ ../README.md", &documents, "overwrite.data"),
        (": > notes.txt", &hidden_repo, "overwrite.data"),
    ] {
        let v = verdict_of(&mut conn, &check(line, cwd));
        assert_eq!(
            v.level,
            Level::Destructive,
            "{line} in {cwd:?}: {:?}",
            ids(&v)
        );
        assert_ne!(v.decision, Decision::Allow, "{line} in {cwd:?}");
        assert!(ids(&v).contains(&id), "{line} in {cwd:?}: {:?}", ids(&v));
        if let Some(confine) = &v.confine {
            assert_eq!(confine.project, None, "{line} in {cwd:?}: no project");
        }
    }

    // A file tool's call is placed by the same project.
    let v = verdict_of(&mut conn, &write_tool("thesis.tex", &documents));
    assert_eq!(v.level, Level::Destructive, "{:?}", ids(&v));
    let v = verdict_of(&mut conn, &write_tool("src/lib.rs", &repo.join("crates/a")));
    assert_eq!(v.level, Level::Moderate, "{:?}", ids(&v));
}

#[test]
fn a_directory_the_policy_names_is_a_project() {
    let scratch = home_scratch("assent-project-");
    let notes = scratch.path().join("work/thesis");
    mkdir(&notes.join("chapters"));
    let policy = format!(
        "project_paths = [{:?}]\n",
        format!("{}/work/*", text(scratch.path()))
    );
    let daemon = TestDaemon::with(Options {
        policy: Some(policy),
        ..Options::default()
    });
    let mut conn = daemon.connect();
    let v = verdict_of(
        &mut conn,
        &check(": > ../intro.tex", &notes.join("chapters")),
    );
    assert_eq!(
        (v.decision, v.level),
        (Decision::Allow, Level::Moderate),
        "{:?}",
        ids(&v)
    );
    assert_eq!(ids(&v), ["overwrite.project"]);
    // Beside it, not named and no repository: the person's data.
    let other = scratch.path().join("work");
    std::fs::write(other.join("plan.txt"), "plan\n").expect("plan.txt");
    let v = verdict_of(&mut conn, &check(": > plan.txt", &other));
    assert_eq!(v.level, Level::Destructive, "{:?}", ids(&v));
}
