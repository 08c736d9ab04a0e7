//! `morris export-wdl`: writes the compact WDL files (1.6 bits per slot,
//! or smaller with `--compress`: grouped, or zstd blocks;
//! [`morris_db::wdl`]) of a database's tables into another directory.
//!
//! With `--single-sided` about half the sectors, those
//! [`morris_db::derived::choose`] picks, get a stub with no values
//! ([`morris_db::wdl::write_stub`]) instead, whose positions the probe
//! values by one ply of search; each stub is written only after a sample
//! of its positions searched that way agreed with the DTM table.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::builder::TypedValueParser;
use clap::{Args, ValueEnum};
use morris_db::wdl::{
    export_table, export_table_compressed_with, export_table_grouped, wdl_path, write_stub, Wdl, WdlCoding, WdlTable,
    WDL_BLOCK_BYTES, WDL_DEFAULT_LEVEL,
};
use morris_db::{derived, RuleSet, Sector, Store, Table};
use morris_probe::wdl::WdlDatabase;
use morris_probe::Database;

use crate::args::{DbArg, RulesArg};
use crate::cmd::compress::check_searched;

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
    /// groups of 256 slots as one value, as their most frequent value and
    /// the slots that differ, or as an enumerative code of where each value
    /// is, read at random without decompressing, in a fiftieth (sectors of
    /// nearly one value) to four fifths (placement sectors where the three
    /// values mix) of the plain files' bytes; `zstd`
    /// compresses blocks of 5,120 slots, for the fewest bytes and a tenth
    /// of the look-up rate. The probe, `prove` and `serve` read every form.
    #[arg(long, value_name = "CODING", num_args = 0..=1, default_missing_value = "groups")]
    compress: Option<Compress>,
    /// The zstd level of `--compress zstd` (1 to 22: higher is smaller and
    /// slower to write, as fast to read; default 9).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=22))]
    level: Option<i32>,
    /// The block size of `--compress zstd`, payload bytes (five slots a
    /// byte): 1024 (the default), 4096 or 16384. Larger blocks take fewer
    /// bytes; a look-up that misses the thread's cache decompresses one
    /// block, so probes at random are slower.
    #[arg(long, value_name = "BYTES", value_parser = clap::builder::PossibleValuesParser::new(["1024", "4096", "16384"]).map(|s| s.parse::<usize>().unwrap_or(WDL_BLOCK_BYTES)))]
    block_bytes: Option<usize>,
    /// Single-sided files, as Syzygy's DTZ tables: about half the sectors
    /// get a stub of 128 bytes with no values instead of a file, and
    /// `value`, `prove` and `serve` value their positions by one ply of
    /// search into the files kept (about 20 look-ups a probe). A sector
    /// gets a stub only where none of the sectors its moves lead to does;
    /// the largest (by the entropy of their win, draw and loss counts) are
    /// chosen first. Each stub is written only after a sample of its
    /// positions, searched that way, agreed with the DTM table.
    #[arg(long)]
    single_sided: bool,
    /// With `--single-sided`: positions of each stub's sector, drawn at
    /// random (seeded), whose searched value is compared with the DTM
    /// table's before the stub is written.
    #[arg(long, default_value_t = 1000, requires = "single_sided", value_parser = crate::args::number::<usize>(1..=100_000_000))]
    check_positions: usize,
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
    if args.block_bytes.is_some() && coding != WdlCoding::Zstd {
        anyhow::bail!("--block-bytes sets the size of zstd blocks: it needs --compress zstd");
    }
    let block_bytes = args.block_bytes.unwrap_or(WDL_BLOCK_BYTES);
    let dir = &args.db.db;
    let sectors = Store::new(dir)
        .dtm_sectors(&rules)
        .with_context(|| format!("cannot read database directory {}", dir.display()))?;
    if sectors.is_empty() {
        anyhow::bail!("{} holds no table of rule set `{}`", dir.display(), rules.name());
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let stubs = if args.single_sided { choose_stubs(&rules, dir, &sectors)? } else { Vec::new() };
    let start = Instant::now();
    let (mut positions, mut dtm_bytes, mut wdl_bytes, mut kept) = (0u64, 0u64, 0u64, 0usize);
    writeln!(out, "{:<9} {:>14} {:>14} {:>14} {:>10}", "sector", "positions", "DTM bytes", "WDL bytes", "bytes/pos")?;
    // The files first, then the stubs, whose check searches into them.
    let total = sectors.len();
    let (files, stubbed): (Vec<Sector>, Vec<Sector>) = sectors.into_iter().partition(|s| !stubs.contains(s));
    let mut checks: Option<(Database, WdlDatabase)> = None;
    for (i, sector) in files.into_iter().chain(stubbed).enumerate() {
        let stub = stubs.contains(&sector);
        let len = rules.sector_index(sector)?.len();
        let table = Table::open(dir, &rules, sector, len)?;
        table.verify_checksum()?;
        let path = wdl_path(&args.out, &rules, sector);
        let wanted = if stub { WdlCoding::Derived } else { coding };
        // A file exported from this very table (same payload checksum) is kept.
        let existing = WdlTable::open(&args.out, &rules, sector, len)
            .ok()
            .filter(|w| w.header().own.source_checksum == table.header().payload_checksum)
            .filter(|w| w.coding() == wanted)
            .filter(|w| wanted != WdlCoding::Zstd || w.block_bytes() == Some(block_bytes))
            .filter(|w| w.verify_checksum().is_ok());
        let (count, size) = match existing {
            Some(w) => {
                kept += 1;
                (w.header().canonical_positions, w.file_size())
            }
            None => {
                let h = match wanted {
                    WdlCoding::Derived => {
                        let (dtm, wdl) = match &mut checks {
                            Some(c) => c,
                            None => checks.insert((
                                Database::open(dir, rules.clone())?,
                                WdlDatabase::open(&args.out, rules.clone())?,
                            )),
                        };
                        check_searched(
                            dtm,
                            wdl,
                            sector,
                            args.check_positions,
                            i as u64,
                            Wdl::from,
                            "the DTM table",
                            "its stub was not written (run `morris verify`)",
                        )?;
                        write_stub(&table, &path)?
                    }
                    WdlCoding::Plain => export_table(&table, &path)?,
                    WdlCoding::Groups => export_table_grouped(&table, &path)?,
                    WdlCoding::Zstd => export_table_compressed_with(
                        &table,
                        &path,
                        args.level.unwrap_or(WDL_DEFAULT_LEVEL),
                        block_bytes,
                    )?,
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
            "{:<9} {:>14} {:>14} {:>14} {:>10.4}{}",
            sector.to_string(),
            count,
            dtm,
            size,
            size as f64 / count.max(1) as f64,
            if stub { "  stub" } else { "" }
        )?;
    }
    if args.single_sided {
        writeln!(out, "single-sided: {} of {total} sectors have a stub", stubs.len())?;
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

/// The sectors of `sectors` (those with a DTM table in `dir`) that get a
/// single-sided stub: [`derived::choose`], each weighted by the bytes its
/// WDL file would take at the zero-order entropy of its table's win, draw
/// and loss counts (a stub saves about that much).
///
/// # Errors
/// When a table cannot be opened, or a line wins under `rules` (a position
/// is then not decided by one ply of moves).
fn choose_stubs(rules: &RuleSet, dir: &std::path::Path, sectors: &[Sector]) -> anyhow::Result<Vec<Sector>> {
    if rules.line_wins() {
        anyhow::bail!(
            "rule set `{}`: a line wins, so a position is not decided by one ply of moves; no file can be single-sided",
            rules.name()
        );
    }
    let mut weighted = Vec::with_capacity(sectors.len());
    for &sector in sectors {
        let h = Table::open(dir, rules, sector, rules.sector_index(sector)?.len())?.header().clone();
        let n = h.canonical_positions as f64;
        let bits: f64 = [h.wins, h.losses, h.draws]
            .into_iter()
            .filter(|&c| c > 0)
            .map(|c| -(c as f64) * (c as f64 / n).log2())
            .sum();
        weighted.push((sector, (bits / 8.0).ceil() as u64));
    }
    Ok(derived::choose(rules, &weighted))
}
