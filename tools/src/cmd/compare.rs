//! `morris compare`: our tables against Malom's, position by position.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use morris_db::store::sort_sectors;
use morris_db::{Sector, Store};
use morris_probe::malom::{compare_sector, SectorComparison};
use morris_probe::{Database, MalomDatabase};

use crate::args::RulesArg;

/// Compare our tables with Malom's database, position by position.
///
/// Compare our tables with Malom's database, position by position: WDL,
/// and DTM of wins and losses. Exits non-zero on any mismatch.
#[derive(Args)]
pub struct CompareArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// Our database directory.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// Malom's database directory (`std.secval` and `std_*.sec2` for
    /// `nine`, `mora_*` for `morabaraba`, `lask_*` for `lasker`).
    #[arg(long, value_name = "DIR")]
    malom: PathBuf,
    /// Compare only these sectors, comma-separated: `3-3,3-4` (sliding) or
    /// `w-b-wh-bh`; each must be in both directories. Default: every sector
    /// present in both.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = crate::args::SectorParser)]
    sectors: Vec<Sector>,
    /// How many mismatches to print per sector (the first in slot order).
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = crate::args::number::<usize>(1..=1_000_000))]
    show: usize,
    /// No progress bar.
    #[arg(long, short)]
    quiet: bool,
}

/// Sectors in the order `morris stats` lists them: placement last, fewer
/// stones first.
fn sorted(mut sectors: Vec<Sector>) -> Vec<Sector> {
    sort_sectors(&mut sectors);
    sectors
}

fn list(sectors: &[Sector]) -> String {
    sectors.iter().map(Sector::to_string).collect::<Vec<_>>().join(", ")
}

/// Runs `morris compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    run_to(args, &mut crate::ui::output::stdout())
}

