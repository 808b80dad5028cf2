//! Listeners and tunnels: programs that wait for connections from elsewhere. A file server
//! bound beyond loopback on a directory that holds more than the project (`python3 -m
//! http.server -d ~`, `php -S 0.0.0.0:80 -t ~`, `busybox httpd -h /`, `npx serve ~`) sends
//! whatever lies there to whoever asks; a listener that runs a program for each connection
//! (`nc -l -e /bin/sh`, `socat TCP-LISTEN:… EXEC:…`) hands this user's account to them; a
//! tunnel (`ssh -R`, `ssh -D`, `ssh -L` bound beyond loopback or with `-g`, and the tunnel
//! services: `ngrok http 3000`, `cloudflared tunnel --url …`, `tailscale funnel 22`, `bore
//! local`, `lt --port`, `chisel` with a reverse remote, `frpc`) lets hosts elsewhere reach this
//! machine or its network; `git daemon --enable=receive-pack` takes
//! pushes from anyone. A server bound to loopback, or serving the project or its build output,
//! is none of these. This module only says what listens; the programs' other effects are their
//! own models'.

use super::super::act::Site;
use super::super::catalogue;
use super::super::words::Word;
use crate::places::Kind;

/// What `name` with `args` listens for, reported on `site`.
pub fn judge<'s>(name: &str, args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let base = name.rsplit('/').next().unwrap_or(name);
    let literal: Vec<&str> = args.iter().map(|w| w.literal().unwrap_or("")).collect();
    match base {
        _ if base.starts_with("python") => python(args, &literal, site),
        _ if base.starts_with("php") => php(args, &literal, site),
        _ if base.starts_with("ruby") => ruby(args, &literal, site),
        "busybox" if literal.first() == Some(&"httpd") => httpd(&args[1..], site),
        "httpd" if literal.contains(&"-h") => httpd(args, site),
        "npx" | "pnpx" | "bunx" => package_server(args, site),
        "serve" | "http-server" | "live-server" => node_server(base, args, site),
        "git" => git_daemon(args, site),
        "ssh" => ssh(&literal, site),
        // autossh's own `-M PORT` comes first; the rest is ssh's.
        "autossh" => {
            let own = if literal.first() == Some(&"-M") { 2 } else { 0 };
            ssh(literal.get(own..).unwrap_or_default(), site);
        }
        "nc" | "ncat" | "netcat" => netcat(&literal, site),
        "ngrok" | "pyngrok" => tunnel(
            base,
            &literal,
            &["http", "tcp", "tls", "tunnel", "start"],
            site,
        ),
        // `tailscale up --ssh`: the tailnet's hosts may log in here.
        "tailscale"
            if literal.contains(&"--ssh") && matches!(literal.first(), Some(&("up" | "set"))) =>
        {
            say_tunnel(base, &literal, site);
        }
        "tailscale" => tunnel(base, &literal, &["funnel", "serve"], site),
        "devtunnel" => tunnel(base, &literal, &["host"], site),
        "telebit" => tunnel(base, &literal, &["http", "tcp", "ssh"], site),
        "expose" => tunnel(base, &literal, &["share"], site),
        "pagekite" | "pagekite.py" | "playit" | "pinggy" | "rathole" => {
            tunnel(base, &literal, &[], site);
        }
        // VS Code's own tunnel: its `status`, `kill` and `user` ask or stop.
        "code" | "code-insiders" if literal.first() == Some(&"tunnel") => {
            let asks = matches!(
                literal.get(1),
                Some(&("status" | "kill" | "user" | "rename" | "unregister" | "prune" | "help"))
            );
            if !asks {
                say_tunnel(base, &literal, site);
            }
        }
        // A forwarding proxy chained to a relay elsewhere.
        "gost" if literal.contains(&"-F") => say_tunnel(base, &literal, site),
        "bore" => tunnel(base, &literal, &["local"], site),
        "zrok" => tunnel(base, &literal, &["share"], site),
        "loclx" | "localxpose" => tunnel(base, &literal, &["tunnel"], site),
        "lt" | "localtunnel" | "frpc" => tunnel(base, &literal, &[], site),
        "cloudflared" => {
            // `--url` (a quick tunnel, with `tunnel` or without), a named tunnel's `run`, or
            // one installed as a service.
            let runs = literal
                .iter()
                .any(|t| *t == "--url" || t.starts_with("--url="))
                || (literal.contains(&"tunnel") && literal.contains(&"run"))
                || (literal.first() == Some(&"service") && literal.get(1) == Some(&"install"));
            if runs {
                say_tunnel(base, &literal, site);
            }
        }
        "chisel" => {
            // A client's remote `R:…` opens this side to the server's; a server with
            // `--reverse` lets its clients do so.
            let reverse =
                literal.first() == Some(&"client") && literal.iter().any(|t| t.starts_with("R:"));
            if reverse || (literal.first() == Some(&"server") && literal.contains(&"--reverse")) {
                say_tunnel(base, &literal, site);
            }
        }
        "socat" => socat(&literal, site),
        _ => {}
    }
}

