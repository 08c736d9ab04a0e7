//! `morris sample`: training data, positions of one sector drawn at random
//! with their values and best moves, as CSV or JSON lines.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use morris_db::{Sector, Value};
use morris_probe::Database;

use crate::args::RulesArg;

/// Positions of one sector drawn at random, with values and best moves.
///
/// Draws N positions of the sector uniformly (with replacement) from all
/// its positions, the same ones for the same seed, and writes each with
/// its value for the side to move, the signed distance in plies (positive
/// for a win, empty or null for a draw) and every best move.
#[derive(Args)]
pub struct SampleArgs {
    #[command(flatten)]
    rules: RulesArg,
    /// Database directory (one file per sector).
    #[arg(long, value_name = "DIR")]
    db: PathBuf,
    /// The sector, from the side to move's view: `3-3` (sliding) or
    /// `w-b-wh-bh` with stones in hand, e.g. `4-3-2-3`.
    #[arg(long, value_name = "SECTOR")]
    sector: String,
    /// How many positions (at most 100,000,000).
    #[arg(short = 'n', long, value_name = "N", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    n: u64,
    /// The seed of the generator: the same seed draws the same positions.
    #[arg(long, value_name = "K", default_value_t = 0)]
    seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// Write positions as Sanmill FENs (24-point boards) instead of our
    /// notation.
    #[arg(long)]
    fen: bool,
}

/// How `morris sample` writes its rows.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// `position,value,wdl,dtm,best_moves` with a header line.
    Csv,
    /// One JSON object a line.
    Jsonl,
}

/// -1, 0 or 1 and the signed distance (`None` for a draw).
fn wdl_dtm(v: Value) -> (i8, Option<i32>) {
    match v {
        Value::Win(n) => (1, Some(i32::from(n.get()))),
        Value::Loss(n) => (-1, Some(-i32::from(n.get()))),
        Value::Draw => (0, None),
    }
}

/// Runs `morris sample`.
pub fn run(args: SampleArgs) -> anyhow::Result<ExitCode> {
    let rules = args.rules.rule_set()?;
    let sector = Sector::parse(&args.sector)
        .ok_or_else(|| anyhow::anyhow!("sector `{}`: write it as `3-3` or `4-3-2-3`", args.sector))?;
    let db = Database::open(&args.db, rules)?;
    let rules = db.rules();
    let board = rules.board();
    let drawn = morris_probe::sample(&db, sector, args.n as usize, args.seed)?;
    let mut out = crate::ui::output::stdout();
    let mut rows = Vec::with_capacity(drawn.len());
    for s in drawn {
        let position = if args.fen { s.position.to_fen(rules)? } else { s.position.to_text(board) };
        let best: Vec<String> = db.best_moves(&s.position)?.into_iter().map(|(mv, _)| mv.notation(board)).collect();
        let (wdl, dtm) = wdl_dtm(s.value);
        rows.push((position, format!("{:?}", s.value), wdl, dtm, best));
    }
    match args.format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut out);
            w.write_record(["position", "value", "wdl", "dtm", "best_moves"])?;
            for (position, value, wdl, dtm, best) in rows {
                let dtm = dtm.map(|d| d.to_string()).unwrap_or_default();
                w.write_record([position, value, wdl.to_string(), dtm, best.join(" ")])?;
            }
            w.flush()?;
        }
        Format::Jsonl => {
            for (position, value, wdl, dtm, best) in rows {
                let row = serde_json::json!({
                    "position": position,
                    "value": value,
                    "wdl": wdl,
                    "dtm": dtm,
                    "best_moves": best,
                });
                writeln!(out, "{row}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
