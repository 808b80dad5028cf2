//! The confinement a verdict carries to a door that runs the command (`assent run`, `assent
//! sh`): the Landlock domain derived from what the line was judged to do. Writes only where
//! the line was judged to change things, in the project, build output, temp and the caches of
//! the programs it runs (and, for a line that installs software, where a user's package
//! managers install); no reads of the secret places; TCP cut for a line judged to send
//! nothing; no signals to processes outside the run.
//!
//! It also says when a held line may run confined instead (`[confine] instead_of_holding`):
//! only a line the level table held, never one a rule held, and only when the kernel can
//! confine it. Pure, but for the kernel's ABI, asked once.

use assent_client::protocol::{Confinement, Decision, Origin};

use crate::analyse::Analysis;
use crate::judge::Caller;
use crate::landlock;
use crate::places::{Added, Kind, confine as places};
use crate::policy::{Policy, Ruling};

/// Programs that never use the network themselves: a line of only these (and shell
/// builtins) is judged to send nothing, and runs with TCP cut.
const LOCAL: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "jq",
    "yq",
    "find",
    "fd",
    "echo",
    "printf",
    "mkdir",
    "rmdir",
    "rm",
    "cp",
    "mv",
    "ln",
    "touch",
    "chmod",
    "stat",
    "du",
    "df",
    "diff",
    "cmp",
    "file",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "test",
    "[",
    "true",
    "false",
    "pwd",
    "date",
    "tee",
    "tree",
    "less",
    "more",
    "nl",
    "paste",
    "join",
    "comm",
    "column",
    "fold",
    "fmt",
    "rev",
    "tac",
    "od",
    "xxd",
    "hexdump",
    "base64",
    "sha256sum",
    "sha1sum",
    "md5sum",
    "b2sum",
    "cksum",
    "gzip",
    "gunzip",
    "zcat",
    "xz",
    "unxz",
    "bzip2",
    "zstd",
    "tar",
    "unzip",
    "zip",
    "sleep",
    "seq",
    "yes",
    "whoami",
    "id",
    "uname",
    "hostname",
    "env",
    "printenv",
    "which",
    "type",
    "command",
    "cd",
    "export",
    "set",
    "unset",
    "local",
    "read",
    "shift",
    "exit",
    "return",
    "source",
    ".",
    "wait",
    "jobs",
    ":",
];

/// What a door that runs `analysis`'s line must confine it to, for `caller` (its home, and the
/// project the line was judged in, which the run may change); `None` when it is not to be confined (confinement off, or no Landlock). A line that
/// runs a set-user-id program (`sudo`, `su`) is confined like any other: the kernel refuses to
/// raise privileges inside the domain, so that part fails, closed; the person runs it.
pub fn confinement(
    analysis: &Analysis,
    caller: &Caller,
    policy: &Policy,
    added: &Added,
) -> Option<Confinement> {
    let home = caller.home;
    let settings = &policy.settings.confine;
    if !settings.enabled || !landlock::confines() {
        return None;
    }
    let changes = &analysis.changes;
    let mut write = places::scratch(home);
    for dir in &settings.writable {
        match (dir.strip_prefix("~/"), home) {
            (Some(below), Some(home)) => {
                write.push(format!("{}/{below}", home.trim_end_matches('/')));
            }
            (Some(_), None) => {}
            (None, _) => write.push(dir.clone()),
        }
    }
    if changes.packages
        && let Some(home) = home
    {
        write.extend(places::package_dirs(home));
    }
    write.extend(changes.paths.iter().cloned());
    write.sort();
    write.dedup();
    Some(Confinement {
        write,
        project: caller.project.map(str::to_owned),
        write_within: changes.within.clone(),
        write_anywhere: changes.anywhere,
        hide: home.map(|h| places::hidden(h, added)).unwrap_or_default(),
        home: home.map(str::to_owned),
        offline: sends_nothing(analysis),
        required: false,
        log_denials: crate::denials::reading(),
    })
}

/// A line the level table held that a door can run confined instead: the ruling becomes an
/// allow that must be confined. A rule's hold, observe mode and a line the kernel cannot
/// confine stay held, and so does a line the gate could not read itself (it did not parse, or
/// its parse ran out of the line's time, or it was cut or nested too deep): confinement stands
/// in for reading what a line *runs*, not the line, which could be anything, `rm -rf ~` in the
/// project included (and a daemon made slow enough runs out of parse time).
pub fn instead_of_holding(
    ruling: &mut Ruling,
    confinement: &mut Option<Confinement>,
    analysis: &Analysis,
    origin: Origin,
    policy: &Policy,
) {
    let Some(confine) = confinement.as_mut() else {
        return;
    };
    if ruling.decision != Decision::Confirm
        || ruling.rule.is_some()
        || ruling.observed.is_some()
        || analysis.unread()
        || !policy
            .settings
            .confine
            .instead_of_holding(analysis.level, origin)
    {
        return;
    }
    confine.required = true;
    ruling.decision = Decision::Allow;
    ruling.reason = format!(
        "{}; run confined instead: it may change only the project, temp and caches, and read no secret files",
        ruling.reason
    );
}

