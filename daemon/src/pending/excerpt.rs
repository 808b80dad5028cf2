//! A long command listed for approvers: cut to fit, but never so that what makes it dangerous
//! is cut off.
//!
//! A listing carries at most a few KiB of a command, so that one held request always fits a
//! packet. Cutting the tail would let an agent put `rm -rf ~` after the cut behind a harmless
//! head: the person would be shown the head only. So the cut keeps, after the head, the text
//! around every destructive (or worse) finding's span, with `…` where text was left out, and
//! moves each finding's span to where its text now is (an empty span when its text did not
//! fit), so an approver can show the text around it.

use assent_client::protocol::{Finding, Level, Span};

/// Bytes kept on each side of a dangerous span's start and end.
const CONTEXT: usize = 100;
/// The least of the command's head kept, whatever the windows take.
const MIN_HEAD: usize = 256;
/// What marks text left out.
const GAP: &str = "…";

fn floor(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Cut `subject` to about `max` bytes (see the module documentation), moving `findings`' spans
/// with their text. A subject that fits is left as it is.
pub(super) fn cut(subject: &mut String, findings: &mut [Finding], max: usize) {
    if subject.len() <= max {
        return;
    }
    let text = subject.as_str();
    let mut windows: Vec<(usize, usize)> = Vec::new();
    for finding in findings.iter().filter(|f| f.level >= Level::Destructive) {
        let (start, end) = (finding.span.start as usize, finding.span.end as usize);
        if start >= end || end > text.len() {
            continue;
        }
        for at in [start, end] {
            windows.push((
                floor(text, at.saturating_sub(CONTEXT)),
                ceil(text, at + CONTEXT),
            ));
        }
    }
    windows.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in windows {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    // The windows first, as many as fit after the least head; the head takes what is left.
    let mut budget = max.saturating_sub(MIN_HEAD);
    let mut kept = Vec::new();
    for (start, end) in merged {
        let cost = end - start + 2 * GAP.len();
        if cost > budget {
            break;
        }
        budget -= cost;
        kept.push((start, end));
    }
    let head_end = floor(text, MIN_HEAD + budget);
    // Segments of the old text, in order, each with where it starts in the new one.
    let mut segments: Vec<(usize, usize)> = vec![(0, head_end)];
    for (start, end) in kept {
        let start = start.max(head_end);
        if let Some(last) = segments.last_mut()
            && start <= last.1
        {
            last.1 = last.1.max(end);
        } else if start < end {
            segments.push((start, end));
        }
    }
    let mut out = String::with_capacity(max + 2 * GAP.len());
    let mut placed: Vec<(usize, usize, usize)> = Vec::new();
    let mut at = 0;
    for (start, end) in segments {
        if start > at {
            out.push_str(GAP);
        }
        placed.push((start, end, out.len()));
        out.push_str(&text[start..end]);
        at = end;
    }
    if at < text.len() {
        out.push_str(GAP);
    }
    for finding in findings.iter_mut() {
        let (start, end) = (finding.span.start as usize, finding.span.end as usize);
        let moved = placed
            .iter()
            .find(|(s, e, _)| *s <= start && start <= end && end <= *e)
            .and_then(|(s, _, new)| {
                let start = u32::try_from(new + (start - s)).ok()?;
                let end = u32::try_from(new + (end - s)).ok()?;
                Some(Span { start, end })
            });
        finding.span = moved.unwrap_or_default();
    }
    *subject = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(level: Level, text: &str, what: &str) -> Finding {
        let start = text.find(what).expect("in the text");
        Finding {
            id: "t".into(),
            level,
            message: String::new(),
            span: Span {
                start: u32::try_from(start).expect("small"),
                end: u32::try_from(start + what.len()).expect("small"),
            },
        }
    }

    fn at(subject: &str, finding: &Finding) -> String {
        subject[finding.span.start as usize..finding.span.end as usize].to_string()
    }

    #[test]
    fn what_fits_is_left_as_it_is() {
        let mut subject = "rm -rf build".to_string();
        let mut findings = vec![finding(Level::Destructive, &subject, "rm -rf build")];
        cut(&mut subject, &mut findings, 4096);
        assert_eq!(subject, "rm -rf build");
        assert_eq!(at(&subject, &findings[0]), "rm -rf build");
    }

    /// The attack: a harmless head longer than the cut, `rm -rf ~` after it.
    #[test]
    fn a_dangerous_tail_past_the_cut_is_kept_and_its_span_moved() {
        let original = format!(
            "echo {} ; rm -rf ~ ; echo {} ; ls tail",
            "é".repeat(3000),
            "b".repeat(2000)
        );
        let mut subject = original.clone();
        let mut findings = vec![
            finding(Level::Destructive, &original, "rm -rf ~"),
            finding(Level::Moderate, &original, "ls tail"),
        ];
        cut(&mut subject, &mut findings, 4096);
        assert!(subject.len() <= 4096 + 2 * GAP.len(), "{}", subject.len());
        assert!(subject.starts_with("echo éé"), "{subject}");
        assert!(subject.contains("é ; rm -rf ~ ; echo bbb"), "{subject}");
        assert_eq!(subject.matches(GAP).count(), 2, "{subject}");
        assert_eq!(at(&subject, &findings[0]), "rm -rf ~");
        assert!(subject.ends_with(GAP), "{subject}");
        // A finding whose text was cut gets an empty span, not a wrong one.
        assert_eq!(findings[1].span, Span::default());
    }

    #[test]
    fn without_a_dangerous_finding_the_head_is_kept() {
        let original = "x".repeat(10_000);
        let mut subject = original.clone();
        let mut findings = vec![Finding {
            id: "bad".into(),
            level: Level::Forbidden,
            message: String::new(),
            span: Span {
                start: 20_000,
                end: 20_001,
            },
        }];
        cut(&mut subject, &mut findings, 4096);
        assert_eq!(subject, format!("{}{GAP}", "x".repeat(4096)));
        assert_eq!(findings[0].span, Span::default());
    }

    #[test]
    fn many_dangerous_spans_never_overflow_the_cut() {
        let original = (0..400)
            .map(|n| format!("rm -rf /srv/{n:04} ; echo {} ;", "p".repeat(300)))
            .collect::<String>();
        let mut subject = original.clone();
        let mut findings: Vec<Finding> = (0..400)
            .map(|n| {
                finding(
                    Level::Destructive,
                    &original,
                    &format!("rm -rf /srv/{n:04}"),
                )
            })
            .collect();
        cut(&mut subject, &mut findings, 4096);
        assert!(subject.len() <= 4096 + 2 * GAP.len(), "{}", subject.len());
        for f in findings.iter().filter(|f| f.span != Span::default()) {
            assert!(at(&subject, f).starts_with("rm -rf /srv/"), "{f:?}");
        }
    }
}
