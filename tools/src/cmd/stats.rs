//! `morris stats`: one row per table of a database directory (a sector
//! with both a `.mtb` and a `.mtz` file is one table: the `.mtb` one is
//! read, and the `.mtz` twin is checked against it).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use morris_db::reach::ReachMap;
use morris_db::store::{NamedRules, StoredTable};
use morris_db::{Sector, Store, Table, TableHeader};

use crate::args::DbArg;
use morris_probe::longest::{longest_wins, Candidate};

/// Output formats of `morris stats`.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Aligned columns for reading.
    Table,
    /// `sector,positions,wins,losses,draws,max_win,max_loss,reachable,rules`.
    Csv,
    /// A JSON array of objects, one per table.
    Json,
}

/// One row per table: positions, wins, losses, draws, longest win.
///
/// One row per table: positions, wins, losses, draws, longest win and loss,
/// and where `morris reach` wrote its bitmap the positions that can arise
/// in a game (empty where there is none).
///
/// Checks every table's header and checksum; exits non-zero if any table
/// is damaged.
#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    db: DbArg,
    /// Only the tables of this rule set: a preset, or a custom rule set's
    /// name as its table files have it (e.g. `nine-dg-9a6d4236`). Default:
    /// every rule set in the directory.
    #[arg(long, value_name = "NAME")]
    rules: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// In place of the per-table rows: the N positions with the longest win
    /// over every table (sliding and placement), longest first, each with
    /// its sector, DTM, position and Sanmill FEN (ties: rule set, sector,
    /// slot). Reads only the tables whose longest win can enter the list.
    #[arg(long, value_name = "N", value_parser = crate::args::number::<usize>(1..=100_000))]
    longest: Option<usize>,
    /// With `--longest`: list only positions that can arise in a game,
    /// from the bitmaps `morris reach` wrote beside the tables. `auto` (the
    /// default) does so when every table has its bitmap; `yes` requires
    /// them; `no` lists every position of the tables.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto", requires = "longest")]
    reachable: Reachable,
}

/// When `morris stats --longest` keeps to reachable positions.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Reachable {
    /// When every table has its bitmap.
    Auto,
    /// Always; an error where a bitmap is missing.
    Yes,
    /// Never.
    No,
}

struct Row {
    header: TableHeader,
    /// Reachable canonical positions, from the table's bitmap (`morris
    /// reach`) when there is one.
    reachable: Option<u64>,
    /// The rule set's name as the file name gives it (the header holds at
    /// most 16 bytes of it: [`morris_db::RuleSet::header_name`]).
    rules: String,
}

/// The columns of a row's counts, in every format, with their width in the
/// aligned table.
const COUNT_COLUMNS: [(&str, usize); 7] = [
    ("positions", 14),
    ("wins", 14),
    ("losses", 14),
    ("draws", 14),
    ("max_win", 8),
    ("max_loss", 8),
    ("reachable", 14),
];

impl Row {
    /// The longest win and loss in plies; `None` without wins (losses).
    fn longest(&self) -> (Option<u32>, Option<u32>) {
        let h = &self.header;
        ((h.wins > 0).then_some(h.own.max_win), (h.losses > 0).then_some(h.own.max_loss))
    }

    /// The [`COUNT_COLUMNS`] of this row as text (a longest win or loss
    /// that there is not, and the reachable positions of a table without a
    /// bitmap, are empty).
    fn counts(&self) -> [String; 7] {
        let h = &self.header;
        let text = |n: Option<u32>| n.map_or_else(String::new, |n| n.to_string());
        let (win, loss) = self.longest();
        [
            h.canonical_positions.to_string(),
            h.wins.to_string(),
            h.losses.to_string(),
            h.draws.to_string(),
            text(win),
            text(loss),
            self.reachable.map_or_else(String::new, |n| n.to_string()),
        ]
    }
}

