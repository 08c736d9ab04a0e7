//! `morris compress`: writes the compressed form (`.mtz`, exact DTM, about
//! 0.4 bytes per slot, [`morris_db::compressed`]) of a database's tables
//! beside them, checks every slot of each against its source before the
//! file gets its name, and with `--remove-originals` then deletes the
//! `.mtb` file ([`morris_db::compressed::compress_sector`], which `morris solve --compress` uses
//! too). Every command that reads tables reads either form.
//!
//! With `--single-sided` it instead replaces the tables of the sectors
//! [`morris_db::derived::choose`] picks by stubs (`.mtd`) whose values the
//! probe derives by one ply of search, after checking a sample of each
//! table's positions against that search.

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::builder::TypedValueParser;
use clap::Args;
use morris_db::compressed::{
    compress_sector_with, recompress_sector, CompressOptions, DEFAULT_BLOCK_SLOTS, DEFAULT_LEVEL,
};
use morris_db::{derived, FileKind, RuleSet, Sector, Store, Table, Value};
use morris_probe::{sample, Database, Encoding, Tables};

use crate::args::{DbArg, RulesArg};

/// Shrink a database: compressed tables (.mtz), or single-sided ones.
///
/// Write the compressed form (`.mtz`: exact DTM, about a fifth of the
/// size) of a database's tables, check every slot against the original,
/// and optionally delete the originals. Every command reads both forms.
/// With `--single-sided`, replace the tables of about half the sectors by
/// stubs whose positions the probe values by one ply of search.
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
    /// Single-sided tables, as Syzygy's DTZ: replace the tables of as many
    /// bytes of sectors as can be by stubs (`.mtd`, 136 bytes each), whose
    /// positions `value`, `query` and `serve` value by one ply of search
    /// into the tables kept. A sector is replaced only where no sector its
    /// moves lead to is, and each table is checked on a sample of its
    /// positions first. `verify`, `stats` and `export-wdl` need the tables:
    /// run them before.
    #[arg(long, conflicts_with_all = ["level", "block_slots", "remove_originals", "recompress"])]
    single_sided: bool,
    /// Write the `.mtz` tables that have no `.mtb` twin again, at
    /// `--level` and `--block-slots` (each checked slot by slot against the
    /// old one before it takes its place), instead of compressing `.mtb`
    /// tables.
    #[arg(long, conflicts_with = "remove_originals")]
    recompress: bool,
    /// With `--single-sided`: positions of each replaced table, drawn at
    /// random (seeded), whose stored value is compared with the search's
    /// before the table is removed.
    #[arg(long, default_value_t = 1000, requires = "single_sided", value_parser = crate::args::number::<usize>(1..=100_000_000))]
    check_positions: usize,
}

