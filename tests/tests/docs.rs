//! What a newcomer reads stays true: the man pages have the sections a page has and fit 80
//! columns, the policy page names every key the loader takes, the units' `Documentation=` name
//! pages that are built, `--help` is wrapped to the terminal, and the README names findings
//! that exist and policy examples that load without a warning.

use std::path::{Path, PathBuf};
use std::process::Command;

use assent_tests::needs::{MAN, needs};
use assent_tests::{our_command, run_bounded};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Every man page the three binaries write, in a temporary directory.
fn pages() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (binary, flag) in [
        ("assent", "man"),
        ("assentd", "--man"),
        ("assent-notify", "--man"),
    ] {
        let output = run_bounded(our_command(binary).arg(flag).arg(dir.path()));
        assert!(
            output.status.success(),
            "{binary} {flag} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    dir
}

/// The page names in `dir`, as `name(section)`.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the pages' directory is readable")
        .map(|entry| entry.expect("a directory entry").file_name())
        .filter_map(|name| {
            let name = name.to_string_lossy().into_owned();
            let (page, section) = name.rsplit_once('.')?;
            Some(format!("{page}({section})"))
        })
        .collect();
    names.sort();
    names
}

/// The keys a policy table accepts, as the loader says them: it refuses an unknown key and
/// lists the ones it expects, so this cannot miss a key a change adds.
fn accepted_keys(table: &str, header: &str) -> Vec<String> {
    let text = format!("{header}\n__no_such_key__ = 1\n{table}");
    let error = match assentd::policy::parse(&text, "probe") {
        Err(error) => error.message,
        Ok(_) => panic!("an unknown key in {header:?} was taken"),
    };
    // "unknown field `x`, expected `a` or `b`" or "…, expected one of `a`, `b`, `c`".
    let expected = error
        .split_once("expected ")
        .map(|(_, keys)| keys)
        .unwrap_or_else(|| panic!("no list of keys in {error:?}"));
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn the_policy_page_names_every_key_the_loader_takes() {
    let page = std::fs::read_to_string(workspace().join("daemon/man/assent-policy.5"))
        .expect("the policy page is readable");
    // What a table needs besides the probe to parse up to it.
    let tables = [
        ("", ""),
        ("[[rule]]", "name = \"x\"\ndecision = \"deny\""),
        ("[confine]", ""),
        ("[confine.instead_of_holding]", ""),
        ("[levels]", ""),
        ("[levels.safe]", ""),
        ("[approval]", ""),
        ("[[program]]", "name = \"x\"\neffect = \"none\""),
        (
            "[[program]]\nname = \"x\"\n[program.subcommands.y]",
            "effect = \"none\"",
        ),
    ];
    let mut all = Vec::new();
    for (header, rest) in tables {
        let keys = accepted_keys(rest, header);
        assert!(keys.len() > 1, "{header}: {keys:?}");
        all.extend(keys);
    }
    for key in &all {
        assert!(
            page.contains(&format!(".B {key}"))
                || page.contains(&format!(".BR {key} "))
                || page.contains(&format!(".B [{key}]"))
                || page.contains(&format!(".B [[{key}]]")),
            "the policy page (daemon/man/assent-policy.5) does not describe the key {key}"
        );
    }
}

#[test]
fn man_pages_have_their_sections_and_fit_80_columns() {
    let dir = pages();
    let names = names(dir.path());
    for page in [
        "assent(1)",
        "assentd(8)",
        "assent-notify(1)",
        "assent-policy(5)",
    ] {
        assert!(names.contains(&page.to_string()), "{page} not in {names:?}");
    }
    let sections: [(&str, &[&str]); 4] = [
        (
            "assent.1",
            &[
                "EXIT STATUS",
                "ENVIRONMENT",
                "FILES",
                "EXAMPLES",
                "SEE ALSO",
            ],
        ),
        (
            "assentd.8",
            &["EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"],
        ),
        ("assent-notify.1", &["EXIT STATUS", "FILES", "SEE ALSO"]),
        (
            "assent-policy.5",
            &["RULES", "RELOADING", "EXAMPLES", "FILES", "SEE ALSO"],
        ),
    ];
    for (file, wanted) in sections {
        let page = std::fs::read_to_string(dir.path().join(file)).expect("the page is written");
        for section in wanted {
            assert!(
                page.contains(&format!(".SH \"{section}\""))
                    || page.contains(&format!(".SH {section}\n")),
                "{file} has no {section} section"
            );
        }
        // The help's free text (EXTRA) is the page's own sections now.
        assert!(
            !page.contains(".SH EXTRA"),
            "{file} has clap's EXTRA section"
        );
    }
    if !needs(&[MAN]) {
        return;
    }
    for entry in std::fs::read_dir(dir.path()).expect("the pages' directory is readable") {
        let path = entry.expect("a directory entry").path();
        let output = run_bounded(
            Command::new("man")
                .arg("--warnings")
                .arg("-l")
                .arg(&path)
                .env("MANWIDTH", "80")
                .env("MAN_KEEP_FORMATTING", "")
                .env_remove("MANPAGER")
                .env("PAGER", "cat"),
        );
        let shown = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "man -l {}", path.display());
        assert!(
            output.stderr.is_empty(),
            "man warns about {}: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        for line in shown.lines() {
            assert!(
                line.chars().count() <= 80,
                "{} has a line over 80 columns:\n{line}",
                path.display()
            );
        }
    }
}

