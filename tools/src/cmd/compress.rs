//! `morris compress`: writes the compressed form (`.mtz`, exact DTM, about
//! 0.4 bytes per slot, [`morris_db::compressed`]) of a database's tables
//! beside them, checks every slot of each against its source before the
//! file gets its name, and with `--remove-originals` then deletes the
//! `.mtb` file ([`morris_db::compressed::compress_sector`], which `morris solve --compress` uses
//! too). Every command that reads tables reads either form.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::builder::TypedValueParser;
use clap::Args;
use morris_db::compressed::{compress_sector_with, CompressOptions, DEFAULT_BLOCK_SLOTS, DEFAULT_LEVEL};
use morris_db::{FileKind, Store};

use crate::args::{DbArg, RulesArg};

/// Write the compressed form (.mtz) of a database's tables.
///
/// Write the compressed form (`.mtz`: exact DTM, about a fifth of the
/// size) of a database's tables, check every slot against the original,
/// and optionally delete the originals. Every command reads both forms.
#[derive(Args)]
pub struct CompressArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// zstd level, 1 (fastest) to 19 (smallest).
    #[arg(long, default_value_t = DEFAULT_LEVEL, value_parser = crate::args::number::<i32>(1..=19))]
    level: i32,
    /// Slots per independently compressed block: 4096, 16384 or 65536.
    /// Larger blocks take fewer bytes; a look-up that misses the cache
    /// decompresses one block, so probes at random are slower.
    #[arg(long, default_value_t = DEFAULT_BLOCK_SLOTS, value_parser = clap::builder::PossibleValuesParser::new(["4096", "16384", "65536"]).map(|s| s.parse::<usize>().unwrap_or(DEFAULT_BLOCK_SLOTS)))]
    block_slots: usize,
    /// Delete each `.mtb` table once its compressed form is written and
    /// every slot of it checked against the original.
    #[arg(long)]
    remove_originals: bool,
}

/// Runs `morris compress`.
pub fn run(args: CompressArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let dir = &args.db.db;
    let store = Store::new(dir);
    let sectors = store
        .sectors(&rules, &[FileKind::Dtm])
        .with_context(|| format!("cannot read database directory {}", dir.display()))?;
    if sectors.is_empty() {
        anyhow::bail!("{} holds no uncompressed table of rule set `{}`", dir.display(), rules.name());
    }
    let start = Instant::now();
    let (mut positions, mut before, mut after) = (0u64, 0u64, 0u64);
    writeln!(out, "{:<9} {:>14} {:>14} {:>14} {:>10}", "sector", "positions", ".mtb bytes", ".mtz bytes", "bytes/pos")?;
    for sector in sectors {
        let options = CompressOptions { level: args.level, block_slots: args.block_slots };
        let done = compress_sector_with(dir, &rules, sector, options, args.remove_originals)?;
        let (report, original) = (done.report, done.original_bytes);
        let count = report.header.canonical_positions;
        positions += count;
        before += original;
        after += report.bytes;
        writeln!(
            out,
            "{:<9} {:>14} {:>14} {:>14} {:>10.4}",
            sector.to_string(),
            count,
            original,
            report.bytes,
            report.bytes as f64 / count.max(1) as f64
        )?;
    }
    writeln!(
        out,
        "compressed {positions} positions in {:.1} s: {before} bytes to {after} ({:.1}%), {:.4} bytes per position; every slot checked",
        start.elapsed().as_secs_f64(),
        100.0 * after as f64 / before.max(1) as f64,
        after as f64 / positions.max(1) as f64,
    )?;
    Ok(ExitCode::SUCCESS)
}
