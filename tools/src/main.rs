//! `morris`: solve morris endgame databases and ask them for perfect play.
//!
//! A thin command line over `morris-solver` and `morris-probe`; every
//! subcommand lives in its own module.

mod bench;
mod compare;
mod query;
mod solve;
mod stats;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use morris_db::{Position, RuleSet};

/// Perfect play for Nine Men's Morris and its relatives, from databases
/// solved by retrograde analysis.
///
/// Positions are written `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`,
/// e.g. `W:a4,a1,d3 B:a7,d1,c4 w` (quotes optional). Values are for the side
/// to move: Win(n) / Loss(n) with n plies to the end of the game under
/// perfect play, or Draw.
#[derive(Parser)]
#[command(name = "morris", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve the sliding-phase sectors of a rule set into a database directory.
    ///
    /// Sectors are solved pair by pair, fewest stones first; tables already
    /// in the directory are kept, so an interrupted run continues where it
    /// stopped.
    Solve(solve::SolveArgs),
    /// One row per table: positions, wins, losses, draws, longest win and loss.
    ///
    /// Checks every table's header and checksum; exits non-zero if any table
    /// is damaged.
    Stats(stats::StatsArgs),
    /// The value of a position for the side to move.
    Probe(query::QueryArgs),
    /// Every legal move with its value, best first.
    Analyze(query::QueryArgs),
    /// A best move: the shortest win, else a draw, else the longest loss.
    Bestmove(query::QueryArgs),
    /// Draw a position as an ASCII board.
    Show(query::ShowArgs),
    /// Time a fixed solving suite (median of several runs, with a
    /// one-thread baseline measured in the same run).
    Bench(bench::BenchArgs),
    /// Compare our tables with Malom's database, position by position: WDL,
    /// and DTM of wins and losses. Exits non-zero on any mismatch.
    Compare(compare::CompareArgs),
}

/// The rule set option shared by every subcommand.
#[derive(Args, Clone)]
pub struct RulesArg {
    /// Rule set: nine, nine-noflying, nine-diagonal, twelve, morabaraba,
    /// lasker, six, six-flying, three, three-nodiagonal.
    #[arg(long, default_value = "nine", value_name = "PRESET")]
    pub rules: String,
}

impl RulesArg {
    /// The rule set named by `--rules`.
    pub fn rule_set(&self) -> anyhow::Result<RuleSet> {
        Ok(RuleSet::preset(&self.rules)?)
    }
}

/// The database directory option.
#[derive(Args, Clone)]
pub struct DbArg {
    /// Database directory (one file per sector).
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
}

/// A position given as one or several command-line words.
#[derive(Args, Clone)]
pub struct PositionArg {
    /// The position, e.g. `W:a4,a1,d3 B:a7,d1,c4 w` (stones in hand optional: `... w 5 6`).
    #[arg(value_name = "POSITION", required = true, num_args = 1.., allow_hyphen_values = true)]
    pub position: Vec<String>,
}

impl PositionArg {
    /// Parses and validates the position under `rules`.
    pub fn parse(&self, rules: &RuleSet) -> anyhow::Result<Position> {
        let pos = Position::parse(&self.position.join(" "), rules.board())?;
        pos.validate(rules)?;
        Ok(pos)
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(a) => solve::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Probe(a) => query::probe(a),
        Command::Analyze(a) => query::analyze(a),
        Command::Bestmove(a) => query::bestmove(a),
        Command::Show(a) => query::show(a),
        Command::Bench(a) => bench::run(a),
        Command::Compare(a) => compare::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
