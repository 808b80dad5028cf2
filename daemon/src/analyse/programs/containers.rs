//! Commands run inside containers: `docker|podman|nerdctl exec|run|create`, `docker compose
//! exec|run`, `kubectl exec|run|debug … -- CMD`, `lxc|incus exec … -- CMD`, `machinectl
//! shell`, `systemd-nspawn -D DIR CMD`.
//!
//! The command is queued as a [`Job`] that runs in a [`Container`]: its paths are the
//! container's own (deleting `/` there loses the container's data, not the host's root),
//! except below the host directories mounted into it (`-v /:/host`, `--mount
//! type=bind,…`), which are the host's. Mounting a host place gives the container that place
//! (`use`); privileges, the host's process namespace, added capabilities or the engine's
//! socket give it the host itself. The engine's other subcommands are judged by `also`.

use std::rc::Rc;

use super::super::act::Site;
use super::super::catalogue;
use super::super::effects::Effect;
use super::super::getopt::Args;
use super::super::recurse::{Ctx, Job};
use super::super::words::Word;
use super::super::{Container, MAX_MOUNTS, State, join_path};
use crate::places::{Path, Piece};

/// Options of `docker run`/`create`/`exec` (and podman's, nerdctl's, compose's) that take a
/// value; others are flags. Long options not listed take a value unless they are in
/// [`RUN_FLAGS`].
const RUN_VALUED_SHORT: &[&str] = &[
    "-a", "-c", "-e", "-h", "-l", "-m", "-p", "-u", "-v", "-w", "--name",
];

/// Long options of `run` and `exec` that take no value.
const RUN_FLAGS: &[&str] = &[
    "--rm",
    "--detach",
    "--interactive",
    "--tty",
    "--privileged",
    "--init",
    "--read-only",
    "--no-healthcheck",
    "--oom-kill-disable",
    "--publish-all",
    "--sig-proxy",
    "--quiet",
    "--help",
    "--disable-content-trust",
    "--no-deps",
    "--service-ports",
    "--use-aliases",
    "--build",
    "--remove-orphans",
    "--no-TTY",
    "--replace",
    "--http-proxy",
    "--tls-verify",
    "--pull-always",
    "--env-host",
    "--rootfs",
    "--systemd",
    "--no-hosts",
    "--preserve-fds",
];

/// Global options of the engines that take a value.
const GLOBAL_VALUED: &[&str] = &[
    "-H",
    "--host",
    "--context",
    "-c",
    "--config",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey",
    "--connection",
    "--url",
    "--root",
    "--runroot",
    "--storage-driver",
    "--cgroup-manager",
    "--namespace",
    "-n",
    "--address",
    "-a",
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--project-directory",
    "--env-file",
    "--profile",
    "--kubeconfig",
    "--cluster",
    "--user",
    "-s",
    "--server",
    "--token",
    "--as",
    "--as-group",
    "--request-timeout",
    "--cache-dir",
    "--certificate-authority",
    "--client-key",
    "--client-certificate",
    "--remote",
    "--project",
];

/// Capabilities that give a container the host.
const HOST_CAPS: &[&str] = &[
    "ALL",
    "SYS_ADMIN",
    "SYS_MODULE",
    "SYS_PTRACE",
    "SYS_RAWIO",
    "DAC_READ_SEARCH",
    "CAP_SYS_ADMIN",
    "CAP_SYS_MODULE",
    "CAP_SYS_PTRACE",
    "CAP_SYS_RAWIO",
];

/// Sockets that control a container engine on the host.
const ENGINE_SOCKETS: &[&str] = &["docker.sock", "podman.sock", "containerd.sock", "crio.sock"];

/// Where the command is, after global options: the index of the subcommand.
fn subcommand(words: &[Word], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(w) = words.get(i) {
        let t = w.literal()?;
        if t == "--" {
            return Some(i + 1).filter(|n| *n < words.len());
        }
        if !t.starts_with('-') {
            return Some(i);
        }
        i += if GLOBAL_VALUED.contains(&t) { 2 } else { 1 };
    }
    None
}

/// What a container is given: mounts, the host, a working directory, an entrypoint.
struct Given<'w, 's> {
    mounts: Vec<(Path, Vec<Path>)>,
    /// Host places mounted into it, with how they are shown.
    sources: Vec<(Vec<Path>, String)>,
    host: Vec<String>,
    workdir: Option<Option<Rc<str>>>,
    entrypoint: Option<Word<'s>>,
    /// Index of the first operand (the container or image) in `words`.
    operand: Option<usize>,
    interactive: bool,
    _w: std::marker::PhantomData<&'w ()>,
}

