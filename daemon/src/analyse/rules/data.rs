//! Databases and stores: the SQL given to `psql -c`, `mysql -e`, `sqlite3 DB SQL` and kin,
//! `redis-cli FLUSHALL`, `mongosh --eval` drops, and `dropdb`-like programs.
//!
//! SQL is read statement by statement, case-insensitively: `DROP` and `TRUNCATE` lose a whole
//! table or database, `DELETE` and `UPDATE` without `WHERE` every row; with `WHERE` they and
//! other writes are moderate; reads give nothing. SQL from a file or standard input cannot be
//! read here and counts as a write.

use super::super::catalogue::{self, Kind};
use super::super::words::Word;
use super::{Class, Site};

pub const COMMANDS: &[(&str, Class)] = &[
    ("psql", Class::Rule(sql_client)),
    ("mysql", Class::Rule(sql_client)),
    ("mariadb", Class::Rule(sql_client)),
    ("cqlsh", Class::Rule(sql_client)),
    ("clickhouse-client", Class::Rule(sql_client)),
    ("usql", Class::Rule(sql_client)),
    ("sqlite3", Class::Rule(sqlite)),
    ("sqlite", Class::Rule(sqlite)),
    ("duckdb", Class::Rule(sqlite)),
    ("redis-cli", Class::Rule(redis)),
    ("valkey-cli", Class::Rule(redis)),
    ("mongo", Class::Rule(mongo)),
    ("mongosh", Class::Rule(mongo)),
    ("dropdb", Class::Rule(drops)),
    ("dropuser", Class::Rule(drops)),
    ("pg_dropcluster", Class::Rule(drops)),
    ("mysqladmin", Class::Rule(mysqladmin)),
    // SQL typed at a shell prompt as if it were a database console: nothing by these names
    // exists, but the line says what the agent means to do.
    ("DROP", Class::Rule(bare_sql)),
    ("TRUNCATE", Class::Rule(bare_sql)),
    ("DELETE", Class::Rule(bare_sql)),
    ("UPDATE", Class::Rule(bare_sql)),
    ("ALTER", Class::Rule(bare_sql)),
];

