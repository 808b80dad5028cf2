//! The network: `curl` and `wget` (what they upload, where they save, which method they use),
//! httpie, `rsync` and `scp` (what they copy from and over, on which host), `nc`, mail, DNS
//! lookups, and `ssh-keygen`'s rewrites of keys. A file saved from the network is remembered,
//! so running it later on the line is running code nobody has seen. What each sends is
//! handed to the site word by word, in the slot it goes in, so that secret data in it is told
//! as a leak (`secrets`).

use super::super::act::{Site, Slot};
use super::super::effects::Effect::{Change, Delete, Overwrite, Read, Send, Write};
use super::super::getopt::{self, Grammar, Style};
use super::super::secrets;
use super::super::words::Word;
use super::cloud;
use crate::places::{Kind, Piece};

pub(crate) const CURL: Grammar = Grammar {
    short: "A:b:c:C:d:D:e:E:F:H:K:m:o:P:Q:r:T:u:U:w:x:X:y:Y:z:",
    long: &[
        "data=",
        "data-ascii=",
        "data-binary=",
        "data-raw=",
        "data-urlencode=",
        "form=",
        "form-string=",
        "json=",
        "upload-file=",
        "output=",
        "output-dir=",
        "remote-name",
        "remote-name-all",
        "remote-header-name",
        "config=",
        "cookie=",
        "cookie-jar=",
        "dump-header=",
        "trace=",
        "trace-ascii=",
        "stderr=",
        "request=",
        "header=",
        "user=",
        "url=",
        "cert=",
        "key=",
        "cacert=",
        "netrc-file=",
        "write-out=",
        "max-time=",
        "connect-timeout=",
        "retry=",
        "proxy=",
        "user-agent=",
        "referer=",
        "range=",
        "variable=",
        "url-query=",
        "proxy-header=",
        "libcurl=",
        "key-type=",
        "cert-type=",
        "etag-save=",
        "etag-compare=",
        "hsts=",
        "alt-svc=",
        "oauth2-bearer=",
        "proxy-user=",
        "aws-sigv4=",
        "unix-socket=",
        "abstract-unix-socket=",
        "resolve=",
        "connect-to=",
        "interface=",
        "mail-from=",
        "mail-rcpt=",
        "login-options=",
        "silent",
        "show-error",
        "fail",
        "location",
        "insecure",
        "include",
        "head",
        "get",
        "verbose",
        "compressed",
        "help",
        "version",
    ],
    style: Style::Gnu,
};

/// The file an `@FILE` or `<FILE` value reads (`-d @.env`, `-F key=@id_rsa`, `--data-urlencode
/// name@file`).
fn data_file<'s>(value: &Word<'s>) -> Option<Word<'s>> {
    let text = value.literal().unwrap_or(value.raw);
    if let Some(at) = text.find(['@', '<']) {
        let before = &text[..at];
        // `name=@file` (a form), `@file`, `name@file` (urlencode): the file follows.
        if before.is_empty() || before.ends_with('=') || !before.contains(['=', '@']) {
            return Some(value.tail(at + 1));
        }
    }
    None
}

