//! What the kernel refused a confined run that failed, asked of the daemon (which read the
//! kernel audit's Landlock records for the domain this door made), and the line that says it
//! to the person and the agent: the place, in the vocabulary's words, and how to allow it.

use std::path::Path;

use crate::protocol::{Refusal, Refusals, RefusedRequest, Request, Response};

/// What the kernel refused the run of `request`'s line, asked of the daemon at `socket` (the
/// door's, as it was given), which read the kernel's records.
pub fn ask(socket: Option<&Path>, request: RefusedRequest) -> Result<Refusals, String> {
    let path = crate::paths::resolve_door_socket(socket).map_err(|e| e.to_string())?;
    let mut conn = crate::Connection::connect(&path).map_err(|e| e.to_string())?;
    let request = Request::Refused(request);
    match conn.request(&request) {
        Ok(Response::Refusals(refusals)) => Ok(refusals),
        Ok(_) => Err("the daemon gave another reply".into()),
        Err(error) => Err(error.to_string()),
    }
}

/// Marks the end of the run in the kernel's records: this process (the door, or the shell
/// that ran the line), in the run's domain, is refused a signal to its parent (signal 0, which delivers nothing), and the kernel logs
/// that after everything the run was refused, in order. The daemon, asked next, waits for this
/// record instead of for a silence long enough to be sure: a failed run (a `grep` that found
/// nothing) is answered at once instead of after the longest the records could take.
pub fn barrier() {
    let _ = nix::sys::signal::kill(nix::unistd::getppid(), None);
}

/// The line after a failed confined run: what was refused and how to allow it, or, when that
/// is not known, what the run could do; nothing when the kernel refused nothing (the run
/// failed for reasons of its own, as `grep` finding nothing does, and says so itself).
pub fn text(refusals: &Refusals, fallback: &str) -> Option<String> {
    if let Some(why) = &refusals.unknown {
        return Some(format!("{fallback} (what was refused is not known: {why})"));
    }
    if refusals.refused.is_empty() {
        return None;
    }
    let what: Vec<String> = refusals.refused.iter().map(refusal_words).collect();
    Some(format!(
        "ran confined, and the confinement refused {}; to let it, a person approves a line that names that place, or the policy adds it to [confine] writable",
        what.join("; ")
    ))
}

fn refusal_words(refusal: &Refusal) -> String {
    let verbs: Vec<&str> = refusal
        .access
        .split(',')
        .map(|access| match access {
            "fs.write_file" => "writing",
            "fs.truncate" => "truncating",
            "fs.read_file" => "reading",
            "fs.read_dir" => "listing",
            "fs.execute" => "running",
            "fs.make_reg" => "making a file in",
            "fs.make_dir" => "making a directory in",
            "fs.make_sym" => "making a link in",
            "fs.make_char" | "fs.make_block" | "fs.make_fifo" | "fs.make_sock" => {
                "making a special file in"
            }
            "fs.remove_file" => "removing a file from",
            "fs.remove_dir" => "removing a directory from",
            "fs.refer" => "moving or linking across",
            "fs.ioctl_dev" => "controlling the device",
            "net.connect_tcp" => "a TCP connection",
            "net.bind_tcp" => "listening on TCP",
            "scope.signal" => "a signal to",
            "scope.abstract_unix_socket" => "a socket outside the run",
            _ => "an access to",
        })
        .collect();
    let verb = verbs.join(" and ");
    match &refusal.path {
        Some(path) => format!(
            "{verb} {} ({})",
            crate::shown::one_line(path),
            refusal.place
        ),
        None => format!("{verb} ({})", refusal.place),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(access: &str, path: Option<&str>, place: &str) -> Refusal {
        Refusal {
            access: access.into(),
            path: path.map(str::to_owned),
            place: place.into(),
        }
    }

    #[test]
    fn the_line_names_what_was_refused_or_says_why_it_cannot() {
        let known = |refused| Refusals {
            unknown: None,
            refused,
        };
        for (refusals, says) in [
            (
                known(vec![refusal(
                    "fs.make_reg",
                    Some("/home/u/Documents"),
                    "your files outside the project",
                )]),
                "refused making a file in /home/u/Documents (your files outside the project); to let it",
            ),
            (
                known(vec![refusal(
                    "fs.write_file,fs.truncate",
                    Some("/etc/x\nforged"),
                    "a directory the system needs",
                )]),
                "refused writing and truncating /etc/x\\nforged (",
            ),
            (
                known(vec![refusal("net.connect_tcp", None, "the network")]),
                "refused a TCP connection (the network)",
            ),
            (
                Refusals {
                    unknown: Some("the kernel's audit is off".into()),
                    refused: Vec::new(),
                },
                "FALLBACK (what was refused is not known: the kernel's audit is off)",
            ),
        ] {
            let line = text(&refusals, "FALLBACK").expect("a line");
            assert!(line.contains(says), "{line}");
            assert!(!line.contains('\n'), "one line: {line}");
        }
        // Nothing refused: the run failed for its own reasons, and the door says nothing.
        assert_eq!(text(&known(Vec::new()), "FALLBACK"), None);
    }
}
