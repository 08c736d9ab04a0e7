//! `morris`: solve morris endgame databases and ask them for perfect play.
//!
//! A thin command line over `morris-solver` and `morris-probe`; every
//! subcommand lives in its own module.

mod bars;
mod bench;
mod bench_probe;
mod compare;
mod compress;
mod export;
mod line;
mod longest;
mod output;
mod perft;
mod plan;
mod play;
mod prove;
mod query;
mod replay;
mod serve;
mod slurm;
mod solve;
mod stats;
mod value;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use morris_db::fen::{is_fen, Clocks};
use morris_db::rules::{FullBoardOutcome, Overrides};
use morris_db::{Position, RuleSet};

/// Perfect play for Nine Men's Morris and its relatives, from databases
/// solved by retrograde analysis.
///
/// Positions are written `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`,
/// e.g. `W:a4,a1,d3 B:a7,d1,c4 w` (quotes optional). Values are for the side
/// to move: Win(n) / Loss(n) with n plies to the end of the game under
/// perfect play, or Draw.
#[derive(Parser)]
#[command(name = "morris", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a rule set's sectors into a database directory: the sliding
    /// phase, or with `--phase all` the whole game.
    ///
    /// Sectors are solved pair by pair, fewest stones first; tables already
    /// in the directory are kept, so an interrupted run continues where it
    /// stopped.
    Solve(solve::SolveArgs),
    /// The solve of a rule set as a graph of jobs, one per unit (a sliding
    /// pair, a placement sector, a Lasker placement pair): its size, and
    /// with `--slurm FILE` a script that submits the jobs to Slurm.
    ///
    /// Prints the units, the critical path (the longest chain of units that
    /// wait for each other, with its estimated time), the largest unit's
    /// memory and disk, and the total CPU time. The script submits one
    /// `sbatch` job per unit running `morris solve --only UNIT`, after the
    /// jobs whose tables it reads; run it again after failures and it
    /// submits only what is missing.
    Plan(slurm::PlanArgs),
    /// One row per table: positions, wins, losses, draws, longest win and loss.
    ///
    /// Checks every table's header and checksum; exits non-zero if any table
    /// is damaged.
    Stats(stats::StatsArgs),
    /// The value of a position for the side to move.
    Probe(query::QueryArgs),
    /// Every legal move with its value, best first.
    Analyze(query::QueryArgs),
    /// A best move: the shortest win, else a draw, else the longest loss.
    Bestmove(query::QueryArgs),
    /// Draw a position as an ASCII board.
    Show(query::ShowArgs),
    /// The value of the start position and of every first move, solving the
    /// whole game (sliding and placement sectors) first where tables are
    /// missing.
    ///
    /// Before solving it prints the estimated time, memory and disk, and
    /// refuses when they do not fit this machine.
    Value(value::ValueArgs),
    /// The value of a position with stones in hand (default: the start) by
    /// alpha-beta search over the placement phase, with the sliding tables
    /// at the leaves (Gasser's method); --check compares with the placement
    /// tables.
    Prove(prove::ProveArgs),
    /// Time a fixed solving suite (median of several runs, with a
    /// one-thread baseline measured in the same run).
    Bench(bench::BenchArgs),
    /// Compare our tables with Malom's database, position by position: WDL,
    /// and DTM of wins and losses. Exits non-zero on any mismatch.
    Compare(compare::CompareArgs),
    /// Count the distinct move sequences of a given length from a position
    /// (default: the start), optionally per first move.
    Perft(perft::PerftArgs),
    /// Replay a game record from the start: the position after each move,
    /// or the first illegal move, its number and why.
    Replay(replay::ReplayArgs),
    /// Check every table of a database: header, size, checksums, and every
    /// stored value re-derived from its successors' stored values. Exits
    /// non-zero on any fault.
    Verify(verify::VerifyArgs),
    /// The principal line: best moves for both sides to the end of a won
    /// or lost game (a few plies of a draw).
    Line(line::LineArgs),
    /// Write compact WDL files (win/draw/loss only, 1.6 bits per slot, no
    /// distance to mate) of a database's tables, for distribution.
    ExportWdl(export::ExportWdlArgs),
    /// Write the compressed form (`.mtz`: exact DTM, about a fifth of the
    /// size) of a database's tables, check every slot against the original,
    /// and optionally delete the originals. Every command reads both forms.
    Compress(compress::CompressArgs),
    /// Time the probe: opening a database and answering a first query, and
    /// warm probes and one-ply searches (every legal move's value) per
    /// second per thread.
    BenchProbe(bench_probe::BenchProbeArgs),
    /// Play a game in the terminal against perfect play.
    Play(play::PlayArgs),
    /// Serve databases over HTTP: a JSON API (every move's value, the
    /// principal line, game review) and a web board at `/`.
    ///
    /// Binds to 127.0.0.1:8080 unless `--bind` says otherwise; starts at
    /// once whatever the database size (tables are mapped on first use).
    Serve(serve::ServeArgs),
    /// Review a game record against the tables: every move marked (kept the
    /// value, threw a win away, lost a draw, plies given away), the best
    /// move beside it, and a summary per player.
    Review(serve::ReviewArgs),
    /// Load the server on loopback: N concurrent clients for T seconds on
    /// random positions; requests per second, latency percentiles, errors,
    /// memory.
    BenchServe(serve::BenchServeArgs),
}

