//! What `docker compose up|run|start|create|restart` (and `docker-compose`, `podman-compose`)
//! starts from the project's compose file: each service, as the `docker run` line that would
//! start a container like it (its image, the host paths it mounts, `privileged`, the host's
//! process and network namespaces, the capabilities it adds, its entrypoint and command), so
//! the container judge places what the service is given (`volumes: ["/:/host"]` and `command:
//! rm -rf /host/root` delete the home, as `docker run -v /:/host … rm -rf /host/root` does).
//!
//! The file is read with a small reader of the YAML compose files are written in: block
//! mappings and lists, flow lists (`["sh", "-c", "…"]`), quoted and plain scalars, folded and
//! literal blocks. What it does not follow (anchors and merge keys, `extends`, a service it
//! cannot read) makes the file opaque: a service could be given anything there.

use std::ops::Range;
use std::rc::Rc;

use super::{in_dir, queue_text, text_of};
use crate::analyse::State;
use crate::analyse::catalogue;
use crate::analyse::recurse::Ctx;

/// The files compose reads when none is named, in the order it looks for them.
const DEFAULTS: &[&str] = &[
    "compose.yaml",
    "compose.yml",
    "docker-compose.yaml",
    "docker-compose.yml",
];

/// Services read per file; past this the file is opaque.
const MAX_SERVICES: usize = 64;

/// One service's settings that decide what its container may reach.
#[derive(Default, Debug, PartialEq)]
struct Service {
    name: String,
    image: Option<String>,
    privileged: bool,
    pid_host: bool,
    network_host: bool,
    caps: Vec<String>,
    /// Host paths mounted (`SOURCE:TARGET[:MODE]`, or a long-syntax `source`), with the target.
    mounts: Vec<(String, String)>,
    entrypoint: Vec<String>,
    command: Vec<String>,
    /// `command: STRING` (split as compose splits it, by shell words).
    command_text: Option<String>,
    entrypoint_text: Option<String>,
}

/// `words` are what follows the program (`compose up -d`, or `up -d` for `docker-compose`).
pub fn services(words: &[&str], span: Range<usize>, path: &Rc<str>, at: &Ctx, st: &mut State) {
    let mut files = Vec::new();
    let mut dir = None;
    let mut verb = None;
    let mut i = 0;
    while let Some(w) = words.get(i) {
        match *w {
            "compose" if verb.is_none() => {}
            "-f" | "--file" => {
                files.extend(words.get(i + 1).copied());
                i += 1;
            }
            "--project-directory" => {
                dir = words.get(i + 1).copied();
                i += 1;
            }
            "-p" | "--project-name" | "--env-file" | "--profile" | "--ansi" | "--progress"
            | "--parallel" => i += 1,
            w if w.starts_with("--file=") => files.extend(w.split_once('=').map(|p| p.1)),
            w if w.starts_with("--project-directory=") => dir = w.split_once('=').map(|p| p.1),
            w if w.starts_with('-') => {}
            w => {
                verb = Some(w);
                break;
            }
        }
        i += 1;
    }
    if !matches!(
        verb,
        Some("up" | "run" | "start" | "create" | "restart" | "watch")
    ) {
        return;
    }
    let named: Vec<String> = if files.is_empty() {
        DEFAULTS
            .iter()
            .filter_map(|name| in_dir(st, dir, name).map(|f| ((*name).to_owned(), f)))
            .find(|(_, f)| matches!(st.disk_file(f), super::Read::Text(_)))
            .map(|(name, _)| vec![name])
            .unwrap_or_default()
    } else {
        files.iter().map(|f| (*f).to_owned()).collect()
    };
    for name in named {
        let Some(file) = in_dir(st, dir, &name) else {
            continue;
        };
        let Some(text) = text_of(&file, &name, &span, st) else {
            continue;
        };
        match read(&text) {
            Ok(found) => {
                for service in found {
                    let shown = format!("{name} services.{}", service.name);
                    queue_text(&run_line(&service), &shown, &span, path, at, st);
                }
            }
            Err(why) => {
                let what = format!("`{name}` ({why})");
                st.add(catalogue::CODE_UNREAD.at(span.clone(), &what));
            }
        }
    }
}