/// A tunnel service's command: with its first operand among `verbs` (any, when `verbs` is
/// empty), and not asking for its status or turning it off, it opens this machine to hosts
/// elsewhere.
fn tunnel(base: &str, literal: &[&str], verbs: &[&str], site: &mut Site<'_, '_, '_, '_>) {
    let mut ops = literal.iter().filter(|t| !t.starts_with('-'));
    let first = ops.next().copied();
    let opens = if verbs.is_empty() {
        !literal
            .iter()
            .any(|t| matches!(*t, "-h" | "--help" | "--version" | "-v" | "version"))
    } else {
        first.is_some_and(|f| verbs.contains(&f))
            && !ops.any(|t| matches!(*t, "status" | "off" | "reset" | "list" | "ls"))
            && !literal.contains(&"--help")
    };
    if opens {
        say_tunnel(base, literal, site);
    }
}

fn say_tunnel(base: &str, literal: &[&str], site: &mut Site<'_, '_, '_, '_>) {
    let mut shown = vec![base];
    shown.extend(literal.iter().take(3));
    site.say(catalogue::LISTEN_TUNNEL, &format!("`{}`", shown.join(" ")));
}

/// Whether a bind address keeps the listener to this machine.
fn local_bind(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host == "::1" || host.starts_with("127.") || host.ends_with(".localhost")
}

/// The value of an option given as `-x V`, `--long V`, `--long=V` or `-xV`.
fn value<'s>(args: &[Word<'s>], short: &[&str], long: &[&str]) -> Option<Word<'s>> {
    for (i, w) in args.iter().enumerate() {
        let Some(t) = w.literal() else { continue };
        if short.contains(&t) || long.contains(&t) {
            return args.get(i + 1).cloned();
        }
        for l in long {
            if let Some(v) = t.strip_prefix(l).and_then(|r| r.strip_prefix('=')) {
                return Some(w.tail(t.len() - v.len()));
            }
        }
        for s in short {
            if let Some(v) = t
                .strip_prefix(s)
                .filter(|v| !v.is_empty() && !t.starts_with("--"))
            {
                return Some(w.tail(t.len() - v.len()));
            }
        }
    }
    None
}

/// A file server on `dir` bound to `bind` (`None`: every interface): whoever connects reads
/// what lies beneath `dir`, so a home, the whole disk or a secret goes out.
fn serves<'s>(dir: &Word<'s>, bind: Option<&str>, shown: &str, site: &mut Site<'_, 's, '_, '_>) {
    if bind.is_some_and(local_bind) {
        return;
    }
    let placed = site.placed(dir, true);
    let beyond = [
        Kind::Root,
        Kind::Home,
        Kind::Secret,
        Kind::System,
        Kind::Protected,
        Kind::Gate,
        Kind::Data,
    ]
    .iter()
    .any(|k| placed.has(*k));
    if beyond {
        site.say(
            catalogue::LISTEN_SERVES,
            &format!("`{shown}` on {}", dir.quoted()),
        );
    }
}