/// The rule set option shared by every subcommand: a preset, optionally
/// changed by overrides into a custom rule set (named `<preset>-<8 hex
/// digits of its fingerprint>`, so that its tables never mix with the
/// preset's).
#[derive(Args, Clone)]
pub struct RulesArg {
    /// Rule set: nine, nine-noflying, nine-diagonal, nine-diagonal-noflying,
    /// twelve, morabaraba, lasker, six, six-flying, three, three-nodiagonal.
    #[arg(long, default_value = "nine", value_name = "PRESET")]
    pub rules: String,
    /// Custom rule set: stones per player.
    #[arg(long, value_name = "N", value_parser = number::<u8>(3..=12))]
    pub stones: Option<u8>,
    /// Custom rule set: a player with 3 stones flies.
    #[arg(long, conflicts_with = "no_flying")]
    pub flying: bool,
    /// Custom rule set: no flying.
    #[arg(long)]
    pub no_flying: bool,
    /// Custom rule set: a move closing several mills at once removes one
    /// stone per mill.
    #[arg(long)]
    pub remove_per_mill: bool,
    /// Custom rule set: stones in mills may always be removed.
    #[arg(long)]
    pub remove_from_mills: bool,
    /// Custom rule set: a full board at the end of placement is a draw or a
    /// loss for White.
    #[arg(long, value_name = "OUTCOME", value_parser = ["draw", "white-loses"])]
    pub full_board: Option<String>,
    /// Custom rule set: the Lasker rule (place or move while stones in hand).
    #[arg(long, conflicts_with = "no_lasker")]
    pub lasker: bool,
    /// Custom rule set: no Lasker rule.
    #[arg(long)]
    pub no_lasker: bool,
}

impl RulesArg {
    /// The overrides given on the command line.
    pub fn overrides(&self) -> Overrides {
        let flag = |on: bool, off: bool| match (on, off) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        Overrides {
            stones: self.stones,
            flying: flag(self.flying, self.no_flying),
            remove_per_mill: self.remove_per_mill.then_some(true),
            remove_from_mills_always: self.remove_from_mills.then_some(true),
            full_board: self.full_board.as_deref().and_then(FullBoardOutcome::from_word),
            lasker: flag(self.lasker, self.no_lasker),
        }
    }

    /// The options as command-line words, to give another `morris` the
    /// same rule set.
    pub fn to_args(&self) -> Vec<String> {
        let mut args = vec!["--rules".to_string(), self.rules.clone()];
        if let Some(n) = self.stones {
            args.extend(["--stones".to_string(), n.to_string()]);
        }
        for (on, flag) in [
            (self.flying, "--flying"),
            (self.no_flying, "--no-flying"),
            (self.remove_per_mill, "--remove-per-mill"),
            (self.remove_from_mills, "--remove-from-mills"),
            (self.lasker, "--lasker"),
            (self.no_lasker, "--no-lasker"),
        ] {
            if on {
                args.push(flag.to_string());
            }
        }
        if let Some(o) = &self.full_board {
            args.extend(["--full-board".to_string(), o.clone()]);
        }
        args
    }

    /// The rule set named by `--rules`, with the overrides applied.
    pub fn rule_set(&self) -> anyhow::Result<RuleSet> {
        let preset = RuleSet::preset(&self.rules)?;
        let overrides = self.overrides();
        if overrides.is_empty() {
            return Ok(preset);
        }
        Ok(preset.with_overrides(&overrides)?)
    }
}

/// `n` and a noun in the number `n` asks for: `1 table`, `2 tables`,
/// `1 ply`, `0 plies`.
pub fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The value parser of every numeric option: a whole number in `range`.
/// Anything else (a negative number, a word, a value out of range) is
/// refused by clap with a message that names the option and the range, and
/// exit code 2.
pub fn number<T>(range: impl std::ops::RangeBounds<u64>) -> clap::builder::RangedU64ValueParser<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    clap::builder::RangedU64ValueParser::<T>::new().range(range)
}

