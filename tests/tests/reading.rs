//! What a line runs, read from the disk by the real daemon: a project directory holding a trap
//! (a script, a Makefile, `package.json`, a git hook, a git setting, `.envrc`, a symbolic
//! link into the home) makes an everyday line held or refused, and the same line in a project
//! without the trap is still allowed.
//!
//! Nothing here is ever run: the traps are written by the test and only the daemon reads
//! them. The project is a repository in the requester's home (as the daemon finds it in the
//! user database), where a project usually is, so that its paths are the project's and not
//! temp's.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assent_client::protocol::{CheckRequest, Context, Decision, Origin, Request, Subject, Verdict};
use assent_tests::{TestDaemon, verdict_of};

/// A project directory in the requester's home, removed when dropped.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let uid = nix::unistd::getuid();
        let home = nix::unistd::User::from_uid(uid)
            .ok()
            .flatten()
            .map(|u| u.dir)
            .expect("the test's user has a home in the user database");
        let dir = tempfile::Builder::new()
            .prefix("assent-reading-")
            .tempdir_in(&home)
            .expect("a project directory can be made in the home");
        // A repository, as a project in the home is (elsewhere there the home's rules apply).
        std::fs::create_dir_all(dir.path().join(".git")).expect("the .git directory is made");
        Project { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn home(&self) -> PathBuf {
        self.path()
            .parent()
            .expect("the project is in the home")
            .to_path_buf()
    }

    /// Writes `text` to `rel`, making its directories; `exec`: mode 0755.
    fn write(&self, rel: &str, text: &str, exec: bool) {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the directories can be made");
        }
        std::fs::write(&path, text).expect("the file is written");
        let mode = if exec { 0o755 } else { 0o644 };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))
            .expect("the mode is set");
    }

    fn cwd(&self) -> String {
        self.path().to_str().expect("a UTF-8 path").to_owned()
    }
}

/// An agent's check of `command` in `cwd`.
fn agent(command: &str, cwd: &str) -> Request {
    Request::Check(CheckRequest {
        subject: Subject::Shell {
            command: command.into(),
            cwd: cwd.into(),
            truncated: false,
        },
        origin: Origin::Agent,
        context: Context::default(),
        wait: false,
    })
}

fn verdict(daemon: &TestDaemon, command: &str, project: &Project) -> Verdict {
    let mut conn = daemon.connect();
    verdict_of(&mut conn, &agent(command, &project.cwd()))
}

/// `command` in the trapped project is held or refused, with a finding that says the file;
/// in the plain project it is allowed.
fn trap_and_twin(command: &str, trapped: &Project, plain: &Project, told: &str) {
    let daemon = TestDaemon::start();
    let bad = verdict(&daemon, command, trapped);
    assert_ne!(
        bad.decision,
        Decision::Allow,
        "{command} with the trap: {bad:?}"
    );
    assert!(
        bad.findings.iter().any(|f| f.message.contains(told)),
        "{command}: no finding names {told:?}: {:?}",
        bad.findings
    );
    let good = verdict(&daemon, command, plain);
    assert_eq!(
        good.decision,
        Decision::Allow,
        "{command} in an everyday project: {good:?}"
    );
}

#[test]
fn a_script_the_line_runs_is_judged_as_its_text() {
    let (trapped, plain) = (Project::new(), Project::new());
    trapped.write("cleanup.sh", "#!/bin/bash\nrm -rf ~/Documents/old\n", true);
    plain.write(
        "cleanup.sh",
        "#!/bin/bash\nmkdir -p build\nrm -rf build/tmp\ncargo build\n",
        true,
    );
    trap_and_twin("bash cleanup.sh", &trapped, &plain, "in cleanup.sh");
    trap_and_twin("./cleanup.sh", &trapped, &plain, "in ./cleanup.sh");
}

