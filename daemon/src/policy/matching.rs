//! Whether a rule matches a request: every condition it sets must hold (a command by its
//! leading words, globs over tools, findings, paths, the working directory and the session,
//! uids, users, origins and tool arguments).

use assent_client::protocol::{Decision, Level};

use super::{ArgTest, Facts, Rule, paths};
use crate::analyse::{Finding, SimpleCommand};
use crate::places::{self, Where};

/// Whether `rule` applies: every condition it sets holds for `facts`. `table` is the level table's decision for a level and this
/// request's origin: a rule that would lower a decision must name every finding that needs
/// more than it gives (`finding = "change.gate"` allowing `assent approve` says nothing about
/// an `rm -rf ~` beside it on the line); with `command`, each such finding must be about a
/// command it names, and with `path`, about the paths it names.
pub(super) fn matches(rule: &Rule, facts: &Facts<'_>, table: impl Fn(Level) -> Decision) -> bool {
    if !rule.origin.is_empty() && !rule.origin.contains(&facts.origin) {
        return false;
    }
    if (!rule.uid.is_empty() || !rule.user.is_empty())
        && !facts.uid.is_some_and(|uid| rule.uid.contains(&uid))
        && !facts
            .user
            .is_some_and(|user| rule.user.iter().any(|u| u == user))
    {
        return false;
    }
    if let Some(tool) = &rule.tool
        && !facts.tool.is_some_and(|name| tool.is_match(name))
    {
        return false;
    }
    if let Some(session) = &rule.session
        && !facts
            .context
            .session
            .as_deref()
            .is_some_and(|s| session.is_match(s))
    {
        return false;
    }
    if let Some(cwd) = &rule.cwd
        && !facts.cwd.is_some_and(|c| cwd.is_match(c))
    {
        return false;
    }
    if let Some(finding) = &rule.finding {
        let named = |f: &&Finding| finding.is_match(f.id);
        if !facts.findings.iter().any(|f| named(&f)) {
            return false;
        }
        if facts
            .findings
            .iter()
            .any(|f| table(f.level) > rule.decision && !named(&f))
        {
            return false;
        }
    }
    if !rule.command.is_empty() {
        let named = |c: &SimpleCommand| {
            rule.command
                .iter()
                .any(|prefix| starts_with(&c.argv, prefix))
        };
        if !facts.commands.iter().any(named) {
            return false;
        }
        // A rule that lowers a decision speaks for the commands it names: every finding that
        // needs more than it gives must be one of theirs (`git push && rm -rf ~`, `git push
        // "$(rm -rf ~)"`: the `rm` is its own command, not the push's).
        if facts
            .findings
            .iter()
            .any(|f| table(f.level) > rule.decision && !owner(facts.commands, f).is_some_and(named))
        {
            return false;
        }
    }
    if let Some(path) = &rule.path {
        let named = |p: &str| {
            paths::forms(p, facts.cwd, facts.home)
                .iter()
                .any(|f| path.is_match(f))
        };
        if !facts.paths.iter().any(|p| named(p)) {
            return false;
        }
        // A rule that lowers a decision speaks for the paths it names: every finding that needs
        // more than it gives must be about them. In a tool call, every path argument is one;
        // in a shell line, the finding's command has words in the finding's place, and all of
        // them are (`cp ~/.ssh/id_rsa /srv/www/`: the secret read is not about `/srv/www`).
        let about_named = |f: &Finding| {
            if facts.tool.is_some() {
                return !facts.paths.is_empty() && facts.paths.iter().all(|p| named(p));
            }
            let (Some((_, kind)), Some(command)) = (f.cell, owner(facts.commands, f)) else {
                return false;
            };
            let at = Where::at(facts.cwd, facts.home, facts.project);
            let mut words = command
                .argv
                .iter()
                .skip(1)
                .filter(|w| !w.starts_with('-'))
                .filter(|w| places::classify_text(w, true, &at, facts.home).has(kind))
                .peekable();
            words.peek().is_some() && words.all(|w| named(w))
        };
        if facts
            .findings
            .iter()
            .any(|f| table(f.level) > rule.decision && !about_named(f))
        {
            return false;
        }
    }
    rule.args.iter().all(|(key, test)| {
        let Some(value) = facts.args.and_then(|a| a.get(key)) else {
            return false;
        };
        match test {
            ArgTest::Equals(want) => value == want,
            ArgTest::Contains(text) => value.as_str().is_some_and(|v| v.contains(text.as_str())),
        }
    })
}

/// The command a finding is about: the innermost one whose text holds the finding's.
fn owner<'c>(commands: &'c [SimpleCommand], finding: &Finding) -> Option<&'c SimpleCommand> {
    commands
        .iter()
        .filter(|c| c.span.start <= finding.span.start && finding.span.end <= c.span.end)
        .min_by_key(|c| c.span.len())
}

/// Whether `argv` starts with `prefix`, comparing the program by its file name
/// (`/usr/bin/git push` starts with `git push`).
fn starts_with(argv: &[String], prefix: &[String]) -> bool {
    if argv.len() < prefix.len() || prefix.is_empty() {
        return false;
    }
    let program = argv[0].rsplit('/').next().unwrap_or(&argv[0]);
    program == prefix[0] && argv[1..prefix.len()] == prefix[1..]
}
