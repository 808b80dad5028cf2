//! Databases and stores: the SQL given to `psql -c`, `mysql -e`, `sqlite3 DB SQL` and kin,
//! `redis-cli FLUSHALL`, `mongosh --eval` drops, and `dropdb`-like programs.
//!
//! SQL is read statement by statement, case-insensitively: `DROP` and `TRUNCATE` lose a whole
//! table or database, `DELETE` and `UPDATE` without `WHERE` every row; with `WHERE` they and
//! other writes are moderate; reads give nothing. SQL from a file or standard input cannot be
//! read here and counts as a write.

use super::super::act::Site;
use super::super::catalogue::{self, Said};
use super::super::effects;
use super::super::words::Word;

/// What one SQL text does at worst: a kind with the statement's opening words, or `None`
/// when it only reads.
fn judge_sql(text: &str) -> Option<(Said, String)> {
    let mut worst: Option<(Said, String)> = None;
    for stmt in text.split(';') {
        let lower = stmt.trim().to_ascii_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        let has_where = words.contains(&"where");
        let kind = match *first {
            "drop" | "truncate" => catalogue::DATA_DROP,
            "alter" if words.contains(&"drop") => catalogue::DATA_DROP,
            "delete" if !has_where => catalogue::DATA_DELETE_ALL,
            "update" if !has_where => catalogue::DATA_UPDATE_ALL,
            "select" | "show" | "describe" | "desc" | "explain" | "with" | "values" | "pragma"
            | "begin" | "commit" | "rollback" | "use" | "\\d" | "\\l" | "\\dt" | "\\q" => continue,
            _ => catalogue::DATA_WRITE,
        };
        if worst.as_ref().is_none_or(|(w, _)| level(kind) > level(*w)) {
            let opening: Vec<&str> = stmt.split_whitespace().take(3).collect();
            worst = Some((kind, format!("`{}`", opening.join(" "))));
        }
    }
    worst
}

fn report_sql(texts: &[&str], site: &mut Site) {
    let worst = texts
        .iter()
        .filter_map(|t| judge_sql(t))
        .max_by_key(|(k, _)| level(*k));
    if let Some((kind, detail)) = worst {
        site.say(kind, &detail);
    }
}

/// The values of an option given as `-c SQL`, `-cSQL`, `--command SQL` or `--command=SQL`.
fn option_values<'a>(args: &'a [Word], short: &[&str], long: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        if short.contains(&t) || long.contains(&t) {
            out.extend(args.get(i + 1).map(|n| n.text.as_str()));
        } else if let Some((opt, v)) = t.split_once('=')
            && long.contains(&opt)
        {
            out.push(v);
        } else if !t.starts_with("--")
            && let Some(s) = short
                .iter()
                .find(|s| t.starts_with(**s) && t.len() > s.len())
        {
            out.push(&t[s.len()..]);
        }
    }
    out
}

fn level(said: Said) -> assent_client::protocol::Level {
    effects::level(said.effect, said.place)
}

/// Options that only describe the client or list databases.
const CLIENT_INFO: &[&str] = &["-l", "--list", "--version", "-V", "--help", "-?"];

pub fn sql_client<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let (short, long): (&[&str], &[&str]) = match site.name {
        "psql" | "usql" => (&["-c"], &["--command"]),
        "clickhouse-client" => (&["-q"], &["--query"]),
        _ => (&["-e"], &["--execute"]),
    };
    let sql = option_values(args, short, long);
    if !sql.is_empty() {
        report_sql(&sql, site);
    } else if !args.iter().any(|w| CLIENT_INFO.contains(&w.text.as_str())) {
        let detail = format!("`{}` with SQL from a file or standard input", site.name);
        site.say(catalogue::DATA_WRITE, &detail);
    }
}

/// `sqlite3 [OPTIONS] DB [SQL…]`, `duckdb [OPTIONS] DB [SQL…]`; `-cmd SQL` and duckdb's
/// `-c SQL` run too.
pub fn sqlite<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    // Options that take a value, so the value is not the database.
    const VALUED: &[&str] = &["-separator", "-newline", "-nullvalue", "-init"];
    let mut sql = Vec::new();
    let mut operands: Vec<&Word> = Vec::new();
    let mut words = args.iter();
    while let Some(w) = words.next() {
        let t = w.text.as_str();
        if t == "-cmd" || t == "-c" {
            sql.extend(words.next().map(|w| w.text.as_str()));
        } else if VALUED.contains(&t) {
            words.next();
        } else if !t.starts_with('-') {
            operands.push(w);
        }
    }
    sql.extend(operands.iter().skip(1).map(|w| w.text.as_str()));
    report_sql(&sql, site);
    // The database is a file: opening it reads what it holds.
    if let Some(db) = operands.first().map(|w| (*w).clone()) {
        site.on(super::super::effects::Effect::Read, &db);
    }
}

