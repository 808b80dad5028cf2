//! Key-value and document stores: `redis-cli` (and `valkey-cli`) commands given as words or
//! read from the input, the Lua they hand the server (`EVAL`, `FUNCTION LOAD`), and `mongosh`
//! scripts.
//!
//! Lua is read for the commands it calls: `redis.call('FLUSHALL')` costs what `FLUSHALL`
//! does. A script that names its commands only at run time, reaches the server some other
//! way, or is stored in the server (`EVALSHA`, `FCALL`) cannot be read here: opaque.

use super::super::super::State;
use super::super::super::act::Site;
use super::super::super::catalogue::{self, Said};
use super::super::super::getopt::Args;
use super::super::super::recurse::{Ctx, Job};
use super::{Text, command_span, level, option_values, stdin_text};

/// Options of redis-cli that take a value.
const REDIS_VALUED: &[&str] = &[
    "-h",
    "-p",
    "-s",
    "-a",
    "-u",
    "-n",
    "-r",
    "-i",
    "-d",
    "-D",
    "--user",
    "--pass",
    "--eval",
    "--pattern",
    "--quoted-pattern",
    "--count",
    "--rdb",
    "--functions-rdb",
    "--cacert",
    "--cacertdir",
    "--cert",
    "--key",
    "--sni",
    "--tls-ciphers",
    "--tls-ciphersuites",
    "--memkeys-samples",
    "--pipe-timeout",
    "--intrinsic-latency",
    "-t",
];

/// Redis commands that only read.
const REDIS_READS: &[&str] = &[
    "GET",
    "MGET",
    "KEYS",
    "SCAN",
    "INFO",
    "PING",
    "TTL",
    "PTTL",
    "TYPE",
    "EXISTS",
    "HGET",
    "HGETALL",
    "HKEYS",
    "HVALS",
    "HLEN",
    "HEXISTS",
    "HMGET",
    "HSCAN",
    "LRANGE",
    "LLEN",
    "LINDEX",
    "SMEMBERS",
    "SCARD",
    "SISMEMBER",
    "SSCAN",
    "ZRANGE",
    "ZCARD",
    "ZSCORE",
    "ZRANK",
    "ZSCAN",
    "ZRANGEBYSCORE",
    "ZREVRANGE",
    "DBSIZE",
    "MONITOR",
    "STRLEN",
    "SLOWLOG",
    "SELECT",
    "ECHO",
    "TIME",
    "LASTSAVE",
    "ROLE",
    "MEMORY",
    "OBJECT",
    "DUMP",
    "XRANGE",
    "XREVRANGE",
    "XLEN",
    "XINFO",
    "XREAD",
    "PFCOUNT",
    "GETRANGE",
    "BITCOUNT",
    "GETBIT",
    "RANDOMKEY",
    "SUBSCRIBE",
    "PSUBSCRIBE",
    "PUBSUB",
    "COMMAND",
    "LATENCY",
    "HELLO",
    "AUTH",
    "CLUSTER",
    "QUIT",
    "WAIT",
    "GEOPOS",
    "GEODIST",
    "GEORADIUS_RO",
    "GEOSEARCH",
    "SRANDMEMBER",
    "TOUCH",
    "SUBSTR",
    "LPOS",
];

