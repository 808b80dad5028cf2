//! The forms a path is matched in by a rule's `path` globs: as written, made absolute against
//! the working directory, normalised, and with the home directory written as `~`. Which
//! places are secret or protected is the vocabulary's business (`crate::places`), which a
//! policy's `sensitive_paths` and `protected_paths` add to. Pure, no I/O.

/// The forms a path is matched in: as written, made absolute against `cwd`, normalised, and
/// with the home directory written as `~` (so `~/…` globs match), de-duplicated.
pub fn forms(path: &str, cwd: Option<&str>, home: Option<&str>) -> Vec<String> {
    let mut out = vec![path.to_string()];
    let expanded = match (path.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => Some(format!("{}/{rest}", home.trim_end_matches('/'))),
        _ if path == "~" => home.map(str::to_string),
        _ => None,
    };
    let absolute = match (&expanded, cwd) {
        (Some(p), _) => Some(p.clone()),
        (None, _) if path.starts_with('/') => Some(path.to_string()),
        (None, Some(cwd)) if !path.starts_with('~') => {
            Some(format!("{}/{path}", cwd.trim_end_matches('/')))
        }
        _ => None,
    };
    if let Some(abs) = absolute {
        let abs = normalise(&abs);
        if let Some(home) = home.map(|h| h.trim_end_matches('/'))
            && !home.is_empty()
            && let Some(rest) = abs.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            out.push(format!("~{rest}"));
        }
        out.push(abs);
    }
    out.dedup();
    out
}

/// `.` and `..` removed, repeated slashes collapsed.
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_include_tilde_and_absolute() {
        let f = forms("notes/../.env", Some("/home/a/p"), Some("/home/a"));
        assert!(f.contains(&"/home/a/p/.env".to_string()), "{f:?}");
        assert!(f.contains(&"~/p/.env".to_string()), "{f:?}");
    }
}
