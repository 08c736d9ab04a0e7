//! `morris review`: a game record marked move by move against the tables
//! (`morris_server::review`).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context};
use clap::Args;
use morris_db::Position;
use morris_server::review::{render_text, review_record};
use morris_server::Source;

use crate::args::{TablesArg, TablesDir};

/// Mark every move of a game record against the tables.
///
/// Review a game record against the tables: every move marked (kept the
/// value, threw a win away, lost a draw, plies given away), the best
/// move beside it, and a summary per player.
#[derive(Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    tables: TablesArg,
    /// The game record (`-` for standard input), as `morris replay` reads
    /// it: our notation (`1. d6 d2 2. f4 b4 ...`) or a PGN as Sanmill
    /// exports it (its `[FEN]` tag is the start).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Start from this position instead of the start (or the record's
    /// `[FEN]` tag).
    #[arg(long, value_name = "POSITION", allow_hyphen_values = true)]
    from: Option<String>,
    /// `text` (one line per move, then a summary per player) or `json`.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

/// Runs `morris review`.
pub fn run(args: ReviewArgs) -> anyhow::Result<ExitCode> {
    let rules = args.tables.rule_set()?;
    let text = if args.file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("cannot read the record from standard input")?;
        s
    } else {
        std::fs::read_to_string(&args.file).with_context(|| format!("cannot read {}", args.file.display()))?
    };
    let start = match &args.from {
        None => None,
        Some(t) => Some(
            Position::read_for(t, &rules)
                .with_context(|| format!("cannot read position `{}`", crate::ui::quoted(t)))?
                .0,
        ),
    };
    let source = match args.tables.dir()? {
        TablesDir::Malom(dir) => Source::open_malom(dir, rules)?,
        TablesDir::Ours(dir) => Source::open_ours(dir, rules)?,
    };
    let review = review_record(source, start, &text)?;
    let mut out = std::io::stdout().lock();
    if args.format == "json" {
        serde_json::to_writer_pretty(&mut out, &review)?;
        writeln!(out)?;
    } else {
        write!(out, "{}", render_text(&review))?;
    }
    if let Some(e) = &review.error {
        out.flush()?;
        bail!("{e}");
    }
    Ok(ExitCode::SUCCESS)
}
