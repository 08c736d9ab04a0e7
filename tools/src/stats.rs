//! `morris stats`: one row per table of a database directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use morris_db::{RuleSet, Sector, Table, TableHeader};

use crate::DbArg;

/// Output formats of `morris stats`.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Aligned columns for reading.
    Table,
    /// `sector,positions,wins,losses,draws,max_win,max_loss`.
    Csv,
    /// A JSON array of objects, one per table.
    Json,
}

/// Arguments of `morris stats`.
#[derive(Args)]
pub struct StatsArgs {
    #[command(flatten)]
    db: DbArg,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

struct Row {
    header: TableHeader,
}

/// Opens and fully checks one table file: header, size, checksum, and that
/// the rule set named in the header has this fingerprint and sector size.
/// A custom rule set (`<preset>-<8 hex digits of its fingerprint>`) is
/// checked against the name: its preset gives the board (so the sector's
/// size), and the fingerprint in the header must begin with those digits.
fn check(path: &std::path::Path, name: &str, sector: Sector) -> anyhow::Result<TableHeader> {
    let table = Table::open_unchecked(path)?;
    table.verify_checksum()?;
    let custom = name
        .rsplit_once('-')
        .filter(|(_, hex)| hex.len() == 8 && hex.bytes().all(|c| c.is_ascii_hexdigit()))
        .filter(|(preset, _)| RuleSet::preset(preset).is_ok());
    let preset = custom.map_or(name, |(preset, _)| preset);
    let rules =
        RuleSet::preset(preset).with_context(|| format!("{}: file name names no known rule set", path.display()))?;
    if !rules.sector_fits(sector) {
        anyhow::bail!("{}: file name names sector {sector}, which rule set `{preset}` cannot have", path.display());
    }
    let len = rules.indexer().sector(sector.w as usize, sector.b as usize).len();
    let Some((_, hex)) = custom else {
        table.check(&rules, sector, len)?;
        return Ok(table.header().clone());
    };
    let h = table.header();
    if h.rules_name != name || !format!("{:016x}", h.rules_fingerprint).starts_with(&hex.to_ascii_lowercase()) {
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

/// Runs `morris stats`.
pub fn run(args: StatsArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let dir = &args.db.db;
    let entries =
        std::fs::read_dir(dir).with_context(|| format!("cannot read database directory {}", dir.display()))?;
    let mut files: Vec<(String, Sector, PathBuf)> = Vec::new();
    for entry in entries {
        let path = entry.with_context(|| format!("cannot read {}", dir.display()))?.path();
        if let Some((preset, sector)) = path.file_name().and_then(|n| Sector::parse_file_name(&n.to_string_lossy())) {
            files.push((preset, sector, path));
        }
    }
    files.sort_by_key(|(preset, s, _)| (preset.clone(), s.wh + s.bh, s.w + s.b, s.w, s.wh));
    let mut rows = Vec::new();
    let mut failed = 0;
    for (preset, sector, path) in &files {
        match check(path, preset, *sector) {
            Ok(header) => rows.push(Row { header }),
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
            writeln!(out, "sector,positions,wins,losses,draws,max_win,max_loss")?;
            for Row { header: h } in &rows {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    h.sector,
                    h.canonical_positions,
                    h.wins,
                    h.losses,
                    h.draws,
                    opt(h.wins, h.max_win),
                    opt(h.losses, h.max_loss)
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
                        "max_win": (h.wins > 0).then_some(h.max_win),
                        "max_loss": (h.losses > 0).then_some(h.max_loss),
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
                    opt(h.wins, h.max_win),
                    opt(h.losses, h.max_loss),
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
            crate::plural(files.len() as u64, "table", "tables")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
