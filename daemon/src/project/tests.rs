use super::*;
use crate::analyse::{self, Surroundings};
use assent_client::protocol::Level::{self, Destructive, Moderate};

const HOME: &str = "/home/u";

/// A policy naming `dirs` as projects.
fn named(dirs: &[&str]) -> crate::policy::Policy {
    let list: Vec<String> = dirs.iter().map(|d| format!("{d:?}")).collect();
    let text = format!("project_paths = [{}]\n", list.join(", "));
    match crate::policy::file::parse(&text, "test.toml") {
        Ok(loaded) => loaded.policy,
        Err(error) => panic!("the test policy parses: {error}"),
    }
}

/// Working directory, the repositories on the disk, the project.
const CASES: &[(&str, &[&str], Option<&str>)] = &[
    // In a repository's subdirectory the project is the repository.
    (
        "/home/u/src/app/crates/a",
        &["/home/u/src/app"],
        Some("/home/u/src/app"),
    ),
    (
        "/home/u/src/app",
        &["/home/u/src/app"],
        Some("/home/u/src/app"),
    ),
    // The nearest repository wins (a submodule, a nested checkout).
    (
        "/home/u/src/app/vendor/lib/x",
        &["/home/u/src/app", "/home/u/src/app/vendor/lib"],
        Some("/home/u/src/app/vendor/lib"),
    ),
    // In the home without a repository there is none: the home's rules apply.
    ("/home/u/Documents", &[], None),
    ("/home/u/Documents/thesis", &[], None),
    ("/home/u", &[], None),
    // A repository in a hidden directory of the home is none.
    ("/home/u/.config/x", &["/home/u/.config/x"], None),
    ("/home/u/.ssh/keys", &["/home/u/.ssh/keys"], None),
    ("/home/u/.config/x", &[], None),
    // A `.git` in the home itself, or above it, makes no project of the home.
    ("/home/u/Documents", &["/home/u"], None),
    ("/home/u/Documents", &["/home"], None),
    ("/home/u/Documents", &["/"], None),
    // A repository's own hidden directories are in it.
    (
        "/home/u/src/app/.github/workflows",
        &["/home/u/src/app"],
        Some("/home/u/src/app"),
    ),
    // Outside the home: the repository, else the working directory as before.
    ("/srv/site/crates/a", &["/srv/site"], Some("/srv/site")),
    ("/srv/site/crates/a", &[], Some("/srv/site/crates/a")),
    ("/tmp/y", &[], Some("/tmp/y")),
    // A repository at `/` or at a system directory (etckeeper's `/etc`) is none.
    ("/etc/nginx", &["/etc"], Some("/etc/nginx")),
    ("/opt/tool", &["/"], Some("/opt/tool")),
    // Input that is not a path.
    ("relative/dir", &[], None),
    (
        "/home/u/src/app/../../Documents",
        &["/home/u/src/app"],
        None,
    ),
];

