//! Databases and stores: the SQL given to `psql -c`, `mysql -e`, `sqlite3 DB SQL` and kin, or
//! fed to them on standard input (a heredoc, a here-string, `echo … |`); redis commands and
//! the Lua they run; `mongosh` scripts; `dropdb`-like programs; and the schema resets of
//! migration tools (`rails db:reset`, `prisma migrate reset`, `manage.py flush`).
//!
//! SQL is read by `sql`: `DROP` and `TRUNCATE` lose a whole table or database, `DELETE` and
//! `UPDATE` without a `WHERE` that can be false every row; with one they and other writes
//! are moderate; reads give nothing. What the clients' own commands run (`\!`, `.shell`) is
//! queued as shell text. SQL that cannot be read here (a file, a pipe from a program the gate
//! does not know) counts as a write: loading a dump is an ordinary change.

mod redis;
mod resets;
pub mod sql;

pub use redis::{mongo, redis};
pub use resets::{app_console, schema_reset};

use std::ops::Range;

use super::super::State;
use super::super::act::Site;
use super::super::catalogue::{self, Said};
use super::super::effects::{self, Effect};
use super::super::getopt::Args;
use super::super::join_path;
use super::super::recurse::{self, Ctx, Job, Stdin};
use super::super::words::{Alts, Word};
use crate::places::Piece;
use sql::{Act, Dialect, Reading};

fn level(said: Said) -> assent_client::protocol::Level {
    effects::level(said.effect, said.place)
}

/// Text a program reads as code, with where it came from.
pub struct Text {
    pub text: String,
    /// Its span in the original input.
    pub span: Range<usize>,
    /// Parts of it are only known at run time (shown as written).
    pub partial: bool,
}

/// What a command's standard input holds, when the line says: a heredoc, a here-string, or
/// what a printer on the pipe prints. `Err(true)` when it is a file or a stream of unknown
/// text, `Err(false)` when it is the caller's own input.
pub fn stdin_text(stdin: &Stdin, at: &Ctx, span: &Range<usize>) -> Result<Text, bool> {
    match stdin {
        Stdin::Inherited => Err(false),
        Stdin::File(_) | Stdin::Pipe(None) => Err(true),
        Stdin::Pipe(Some(alts)) => Ok(printed(alts, span.clone())),
        Stdin::Text {
            text,
            span: at_span,
            dynamic,
            ..
        } => Ok(Text {
            text: text.clone(),
            span: at.src.map.span(at_span.clone()),
            partial: *dynamic,
        }),
    }
}

/// What a printer's alternatives print: each alternative a line, parts only known at run
/// time as a placeholder name.
fn printed(alts: &Alts, span: Range<usize>) -> Text {
    let mut text = String::new();
    let mut partial = false;
    for alt in alts {
        for piece in alt {
            match piece {
                Piece::Lit(t) => text.push_str(t),
                Piece::Glob(t) => {
                    text.push_str(t);
                    partial = true;
                }
                _ => {
                    text.push_str(" x ");
                    partial = true;
                }
            }
        }
        text.push('\n');
    }
    Text {
        text,
        span,
        partial,
    }
}

/// A word's text, for the code it holds.
fn word_text(w: &Word, at: &Ctx) -> Text {
    Text {
        text: w.text.clone(),
        span: at.src.map.span(w.span.clone()),
        partial: w.dynamic,
    }
}

/// The values of an option given as `-c SQL`, `-cSQL`, `--command SQL` or `--command=SQL`.
fn option_values<'a, 's>(
    args: &'a [Word<'s>],
    short: &[&str],
    long: &[&str],
) -> Vec<Text0<'a, 's>> {
    let mut out = Vec::new();
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        if short.contains(&t) || long.contains(&t) {
            out.extend(args.get(i + 1).map(|n| Text0 { word: n, skip: 0 }));
        } else if let Some((opt, _)) = t.split_once('=')
            && long.contains(&opt)
        {
            out.push(Text0 {
                word: w,
                skip: opt.len() + 1,
            });
        } else if !t.starts_with("--")
            && let Some(s) = short
                .iter()
                .find(|s| t.starts_with(**s) && t.len() > s.len())
        {
            out.push(Text0 {
                word: w,
                skip: s.len(),
            });
        }
    }
    out
}

/// A word holding code from byte `skip` of its text on (`--command=SQL`).
struct Text0<'a, 's> {
    word: &'a Word<'s>,
    skip: usize,
}