/// The reachability bitmap of table `t` (whose header is `header`), if
/// `morris reach` wrote one: opened, checksummed, and counted from this
/// very table (the payload checksum it records).
///
/// # Errors
/// A bitmap that cannot be read, is damaged, or was counted from another
/// table than the one on disk (then `morris reach` must run again).
fn reach_map(dir: &Path, t: &StoredTable, header: &TableHeader) -> anyhow::Result<Option<ReachMap>> {
    let named = NamedRules::parse(&t.rules_name)?;
    let exact = named.rule_set().unwrap_or(named.preset);
    match ReachMap::open(dir, &exact, t.sector, header.entry_count) {
        Ok(map) => {
            map.verify_checksum()?;
            if map.header().own.source_checksum != header.payload_checksum {
                anyhow::bail!(
                    "{}: counted from another table than {} (run `morris reach` again)",
                    map.path().display(),
                    t.path.display()
                );
            }
            Ok(Some(map))
        }
        Err(morris_db::TableError::Missing { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Opens and fully checks one table file: header, size, checksum, and that
/// the rule set its name names has this fingerprint and sector size. A
/// custom rule set's name gives its preset (so the board and the sector's
/// size) and the first digits of its fingerprint ([`NamedRules`]).
fn check(path: &Path, name: &str, sector: Sector) -> anyhow::Result<TableHeader> {
    let table = open_checked_header(path, name, sector)?;
    table.verify_checksum()?;
    Ok(table.header().clone())
}

/// Opens a table file and checks its header as [`check`] does, all but the
/// payload checksum (a full read).
fn open_checked_header(path: &Path, name: &str, sector: Sector) -> anyhow::Result<Table> {
    let table = Table::open_unchecked(path)?;
    let named =
        NamedRules::parse(name).with_context(|| format!("{}: file name names no known rule set", path.display()))?;
    let rules = &named.preset;
    let len = rules.sector_index(sector).with_context(|| format!("{}: the file name's sector", path.display()))?.len();
    if named.fingerprint_prefix.is_none() {
        table.check(rules, sector, len)?;
        return Ok(table);
    }
    let h = table.header();
    if !named.matches(&h.rules_name, h.rules_fingerprint) {
        anyhow::bail!(
            "{}: the header names rule set `{}` (fingerprint {:016x}), not `{name}`",
            path.display(),
            h.rules_name,
            h.rules_fingerprint
        );
    }
    if h.sector != sector || h.entry_count != len {
        anyhow::bail!(
            "{}: the header holds sector {} with {} slots; the file name says {sector}, which has {len}",
            path.display(),
            h.sector,
            h.entry_count
        );
    }
    Ok(table)
}

/// Checks the compressed twin of a table that passed: it must pass the same
/// checks and hold the same values (the statistics in the headers). What is
/// wrong, if anything.
fn twin_problem(twin: &Path, name: &str, original: &TableHeader) -> Option<String> {
    match check(twin, name, original.sector) {
        Err(e) => Some(format!("{e:#}")),
        Ok(h) => {
            let values = |h: &TableHeader| {
                (h.entry_count, h.canonical_positions, h.wins, h.losses, h.draws, h.own.max_win, h.own.max_loss)
            };
            (values(&h) != values(original))
                .then(|| format!("{}: holds other values than its original (a stale compressed table)", twin.display()))
        }
    }
}

/// Runs `morris stats`.
pub fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let dir = &args.db.db;
    let store = Store::new(dir);
    let mut tables = store.tables().with_context(|| format!("cannot read database directory {}", dir.display()))?;
    if let Some(name) = &args.rules {
        NamedRules::parse(name)?;
        let all = std::mem::take(&mut tables);
        tables = all.into_iter().filter(|t| &t.rules_name == name).collect();
        if tables.is_empty() {
            let others = store.other_rule_sets(name);
            if others.is_empty() {
                anyhow::bail!("{} holds no table", dir.display());
            }
            anyhow::bail!("{} holds no table of rule set `{name}`, but tables of {}", dir.display(), others.join(", "));
        }
    }
    if tables.is_empty() {
        anyhow::bail!("{} holds no table (no `.mtb` or `.mtz` file)", dir.display());
    }
    if let Some(n) = args.longest {
        return longest(dir, &tables, n, args.reachable, args.format, &mut out);
    }
    let mut rows = Vec::new();
    let mut failed = 0;
    for t in &tables {
        match check(&t.path, &t.rules_name, t.sector) {
            Ok(header) => {
                if let Some(problem) = t.twin.as_deref().and_then(|twin| twin_problem(twin, &t.rules_name, &header)) {
                    crate::ui::output::errln!(
                        "warning: {problem}; every command reads {} instead (which passed): remove the `.mtz` file or run `morris compress` again",
                        t.path.display()
                    );
                }
                match reach_map(dir, t, &header) {
                    Ok(map) => {
                        let reachable = map.map(|m| m.header().canonical_positions);
                        rows.push(Row { header, reachable, rules: t.rules_name.clone() });
                    }
                    Err(e) => {
                        crate::ui::output::errln!("error: {e:#}");
                        failed += 1;
                    }
                }
            }
            Err(e) => {
                crate::ui::output::errln!("error: {e:#}");
                failed += 1;
            }
        }
    }
    let names = COUNT_COLUMNS.map(|(name, _)| name);
    match args.format {
        Format::Csv => {
            writeln!(out, "sector,{},rules", names.join(","))?;
            for row in &rows {
                writeln!(out, "{},{},{}", row.header.sector, row.counts().join(","), row.rules)?;
            }
        }
        Format::Json => {
            let list: Vec<serde_json::Value> = rows
                .iter()
                .map(|row| {
                    let h = &row.header;
                    let (max_win, max_loss) = row.longest();
                    serde_json::json!({
                        "rules": row.rules,
                        "sector": h.sector.to_string(),
                        "slots": h.entry_count,
                        "positions": h.canonical_positions,
                        "wins": h.wins,
                        "losses": h.losses,
                        "draws": h.draws,
                        "max_win": max_win,
                        "max_loss": max_loss,
                        "reachable": row.reachable,
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        }
        Format::Table => {
            let line = |out: &mut dyn Write, rules: &str, sector: &str, counts: &[String; 7], last: &str| {
                write!(out, "{rules:<10} {sector:<9}")?;
                for (count, (_, width)) in counts.iter().zip(COUNT_COLUMNS) {
                    write!(out, " {count:>width$}")?;
                }
                writeln!(out, " {last:>8}")
            };
            line(&mut out, "rules", "sector", &names.map(str::to_string), "slots/pos")?;
            let mut total = 0u64;
            for row in &rows {
                let h = &row.header;
                total += h.canonical_positions;
                let slots_per_position = format!("{:.4}", h.entry_count as f64 / h.canonical_positions.max(1) as f64);
                line(&mut out, &row.rules, &h.sector.to_string(), &row.counts(), &slots_per_position)?;
            }
            writeln!(
                out,
                "{}, {}",
                crate::ui::plural(rows.len() as u64, "table", "tables"),
                crate::ui::plural(total, "canonical position", "canonical positions")
            )?;
        }
    }
    if failed > 0 {
        crate::ui::output::errln!(
            "error: {failed} of {} failed their checks",
            crate::ui::plural(tables.len() as u64, "table", "tables")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// `morris stats --longest N`: every table's header checked, the tables
/// that can hold one of the `n` longest wins read (payload checksum first),
/// the list printed in `format`.
fn longest(
    dir: &Path,
    tables: &[StoredTable],
    n: usize,
    reachable: Reachable,
    format: Format,
    out: &mut impl Write,
) -> anyhow::Result<ExitCode> {
    let mut candidates = Vec::new();
    for t in tables {
        let table = open_checked_header(&t.path, &t.rules_name, t.sector)?;
        let rules = NamedRules::parse(&t.rules_name)?.preset;
        let reach = match reachable {
            Reachable::No => None,
            _ => match reach_map(dir, t, table.header())? {
                Some(map) => Some(map),
                None if reachable == Reachable::Auto => None,
                None => anyhow::bail!(
                    "--reachable: {} has no reachability bitmap beside it: run `morris reach` first",
                    t.path.display()
                ),
            },
        };
        candidates.push(Candidate { stored: t, table, rules, reach });
    }
    // `auto`: reachable positions only where every table has its bitmap.
    let filtered = candidates.iter().all(|c| c.reach.is_some());
    if !filtered {
        candidates.iter_mut().for_each(|c| c.reach = None);
    }
    let total = candidates.len();
    let found = longest_wins(candidates, n, |t| t.verify_checksum())?;
    let board_of = |name: &str| NamedRules::parse(name).map(|r| r.preset);
    let mut rows = Vec::new();
    for (rank, w) in found.wins.iter().enumerate() {
        let rules = board_of(&w.rules_name)?;
        let text = w.position.to_text(rules.board());
        let fen = w.position.to_fen(&rules).ok();
        rows.push((rank + 1, w, text, fen));
    }
    match format {
        Format::Csv => {
            writeln!(out, "rank,rules,sector,dtm,position,fen")?;
            for (rank, w, text, fen) in &rows {
                writeln!(
                    out,
                    "{rank},{},{},{},\"{text}\",{}",
                    w.rules_name,
                    w.sector,
                    w.dtm,
                    fen.as_deref().unwrap_or("")
                )?;
            }
        }
        Format::Json => {
            let list: Vec<serde_json::Value> = rows
                .iter()
                .map(|(rank, w, text, fen)| {
                    serde_json::json!({
                        "rank": rank,
                        "rules": w.rules_name,
                        "sector": w.sector.to_string(),
                        "slot": w.slot,
                        "dtm": w.dtm,
                        "position": text,
                        "fen": fen,
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        }
        Format::Table => {
            writeln!(out, "{:>4} {:<10} {:<9} {:>5}  position / FEN", "rank", "rules", "sector", "dtm")?;
            for (rank, w, text, fen) in &rows {
                writeln!(out, "{rank:>4} {:<10} {:<9} {:>5}  {text}", w.rules_name, w.sector.to_string(), w.dtm)?;
                if let Some(fen) = fen {
                    writeln!(out, "{:>32}{fen}", "")?;
                }
            }
            writeln!(
                out,
                "{} with the longest wins{} ({} of {} read); each position is the canonical representative of its symmetry class (replay it with `morris line`)",
                crate::ui::plural(rows.len() as u64, "position", "positions"),
                if filtered { " among those that can arise in a game" } else { "" },
                found.scanned.len(),
                crate::ui::plural(total as u64, "table", "tables"),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
