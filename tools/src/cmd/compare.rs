//! `morris compare`: our tables against Malom's, or against another
//! database of ours, position by position.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use morris_db::store::sort_sectors;
use morris_db::{FileKind, RuleSet, Sector, Store};
use morris_probe::diff::{diff_sector, Basis};
use morris_probe::malom::{compare_sector, SectorComparison};
use morris_probe::{Database, MalomDatabase, ProbeOptions};

use crate::args::RulesArg;

/// Compare our tables with Malom's database, or with another of ours, position by position.
///
/// Compare our tables with Malom's database (`--malom`: WDL, and DTM of
/// wins and losses), or with another database of ours of the same rule
/// set (`--with`, an earlier release's tables: every entry, `.mtb` or
/// `.mtz`; a sector with a single-sided stub on either side by values
/// checksum), position by position. Exits non-zero on any mismatch.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("against").required(true).args(["malom", "with"])))]
pub struct CompareArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// Our database directory.
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// Malom's database directory (`std.secval` and `std_*.sec2` for
    /// `nine`, `mora_*` for `morabaraba`, `lask_*` for `lasker`).
    #[arg(long, value_name = "DIR")]
    malom: Option<PathBuf>,
    /// Another database directory of ours, of the same rule set (an earlier
    /// release's tables, say).
    #[arg(long, value_name = "DIR")]
    with: Option<PathBuf>,
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

/// The sectors to compare: those asked for, each of which must be in both
/// sets (`other` names the second directory's flag in the error), or else
/// every sector in both.
fn chosen(
    asked: &[Sector],
    ours: &BTreeSet<Sector>,
    theirs: &BTreeSet<Sector>,
    other: &str,
) -> anyhow::Result<Vec<Sector>> {
    if asked.is_empty() {
        return Ok(sorted(ours.intersection(theirs).copied().collect()));
    }
    let missing: Vec<String> = asked
        .iter()
        .filter(|&s| !(ours.contains(s) && theirs.contains(s)))
        .map(|s| {
            let side = match (ours.contains(s), theirs.contains(s)) {
                (false, false) => "in neither directory".to_string(),
                (false, true) => "not in --db".to_string(),
                _ => format!("not in {other}"),
            };
            format!("{s} ({side})")
        })
        .collect();
    if !missing.is_empty() {
        anyhow::bail!("cannot compare sectors {}", missing.join(", "));
    }
    Ok(sorted(asked.iter().copied().collect::<BTreeSet<_>>().into_iter().collect()))
}