impl Text0<'_, '_> {
    fn text(&self, at: &Ctx) -> Text {
        let mut t = word_text(self.word, at);
        t.text = t.text.get(self.skip..).unwrap_or("").to_owned();
        t
    }
}

/// Options that only describe the client or list databases.
const CLIENT_INFO: &[&str] = &["-l", "--list", "--version", "-V", "--help", "-?"];

/// The span `one` gives a command: from its name to the end of the walked command.
fn command_span(job: &Job, at: &Ctx) -> Range<usize> {
    match job.words.first() {
        Some(first) => at
            .src
            .map
            .span(first.span.start..at.end.max(first.span.start)),
        None => at.span_of(&job.words),
    }
}

/// What the readings of some texts come to, for one command: findings, the files its client
/// commands write and read, and the shell text they run (queued once the site is reported).
fn report(texts: &[Text], dialects: &[Dialect], job: &Job, at: &Ctx, st: &mut State) {
    let span = command_span(job, at);
    let name = job.words.first().map_or("", |w| w.text.as_str());
    let mut shells: Vec<(String, Range<usize>)> = Vec::new();
    {
        let mut site = Site::new(name, Args::default(), span.clone(), st);
        for t in texts {
            let reading: Reading = sql::read(&t.text, dialects);
            if let Some((kind, detail)) = &reading.worst {
                site.say(*kind, detail);
            }
            if t.partial
                && reading
                    .worst
                    .as_ref()
                    .is_none_or(|(k, _)| level(*k) < level(catalogue::DATA_WRITE))
            {
                site.say(catalogue::DATA_WRITE, "SQL only known when the line runs");
            }
            if let Some(what) = &reading.unread {
                site.say(catalogue::CODE_UNREAD, what);
            }
            for act in reading.acts {
                match act {
                    Act::Shell(text) => shells.push((text, t.span.clone())),
                    Act::Writes(file) => file_act(&mut site, Effect::Write, &file),
                    Act::Reads(file) => file_act(&mut site, Effect::Read, &file),
                }
            }
        }
        site.report();
    }
    for (text, from) in shells {
        let shell = recurse::fresh_like(&st.shell);
        let path = join_path(&job.path, &format!("{name} shell command"));
        recurse::queue_mapped(text, Err(from), path, at, shell, st);
    }
}

/// A file a client command names, placed from the current directory.
fn file_act(site: &mut Site, effect: Effect, file: &str) {
    let word = Word::made(file.to_owned(), "", 0..0);
    let paths = site.paths(&word);
    site.on_paths(effect, paths, false, format!("`{file}`"));
}

/// The dialects a client's server may speak.
fn dialects(name: &str) -> &'static [Dialect] {
    const PG: &[Dialect] = &[sql::POSTGRES];
    const MY: &[Dialect] = &[sql::MYSQL];
    const ANY: &[Dialect] = &[sql::POSTGRES, sql::MYSQL];
    match name {
        "psql" | "cockroach" | "pgcli" => PG,
        "mysql" | "mariadb" | "mycli" => MY,
        _ => ANY,
    }
}

/// `psql`, `mysql`, `mariadb`, `clickhouse-client`, `usql`, `cqlsh`, `cockroach sql`: SQL
/// given with `-c`/`-e` (the input is then not read), else what the input holds.
pub fn sql_client<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    let mut args = &job.words[1..];
    if name == "cockroach" {
        // Only `cockroach sql` reads SQL; its other subcommands are judged as any program.
        match args.iter().position(|w| !w.text.starts_with('-')) {
            Some(i) if args[i].literal() == Some("sql") => args = &args[i + 1..],
            _ => return false,
        }
    }
    let (short, long): (&[&str], &[&str]) = match name {
        "psql" | "usql" => (&["-c"], &["--command"]),
        "clickhouse-client" => (&["-q"], &["--query"]),
        _ => (&["-e"], &["--execute"]),
    };
    let given: Vec<Text> = option_values(args, short, long)
        .iter()
        .map(|t| t.text(at))
        .collect();
    let files = option_values(args, &["-f"], &["--file"]);
    let from_stdin = files.is_empty()
        || files
            .iter()
            .any(|f| f.text(at).text == "-" || f.text(at).text == "/dev/stdin");
    let span = command_span(job, at);
    // `psql -c "$(…)"`: SQL that only exists when the line runs.
    if option_values(args, short, long).iter().any(|v| {
        v.word.dynamic
            && !v
                .word
                .raw
                .trim_start_matches('"')
                .starts_with(char::is_alphabetic)
    }) {
        let detail = format!("SQL given to `{name}` that is only known when the line runs");
        st.add(catalogue::CODE_UNREAD.at(span.clone(), &detail));
    }
    if !given.is_empty() {
        report(&given, dialects(name), job, at, st);
        return true;
    }
    if args.iter().any(|w| CLIENT_INFO.contains(&w.text.as_str())) {
        return true;
    }
    // `psql -f FILE` of a file the line wrote: its text is the SQL.
    let written: Vec<Text> = files
        .iter()
        .filter_map(|f| match st.written_text(f.word) {
            Some(Some(text)) => Some(Text {
                text: text.to_string(),
                span: span.clone(),
                partial: false,
            }),
            _ => None,
        })
        .collect();
    if !written.is_empty() {
        report(&written, dialects(name), job, at, st);
        return true;
    }
    if !files.is_empty() && !from_stdin {
        let detail = format!("`{name}` with SQL from a file");
        st.add(catalogue::DATA_WRITE.at(span, &detail));
        return true;
    }
    match stdin_text(&job.stdin, at, &span) {
        Ok(text) => report(&[text], dialects(name), job, at, st),
        Err(_) => {
            let detail = format!("`{name}` with SQL from a file or standard input");
            st.add(catalogue::DATA_WRITE.at(span, &detail));
        }
    }
    true
}