/// The `docker run` line that starts a container as `service` says.
fn run_line(service: &Service) -> String {
    let q = |t: &str| format!("'{}'", t.replace('\'', r"'\''"));
    // Host paths keep the variables compose puts in (`${HOME}`): the shell puts in the same.
    let host = |t: &str| {
        if t.contains(['$', '~']) && !t.contains(['\'', '"', '`', ';', '&', '|', '(', ')']) {
            format!("\"{}\"", t.replacen('~', "$HOME", 1))
        } else {
            q(t)
        }
    };
    let mut line = String::from("docker run --rm");
    if service.privileged {
        line.push_str(" --privileged");
    }
    if service.pid_host {
        line.push_str(" --pid=host");
    }
    if service.network_host {
        line.push_str(" --network=host");
    }
    for cap in &service.caps {
        line.push_str(&format!(" --cap-add {}", q(cap)));
    }
    for (source, target) in &service.mounts {
        line.push_str(&format!(" -v {}:{}", host(source), q(target)));
    }
    let entry: Vec<String> = match &service.entrypoint_text {
        Some(text) => split_words(text),
        None => service.entrypoint.clone(),
    };
    if let Some((first, rest)) = entry.split_first() {
        line.push_str(&format!(" --entrypoint {}", q(first)));
        line.push(' ');
        line.push_str(&q(service.image.as_deref().unwrap_or("image")));
        for w in rest {
            line.push(' ');
            line.push_str(&q(w));
        }
    } else {
        line.push(' ');
        line.push_str(&q(service.image.as_deref().unwrap_or("image")));
    }
    let command: Vec<String> = match &service.command_text {
        Some(text) => split_words(text),
        None => service.command.clone(),
    };
    for w in &command {
        line.push(' ');
        line.push_str(&q(w));
    }
    line
}

/// A command string cut into words as compose cuts it (by shell quoting rules, no shell:
/// `&&` is a word like any other).
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut quote = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                word.extend(chars.next());
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (_, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// One line of the file: its indentation and its text without a comment.
struct Line<'t> {
    indent: usize,
    text: &'t str,
}

/// The services of a compose file, or why it cannot be read.
fn read(text: &str) -> Result<Vec<Service>, String> {
    let lines: Vec<Line> = text
        .lines()
        .map(|l| {
            let indent = l.len() - l.trim_start_matches(' ').len();
            Line {
                indent,
                text: strip_comment(l.trim()),
            }
        })
        .collect();
    if lines.iter().any(|l| anchors(l.text)) {
        return Err("anchors or merge keys the gate does not follow".into());
    }
    let Some(start) = lines
        .iter()
        .position(|l| l.indent == 0 && l.text == "services:")
    else {
        return Ok(Vec::new());
    };
    let mut services = Vec::new();
    let mut i = start + 1;
    let service_indent = lines[i..]
        .iter()
        .find(|l| !l.text.is_empty())
        .map_or(0, |l| l.indent);
    if service_indent == 0 {
        return Ok(Vec::new());
    }
    while i < lines.len() {
        let line = &lines[i];
        if line.text.is_empty() {
            i += 1;
            continue;
        }
        if line.indent < service_indent {
            break;
        }
        if line.indent > service_indent {
            return Err(format!("a line it could not place: `{}`", line.text));
        }
        let Some(name) = line.text.strip_suffix(':') else {
            return Err(format!("a service it could not read: `{}`", line.text));
        };
        if services.len() >= MAX_SERVICES {
            return Err("more services than the gate reads".into());
        }
        let end = lines[i + 1..]
            .iter()
            .position(|l| !l.text.is_empty() && l.indent <= service_indent)
            .map_or(lines.len(), |p| i + 1 + p);
        services.push(service(unquote(name.trim()), &lines[i + 1..end])?);
        i = end;
    }
    Ok(services)
}

