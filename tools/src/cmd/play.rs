//! `morris play`: a game in the terminal against perfect play from a
//! database. The board is drawn after every move; moves are typed in
//! docs/rules.md notation; `value`, `moves`, `hint`, `help` and `quit` are
//! commands. At a terminal lines can be edited and earlier ones recalled
//! (arrow keys, Ctrl-R); from a pipe lines are read as they come.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use morris_db::{Color, Move, Outcome, Position, RuleSet, Value};
use morris_probe::Database;

use crate::args::{read_position, DbArg, RulesArg};

/// The colour the human plays.
#[derive(Clone, Copy, ValueEnum)]
enum Side {
    /// White, who moves first.
    White,
    /// Black.
    Black,
}

/// Play a game in the terminal against perfect play.
///
/// Play a game in the terminal against perfect play.
#[derive(Args)]
pub struct PlayArgs {
    #[command(flatten)]
    rules: RulesArg,
    #[command(flatten)]
    db: DbArg,
    /// The colour you play; the program plays the other perfectly.
    #[arg(long = "as", value_enum, value_name = "COLOUR", default_value = "white")]
    side: Side,
    /// Start from this position instead of the start of the game, e.g.
    /// `W:a4,a1,d3,g7 B:a7,d1,c4 w` or a Sanmill FEN, one quoted argument or
    /// several words. The database must hold every table the game can
    /// reach: the sliding sectors with at most the position's stones, and
    /// with stones in hand the placement sectors too (`morris solve --phase
    /// all`); this is checked before the first move.
    #[arg(long, value_name = "POSITION", num_args = 1.., allow_negative_numbers = true)]
    from: Vec<String>,
}

/// What can be typed: moves, written with points of the rule set's board,
/// and the commands.
fn help(rules: &RuleSet) -> String {
    let examples: Vec<String> = morris_db::moves::move_examples(rules).iter().map(|m| format!("`{m}`")).collect();
    format!(
        "type a move ({}), or: value (the position's value), moves (the legal moves), hint (a best move), board, help, quit",
        examples.join(", ")
    )
}

/// Where the moves come from: a line editor with history (arrow keys,
/// Ctrl-R; kept for the game) when standard input and output are a
/// terminal, else standard input line by line (a pipe, a file).
enum Input {
    Editor(Box<rustyline::DefaultEditor>),
    Lines(std::io::StdinLock<'static>),
}

impl Input {
    fn new() -> anyhow::Result<Input> {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
            let editor = rustyline::DefaultEditor::new().context("cannot set up the terminal for line editing")?;
            return Ok(Input::Editor(Box::new(editor)));
        }
        Ok(Input::Lines(std::io::stdin().lock()))
    }

    /// The next line after `prompt`; `None` at the end of input (Ctrl-D,
    /// or Ctrl-C at the terminal).
    fn line(&mut self, prompt: &str, out: &mut impl Write) -> anyhow::Result<Option<String>> {
        match self {
            Input::Editor(editor) => {
                out.flush()?;
                match editor.readline(prompt) {
                    Ok(line) => {
                        if !line.trim().is_empty() {
                            // A history that refuses an entry is no reason to stop.
                            let _ = editor.add_history_entry(line.trim());
                        }
                        Ok(Some(line))
                    }
                    Err(rustyline::error::ReadlineError::Eof | rustyline::error::ReadlineError::Interrupted) => {
                        Ok(None)
                    }
                    Err(e) => Err(e).context("cannot read the terminal"),
                }
            }
            Input::Lines(lines) => {
                write!(out, "{prompt}")?;
                out.flush()?;
                let mut line = String::new();
                if lines.read_line(&mut line).context("cannot read standard input")? == 0 {
                    return Ok(None);
                }
                Ok(Some(line))
            }
        }
    }
}

