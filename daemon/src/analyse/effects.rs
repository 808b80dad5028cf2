//! Effects, and the level of each effect on each place: the table in `levels.md`, read once as
//! it is compiled in. A finding's id is its cell, `effect.place` (`delete.home`,
//! `read.secret`), so a policy rule about deleting a home holds whichever program does it.
//!
//! This module knows nothing of programs or paths: `index` says which effects a command has,
//! `places` which place a path is.

use std::sync::OnceLock;

use assent_client::protocol::Level;

use crate::places::Kind;

/// What a command does to a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Effect {
    /// Shows or copies what it holds.
    Read,
    /// Creates it or adds to it.
    Write,
    /// Replaces what it holds.
    Overwrite,
    /// Destroys what it holds in place (`truncate`, `shred`, `dd`, `mkfs`).
    Erase,
    Delete,
    /// Takes it away to elsewhere (`mv`'s sources).
    Move,
    /// Changes owners or permissions.
    Perms,
    /// Lets every user change it (`chmod 777`).
    Expose,
    /// A program the gate does not know is given it.
    Use,
    /// Runs it as code.
    Run,
    /// Sends it, or data, over the network.
    Send,
    Publish,
    /// Stops or interrupts it.
    Stop,
    /// Changes its settings or state, in a way that can be undone.
    Change,
}

impl Effect {
    /// Whether a path acted on this way is placed where its symbolic links lead too: what
    /// changes, removes or sends a file acts on the link's target.
    pub fn follows_links(self) -> bool {
        !matches!(
            self,
            Effect::Read | Effect::Use | Effect::Run | Effect::Stop | Effect::Change
        )
    }

    pub const ALL: [Effect; 14] = [
        Effect::Read,
        Effect::Write,
        Effect::Overwrite,
        Effect::Erase,
        Effect::Delete,
        Effect::Move,
        Effect::Perms,
        Effect::Expose,
        Effect::Use,
        Effect::Run,
        Effect::Send,
        Effect::Publish,
        Effect::Stop,
        Effect::Change,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Effect::Read => "read",
            Effect::Write => "write",
            Effect::Overwrite => "overwrite",
            Effect::Erase => "erase",
            Effect::Delete => "delete",
            Effect::Move => "move",
            Effect::Perms => "perms",
            Effect::Expose => "expose",
            Effect::Use => "use",
            Effect::Run => "run",
            Effect::Send => "send",
            Effect::Publish => "publish",
            Effect::Stop => "stop",
            Effect::Change => "change",
        }
    }

    /// Whether the effect is on what a file holds rather than on the file: reading, sending
    /// or running a copy does it to the original's contents; deleting or changing the copy
    /// leaves the original alone.
    pub fn reads_content(self) -> bool {
        matches!(
            self,
            Effect::Read
                | Effect::Expose
                | Effect::Use
                | Effect::Run
                | Effect::Send
                | Effect::Publish
        )
    }

    pub fn from_name(name: &str) -> Option<Effect> {
        Effect::ALL.iter().copied().find(|e| e.name() == name)
    }

    /// What the command does, as a verb: "deletes", "changes owners or permissions of".
    pub fn verb(self) -> &'static str {
        table().verbs[self as usize]
    }

    /// What it costs, in a sentence.
    pub fn cost(self) -> &'static str {
        table().costs[self as usize]
    }
}

/// The level of `effect` on `place`.
pub fn level(effect: Effect, place: Kind) -> Level {
    table().levels[effect as usize][place as usize]
}

/// The finding id of a cell: `delete.home`.
pub fn cell_id(effect: Effect, place: Kind) -> &'static str {
    &table().ids[effect as usize * Kind::ALL.len() + place as usize]
}

/// Every cell id, for the policy's check of finding patterns.
pub fn cell_ids() -> impl Iterator<Item = &'static str> {
    table().ids.iter().map(String::as_str)
}

/// The table as it was compiled in.
pub const SOURCE: &str = include_str!("levels.md");

/// The parsed table.
pub struct Table {
    levels: [[Level; Kind::ALL.len()]; Effect::ALL.len()],
    verbs: [&'static str; Effect::ALL.len()],
    costs: [&'static str; Effect::ALL.len()],
    ids: Vec<String>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        parse(SOURCE).unwrap_or_else(|error| {
            // The file is compiled in and a unit test parses it: this cannot happen in a
            // build that passed its tests.
            panic!("levels.md is the level table and must parse: {error}")
        })
    })
}