/// Reads the options of `run`/`create`/`exec` from `from` on.
fn options<'w, 's>(words: &'w [Word<'s>], from: usize, st: &State) -> Given<'w, 's> {
    let mut g = Given {
        mounts: Vec::new(),
        sources: Vec::new(),
        host: Vec::new(),
        workdir: None,
        entrypoint: None,
        operand: None,
        interactive: false,
        _w: std::marker::PhantomData,
    };
    let mut i = from;
    while let Some(w) = words.get(i) {
        let Some(t) = w.literal() else {
            if w.text.starts_with('-') {
                i += 1;
                continue;
            }
            g.operand = Some(i);
            break;
        };
        if t == "--" {
            g.operand = Some(i + 1).filter(|n| *n < words.len());
            break;
        }
        if !t.starts_with('-') || t == "-" {
            g.operand = Some(i);
            break;
        }
        // `--opt=value`, `--opt value`, `-v value`, `-vvalue`, `-itv value`.
        let (opt, value, step): (String, Option<Word<'s>>, usize) = if let Some((o, _)) =
            t.split_once('=')
            && t.starts_with("--")
        {
            (o.to_owned(), Some(w.tail(o.len() + 1)), 1)
        } else if t.starts_with("--") {
            if RUN_FLAGS.contains(&t) {
                (t.to_owned(), None, 1)
            } else {
                (t.to_owned(), words.get(i + 1).cloned(), 2)
            }
        } else {
            // A cluster of flags, the last may take a value.
            let letters = &t[1..];
            let mut found = None;
            for (k, c) in letters.char_indices() {
                let short = format!("-{c}");
                if c == 'i' || c == 't' {
                    g.interactive = true;
                }
                if RUN_VALUED_SHORT.contains(&short.as_str()) {
                    let rest = k + c.len_utf8();
                    found = Some(if rest < letters.len() {
                        (short, Some(w.tail(1 + rest)), 1)
                    } else {
                        (short, words.get(i + 1).cloned(), 2)
                    });
                    break;
                }
            }
            found.unwrap_or((t.to_owned(), None, 1))
        };
        i += step;
        option(&opt, value.as_ref(), &mut g, st);
    }
    g
}

/// One option of `run`/`exec`.
fn option<'s>(opt: &str, value: Option<&Word<'s>>, g: &mut Given<'_, 's>, st: &State) {
    let text = value
        .map(|v| v.text.to_ascii_uppercase())
        .unwrap_or_default();
    match opt {
        "--privileged" => g.host.push("--privileged".to_owned()),
        "--pid" | "--userns" | "--ipc" | "--cgroupns" if text == "HOST" => {
            g.host.push(format!("{opt}=host"));
        }
        "--cap-add" if HOST_CAPS.iter().any(|c| text.split(',').any(|t| t == *c)) => {
            g.host.push(format!("--cap-add={}", text));
        }
        "--interactive" | "--tty" => g.interactive = true,
        "-w" | "--workdir" => {
            g.workdir = value.map(|v| v.literal().filter(|t| t.starts_with('/')).map(Rc::from));
        }
        "--entrypoint" => g.entrypoint = value.cloned(),
        "-v" | "--volume" => {
            if let Some(v) = value {
                bind(v, ':', g, st);
            }
        }
        "--mount" => {
            if let Some(v) = value {
                mount(v, g, st);
            }
        }
        "--device" => {
            if let Some(v) = value {
                bind(v, ':', g, st);
            }
        }
        _ => {}
    }
}

/// `-v SOURCE:TARGET[:OPTIONS]`: a bind mount when the source is a path (a named volume is
/// the engine's own).
fn bind(v: &Word, sep: char, g: &mut Given, st: &State) {
    let mut sources = Vec::new();
    let mut target = None;
    for alt in v.alternatives().iter() {
        let Some((left, right)) = split_pieces(alt, sep) else {
            continue;
        };
        let named = match left.as_slice() {
            [Piece::Lit(t)] => !t.starts_with(['/', '.', '~']),
            [] => true,
            _ => false,
        };
        if named {
            continue;
        }
        sources.push(st.path_of(&left));
        let right_text: String = right
            .iter()
            .map(|p| match p {
                Piece::Lit(t) => t.as_str(),
                _ => "\u{0}",
            })
            .collect();
        let t = right_text.split(sep).next().unwrap_or("").to_owned();
        target = Some(t);
    }
    add_mount(sources, target, v.raw, g);
}

