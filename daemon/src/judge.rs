//! One subject through the pipe: analyse it, then let the policy decide. Pure, no I/O, so a
//! check and an explain reach the same answer by construction.

use assent_client::protocol::{Confinement, Context, Origin, Subject};

use crate::analyse::{self, Analysis, Disk, Finding, Parsed};
use crate::policy::{Facts, Globs, Policy, Ruling, tools};

/// Findings past this many are summarised, so a reply always fits one packet.
pub const MAX_FINDINGS_ON_WIRE: usize = 64;
/// Simple commands past this many are left out of an explanation.
pub const MAX_COMMANDS_ON_WIRE: usize = 256;
/// Words of a shell line offered to rules' path globs, at most.
const MAX_PATH_WORDS: usize = 1024;

/// An analysis and the policy's ruling on it.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// What the analyser found.
    pub analysis: Analysis,
    /// The origin the policy decided for (tool calls are always automation).
    pub origin: Origin,
    /// What the policy decided.
    pub ruling: Ruling,
    /// What a door that runs the command confines it to (asked only by such doors).
    pub confine: Option<Confinement>,
}

/// Who is asking, as the kernel and the user database say.
#[derive(Debug, Clone, Copy, Default)]
pub struct Caller<'a> {
    /// The caller's uid.
    pub uid: Option<u32>,
    /// The caller's user name.
    pub user: Option<&'a str>,
    /// The caller's home directory, for `~`.
    pub home: Option<&'a str>,
    /// The project the subject's working directory lies in, as the daemon found it on the
    /// disk (`crate::project`); `None` where the home's rules apply.
    pub project: Option<&'a str>,
}

/// Analyse and decide. `home` is the requester's home directory, for `~`; the working
/// directory is taken for the project (as the case tables stand in one).
pub fn judge(
    policy: &Policy,
    subject: &Subject,
    origin: Origin,
    context: &Context,
    home: Option<&str>,
) -> Judgement {
    let cwd = match subject {
        Subject::Shell { cwd, .. } => Some(cwd.as_str()),
        Subject::Tool { cwd, .. } => cwd.as_deref(),
    };
    let caller = Caller {
        home,
        project: cwd,
        ..Caller::default()
    };
    judge_for(policy, subject, origin, context, &caller)
}

/// Analyse and decide for a known caller (uid and user name, for rules that name them).
pub fn judge_for(
    policy: &Policy,
    subject: &Subject,
    origin: Origin,
    context: &Context,
    caller: &Caller<'_>,
) -> Judgement {
    judge_read(policy, subject, origin, context, caller, &Seen::default())
}

/// What a request has seen in its earlier rounds of analysis.
#[derive(Default, Clone, Copy)]
pub struct Seen<'a> {
    /// What was read from the disk for the line, if anything was.
    pub disk: Option<&'a Disk>,
    /// The texts parsed before, kept for the next round.
    pub parsed: Option<&'a Parsed>,
}

/// [`judge_for`] with what was read from the disk for the line (`analyse::Disk`); the
/// analysis says what more it would like read in `analysis.wants`.
pub fn judge_read(
    policy: &Policy,
    subject: &Subject,
    origin: Origin,
    context: &Context,
    caller: &Caller<'_>,
    seen: &Seen<'_>,
) -> Judgement {
    match subject {
        Subject::Shell {
            command,
            cwd,
            truncated,
        } => {
            let ctx = analyse::Surroundings {
                cwd,
                home: caller.home,
                project: caller.project,
                truncated: *truncated,
            };
            let added = crate::places::Added {
                secret: policy
                    .settings
                    .sensitive_paths
                    .as_ref()
                    .map(Globs::patterns),
                protected: policy
                    .settings
                    .protected_paths
                    .as_ref()
                    .map(Globs::patterns),
                programs: Some(&policy.settings.programs).filter(|b| !b.is_empty()),
            };
            let analysis = match (seen.disk, seen.parsed) {
                (disk, Some(parsed)) => analyse::shell_parsed(command, &ctx, added, disk, parsed),
                (Some(disk), None) => analyse::shell_read(command, &ctx, added, disk),
                (None, None) => analyse::shell_in(command, &ctx, added),
            };
            let paths: Vec<String> = analysis
                .commands
                .iter()
                .flat_map(|c| c.argv.iter().skip(1))
                .take(MAX_PATH_WORDS)
                .cloned()
                .collect();
            let mut ruling = policy.rule_on(&Facts {
                level: analysis.level,
                findings: &analysis.findings,
                commands: &analysis.commands,
                paths: &paths,
                origin,
                context,
                uid: caller.uid,
                user: caller.user,
                cwd: Some(cwd),
                tool: None,
                args: None,
                home: caller.home,
                project: caller.project,
            });
            let mut confine = context
                .confines
                .then(|| crate::confine::confinement(&analysis, caller, policy, &added))
                .flatten();
            crate::confine::instead_of_holding(
                &mut ruling,
                &mut confine,
                &analysis,
                origin,
                policy,
            );
            Judgement {
                analysis,
                origin,
                ruling,
                confine,
            }
        }
        Subject::Tool {
            name,
            args_json,
            cwd,
        } => {
            // A tool call is automation whatever the caller claims.
            let origin = Origin::Tool;
            let tool = tools::classify(
                policy,
                name,
                args_json,
                cwd.as_deref(),
                caller.home,
                caller.project,
            );
            let ruling = policy.rule_on(&Facts {
                level: tool.analysis.level,
                findings: &tool.analysis.findings,
                commands: &tool.analysis.commands,
                paths: &tool.paths,
                origin,
                context,
                uid: caller.uid,
                user: caller.user,
                cwd: None,
                tool: Some(name),
                args: tool.args.as_ref(),
                home: caller.home,
                project: caller.project,
            });
            Judgement {
                analysis: tool.analysis,
                origin,
                ruling,
                confine: None,
            }
        }
    }
}

/// The findings as they go on the wire: the most severe first, at most
/// [`MAX_FINDINGS_ON_WIRE`], with a last one saying how many were left out.
pub fn wire_findings(findings: &[Finding]) -> Vec<assent_client::protocol::Finding> {
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by(|a, b| b.level.cmp(&a.level).then(a.span.start.cmp(&b.span.start)));
    let mut out: Vec<_> = sorted
        .iter()
        .take(MAX_FINDINGS_ON_WIRE)
        .map(|f| f.to_wire())
        .collect();
    if sorted.len() > MAX_FINDINGS_ON_WIRE {
        let rest = &sorted[MAX_FINDINGS_ON_WIRE..];
        out.push(assent_client::protocol::Finding {
            id: "more".into(),
            level: rest.iter().map(|f| f.level).max().unwrap_or_default(),
            message: format!("and {} more findings", rest.len()),
            span: Default::default(),
        });
    }
    out
}
