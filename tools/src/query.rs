//! `morris probe`, `analyze`, `bestmove` and `show`: questions about one
//! position.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use morris_probe::Database;

use crate::{DbArg, PositionArg, RulesArg};

/// Arguments of the subcommands that read a database.
#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    #[command(flatten)]
    position: PositionArg,
}

/// Arguments of `morris show`.
#[derive(Args)]
pub struct ShowArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    position: PositionArg,
}

fn open(args: &QueryArgs) -> anyhow::Result<(Database, morris_db::Position)> {
    let rules = args.rules.rule_set()?;
    let pos = args.position.parse(&rules)?;
    Ok((Database::open(&args.db.db, rules)?, pos))
}

/// Runs `morris probe`: prints the value, e.g. `Win(25)`.
pub fn probe(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let (db, pos) = open(&args)?;
    let value = db.value(&pos)?;
    writeln!(out, "{value:?}")?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `morris analyze`: one line per legal move, best first.
pub fn analyze(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let (db, pos) = open(&args)?;
    let value = db.value(&pos)?;
    writeln!(
        out,
        "position: {}  value: {value:?}",
        pos.to_text(db.rules().board())
    )?;
    let moves = db.analyze(&pos)?;
    if moves.is_empty() {
        writeln!(out, "no legal move: {} has lost", pos.side_to_move)?;
    }
    for (mv, v) in moves {
        writeln!(out, "{:<10} {v:?}", mv.notation(db.rules().board()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `morris bestmove`: prints a best move and its value.
pub fn bestmove(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let (db, pos) = open(&args)?;
    match db.best_move(&pos)? {
        Some((mv, v)) => writeln!(out, "{} {v:?}", mv.notation(db.rules().board()))?,
        None => {
            writeln!(out, "none: the game is over, {} has lost", pos.side_to_move)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `morris show`: draws the board.
pub fn show(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let rules = args.rules.rule_set()?;
    let pos = args.position.parse(&rules)?;
    write!(out, "{}", pos.diagram(rules.board()))?;
    Ok(ExitCode::SUCCESS)
}
