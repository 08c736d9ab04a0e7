//! `morris probe`, `analyze` and `bestmove`: questions about one
//! position, answered from our tables (`--db`) or Malom's (`--malom`).

use std::io::Write;

use std::process::ExitCode;

use clap::Args;
use morris_db::{Position, Value};
use morris_probe::malom::MalomValue;
use morris_probe::{Database, Encoding, MalomDatabase, Tables};

use crate::args::{PositionArg, TablesArg, TablesDir};

/// Arguments of the subcommands that read a database.
#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    tables: TablesArg,
    #[command(flatten)]
    position: PositionArg,
}

/// How an answer is printed: `Win(25)`, `Draw`, or with Malom's files
/// `Draw (Malom A = 0)`.
trait Shown {
    fn shown(&self) -> String;
}

impl Shown for Value {
    fn shown(&self) -> String {
        format!("{self:?}")
    }
}

impl Shown for MalomValue {
    fn shown(&self) -> String {
        self.to_string()
    }
}

/// What a subcommand asks of the tables.
#[derive(Clone, Copy)]
enum Ask {
    /// `probe`: the value.
    Value,
    /// `analyze`: the value and every move's.
    Moves,
    /// `bestmove`: a best move.
    Best,
}

/// Answers `ask` about `pos` from `db`, whichever files it reads.
fn answer<E: Encoding>(ask: Ask, db: &Tables<E>, pos: &Position, reachable: Option<bool>) -> anyhow::Result<ExitCode>
where
    E::Answer: Shown,
{
    let mut out = crate::ui::output::stdout();
    let board = db.rules().board();
    match ask {
        Ask::Value => writeln!(out, "{}", db.value(pos)?.shown())?,
        Ask::Moves => {
            let value = db.value(pos)?;
            writeln!(out, "position: {}  value: {}", pos.to_text(board), value.shown())?;
            if reachable == Some(false) {
                writeln!(
                    out,
                    "unreachable: this position cannot arise in a game from the start by legal play (`morris reach`)"
                )?;
            }
            let moves = db.analyze(pos)?;
            if let Some(over) = pos.game_over(db.rules()) {
                writeln!(out, "no legal move: {over}")?;
            }
            for (mv, v) in moves {
                writeln!(out, "{:<10} {}", mv.notation(board), v.shown())?;
            }
        }
        Ask::Best => match db.best_move(pos)? {
            Some((mv, v)) => writeln!(out, "{} {}", mv.notation(board), v.shown())?,
            None => match pos.game_over(db.rules()) {
                Some(over) => writeln!(out, "none: the game is over, {over}")?,
                None => writeln!(out, "none")?,
            },
        },
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens the tables the arguments name (ours or Malom's) and answers.
fn run(args: QueryArgs, ask: Ask) -> anyhow::Result<ExitCode> {
    let rules = args.tables.rule_set()?;
    let pos = args.position.parse(&rules)?;
    match args.tables.dir()? {
        TablesDir::Malom(dir) => answer(ask, MalomDatabase::open(dir, rules)?.tables(), &pos, None),
        TablesDir::Ours(dir) => {
            // `analyze` says when the position cannot arise in a game, where
            // `morris reach` has written the bitmaps.
            let reachable = match ask {
                Ask::Moves => morris_probe::reach::reachable(dir, &rules, &pos)?,
                _ => None,
            };
            answer(ask, &Database::open(dir, rules)?, &pos, reachable)
        }
    }
}

/// Runs `morris probe`: prints the value, e.g. `Win(25)`.
pub fn probe(args: QueryArgs) -> anyhow::Result<ExitCode> {
    run(args, Ask::Value)
}

/// Runs `morris analyze`: one line per legal move, best first.
pub fn analyze(args: QueryArgs) -> anyhow::Result<ExitCode> {
    run(args, Ask::Moves)
}

/// Runs `morris bestmove`: prints a best move and its value.
pub fn bestmove(args: QueryArgs) -> anyhow::Result<ExitCode> {
    run(args, Ask::Best)
}