/// Every command is one that never uses the network, and nothing found sends, publishes or
/// reaches a remote place, or could not be read.
fn sends_nothing(analysis: &Analysis) -> bool {
    use crate::analyse::effects::Effect;
    let local = analysis
        .commands
        .iter()
        .all(|c| c.argv.first().is_some_and(|p| LOCAL.contains(&base(p))));
    let quiet = analysis.findings.iter().all(|f| match f.cell {
        None => false,
        Some((effect, kind)) => {
            !matches!(effect, Effect::Send | Effect::Publish) && kind != Kind::Remote
        }
    });
    local && quiet && !analysis.commands.is_empty()
}

fn base(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{self, Surroundings};
    use crate::policy::Policy;

    fn confined(line: &str) -> Option<Confinement> {
        let policy = Policy::embedded();
        let ctx = Surroundings {
            cwd: "/work/p",
            home: Some("/home/u"),
            project: Some("/work/p"),
            truncated: false,
        };
        let analysis = analyse::shell(line, &ctx);
        let caller = Caller {
            home: Some("/home/u"),
            project: Some("/work/p"),
            ..Caller::default()
        };
        confinement(&analysis, &caller, &policy, &Added::default())
    }

    #[test]
    fn a_line_the_gate_could_not_read_itself_is_held_not_run_confined() {
        if !landlock::confines() {
            return;
        }
        let policy = Policy::embedded();
        let context = assent_client::protocol::Context {
            confines: true,
            ..Default::default()
        };
        let judged = |line: &str| {
            let subject = assent_client::protocol::Subject::shell(line, "/work/p".to_owned());
            crate::judge::judge(&policy, &subject, Origin::Agent, &context, Some("/home/u"))
        };
        // What the gate cannot read runs confined instead of being held…
        let opaque = judged("eval \"$(cat cmd.txt)\"");
        assert!(!opaque.analysis.unread(), "{:?}", opaque.analysis);
        assert_eq!(
            opaque.ruling.decision,
            Decision::Allow,
            "{:?}",
            opaque.ruling
        );
        assert!(opaque.confine.as_ref().is_some_and(|c| c.required));
        // …but a line that does not parse could say anything (a daemon slowed down enough runs
        // out of parse time the same way): held.
        let unparsed = judged("eval \"$(cat cmd.txt)\"; if ( then fi");
        assert!(unparsed.analysis.unread(), "{:?}", unparsed.analysis);
        assert_eq!(
            unparsed.ruling.decision,
            Decision::Confirm,
            "{:?}",
            unparsed.ruling
        );
    }

    #[test]
    fn a_line_is_confined_to_what_it_was_judged_to_change() {
        if !landlock::confines() {
            return;
        }
        let c = confined("rm -rf /home/u/Documents/old build/*.o").expect("confined");
        assert!(
            c.write.contains(&"/home/u/Documents/old".to_owned()),
            "{c:?}"
        );
        assert!(
            c.write_within.contains(&"/work/p/build".to_owned()),
            "{c:?}"
        );
        assert!(c.write.contains(&"/tmp".to_owned()), "{c:?}");
        assert!(
            c.write.contains(&"/home/u/.cargo/registry".to_owned()),
            "{c:?}"
        );
        assert!(!c.write.iter().any(|w| w == "/home/u"), "{c:?}");
        assert!(c.hide.contains(&"/home/u/.ssh".to_owned()), "{c:?}");
        assert!(c.offline && !c.write_anywhere);
        assert_eq!(
            c.project.as_deref(),
            Some("/work/p"),
            "the project the line was judged in"
        );
    }

    #[test]
    fn what_could_send_keeps_the_network_and_what_raises_privileges_is_confined_too() {
        if !landlock::confines() {
            return;
        }
        for (line, offline) in [
            ("ls -la", true),
            ("grep -r foo . | sort", true),
            ("cargo build", false),
            ("python3 tool.py", false),
            ("curl https://example.com", false),
            ("git push", false),
        ] {
            let c = confined(line).expect("confined");
            assert_eq!(c.offline, offline, "{line}");
        }
        // Set-user-id programs fail inside the domain; the rest of the line stays confined.
        assert!(confined("mount >/dev/null; bash probe.sh").is_some());
        assert!(confined("make && sudo make install").is_some());
        assert!(confined("cd $(mktemp -d) && rm -rf x").is_some_and(|c| c.write_anywhere));
    }
}