/// `--mount type=bind,source=S,target=T`.
fn mount(v: &Word, g: &mut Given, st: &State) {
    let mut sources = Vec::new();
    let mut target = None;
    for alt in v.alternatives().iter() {
        let text: String = alt
            .iter()
            .map(|p| match p {
                Piece::Lit(t) => t.clone(),
                _ => "\u{0}".to_owned(),
            })
            .collect();
        let mut source = None;
        let mut bind = false;
        for field in text.split(',') {
            let (k, val) = field.split_once('=').unwrap_or((field, ""));
            match k {
                "type" => bind = val == "bind",
                "source" | "src" => source = Some(val.to_owned()),
                "target" | "destination" | "dst" => target = Some(val.to_owned()),
                _ => {}
            }
        }
        if let Some(s) = source.filter(|_| bind) {
            let pieces: Vec<Piece> = s
                .split('\u{0}')
                .enumerate()
                .flat_map(|(n, part)| {
                    let lit = (!part.is_empty()).then(|| Piece::Lit(part.to_owned()));
                    let gap = (n > 0).then_some(Piece::Opaque);
                    gap.into_iter().chain(lit)
                })
                .collect();
            sources.push(st.path_of(&pieces));
        }
    }
    add_mount(sources, target, v.raw, g);
}

fn add_mount(sources: Vec<Path>, target: Option<String>, shown: &str, g: &mut Given) {
    if sources.is_empty() {
        return;
    }
    if sources.iter().any(|s| {
        s.literal_text()
            .is_some_and(|t| ENGINE_SOCKETS.iter().any(|k| t.ends_with(k)))
    }) {
        g.host.push(format!("the engine's socket ({shown})"));
    }
    g.sources.push((sources.clone(), format!("`{shown}`")));
    match target.filter(|t| t.starts_with('/') && !t.contains('\u{0}')) {
        Some(t) if g.mounts.len() < MAX_MOUNTS => g.mounts.push((Path::absolute(&t), sources)),
        // A target only known at run time could be anywhere: the host's places may be
        // anywhere in the container.
        _ => g.mounts.push((Path::absolute("/"), sources)),
    }
}

/// The pieces before the first `sep` in literal text, and those after it.
fn split_pieces(alt: &[Piece], sep: char) -> Option<(Vec<Piece>, Vec<Piece>)> {
    for (i, p) in alt.iter().enumerate() {
        if let Piece::Lit(t) = p
            && let Some(at) = t.find(sep)
        {
            let mut left = alt[..i].to_vec();
            if at > 0 {
                left.push(Piece::Lit(t[..at].to_owned()));
            }
            let mut right = Vec::new();
            if at + 1 < t.len() {
                right.push(Piece::Lit(t[at + 1..].to_owned()));
            }
            right.extend(alt[i + 1..].iter().cloned());
            return Some((left, right));
        }
    }
    None
}

/// Reports what the container is given, and queues its command.
#[allow(clippy::too_many_arguments)]
fn run_inside<'s>(
    name: &str,
    job: &Job<'s>,
    g: Given<'_, 's>,
    command: Vec<Word<'s>>,
    shown: String,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) {
    let span = match job.words.first() {
        Some(first) => at
            .src
            .map
            .span(first.span.start..at.end.max(first.span.start)),
        None => at.span_of(&job.words),
    };
    {
        let mut site = Site::new(name, Args::default(), span, st);
        for (paths, shown) in &g.sources {
            site.on_paths(Effect::Use, paths.clone(), true, shown.clone());
        }
        if let Some(h) = g.host.first() {
            site.say(catalogue::CONTAINER_HOST, &format!("{shown} {h}"));
        }
        site.report();
    }
    if command.is_empty() {
        return;
    }
    // `docker exec -it app bash`: a person's session in the container, as `ssh host` is.
    let bare_shell = command.len() == 1
        && command[0].literal().is_some_and(|t| {
            matches!(
                super::super::words::basename(t),
                "sh" | "bash" | "zsh" | "ash" | "dash" | "fish" | "ksh"
            )
        });
    if bare_shell && g.interactive && matches!(job.stdin, super::super::recurse::Stdin::Inherited) {
        return;
    }
    let cwd = g.workdir.unwrap_or_else(|| Some(Rc::from("/")));
    jobs.push(Job {
        words: command.into(),
        path: join_path(&job.path, &shown),
        stdin: job.stdin.clone(),
        child: true,
        cwd: Some(cwd),
        assigned: Vec::new(),
        level: job.level + 1,
        container: Some(Rc::new(Container { mounts: g.mounts })),
    });
}