#[test]
fn the_units_document_pages_that_are_built() {
    let dir = pages();
    let names = names(dir.path());
    let units = workspace().join("packaging/systemd");
    let mut files: Vec<PathBuf> = Vec::new();
    for folder in [units.clone(), units.join("user")] {
        for entry in std::fs::read_dir(&folder).expect("the units are readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 5, "{files:?}");
    for file in files {
        let body = std::fs::read_to_string(&file).expect("the unit is readable");
        let documentation: Vec<&str> = body
            .lines()
            .filter_map(|line| line.strip_prefix("Documentation="))
            .flat_map(str::split_whitespace)
            .collect();
        assert!(
            !documentation.is_empty(),
            "{} names no documentation",
            file.display()
        );
        for page in documentation {
            let page = page
                .strip_prefix("man:")
                .unwrap_or_else(|| panic!("{}: {page} is not a man page", file.display()));
            assert!(
                names.iter().any(|name| name == page),
                "{} names {page}, which is not built ({names:?})",
                file.display()
            );
        }
    }
}

/// `--help` of every binary and every subcommand of `assent`, at `COLUMNS=80` with no terminal.
#[test]
fn help_is_wrapped_to_the_terminal() {
    let mut helps = Vec::new();
    for binary in ["assentd", "assent-notify", "assent"] {
        helps.push((binary.to_string(), vec!["--help".to_string()]));
    }
    let top = run_bounded(our_command("assent").arg("--help").env("COLUMNS", "80"));
    let top = String::from_utf8_lossy(&top.stdout).into_owned();
    let subcommands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .expect("assent --help lists its commands")
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(subcommands.len() > 10, "{subcommands:?}");
    for sub in subcommands {
        helps.push(("assent".to_string(), vec![sub, "--help".to_string()]));
    }
    for (binary, args) in helps {
        let output = run_bounded(our_command(&binary).args(&args).env("COLUMNS", "80"));
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{binary} {args:?}: {text}");
        for line in text.lines() {
            assert!(
                line.chars().count() <= 100,
                "{binary} {args:?} has a line of {} characters at COLUMNS=80:\n{line}",
                line.chars().count()
            );
        }
    }
}

/// The README names findings that exist: a finding it quotes is one a rule can match
/// (`assentd --check-policy` warns on a pattern that matches nothing), and every TOML example
/// loads without a warning.
#[test]
fn the_readme_names_findings_that_exist() {
    let readme =
        std::fs::read_to_string(workspace().join("README.md")).expect("README.md is readable");
    let mut quoted = Vec::new();
    for marker in ["finding `", "finding ids (`", "findings (`"] {
        for (at, _) in readme.match_indices(marker) {
            let rest = &readme[at + marker.len()..];
            if let Some((id, _)) = rest.split_once('`') {
                quoted.push(id.to_string());
            }
        }
    }
    assert!(!quoted.is_empty(), "the README quotes no finding");
    for id in quoted {
        let policy = format!("[[rule]]\nname = \"probe\"\nfinding = {id:?}\ndecision = \"deny\"\n");
        let loaded = assentd::policy::parse(&policy, "README")
            .unwrap_or_else(|e| panic!("finding {id:?} from the README: {e}"));
        assert!(
            loaded.warnings.is_empty(),
            "the README names the finding {id:?}: {:?}",
            loaded.warnings
        );
    }
    let mut blocks = 0;
    for block in readme.split("```toml\n").skip(1) {
        // Policy examples (the others are agents' settings).
        let Some((toml, _)) = block.split_once("```") else {
            continue;
        };
        if !toml.contains("[[rule]]") && !toml.contains("decision") && !toml.contains("[[program]]")
        {
            continue;
        }
        blocks += 1;
        let loaded = assentd::policy::parse(toml, "README")
            .unwrap_or_else(|e| panic!("a README policy example does not load: {e}\n{toml}"));
        assert!(
            loaded.warnings.is_empty(),
            "a README policy example warns: {:?}\n{toml}",
            loaded.warnings
        );
    }
    assert!(blocks > 0, "the README has no policy example");
}