fn run_to(args: CompareArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let rules = args.rules.rule_set_in(&args.db, crate::args::DirUse::Reads)?;
    let malom_rules = args.rules.rule_set_in_malom(&args.malom)?;
    let malom_holds_files = !morris_server::source::malom_games_in(&args.malom).is_empty();
    if malom_holds_files && malom_rules.name() != rules.name() {
        anyhow::bail!(
            "the directories hold different rule sets: {} tables of `{}`, {} files of `{}`; compare one rule set",
            args.db.display(),
            rules.name(),
            args.malom.display(),
            malom_rules.name()
        );
    }
    for &s in &args.sectors {
        rules.check_sector(s)?;
    }
    let board = rules.board().clone();
    let ours = Database::open(&args.db, rules.clone())?;
    let malom = MalomDatabase::open(&args.malom, rules.clone())?;
    let our_sectors: BTreeSet<Sector> = Store::new(&args.db)
        .dtm_sectors(&rules)
        .with_context(|| format!("cannot read database directory {}", args.db.display()))?
        .into_iter()
        .collect();
    let malom_sectors: BTreeSet<Sector> = malom.sectors_present().into_iter().collect();
    let both: Vec<Sector> = sorted(our_sectors.intersection(&malom_sectors).copied().collect());
    let todo = if args.sectors.is_empty() {
        both.clone()
    } else {
        let missing: Vec<String> = args
            .sectors
            .iter()
            .filter(|s| !both.contains(s))
            .map(|s| {
                let side = match (our_sectors.contains(s), malom_sectors.contains(s)) {
                    (false, false) => "in neither directory",
                    (false, true) => "not in --db",
                    _ => "not in --malom",
                };
                format!("{s} ({side})")
            })
            .collect();
        if !missing.is_empty() {
            anyhow::bail!("cannot compare sectors {}", missing.join(", "));
        }
        sorted(args.sectors.iter().copied().collect::<BTreeSet<_>>().into_iter().collect())
    };
    writeln!(
        out,
        "rule set {}: our tables in {}, Malom's ({}) in {}; comparing {}",
        rules.name(),
        args.db.display(),
        malom.game().prefix(),
        args.malom.display(),
        crate::ui::plural(todo.len() as u64, "sector", "sectors")
    )?;
    if todo.is_empty() {
        writeln!(out, "no sector is present in both directories: nothing compared")?;
        return Ok(ExitCode::FAILURE);
    }
    let slots: u64 = todo.iter().map(|s| rules.sector_index(*s).map(|i| i.len())).sum::<Result<u64, _>>()?;
    let bar = if args.quiet { ProgressBar::hidden() } else { ProgressBar::new(slots) };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:30}] {percent}% {human_pos}/{human_len} slots, {per_sec}, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let (mut compared, mut mismatches, mut layout) = (0u64, 0u64, 0u64);
    for &sector in &todo {
        bar.set_prefix(format!("compare {sector}"));
        let c: SectorComparison = compare_sector(&ours, &malom, sector, args.show, &|n| bar.inc(n))?;
        bar.suspend(|| -> std::io::Result<()> {
            writeln!(
                out,
                "sector {sector}: {} compared, {}",
                crate::ui::plural(c.compared, "position", "positions"),
                crate::ui::plural(c.mismatches, "mismatch", "mismatches")
            )?;
            for m in &c.examples {
                let theirs = match &m.malom {
                    Ok(v) => format!("{:?}", v.value),
                    Err(e) => format!("unreadable ({e})"),
                };
                writeln!(
                    out,
                    "  {} (slot {}): ours {:?}, Malom {theirs}",
                    m.position.to_text(&board),
                    m.slot,
                    m.ours
                )?;
            }
            if c.mismatches > c.examples.len() as u64 {
                writeln!(out, "  ... and {} more", c.mismatches - c.examples.len() as u64)?;
            }
            if c.layout_differences > 0 {
                writeln!(
                    out,
                    "  note: {} slots are canonical in one layout and pointers in the other (values were compared through Malom's pointers)",
                    c.layout_differences
                )?;
            }
            Ok(())
        })?;
        compared += c.compared;
        mismatches += c.mismatches;
        layout += c.layout_differences;
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "compared {} in {} in {seconds:.2} s ({:.1} M positions/s): {}{}",
        crate::ui::plural(compared, "position", "positions"),
        crate::ui::plural(todo.len() as u64, "sector", "sectors"),
        compared as f64 / seconds.max(1e-9) / 1e6,
        crate::ui::plural(mismatches, "mismatch", "mismatches"),
        if layout > 0 { format!(", {layout} layout differences") } else { String::new() }
    )?;
    if args.sectors.is_empty() {
        let only = |a: &BTreeSet<Sector>, b: &BTreeSet<Sector>| sorted(a.difference(b).copied().collect());
        let (only_ours, only_malom) = (only(&our_sectors, &malom_sectors), only(&malom_sectors, &our_sectors));
        if !only_ours.is_empty() {
            writeln!(out, "not in Malom's directory, not compared: {}", list(&only_ours))?;
        }
        if !only_malom.is_empty() {
            writeln!(out, "not in ours, not compared: {}", list(&only_malom))?;
        }
    }
    Ok(if mismatches == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use clap::Parser;
    use morris_db::RuleSet;
    use morris_probe::malom::MalomEntry;
    use morris_solver::{solve_sliding, SolveOptions};

    use super::*;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: CompareArgs,
    }

    /// Malom's files, from `MORRIS_MALOM_DIR` (relative to the workspace
    /// root); the test that needs them is ignored unless asked for, and
    /// then fails without them.
    fn oracle() -> PathBuf {
        let var = std::env::var_os("MORRIS_MALOM_DIR").expect("MORRIS_MALOM_DIR is not set (../shared/oracle/malom)");
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(var);
        assert!(dir.join("std.secval").is_file(), "MORRIS_MALOM_DIR: no std.secval in {}", dir.display());
        dir
    }

    fn run_with(words: &[&str]) -> (ExitCode, String) {
        let cli = Cli::try_parse_from(std::iter::once("compare").chain(words.iter().copied())).unwrap();
        let mut out = Vec::new();
        let code = run_to(cli.args, &mut out).unwrap();
        (code, String::from_utf8(out).unwrap())
    }

    #[test]
    #[ignore = "needs Malom's files: set MORRIS_MALOM_DIR"]
    fn agrees_on_3_3_and_reports_a_planted_mismatch() {
        let oracle = oracle();
        let ours = tempfile::tempdir().unwrap();
        let rules = RuleSet::preset("nine").unwrap();
        solve_sliding(&rules, ours.path(), &SolveOptions { max_stones: 6, progress: false }).unwrap();
        let db = ours.path().to_str().unwrap();

        let (code, text) = run_with(&["--db", db, "--malom", oracle.to_str().unwrap(), "--rules", "nine", "-q"]);
        assert_eq!(code, ExitCode::SUCCESS, "{text}");
        assert!(text.contains("sector 3-3: 169626 positions compared, 0 mismatches"), "{text}");
        assert!(text.contains("compared 169626 positions in 1 sector "), "{text}");
        assert!(text.contains("not in ours, not compared: 3-4, 4-3"), "{text}");

        // A copy of Malom's 3-3 with one win made two plies longer.
        let copy = tempfile::tempdir().unwrap();
        fs::copy(oracle.join("std.secval"), copy.path().join("std.secval")).unwrap();
        let mut bytes = fs::read(oracle.join("std_3_3_0_0.sec2")).unwrap();
        let malom = MalomDatabase::open(&oracle, rules.clone()).unwrap();
        let file = malom.sector(Sector::sliding(3, 3)).unwrap();
        let slot = (0..file.slots())
            .find(|&s| matches!(file.entry(s), Some(MalomEntry::Value { field1: 299, .. })))
            .unwrap() as usize;
        let o = 64 + 3 * slot;
        let raw = u32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], 0]) + (2 << 12);
        bytes[o..o + 3].copy_from_slice(&raw.to_le_bytes()[..3]);
        fs::write(copy.path().join("std_3_3_0_0.sec2"), bytes).unwrap();
        let (code, text) = run_with(&[
            "--db",
            db,
            "--malom",
            copy.path().to_str().unwrap(),
            "--rules",
            "nine",
            "--sectors",
            "3-3",
            "-q",
        ]);
        assert_eq!(code, ExitCode::FAILURE, "{text}");
        assert!(text.contains("sector 3-3: 169626 positions compared, 1 mismatch\n"), "{text}");
        let pos = file.position_at(slot as u64).unwrap();
        let shown = morris_db::Setup::from_relative(pos.0, pos.1, morris_db::Color::White, 0, 0).to_text(rules.board());
        assert!(text.contains(&format!("{shown} (slot {slot}): ours Win(")), "{text}");

        // A sector that is not in both is an error when asked for.
        let cli = Cli::try_parse_from([
            "compare",
            "--db",
            db,
            "--malom",
            oracle.to_str().unwrap(),
            "--rules",
            "nine",
            "--sectors",
            "3-4",
        ]);
        let err = run_to(cli.unwrap().args, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("3-4 (not in --db)"), "{err}");
        assert!(Cli::try_parse_from(["compare", "--db", db, "--malom", db, "--sectors", "3x"]).is_err());
    }
}