/// `docker|podman|nerdctl [GLOBAL] exec|run|create|container … ` and `compose exec|run`.
pub fn engine<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let Some(mut sub) = subcommand(words, 1) else {
        return false;
    };
    let mut compose = matches!(name, "docker-compose" | "podman-compose");
    if !compose && words[sub].literal() == Some("compose") {
        compose = true;
        let Some(next) = subcommand(words, sub + 1) else {
            return false;
        };
        sub = next;
    } else if words[sub].literal() == Some("container") {
        let Some(next) = subcommand(words, sub + 1) else {
            return false;
        };
        sub = next;
    }
    let verb = words[sub].literal().unwrap_or("");
    if verb == "cp" {
        copied_out(name, &words[sub + 1..], at, st);
        return false;
    }
    if !matches!(verb, "exec" | "run" | "create") {
        return false;
    }
    let g = options(words, sub + 1, st);
    let Some(target) = g.operand else {
        return false;
    };
    let shown = format!("{name} {verb} {}", words[target].raw);
    let mut command: Vec<Word<'s>> = words[target + 1..].to_vec();
    if let Some(entry) = &g.entrypoint
        && verb != "exec"
    {
        command.insert(0, entry.clone());
    }
    // `compose run` without a command runs the service's own.
    let _ = compose;
    run_inside(name, job, g, command, shown, at, st, jobs);
    true
}

/// `docker cp CONTAINER:PATH DEST`, `kubectl cp POD:PATH DEST`: reads PATH in the container,
/// whose secrets are secrets too (`/root/.aws/credentials`, `/var/run/secrets/…`).
fn copied_out(name: &str, args: &[Word], at: &Ctx, st: &mut State) {
    let Some(source) = args
        .iter()
        .find(|w| !w.text.starts_with('-') && w.text.contains(':'))
    else {
        return;
    };
    let Some((_, path)) = source.text.split_once(':') else {
        return;
    };
    if !path.starts_with('/') {
        return;
    }
    let inside = Word::made(path.to_owned(), source.raw, source.span.clone());
    let span = at.src.map.span(source.span.clone());
    let mut site = Site::new(name, Args::default(), span, st);
    site.on(Effect::Read, &inside);
    site.report();
}

/// `kubectl|oc [GLOBAL] exec|run|debug … -- CMD` (`exec POD CMD` in the old form).
pub fn kubectl<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let Some(sub) = subcommand(words, 1) else {
        return false;
    };
    let verb = words[sub].literal().unwrap_or("");
    if verb == "cp" {
        copied_out(name, &words[sub + 1..], at, st);
        return false;
    }
    if !matches!(verb, "exec" | "run" | "debug") {
        return false;
    }
    let dashes = words
        .iter()
        .skip(sub + 1)
        .position(|w| w.literal() == Some("--"))
        .map(|p| p + sub + 1);
    let g = options(words, sub + 1, st);
    let target = g.operand.map_or("", |t| words[t].raw);
    let command: Vec<Word<'s>> = match (dashes, verb) {
        (Some(d), _) => words[d + 1..].to_vec(),
        (None, "exec") => g.operand.map_or_else(Vec::new, |t| words[t + 1..].to_vec()),
        _ => Vec::new(),
    };
    let shown = format!("{name} {verb} {target}");
    run_inside(name, job, g, command, shown, at, st, jobs);
    true
}

/// `lxc|incus exec INSTANCE [opts] [--] CMD`, `machinectl shell [USER@]MACHINE CMD`.
pub fn instance<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let Some(sub) = subcommand(words, 1) else {
        return false;
    };
    let verb = words[sub].literal().unwrap_or("");
    let runs = match name {
        "machinectl" => verb == "shell",
        _ => verb == "exec",
    };
    if !runs {
        return false;
    }
    let g = options(words, sub + 1, st);
    let Some(target) = g.operand else {
        return true;
    };
    let rest = &words[target + 1..];
    let start = rest
        .iter()
        .position(|w| w.literal() == Some("--"))
        .map_or_else(
            || {
                rest.iter()
                    .position(|w| !w.literal().is_some_and(|t| t.starts_with('-')))
                    .unwrap_or(rest.len())
            },
            |p| p + 1,
        );
    let command = rest[start.min(rest.len())..].to_vec();
    let shown = format!("{name} {verb} {}", words[target].raw);
    run_inside(name, job, g, command, shown, at, st, jobs);
    true
}

/// Options of `systemd-nspawn` that take a value.
const NSPAWN_VALUED: &[&str] = &[
    "-D",
    "--directory",
    "-i",
    "--image",
    "-M",
    "--machine",
    "-u",
    "--user",
    "--bind",
    "--bind-ro",
    "--chdir",
    "-E",
    "--setenv",
    "--template",
    "--network-interface",
    "--network-bridge",
    "--network-zone",
    "--port",
    "-p",
    "--property",
    "-S",
    "--slice",
    "--capability",
    "--drop-capability",
    "--uuid",
    "--overlay",
    "--overlay-ro",
    "--tmpfs",
    "--register",
    "--resolv-conf",
    "--timezone",
    "--link-journal",
    "--private-users",
];