/// `sqlite3 [OPTIONS] DB [SQL…]`, `duckdb [OPTIONS] DB [SQL…]`; `-cmd SQL` and duckdb's `-c
/// SQL` run too; without SQL on the line, what the input holds.
pub fn sqlite<'s>(
    name: &str,
    job: &Job<'s>,
    at: &Ctx,
    st: &mut State,
    _: &mut Vec<Job<'s>>,
) -> bool {
    // Options that take a value, so the value is not the database.
    const VALUED: &[&str] = &[
        "-separator",
        "-newline",
        "-nullvalue",
        "-init",
        "-vfs",
        "-lookaside",
        "-pagecache",
        "-heap",
        "-maxsize",
        "-mmap",
        "-escape",
    ];
    let args = &job.words[1..];
    let mut texts = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    let mut init = false;
    let mut words = args.iter();
    while let Some(w) = words.next() {
        let t = w.text.as_str();
        if t == "-cmd" || t == "-c" || t == "--cmd" {
            texts.extend(words.next().map(|w| word_text(w, at)));
        } else if VALUED.contains(&t) || t == "--init" {
            init |= t.ends_with("init");
            words.next();
        } else if !t.starts_with('-') {
            operands.push(w);
        }
    }
    let given = operands.len() > 1;
    texts.extend(operands.iter().skip(1).map(|w| word_text(w, at)));
    if !given {
        let span = command_span(job, at);
        match stdin_text(&job.stdin, at, &span) {
            Ok(text) => texts.push(text),
            Err(true) => {
                let detail = format!("`{name}` with SQL from a file or standard input");
                st.add(catalogue::DATA_WRITE.at(span, &detail));
            }
            // A person's session at the terminal.
            Err(false) => {}
        }
    }
    if init {
        let detail = format!("`{name} -init` with SQL from a file");
        st.add(catalogue::DATA_WRITE.at(command_span(job, at), &detail));
    }
    report(&texts, &[sql::SQLITE], job, at, st);
    // The database is a file: opening it reads what it holds.
    if let Some(db) = operands.first().map(|w| (*w).clone()) {
        let mut site = Site::new(name, Args::default(), command_span(job, at), st);
        site.on(Effect::Read, &db);
        site.report();
    }
    true
}

pub fn drops<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if !args.iter().any(|w| CLIENT_INFO.contains(&w.text.as_str())) {
        let detail = match args.iter().rev().find(|w| !w.text.starts_with('-')) {
            Some(target) => format!("`{} {}`", site.name, target.raw),
            None => format!("`{}`", site.name),
        };
        site.say(catalogue::DATA_DROP, &detail);
    }
}

pub fn mysqladmin<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    if args.iter().any(|w| w.text == "drop") {
        site.say(catalogue::DATA_DROP, "`mysqladmin drop`");
    } else if args.iter().any(|w| w.text == "shutdown") {
        site.say(catalogue::DATA_STOP, "`mysqladmin shutdown`");
    }
}

