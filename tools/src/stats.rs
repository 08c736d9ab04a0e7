//! `morris stats`: one row per table of a database directory (a sector
//! with both a `.mtb` and a `.mtz` file is one table: the `.mtb` one is
//! read, and the `.mtz` twin is checked against it).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use morris_db::store::NamedRules;
use morris_db::{Sector, Store, Table, TableHeader};

use crate::DbArg;

/// Output formats of `morris stats`.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Aligned columns for reading.
    Table,
    /// `sector,positions,wins,losses,draws,max_win,max_loss,rules`.
    Csv,
    /// A JSON array of objects, one per table.
    Json,
}

/// Arguments of `morris stats`.
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
}

struct Row {
    header: TableHeader,
}

/// Opens and fully checks one table file: header, size, checksum, and that
/// the rule set its name names has this fingerprint and sector size. A
/// custom rule set's name gives its preset (so the board and the sector's
/// size) and the first digits of its fingerprint ([`NamedRules`]).
fn check(path: &Path, name: &str, sector: Sector) -> anyhow::Result<TableHeader> {
    let table = Table::open_unchecked(path)?;
    table.verify_checksum()?;
    let named =
        NamedRules::parse(name).with_context(|| format!("{}: file name names no known rule set", path.display()))?;
    let rules = &named.preset;
    let len = rules.sector_index(sector).with_context(|| format!("{}: the file name's sector", path.display()))?.len();
    if named.fingerprint_prefix.is_none() {
        table.check(rules, sector, len)?;
        return Ok(table.header().clone());
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
    Ok(h.clone())
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
    let mut out = crate::output::stdout();
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
    let mut rows = Vec::new();
    let mut failed = 0;
    for t in &tables {
        match check(&t.path, &t.rules_name, t.sector) {
            Ok(header) => {
                if let Some(problem) = t.twin.as_deref().and_then(|twin| twin_problem(twin, &t.rules_name, &header)) {
                    crate::output::errln!(
                        "warning: {problem}; every command reads {} instead (which passed): remove the `.mtz` file or run `morris compress` again",
                        t.path.display()
                    );
                }
                rows.push(Row { header });
            }
            Err(e) => {
                crate::output::errln!("error: {e:#}");
                failed += 1;
            }
        }
    }
    let opt = |count: u64, n: u32| {
        if count == 0 {
            String::new()
        } else {
            n.to_string()
        }
    };
    match args.format {
        Format::Csv => {
            writeln!(out, "sector,positions,wins,losses,draws,max_win,max_loss,rules")?;
            for Row { header: h } in &rows {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{},{}",
                    h.sector,
                    h.canonical_positions,
                    h.wins,
                    h.losses,
                    h.draws,
                    opt(h.wins, h.own.max_win),
                    opt(h.losses, h.own.max_loss),
                    h.rules_name
                )?;
            }
        }
        Format::Json => {
            let list: Vec<serde_json::Value> = rows
                .iter()
                .map(|Row { header: h }| {
                    serde_json::json!({
                        "rules": h.rules_name,
                        "sector": h.sector.to_string(),
                        "slots": h.entry_count,
                        "positions": h.canonical_positions,
                        "wins": h.wins,
                        "losses": h.losses,
                        "draws": h.draws,
                        "max_win": (h.wins > 0).then_some(h.own.max_win),
                        "max_loss": (h.losses > 0).then_some(h.own.max_loss),
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        }
        Format::Table => {
            writeln!(
                out,
                "{:<10} {:<9} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8} {:>8}",
                "rules", "sector", "positions", "wins", "losses", "draws", "max_win", "max_loss", "slots/pos"
            )?;
            let mut total = 0u64;
            for Row { header: h } in &rows {
                total += h.canonical_positions;
                writeln!(
                    out,
                    "{:<10} {:<9} {:>14} {:>14} {:>14} {:>14} {:>8} {:>8} {:>8.4}",
                    h.rules_name,
                    h.sector.to_string(),
                    h.canonical_positions,
                    h.wins,
                    h.losses,
                    h.draws,
                    opt(h.wins, h.own.max_win),
                    opt(h.losses, h.own.max_loss),
                    h.entry_count as f64 / h.canonical_positions.max(1) as f64
                )?;
            }
            writeln!(
                out,
                "{}, {}",
                crate::plural(rows.len() as u64, "table", "tables"),
                crate::plural(total, "canonical position", "canonical positions")
            )?;
        }
    }
    if failed > 0 {
        crate::output::errln!(
            "error: {failed} of {} failed their checks",
            crate::plural(tables.len() as u64, "table", "tables")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