/// Whether a line uses an anchor (`&x`), an alias (`*x`) or a merge key (`<<:`): at the start
/// of a value or a list item, where YAML reads them.
fn anchors(text: &str) -> bool {
    let item = text.strip_prefix('-').map_or(text, str::trim_start);
    if item.starts_with("<<") {
        return true;
    }
    let value = match item.split_once(':') {
        Some((_, v)) => v.trim_start(),
        None => item,
    };
    value.starts_with(['&', '*']) || item.starts_with(['&', '*'])
}

/// A service's settings from its lines (`body`, indented below its name).
fn service(name: String, body: &[Line]) -> Result<Service, String> {
    let mut s = Service {
        name,
        ..Service::default()
    };
    let Some(key_indent) = body.iter().find(|l| !l.text.is_empty()).map(|l| l.indent) else {
        return Ok(s);
    };
    let mut i = 0;
    while i < body.len() {
        let line = &body[i];
        if line.text.is_empty() || line.indent > key_indent {
            i += 1;
            continue;
        }
        let (key, value) = line.text.split_once(':').unwrap_or((line.text, ""));
        let value = value.trim();
        let end = body[i + 1..]
            .iter()
            .position(|l| !l.text.is_empty() && l.indent <= key_indent)
            .map_or(body.len(), |p| i + 1 + p);
        let nested = &body[i + 1..end];
        match key.trim() {
            "image" => s.image = Some(unquote(value)),
            "privileged" => s.privileged = value == "true",
            "pid" => s.pid_host = unquote(value) == "host",
            "network_mode" => s.network_host = unquote(value) == "host",
            "cap_add" => s.caps = list(value, nested)?,
            "volumes" => s.mounts = mounts(value, nested)?,
            "command" | "entrypoint" => {
                let (words, text) = command(value, nested)?;
                if key.trim() == "command" {
                    (s.command, s.command_text) = (words, text);
                } else {
                    (s.entrypoint, s.entrypoint_text) = (words, text);
                }
            }
            "extends" => return Err(format!("`extends` in service `{}`", s.name)),
            _ => {}
        }
        i = end;
    }
    Ok(s)
}

/// A command: a flow list, a block list, a block scalar (`>`, `|`) or a plain string.
fn command(value: &str, nested: &[Line]) -> Result<(Vec<String>, Option<String>), String> {
    if value.starts_with(['>', '|']) {
        let text: Vec<&str> = nested.iter().map(|l| l.text).collect();
        let join = if value.starts_with('>') { " " } else { "\n" };
        return Ok((Vec::new(), Some(text.join(join))));
    }
    if value.is_empty() || value.starts_with('[') {
        return Ok((list(value, nested)?, None));
    }
    Ok((Vec::new(), Some(unquote(value))))
}

/// Host paths a service mounts: `SOURCE:TARGET[:MODE]` items, and long-syntax items with a
/// `source` (a named volume, a word with no `/`, `.`, `~` or `$`, is no host path).
fn mounts(value: &str, nested: &[Line]) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    if value.starts_with('[') {
        for item in list(value, &[])? {
            out.extend(short_mount(&item));
        }
        return Ok(out);
    }
    let mut i = 0;
    while i < nested.len() {
        let Some(item) = nested[i].text.strip_prefix('-') else {
            i += 1;
            continue;
        };
        let item = item.trim();
        let end = nested[i + 1..]
            .iter()
            .position(|l| l.text.starts_with('-') && l.indent <= nested[i].indent)
            .map_or(nested.len(), |p| i + 1 + p);
        if item.contains(": ") || item.ends_with(':') {
            // The long syntax: `- type: bind` then `source:` and `target:`.
            let mut source = None;
            let mut target = String::new();
            for field in std::iter::once(item).chain(nested[i + 1..end].iter().map(|l| l.text)) {
                match field.split_once(':') {
                    Some(("source", v)) => source = Some(unquote(v.trim())),
                    Some(("target", v)) => target = unquote(v.trim()),
                    _ => {}
                }
            }
            if let Some(source) = source.filter(|s| host_path(s)) {
                out.push((source, target));
            }
        } else {
            out.extend(short_mount(&unquote(item)));
        }
        i = end;
    }
    Ok(out)
}