/// A statement typed as a command (`DROP TABLE x;`): read as SQL of any dialect.
pub fn bare_sql<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let mut text = site.name.to_owned();
    for w in args {
        text.push(' ');
        text.push_str(&w.text);
    }
    let reading = sql::read(&text, &[sql::POSTGRES, sql::MYSQL]);
    if let Some((kind, detail)) = reading.worst {
        site.say(kind, &detail);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive, Moderate, Opaque, Safe};

    use super::super::git::tests::check;

    #[rustfmt::skip]
    pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
        ("psql -c 'DROP TABLE users'", Destructive, &["delete.database"]),
        ("psql -c \"TRUNCATE TABLE sessions;\"", Destructive, &["delete.database"]),
        ("psql --command='drop database prod'", Destructive, &["delete.database"]),
        ("psql -d db -c 'select 1; DELETE FROM audit_log;'", Destructive, &["delete.database"]),
        ("psql -c 'update users set admin = true'", Destructive, &["overwrite.database"]),
        ("psql -c 'DELETE FROM users WHERE id = 1'", Moderate, &["write.database"]),
        ("psql -q -c 'SELECT * FROM users LIMIT 10;'", Safe, &[]),
        ("psql -l", Safe, &[]),
        ("psql mydb", Moderate, &["write.database"]),
        ("psql app < dump.sql", Moderate, &["write.database"]),
        ("psql -f schema.sql", Moderate, &["write.database"]),
        ("psql <<'EOF'\nDROP TABLE x;\nEOF", Destructive, &["delete.database"]),
        ("psql <<'EOF'\nSELECT 1;\nEOF", Safe, &[]),
        ("echo 'TRUNCATE t' | psql", Destructive, &["delete.database"]),
        ("echo \"DELETE FROM $t\" | psql", Destructive, &["delete.database"]),
        ("echo \"$SQL\" | psql", Moderate, &["write.database"]),
        ("cat dump.sql | psql", Moderate, &["write.database"]),
        ("psql -c \"$Q\"", Opaque, &["run.unknown", "write.database"]),
        ("psql -c '\\! rm -rf /'", Forbidden, &["delete.root"]),
        ("psql <<'EOF'\nSELECT 1 \\gexec\nEOF", Opaque, &["run.unknown"]),
        ("psql -c '\\o /home/u/.bashrc'", Forbidden, &["write.gate"]),
        ("mysql -e 'DROP DATABASE x'", Destructive, &["delete.database"]),
        ("mysql -u root --execute='ALTER TABLE t DROP COLUMN c'", Destructive, &["delete.database"]),
        ("mysql -e'truncate t'", Destructive, &["delete.database"]),
        ("mysql db <<< 'DELETE FROM t'", Destructive, &["delete.database"]),
        ("mysql -e 'system rm -rf ~'", Forbidden, &["delete.home"]),
        ("mariadb -e 'show tables'", Safe, &[]),
        ("sqlite3 app.db 'DELETE FROM t'", Destructive, &["delete.database"]),
        ("sqlite3 -csv app.db 'select * from t'", Safe, &[]),
        ("sqlite3 app.db '.tables'", Safe, &[]),
        ("sqlite3 app.db", Safe, &[]),
        ("sqlite3 app.db < dump.sql", Moderate, &["write.database"]),
        ("printf 'DROP TABLE t;' | sqlite3 app.db", Destructive, &["delete.database"]),
        ("sqlite3 app.db '.shell rm -rf ~'", Forbidden, &["delete.home"]),
        ("sqlite3 app.db '.load ./x.so'", Opaque, &["run.unknown"]),
        ("duckdb x.db -c 'drop table t'", Destructive, &["delete.database"]),
        ("clickhouse-client --query 'TRUNCATE TABLE t'", Destructive, &["delete.database"]),
        ("cqlsh -e 'DROP KEYSPACE k'", Destructive, &["delete.database"]),
        ("cockroach sql -e 'DROP TABLE t'", Destructive, &["delete.database"]),
        ("dropdb production", Destructive, &["delete.database"]),
        ("mysqladmin -u root drop db", Destructive, &["delete.database"]),
        ("DROP DATABASE mydb;", Destructive, &["delete.database"]),
        ("DELETE FROM \"Public\".\"Users\";", Destructive, &["delete.database"]),
        ("DELETE FROM users WHERE id = 1;", Moderate, &["write.database"]),
        ("TRUNCATE users;", Destructive, &["delete.database"]),
    ];

    use assent_client::protocol::Level::Forbidden;

    #[test]
    fn data_table() {
        check(CASES);
        check(super::redis::tests::CASES);
        check(super::resets::tests::CASES);
    }
}