/// The most worker threads any subcommand starts.
pub const MAX_THREADS: u64 = 1024;

/// The worker threads option of the subcommands that work in parallel
/// (`solve`, `verify`, `prove`, `bench-probe`): the same meaning in each.
#[derive(Args, Clone, Copy)]
pub struct ThreadsArg {
    /// Worker threads; 0 or absent: one per core.
    #[arg(long, value_name = "N", value_parser = number::<usize>(0..=MAX_THREADS))]
    pub threads: Option<usize>,
}

impl ThreadsArg {
    /// The number of threads: the option's value, or one per core when it
    /// is absent or 0.
    pub fn count(&self) -> usize {
        match self.threads {
            Some(n) if n > 0 => n,
            _ => std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }

    /// A thread pool of [`ThreadsArg::count`] threads.
    ///
    /// # Errors
    /// When the operating system refuses to start the threads.
    pub fn pool(&self) -> anyhow::Result<rayon::ThreadPool> {
        use anyhow::Context as _;
        rayon::ThreadPoolBuilder::new().num_threads(self.count()).build().context("cannot start the worker threads")
    }
}

/// The database directory option.
#[derive(Args, Clone)]
pub struct DbArg {
    /// Database directory (one file per sector).
    #[arg(long, value_name = "DIR")]
    pub db: PathBuf,
}

/// A position argument, required: `W:<points> B:<points> <w|b> [<white in
/// hand> <black in hand>]` or a Sanmill FEN, as one quoted argument or
/// several words, before or after the options, or after `--fen`.
#[derive(Args, Clone)]
#[group(id = "position_arg", required = true, multiple = false)]
pub struct PositionArg {
    /// The position, e.g. `W:a4,a1,d3 B:a7,d1,c4 w` (stones in hand optional: `... w 5 6`),
    /// or a Sanmill FEN (recognised by its `/`); one quoted argument or several words.
    #[arg(value_name = "POSITION", num_args = 1.., allow_negative_numbers = true)]
    pub position: Vec<String>,
    /// The position as a Sanmill FEN, e.g. `'********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1'`.
    #[arg(long, value_name = "FEN", num_args = 1.., allow_negative_numbers = true)]
    pub fen: Vec<String>,
}

impl PositionArg {
    /// Reads and validates the position under `rules`.
    pub fn parse(&self, rules: &RuleSet) -> anyhow::Result<Position> {
        read_position(&self.position, &self.fen, rules)?
            .map(|(p, _)| p)
            .ok_or_else(|| anyhow::anyhow!("give a position"))
    }
}

/// A position argument that may be left out (the rule set's start is
/// meant); otherwise as [`PositionArg`].
#[derive(Args, Clone)]
#[group(id = "start_arg", required = false, multiple = false)]
pub struct StartArg {
    /// The position (default: the start of the rule set), e.g. `W:d6 B: b 8 9`
    /// or a Sanmill FEN; one quoted argument or several words.
    #[arg(value_name = "POSITION", num_args = 1.., allow_negative_numbers = true)]
    pub position: Vec<String>,
    /// The position as a Sanmill FEN.
    #[arg(long, value_name = "FEN", num_args = 1.., allow_negative_numbers = true)]
    pub fen: Vec<String>,
}

impl StartArg {
    /// Reads and validates the position under `rules`; the start when none
    /// was given.
    pub fn parse(&self, rules: &RuleSet) -> anyhow::Result<Position> {
        Ok(read_position(&self.position, &self.fen, rules)?.map_or_else(|| Position::start(rules), |(p, _)| p))
    }
}

/// The position given as words (either notation) or after `--fen` (a FEN
/// only), read by [`Position::read_for`]; `None` when neither was given.
pub fn read_position(words: &[String], fen: &[String], rules: &RuleSet) -> anyhow::Result<Option<(Position, Clocks)>> {
    let (text, must_be_fen) = match (words.is_empty(), fen.is_empty()) {
        (true, true) => return Ok(None),
        (false, _) => (words.join(" "), false),
        (true, false) => (fen.join(" "), true),
    };
    if fen.len() > 1 && fen[0].split_whitespace().nth(1).is_some() {
        anyhow::bail!("`{}` follows the FEN given after `--fen`; give the position once", fen[1..].join(" "));
    }
    if must_be_fen && !is_fen(&text) {
        anyhow::bail!("`--fen {text}` is not a FEN (it has no `/`); give a position in our notation without `--fen`");
    }
    Ok(Some(Position::read_for(&text, rules)?))
}

/// An error and its causes, `: `-separated, each cause once: a cause whose
/// text already ends the message (an error that shows its source in its own
/// text and also returns it as its source) is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.ends_with(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Reads the command line. Every option that takes a value also takes one
/// that starts with `-`, so `--threads -1` is refused as a bad value of
/// `--threads` (by its value parser), not as an unknown argument.
fn parse_command_line() -> Cli {
    use clap::{CommandFactory, FromArgMatches};
    let command = Cli::command().mut_subcommands(|sub| {
        sub.mut_args(|arg| if arg.get_action().takes_values() { arg.allow_negative_numbers(true) } else { arg })
    });
    Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

fn main() -> ExitCode {
    let cli = parse_command_line();
    let result = match cli.command {
        Command::Solve(a) => solve::run(a),
        Command::Plan(a) => slurm::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Probe(a) => query::probe(a),
        Command::Analyze(a) => query::analyze(a),
        Command::Bestmove(a) => query::bestmove(a),
        Command::Show(a) => query::show(a),
        Command::Value(a) => value::run(a),
        Command::Prove(a) => prove::run(a),
        Command::Compress(a) => compress::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Perft(a) => perft::run(a),
        Command::Replay(a) => replay::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Line(a) => line::run(a),
        Command::ExportWdl(a) => export::run(a),
        Command::BenchProbe(a) => bench_probe::run(a),
        Command::Play(a) => play::run(a),
        Command::Serve(a) => serve::serve(a),
        Command::Review(a) => serve::review(a),
        Command::BenchServe(a) => serve::bench_serve(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            output::errln!("error: {}", message(&e));
            if let Some(advice) = advice(&e) {
                output::errln!("hint: {advice}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The command to run about a missing table (the libraries say what is
/// missing, not which command makes it).
fn advice(e: &anyhow::Error) -> Option<String> {
    use morris_probe::{MissingHint, ProbeError};
    let Some(ProbeError::MissingTable { dir, hint, .. }) = e.chain().find_map(|c| c.downcast_ref::<ProbeError>())
    else {
        return None;
    };
    let dir = dir.display();
    Some(match hint {
        MissingHint::OtherRuleSets(_) => "is `--rules` right?".to_string(),
        MissingHint::Unsolved { rules, placement: false } => {
            format!("solve it with `morris solve --rules {rules} --db {dir}`")
        }
        MissingHint::Unsolved { rules, placement: true } => {
            format!("solve the placement tables with `morris solve --rules {rules} --phase all --db {dir}`")
        }
        MissingHint::NotExported { rules } => {
            format!("export it from a solved database with `morris export-wdl --rules {rules} --db DIR --out {dir}`")
        }
        MissingHint::NotInMalom { .. } | MissingHint::InMalomFull { .. } => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `--rules` help lists every preset the library knows, in its
    /// order (the list is written out in the docstring, so it could drift).
    #[test]
    fn rules_help_names_every_preset() {
        use clap::CommandFactory;
        let cmd = Cli::command();
        let solve = cmd.find_subcommand("solve").expect("solve subcommand");
        let rules = solve.get_arguments().find(|a| a.get_id() == "rules").expect("--rules");
        let help = rules.get_help().map(|h| h.to_string()).unwrap_or_default();
        let listed: Vec<&str> =
            help.trim_start_matches("Rule set: ").trim_end_matches('.').split(", ").map(str::trim).collect();
        assert_eq!(listed, morris_db::rules::PRESETS, "{help}");
    }

    /// An error that shows its source in its own text and also returns it
    /// as its source: the kind that printed "Permission denied (os error
    /// 13): Permission denied (os error 13)".
    #[derive(Debug)]
    struct ShowsItsSource(std::io::Error);

    impl std::fmt::Display for ShowsItsSource {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "table.mtb: {}", self.0)
        }
    }

    impl std::error::Error for ShowsItsSource {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let said = io.to_string();
        let e = anyhow::Error::new(ShowsItsSource(io)).context("cannot open the database");
        assert_eq!(message(&e), format!("cannot open the database: table.mtb: {said}"));
    }

    #[test]
    fn causes_that_add_something_are_kept() {
        let e = anyhow::anyhow!("no such file").context("cannot read d").context("verify");
        assert_eq!(message(&e), "verify: cannot read d: no such file");
    }

    #[test]
    fn table_errors_say_the_os_error_once() {
        let e = morris_db::TableError::Io {
            path: "t.mtb".into(),
            error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        let text = format!("{:#}", anyhow::Error::new(e));
        assert_eq!(text.matches("ermission denied").count(), 1, "{text}");
    }

    #[test]
    fn plural_forms() {
        assert_eq!(plural(1, "table", "tables"), "1 table");
        assert_eq!(plural(0, "ply", "plies"), "0 plies");
        assert_eq!(plural(2, "ply", "plies"), "2 plies");
    }
}