/// The file name `-O` saves a URL as: its last path segment.
fn remote_name(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next()?;
    let (_, after) = path.split_once("://")?;
    let name = after.split('/').skip(1).last()?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// curl's method: `-X`/`--request`, read by curl's own grammar.
const CURL_METHODS: cloud::Methods = cloud::Methods {
    grammar: CURL,
    options: &["X", "request"],
    first_operand: false,
};

pub fn curl<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if cloud::http_delete(words, &CURL_METHODS, site) {
        return;
    }
    let a = getopt::parse(words, &CURL);
    if a.only_help() {
        return;
    }
    let mut sends = false;
    let mut reads = Vec::new();
    for v in a.values(&[
        "d",
        "data",
        "data-ascii",
        "data-binary",
        "data-urlencode",
        "F",
        "form",
        "json",
    ]) {
        sends = true;
        if let Some(file) = data_file(v) {
            reads.push(file);
        }
    }
    // `--unix-socket PATH`: the request goes to whatever serves that socket.
    for v in a.values(&["unix-socket", "abstract-unix-socket"]) {
        site.on(Change, v);
    }
    let uploads: Vec<Word> = a.values(&["T", "upload-file"]).cloned().collect();
    reads.extend(
        a.values(&["K", "config", "b", "cookie", "netrc-file", "etag-compare"])
            .cloned(),
    );
    // `-H @file`, `-w @file`, `--variable name@file`, `--url-query @file`: a file's contents
    // in a header, the output or the request.
    for v in a.values(&["H", "header", "proxy-header", "variable", "url-query"]) {
        if let Some(file) = data_file(v) {
            sends = true;
            reads.push(file);
        }
    }
    reads.extend(a.values(&["w", "write-out"]).filter_map(data_file));
    // `file:///home/u/.ssh/id_rsa`: the URL is a local file.
    for url in a.operands.iter().copied().chain(a.values(&["url"])) {
        if let Some(text) = url.literal()
            && let Some(path) = text.strip_prefix("file://")
        {
            let path = path.trim_start_matches("localhost");
            reads.push(Word::made(path.to_owned(), url.raw, url.span.clone()));
        }
    }
    let outputs: Vec<Word> = a
        .values(&[
            "o",
            "output",
            "c",
            "cookie-jar",
            "D",
            "dump-header",
            "trace",
            "trace-ascii",
            "stderr",
            "libcurl",
            "etag-save",
            "hsts",
            "alt-svc",
        ])
        .cloned()
        .collect();
    let saved: Vec<Word> = a.values(&["o", "output"]).cloned().collect();
    curl_sends(&a, site);
    let method = a
        .value(&["X", "request"])
        .and_then(Word::literal)
        .map(str::to_ascii_uppercase);
    sends |= !uploads.is_empty() || method.as_deref().is_some_and(|m| m != "GET" && m != "HEAD");
    for r in &reads {
        site.on(Read, r);
    }
    for u in &uploads {
        site.on(Read, u);
    }
    for o in &outputs {
        site.on(Overwrite, o);
    }
    for s in &saved {
        site.fetched_into(s);
    }
    // `--output-dir DIR`: what `-o` and `-O` save lands in DIR.
    let out_dirs: Vec<Word> = a.values(&["output-dir"]).cloned().collect();
    for d in &out_dirs {
        site.tree(Write, d);
    }
    if a.has(&["O", "remote-name", "remote-name-all"]) {
        let urls: Vec<String> = a
            .operands
            .iter()
            .filter_map(|w| w.literal())
            .filter_map(remote_name)
            .collect();
        for name in urls {
            let w = Word::made(name, "", 0..0);
            site.on(Write, &w);
            site.fetched_into(&w);
        }
    }
    if sends {
        site.place(Send, Kind::Remote, "a remote server".to_owned());
    }
}

/// Options of curl whose value goes where a client takes credentials: headers, the login,
/// cookies, a bearer token.
const CURL_LOGIN: &[&str] = &[
    "H",
    "header",
    "proxy-header",
    "u",
    "user",
    "U",
    "proxy-user",
    "oauth2-bearer",
    "b",
    "cookie",
    "aws-sigv4",
    "login-options",
];

/// Options of curl whose value is a local file or socket, or is never sent.
const CURL_LOCAL: &[&str] = &[
    "o",
    "output",
    "output-dir",
    "c",
    "cookie-jar",
    "D",
    "dump-header",
    "trace",
    "trace-ascii",
    "stderr",
    "libcurl",
    "etag-save",
    "etag-compare",
    "hsts",
    "alt-svc",
    "K",
    "config",
    "netrc-file",
    "cert",
    "E",
    "key",
    "cacert",
    "unix-socket",
    "abstract-unix-socket",
    "w",
    "write-out",
    "m",
    "max-time",
    "connect-timeout",
    "retry",
    "key-type",
    "cert-type",
    "X",
    "request",
];