/// Options of redis-cli that take a value.
const REDIS_VALUED: &[&str] = &[
    "-h", "-p", "-s", "-a", "-u", "-n", "-r", "-i", "-d", "--user", "--pass",
];

/// Redis commands that only read.
const REDIS_READS: &[&str] = &[
    "GET", "MGET", "KEYS", "SCAN", "INFO", "PING", "TTL", "PTTL", "TYPE", "EXISTS", "HGET",
    "HGETALL", "HKEYS", "HLEN", "LRANGE", "LLEN", "SMEMBERS", "SCARD", "ZRANGE", "ZCARD", "DBSIZE",
    "MONITOR", "STRLEN", "SLOWLOG",
];

pub fn redis<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let mut skip = false;
    let command = args.iter().find(|w| {
        let t = w.text.as_str();
        let take = !skip && !t.starts_with('-');
        skip = !skip && REDIS_VALUED.contains(&t);
        take
    });
    let Some(cmd) = command else { return };
    let upper = cmd.text.to_ascii_uppercase();
    let detail = format!("`{}`", cmd.raw);
    if upper == "FLUSHALL" || upper == "FLUSHDB" {
        site.say(catalogue::DATA_DROP, &detail);
    } else if !REDIS_READS.contains(&upper.as_str()) {
        site.say(catalogue::DATA_WRITE, &detail);
    }
}

pub fn mongo<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    for js in option_values(args, &[], &["--eval"]) {
        let compact: String = js.chars().filter(|c| !c.is_whitespace()).collect();
        let kind = if compact.contains("dropDatabase(") || compact.contains(".drop(") {
            catalogue::DATA_DROP
        } else if ["deleteMany({})", "remove({})", "updateMany({}"]
            .iter()
            .any(|p| compact.contains(p))
        {
            catalogue::DATA_DELETE_ALL
        } else if ["delete", "remove", "update", "insert", "replace", "rename"]
            .iter()
            .any(|p| compact.contains(p))
        {
            catalogue::DATA_WRITE
        } else {
            continue;
        };
        site.say(kind, "the `--eval` script");
    }
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
    }
}

pub fn bare_sql<'s>(args: &[Word<'s>], site: &mut Site<'_, 's, '_, '_>) {
    let mut text = site.name.to_owned();
    for w in args {
        text.push(' ');
        text.push_str(&w.text);
    }
    report_sql(&[&text], site);
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive, Moderate, Safe};

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
        ("mysql -e 'DROP DATABASE x'", Destructive, &["delete.database"]),
        ("mysql -u root --execute='ALTER TABLE t DROP COLUMN c'", Destructive, &["delete.database"]),
        ("mysql -e'truncate t'", Destructive, &["delete.database"]),
        ("mariadb -e 'show tables'", Safe, &[]),
        ("sqlite3 app.db 'DELETE FROM t'", Destructive, &["delete.database"]),
        ("sqlite3 -csv app.db 'select * from t'", Safe, &[]),
        ("sqlite3 app.db '.tables'", Moderate, &["write.database"]),
        ("duckdb x.db -c 'drop table t'", Destructive, &["delete.database"]),
        ("clickhouse-client --query 'TRUNCATE TABLE t'", Destructive, &["delete.database"]),
        ("cqlsh -e 'DROP KEYSPACE k'", Destructive, &["delete.database"]),
        ("redis-cli FLUSHALL", Destructive, &["delete.database"]),
        ("redis-cli -h host -n 2 flushdb", Destructive, &["delete.database"]),
        ("redis-cli DEL key", Moderate, &["write.database"]),
        ("redis-cli GET key", Safe, &[]),
        ("mongosh --eval 'db.dropDatabase()'", Destructive, &["delete.database"]),
        ("mongo db --eval 'db.users.deleteMany({})'", Destructive, &["delete.database"]),
        ("mongosh --eval 'db.users.deleteMany({a: 1})'", Moderate, &["write.database"]),
        ("mongosh --eval 'db.users.find()'", Safe, &[]),
        ("dropdb production", Destructive, &["delete.database"]),
        ("mysqladmin -u root drop db", Destructive, &["delete.database"]),
        ("DROP DATABASE mydb;", Destructive, &["delete.database"]),
        ("DELETE FROM \"Public\".\"Users\";", Destructive, &["delete.database"]),
        ("DELETE FROM users WHERE id = 1;", Moderate, &["write.database"]),
        ("TRUNCATE users;", Destructive, &["delete.database"]),
    ];

    #[test]
    fn data_table() {
        check(CASES);
    }
}