/// `SOURCE:TARGET[:MODE]` with a host path for its source.
fn short_mount(item: &str) -> Option<(String, String)> {
    let (source, rest) = item.split_once(':')?;
    let target = rest.split(':').next().unwrap_or(rest);
    host_path(source).then(|| (source.to_owned(), target.to_owned()))
}

fn host_path(source: &str) -> bool {
    source.starts_with(['/', '.', '~', '$'])
}

/// A flow list (`[a, "b c"]`) or the `- item` lines below a key.
fn list(value: &str, nested: &[Line]) -> Result<Vec<String>, String> {
    if let Some(inner) = value.strip_prefix('[') {
        let inner = inner
            .strip_suffix(']')
            .ok_or_else(|| "a list written over several lines".to_owned())?;
        return Ok(split_flow(inner).into_iter().map(|w| unquote(&w)).collect());
    }
    if !value.is_empty() {
        return Ok(vec![unquote(value)]);
    }
    Ok(nested
        .iter()
        .filter_map(|l| l.text.strip_prefix('-'))
        .map(|item| unquote(item.trim()))
        .collect())
}

/// The items of a flow list, split at commas outside quotes.
fn split_flow(inner: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut item = String::new();
    let mut quote = None;
    for c in inner.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                item.push(c);
            }
            (Some(q), c) if c == q => {
                quote = None;
                item.push(c);
            }
            (None, ',') => items.push(std::mem::take(&mut item).trim().to_owned()),
            _ => item.push(c),
        }
    }
    if !item.trim().is_empty() {
        items.push(item.trim().to_owned());
    }
    items
}

/// A scalar without its quotes (a double-quoted one's `\"` and `\\` read).
fn unquote(value: &str) -> String {
    let v = value.trim();
    if let Some(inner) = v.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        return inner.replace("\\\"", "\"").replace("\\\\", "\\");
    }
    if let Some(inner) = v.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    v.to_owned()
}

/// A line without a `#` comment (one after a space, outside quotes).
fn strip_comment(text: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '#') if prev == ' ' || i == 0 => return text[..i].trim_end(),
            _ => {}
        }
        prev = c;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_service_is_the_docker_run_line_that_starts_it() {
        let text = "# dev\nservices:\n  web:\n    image: alpine:3\n    privileged: true\n    volumes:\n      - /:/host\n      - data:/var/lib/data\n      - ./src:/src:ro\n      - type: bind\n        source: ~/.ssh\n        target: /k\n    command: [\"sh\", \"-c\", \"rm -rf /host/root\"]\n  db:\n    image: \"postgres\"  # the database\n    command: >\n      postgres\n      -c fsync=off\nvolumes:\n  data:\n";
        let services = read(text).expect("readable");
        assert_eq!(services.len(), 2);
        assert_eq!(
            run_line(&services[0]),
            "docker run --rm --privileged -v '/':'/host' -v './src':'/src' -v \"$HOME/.ssh\":'/k' 'alpine:3' 'sh' '-c' 'rm -rf /host/root'"
        );
        assert_eq!(
            run_line(&services[1]),
            "docker run --rm 'postgres' 'postgres' '-c' 'fsync=off'"
        );
    }

    #[test]
    fn what_it_does_not_follow_is_said() {
        let anchored = "x-base: &base\n  privileged: true\nservices:\n  web:\n    <<: *base\n    image: alpine\n";
        assert!(read(anchored).is_err());
        assert!(read("services:\n  web:\n    extends: base\n").is_err());
        assert!(read("services:\n  web:\n    command: [\"sh\",\n      \"-c\"]\n").is_err());
        // Quoted `&` and `*` are text.
        let quoted = "services:\n  web:\n    image: alpine\n    command: \"echo a && ls *\"\n";
        assert_eq!(read(quoted).expect("readable").len(), 1);
        let plain = "services:\n  web:\n    image: alpine\n    command: ls *.txt && echo done\n";
        assert_eq!(read(plain).expect("readable").len(), 1);
        assert_eq!(read("version: '3'\n").expect("no services"), Vec::new());
    }
}