/// What curl sends of secrets: the URLs, each option's value in its slot, the files it
/// uploads or posts, and its input for `@-` and `-T -`.
fn curl_sends<'s>(a: &getopt::Args<'_, 's>, site: &mut Site<'_, 's, '_, '_>) {
    let (attached, operands): (Vec<&Word>, Vec<&Word>) = a
        .operands
        .iter()
        .copied()
        .partition(|w| attached_option(w).is_some());
    let urls: Vec<Word> = operands
        .into_iter()
        .cloned()
        .chain(a.values(&["url"]).cloned())
        .collect();
    for url in &urls {
        site.sends_url(url);
    }
    site.sends_to(urls.iter().map(secrets::url_host).collect());
    let options = a
        .opts
        .iter()
        .filter_map(|o| Some((o.name.as_ref(), o.value.as_ref()?)))
        .chain(
            attached
                .into_iter()
                .filter_map(|w| Some((attached_option(w)?, w))),
        );
    for (name, value) in options {
        if CURL_LOCAL.contains(&name) {
            continue;
        }
        let file = data_file(value).filter(|_| name != "u" && name != "user");
        match (name, file) {
            ("T" | "upload-file", _) => {
                if matches!(value.literal(), Some("-" | ".")) {
                    site.sends_input();
                } else {
                    site.sends_file(value, false);
                }
            }
            (_, Some(file)) if matches!(file.literal(), Some("-" | "/dev/stdin")) => {
                site.sends_input();
            }
            // `-b FILE` reads cookies from a file: it sends them, as cookies.
            ("b" | "cookie", _) if !value.text.contains('=') => {}
            (_, Some(file)) => {
                site.sends_file(&file, false);
                site.sends(value, Slot::Request);
            }
            (n, None) if CURL_LOGIN.contains(&n) => site.sends(value, Slot::Login),
            _ => site.sends(value, Slot::Request),
        }
    }
    let hosts: Vec<Option<String>> = urls.iter().map(secrets::url_host).collect();
    if !hosts.is_empty()
        && hosts
            .iter()
            .all(|h| h.as_deref().is_some_and(secrets::loopback))
    {
        site.stays_local();
    }
}

/// A word only known at run time written as an option with its value attached
/// (`--header="X: $T"`, `-d"$X"`): the grammar leaves it an operand, the program reads it as
/// that option. Its name.
fn attached_option<'w>(w: &'w Word) -> Option<&'w str> {
    if !w.dynamic {
        return None;
    }
    let t = w.raw.trim_start_matches(['"', '\'']);
    if let Some(long) = t.strip_prefix("--") {
        return long.split_once('=').map(|(name, _)| name);
    }
    t.strip_prefix('-')?
        .get(..1)
        .filter(|c| c.bytes().all(|b| b.is_ascii_alphabetic()))
}

pub(crate) const WGET: Grammar = Grammar {
    short: "A:B:D:I:O:P:Q:R:T:U:X:a:e:i:l:o:t:w:",
    long: &[
        "output-document=",
        "directory-prefix=",
        "output-file=",
        "append-output=",
        "input-file=",
        "post-file=",
        "body-file=",
        "post-data=",
        "body-data=",
        "method=",
        "load-cookies=",
        "save-cookies=",
        "execute=",
        "config=",
        "header=",
        "user=",
        "password=",
        "http-user=",
        "http-password=",
        "proxy-user=",
        "proxy-password=",
        "ftp-user=",
        "ftp-password=",
        "spider",
        "help",
        "version",
    ],
    style: Style::Gnu,
};

