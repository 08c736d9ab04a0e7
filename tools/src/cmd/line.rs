//! `morris line`: the principal line of a position, best moves for both
//! sides to the end of a won or lost game (a few plies of a draw).

use std::io::Write;
use std::process::ExitCode;

use clap::Args;
use morris_db::{Color, Position, RuleSet, Value};
use morris_probe::Database;

use crate::args::{DbArg, PositionArg, RulesArg};

/// The principal line: best moves for both sides to the end.
///
/// The principal line: best moves for both sides to the end of a won
/// or lost game (a few plies of a draw).
#[derive(Args)]
pub struct LineArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// At most this many plies (default: to the end of a won or lost game;
    /// 12 plies of a draw).
    #[arg(long, value_name = "N", value_parser = crate::args::number::<usize>(1..=100_000))]
    plies: Option<usize>,
    #[command(flatten)]
    position: PositionArg,
}

/// Plies of a drawing line shown when `--plies` is not given.
const DRAW_PLIES: usize = 12;

/// Runs `morris line`.
pub fn run(args: LineArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let pos = args.position.parse(&rules)?;
    let db = Database::open(&args.db.db, rules)?;
    let rules = db.rules();
    let board = rules.board();
    let value = db.value(&pos)?;
    let plies = args.plies.unwrap_or(value.plies().map_or(DRAW_PLIES, usize::from));
    let line = db.principal_line(&pos, plies)?;
    writeln!(out, "position: {}  value: {value:?}", pos.to_text(board))?;
    let mut current = pos;
    let mut record = Vec::new();
    for (i, (mv, v)) in line.iter().enumerate() {
        let mover = current.side_to_move();
        let notation = mv.notation(board);
        writeln!(out, "{:>4}. {:<5} {:<10} {v:?}", i + 1, mover.to_string(), notation)?;
        let number = (i + usize::from(pos.side_to_move() == Color::Black)) / 2 + 1;
        match mover {
            Color::White => record.push(format!("{number}. {notation}")),
            Color::Black if i == 0 => record.push(format!("{number}... {notation}")),
            Color::Black => record.push(notation),
        }
        current = current.play_unchecked(*mv);
    }
    if !record.is_empty() {
        writeln!(out, "line: {}", record.join(" "))?;
    }
    writeln!(out, "{}", ending(rules, &pos, value, &current, line.len()))?;
    Ok(ExitCode::SUCCESS)
}

/// What the line shows, in words.
fn ending(rules: &RuleSet, start: &Position, value: Value, end: &Position, plies: usize) -> String {
    let winner = |v: Value| match v {
        Value::Win(_) => start.side_to_move(),
        _ => start.side_to_move().other(),
    };
    match value {
        Value::Draw => format!(
            "a draw: neither side can force a win; {} of a drawing line shown (every move keeps the draw)",
            crate::ui::plural(plies as u64, "ply", "plies")
        ),
        Value::Win(_) | Value::Loss(_) if end.game_over(rules).is_some() => {
            let why = end.game_over(rules).map(|g| g.why()).unwrap_or_default();
            format!("{} wins in {}: {why}", winner(value), crate::ui::plural(plies as u64, "ply", "plies"))
        }
        _ => {
            format!(
                "{} wins; the line is cut after {} (raise --plies to see it to the end)",
                winner(value),
                crate::ui::plural(plies as u64, "ply", "plies")
            )
        }
    }
}