/// Runs `morris compress`.
pub fn run(args: CompressArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let dir = &args.db.db;
    if args.single_sided {
        return single_sided(&mut out, &rules, dir, args.check_positions);
    }
    let store = Store::new(dir);
    let kind = if args.recompress { FileKind::Compressed } else { FileKind::Dtm };
    let mut sectors =
        store.sectors(&rules, &[kind]).with_context(|| format!("cannot read database directory {}", dir.display()))?;
    if args.recompress {
        // A `.mtz` with a `.mtb` twin is made again from the `.mtb` (without --recompress).
        sectors.retain(|&s| !store.path(rules.name(), s, FileKind::Dtm).exists());
    }
    if sectors.is_empty() {
        let what = if args.recompress { "compressed table without a .mtb twin" } else { "uncompressed table" };
        anyhow::bail!("{} holds no {what} of rule set `{}`", dir.display(), rules.name());
    }
    let start = Instant::now();
    let (mut positions, mut before, mut after) = (0u64, 0u64, 0u64);
    let before_name = if args.recompress { "old .mtz bytes" } else { ".mtb bytes" };
    writeln!(out, "{:<9} {:>14} {:>14} {:>14} {:>10}", "sector", "positions", before_name, ".mtz bytes", "bytes/pos")?;
    for sector in sectors {
        let options = CompressOptions { level: args.level, block_slots: args.block_slots };
        let done = if args.recompress {
            recompress_sector(dir, &rules, sector, options)?
        } else {
            compress_sector_with(dir, &rules, sector, options, args.remove_originals)?
        };
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

/// `morris compress --single-sided`: chooses the sectors to derive
/// ([`derived::choose`], the sizes of their table files as weights, stubs
/// already written first), and for each one that still has a table checks
/// `check` sampled positions of it against one ply of search
/// ([`morris_probe::Tables::searched_value`]), writes its stub and removes
/// its table files. A kill leaves every sector with a table or a stub (the
/// stub is written before the table is removed); a second run finishes.
fn single_sided(
    out: &mut impl Write,
    rules: &RuleSet,
    dir: &std::path::Path,
    check: usize,
) -> anyhow::Result<ExitCode> {
    let store = Store::new(dir);
    let unreadable = || format!("cannot read database directory {}", dir.display());
    let stored = store.dtm_sectors(rules).with_context(unreadable)?;
    let stubs = store.sectors(rules, &[FileKind::Derived]).with_context(unreadable)?;
    if stored.is_empty() {
        anyhow::bail!("{} holds no table of rule set `{}`", dir.display(), rules.name());
    }
    if rules.line_wins() {
        anyhow::bail!(
            "rule set `{}`: a line wins, so a position is not decided by one ply of moves; no table can be single-sided",
            rules.name()
        );
    }
    let mut weighted: Vec<(morris_db::Sector, u64)> = stubs.iter().map(|&s| (s, u64::MAX)).collect();
    for &sector in &stored {
        if stubs.contains(&sector) {
            continue;
        }
        let path = store.dtm_file(rules, sector).with_context(unreadable)?;
        let bytes = std::fs::metadata(&path).with_context(|| format!("cannot read {}", path.display()))?.len();
        weighted.push((sector, bytes));
    }
    let chosen = derived::choose(rules, &weighted);
    let stray: Vec<String> = stubs.iter().filter(|s| !chosen.contains(s)).map(|s| s.to_string()).collect();
    if !stray.is_empty() {
        anyhow::bail!(
            "the stubs of sectors {} meet other stubs (a move leads from one into another, or into a sector with no \
             table): put back their tables (solve them again) and run this again",
            stray.join(", ")
        );
    }
    let total: u64 = weighted.iter().filter(|w| w.1 != u64::MAX).map(|w| w.1).sum();
    let db = Database::open(dir, rules.clone())?;
    let start = Instant::now();
    let (mut removed, mut checked) = (0u64, 0u64);
    writeln!(out, "{:<9} {:>14} {:>14} {:>9}", "sector", "positions", "table bytes", "checked")?;
    for (i, &sector) in chosen.iter().enumerate() {
        let files: Vec<_> = [FileKind::Dtm, FileKind::Compressed]
            .into_iter()
            .map(|k| store.path(rules.name(), sector, k))
            .filter(|p| p.exists())
            .collect();
        let Some(first) = files.first() else { continue };
        let table = Table::open_guarded(dir, rules, sector, rules.indexer().sector(sector).len())?;
        table.verify_checksum()?;
        let drawn = check_searched(
            &db,
            &db,
            sector,
            check,
            i as u64,
            |v| v,
            &first.display().to_string(),
            "the tables disagree (run `morris verify`), nothing of this sector was removed",
        )?;
        derived::write_stub(dir, rules, &table)?;
        drop(table);
        let mut bytes = 0;
        for path in &files {
            bytes += std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
            std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
        }
        removed += bytes;
        checked += drawn as u64;
        writeln!(
            out,
            "{:<9} {:>14} {:>14} {:>9}",
            sector.to_string(),
            db.table(sector)?.header().canonical_positions,
            bytes,
            drawn
        )?;
    }
    let kept: u64 = store
        .dtm_sectors(rules)
        .with_context(unreadable)?
        .iter()
        .filter_map(|&s| store.dtm_file(rules, s))
        .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .sum();
    writeln!(
        out,
        "single-sided: {} of {} sectors derived by search; {removed} bytes of tables removed now, {kept} bytes kept \
         ({:.1}% of the {total} bytes before); {checked} sampled positions checked in {:.1} s",
        chosen.len(),
        weighted.len(),
        100.0 * kept as f64 / total.max(1) as f64,
        start.elapsed().as_secs_f64(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Checks a sector before its stub is written: `n` of its positions, drawn
/// at random from the DTM tables of `dtm` (seeded by `seed`, the same on
/// every run), each valued by one ply of search in `searcher` (the DTM
/// tables themselves for `compress --single-sided`, the WDL files for
/// `export-wdl --single-sided`) and compared with its stored value as
/// `answer` gives it. Returns how many positions were compared.
///
/// # Errors
/// The first position where the two differ, naming `source` (where the
/// value is stored) and ending with `consequence` (what was not done);
/// what drawing or searching returns.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_searched<E: Encoding>(
    dtm: &Database,
    searcher: &Tables<E>,
    sector: Sector,
    n: usize,
    seed: u64,
    answer: impl Fn(Value) -> E::Answer,
    source: &str,
    consequence: &str,
) -> anyhow::Result<usize>
where
    E::Answer: PartialEq + std::fmt::Display,
{
    let rules = dtm.rules();
    let drawn = sample(dtm, sector, n, 0x5eed ^ seed)?;
    for s in &drawn {
        let fen = || s.position.to_fen(rules).unwrap_or_else(|_| format!("{:?}", s.position));
        let searched = searcher
            .searched_value(&s.position)
            .with_context(|| format!("sector {sector}: cannot search position {} one ply", fen()))?;
        if searched != answer(s.value) {
            anyhow::bail!(
                "sector {sector}: position {} holds {} in {source} but one ply of search gives {searched}; {consequence}",
                fen(),
                s.value
            );
        }
    }
    Ok(drawn.len())
}
