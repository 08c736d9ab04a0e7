//! `morris verify`: checks every table of a database (header, size,
//! checksums, statistics) and re-derives every stored value from the stored
//! values of its successors ([`morris_verify`]).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use morris_db::{Sector, Store};
use morris_verify::Verifier;

use crate::args::{DbArg, RulesArg, ThreadsArg};

/// Check every table, re-deriving each value from its successors.
///
/// Check every table of a database: header, size, checksums, and every
/// stored value re-derived from its successors' stored values. Exits
/// non-zero on any fault.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Verify only these sectors, comma-separated: `3-3,4-3` (sliding) or
    /// `w-b-wh-bh`. Default: every table of the rule set in the directory.
    /// The tables their moves lead to must be there too.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_sector)]
    sectors: Vec<Sector>,
    /// How many faults to print per table (the first in slot order; all
    /// are counted).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = crate::args::number::<usize>(1..=1_000_000))]
    show: usize,
    #[command(flatten)]
    threads: ThreadsArg,
    /// No progress bars.
    #[arg(long, short)]
    quiet: bool,
}

fn parse_sector(text: &str) -> Result<Sector, String> {
    Sector::parse(text.trim())
        .ok_or_else(|| format!("`{text}` is not a sector: write `w-b` or `w-b-wh-bh`, e.g. `3-4`"))
}

/// Runs `morris verify`.
pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set()?;
    for &s in &args.sectors {
        rules.check_sector(s)?;
    }
    let dir = &args.db.db;
    if !dir.is_dir() {
        anyhow::bail!("database directory {} does not exist or is not a directory", dir.display());
    }
    let verifier = Verifier::new(dir, rules.clone()).max_faults(args.show);
    let sectors = if args.sectors.is_empty() {
        let found = verifier.sectors().with_context(|| format!("cannot read database directory {}", dir.display()))?;
        if found.is_empty() {
            let others = Store::new(dir).other_rule_sets(rules.name());
            if others.is_empty() {
                anyhow::bail!("{} holds no table of rule set `{}`", dir.display(), rules.name());
            }
            anyhow::bail!(
                "{} holds no table of rule set `{}`, but tables of {}: is `--rules` right?",
                dir.display(),
                rules.name(),
                others.join(", ")
            );
        }
        found
    } else {
        args.sectors.clone()
    };
    for leftover in Store::new(dir).temporary_files().unwrap_or_default() {
        let leftover = leftover.file_name().unwrap_or_default().to_string_lossy().into_owned();
        writeln!(
            out,
            "note: {leftover} is a temporary file of an interrupted solve or export (never read; `morris solve` removes it)"
        )?;
    }
    let pool = args.threads.pool()?;
    let start = Instant::now();
    let (mut failed, mut positions) = (0usize, 0u64);
    for &sector in &sectors {
        let bar = if args.quiet {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::new(verifier.slots(sector)?);
            bar.set_style(
                ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} slots, {per_sec}, ETA {eta}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(format!("verify {sector}"));
            bar
        };
        let report = pool.install(|| verifier.verify(sector, &|n| bar.inc(n)));
        bar.finish_and_clear();
        positions += report.positions;
        let rate = report.positions as f64 / report.seconds.max(1e-9);
        if report.is_ok() {
            writeln!(
                out,
                "{:<9} OK      {} re-derived in {:.2} s ({:.2} M positions/s)",
                sector.to_string(),
                crate::ui::plural(report.positions, "position", "positions"),
                report.seconds,
                rate / 1e6
            )?;
        } else {
            failed += 1;
            writeln!(
                out,
                "{:<9} FAILED  {} fault{} in {}",
                sector.to_string(),
                report.fault_count,
                if report.fault_count == 1 { "" } else { "s" },
                report.path.display()
            )?;
            for f in &report.faults {
                writeln!(out, "    {f}")?;
            }
            if report.fault_count > report.faults.len() as u64 {
                writeln!(out, "    ... and {} more", report.fault_count - report.faults.len() as u64)?;
            }
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "{} of {} OK, {} in {:.2} s ({:.2} M positions/s, {})",
        sectors.len() - failed,
        crate::ui::plural(sectors.len() as u64, "table", "tables"),
        crate::ui::plural(positions, "position", "positions"),
        seconds,
        positions as f64 / seconds.max(1e-9) / 1e6,
        crate::ui::plural(pool.current_num_threads() as u64, "thread", "threads")
    )?;
    if failed > 0 {
        crate::ui::output::errln!(
            "error: {failed} of {} failed verification",
            crate::ui::plural(sectors.len() as u64, "table", "tables")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
