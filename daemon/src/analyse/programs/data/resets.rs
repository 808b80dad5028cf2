//! Schema and migration tools whose commands drop or empty a database, or roll its schema
//! back to nothing: `rails db:reset`, `prisma migrate reset`, `manage.py flush`, `artisan
//! migrate:fresh`, `alembic downgrade base`, `flyway clean`, `heroku pg:reset`, …. Their
//! everyday commands (`db:migrate`, `migrate dev`) are left to what judges the program.

use super::super::super::words::Word;

/// Rails and rake tasks that drop, empty or reload the database.
const RAILS: &[&str] = &[
    "db:drop",
    "db:drop:all",
    "db:reset",
    "db:schema:load",
    "db:structure:load",
    "db:migrate:reset",
    "db:purge",
    "db:purge:all",
    "db:truncate_all",
    "db:setup",
    "db:seed:replant",
];

/// The command as shown, when `name ARGS` is a reset. `name` is the program, or the script
/// an interpreter runs (`manage.py`, `artisan`).
pub fn schema_reset(name: &str, args: &[Word]) -> Option<String> {
    let ops: Vec<&str> = args
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-') && !t.contains('='))
        .take(6)
        .collect();
    let has = |options: &[&str]| {
        args.iter().filter_map(Word::literal).any(|t| {
            let opt = t.split_once('=').map_or(t, |(o, _)| o);
            options.contains(&opt)
        })
    };
    let first = ops.first().copied().unwrap_or("");
    let pair = |a: &str, b: &[&str]| ops.windows(2).any(|w| w[0] == a && b.contains(&w[1]));
    let any = |words: &[&str]| ops.iter().any(|o| words.contains(o));
    let hit = match name {
        "rails" | "rake" => any(RAILS),
        "prisma" => {
            pair("migrate", &["reset"])
                || (pair("db", &["push"]) && has(&["--force-reset", "--accept-data-loss"]))
        }
        "manage.py" | "django-admin" => {
            matches!(first, "flush" | "reset_db" | "reset_schema")
        }
        "artisan" => matches!(
            first,
            "migrate:fresh" | "migrate:reset" | "migrate:refresh" | "db:wipe"
        ),
        "sequelize" | "sequelize-cli" => matches!(
            first,
            "db:drop" | "db:migrate:undo:all" | "db:seed:undo:all"
        ),
        "knex" => first == "migrate:rollback" && has(&["--all"]),
        "alembic" => pair("downgrade", &["base"]),
        "typeorm" | "typeorm-ts-node-commonjs" | "typeorm-ts-node-esm" => first == "schema:drop",
        "supabase" => pair("db", &["reset"]),
        "heroku" => first == "pg:reset",
        "mix" => any(&["ecto.drop", "ecto.reset"]),
        "flyway" => any(&["clean"]),
        "liquibase" => any(&["drop-all", "dropAll"]),
        "sqlx" | "sqlx-cli" => pair("database", &["drop", "reset"]),
        "diesel" => pair("database", &["reset"]),
        "dbmate" => any(&["drop"]),
        "goose" => any(&["reset"]),
        "migrate" => any(&["drop"]) || (any(&["down"]) && has(&["-all", "--all"])),
        "flask" => pair("db", &["downgrade"]) && any(&["base"]),
        "dotnet" => {
            pair("ef", &["database"])
                && (any(&["drop"]) || (any(&["update"]) && ops.last() == Some(&"0")))
        }
        "drizzle-kit" => first == "drop" || (first == "push" && has(&["--force"])),
        _ => false,
    };
    // `rails db:rollback STEP=100`: most of the schema's history undone at once.
    let hit = hit
        || (matches!(name, "rails" | "rake")
            && any(&["db:rollback", "db:migrate:down"])
            && args.iter().filter_map(Word::literal).any(|t| {
                t.strip_prefix("STEP=")
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| n >= 5)
            }));
    hit.then(|| {
        let mut shown = vec![name];
        shown.extend(ops.iter().take(2));
        shown.join(" ")
    })
}

/// The command as shown, when `name ARGS` runs code inside an application, where it reaches
/// the application's database with its own models (`rails runner 'User.delete_all'`,
/// `manage.py shell -c …`, `artisan tinker`, `prisma db execute`): code the gate does not
/// read.
pub fn app_console(name: &str, args: &[Word]) -> Option<String> {
    let ops: Vec<&str> = args
        .iter()
        .filter_map(Word::literal)
        .filter(|t| !t.starts_with('-'))
        .take(3)
        .collect();
    let first = ops.first().copied().unwrap_or("");
    let hit = match name {
        "rails" | "gitlab-rails" => {
            matches!(first, "runner" | "r" | "console" | "c" | "dbconsole" | "db")
        }
        "manage.py" | "django-admin" => {
            matches!(first, "shell" | "shell_plus" | "dbshell" | "runscript")
        }
        "artisan" => matches!(first, "tinker" | "db"),
        "prisma" => ops.windows(2).any(|w| w == ["db", "execute"]),
        "flask" => first == "shell",
        _ => false,
    };
    hit.then(|| {
        format!(
            "`{name} {}`",
            ops.iter().take(2).copied().collect::<Vec<_>>().join(" ")
        )
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use assent_client::protocol::Level::{self, Destructive};

    #[rustfmt::skip]
    pub(crate) const CASES: &[(&str, Level, &[&str])] = &[
        ("rails db:reset", Destructive, &["delete.database"]),
        ("bin/rails db:schema:load", Destructive, &["delete.database", "run.project"]),
        ("prisma migrate reset --force", Destructive, &["delete.database"]),
        ("prisma db push --accept-data-loss", Destructive, &["delete.database"]),
        ("python3 manage.py flush --noinput", Destructive, &["delete.database", "run.project"]),
        ("php artisan migrate:fresh", Destructive, &["delete.database", "run.project"]),
        ("alembic -c alembic.ini downgrade base", Destructive, &["delete.database"]),
        ("supabase db reset --linked", Destructive, &["delete.database"]),
        ("flyway clean", Destructive, &["delete.database"]),
    ];
}