#[test]
fn the_project_is_the_repository_around_the_directory_not_the_directory() {
    let mut failures = Vec::new();
    for (cwd, repos, want) in CASES {
        let git = nearest_git(cwd, Some(HOME), |dir| Some(repos.contains(&dir)));
        let got = choose(cwd, Some(HOME), git.as_deref(), None);
        if got.as_deref() != *want {
            failures.push(format!("{cwd} with {repos:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_policy_names_projects_that_hold_no_repository() {
    let policy = named(&["~/work/*", "/data/shared"]);
    let globs = policy.settings.project_paths.as_ref();
    let at = |cwd: &str, git: Option<&str>| choose(cwd, Some(HOME), git, globs);
    assert_eq!(
        at("/home/u/work/thesis/chapters", None).as_deref(),
        Some("/home/u/work/thesis")
    );
    assert_eq!(
        at("/home/u/work/thesis", None).as_deref(),
        Some("/home/u/work/thesis")
    );
    // `~/work` itself is not named, only what is in it.
    assert_eq!(at("/home/u/work", None), None);
    assert_eq!(at("/home/u/Documents", None), None);
    assert_eq!(at("/data/shared/x", None).as_deref(), Some("/data/shared"));
    // The nearer of a repository and a named directory.
    assert_eq!(
        at(
            "/home/u/work/thesis/code/src",
            Some("/home/u/work/thesis/code")
        )
        .as_deref(),
        Some("/home/u/work/thesis/code")
    );
    // A policy naming the home names nothing.
    let home = named(&["/home/u", "/home/*", "/*"]);
    assert_eq!(
        choose(
            "/home/u/Documents",
            Some(HOME),
            None,
            home.settings.project_paths.as_ref()
        ),
        None
    );
    assert!(
        crate::policy::file::parse("project_paths = [\"work/*\"]\n", "t.toml").is_err(),
        "a relative directory names nothing"
    );
}

#[test]
fn the_look_goes_no_higher_than_the_home_and_never_into_proc() {
    let mut asked = Vec::new();
    let found = nearest_git("/home/u/a/b", Some(HOME), |dir| {
        asked.push(dir.to_owned());
        Some(false)
    });
    assert_eq!(found, None);
    assert_eq!(asked, ["/home/u/a/b", "/home/u/a"]);
    let mut asked = 0;
    assert_eq!(
        nearest_git("/proc/1/cwd", Some(HOME), |_| {
            asked += 1;
            Some(true)
        }),
        None
    );
    assert_eq!(
        nearest_git("/sys/fs", Some(HOME), |_| {
            asked += 1;
            Some(true)
        }),
        None
    );
    assert_eq!(asked, 0);
    let deep = format!("/srv{}", "/d".repeat(MAX_LEVELS * 2));
    let mut asked = 0;
    assert_eq!(
        nearest_git(&deep, None, |_| {
            asked += 1;
            Some(false)
        }),
        None
    );
    assert_eq!(asked, MAX_LEVELS);
}

/// The look on the real disk: `.git` as a directory or a file (a worktree's, a submodule's),
/// and the answer kept for the same directory.
#[tokio::test]
async fn the_disk_is_asked_as_the_requester_and_the_answer_kept_a_moment() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("real");
    let root = root.to_str().expect("utf-8").to_owned();
    let home = format!("{root}/home");
    std::fs::create_dir_all(format!("{home}/src/app/.git")).expect("mkdir");
    std::fs::create_dir_all(format!("{home}/src/app/crates/a")).expect("mkdir");
    std::fs::create_dir_all(format!("{home}/src/wt/sub")).expect("mkdir");
    std::fs::write(
        format!("{home}/src/wt/.git"),
        "gitdir: ../app/.git/worktrees/wt\n",
    )
    .expect("write");
    std::fs::create_dir_all(format!("{home}/Documents")).expect("mkdir");
    let who = read::As {
        uid: nix::unistd::geteuid().as_raw(),
        gid: nix::unistd::getegid().as_raw(),
        groups: Default::default(),
        named: Vec::new(),
    };
    let cache = Cache::default();
    let look = |cwd: String| {
        let (cache, who, home) = (&cache, &who, &home);
        async move { cache.repository(who, &cwd, Some(home)).await }
    };
    assert_eq!(
        look(format!("{home}/src/app/crates/a")).await,
        Some(format!("{home}/src/app"))
    );
    assert_eq!(
        look(format!("{home}/src/wt/sub")).await,
        Some(format!("{home}/src/wt"))
    );
    assert_eq!(look(format!("{home}/Documents")).await, None);
    // Kept: a repository made meanwhile is seen once the answer is stale.
    std::fs::create_dir_all(format!("{home}/Documents/.git")).expect("mkdir");
    assert_eq!(look(format!("{home}/Documents")).await, None);
}

type Line = (
    &'static str,
    Option<&'static str>,
    &'static str,
    Level,
    &'static [&'static str],
);

/// Where the line is run, the project the daemon found there, the line, its level and its
/// findings. The same lines in a repository's subdirectory touch the repository; in
/// `~/Documents` and `~/.config/x`, where there is none, they touch the person's data.
const LINES: &[Line] = &[
    (
        "/home/u/src/app/crates/a",
        Some("/home/u/src/app"),
        "rm -rf ../build",
        Moderate,
        &["delete.build"],
    ),
    (
        "/home/u/src/app/crates/a",
        Some("/home/u/src/app"),
        "bash ../../build.sh",
        Moderate,
        &["run.project"],
    ),
    (
        "/home/u/src/app/crates/a",
        Some("/home/u/src/app"),
        "sed -i s/a/b/ ../../README.md",
        Moderate,
        &["overwrite.project"],
    ),
    (
        "/home/u/src/app/crates/a",
        Some("/home/u/src/app"),
        ": > notes.txt",
        Moderate,
        &["overwrite.project"],
    ),
    (
        "/home/u/Documents",
        None,
        ": > thesis.tex",
        Destructive,
        &["overwrite.data"],
    ),
    (
        "/home/u/Documents",
        None,
        "sed -i d thesis.tex",
        Destructive,
        &["overwrite.data"],
    ),
    (
        "/home/u/Documents/thesis",
        None,
        "rm -rf ../build",
        Destructive,
        &["delete.data"],
    ),
    (
        "/home/u/Documents/thesis",
        None,
        "bash ../../build.sh",
        Moderate,
        &["run.data"],
    ),
    (
        "/home/u/Documents/thesis",
        None,
        "sed -i s/a/b/ ../README.md",
        Destructive,
        &["overwrite.data"],
    ),
    (
        "/home/u/.config/x",
        None,
        ": > settings.json",
        Destructive,
        &["overwrite.data"],
    ),
    (
        "/home/u/.config/x",
        None,
        "rm -rf ../build",
        Destructive,
        &["delete.data", "delete.secret"],
    ),
    // Outside the home, as before: the working directory is the project.
    (
        "/srv/site",
        Some("/srv/site"),
        ": > index.html",
        Moderate,
        &["overwrite.project"],
    ),
];

#[test]
fn a_line_is_judged_by_the_project_found_not_the_directory_it_is_run_in() {
    let mut failures = Vec::new();
    for (cwd, project, line, level, ids) in LINES {
        let ctx = Surroundings {
            cwd,
            home: Some(HOME),
            project: *project,
            truncated: false,
        };
        let a = analyse::shell(line, &ctx);
        let mut got: Vec<&str> = a.findings.iter().map(|f| f.id).collect();
        got.sort_unstable();
        got.dedup();
        if a.level != *level || got != *ids {
            failures.push(format!(
                "{line} in {cwd}: got {:?} {got:?}, want {level:?} {ids:?}",
                a.level
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A level the requester's look may not enter (a directory only its team may) hides whether
/// the repository is there: no outer repository is taken for the project instead.
#[test]
fn a_level_that_cannot_be_looked_at_stops_the_look() {
    let mut asked = Vec::new();
    let found = nearest_git("/srv/mono/team/proj", None, |dir| {
        asked.push(dir.to_owned());
        match dir {
            "/srv/mono/team/proj" => None,
            "/srv/mono" => Some(true),
            _ => Some(false),
        }
    });
    assert_eq!(found, None);
    assert_eq!(asked, ["/srv/mono/team/proj"]);
}

/// A root daemon that could not tell a requester's groups looks with fewer rights than the
/// requester has: the answer serves that request and is not kept for the next.
#[tokio::test]
async fn a_look_without_the_requesters_groups_is_not_kept() {
    if !nix::unistd::geteuid().is_root() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let cwd = dir.path().to_str().expect("utf-8").to_owned();
    let cache = Cache::default();
    let unknown = read::As {
        uid: 65534,
        gid: 65534,
        groups: crate::peer::Groups::default(),
        named: Vec::new(),
    };
    let _ = cache.repository(&unknown, &cwd, None).await;
    assert!(cache.found.lock().expect("cache").is_empty());
    let known = read::As {
        groups: crate::peer::Groups::known(Vec::new()),
        ..unknown
    };
    let _ = cache.repository(&known, &cwd, None).await;
    assert_eq!(cache.found.lock().expect("cache").len(), 1);
}

#[test]
fn a_directory_that_holds_the_gates_own_places_is_no_project() {
    let config = crate::config::Config::user_with(
        Some("/srv/work/run/assent.sock".into()),
        Some("/srv/work/run/state".into()),
    )
    .expect("a user daemon's configuration");
    for holds in ["/srv/work/run", "/srv/work", "/srv"] {
        assert!(super::holds_the_gate(holds, &config), "{holds}");
    }
    for apart in [
        "/srv/work/run/state-other",
        "/srv/elsewhere",
        "/srv/work/runs",
    ] {
        assert!(!super::holds_the_gate(apart, &config), "{apart}");
    }
}
