//! Redirections that decide a statement's standard input: files, heredocs, here-strings,
//! and the grammar's quirks around them. Secret data a statement prints into a file is
//! remembered for the rest of the line (`env > /tmp/e`), and into `/dev/tcp` it is sent.

use std::rc::Rc;

use tree_sitter::Node;

use super::super::catalogue;
use super::super::flow;
use super::super::recurse::{self, Stdin};
use super::super::secrets;
use super::super::words::{self, text};
use super::super::{Source, State, field, join_path, kind};
use super::{Item, Stack, Step, is_leaf, item_like, named, pipeline, split_field};
use crate::places::{Piece, Secret};

/// A statement with redirections: they decide its standard input. The grammar hangs some
/// things on a heredoc that belong elsewhere: `cat <<EOF | sh` puts the rest of the pipeline
/// inside the heredoc, and `sh <<EOF -x` the words after it.
pub(super) fn redirected<'t>(item: Item<'t>, src: &Source, st: &mut State, stack: &mut Stack<'t>) {
    let (body, redirects) = split_field(item.node, "body");
    secrets_written(&body, &redirects, src, st);
    let all_redirects = redirects.clone();
    let env = st.env();
    let mut stdin = item.stdin.clone();
    let mut extra = Vec::new();
    let mut tail = Vec::new();
    let mut others = Vec::new();
    for r in redirects {
        match kind(r) {
            "file_redirect" => {
                if r.child(0).is_some_and(|c| kind(c) == "<") {
                    stdin = Stdin::File(read_secret(r, src, st));
                }
                // `git >/dev/null reset --hard`: the grammar takes `reset --hard` for more
                // targets; bash passes them to the command.
                let mut cursor = r.walk();
                extra.extend(r.children_by_field_name("destination", &mut cursor).skip(1));
                others.push(r);
            }
            "heredoc_redirect" => {
                let mut cursor = r.walk();
                if !cursor.goto_first_child() {
                    continue;
                }
                loop {
                    let c = cursor.node();
                    match (field(&cursor), kind(c)) {
                        (Some("argument"), _) => extra.push(c),
                        (_, "heredoc_body") => {
                            stdin = Stdin::Text {
                                text: text(c, &src.text).to_owned(),
                                base: Some(c.start_byte()),
                                span: c.byte_range(),
                                dynamic: false,
                                secret: heredoc_secret(c, src, &env),
                            };
                            others.push(c);
                        }
                        (_, "pipeline") => tail.extend(named(c)),
                        (_, kind) if c.is_named() && !is_leaf(kind) => others.push(c),
                        _ => {}
                    }
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                }
            }
            "herestring_redirect" => {
                if let Some(s) = here_string(r, src, &env) {
                    stdin = s;
                }
                others.push(r);
            }
            _ => others.push(r),
        }
    }
    texts_written(&body, &all_redirects, &stdin, src, st);
    for n in others.into_iter().rev() {
        stack.push(item_like(&item, n));
    }
    let has_tail = !tail.is_empty();
    if has_tail {
        // `cat <<EOF | psql`: the next stage reads the heredoc's text; what the first stage
        // makes of a secret it reads is a secret still.
        let printed = match (&stdin, body.as_slice()) {
            (
                Stdin::Text {
                    text,
                    dynamic: false,
                    ..
                },
                [b],
            ) if is_bare_cat(*b, src) && stdin.secret().is_none() => {
                Some(Rc::new(vec![vec![Piece::Lit(text.clone())]]))
            }
            _ => stdin
                .secret()
                .map(|secret| Rc::new(vec![vec![Piece::Secret(secret)]])),
        };
        let _ = pipeline(&item, tail, 1, Stdin::Pipe(printed), false, src, st, stack);
        stack.push(Step::Restore(st.shell.clone()));
    }
    for b in body.into_iter().rev() {
        let path = if has_tail {
            join_path(&item.path, "pipeline[0]")
        } else {
            Rc::clone(&item.path)
        };
        stack.push(Step::Visit(Item {
            node: b,
            path,
            depth: item.depth,
            stdin: stdin.clone(),
            extra: std::mem::take(&mut extra),
        }));
    }
}

/// `cat` or `cat -`, which prints its input as it is.
fn is_bare_cat(node: Node, src: &Source) -> bool {
    if kind(node) != "command" {
        return false;
    }
    let mut cursor = node.walk();
    let mut words = node
        .named_children(&mut cursor)
        .map(|c| text(c, &src.text).trim());
    words.next() == Some("cat") && words.all(|w| w == "-")
}