/// What one redis command costs, or `None` when it only reads. `words`: the command and its
/// arguments; `None` for an argument only known at run time.
fn command(words: &[Option<String>]) -> Option<(Said, String)> {
    let name = words.first()?.as_deref()?.to_ascii_uppercase();
    let arg = |i: usize| -> Option<String> {
        words
            .get(i)
            .and_then(|w| w.as_deref())
            .map(str::to_ascii_uppercase)
    };
    let shown = format!("`{name}`");
    let sub = arg(1).unwrap_or_default();
    let with_sub = format!("`{name} {sub}`");
    let kind = match name.as_str() {
        "FLUSHALL" | "FLUSHDB" => catalogue::DATA_DROP,
        // `DEL $(redis-cli KEYS '*')`, `xargs redis-cli DEL`: keys a listing gives, which may
        // be every key.
        "DEL" | "UNLINK" if words.iter().skip(1).any(Option::is_none) => catalogue::DATA_DROP,
        "SHUTDOWN" => catalogue::DATA_STOP,
        "DEBUG" if sub == "OBJECT" => return None,
        "DEBUG" => return Some((catalogue::DATA_STOP, with_sub)),
        "SLAVEOF" | "REPLICAOF" if sub == "NO" => catalogue::DATA_WRITE,
        "SLAVEOF" | "REPLICAOF" => catalogue::DATA_REPLACE,
        "MODULE" if sub.starts_with("LOAD") => return Some((catalogue::CODE_UNREAD, with_sub)),
        "MODULE" if sub == "LIST" => return None,
        "CONFIG" if sub == "SET" => {
            // `CONFIG SET dir /x dbfilename y`: parameters and values in pairs.
            let files = (2..words.len()).step_by(2).any(|i| {
                arg(i).is_none_or(|p| {
                    matches!(
                        p.as_str(),
                        "DIR" | "DBFILENAME" | "LOGFILE" | "APPENDFILENAME" | "APPENDDIRNAME"
                    )
                })
            });
            let kind = if files {
                catalogue::DATA_SERVER_FILES
            } else {
                catalogue::DATA_WRITE
            };
            return Some((kind, with_sub));
        }
        "CONFIG" if sub == "GET" => return None,
        "EVAL" | "EVAL_RO" => return script(words.get(1).cloned().flatten(), &name),
        "EVALSHA" | "EVALSHA_RO" | "FCALL" | "FCALL_RO" => {
            return Some((
                catalogue::CODE_UNREAD,
                format!("`{name}`, a script stored in the server,"),
            ));
        }
        "FUNCTION" | "SCRIPT" if sub == "LOAD" => {
            return script(words.last().cloned().flatten(), &with_sub);
        }
        "FUNCTION" | "SCRIPT" if matches!(sub.as_str(), "LIST" | "DUMP" | "STATS" | "EXISTS") => {
            return None;
        }
        n if REDIS_READS.contains(&n) => return None,
        _ => catalogue::DATA_WRITE,
    };
    Some((kind, shown))
}

/// A Lua script for the server: what its calls cost, or opaque.
fn script(code: Option<String>, what: &str) -> Option<(Said, String)> {
    let unread = || Some((catalogue::CODE_UNREAD, format!("the Lua script of {what}")));
    let Some(code) = code else { return unread() };
    let Some(calls) = lua_calls(&code) else {
        return unread();
    };
    calls
        .iter()
        .filter_map(|c| command(c))
        .max_by_key(|(k, _)| level(*k))
        .map(|(k, d)| (k, format!("{d} called by the Lua script of {what}")))
}

/// Names that give Lua other ways to reach the server or to run text as code.
const LUA_ESCAPES: &[&str] = &[
    "loadstring",
    "load",
    "dofile",
    "loadfile",
    "getfenv",
    "setfenv",
    "_G",
    "rawget",
    "rawset",
    "require",
    "_ENV",
];

/// Methods of the `redis` object that call no command.
const LUA_QUIET: &[&str] = &[
    "log",
    "sha1hex",
    "status_reply",
    "error_reply",
    "setresp",
    "set_repl",
    "replicate_commands",
    "breakpoint",
    "debug",
    "register_function",
    "acl_check_cmd",
    "REPL_ALL",
    "REPL_AOF",
    "REPL_REPLICA",
    "REPL_SLAVE",
    "REPL_NONE",
    "LOG_DEBUG",
    "LOG_VERBOSE",
    "LOG_NOTICE",
    "LOG_WARNING",
    "setresp",
    "REDIS_VERSION",
    "REDIS_VERSION_NUM",
];

/// The commands a script calls, each with its literal arguments (`None` past the first
/// argument that is not a literal string); `None` when a call's command is not a literal or
/// the script reaches the server or code some other way.
fn lua_calls(code: &str) -> Option<Vec<Vec<Option<String>>>> {
    let b = code.as_bytes();
    let mut calls = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let ident = &code[start..i];
        if LUA_ESCAPES.contains(&ident) {
            return None;
        }
        if ident != "redis" && ident != "server" {
            continue;
        }
        // `redis.call(`: anything else but a quiet method is another way to the server.
        if b.get(i) != Some(&b'.') {
            return None;
        }
        let m = i + 1;
        let mut j = m;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        let method = &code[m..j];
        i = j;
        if LUA_QUIET.contains(&method) {
            continue;
        }
        if method != "call" && method != "pcall" {
            return None;
        }
        let (args, end) = lua_args(b, code, j)?;
        calls.push(args);
        i = end;
    }
    Some(calls)
}

