//! `morris replay`: plays a game record from the start and prints the
//! position after each move, or stops at the first illegal move.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::fen::Clocks;
use morris_db::record::{read_record, replay};
use morris_db::Position;

use crate::args::RulesArg;

/// Replay a game record, stopping at the first illegal move.
///
/// Replay a game record from the start: the position after each move,
/// or the first illegal move, its number and why.
#[derive(Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// The game record (`-` for standard input): moves in docs/rules.md notation
    /// (`d6`, `d6-d5`, `a1xd7`), with or without move numbers (`1. d6 d2
    /// 2. f4 b4 ...`), one move or several a line, or a PGN as Sanmill
    /// exports it: tag pairs (`[FEN "..."]` sets the start), `{...}`
    /// comments, variations in parentheses (skipped: the main line is
    /// played); the rest of a line after `;` or `#` is skipped; a result
    /// (`1-0`, `0-1`, `1/2-1/2`, `*`) ends it. A move number that is not its
    /// move's gives a warning.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Start from this position instead of the start or the record's
    /// `[FEN]` tag (`W:... B:... w 5 6` or a Sanmill FEN, one quoted
    /// argument).
    #[arg(long, value_name = "POSITION", allow_hyphen_values = true)]
    from: Option<String>,
    /// Print each position as a Sanmill FEN (24-point boards only).
    #[arg(long)]
    fen: bool,
    /// Draw the board after each move.
    #[arg(long)]
    diagram: bool,
}

/// Runs `morris replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let mut out = crate::ui::output::stdout();
    let rules = args.rules.rule_set()?;
    let board = rules.board();
    let text = if args.file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read the record from standard input")?;
        s
    } else {
        std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?
    };
    let record = read_record(&text).with_context(|| format!("cannot read the record {}", args.file.display()))?;
    let tagged = record.start(&rules).context("cannot read the record's [FEN] tag")?;
    let (start, clocks) = match (&args.from, tagged) {
        (None, None) => {
            let start = Position::start(&rules);
            (start, Clocks::estimate(&start, &rules))
        }
        (None, Some(tagged)) => tagged,
        (Some(text), tagged) => {
            let from = Position::read_for(text, &rules)?;
            if let Some((pos, _)) = tagged.filter(|(pos, _)| *pos != from.0) {
                bail!(
                    "the record's [FEN] tag starts from `{}`, but --from gives `{}`; give one start",
                    pos.to_text(board),
                    from.0.to_text(board)
                );
            }
            from
        }
    };
    let show = |pos: &Position, clocks: Clocks| -> anyhow::Result<String> {
        Ok(if args.fen { pos.to_fen_with_clocks(&rules, clocks)? } else { pos.to_text(board) })
    };
    writeln!(out, "start {}", show(&start, clocks)?)?;
    if args.diagram {
        write!(out, "{}", start.diagram(board))?;
    }
    let result = replay(&rules, start, clocks.full_move, &record);
    for w in &result.warnings {
        eprintln!("warning: {w}");
    }
    let mut clocks = clocks;
    let mut mover = start.side_to_move();
    for p in &result.played {
        clocks = clocks.after(mover, &p.mv);
        mover = p.after.side_to_move();
        let number = p.number.to_string();
        writeln!(out, "{number:<6} {:<12} {}", p.mv.notation(board), show(&p.after, clocks)?)?;
        if args.diagram {
            write!(out, "{}", p.after.diagram(board))?;
        }
    }
    if let Some(e) = result.error {
        out.flush()?;
        bail!(e);
    }
    let last = result.played.last().map_or(start, |p| p.after);
    if let Some(over) = last.game_over(&rules) {
        writeln!(out, "game over: {over}")?;
    }
    Ok(ExitCode::SUCCESS)
}