#[test]
fn an_interpreters_file_is_read_as_its_inline_programs_are() {
    let (trapped, plain) = (Project::new(), Project::new());
    let home = trapped.home();
    let home = home.to_str().expect("UTF-8");
    trapped.write(
        "tidy.py",
        &format!("import shutil\nshutil.rmtree('{home}')\n"),
        false,
    );
    plain.write("tidy.py", "import json\nprint(json.dumps([1]))\n", false);
    trap_and_twin("python3 tidy.py", &trapped, &plain, "in tidy.py");
}

/// `python3 -m pytest` runs a module: a `pytest.py` in the project (which Python finds first)
/// is read as its program; in a project without one the installed module runs, allowed (it
/// was held once, `pytest` read as a file the project does not have).
#[test]
fn a_module_the_line_runs_is_the_projects_own_file_first() {
    let (trapped, plain) = (Project::new(), Project::new());
    let home = trapped.home();
    let home = home.to_str().expect("UTF-8");
    trapped.write(
        "pytest.py",
        &format!("import shutil\nshutil.rmtree('{home}')\n"),
        false,
    );
    plain.write("tests/test_x.py", "def test_x():\n    assert True\n", false);
    trap_and_twin("python3 -m pytest", &trapped, &plain, "in pytest");
    trap_and_twin("python3 -m pytest tests/ -q", &trapped, &plain, "in pytest");
    let daemon = TestDaemon::start();
    for line in ["python3 -m venv .venv", "python3 -m http.server 8000"] {
        let v = verdict(&daemon, line, &plain);
        assert_eq!(v.decision, Decision::Allow, "{line}: {v:?}");
    }
}

#[test]
fn make_runs_the_recipes_of_its_targets() {
    let (trapped, plain) = (Project::new(), Project::new());
    trapped.write(
        "Makefile",
        "all: prep\n\tcc -o app main.c\nprep:\n\t@rm -rf $(HOME)/\n",
        false,
    );
    plain.write(
        "Makefile",
        "CC = cc\nall: app\napp: main.o\n\t$(CC) -o $@ $^\n%.o: %.c\n\t$(CC) -c $<\n",
        false,
    );
    trap_and_twin("make", &trapped, &plain, "in Makefile");
}

