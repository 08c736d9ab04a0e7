//! `morris verify`: checks every table of a database (header, size,
//! checksums, statistics) and re-derives every stored value from the stored
//! values of its successors ([`morris_verify`]); skips the tables a
//! ledger row vouches for and records those that pass
//! ([`morris_verify::ledger`], docs/ledger.md).

use std::io::Write;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use morris_db::{Sector, Store};
use morris_verify::ledger::Ledger;
use morris_verify::{Outcome, Session, Step, Verifier};

use crate::args::{DbArg, RulesArg, ThreadsArg};
use crate::ui::verified::write_outcome;

/// Check every table, re-deriving each value from its successors.
///
/// Check every table of a database: header, size, checksums, and every
/// stored value re-derived from its successors' stored values. Exits
/// non-zero on any fault. Tables a ledger row vouches for (unchanged,
/// and so are the tables they depend on) are not checked again.
#[derive(Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// Verify only these sectors, comma-separated: `3-3,4-3` (sliding) or
    /// `w-b-wh-bh`, checked in the order given. Default: every table of
    /// the rule set in the directory, in the order that lets consecutive
    /// tables share the successor tables in memory.
    /// The tables their moves lead to must be there too.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = crate::args::SectorParser)]
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
    /// The ledger of verified tables (CSV, docs/ledger.md): a table whose
    /// values and whose successors' values match a row is not checked
    /// again; each table that passes gets a row. Default: `verified.csv`
    /// in the database directory.
    #[arg(long, value_name = "FILE")]
    ledger: Option<std::path::PathBuf>,
    /// Check every table, whatever the ledger says (those that pass are
    /// still recorded).
    #[arg(long)]
    recheck: bool,
}

/// Runs `morris verify`.
pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
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
        verifier.reading_order(&found)
    } else {
        let mut listed = args.sectors.clone();
        let mut seen = std::collections::HashSet::new();
        listed.retain(|s| seen.insert(*s));
        listed
    };
    // Files no command reads because of their names, reported as `stats`
    // reports them.
    let mut misnamed = 0;
    for (t, why) in Store::new(dir).misnamed() {
        if t.rules_name == rules.name() || morris_db::store::NamedRules::parse(&t.rules_name).is_err() {
            crate::ui::output::errln!("error: {}: {why}", t.path.display());
            misnamed += 1;
        }
    }
    for leftover in Store::new(dir).temporary_files().unwrap_or_default() {
        let leftover = leftover.file_name().unwrap_or_default().to_string_lossy().into_owned();
        writeln!(
            out,
            "note: {leftover} is a temporary file of an interrupted solve or export (never read; `morris solve` removes it)"
        )?;
    }
    let ledger = Ledger::of_database(dir, &rules, args.ledger.as_deref())?;
    for warning in ledger.warnings() {
        crate::ui::output::errln!("warning: {warning}");
    }
    if ledger.other_format() > 0 {
        writeln!(
            out,
            "note: {} in {} written by another verifier format: their tables are checked again",
            crate::ui::plural(ledger.other_format() as u64, "row", "rows"),
            ledger.path().display()
        )?;
    }
    let mut session = Session::new(&verifier, ledger, args.recheck).planned(&sectors);
    let pool = args.threads.pool()?;
    let start = Instant::now();
    for &sector in &sectors {
        // Reading a table whole for its checksum runs on the pool too.
        let outcome = match pool.install(|| session.step(sector)) {
            Step::Ledger(row) => Outcome::Ledger(row),
            Step::Check => {
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
                let report = pool.install(|| session.check(sector, &|n| bar.inc(n)));
                bar.finish_and_clear();
                report?
            }
        };
        write_outcome(&mut out, sector, &outcome)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let tally = session.tally().clone();
    writeln!(
        out,
        "{} of {} OK, {} in {:.2} s ({:.2} M positions/s, {})",
        tally.verified(),
        crate::ui::plural(sectors.len() as u64, "table", "tables"),
        crate::ui::plural(tally.positions_now + tally.positions_from_ledger, "position", "positions"),
        seconds,
        tally.positions_now as f64 / seconds.max(1e-9) / 1e6,
        crate::ui::plural(pool.current_num_threads() as u64, "thread", "threads")
    )?;
    writeln!(
        out,
        "{} of {} verified: {} from the ledger, {} now (ledger {})",
        tally.verified(),
        crate::ui::plural(sectors.len() as u64, "table", "tables"),
        tally.from_ledger,
        tally.now,
        session.ledger().path().display()
    )?;
    if tally.failed + tally.not_checked > 0 {
        let tables = crate::ui::plural(sectors.len() as u64, "table", "tables");
        let blocked = "not checked: a table it depends on is damaged";
        match (tally.failed, tally.not_checked) {
            (f, 0) => crate::ui::output::errln!("error: {f} of {tables} failed verification"),
            (0, n) => crate::ui::output::errln!("error: {n} of {tables} {blocked}"),
            (f, n) => crate::ui::output::errln!("error: {f} of {tables} failed verification, {n} {blocked}"),
        }
        return Ok(ExitCode::FAILURE);
    }
    if misnamed > 0 {
        crate::ui::output::errln!(
            "error: {} in {} misnamed (read by no command)",
            crate::ui::plural(misnamed as u64, "table file", "table files"),
            dir.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