fn here<'s>() -> Word<'s> {
    Word::made(".".to_owned(), ".", 0..0)
}

/// `python -m http.server [PORT] [-d DIR] [-b ADDR]`, and Python 2's `SimpleHTTPServer`
/// (the working directory, every interface).
fn python<'s>(args: &[Word<'s>], literal: &[&str], site: &mut Site<'_, 's, '_, '_>) {
    let Some(at) = literal.iter().position(|t| *t == "-m") else {
        return;
    };
    let module = literal.get(at + 1).copied().unwrap_or("");
    if !matches!(
        module,
        "http.server" | "SimpleHTTPServer" | "RangeHTTPServer"
    ) {
        return;
    }
    let rest = &args[(at + 2).min(args.len())..];
    let dir = value(rest, &["-d"], &["--directory"]).unwrap_or_else(here);
    let bind = value(rest, &["-b"], &["--bind"]);
    serves(&dir, bind.as_ref().and_then(Word::literal), module, site);
}

/// `php -S ADDR:PORT [-t DIR]`: the built-in server on ADDR.
fn php<'s>(args: &[Word<'s>], _: &[&str], site: &mut Site<'_, 's, '_, '_>) {
    let Some(addr) = value(args, &["-S"], &[]) else {
        return;
    };
    let host = addr
        .literal()
        .map(|a| a.rsplit_once(':').map_or(a, |(h, _)| h));
    let dir = value(args, &["-t"], &[]).unwrap_or_else(here);
    // A host only known at run time may be any interface.
    serves(&dir, host, "php -S", site);
}

/// `ruby -run -e httpd [DIR] [--port P] [--bind-address A]`: un.rb's server, every
/// interface unless told.
fn ruby<'s>(args: &[Word<'s>], literal: &[&str], site: &mut Site<'_, 's, '_, '_>) {
    let un = literal.contains(&"-run");
    let Some(at) = literal.iter().position(|t| *t == "httpd") else {
        return;
    };
    if !un {
        return;
    }
    let rest = &args[at + 1..];
    let dir = rest
        .iter()
        .find(|w| !w.text.starts_with('-'))
        .filter(|w| w.text.parse::<u32>().is_err())
        .cloned()
        .unwrap_or_else(here);
    let bind = value(rest, &["-b"], &["--bind-address"]);
    serves(
        &dir,
        bind.as_ref().and_then(Word::literal),
        "ruby -run -e httpd",
        site,
    );
}

/// busybox's `httpd [-p [IP:]PORT] [-h HOME]`: the working directory unless `-h`.
fn httpd<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let dir = value(args, &["-h"], &[]).unwrap_or_else(here);
    let port = value(args, &["-p"], &[]);
    let host = port
        .as_ref()
        .and_then(Word::literal)
        .and_then(|p| p.rsplit_once(':'))
        .map(|(h, _)| h);
    serves(&dir, host, "httpd", site);
}

/// `npx serve DIR`, `npx http-server DIR`: the package that serves, with its words.
fn package_server<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let Some(at) = args
        .iter()
        .position(|w| !w.literal().is_some_and(|t| t.starts_with('-')))
    else {
        return;
    };
    let Some(package) = args[at].literal() else {
        return;
    };
    let package = package.split('@').next().unwrap_or(package);
    if matches!(package, "serve" | "http-server" | "live-server") {
        node_server(package, &args[at + 1..], site);
    }
}

