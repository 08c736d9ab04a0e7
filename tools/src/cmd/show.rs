//! `morris show`: a position drawn as an ASCII board, in text and as a
//! Sanmill FEN; needs no database.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use crate::args::{PositionArg, RulesArg};

/// Draw a position as an ASCII board.
///
/// Draw a position as an ASCII board.
#[derive(Args)]
pub struct ShowArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    position: PositionArg,
}

/// Runs `morris show`: draws the board, then gives the position in text
/// and, on the 24-point boards, as a Sanmill FEN.
pub fn run(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set()?;
    let pos = args.position.parse(&rules)?;
    write!(out, "{}", pos.diagram(rules.board()))?;
    writeln!(out, "position: {}", pos.to_text(rules.board()))?;
    if let Ok(fen) = pos.to_fen(&rules) {
        writeln!(out, "FEN: {fen}")?;
    }
    Ok(ExitCode::SUCCESS)
}