#[test]
fn npm_test_runs_the_scripts_of_package_json() {
    let (trapped, plain) = (Project::new(), Project::new());
    trapped.write(
        "package.json",
        r#"{"scripts": {"test": "jest", "posttest": "rm -rf ~"}}"#,
        false,
    );
    plain.write("package.json", r#"{"scripts": {"test": "jest"}}"#, false);
    trap_and_twin(
        "npm test",
        &trapped,
        &plain,
        "in package.json scripts.posttest",
    );
}

#[test]
fn git_runs_the_repositorys_hooks_and_command_valued_settings() {
    let (trapped, plain) = (Project::new(), Project::new());
    for p in [&trapped, &plain] {
        p.write(".git/config", "[core]\n\tbare = false\n", false);
    }
    trapped.write(".git/hooks/pre-commit", "#!/bin/sh\nrm -rf ~\n", true);
    plain.write(
        ".git/hooks/pre-commit",
        "#!/bin/sh\ncargo fmt --all -- --check\n",
        true,
    );
    trap_and_twin(
        "git commit -m fix",
        &trapped,
        &plain,
        "in the git hook pre-commit",
    );

    let (trapped, plain) = (Project::new(), Project::new());
    trapped.write(".git/config", "[core]\n\tfsmonitor = \"rm -rf ~\"\n", false);
    plain.write(".git/config", "[core]\n\tpager = less -R\n", false);
    // From a directory inside the repository too.
    for p in [&trapped, &plain] {
        std::fs::create_dir_all(p.path().join("src")).expect("src");
    }
    trap_and_twin(
        "git status",
        &trapped,
        &plain,
        "in .git/config core.fsmonitor",
    );
    trap_and_twin("cd src && git status", &trapped, &plain, "core.fsmonitor");
}

#[test]
fn direnv_runs_envrc() {
    let (trapped, plain) = (Project::new(), Project::new());
    trapped.write(".envrc", "rm -rf ~/Documents\n", false);
    plain.write(".envrc", "export RUST_LOG=debug\n", false);
    trap_and_twin("direnv allow", &trapped, &plain, "in .envrc");
}

#[test]
fn a_link_among_the_words_is_placed_where_it_leads() {
    let (trapped, plain) = (Project::new(), Project::new());
    std::os::unix::fs::symlink(trapped.home(), trapped.path().join("build")).expect("link");
    std::fs::create_dir_all(plain.path().join("build")).expect("build");
    let daemon = TestDaemon::start();
    let bad = verdict(&daemon, "rm -rf build/", &trapped);
    assert_eq!(bad.decision, Decision::Deny, "{bad:?}");
    assert!(
        bad.findings.iter().any(|f| f.id == "delete.home"),
        "{bad:?}"
    );
    let good = verdict(&daemon, "rm -rf build/", &plain);
    assert_eq!(good.decision, Decision::Allow, "{good:?}");
}

#[test]
fn what_cannot_be_read_is_never_allowed_and_never_stalls_the_daemon() {
    let project = Project::new();
    nix::unistd::mkfifo(
        &project.path().join("fifo.sh"),
        nix::sys::stat::Mode::from_bits_truncate(0o600),
    )
    .expect("mkfifo");
    project.write("big.sh", &"true\n".repeat(20_000), false);
    let daemon = TestDaemon::start();
    for command in [
        "bash fifo.sh",
        "bash big.sh",
        "bash missing.sh",
        "source /proc/self/environ",
    ] {
        let started = Instant::now();
        let v = verdict(&daemon, command, &project);
        assert_ne!(v.decision, Decision::Allow, "{command}: {v:?}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{command} took {:?}",
            started.elapsed()
        );
    }
}

/// A line judged again reads what it wanted the last time first (`request/wanted.rs`): the
/// same verdict, and its files read again each time, so a trap written since is found, and a
/// script that now runs another is followed into it.
#[test]
fn a_line_judged_again_reads_its_files_again() {
    let project = Project::new();
    project.write(".git/config", "[core]\n\tpager = less -R\n", false);
    project.write("build.sh", "#!/bin/sh\nmkdir -p build\n", true);
    let daemon = TestDaemon::start();
    for command in ["git status --short", "bash build.sh"] {
        let first = verdict(&daemon, command, &project);
        let again = verdict(&daemon, command, &project);
        assert_eq!(first.decision, Decision::Allow, "{command}: {first:?}");
        assert_eq!(
            (again.decision, again.level, &again.findings, &again.reason),
            (first.decision, first.level, &first.findings, &first.reason),
            "{command}"
        );
    }
    project.write(".git/config", "[core]\n\tfsmonitor = \"rm -rf ~\"\n", false);
    project.write("build.sh", "#!/bin/sh\nbash cleanup.sh\n", true);
    project.write("cleanup.sh", "#!/bin/bash\nrm -rf ~/Documents/old\n", true);
    for (command, told) in [
        ("git status --short", "core.fsmonitor"),
        ("bash build.sh", "in cleanup.sh"),
    ] {
        let now = verdict(&daemon, command, &project);
        assert_ne!(now.decision, Decision::Allow, "{command}: {now:?}");
        assert!(
            now.findings.iter().any(|f| f.message.contains(told)),
            "{command}: no finding names {told:?}: {:?}",
            now.findings
        );
    }
}

/// A file that is not there is made, not replaced: copying the example settings onto a
/// project's `.env` in a fresh checkout is allowed; onto one that holds secrets it is held, and
/// the finding says it replaces them.
#[test]
fn a_file_that_is_not_there_is_made_not_replaced() {
    let (fresh, kept) = (Project::new(), Project::new());
    for p in [&fresh, &kept] {
        p.write(".env.example", "API_KEY=\n", false);
    }
    kept.write(".env", "API_KEY=the-real-one\n", false);
    trap_and_twin("cp .env.example .env", &kept, &fresh, "overwrites `.env`");
}