/// `serve [DIR] [-l ADDR]`, `http-server [DIR] [-a ADDR]`, `live-server [DIR] [--host=A]`:
/// every interface unless told.
fn node_server<'s>(name: &str, args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    const VALUED: &[&str] = &["-l", "--listen", "-p", "--port", "-a", "-c", "--host", "-s"];
    let mut dir = None;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        let t = w.literal().unwrap_or("");
        if VALUED.contains(&t) {
            i += 2;
            continue;
        }
        if !t.starts_with('-') {
            dir = Some(w.clone());
            break;
        }
        i += 1;
    }
    let bind = value(args, &["-l", "-a"], &["--listen", "--host"]);
    let host = bind.as_ref().and_then(Word::literal).map(|b| {
        let b = b.strip_prefix("tcp://").unwrap_or(b);
        b.rsplit_once(':').map_or(b, |(h, _)| h)
    });
    let host = host.filter(|h| h.parse::<u32>().is_err());
    serves(&dir.unwrap_or_else(here), host, name, site);
}

/// `git daemon [--base-path=DIR] [--export-all] [--enable=receive-pack] [DIR…]`: serves the
/// repositories under its directories (every interface unless `--listen`), and takes pushes
/// when receive-pack is enabled.
fn git_daemon<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    // The subcommand is the first word that is no global option or its value (`-C DIR`).
    let mut at = 0;
    while let Some(t) = args.get(at).and_then(Word::literal) {
        if !t.starts_with('-') {
            break;
        }
        at += if matches!(t, "-C" | "-c" | "--git-dir" | "--work-tree") {
            2
        } else {
            1
        };
    }
    if args.get(at).and_then(Word::literal) != Some("daemon") {
        return;
    }
    let rest = &args[at + 1..];
    let texts: Vec<&str> = rest.iter().map(|w| w.literal().unwrap_or("")).collect();
    if texts.iter().any(|t| *t == "--help" || *t == "-h") {
        return;
    }
    if texts
        .iter()
        .any(|t| *t == "--enable=receive-pack" || *t == "--allow-override=receive-pack")
    {
        site.say(catalogue::LISTEN_PUSH, "git daemon --enable=receive-pack");
    }
    let bind = value(rest, &[], &["--listen"]);
    let bind = bind.as_ref().and_then(Word::literal);
    let mut dirs: Vec<Word> = rest
        .iter()
        .filter(|w| !w.text.starts_with('-'))
        .cloned()
        .collect();
    if let Some(base) = value(rest, &[], &["--base-path"]) {
        dirs.push(base);
    }
    for d in &dirs {
        serves(d, bind, "git daemon", site);
    }
}

/// ssh's forwards: `-R` (a port elsewhere reaches this machine), `-D` (a SOCKS proxy into
/// the remote network), `-L` bound beyond loopback or with `-g`, and their `-o` forms.
fn ssh(literal: &[&str], site: &mut Site) {
    // Options of ssh that take a value: their values are not flags.
    const VALUED: &str = "BbcDEeFIiJLlmOopQRSWw";
    let mut gateway = false;
    let mut forwards: Vec<(char, &str)> = Vec::new();
    let mut i = 0;
    while let Some(t) = literal.get(i) {
        i += 1;
        if *t == "--" || !t.starts_with('-') || t.len() < 2 {
            break;
        }
        for (at, c) in t.char_indices().skip(1) {
            gateway |= c == 'g';
            if VALUED.contains(c) {
                let attached = &t[at + c.len_utf8()..];
                let v = if attached.is_empty() {
                    i += 1;
                    literal.get(i - 1).copied().unwrap_or("")
                } else {
                    attached
                };
                match c {
                    'R' | 'L' | 'D' => forwards.push((c, v)),
                    'o' => {
                        let (key, val) = v
                            .split_once(['=', ' '])
                            .map_or((v, ""), |(k, val)| (k, val.trim()));
                        match key.to_ascii_lowercase().as_str() {
                            "remoteforward" => forwards.push(('R', val)),
                            "localforward" => forwards.push(('L', val)),
                            "dynamicforward" => forwards.push(('D', val)),
                            "gatewayports" => gateway |= val.eq_ignore_ascii_case("yes"),
                            _ => {}
                        }
                    }
                    _ => {}
                }
                break;
            }
        }
    }
    for (kind, spec) in forwards {
        // `[bind:]port:host:hostport`: a bind address before the port opens it beyond loopback
        // unless it is a loopback one.
        let parts: Vec<&str> = spec.split([':', ' ']).collect();
        // An empty bind address, like `*`, is every interface.
        let bind = (parts.len() >= 4 || (kind == 'D' && parts.len() >= 2)).then(|| parts[0]);
        let open_local = gateway || bind.is_some_and(|b| !local_bind(b));
        let opens = match kind {
            'R' | 'D' => true,
            _ => open_local,
        };
        if opens {
            site.say(catalogue::LISTEN_TUNNEL, &format!("`ssh -{kind} {spec}`"));
        }
    }
}

