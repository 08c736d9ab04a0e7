//! `morris export-wdl`: writes the compact WDL files (1.6 bits per slot,
//! or compressed in blocks with `--compress`; [`morris_db::wdl`]) of a
//! database's tables into another directory.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use morris_db::wdl::{export_table, export_table_compressed, wdl_path, WdlTable, WDL_DEFAULT_LEVEL};
use morris_db::{Store, Table};

use crate::{DbArg, RulesArg};

/// Arguments of `morris export-wdl`.
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
    /// Compress each file in blocks of 5,120 slots (zstd), for a third or
    /// less of the bytes; read by the probe, `prove` and `serve` like the
    /// plain files, a little slower per look-up.
    #[arg(long)]
    compress: bool,
    /// The zstd level of `--compress` (1 to 22: higher is smaller and
    /// slower to write, as fast to read).
    #[arg(long, value_name = "N", default_value_t = WDL_DEFAULT_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22), requires = "compress")]
    level: i32,
}

/// Runs `morris export-wdl`.
pub fn run(args: ExportWdlArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let rules = args.rules.rule_set()?;
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
            .filter(|w| w.is_compressed() == args.compress)
            .filter(|w| w.verify_checksum().is_ok());
        let (count, size) = match existing {
            Some(w) => {
                kept += 1;
                (w.header().canonical_positions, w.file_size())
            }
            None => {
                let h = if args.compress {
                    export_table_compressed(&table, &path, args.level)?
                } else {
                    export_table(&table, &path)?
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
