//! `morris probe`, `analyze`, `bestmove` and `show`: questions about one
//! position, answered from our tables (`--db`) or Malom's (`--malom`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use morris_db::{Move, Position, RuleSet, Value};
use morris_probe::malom::MalomValue;
use morris_probe::{Database, MalomDatabase, ProbeError};

use crate::{PositionArg, RulesArg};

/// Arguments of the subcommands that read a database.
#[derive(Args)]
pub struct QueryArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// Database directory (one file per sector).
    #[arg(long, value_name = "DIR", required_unless_present = "malom")]
    db: Option<PathBuf>,
    /// A directory of Malom's database files, used instead of `--db`:
    /// `std.secval` and `std_*.sec2` for `--rules nine`, `mora_*` for
    /// `morabaraba`, `lask_*` for `lasker`. Draws show Malom's rank A.
    #[arg(long, value_name = "DIR", conflicts_with = "db")]
    malom: Option<PathBuf>,
    #[command(flatten)]
    position: PositionArg,
}

/// Where the answers come from.
enum Source {
    Ours(Database),
    Malom(MalomDatabase),
}

impl Source {
    fn rules(&self) -> &RuleSet {
        match self {
            Source::Ours(db) => db.rules(),
            Source::Malom(db) => db.rules(),
        }
    }

    /// The value, and Malom's A when reading Malom's files.
    fn value(&self, pos: &Position) -> Result<(Value, Option<MalomValue>), ProbeError> {
        match self {
            Source::Ours(db) => Ok((db.value(pos)?, None)),
            Source::Malom(db) => db.evaluate(pos).map(|v| (v.value, Some(v))),
        }
    }

    /// Every move with its value, best first (Malom: draws by A).
    fn analyze(&self, pos: &Position) -> Result<Vec<(Move, Value, Option<MalomValue>)>, ProbeError> {
        match self {
            Source::Ours(db) => Ok(db.analyze(pos)?.into_iter().map(|(m, v)| (m, v, None)).collect()),
            Source::Malom(db) => Ok(db.analyze_ranked(pos)?.into_iter().map(|(m, v)| (m, v.value, Some(v))).collect()),
        }
    }
}

/// `Win(25)`, `Draw`, or with Malom's files `Draw (Malom A = 0)`.
fn shown(value: Value, malom: Option<MalomValue>) -> String {
    match malom {
        Some(m) => m.to_string(),
        None => format!("{value:?}"),
    }
}

/// Arguments of `morris show`.
#[derive(Args)]
pub struct ShowArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    position: PositionArg,
}

fn open(args: &QueryArgs) -> anyhow::Result<(Source, Position)> {
    let rules = args.rules.rule_set()?;
    let pos = args.position.parse(&rules)?;
    let source = match (&args.db, &args.malom) {
        (_, Some(dir)) => Source::Malom(MalomDatabase::open(dir, rules)?),
        (Some(dir), None) => Source::Ours(Database::open(dir, rules)?),
        (None, None) => anyhow::bail!("give a database: `--db DIR` or `--malom DIR`"),
    };
    Ok((source, pos))
}

/// Runs `morris probe`: prints the value, e.g. `Win(25)`.
pub fn probe(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let (db, pos) = open(&args)?;
    let (value, malom) = db.value(&pos)?;
    writeln!(out, "{}", shown(value, malom))?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `morris analyze`: one line per legal move, best first.
pub fn analyze(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let (db, pos) = open(&args)?;
    let (value, malom) = db.value(&pos)?;
    writeln!(out, "position: {}  value: {}", pos.to_text(db.rules().board()), shown(value, malom))?;
    let moves = db.analyze(&pos)?;
    if moves.is_empty() {
        writeln!(out, "no legal move: {} has lost", pos.side_to_move)?;
    }
    for (mv, v, malom) in moves {
        writeln!(out, "{:<10} {}", mv.notation(db.rules().board()), shown(v, malom))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `morris bestmove`: prints a best move and its value.
pub fn bestmove(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let (db, pos) = open(&args)?;
    match db.analyze(&pos)?.into_iter().next() {
        Some((mv, v, malom)) => writeln!(out, "{} {}", mv.notation(db.rules().board()), shown(v, malom))?,
        None => {
            writeln!(out, "none: the game is over, {} has lost", pos.side_to_move)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `morris show`: draws the board, then gives the position in text
/// and, on the 24-point boards, as a Sanmill FEN.
pub fn show(args: ShowArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::output::stdout();
    let rules = args.rules.rule_set()?;
    let pos = args.position.parse(&rules)?;
    write!(out, "{}", pos.diagram(rules.board()))?;
    writeln!(out, "position: {}", pos.to_text(rules.board()))?;
    if let Ok(fen) = pos.to_fen(&rules) {
        writeln!(out, "FEN: {fen}")?;
    }
    Ok(ExitCode::SUCCESS)
}
