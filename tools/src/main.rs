//! `morris`: solve morris endgame databases and ask them for perfect play.
//!
//! The front door only: the subcommands and their dispatch. Each command
//! lives in [`cmd`] (its arguments and `run`), the options several share in
//! [`args`], what is shown on the terminal in [`ui`]; the work itself is
//! the library crates' (`morris-db`, `-solver`, `-probe`, `-server`).

mod args;
mod cmd;
mod ui;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Perfect play for Nine Men's Morris and its relatives, from databases
/// solved by retrograde analysis.
///
/// Positions are written `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`,
/// e.g. `W:a4,a1,d3 B:a7,d1,c4 w` (quotes optional), or as a Sanmill FEN.
/// Values are for the side to move: Win(n) / Loss(n) with n plies to the
/// end of the game under perfect play, or Draw.
#[derive(Parser)]
#[command(name = "morris", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Solve(cmd::solve::SolveArgs),
    Value(cmd::value::ValueArgs),
    Compress(cmd::compress::CompressArgs),
    ExportWdl(cmd::export_wdl::ExportWdlArgs),
    Chart(cmd::chart::ChartArgs),
    /// The value of a position for the side to move.
    Probe(cmd::query::QueryArgs),
    /// Every legal move with its value, best first.
    Analyze(cmd::query::QueryArgs),
    /// A best move: the shortest win, else a draw, else the longest loss.
    Bestmove(cmd::query::QueryArgs),
    Line(cmd::line::LineArgs),
    Show(cmd::show::ShowArgs),
    Play(cmd::play::PlayArgs),
    Replay(cmd::replay::ReplayArgs),
    Review(cmd::review::ReviewArgs),
    Sample(cmd::sample::SampleArgs),
    Verify(cmd::verify::VerifyArgs),
    Stats(cmd::stats::StatsArgs),
    Compare(cmd::compare::CompareArgs),
    Prove(cmd::prove::ProveArgs),
    Perft(cmd::perft::PerftArgs),
    Reach(cmd::reach::ReachArgs),
    Serve(cmd::serve::ServeArgs),
    Plan(cmd::plan::PlanArgs),
    Bench(cmd::bench::BenchArgs),
    BenchProbe(cmd::bench_probe::BenchProbeArgs),
    BenchServe(cmd::bench_serve::BenchServeArgs),
}

/// Reads the command line. Every option that takes a value also takes one
/// that starts with `-`, so `--threads -1` is refused as a bad value of
/// `--threads` (by its value parser), not as an unknown argument.
fn parse_command_line() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let command = ui::help::grouped(Cli::command()).mut_subcommands(|sub| {
        sub.mut_args(|arg| if arg.get_action().takes_values() { arg.allow_negative_numbers(true) } else { arg })
    });
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

fn main() -> ExitCode {
    use cmd::*;
    let result = match parse_command_line().command {
        Command::Solve(a) => solve::run(a),
        Command::Value(a) => value::run(a),
        Command::Compress(a) => compress::run(a),
        Command::ExportWdl(a) => export_wdl::run(a),
        Command::Chart(a) => chart::run(a),
        Command::Probe(a) => query::probe(a),
        Command::Analyze(a) => query::analyze(a),
        Command::Bestmove(a) => query::bestmove(a),
        Command::Line(a) => line::run(a),
        Command::Show(a) => show::run(a),
        Command::Play(a) => play::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Review(a) => review::run(a),
        Command::Sample(a) => sample::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Prove(a) => prove::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Reach(a) => reach::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Bench(a) => bench::run(a),
        Command::BenchProbe(a) => bench_probe::run(a),
        Command::BenchServe(a) => bench_serve::run(a),
    };
    result.unwrap_or_else(|e| {
        ui::report_error(&e);
        ExitCode::FAILURE
    })
}
