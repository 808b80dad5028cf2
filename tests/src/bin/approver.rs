//! `assent-test-approver`: a second process for the end-to-end tests.
//!
//! The daemon refuses an answer from the requester's own process or login session, so an
//! approval has to come from outside the test process; the tests start this one in a new
//! session (or, on purpose, in theirs). It speaks the protocol through the client library only,
//! so it does not depend on the `assent` CLI.
//!
//! ```text
//! assent-test-approver --socket PATH | --socket-file FILE [--uid N] COMMAND
//!   answer TOKEN allow|deny [LABEL]  one answer (scoped to session LABEL if given)
//!   race TOKEN                       two connections answer allow at the same moment
//!   answer-all COUNT TIMEOUT_MS      answer COUNT held requests as they appear: allow when the
//!                                    subject contains "allow", deny otherwise
//!   race-all TIMEOUT_MS              answer (allow) whatever is held as it appears, racing other
//!                                    approvers, until nothing has been held for a second after
//!                                    the first answer (or the timeout); print how many were
//!                                    answered here (others' answers are not_found, not counted)
//!   cancel TOKEN                     withdraw a request as this uid
//!   agent ANSWER REMEMBER EVENTS     register as an approval agent; answer every pushed request
//!                                    with ANSWER (allow, deny or none) remembered as REMEMBER
//!                                    (once, session, always or seconds); stop after EVENTS
//!                                    pushes. Prints `registered` (or the error kind), then one
//!                                    line per push: `held TOKEN PROGRAM SUBJECT` followed by
//!                                    the answer's `done`/error kind, or `withdrawn TOKEN
//!                                    allow|deny BY`.
//!   hold-open COUNT                  open COUNT connections and send a Status on each; print
//!                                    `open N refused M` (M answered limit_reached) and keep
//!                                    the open ones idle until killed
//!   hold COUNT PREFIX                hold COUNT agent requests `rm -rf PREFIX-I` (wait=false)
//!                                    as this uid; print `held N`
//!   prompt-self LINE CWD             ask as a person's terminal hook does (origin interactive),
//!                                    then answer the hold itself as the terminal prompt would,
//!                                    allow and always: what a program that passes for the
//!                                    person's shell tries. Prints `done` when the answer was
//!                                    taken, else the error kind (`self_approval`, …), or
//!                                    `not held` when the line was not held
//! ```
//! Each answer prints one line: `done`, or the error kind (`not_found`, `self_approval`, …).
//! `answer-all` prints how many it answered. Exit 0 when the daemon replied, 2 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use assent_client::Connection;
use assent_client::protocol::{ApproverHello, Remember, Request, Response};
use nix::sys::socket::{setsockopt, sockopt};
use nix::sys::time::{TimeVal, TimeValLike};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("assent-test-approver: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let mut args = args.into_iter().peekable();
    let mut socket = None;
    while let Some(flag) = args.next_if(|a| a.starts_with("--")) {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--socket" => socket = Some(PathBuf::from(value)),
            // The socket named in a file, as a program that found it would have it.
            "--socket-file" => {
                let text = std::fs::read_to_string(&value).map_err(|e| format!("{value}: {e}"))?;
                socket = Some(PathBuf::from(text.trim_end()));
            }
            "--uid" => become_uid(&value)?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    let socket = socket.ok_or("--socket is required")?;
    let command = args.next().ok_or("no command")?;
    let rest: Vec<String> = args.collect();
    let arg = |i: usize| {
        rest.get(i)
            .cloned()
            .ok_or(format!("{command}: missing argument"))
    };
    match command.as_str() {
        "answer" => {
            let allow = match arg(1)?.as_str() {
                "allow" => true,
                "deny" => false,
                other => return Err(format!("allow or deny, not {other}")),
            };
            let mut conn = connect(&socket)?;
            let request = Request::Answer {
                token: arg(0)?,
                allow,
                session: rest.get(2).cloned(),
                item: None,
                remember: Remember::Once,
            };
            println!("{}", outcome(conn.request(&request))?);
        }
        "race" => {
            let request = Request::Answer {
                token: arg(0)?,
                allow: true,
                session: None,
                item: None,
                remember: Remember::Once,
            };
            let mut first = connect(&socket)?;
            let mut second = connect(&socket)?;
            // Both packets are in the daemon's queues before either reply is read, so its
            // worker threads handle the two answers at the same time.
            first.send(&request).map_err(|e| e.to_string())?;
            second.send(&request).map_err(|e| e.to_string())?;
            println!("{}", outcome(reply(&mut first))?);
            println!("{}", outcome(reply(&mut second))?);
        }
        "answer-all" => {
            let count: usize = arg(0)?.parse().map_err(|e| format!("COUNT: {e}"))?;
            let timeout: u64 = arg(1)?.parse().map_err(|e| format!("TIMEOUT_MS: {e}"))?;
            let deadline = Instant::now() + Duration::from_millis(timeout);
            let mut conn = connect(&socket)?;
            let mut answered = 0;
            while answered < count && Instant::now() < deadline {
                let items = conn
                    .pending()
                    .map_err(|e| format!("listing pending: {e}"))?;
                if items.is_empty() {
                    std::thread::sleep(Duration::from_millis(20));
                }
                for item in items {
                    let request = Request::Answer {
                        token: item.token,
                        allow: item.subject.contains("allow"),
                        session: None,
                        item: None,
                        remember: Remember::Once,
                    };
                    let result = outcome(conn.request(&request))?;
                    if result == "done" {
                        answered += 1;
                    } else {
                        eprintln!("answer refused: {result}");
                    }
                }
            }
            println!("{answered}");
        }
        "race-all" => {
            let timeout: u64 = arg(0)?.parse().map_err(|e| format!("TIMEOUT_MS: {e}"))?;
            let deadline = Instant::now() + Duration::from_millis(timeout);
            let mut conn = connect(&socket)?;
            let (mut answered, mut seen, mut quiet) = (0, false, Instant::now());
            while Instant::now() < deadline {
                let items = conn
                    .pending()
                    .map_err(|e| format!("listing pending: {e}"))?;
                if items.is_empty() {
                    if seen && quiet.elapsed() > Duration::from_secs(1) {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                }
                (seen, quiet) = (true, Instant::now());
                for item in items {
                    let request = Request::Answer {
                        token: item.token,
                        allow: true,
                        session: None,
                        item: None,
                        remember: Remember::Once,
                    };
                    if outcome(conn.request(&request))? == "done" {
                        answered += 1;
                    }
                }
            }
            println!("{answered}");
        }
        "agent" => {
            let answer = match arg(0)?.as_str() {
                "allow" => Some(true),
                "deny" => Some(false),
                "none" => None,
                other => return Err(format!("allow, deny or none, not {other}")),
            };
            let remember = match arg(1)?.as_str() {
                "once" => Remember::Once,
                "session" => Remember::Session,
                "always" => Remember::Always,
                secs => Remember::For {
                    secs: secs.parse().map_err(|e| format!("REMEMBER: {e}"))?,
                },
            };
            let events: usize = arg(2)?.parse().map_err(|e| format!("EVENTS: {e}"))?;
            agent(&socket, answer, remember, events)?;
        }
        "cancel" => {
            let mut conn = connect(&socket)?;
            let request = Request::Cancel { token: arg(0)? };
            println!("{}", outcome(conn.request(&request))?);
        }
        "hold-open" => {
            let count: usize = arg(0)?.parse().map_err(|e| format!("COUNT: {e}"))?;
            raise_descriptor_limit();
            let mut open = Vec::new();
            let mut refused = 0;
            for _ in 0..count {
                let Ok(mut conn) = connect(&socket) else {
                    refused += 1;
                    continue;
                };
                match conn.request(&Request::Status) {
                    Ok(_) => open.push(conn),
                    Err(assent_client::Error::Refused(error))
                        if error.kind == assent_client::protocol::ErrorKind::LimitReached =>
                    {
                        refused += 1;
                    }
                    Err(error) => return Err(format!("status: {error}")),
                }
            }
            println!("open {} refused {refused}", open.len());
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        "hold" => {
            let count: usize = arg(0)?.parse().map_err(|e| format!("COUNT: {e}"))?;
            let prefix = arg(1)?;
            let mut conn = connect(&socket)?;
            let mut held = 0;
            for i in 0..count {
                let request = Request::Check(assent_client::protocol::CheckRequest {
                    subject: assent_client::protocol::Subject::Shell {
                        command: format!("rm -rf {prefix}-{i}"),
                        cwd: "/home/u/proj".into(),
                        truncated: false,
                    },
                    origin: assent_client::protocol::Origin::Agent,
                    context: assent_client::protocol::Context::default(),
                    wait: false,
                });
                if let Ok(Response::Verdict(v)) = conn.request(&request)
                    && v.token.is_some()
                {
                    held += 1;
                }
            }
            println!("held {held}");
        }
        "prompt-self" => {
            let mut conn = connect(&socket)?;
            let request = Request::Check(assent_client::protocol::CheckRequest {
                subject: assent_client::protocol::Subject::Shell {
                    command: arg(0)?,
                    cwd: arg(1)?,
                    truncated: false,
                },
                origin: assent_client::protocol::Origin::Interactive,
                context: assent_client::protocol::Context::default(),
                wait: true,
            });
            let token = match conn.request(&request) {
                Ok(Response::Verdict(v)) => v.token,
                other => return Err(format!("unexpected reply: {other:?}")),
            };
            let Some(token) = token else {
                println!("not held");
                return Ok(());
            };
            let answer = Request::Prompted {
                token,
                allow: true,
                remember: Remember::Always,
            };
            conn.send(&answer).map_err(|e| e.to_string())?;
            match reply(&mut conn) {
                Ok(Response::Decided(d)) if d.allow => println!("done"),
                Ok(Response::Decided(d)) => println!("decided {}", d.reason),
                Err(assent_client::Error::Refused(error)) => {
                    println!("{}: {}", error.kind.as_str(), error.message);
                }
                other => println!("{}", outcome(other)?),
            }
        }
        other => return Err(format!("unknown command {other}")),
    }
    Ok(())
}

/// The `agent` command: an approval agent that answers as told and reports what it sees.
fn agent(
    socket: &std::path::Path,
    answer: Option<bool>,
    remember: Remember,
    events: usize,
) -> Result<(), String> {
    use std::io::Write;
    let mut conn = connect(socket)?;
    let hello = Request::RegisterApprover(ApproverHello {
        name: "assent-test-approver".into(),
        buttons: None,
    });
    let registered = outcome(conn.request(&hello))?;
    println!("{registered}");
    if registered != "done" {
        return Ok(());
    }
    let _ = std::io::stdout().flush();
    // Requests pushed while an answer's reply is awaited wait here, and are answered in turn:
    // the log shows each `held` line followed by the outcome of its own answer.
    let mut queued = std::collections::VecDeque::new();
    let mut seen = 0;
    while seen < events || !queued.is_empty() {
        let push = match queued.pop_front() {
            Some(item) => Response::Held(item),
            None => {
                seen += 1;
                conn.recv()
                    .map_err(|e| format!("waiting for a push: {e}"))?
            }
        };
        match push {
            Response::Held(item) => {
                println!("held {} {} {}", item.token, item.program, item.subject);
                if let Some(allow) = answer {
                    conn.send(&Request::Answer {
                        token: item.token,
                        allow,
                        session: None,
                        item: None,
                        remember,
                    })
                    .map_err(|e| e.to_string())?;
                    loop {
                        match conn.recv() {
                            Ok(Response::Withdrawn(w)) => {
                                seen += 1;
                                print_withdrawn(&w);
                            }
                            Ok(Response::Held(other)) => {
                                seen += 1;
                                queued.push_back(other);
                            }
                            result => {
                                let result = result.and_then(|r| match r {
                                    Response::Error(e) => Err(assent_client::Error::Refused(e)),
                                    r => Ok(r),
                                });
                                println!("{}", outcome(result)?);
                                break;
                            }
                        }
                    }
                }
            }
            Response::Withdrawn(w) => print_withdrawn(&w),
            other => return Err(format!("unexpected push: {other:?}")),
        }
        let _ = std::io::stdout().flush();
    }
    Ok(())
}

fn print_withdrawn(w: &assent_client::protocol::Withdrawn) {
    let verb = if w.outcome.allow { "allow" } else { "deny" };
    println!("withdrawn {} {verb} {}", w.token, w.outcome.by.as_str());
}

fn connect(socket: &std::path::Path) -> Result<Connection, String> {
    let conn = Connection::connect(socket).map_err(|e| e.to_string())?;
    let tv = TimeVal::milliseconds(10_000);
    setsockopt(&conn, sockopt::ReceiveTimeout, &tv).map_err(|e| e.to_string())?;
    setsockopt(&conn, sockopt::SendTimeout, &tv).map_err(|e| e.to_string())?;
    Ok(conn)
}

fn reply(conn: &mut Connection) -> Result<Response, assent_client::Error> {
    match conn.recv()? {
        Response::Error(error) => Err(assent_client::Error::Refused(error)),
        response => Ok(response),
    }
}

/// `done`, an error kind's name, or an error for anything else.
fn outcome(result: Result<Response, assent_client::Error>) -> Result<String, String> {
    match result {
        Ok(Response::Done) => Ok("done".into()),
        Err(assent_client::Error::Refused(error)) => Ok(error.kind.as_str().into()),
        other => Err(format!("unexpected reply: {other:?}")),
    }
}

/// Drop every group and become `uid` (with the same gid), as root can.
/// Raise the soft descriptor limit to the hard one, to hold many connections.
fn raise_descriptor_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}

fn become_uid(uid: &str) -> Result<(), String> {
    let raw: u32 = uid.parse().map_err(|e| format!("--uid: {e}"))?;
    nix::unistd::setgroups(&[]).map_err(|e| format!("setgroups: {e}"))?;
    nix::unistd::setgid(nix::unistd::Gid::from_raw(raw)).map_err(|e| format!("setgid: {e}"))?;
    nix::unistd::setuid(nix::unistd::Uid::from_raw(raw)).map_err(|e| format!("setuid: {e}"))?;
    Ok(())
}