/// `systemd-nspawn -D DIR [opts] [CMD…]`: the container's root is the host directory DIR.
pub fn nspawn<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    jobs: &mut Vec<Job<'s>>,
) -> bool {
    let words = &job.words;
    let mut i = 1;
    let mut root = None;
    let mut g = options(&[], 0, st);
    while let Some(w) = words.get(i) {
        let Some(t) = w.literal() else { break };
        if t == "--" {
            i += 1;
            break;
        }
        if !t.starts_with('-') {
            break;
        }
        let (opt, value, step) = match t.split_once('=') {
            Some((o, _)) if t.starts_with("--") => (o, Some(w.tail(o.len() + 1)), 1),
            _ if NSPAWN_VALUED.contains(&t) => (t, words.get(i + 1).cloned(), 2),
            _ => (t, None, 1),
        };
        i += step;
        match opt {
            "-D" | "--directory" => root = value,
            "--bind" | "--bind-ro" => {
                if let Some(v) = &value {
                    bind(v, ':', &mut g, st);
                }
            }
            "--capability"
                if value
                    .as_ref()
                    .is_some_and(|v| v.text.contains("SYS_ADMIN") || v.text == "all") =>
            {
                g.host.push("--capability".to_owned());
            }
            _ => {}
        }
    }
    if let Some(r) = &root {
        let sources = st.paths(r);
        g.sources.push((sources.clone(), r.quoted()));
        g.mounts.push((Path::absolute("/"), sources));
    }
    let command = words.get(i..).unwrap_or(&[]).to_vec();
    let shown = format!("{name} {}", root.as_ref().map_or("", |r| r.raw));
    run_inside(name, job, g, command, shown, at, st, jobs);
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive, Forbidden, Moderate, Opaque, Safe};

    use super::super::git::tests::check;

    #[rustfmt::skip]
    pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
        ("docker exec app ls", Safe, &[]),
        ("docker exec app rm -rf /", Destructive, &["delete.secret", "delete.containers"]),
        ("docker exec app rm -rf /tmp/x", Moderate, &["delete.temp"]),
        ("docker exec app cat /root/.ssh/id_rsa", Destructive, &["read.secret"]),
        ("docker exec app sh -c 'rm -rf /srv'", Destructive, &["delete.containers"]),
        ("docker exec app sh -c \"$X\"", Opaque, &["run.unknown"]),
        ("docker exec db psql -c 'DROP TABLE t'", Destructive, &["delete.database"]),
        ("docker run --rm -v /:/host alpine rm -rf /host/home/u", Forbidden, &["use.root", "use.secret", "use.protected", "delete.home"]),
        ("docker run --rm -v /home/u/data:/d alpine rm -rf /", Destructive, &["use.data", "delete.secret", "delete.data", "delete.containers"]),
        ("docker run --rm -v \"$PWD\":/src -w /src alpine rm -rf .", Destructive, &["use.project", "delete.project"]),
        ("docker run --rm -v \"$PWD\":/src -w /src rust cargo test", Moderate, &["use.project", "run.project"]),
        ("docker run --rm -v pgdata:/var/lib/postgresql/data postgres", Safe, &[]),
        ("docker run --privileged alpine true", Destructive, &["use.root"]),
        ("docker run --cap-add SYS_ADMIN alpine true", Destructive, &["use.root"]),
        ("docker run --entrypoint rm alpine -rf /", Destructive, &["delete.secret", "delete.containers"]),
        ("docker compose exec db psql -c 'TRUNCATE t'", Destructive, &["delete.database"]),
        ("docker compose run --rm -v /etc:/h app rm /h/passwd", Destructive, &["use.system", "use.secret", "use.protected", "delete.protected"]),
        ("kubectl exec pod -- rm -rf /data", Destructive, &["delete.containers"]),
        ("kubectl exec -n x pod -c c -- cat /etc/os-release", Safe, &[]),
        ("kubectl exec pod ls /", Safe, &[]),
        ("lxc exec web -- rm -rf /var/www", Destructive, &["delete.containers"]),
        ("systemd-nspawn -D /srv/c rm -rf /etc", Destructive, &["use.data", "delete.data"]),
        ("docker exec -it app bash", Safe, &[]),
    ];

    #[test]
    fn containers_table() {
        check(CASES);
    }
}
