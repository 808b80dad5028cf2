//! Agreement with peer tools' own test suites.
//!
//! Every scored record of `peer-cases/*.jsonl` (copied from the shared study; its README says
//! which records count) goes through the real pipeline, analysis then the embedded policy, as
//! an agent's request in `/home/user/project`. "block" must not be allowed; "allow" must be.
//! The report per file is printed (`cargo test --test peer_cases -- --nocapture`); the
//! thresholds for held `block` cases are asserted. Where we disagree with a peer on purpose,
//! `docs/peer-differences.md` says why. The commands it lists under "We allow what a peer
//! holds" are read from that file, reported apart, and left out of the block score: the
//! document is the one list, so a deliberate difference cannot be claimed without a reason.

use std::path::Path;

use assent_client::protocol::{Context, Decision, Origin, Subject};
use assentd::judge::judge;
use assentd::policy::Policy;
use serde::Deserialize;

const HOME: &str = "/home/user";
const CWD: &str = "/home/user/project";

#[derive(Debug, Deserialize)]
struct Record {
    command: String,
    expect: String,
    #[serde(default)]
    context: Option<serde_json::Value>,
    #[serde(default)]
    dcg_head: Option<String>,
}

struct Score {
    deliberate: Vec<String>,
    block_total: usize,
    block_held: usize,
    allow_total: usize,
    allow_allowed: usize,
    missed_blocks: Vec<String>,
    extra_holds: Vec<String>,
}

fn load(name: &str) -> Vec<Record> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peer-cases")
        .join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("the peer cases are in the repository");
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).expect("every peer case is valid JSON"))
        .collect()
}

/// Which records a default-configuration comparison scores, per the peer-cases README.
fn scored(file: &str, record: &Record) -> bool {
    match file {
        "destructive_command_guard" => record
            .dcg_head
            .as_deref()
            .is_none_or(|head| head == record.expect),
        "claude-code-safety-net" => record.context.is_none(),
        "codex" => {
            let check = record
                .context
                .as_ref()
                .and_then(|c| c.get("codex_check"))
                .and_then(|c| c.as_str())
                .unwrap_or("");
            (check.starts_with("dangerous_command_match") && record.expect == "block")
                || (check.starts_with("is_known_safe_command") && record.expect == "allow")
        }
        _ => false,
    }
}

fn cwd_of(record: &Record) -> String {
    record
        .context
        .as_ref()
        .and_then(|c| c.get("cwd"))
        .and_then(|c| c.as_str())
        .filter(|c| c.starts_with('/'))
        .unwrap_or(CWD)
        .to_string()
}

fn score(file: &str) -> Score {
    let policy = Policy::embedded();
    let deliberate = deliberate_allows();
    let mut score = Score {
        deliberate: Vec::new(),
        block_total: 0,
        block_held: 0,
        allow_total: 0,
        allow_allowed: 0,
        missed_blocks: Vec::new(),
        extra_holds: Vec::new(),
    };
    for record in load(file).iter().filter(|r| scored(file, r)) {
        let subject = Subject::Shell {
            command: record.command.clone(),
            cwd: cwd_of(record),
            truncated: false,
        };
        let judgement = judge(
            &policy,
            &subject,
            Origin::Agent,
            &Context::default(),
            Some(HOME),
        );
        let allowed = judgement.ruling.decision == Decision::Allow;
        if record.expect == "block" && allowed && deliberate.contains(&record.command) {
            score.deliberate.push(record.command.clone());
            continue;
        }
        if record.expect == "block" {
            score.block_total += 1;
            if allowed {
                score.missed_blocks.push(record.command.clone());
            } else {
                score.block_held += 1;
            }
        } else {
            score.allow_total += 1;
            if allowed {
                score.allow_allowed += 1;
            } else {
                let ids: Vec<&str> = judgement.analysis.findings.iter().map(|f| f.id).collect();
                score
                    .extra_holds
                    .push(format!("{:?}    [{}]", record.command, ids.join(", ")));
            }
        }
    }
    score
}

/// The commands `docs/peer-differences.md` lists under "We allow what a peer holds": lines
/// of the form ``- `"COMMAND"` — reason`` in that section, the command as a JSON string so
/// that multi-line commands (heredocs) fit on one line.
fn deliberate_allows() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/peer-differences.md");
    let text = std::fs::read_to_string(&path).expect("docs/peer-differences.md exists");
    let mut in_section = false;
    let mut commands = Vec::new();
    for line in text.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            in_section = heading.starts_with("We allow what a peer holds");
            continue;
        }
        if in_section
            && let Some(rest) = line.strip_prefix("- `")
            && let Some(end) = rest.rfind("` — ")
        {
            let command: String = serde_json::from_str(&rest[..end])
                .expect("a deliberate difference's command is a JSON string");
            commands.push(command);
        }
    }
    commands
}

fn share(part: usize, total: usize) -> f64 {
    if total == 0 {
        100.0
    } else {
        100.0 * part as f64 / total as f64
    }
}

fn report(file: &str, score: &Score) {
    println!(
        "{file}: block held {}/{} ({:.1}%), allow allowed {}/{} ({:.1}%), {} deliberate",
        score.block_held,
        score.block_total,
        share(score.block_held, score.block_total),
        score.allow_allowed,
        score.allow_total,
        share(score.allow_allowed, score.allow_total),
        score.deliberate.len(),
    );
    for command in &score.deliberate {
        println!("  deliberate:   {command:?}");
    }
    for command in &score.missed_blocks {
        println!("  MISSED block: {command:?}");
    }
    for command in &score.extra_holds {
        println!("  held allow:   {command}");
    }
}

fn check(file: &str, block_target: f64) {
    let score = score(file);
    report(file, &score);
    let held = share(score.block_held, score.block_total);
    assert!(
        held >= block_target,
        "{file}: {held:.1}% of block cases held, target {block_target}%"
    );
}

#[test]
fn claude_code_safety_net() {
    check("claude-code-safety-net", 99.0);
}

#[test]
fn codex() {
    check("codex", 99.0);
}

#[test]
fn destructive_command_guard() {
    check("destructive_command_guard", 95.0);
}

/// Every command the document claims as a deliberate difference is a peer's scored `block`
/// case, so a typo or a stale entry cannot quietly widen what is excused.
#[test]
fn every_deliberate_difference_is_a_peer_block_case() {
    let files = [
        "claude-code-safety-net",
        "codex",
        "destructive_command_guard",
    ];
    let blocks: Vec<String> = files
        .iter()
        .flat_map(|file| {
            load(file)
                .into_iter()
                .filter(|r| scored(file, r) && r.expect == "block")
                .map(|r| r.command)
        })
        .collect();
    let listed = deliberate_allows();
    assert!(
        !listed.is_empty(),
        "the document lists deliberate differences"
    );
    for command in listed {
        assert!(
            blocks.contains(&command),
            "docs/peer-differences.md lists {command:?}, which no peer scores as block"
        );
    }
}