pub fn wget<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    const WGET_METHODS: cloud::Methods = cloud::Methods {
        grammar: WGET,
        options: &["method"],
        first_operand: false,
    };
    if cloud::http_delete(words, &WGET_METHODS, site) {
        return;
    }
    let a = getopt::parse(words, &WGET);
    if a.only_help() {
        return;
    }
    wget_sends(&a, site);
    let reads: Vec<Word> = a
        .values(&[
            "i",
            "input-file",
            "post-file",
            "body-file",
            "load-cookies",
            "config",
        ])
        .cloned()
        .collect();
    let logs: Vec<Word> = a
        .values(&["o", "output-file", "a", "append-output", "save-cookies"])
        .cloned()
        .collect();
    let documents: Vec<Word> = a.values(&["O", "output-document"]).cloned().collect();
    let dirs: Vec<Word> = a.values(&["P", "directory-prefix"]).cloned().collect();
    for r in &reads {
        site.on(Read, r);
    }
    for l in &logs {
        site.on(Write, l);
    }
    if a.has(&["spider"]) {
        return;
    }
    for d in &documents {
        site.on(Overwrite, d);
        site.fetched_into(d);
    }
    if documents.is_empty() {
        let names: Vec<String> = a
            .operands
            .iter()
            .filter_map(|w| w.literal())
            .filter_map(remote_name)
            .collect();
        for d in &dirs {
            site.tree(Write, d);
        }
        for name in names {
            let w = match dirs.first().and_then(Word::literal) {
                Some(dir) => Word::made(format!("{dir}/{name}"), "", 0..0),
                None => Word::made(name, "", 0..0),
            };
            site.on(Write, &w);
            site.fetched_into(&w);
        }
    }
    if a.has(&["post-file", "body-file", "post-data", "body-data"]) {
        site.place(Send, Kind::Remote, "a remote server".to_owned());
    }
}

/// What wget sends of secrets: the URLs, the POST data and files, headers and logins where
/// they belong, and its input for `--post-file=/dev/stdin` or `-i -`.
fn wget_sends<'s>(a: &getopt::Args<'_, 's>, site: &mut Site<'_, 's, '_, '_>) {
    const LOGIN: &[&str] = &[
        "header",
        "user",
        "password",
        "http-user",
        "http-password",
        "proxy-user",
        "proxy-password",
        "ftp-user",
        "ftp-password",
    ];
    let (attached, urls): (Vec<&Word>, Vec<&Word>) = a
        .operands
        .iter()
        .copied()
        .partition(|w| attached_option(w).is_some());
    for url in &urls {
        site.sends_url(url);
    }
    site.sends_to(urls.iter().map(|w| secrets::url_host(w)).collect());
    let options = a
        .opts
        .iter()
        .filter_map(|o| Some((o.name.as_ref(), o.value.as_ref()?)))
        .chain(
            attached
                .into_iter()
                .filter_map(|w| Some((attached_option(w)?, w))),
        );
    for (name, value) in options {
        match name {
            "post-file" | "body-file" | "i" | "input-file" => {
                if matches!(value.literal(), Some("-" | "/dev/stdin")) {
                    site.sends_input();
                } else if matches!(name, "post-file" | "body-file") {
                    site.sends_file(value, false);
                }
            }
            "post-data" | "body-data" => site.sends(value, Slot::Request),
            n if LOGIN.contains(&n) => site.sends(value, Slot::Login),
            _ => {}
        }
    }
    let hosts: Vec<Option<String>> = urls.iter().map(|w| secrets::url_host(w)).collect();
    if !hosts.is_empty()
        && hosts
            .iter()
            .all(|h| h.as_deref().is_some_and(secrets::loopback))
    {
        site.stays_local();
    }
}