/// What one SQL text does at worst: a kind with the statement's opening words, or `None`
/// when it only reads.
fn judge_sql(text: &str) -> Option<(Kind, String)> {
    let mut worst: Option<(Kind, String)> = None;
    for stmt in text.split(';') {
        let lower = stmt.trim().to_ascii_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        let has_where = words.contains(&"where");
        let kind = match *first {
            "drop" | "truncate" => catalogue::DATA_DROP,
            "alter" if words.contains(&"drop") => catalogue::DATA_DROP,
            "delete" | "update" if !has_where => catalogue::DATA_DELETE_ALL,
            "select" | "show" | "describe" | "desc" | "explain" | "with" | "values" | "pragma"
            | "begin" | "commit" | "rollback" | "use" | "\\d" | "\\l" | "\\dt" | "\\q" => continue,
            _ => catalogue::DATA_WRITE,
        };
        if worst.as_ref().is_none_or(|(w, _)| kind.level > w.level) {
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
        .max_by_key(|(k, _)| k.level);
    if let Some((kind, detail)) = worst {
        site.report(kind, &detail);
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

/// Options that only describe the client or list databases.
const CLIENT_INFO: &[&str] = &["-l", "--list", "--version", "-V", "--help", "-?"];

fn sql_client(args: &[Word], site: &mut Site) {
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
        site.report(catalogue::DATA_WRITE, &detail);
    }
}

/// `sqlite3 [OPTIONS] DB [SQL…]`, `duckdb [OPTIONS] DB [SQL…]`; `-cmd SQL` and duckdb's
/// `-c SQL` run too.
fn sqlite(args: &[Word], site: &mut Site) {
    // Options that take a value, so the value is not the database.
    const VALUED: &[&str] = &["-separator", "-newline", "-nullvalue", "-init"];
    let mut sql = Vec::new();
    let mut operands = Vec::new();
    let mut words = args.iter().map(|w| w.text.as_str());
    while let Some(t) = words.next() {
        if t == "-cmd" || t == "-c" {
            sql.extend(words.next());
        } else if VALUED.contains(&t) {
            words.next();
        } else if !t.starts_with('-') {
            operands.push(t);
        }
    }
    sql.extend(operands.iter().skip(1));
    report_sql(&sql, site);
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

fn redis(args: &[Word], site: &mut Site) {
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
        site.report(catalogue::DATA_DROP, &detail);
    } else if !REDIS_READS.contains(&upper.as_str()) {
        site.report(catalogue::DATA_WRITE, &detail);
    }
}

fn mongo(args: &[Word], site: &mut Site) {
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
        site.report(kind, "the `--eval` script");
    }
}

fn drops(args: &[Word], site: &mut Site) {
    if !args.iter().any(|w| CLIENT_INFO.contains(&w.text.as_str())) {
        let detail = match args.iter().rev().find(|w| !w.text.starts_with('-')) {
            Some(target) => format!("`{} {}`", site.name, target.raw),
            None => format!("`{}`", site.name),
        };
        site.report(catalogue::DATA_DROP, &detail);
    }
}

fn mysqladmin(args: &[Word], site: &mut Site) {
    if args.iter().any(|w| w.text == "drop") {
        site.report(catalogue::DATA_DROP, "`mysqladmin drop`");
    }
}

fn bare_sql(args: &[Word], site: &mut Site) {
    let mut text = site.name.to_owned();
    for w in args {
        text.push(' ');
        text.push_str(&w.text);
    }
    report_sql(&[&text], site);
}

#[cfg(test)]
mod tests {
    use assent_client::protocol::Level::{self, Destructive, Moderate, Safe};

    use super::super::git::tests::check;

    const DROP: &[&str] = &["data.drop"];
    const ALL: &[&str] = &["data.delete_all"];
    const WRITE: &[&str] = &["data.write"];

    #[rustfmt::skip]
    const CASES: &[(&str, Level, &[&str])] = &[
        ("psql -c 'DROP TABLE users'", Destructive, DROP),
        ("psql -c \"TRUNCATE TABLE sessions;\"", Destructive, DROP),
        ("psql --command='drop database prod'", Destructive, DROP),
        ("psql -d db -c 'select 1; DELETE FROM audit_log;'", Destructive, ALL),
        ("psql -c 'update users set admin = true'", Destructive, ALL),
        ("psql -c 'DELETE FROM users WHERE id = 1'", Moderate, WRITE),
        ("psql -q -c 'SELECT * FROM users LIMIT 10;'", Safe, &[]),
        ("psql -l", Safe, &[]),
        ("psql mydb", Moderate, WRITE),
        ("mysql -e 'DROP DATABASE x'", Destructive, DROP),
        ("mysql -u root --execute='ALTER TABLE t DROP COLUMN c'", Destructive, DROP),
        ("mysql -e'truncate t'", Destructive, DROP),
        ("mariadb -e 'show tables'", Safe, &[]),
        ("sqlite3 app.db 'DELETE FROM t'", Destructive, ALL),
        ("sqlite3 -csv app.db 'select * from t'", Safe, &[]),
        ("sqlite3 app.db '.tables'", Moderate, WRITE),
        ("duckdb x.db -c 'drop table t'", Destructive, DROP),
        ("clickhouse-client --query 'TRUNCATE TABLE t'", Destructive, DROP),
        ("cqlsh -e 'DROP KEYSPACE k'", Destructive, DROP),
        ("redis-cli FLUSHALL", Destructive, DROP),
        ("redis-cli -h host -n 2 flushdb", Destructive, DROP),
        ("redis-cli DEL key", Moderate, WRITE),
        ("redis-cli GET key", Safe, &[]),
        ("mongosh --eval 'db.dropDatabase()'", Destructive, DROP),
        ("mongo db --eval 'db.users.deleteMany({})'", Destructive, ALL),
        ("mongosh --eval 'db.users.deleteMany({a: 1})'", Moderate, WRITE),
        ("mongosh --eval 'db.users.find()'", Safe, &[]),
        ("dropdb production", Destructive, DROP),
        ("mysqladmin -u root drop db", Destructive, DROP),
        ("DROP DATABASE mydb;", Destructive, DROP),
        ("DELETE FROM \"Public\".\"Users\";", Destructive, ALL),
        ("DELETE FROM users WHERE id = 1;", Moderate, WRITE),
        ("TRUNCATE users;", Destructive, DROP),
    ];

    #[test]
    fn data_table() {
        check(CASES);
    }
}