/// A progress bar over `slots` slots (hidden when `quiet`).
fn progress_bar(slots: u64, quiet: bool) -> ProgressBar {
    let bar = if quiet { ProgressBar::hidden() } else { ProgressBar::new(slots) };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:30}] {percent}% {human_pos}/{human_len} slots, {per_sec}, ETA {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// The slots of `sectors` of `rules`.
fn slots_of(rules: &RuleSet, sectors: &[Sector]) -> anyhow::Result<u64> {
    Ok(sectors.iter().map(|s| rules.sector_index(*s).map(|i| i.len())).sum::<Result<u64, _>>()?)
}

/// What a comparison found, summed over its sectors.
struct Totals {
    /// When it began.
    start: Instant,
    /// Positions compared.
    compared: u64,
    /// Sectors compared.
    sectors: usize,
    /// Positions whose values differ.
    mismatches: u64,
    /// Said after the mismatches on the closing line (`, 3 layout
    /// differences`), or empty.
    extra: String,
}

impl Totals {
    /// Writes the closing lines: the totals, and (when every sector in both
    /// was compared, `all`) the sectors of one directory only, `names`
    /// naming the first directory and the second. The exit code: success
    /// without a mismatch.
    fn finish(
        self,
        out: &mut dyn Write,
        all: bool,
        (ours, theirs): (&BTreeSet<Sector>, &BTreeSet<Sector>),
        names: (&str, &str),
    ) -> std::io::Result<ExitCode> {
        let Totals { start, compared, sectors, mismatches, extra } = self;
        let seconds = start.elapsed().as_secs_f64();
        writeln!(
            out,
            "compared {} in {} in {seconds:.2} s ({:.1} M positions/s): {}{extra}",
            crate::ui::plural(compared, "position", "positions"),
            crate::ui::plural(sectors as u64, "sector", "sectors"),
            compared as f64 / seconds.max(1e-9) / 1e6,
            crate::ui::plural(mismatches, "mismatch", "mismatches"),
        )?;
        if all {
            let only = |a: &BTreeSet<Sector>, b: &BTreeSet<Sector>| sorted(a.difference(b).copied().collect());
            let (only_ours, only_theirs) = (only(ours, theirs), only(theirs, ours));
            if !only_ours.is_empty() {
                writeln!(out, "not in {}, not compared: {}", names.1, list(&only_ours))?;
            }
            if !only_theirs.is_empty() {
                writeln!(out, "not in {}, not compared: {}", names.0, list(&only_theirs))?;
            }
        }
        Ok(if mismatches == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
    }
}

/// Runs `morris compare`.
pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    run_to(args, &mut crate::ui::output::stdout())
}

fn run_to(args: CompareArgs, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let rules = args.rules.rule_set_in(&args.db, crate::args::DirUse::Reads)?;
    match (&args.malom, &args.with) {
        (Some(malom), _) => against_malom(&args, rules, malom, out),
        (None, Some(with)) => against_ours(&args, rules, with, out),
        (None, None) => anyhow::bail!("name what to compare with: --malom DIR or --with DIR"),
    }
}

/// `morris compare --malom DIR`.
fn against_malom(
    args: &CompareArgs,
    rules: RuleSet,
    malom_dir: &Path,
    out: &mut dyn Write,
) -> anyhow::Result<ExitCode> {
    let malom_rules = args.rules.rule_set_in_malom(malom_dir)?;
    let malom_holds_files = !morris_server::source::malom_games_in(malom_dir).is_empty();
    if malom_holds_files && malom_rules.name() != rules.name() {
        anyhow::bail!(
            "the directories hold different rule sets: {} tables of `{}`, {} files of `{}`; compare one rule set",
            args.db.display(),
            rules.name(),
            malom_dir.display(),
            malom_rules.name()
        );
    }
    for &s in &args.sectors {
        rules.check_sector(s)?;
    }
    let board = rules.board().clone();
    let ours = Database::open(&args.db, rules.clone())?;
    let malom = MalomDatabase::open(malom_dir, rules.clone())?;
    let our_sectors: BTreeSet<Sector> = Store::new(&args.db)
        .dtm_sectors(&rules)
        .with_context(|| format!("cannot read database directory {}", args.db.display()))?
        .into_iter()
        .collect();
    let malom_sectors: BTreeSet<Sector> = malom.sectors_present().into_iter().collect();
    let todo = chosen(&args.sectors, &our_sectors, &malom_sectors, "--malom")?;
    writeln!(
        out,
        "rule set {}: our tables in {}, Malom's ({}) in {}; comparing {}",
        rules.name(),
        args.db.display(),
        malom.game().prefix(),
        malom_dir.display(),
        crate::ui::plural(todo.len() as u64, "sector", "sectors")
    )?;
    if todo.is_empty() {
        writeln!(out, "no sector is present in both directories: nothing compared")?;
        return Ok(ExitCode::FAILURE);
    }
    let bar = progress_bar(slots_of(&rules, &todo)?, args.quiet);
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
    let extra = if layout > 0 { format!(", {layout} layout differences") } else { String::new() };
    let totals = Totals { start, compared, sectors: todo.len(), mismatches, extra };
    let names = ("ours", "Malom's directory");
    Ok(totals.finish(out, args.sectors.is_empty(), (&our_sectors, &malom_sectors), names)?)
}

/// `morris compare --with DIR`: every entry of two databases of ours
/// ([`diff_sector`]).
fn against_ours(args: &CompareArgs, rules: RuleSet, with: &Path, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    for &s in &args.sectors {
        rules.check_sector(s)?;
    }
    // Both sides' payloads are checked by `diff_sector` itself.
    let options = ProbeOptions { verify_checksums: false };
    let ours = Database::open_with(&args.db, rules.clone(), options.clone())?;
    let theirs = Database::open_with(with, rules.clone(), options)?;
    let kinds = [FileKind::Dtm, FileKind::Compressed, FileKind::Derived];
    let sectors_in = |dir: &Path| -> anyhow::Result<BTreeSet<Sector>> {
        let found = Store::new(dir)
            .sectors(&rules, &kinds)
            .with_context(|| format!("cannot read database directory {}", dir.display()))?;
        Ok(found.into_iter().collect())
    };
    let (our_sectors, their_sectors) = (sectors_in(&args.db)?, sectors_in(with)?);
    if their_sectors.is_empty() {
        let others = Store::new(with).rule_set_names();
        let holds =
            if others.is_empty() { "no tables".to_string() } else { format!("tables of {}", others.join(", ")) };
        anyhow::bail!("{} holds no tables of `{}` ({holds}); compare one rule set", with.display(), rules.name());
    }
    let todo = chosen(&args.sectors, &our_sectors, &their_sectors, "--with")?;
    writeln!(
        out,
        "rule set {}: tables in {} against those in {}; comparing {}",
        rules.name(),
        args.db.display(),
        with.display(),
        crate::ui::plural(todo.len() as u64, "sector", "sectors")
    )?;
    if todo.is_empty() {
        writeln!(out, "no sector is present in both directories: nothing compared")?;
        return Ok(ExitCode::FAILURE);
    }
    let board = rules.board().clone();
    let bar = progress_bar(slots_of(&rules, &todo)?, args.quiet);
    let start = Instant::now();
    let (mut compared, mut mismatches, mut by_checksum) = (0u64, 0u64, 0usize);
    for &sector in &todo {
        bar.set_prefix(format!("compare {sector}"));
        let d = diff_sector(&ours, &theirs, sector, args.show, &|n| bar.inc(n))?;
        bar.suspend(|| -> std::io::Result<()> {
            match d.basis {
                Basis::Positions => writeln!(
                    out,
                    "sector {sector}: {} compared, {}",
                    crate::ui::plural(d.compared, "position", "positions"),
                    crate::ui::plural(d.differing, "mismatch", "mismatches")
                )?,
                Basis::Checksums { ours, theirs } if ours == theirs => writeln!(
                    out,
                    "sector {sector}: {} compared by values checksum (a single-sided stub), equal ({ours:016x})",
                    crate::ui::plural(d.compared, "position", "positions"),
                )?,
                Basis::Checksums { ours, theirs } => writeln!(
                    out,
                    "sector {sector}: values checksums differ (a single-sided stub): {ours:016x} against {theirs:016x}"
                )?,
            }
            let shown = |v: Option<morris_db::Value>| v.map_or("padding".to_string(), |v| format!("{v:?}"));
            for m in &d.examples {
                writeln!(
                    out,
                    "  {} (slot {}): --db {}, --with {}",
                    m.position.to_text(&board),
                    m.slot,
                    shown(m.ours),
                    shown(m.theirs)
                )?;
            }
            if d.differing > d.examples.len() as u64 {
                writeln!(out, "  ... and {} more", d.differing - d.examples.len() as u64)?;
            }
            Ok(())
        })?;
        compared += d.compared;
        by_checksum += usize::from(matches!(d.basis, Basis::Checksums { .. }));
        mismatches += match d.basis {
            Basis::Positions => d.differing,
            // A stub tells no position: a differing checksum counts its
            // sector's positions.
            Basis::Checksums { .. } if !d.agrees() => d.compared,
            Basis::Checksums { .. } => 0,
        };
    }
    bar.finish_and_clear();
    let extra = if by_checksum > 0 {
        format!(" ({} compared by values checksum)", crate::ui::plural(by_checksum as u64, "sector", "sectors"))
    } else {
        String::new()
    };
    let (db, other) = (args.db.display().to_string(), with.display().to_string());
    let totals = Totals { start, compared, sectors: todo.len(), mismatches, extra };
    Ok(totals.finish(out, args.sectors.is_empty(), (&our_sectors, &their_sectors), (&db, &other))?)
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

    /// Copies every file of directory `from` into a new temporary one.
    fn copy_of(from: &Path) -> tempfile::TempDir {
        let to = tempfile::tempdir().unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), to.path().join(e.file_name())).unwrap();
        }
        to
    }

    /// `--with`: two copies of `six`'s sliding tables up to 9 stones agree,
    /// one in `.mtb` form and one in `.mtz` blocks of 16384 slots; a win
    /// made two plies longer in the last chunk of `4-5` (slots beyond the
    /// first 65536) is the one mismatch named, with both values; a sector
    /// replaced by its stub is compared by values checksum, equal against
    /// its own table and unequal against the changed one.
    #[test]
    fn another_database_of_ours_is_compared_entry_by_entry() {
        use morris_db::compressed::{compress_sector_with, CompressOptions};
        use morris_db::table::{table_path, write_table};
        use morris_db::{Table, TableHeader, Value};

        let rules = RuleSet::preset("six").unwrap();
        let a = tempfile::tempdir().unwrap();
        solve_sliding(&rules, a.path(), &SolveOptions { max_stones: 9, progress: false }).unwrap();
        let sector = Sector::sliding(4, 5);
        let len = rules.sector_index(sector).unwrap().len();
        assert!(len > 1 << 16, "4-5 spans several chunks: {len} slots");
        let table = Table::open(a.path(), &rules, sector, len).unwrap();
        let positions = table.header().canonical_positions;
        let db = a.path().to_str().unwrap();

        let b = copy_of(a.path());
        let sectors = Store::new(b.path()).dtm_sectors(&rules).unwrap();
        for &s in &sectors {
            let options = CompressOptions { block_slots: 16384, ..CompressOptions::default() };
            compress_sector_with(b.path(), &rules, s, options, true).unwrap();
        }
        let (code, text) = run_with(&["--db", db, "--with", b.path().to_str().unwrap(), "-q"]);
        assert_eq!(code, ExitCode::SUCCESS, "{text}");
        assert!(text.contains(&format!("sector 4-5: {positions} positions compared, 0 mismatches\n")), "{text}");
        assert!(text.contains(&format!("in {} sectors", sectors.len())), "{text}");

        // The last win of 4-5, two plies longer.
        let c = copy_of(a.path());
        let mut entries = table.entries().unwrap();
        let slot = (0..len).rev().find(|&s| matches!(table.value(s), Some(Value::Win(_)))).unwrap();
        assert!(slot >= 1 << 16, "slot {slot} is in the first chunk");
        let before = Value::from_entry(entries[slot as usize]).unwrap();
        entries[slot as usize] += 2;
        let after = Value::from_entry(entries[slot as usize]).unwrap();
        let path = table_path(c.path(), &rules, sector);
        write_table(&path, &TableHeader::for_entries(&rules, sector, &entries), &entries).unwrap();
        let (code, text) = run_with(&["--db", db, "--with", c.path().to_str().unwrap(), "-q"]);
        assert_eq!(code, ExitCode::FAILURE, "{text}");
        assert!(text.contains(&format!("sector 4-5: {positions} positions compared, 1 mismatch\n")), "{text}");
        assert!(text.contains(&format!("(slot {slot}): --db {before:?}, --with {after:?}\n")), "{text}");
        assert!(text.contains("sector 4-4: "), "{text}");
        assert_eq!(text.matches(" 0 mismatches\n").count(), sectors.len() - 1, "{text}");

        // 4-5 single-sided: equal to its own table by checksum, not to the
        // changed one.
        let d = copy_of(a.path());
        morris_db::derived::write_stub(d.path(), &rules, &table).unwrap();
        fs::remove_file(table_path(d.path(), &rules, sector)).unwrap();
        let (code, text) = run_with(&["--db", db, "--with", d.path().to_str().unwrap(), "-q", "--sectors", "4-5"]);
        assert_eq!(code, ExitCode::SUCCESS, "{text}");
        assert!(text.contains("sector 4-5: ") && text.contains("by values checksum"), "{text}");
        let changed = c.path().to_str().unwrap();
        let (code, text) = run_with(&["--db", changed, "--with", d.path().to_str().unwrap(), "-q", "--sectors", "4-5"]);
        assert_eq!(code, ExitCode::FAILURE, "{text}");
        assert!(text.contains("sector 4-5: values checksums differ"), "{text}");

        // Another rule set's tables, or a sector in one directory only, are
        // errors; `--with` and `--malom` exclude each other.
        let nine = tempfile::tempdir().unwrap();
        solve_sliding(&RuleSet::preset("nine").unwrap(), nine.path(), &SolveOptions { max_stones: 6, progress: false })
            .unwrap();
        let cli =
            Cli::try_parse_from(["compare", "--db", db, "--with", nine.path().to_str().unwrap(), "--rules", "six"]);
        let err = run_to(cli.unwrap().args, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("holds no tables of `six` (tables of nine)"), "{err}");
        let e = tempfile::tempdir().unwrap();
        fs::copy(
            table_path(a.path(), &rules, Sector::sliding(3, 3)),
            table_path(e.path(), &rules, Sector::sliding(3, 3)),
        )
        .unwrap();
        let cli =
            Cli::try_parse_from(["compare", "--db", db, "--with", e.path().to_str().unwrap(), "--sectors", "4-5"]);
        let err = run_to(cli.unwrap().args, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("4-5 (not in --with)"), "{err}");
        assert!(Cli::try_parse_from(["compare", "--db", db, "--with", db, "--malom", db]).is_err());
        assert!(Cli::try_parse_from(["compare", "--db", db]).is_err());
    }
}