/// What httpie sends of secrets. `NAME:VALUE` items are headers (where credentials go), as is
/// `-a`/`--auth`; `NAME=VALUE`, `NAME:=JSON`, `NAME==QUERY` and the URL are the request; it
/// sends what it reads on its input as the body unless told to ignore it.
fn httpie_sends<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    const METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
    let mut url_seen = false;
    let mut login_next = false;
    let mut ignores_input = false;
    let mut local = false;
    for w in words {
        // A dynamic word's text is as written: its separator is still there to find.
        let t = w.text.as_str();
        if login_next {
            site.sends(w, Slot::Login);
            login_next = false;
            continue;
        }
        if t.starts_with('-') {
            match t {
                "-a" | "--auth" => login_next = true,
                "-I" | "--ignore-stdin" => ignores_input = true,
                _ if t.starts_with("--auth=") => site.sends(w, Slot::Login),
                _ => {}
            }
            continue;
        }
        if !url_seen && METHODS.contains(&t) {
            continue;
        }
        if !url_seen {
            url_seen = true;
            site.sends_url(w);
            local = secrets::url_host(w).is_some_and(|h| secrets::loopback(&h))
                || t.starts_with(":/")
                || t.starts_with(':') && t[1..].starts_with(|c: char| c.is_ascii_digit());
            continue;
        }
        let sep = t.find(['=', ':', '@']);
        match sep.map(|i| &t[i..]) {
            Some(rest) if rest.starts_with(':') && !rest.starts_with(":=") => {
                site.sends(w, Slot::Login)
            }
            _ => site.sends(w, Slot::Request),
        }
    }
    if !ignores_input {
        site.sends_input();
    }
    if local {
        site.stays_local();
    }
}

/// httpie: `http [METHOD] URL [ITEM…]`; `field=@file` and `@file` send a file.
pub fn httpie<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if cloud::http_delete(words, cloud::HTTPIE_METHODS, site) {
        return;
    }
    httpie_sends(words, site);
    let mut sends = false;
    for w in words {
        let Some(t) = w.literal() else { continue };
        if t.starts_with('-') {
            continue;
        }
        if let Some(at) = t.find("=@").or_else(|| t.find(":=@")) {
            let skip = if t[at..].starts_with(":=@") { 3 } else { 2 };
            let file = w.tail(at + skip);
            site.on(Read, &file);
            site.sends_file(&file, false);
            sends = true;
        } else if t.starts_with('@') {
            let file = w.tail(1);
            site.on(Read, &file);
            site.sends_file(&file, false);
            sends = true;
        } else if let Some(at) = t.find('@').filter(|at| {
            // `field@path`: a form's file field (httpie expands a `~` in it).
            *at > 0
                && !t.contains("://")
                && !t.contains('=')
                && t[..*at]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        }) {
            let file = site.st.home_word(&w.tail(at + 1));
            site.on(Read, &file);
            site.sends_file(&file, false);
            sends = true;
        } else if t.contains('=') && !t.contains("://") {
            sends = true;
        }
    }
    let output: Vec<Word> = words
        .windows(2)
        .filter(|w| matches!(w[0].literal(), Some("-o" | "--output")))
        .map(|w| w[1].clone())
        .collect();
    for o in &output {
        site.on(Overwrite, o);
        site.fetched_into(o);
    }
    if sends {
        site.place(Send, Kind::Remote, "a remote server".to_owned());
    }
}

/// A `HOST:PATH` operand of `rsync` or `scp`: the path on the other machine, seen from an
/// unknown home there.
fn remote_path(w: &Word) -> Option<Vec<Piece>> {
    let t = w.literal()?;
    let (host, path) = t.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let path = path.strip_prefix("//").unwrap_or(path);
    Some(match path {
        "" | "~" => vec![Piece::Home],
        p if p.starts_with('/') => vec![Piece::Lit(p.to_owned())],
        p => vec![
            Piece::Home,
            Piece::Lit(format!("/{}", p.strip_prefix("~/").unwrap_or(p))),
        ],
    })
}