/// The cells of a markdown table row, trimmed: `| a | b |` → `["a", "b"]`.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

fn level_named(name: &str) -> Option<Level> {
    match name {
        "safe" => Some(Level::Safe),
        "moderate" => Some(Level::Moderate),
        "opaque" => Some(Level::Opaque),
        "destructive" => Some(Level::Destructive),
        "forbidden" => Some(Level::Forbidden),
        _ => None,
    }
}

/// Reads `levels.md`: the grid (`| effect \ place | root | … |`), then the effects' verbs and
/// costs (`| effect | the command … | what it costs |`). Every effect and every place must be
/// there once.
pub fn parse(text: &'static str) -> Result<Table, String> {
    let mut levels = [[Level::Safe; Kind::ALL.len()]; Effect::ALL.len()];
    let mut verbs = [""; Effect::ALL.len()];
    let mut costs = [""; Effect::ALL.len()];
    let mut seen_rows = [false; Effect::ALL.len()];
    let mut seen_verbs = [false; Effect::ALL.len()];
    let mut columns: Option<Vec<Kind>> = None;
    let mut in_effects = false;
    for (n, line) in text.lines().enumerate() {
        let Some(row) = cells(line) else {
            continue;
        };
        let at = |what: String| format!("levels.md line {}: {what}", n + 1);
        if row.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            continue;
        }
        if row.first() == Some(&"effect \\ place") {
            let kinds = row[1..]
                .iter()
                .map(|c| Kind::from_name(c).ok_or_else(|| at(format!("unknown place `{c}`"))))
                .collect::<Result<Vec<Kind>, String>>()?;
            for kind in Kind::ALL {
                if kinds.iter().filter(|k| **k == kind).count() != 1 {
                    return Err(at(format!("place `{}` must be a column once", kind.name())));
                }
            }
            columns = Some(kinds);
            continue;
        }
        if row.first() == Some(&"effect") {
            in_effects = true;
            continue;
        }
        let effect =
            Effect::from_name(row[0]).ok_or_else(|| at(format!("unknown effect `{}`", row[0])))?;
        if in_effects {
            let [_, verb, cost] = row.as_slice() else {
                return Err(at("an effect's row has a verb and a cost".to_owned()));
            };
            verbs[effect as usize] = verb;
            costs[effect as usize] = cost;
            seen_verbs[effect as usize] = true;
            continue;
        }
        let kinds = columns
            .as_ref()
            .ok_or_else(|| at("a row before the header".to_owned()))?;
        if row.len() != kinds.len() + 1 {
            return Err(at(format!("{} cells, want {}", row.len() - 1, kinds.len())));
        }
        for (kind, cell) in kinds.iter().zip(&row[1..]) {
            levels[effect as usize][*kind as usize] =
                level_named(cell).ok_or_else(|| at(format!("`{cell}` is not a level")))?;
        }
        seen_rows[effect as usize] = true;
    }
    for effect in Effect::ALL {
        if !seen_rows[effect as usize] {
            return Err(format!("levels.md has no row for `{}`", effect.name()));
        }
        if !seen_verbs[effect as usize] {
            return Err(format!(
                "levels.md does not say what `{}` does",
                effect.name()
            ));
        }
    }
    let ids = Effect::ALL
        .iter()
        .flat_map(|e| {
            Kind::ALL
                .iter()
                .map(move |k| format!("{}.{}", e.name(), k.name()))
        })
        .collect();
    Ok(Table {
        levels,
        verbs,
        costs,
        ids,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_reads_as_intended() {
        parse(SOURCE).expect("levels.md parses");
        assert_eq!(level(Effect::Read, Kind::Secret), Level::Destructive);
        assert_eq!(level(Effect::Delete, Kind::Home), Level::Forbidden);
        assert_eq!(level(Effect::Delete, Kind::Build), Level::Moderate);
        assert_eq!(level(Effect::Read, Kind::Project), Level::Safe);
        assert_eq!(cell_id(Effect::Delete, Kind::Home), "delete.home");
        assert_eq!(Effect::Delete.verb(), "deletes");
    }

    #[test]
    fn a_broken_table_is_refused() {
        let missing = "| effect \\ place | root |\n|---|---|\n| read | safe |\n";
        assert!(parse(missing).is_err());
        let bad_level = SOURCE.replacen("| read | safe |", "| read | harmless |", 1);
        let bad_level: &'static str = Box::leak(bad_level.into_boxed_str());
        assert!(parse(bad_level).is_err());
    }
}
