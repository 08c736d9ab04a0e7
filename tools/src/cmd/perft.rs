//! `morris perft`: the number of distinct move sequences of a given length
//! from a position, a check of the move generator against independent
//! counts.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use rayon::prelude::*;

use crate::args::{RulesArg, StartArg};

/// The deepest perft asked for: far beyond what finishes (the count grows
/// about tenfold per ply), and shallow enough for the recursion's stack.
const MAX_DEPTH: u64 = 64;

/// Count the move sequences of a given length from a position.
///
/// Count the distinct move sequences of a given length from a position
/// (default: the start), optionally per first move.
#[derive(Args)]
pub struct PerftArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// Length of the move sequences, in plies (a move with its removals is
    /// one ply).
    #[arg(long, short, value_name = "D", value_parser = crate::args::number::<u32>(0..=MAX_DEPTH))]
    depth: u32,
    /// One line per legal first move with the count below it.
    #[arg(long)]
    divide: bool,
    #[command(flatten)]
    position: StartArg,
}

/// Runs `morris perft`: prints the count (with `--divide`, `<move> <count>`
/// per first move, then `total <count>`).
pub fn run(args: PerftArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set()?;
    let pos = args.position.parse(&rules)?;
    if args.depth == 0 {
        writeln!(out, "{}", if args.divide { "total 1" } else { "1" })?;
        return Ok(ExitCode::SUCCESS);
    }
    let moves = pos.legal_moves(&rules);
    let counts: Vec<u64> = moves.par_iter().map(|&mv| pos.play_unchecked(mv).perft(&rules, args.depth - 1)).collect();
    let total: u64 = counts.iter().sum();
    if args.divide {
        let board = rules.board();
        let mut rows: Vec<(String, u64)> = moves.iter().zip(&counts).map(|(m, &n)| (m.notation(board), n)).collect();
        rows.sort();
        for (m, n) in rows {
            writeln!(out, "{m} {n}")?;
        }
        writeln!(out, "total {total}")?;
    } else {
        writeln!(out, "{total}")?;
    }
    Ok(ExitCode::SUCCESS)
}