/// `rsync SRC… DEST`, `scp SRC… DEST`: reads the sources, writes over the destination;
/// `--delete` deletes in the destination what the sources lack. A remote side is on
/// another machine, whose protected files are still protected.
fn copy_over<'s>(
    site: &mut Site<'_, 's, '_, '_>,
    ops: &[Word<'s>],
    tree: bool,
    delete: Option<&str>,
    move_sources: bool,
) {
    let Some((dest, sources)) = ops.split_last().filter(|(_, s)| !s.is_empty()) else {
        return;
    };
    for s in sources {
        if remote_path(s).is_some() {
            continue;
        }
        let effect = if move_sources { Delete } else { Read };
        if tree {
            site.tree(effect, s);
        } else {
            site.on(effect, s);
        }
    }
    // Into a directory (several sources, a trailing `/`, a tree) it creates files; onto one
    // file it replaces it.
    let into = sources.len() > 1 || dest.raw.ends_with('/') || tree;
    let lands = if into { Write } else { Overwrite };
    match remote_path(dest) {
        Some(pieces) => {
            for s in sources {
                if remote_path(s).is_none() {
                    site.sends_file(s, tree);
                }
            }
            let path = site.st.remote_path_of(&pieces);
            let shown = format!("{} (on another machine)", dest.quoted());
            site.on_paths(lands, vec![path.clone()], tree, shown.clone());
            if let Some(option) = delete {
                site.on_paths(Delete, vec![path], true, format!("{shown} with `{option}`"));
            }
            site.place(Send, Kind::Remote, dest.quoted());
        }
        None => {
            site.tree(lands, dest);
            if delete.is_some() {
                site.tree(Delete, dest);
            }
            for s in sources {
                if remote_path(s).is_some() {
                    site.fetched_into(dest);
                }
            }
        }
    }
}

/// rsync options that delete in the destination (`--del` is `--delete-during`).
const RSYNC_DELETES: &[&str] = &[
    "del",
    "delete",
    "delete-before",
    "delete-during",
    "delete-delay",
    "delete-after",
    "delete-excluded",
    "delete-missing-args",
];

pub(crate) const RSYNC: Grammar = Grammar {
    short: "e:f:B:T:M:",
    long: &[
        "rsh=",
        "filter=",
        "exclude=",
        "include=",
        "exclude-from=",
        "include-from=",
        "files-from=",
        "rsync-path=",
        "out-format=",
        "log-file=",
        "password-file=",
        "temp-dir=",
        "partial-dir=",
        "backup-dir=",
        "compare-dest=",
        "link-dest=",
        "copy-dest=",
        "chmod=",
        "chown=",
        "archive",
        "recursive",
        "dry-run",
        "list-only",
        "remove-source-files",
        "del",
        "delete",
        "delete-before",
        "delete-during",
        "delete-delay",
        "delete-after",
        "delete-excluded",
        "delete-missing-args",
        "help",
        "version",
    ],
    style: Style::Gnu,
};

pub fn rsync<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let a = getopt::parse(words, &RSYNC);
    if a.only_help() || a.has(&["n", "dry-run", "list-only"]) {
        return;
    }
    let reads: Vec<Word> = a
        .values(&[
            "exclude-from",
            "include-from",
            "files-from",
            "password-file",
        ])
        .cloned()
        .collect();
    for r in &reads {
        site.on(Read, r);
    }
    let logs: Vec<Word> = a.values(&["log-file"]).cloned().collect();
    for l in &logs {
        site.on(Write, l);
    }
    let delete = RSYNC_DELETES
        .iter()
        .find(|d| a.has(&[d]))
        .map(|d| format!("--{d}"));
    let tree = a.has(&["r", "a", "recursive", "archive"]);
    let ops: Vec<Word> = a.operands.iter().map(|w| (*w).clone()).collect();
    // `--remove-source-files` deletes what it sent.
    let moves = a.has(&["remove-source-files"]);
    copy_over(site, &ops, tree, delete.as_deref(), moves);
}

pub(crate) const SCP: Grammar = Grammar {
    short: "c:F:i:J:l:o:P:S:X:D:",
    long: &[],
    style: Style::Gnu,
};

pub fn scp<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let a = getopt::parse(words, &SCP);
    let tree = a.has(&["r"]);
    let ops: Vec<Word> = a.operands.iter().map(|w| (*w).clone()).collect();
    copy_over(site, &ops, tree, None, false);
}