/// The arguments of a call at `at` (before its `(`): literal strings, then `None` for the
/// rest; `None` when the first is not a literal.
fn lua_args(b: &[u8], code: &str, at: usize) -> Option<(Vec<Option<String>>, usize)> {
    let skip_ws = |mut k: usize| {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        k
    };
    let mut k = skip_ws(at);
    if b.get(k) != Some(&b'(') {
        return None;
    }
    let mut args = Vec::new();
    loop {
        k = skip_ws(k + 1);
        let q = *b.get(k)?;
        if q != b'\'' && q != b'"' {
            if args.is_empty() {
                return None;
            }
            args.push(None);
            return Some((args, k));
        }
        let close = b[k + 1..].iter().position(|&c| c == q)? + k + 1;
        let literal = code[k + 1..close].to_owned();
        k = skip_ws(close + 1);
        // `'fl'..'ushall'`: text put together when the script runs.
        if b[k..].starts_with(b"..") {
            if args.is_empty() {
                return None;
            }
            args.push(None);
            return Some((args, k));
        }
        args.push(Some(literal));
        if b.get(k) != Some(&b',') {
            return Some((args, k));
        }
    }
}

/// `redis-cli [OPTIONS] [COMMAND ARGS…]`: the command, else the commands the input holds,
/// one a line.
pub fn redis<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let mut i = 0;
    let mut eval_file = false;
    while let Some(w) = args.get(i) {
        let t = w.text.as_str();
        if w.dynamic || !t.starts_with('-') {
            break;
        }
        eval_file |= t == "--eval";
        i += if REDIS_VALUED.contains(&t) { 2 } else { 1 };
    }
    let span = command_span(job, at);
    let words: Vec<Option<String>> = args
        .get(i..)
        .unwrap_or(&[])
        .iter()
        .map(|w| w.literal().map(str::to_owned))
        .collect();
    let input = if words.is_empty() && !eval_file {
        Some(stdin_text(&job.stdin, at, &span))
    } else {
        None
    };
    let mut site = Site::new(name, Args::default(), span, st);
    if eval_file {
        site.say(
            catalogue::DATA_WRITE,
            "the Lua script file given to `--eval`",
        );
    }
    let mut found: Vec<(Said, String)> = Vec::new();
    if !words.is_empty() {
        found.extend(command(&words));
    }
    match input {
        Some(Ok(Text { text, partial, .. })) => {
            for line in text.lines() {
                let words: Vec<Option<String>> = line
                    .split_whitespace()
                    .map(|w| Some(w.trim_matches(['\'', '"']).to_owned()))
                    .collect();
                found.extend(command(&words));
            }
            if partial {
                found.push((
                    catalogue::DATA_WRITE,
                    "commands only known when the line runs".to_owned(),
                ));
            }
        }
        Some(Err(true)) => {
            found.push((
                catalogue::DATA_WRITE,
                format!("`{name}` with commands from a file or standard input"),
            ));
        }
        _ => {}
    }
    for (kind, detail) in found {
        site.say(kind, &detail);
    }
    site.report();
    true
}

/// What a mongo shell script does at worst.
fn javascript(js: &str) -> Option<Said> {
    let compact: String = js.chars().filter(|c| !c.is_whitespace()).collect();
    let has = |ps: &[&str]| ps.iter().any(|p| compact.contains(p));
    // `db["drop"+"Database"]()`, `eval(…)`: a method named when the script runs.
    if has(&["](", "eval(", "Function(", "load("]) {
        return Some(catalogue::CODE_UNREAD);
    }
    // A filter every document meets.
    if has(&["$exists:true}", "$exists:1}", "$ne:null}", "$gte:MinKey"])
        && has(&["deleteMany(", "remove(", "updateMany("])
    {
        return Some(catalogue::DATA_DELETE_ALL);
    }
    if has(&[
        "dropDatabase",
        ".drop(",
        "dropAllUsers(",
        "dropAllRoles(",
        "{drop:",
        "{\"drop\":",
    ]) {
        Some(catalogue::DATA_DROP)
    } else if has(&[
        "deleteMany({})",
        "deleteMany()",
        "remove({})",
        "remove()",
        "{delete:",
    ]) {
        Some(catalogue::DATA_DELETE_ALL)
    } else if has(&["updateMany({},", "update({},"]) {
        Some(catalogue::DATA_UPDATE_ALL)
    } else if has(&["shutdownServer(", "{shutdown:", "fsyncLock("]) {
        Some(catalogue::DATA_STOP)
    } else if has(&["eval(", "Function(", "runProgram(", "_runMongoProgram("]) {
        Some(catalogue::CODE_UNREAD)
    } else if has(&[
        "delete", "remove", "update", "insert", "replace", "rename", "create", "load(",
    ]) {
        Some(catalogue::DATA_WRITE)
    } else {
        None
    }
}

