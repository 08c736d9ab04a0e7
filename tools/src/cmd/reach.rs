//! `morris reach`: which positions of a solved database can arise in a game
//! (`morris_solver::reach`): writes a bitmap per table beside the tables
//! ([`morris_db::reach`]) and prints, per table and in total, the reachable
//! positions and their values, as canonical positions and on the board.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, ValueEnum};
use morris_solver::reach::{reach_all, reach_counts, SectorReach};

use crate::args::{DirUse, RulesArg};

/// Output formats of `morris reach`.
#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Aligned columns for reading, and a summary line.
    Table,
    /// `sector,positions,reachable,wins,draws,losses,board_reachable,board_wins,board_draws,board_losses,rules`,
    /// one row per table and a last row `all`.
    Csv,
}

/// Mark the positions that can arise in a game, and count them.
///
/// Mark, for every table of a solved database, the positions that can
/// arise in a game from the start by legal play (a bitmap per table,
/// `<rule set>_<w>_<b>_<wh>_<bh>.reach`, beside the tables), and count
/// them and their values (wins, draws, losses for the side to move) per
/// table and in total, as canonical positions and as positions on the board
/// (each canonical position once per distinct symmetric image). Needs the
/// tables of the whole game (`morris solve --phase all`). A rerun keeps the
/// bitmaps already written. With `--counts-only`, needs no table and writes
/// nothing: the reachable positions are counted, without their values.
#[derive(Args)]
pub struct ReachArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// Database directory (one file per sector): the solved tables, and
    /// where the bitmaps are written.
    #[arg(long, value_name = "DIR", required_unless_present = "counts_only")]
    db: Option<PathBuf>,
    /// Count the reachable positions of the rule set without any table:
    /// no values (their columns are empty, `-` in the table), no table
    /// sizes, no bitmap written, nothing kept for a rerun. Holds a bit per
    /// slot of the whole game in memory (3.3 GB for `nine`) and prints
    /// each table's count to standard error as it is done.
    #[arg(long, conflicts_with = "db")]
    counts_only: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// The columns after the sector, in both formats.
const COLUMNS: [&str; 9] = [
    "positions",
    "reachable",
    "wins",
    "draws",
    "losses",
    "board_reachable",
    "board_wins",
    "board_draws",
    "board_losses",
];

/// The counts of one table (or of all), in [`COLUMNS`] order.
fn counts(r: &SectorReach) -> [u64; 9] {
    let (h, b) = (&r.header, &r.board);
    [r.positions, h.canonical_positions, h.wins, h.draws, h.losses, b.positions, b.wins, b.draws, b.losses]
}

/// Runs `morris reach`.
pub fn run(args: ReachArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let started = Instant::now();
    let (rules, sectors) = match &args.db {
        Some(dir) => {
            let rules = args.rules.rule_set_in(dir, DirUse::Reads)?;
            let sectors = reach_all(&rules, dir, |_| {})?;
            (rules, sectors)
        }
        None => {
            let rules = args.rules.rule_set()?;
            let sectors = reach_counts(&rules, |r| {
                crate::ui::output::errln!(
                    "reach: {} {} reachable ({} on the board), {:.0} s",
                    r.sector,
                    r.header.canonical_positions,
                    r.board.positions,
                    started.elapsed().as_secs_f64()
                )
            })?;
            (rules, sectors)
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let values = !args.counts_only;
    let mut total = [0u64; 9];
    for r in &sectors {
        for (t, c) in total.iter_mut().zip(counts(r)) {
            *t += c;
        }
    }
    // Without the tables, the table sizes and the values are not known.
    let known = |column: usize| values || matches!(COLUMNS[column], "reachable" | "board_reachable");
    let cell = |column: usize, n: u64, unknown: &str| if known(column) { n.to_string() } else { unknown.to_string() };
    let rows = sectors.iter().map(|r| (r.sector.to_string(), counts(r))).chain([("all".to_string(), total)]);
    match args.format {
        Format::Csv => {
            writeln!(out, "sector,{},rules", COLUMNS.join(","))?;
            for (name, c) in rows {
                let c: Vec<String> = c.iter().enumerate().map(|(i, &n)| cell(i, n, "")).collect();
                writeln!(out, "{name},{},{}", c.join(","), rules.name())?;
            }
        }
        Format::Table => {
            write!(out, "{:<11}", "sector")?;
            for c in COLUMNS {
                write!(out, " {c:>15}")?;
            }
            writeln!(out)?;
            for (name, c) in rows {
                write!(out, "{name:<11}")?;
                for (i, &n) in c.iter().enumerate() {
                    write!(out, " {:>15}", cell(i, n, "-"))?;
                }
                writeln!(out)?;
            }
            if values {
                let kept = sectors.iter().filter(|r| r.kept).count();
                writeln!(
                    out,
                    "rule set {}: {} of {} canonical positions reachable ({:.2}%: {} wins, {} draws, {} losses), {} positions on the board; {} bitmaps{} in {:.2} s",
                    rules.name(),
                    total[1],
                    total[0],
                    100.0 * total[1] as f64 / total[0].max(1) as f64,
                    total[2],
                    total[3],
                    total[4],
                    total[5],
                    sectors.len(),
                    if kept > 0 { format!(" ({kept} already on disk, kept)") } else { String::new() },
                    seconds
                )?;
            } else {
                writeln!(
                    out,
                    "rule set {}: {} canonical positions reachable in {} tables, {} positions on the board (counted without the tables: no values, nothing written) in {:.2} s",
                    rules.name(),
                    total[1],
                    sectors.len(),
                    total[5],
                    seconds
                )?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