/// Runs `morris play`, reading moves from standard input.
pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let rules = args.rules.rule_set_in(&args.db.db, crate::args::DirUse::Reads)?;
    let mut pos = read_position(&args.from, &[], &rules)?.map_or_else(|| Position::start(&rules), |(p, _)| p);
    check_coverage(&rules, &args.db.db, &pos)?;
    let db = Database::open(&args.db.db, rules)?;
    // The first probe also checks the tables the start needs.
    db.analyze(&pos)?;
    let rules = db.rules();
    let board = rules.board();
    let human = match args.side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    let mut input = Input::new()?;
    let mut out = crate::ui::output::stdout();
    let help = help(rules);
    writeln!(out, "morris play: you are {human}, rule set {}. {help}.", rules.name())?;
    writeln!(out, "\n{}", pos.diagram(board))?;
    let mut ply = 0usize;
    loop {
        if let Some(over) = pos.game_over(rules) {
            let verdict = match over.outcome {
                Outcome::Loss(loser) if loser == human => "you lose",
                Outcome::Loss(_) => "you win",
                Outcome::Draw => "a draw",
            };
            writeln!(
                out,
                "game over after {}: {}; {verdict}.",
                crate::ui::plural(ply as u64, "ply", "plies"),
                over.why()
            )?;
            return Ok(ExitCode::SUCCESS);
        }
        if pos.side_to_move() != human {
            let (mv, value) = db.best_move(&pos)?.context("the program has no move although the game is not over")?;
            writeln!(
                out,
                "{} plays {} ({})",
                pos.side_to_move(),
                mv.notation(board),
                describe(value, pos.side_to_move())
            )?;
            pos = play(&pos, mv, &mut ply);
            writeln!(out, "\n{}", pos.diagram(board))?;
            continue;
        }
        let Some(line) = input.line(&format!("{human} to move> "), &mut out)? else {
            writeln!(out, "\nend of input: game left unfinished.")?;
            return Ok(ExitCode::SUCCESS);
        };
        let command = line.trim();
        match command.to_ascii_lowercase().as_str() {
            "" => {}
            "quit" | "exit" | "q" | "resign" => {
                writeln!(out, "game left unfinished after {}.", crate::ui::plural(ply as u64, "ply", "plies"))?;
                return Ok(ExitCode::SUCCESS);
            }
            "help" | "?" => writeln!(out, "{help}")?,
            "board" => writeln!(out, "{}", pos.diagram(board))?,
            "value" => {
                let v = db.value(&pos)?;
                writeln!(out, "value: {v:?}, {}", describe(v, human))?;
            }
            "moves" => {
                writeln!(out, "legal moves: {}", pos.legal_move_names(rules).join(" "))?;
            }
            "hint" => {
                if let Some((mv, v)) = db.best_move(&pos)? {
                    writeln!(out, "hint: {} ({})", mv.notation(board), describe(v, human))?;
                }
            }
            _ => match pos.parse_move(rules, command) {
                Ok(mv) => {
                    pos = play(&pos, mv, &mut ply);
                    writeln!(out, "\n{}", pos.diagram(board))?;
                }
                Err(e) => writeln!(out, "{e}")?,
            },
        }
    }
}

/// Refuses a database that lacks a table the game from `pos` can reach, so
/// that a game never stops at a missing table halfway through.
fn check_coverage(rules: &RuleSet, dir: &std::path::Path, pos: &Position) -> anyhow::Result<()> {
    let stones = pos.white().count_ones() + pos.black().count_ones();
    let in_hand = pos.white_in_hand() + pos.black_in_hand() > 0;
    let max_stones = if in_hand { u32::MAX } else { stones };
    let plan = morris_solver::estimate::Plan::new(rules, dir, max_stones, in_hand, morris_solver::Finished::Keep);
    if !plan.is_empty() {
        let how = if in_hand {
            format!("morris solve --rules {} --db {} --phase all", rules.name(), dir.display())
        } else {
            format!("morris solve --rules {} --db {} --max-stones {stones}", rules.name(), dir.display())
        };
        anyhow::bail!(
            "{} lacks {} this game can reach{}; solve them first: `{how}`",
            dir.display(),
            crate::ui::plural(plan.missing() as u64, "table", "tables"),
            if in_hand { " (placement sectors: the game starts with stones in hand)" } else { "" }
        );
    }
    Ok(())
}

fn play(pos: &Position, mv: Move, ply: &mut usize) -> Position {
    *ply += 1;
    pos.play_unchecked(mv)
}

/// A value for `who` in words.
fn describe(v: Value, who: Color) -> String {
    match v {
        Value::Win(n) => format!("{who} wins in {}", crate::ui::plural(n.into(), "ply", "plies")),
        Value::Loss(n) => format!("{who} loses in {}", crate::ui::plural(n.into(), "ply", "plies")),
        Value::Draw => "a draw".to_string(),
    }
}
