//! One subject through the pipe: analyse it, then let the policy decide. Pure, no I/O, so a
//! check and an explain reach the same answer by construction.

use assent_client::protocol::{Context, Level, Origin, Subject};

use crate::analyse::{self, Analysis, Finding};
use crate::policy::{Policy, Ruling};

/// Findings past this many are summarised, so a reply always fits one packet.
pub const MAX_FINDINGS_ON_WIRE: usize = 64;
/// Simple commands past this many are left out of an explanation.
pub const MAX_COMMANDS_ON_WIRE: usize = 256;

/// An analysis and the policy's ruling on it.
#[derive(Debug, Clone)]
pub struct Judgement {
    /// What the analyser found.
    pub analysis: Analysis,
    /// The origin the policy decided for (tool calls are always automation).
    pub origin: Origin,
    /// What the policy decided.
    pub ruling: Ruling,
}

/// Analyse and decide. `home` is the requester's home directory, for `~`.
pub fn judge(
    policy: &Policy,
    subject: &Subject,
    origin: Origin,
    context: &Context,
    home: Option<&str>,
) -> Judgement {
    let (analysis, origin) = match subject {
        Subject::Shell {
            command,
            cwd,
            truncated,
        } => {
            let ctx = analyse::Context {
                cwd,
                home,
                truncated: *truncated,
            };
            (analyse::shell(command, &ctx), origin)
        }
        // A tool call is automation whatever the caller claims.
        Subject::Tool { name, args_json } => (tool(name, args_json), Origin::Tool),
    };
    let ruling = policy.decide(analysis.level, &analysis.findings, origin, context);
    Judgement {
        analysis,
        origin,
        ruling,
    }
}

/// Tool calls before the risk registry exists: every tool is unknown, so every call is held
/// (fail closed), and arguments that are not JSON say so.
fn tool(name: &str, args_json: &str) -> Analysis {
    let end = args_json.len();
    let mut findings = vec![Finding {
        id: "tool.unknown",
        level: Level::Opaque,
        message: format!("`{name}` is not in the risk registry; unknown tools are held"),
        span: 0..end,
    }];
    if serde_json::from_str::<serde::de::IgnoredAny>(args_json).is_err() {
        findings.push(Finding {
            id: "tool.bad_args",
            level: Level::Opaque,
            message: "the tool's arguments are not valid JSON".into(),
            span: 0..end,
        });
    }
    Analysis {
        level: Level::Opaque,
        findings,
        commands: Vec::new(),
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