/// `nc -l … -e PROGRAM` (or `-c`, `--exec`, `--sh-exec`, `--lua-exec`): a program for each
/// connection.
fn netcat(literal: &[&str], site: &mut Site) {
    let short = |t: &str, c: char| t.starts_with('-') && !t.starts_with("--") && t.contains(c);
    let listens = literal.iter().any(|t| *t == "--listen" || short(t, 'l'));
    let runs = literal.iter().any(|t| {
        matches!(*t, "--exec" | "--sh-exec" | "--lua-exec")
            || t.starts_with("--exec=")
            || t.starts_with("--sh-exec=")
            || short(t, 'e')
            || short(t, 'c')
    });
    if listens && runs {
        site.say(catalogue::LISTEN_SHELL, "`nc -l` with a program to run");
    }
}

/// `socat LISTEN-ADDRESS EXEC:…|SYSTEM:…`: a program for each connection.
fn socat(literal: &[&str], site: &mut Site) {
    let upper: Vec<String> = literal.iter().map(|t| t.to_ascii_uppercase()).collect();
    let listens = upper.iter().any(|t| {
        let kind = t.split([':', ',']).next().unwrap_or("");
        kind.ends_with("-LISTEN") || kind.ends_with("-L") || kind == "TCP-L" || kind == "UDP-RECV"
    });
    let runs = upper
        .iter()
        .any(|t| t.starts_with("EXEC:") || t.starts_with("SYSTEM:"));
    if listens && runs {
        site.say(
            catalogue::LISTEN_SHELL,
            "`socat` listening with a program to run",
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::analyse::{Surroundings, shell};

    const CTX: Surroundings<'static> = Surroundings {
        cwd: "/home/u/proj",
        home: Some("/home/u"),
        project: Some("/home/u/proj"),
        truncated: false,
    };

    /// Each line, and the listener finding it must have (`None`: no listener finding).
    #[test]
    fn listeners_by_what_they_serve_and_where() {
        let cases: &[(&str, Option<&str>)] = &[
            ("python3 -m http.server -d ~", Some("send.secret")),
            (
                "python3 -m http.server --bind 0.0.0.0 --directory /",
                Some("send.secret"),
            ),
            ("cd ~ && python3 -m http.server 8080", Some("send.secret")),
            ("python3 -m http.server 8000", None),
            ("python3 -m http.server -b 127.0.0.1 -d ~", None),
            ("php -S 0.0.0.0:80 -t ~", Some("send.secret")),
            ("php -S localhost:8000 -t ~", None),
            ("php -S 0.0.0.0:8000 -t public", None),
            ("busybox httpd -f -p 8080 -h /home/u", Some("send.secret")),
            ("npx serve ~", Some("send.secret")),
            ("npx --yes http-server@14 / -p 9000", Some("send.secret")),
            ("npx serve dist", None),
            ("ruby -run -e httpd ~ -p 8000", Some("send.secret")),
            (
                "git daemon --base-path=/home/u --export-all",
                Some("send.secret"),
            ),
            ("git daemon --enable=receive-pack .", Some("expose.history")),
            ("git daemon --export-all --base-path=.", None),
            ("ssh -R 8080:localhost:22 h", Some("expose.machine")),
            ("ngrok http 8000", Some("expose.machine")),
            ("ngrok tcp 22", Some("expose.machine")),
            ("ngrok config add-authtoken x", None),
            ("ngrok version", None),
            (
                "cloudflared tunnel --url http://localhost:22",
                Some("expose.machine"),
            ),
            ("cloudflared tunnel run home", Some("expose.machine")),
            ("cloudflared tunnel list", None),
            ("tailscale funnel 22", Some("expose.machine")),
            ("tailscale serve --bg 3000", Some("expose.machine")),
            ("tailscale funnel status", None),
            ("tailscale serve reset", None),
            ("tailscale status", None),
            ("bore local 8000 --to bore.pub", Some("expose.machine")),
            ("lt --port 8000", Some("expose.machine")),
            ("lt --help", None),
            (
                "chisel client https://x.example R:2222:localhost:22",
                Some("expose.machine"),
            ),
            ("chisel client https://x.example 3000:db:5432", None),
            ("zrok share public localhost:8080", Some("expose.machine")),
            ("cloudflared --url localhost:8080", Some("expose.machine")),
            ("cloudflared service install eyJh", Some("expose.machine")),
            ("tailscale up --ssh", Some("expose.machine")),
            ("tailscale up", None),
            (
                "code tunnel --accept-server-license-terms",
                Some("expose.machine"),
            ),
            ("code tunnel status", None),
            ("code .", None),
            (
                "devtunnel host -p 22 --allow-anonymous",
                Some("expose.machine"),
            ),
            ("devtunnel list", None),
            (
                "ssh -fNR 0.0.0.0:2222:127.0.0.1:22 h",
                Some("expose.machine"),
            ),
            ("ssh -D 1080 -N h", Some("expose.machine")),
            ("ssh -g -L 8000:localhost:8000 h", Some("expose.machine")),
            ("ssh -L '*:5432:db:5432' h", Some("expose.machine")),
            (
                "ssh -o RemoteForward='9000 localhost:9000' h",
                Some("expose.machine"),
            ),
            (
                "ssh -o GatewayPorts=yes -L 80:web:80 h",
                Some("expose.machine"),
            ),
            ("ssh -L 5432:localhost:5432 h", None),
            ("ssh -L 127.0.0.1:8080:app:80 h", None),
            ("ssh -i ~/.ssh/id_ed25519 -p 2222 h uptime", None),
            ("nc -l -p 4444 -e /bin/sh", Some("expose.machine")),
            ("ncat -lvp 4444 --sh-exec 'cat'", Some("expose.machine")),
            ("nc -l 4444", None),
            ("nc -zv localhost 5432", None),
            (
                "socat TCP-LISTEN:4444,fork EXEC:/bin/bash",
                Some("expose.machine"),
            ),
            (
                "socat tcp4-listen:9,reuseaddr system:'sh -i'",
                Some("expose.machine"),
            ),
            ("socat - TCP:localhost:6379", None),
        ];
        let mut wrong = Vec::new();
        for (line, want) in cases {
            let a = shell(line, &CTX);
            let ids: Vec<&str> = a.findings.iter().map(|f| f.id).collect();
            let listener = a
                .findings
                .iter()
                .find(|f| {
                    ["send.secret", "expose.machine", "expose.history"].contains(&f.id)
                        && ["connect", "serves", "tunnel"]
                            .iter()
                            .any(|w| f.message.contains(w))
                })
                .map(|f| f.id);
            if listener != *want {
                wrong.push(format!("{line:?}: {ids:?}, want {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
    }
}