/// `nc HOST PORT`: whatever it reads goes to the network.
pub fn netcat<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if words
        .iter()
        .any(|w| matches!(w.literal(), Some("-h" | "--help" | "--version")))
    {
        return;
    }
    // `-U`/`--unixsock`: the operand is a Unix socket, and whatever serves it acts on what
    // is sent.
    let unix = words.iter().filter_map(Word::literal).any(|t| {
        t == "--unixsock" || (t.starts_with('-') && !t.starts_with("--") && t.contains('U'))
    });
    if unix {
        site.sends_input();
        for w in words.iter().filter(|w| !w.text.starts_with('-')) {
            site.on(Change, w);
        }
        return;
    }
    connects(words, site);
    site.place(Send, Kind::Remote, "a network connection".to_owned());
}

/// A program that connects to a host and sends what it reads (`nc`, `socat`, `openssl
/// s_client`): its input and its words (the host is looked up) go to the network, unless every
/// host it names is this machine.
pub fn connects<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    site.sends_input();
    for w in words {
        site.sends(w, Slot::Address);
    }
    let hosts: Vec<&str> = words
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-') && !t.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let host = |t: &str| {
        // `TCP:localhost:80`, `localhost:443`, `localhost`.
        let t = t.rsplit_once(':').map_or(t, |(h, _)| h);
        let t = t.rsplit_once(':').map_or(t, |(_, h)| h);
        secrets::loopback(t)
    };
    if !hosts.is_empty()
        && words.iter().all(|w| !w.dynamic)
        && hosts.iter().all(|t| *t == "-" || host(t))
        && hosts.iter().any(|t| host(t))
    {
        site.stays_local();
    }
}

/// `dig NAME`, `ping HOST`, `nslookup`, `host`, `traceroute`, `whois`: the names they are
/// given are looked up, and whoever answers for the domain reads them.
pub fn lookup<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    for w in words {
        site.sends(w, Slot::Address);
    }
}

/// `mail`, `sendmail`, `mutt`, `msmtp`: the message they read, its subject and attachments
/// go to a mail server.
pub fn mail<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    site.sends_input();
    let mut attach_next = false;
    for w in words {
        if attach_next {
            site.on(Read, w);
            site.sends_file(w, false);
            attach_next = false;
            continue;
        }
        // `-a FILE` (mutt, s-nail) and `-A FILE` (mailutils) attach a file.
        if matches!(w.literal(), Some("-a" | "-A" | "--attach")) {
            attach_next = true;
            continue;
        }
        site.sends(w, Slot::Request);
    }
}

pub(crate) const KEYGEN: Grammar = Grammar {
    short: "a:b:C:E:f:F:I:J:m:N:n:O:P:r:R:s:t:V:w:z:Z:",
    long: &[],
    style: Style::Gnu,
};

/// `ssh-keygen`: `-p` rewrites a private key, `-R HOST` rewrites `known_hosts`, making a key
/// writes it (over an old one of the same name); listing and printing only read.
pub fn ssh_keygen<'s>(words: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let a = getopt::parse(words, &KEYGEN);
    if words
        .iter()
        .any(|w| matches!(w.literal(), Some("--help" | "--version" | "-?")))
    {
        return;
    }
    let file = a.value(&["f"]).cloned();
    if a.has(&["l", "y", "F", "L", "B", "Q", "H", "D"]) {
        return;
    }
    if a.has(&["R"]) {
        let known = file.unwrap_or_else(|| {
            Word::made("~/.ssh/known_hosts".to_owned(), "~/.ssh/known_hosts", 0..0)
        });
        let known = site.st.home_word(&known);
        site.on(Overwrite, &known);
        return;
    }
    let key = match file {
        Some(f) => f,
        None => {
            let kind = a.value(&["t"]).and_then(Word::literal).unwrap_or("ed25519");
            let default = format!("~/.ssh/id_{kind}");
            site.st.home_word(&Word::made(default, "~/.ssh/id_…", 0..0))
        }
    };
    site.on(Overwrite, &key);
}