/// The text a here-string feeds.
pub(super) fn here_string(r: Node, src: &Source, env: &words::Env) -> Option<Stdin> {
    let word = r.named_child(0)?;
    let w = words::resolve(word, &src.text, env);
    let base = recurse::verbatim(&w.text, &w).filter(|_| !w.dynamic);
    Some(Stdin::Text {
        text: w.text.clone(),
        base,
        span: word.byte_range(),
        dynamic: w.dynamic,
        secret: secrets::in_word(&w),
    })
}

/// The secret an unquoted heredoc's expansions hold (`$TOKEN` in the body).
fn heredoc_secret(body: Node, src: &Source, env: &words::Env) -> Option<Secret> {
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .filter(|c| kind(*c) != "heredoc_content" && kind(*c) != "heredoc_end")
        .filter_map(|c| secrets::in_word(&words::resolve(c, &src.text, env)))
        .max()
}

/// The secret a `< FILE` redirection reads: a process substitution that prints one, a file
/// written with secret data on the line, a place the vocabulary calls secret.
fn read_secret(redirect: Node, src: &Source, st: &State) -> Option<Secret> {
    let dest = redirect.child_by_field_name("destination")?;
    let env = st.env();
    if kind(dest) == "process_substitution" {
        return flow::substitution(dest, &src.text, &env)
            .as_deref()
            .and_then(secrets::in_alts);
    }
    let w = words::resolve(dest, &src.text, &env);
    secrets::in_word(&w).max(st.secret_file(&w, false))
}

/// A statement that prints into files (`echo 'rm -rf ~' > /tmp/x.sh`): the files hold what it
/// prints, for a later `bash FILE`, `source FILE` or `BASH_ENV=FILE` on the line.
fn texts_written(body: &[Node], redirects: &[Node], stdin: &Stdin, src: &Source, st: &mut State) {
    let outputs: Vec<(Node, bool)> = redirects
        .iter()
        .copied()
        .filter(|r| kind(*r) == "file_redirect" && flow::writes_stdout(*r))
        .map(|r| {
            let append = (0..r.child_count())
                .filter_map(|i| r.child(i))
                .any(|c| matches!(kind(c), ">>" | "&>>"));
            (r, append)
        })
        .collect();
    if outputs.is_empty() {
        return;
    }
    let env = st.env();
    let printed: Option<String> = match body {
        // `cat > FILE <<EOF`: what cat prints is its input.
        [one] if is_bare_cat(*one, src) => match stdin {
            Stdin::Text {
                text,
                dynamic: false,
                ..
            } => Some(text.clone()),
            _ => None,
        },
        [one] => flow::output(*one, &src.text, &env).and_then(|alts| match alts.as_slice() {
            [alt] => alt
                .iter()
                .map(|p| match p {
                    Piece::Lit(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect::<Option<String>>(),
            _ => None,
        }),
        _ => None,
    };
    for (r, append) in outputs {
        let Some(dest) = r.child_by_field_name("destination") else {
            continue;
        };
        let w = words::resolve(dest, &src.text, &st.env());
        st.remember_written(&w, printed.as_deref(), append);
    }
}

/// A statement that prints secret data into files: they hold it for the rest of the line;
/// into `/dev/tcp/HOST/PORT` or `/dev/udp/…`, bash sends it.
fn secrets_written(body: &[Node], redirects: &[Node], src: &Source, st: &mut State) {
    let outputs: Vec<Node> = redirects
        .iter()
        .copied()
        .filter(|r| kind(*r) == "file_redirect" && flow::writes_stdout(*r))
        .collect();
    if outputs.is_empty() {
        return;
    }
    let env = st.env();
    let Some(secret) = body
        .iter()
        .filter_map(|b| flow::output(*b, &src.text, &env))
        .filter_map(|alts| secrets::in_alts(&alts))
        .max()
    else {
        return;
    };
    for r in outputs {
        let Some(dest) = r.child_by_field_name("destination") else {
            continue;
        };
        let w = words::resolve(dest, &src.text, &st.env());
        if w.text.starts_with("/dev/tcp/") || w.text.starts_with("/dev/udp/") {
            let what = match secret {
                Secret::Dump => "secret data",
                Secret::Credential | Secret::Sourced => "a credential",
            };
            let detail = format!("the redirection to {} sends {what}", w.quoted());
            st.add(catalogue::SECRET_SENT.at(src.map.span(r.byte_range()), &detail));
        } else {
            st.remember_secret(&w, secret);
        }
    }
}