/// `mongosh [OPTIONS] [ADDRESS] [FILE.js…]`: `--eval` scripts, script files, or what the
/// input holds.
pub fn mongo<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let args = &job.words[1..];
    let scripts: Vec<Text> = option_values(args, &[], &["--eval"])
        .iter()
        .map(|t| t.text(at))
        .collect();
    let files = args.iter().any(|w| w.text.ends_with(".js"))
        || !option_values(args, &["-f"], &["--file"]).is_empty();
    let span = command_span(job, at);
    let input = (scripts.is_empty() && !files).then(|| stdin_text(&job.stdin, at, &span));
    let mut site = Site::new(name, Args::default(), span, st);
    let mut worst: Vec<(Said, &str)> = Vec::new();
    for s in &scripts {
        worst.extend(javascript(&s.text).map(|k| (k, "the `--eval` script")));
        if s.partial {
            worst.push((
                catalogue::DATA_WRITE,
                "a script only known when the line runs",
            ));
        }
    }
    if files {
        worst.push((catalogue::DATA_WRITE, "a script file"));
    }
    match &input {
        Some(Ok(text)) => {
            worst.extend(javascript(&text.text).map(|k| (k, "the script on its input")));
            if text.partial {
                worst.push((
                    catalogue::DATA_WRITE,
                    "a script only known when the line runs",
                ));
            }
        }
        Some(Err(true)) => worst.push((
            catalogue::DATA_WRITE,
            "a script from a file or standard input",
        )),
        _ => {}
    }
    for (kind, detail) in worst {
        site.say(kind, detail);
    }
    site.report();
    true
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive, Moderate, Opaque, Safe};

    #[rustfmt::skip]
    pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
        ("redis-cli FLUSHALL", Destructive, &["delete.database"]),
        ("redis-cli -h host -n 2 flushdb", Destructive, &["delete.database"]),
        ("redis-cli DEL key", Moderate, &["write.database"]),
        ("redis-cli GET key", Safe, &[]),
        ("redis-cli", Safe, &[]),
        ("redis-cli EVAL \"redis.call('FLUSHALL')\" 0", Destructive, &["delete.database"]),
        ("redis-cli EVAL \"return redis.call('GET', KEYS[1])\" 1 k", Safe, &[]),
        ("redis-cli EVAL \"return redis.call(ARGV[1])\" 0 FLUSHALL", Opaque, &["run.unknown"]),
        ("redis-cli EVAL \"local r = redis; r.call('GET', 'k')\" 0", Opaque, &["run.unknown"]),
        ("redis-cli EVAL \"return loadstring('x')()\" 0", Opaque, &["run.unknown"]),
        ("redis-cli EVAL \"$S\" 0", Opaque, &["run.unknown"]),
        ("redis-cli EVALSHA abc 0", Opaque, &["run.unknown"]),
        ("redis-cli SCRIPT LOAD \"redis.call('FLUSHDB')\"", Destructive, &["delete.database"]),
        ("redis-cli CONFIG SET dir /tmp", Destructive, &["write.protected"]),
        ("redis-cli CONFIG SET maxmemory 1gb", Moderate, &["write.database"]),
        ("redis-cli SHUTDOWN", Destructive, &["stop.database"]),
        ("redis-cli REPLICAOF h 6379", Destructive, &["overwrite.database"]),
        ("redis-cli REPLICAOF NO ONE", Moderate, &["write.database"]),
        ("redis-cli MODULE LOAD /x.so", Opaque, &["run.unknown"]),
        ("echo FLUSHALL | redis-cli", Destructive, &["delete.database"]),
        ("redis-cli < cmds.txt", Moderate, &["write.database"]),
        ("redis-cli --eval s.lua k", Moderate, &["write.database"]),
        ("mongosh --eval 'db.dropDatabase()'", Destructive, &["delete.database"]),
        ("mongo db --eval 'db.users.deleteMany({})'", Destructive, &["delete.database"]),
        ("mongosh --eval 'db.users.deleteMany({a: 1})'", Moderate, &["write.database"]),
        ("mongosh --eval 'db.users.find()'", Safe, &[]),
        ("mongosh <<< 'db.t.drop()'", Destructive, &["delete.database"]),
        ("mongosh app seed.js", Moderate, &["write.database"]),
        ("mongosh app", Safe, &[]),
    ];
}
