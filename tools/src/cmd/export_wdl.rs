//! `morris export-wdl`: writes the compact WDL files (1.6 bits per slot,
//! or smaller with `--compress`: grouped, or zstd blocks;
//! [`morris_db::wdl`]) of a database's tables into another directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, ValueEnum};
use morris_db::wdl::{
    export_table, export_table_compressed, export_table_grouped, wdl_path, WdlCoding, WdlTable, WDL_DEFAULT_LEVEL,
};
use morris_db::{Store, Table};

use crate::args::{DbArg, RulesArg};

/// Write compact win/draw/loss files (no DTM) for distribution.
///
/// Write compact WDL files (win/draw/loss only, 1.6 bits per slot, no
/// distance to mate) of a database's tables, for distribution.
#[derive(Args)]
pub struct ExportWdlArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Directory for the WDL files (created if missing; may be `--db`
    /// itself: WDL files have their own extension, `.mwdl`).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Store the values in fewer bytes: `groups` (the default) keeps
    /// groups of 256 slots as their most frequent value and the slots that
    /// differ, read at random about as fast as the plain files in about
    /// half the bytes; `zstd` compresses blocks of 5,120 slots, for the
    /// fewest bytes and a tenth of the look-up rate. The probe, `prove` and
    /// `serve` read every form.
    #[arg(long, value_name = "CODING", num_args = 0..=1, default_missing_value = "groups")]
    compress: Option<Compress>,
    /// The zstd level of `--compress zstd` (1 to 22: higher is smaller and
    /// slower to write, as fast to read; default 9).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=22))]
    level: Option<i32>,
}

/// The forms of `--compress`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Compress {
    /// Groups of 256 slots (random access, nothing to decompress).
    Groups,
    /// Zstd blocks of 5,120 slots.
    Zstd,
}

/// Runs `morris export-wdl`.
pub fn run(args: ExportWdlArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let coding = match args.compress {
        None => WdlCoding::Plain,
        Some(Compress::Groups) => WdlCoding::Groups,
        Some(Compress::Zstd) => WdlCoding::Zstd,
    };
    if args.level.is_some() && coding != WdlCoding::Zstd {
        anyhow::bail!("--level sets the zstd level: it needs --compress zstd");
    }
    let dir = &args.db.db;
    let sectors = Store::new(dir)
        .dtm_sectors(&rules)
        .with_context(|| format!("cannot read database directory {}", dir.display()))?;
    if sectors.is_empty() {
        anyhow::bail!("{} holds no table of rule set `{}`", dir.display(), rules.name());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let start = Instant::now();
    let (mut positions, mut dtm_bytes, mut wdl_bytes, mut kept) = (0u64, 0u64, 0u64, 0usize);
    writeln!(out, "{:<9} {:>14} {:>14} {:>14} {:>10}", "sector", "positions", "DTM bytes", "WDL bytes", "bytes/pos")?;
    for sector in sectors {
        let len = rules.sector_index(sector)?.len();
        let table = Table::open(dir, &rules, sector, len)?;
        table.verify_checksum()?;
        let path = wdl_path(&args.out, &rules, sector);
        // A file exported from this very table (same payload checksum) is kept.
        let existing = WdlTable::open(&args.out, &rules, sector, len)
            .ok()
            .filter(|w| w.header().own.source_checksum == table.header().payload_checksum)
            .filter(|w| w.coding() == coding)
            .filter(|w| w.verify_checksum().is_ok());
        let (count, size) = match existing {
            Some(w) => {
                kept += 1;
                (w.header().canonical_positions, w.file_size())
            }
            None => {
                let h = match coding {
                    WdlCoding::Plain => export_table(&table, &path)?,
                    WdlCoding::Groups => export_table_grouped(&table, &path)?,
                    WdlCoding::Zstd => export_table_compressed(&table, &path, args.level.unwrap_or(WDL_DEFAULT_LEVEL))?,
                };
                let size = std::fs::metadata(&path).with_context(|| format!("cannot read {}", path.display()))?.len();
                (h.canonical_positions, size)
            }
        };
        let dtm = std::fs::metadata(table.path()).map(|m| m.len()).unwrap_or(0);
        positions += count;
        dtm_bytes += dtm;
        wdl_bytes += size;
        writeln!(
            out,
            "{:<9} {:>14} {:>14} {:>14} {:>10.4}",
            sector.to_string(),
            count,
            dtm,
            size,
            size as f64 / count.max(1) as f64
        )?;
    }
    writeln!(
        out,
        "exported {} positions into {} in {:.2} s: {} bytes, {:.4} bytes ({:.2} bits) per position (DTM tables: {:.4} bytes per position){}",
        positions,
        args.out.display(),
        start.elapsed().as_secs_f64(),
        wdl_bytes,
        wdl_bytes as f64 / positions.max(1) as f64,
        8.0 * wdl_bytes as f64 / positions.max(1) as f64,
        dtm_bytes as f64 / positions.max(1) as f64,
        if kept > 0 { format!("; {kept} files already up to date were kept") } else { String::new() }
    )?;
    Ok(ExitCode::SUCCESS)
}
