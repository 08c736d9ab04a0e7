//! The options that several subcommands share, each with one meaning
//! everywhere: the rule set (`--rules` and the custom rule options), the
//! database directory, the tables to read (ours or Malom's), a position,
//! the worker threads, the phase of a solve, the databases to serve.

use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Args;
use morris_db::fen::{is_fen, Clocks};
use morris_db::rules::{FullBoardOutcome, Overrides};
use morris_db::{Position, RuleSet};
use morris_server::{Config, DirArg};

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

/// The tables a subcommand reads, ours (`--db`) or Malom's (`--malom`),
/// and their rule set: shared by `probe`, `analyze`, `bestmove` and
/// `review`.
#[derive(Args)]
pub struct TablesArg {
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
}

/// Which files a [`TablesArg`] names.
pub enum TablesDir<'a> {
    /// Our tables (`--db`).
    Ours(&'a Path),
    /// Malom's files (`--malom`).
    Malom(&'a Path),
}

impl TablesArg {
    /// The rule set named by `--rules` and the custom options.
    ///
    /// # Errors
    /// As [`RulesArg::rule_set`].
    pub fn rule_set(&self) -> anyhow::Result<RuleSet> {
        self.rules.rule_set()
    }

    /// The directory to read and whose files it holds.
    ///
    /// # Errors
    /// Neither `--db` nor `--malom` given (clap refuses that first; kept
    /// for callers that build the arguments themselves).
    pub fn dir(&self) -> anyhow::Result<TablesDir<'_>> {
        match (&self.db, &self.malom) {
            (_, Some(dir)) => Ok(TablesDir::Malom(dir)),
            (Some(dir), None) => Ok(TablesDir::Ours(dir)),
            (None, None) => anyhow::bail!("give a database: `--db DIR` or `--malom DIR`"),
        }
    }
}

/// The phases `morris solve` can solve.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Phase {
    /// The sliding phase: both hands empty.
    Sliding,
    /// The whole game: sliding sectors first, then placement sectors.
    All,
}

/// The databases to serve, shared by `serve` and `bench-serve`.
#[derive(Args)]
pub struct ServedArgs {
    /// A directory of our tables, `DIR` or `RULES=DIR` (the rule set is read
    /// from the file names when not given); repeat for several rule sets.
    #[arg(long, value_name = "[RULES=]DIR")]
    db: Vec<DirArg>,
    /// A directory of Malom's files (`std_*` for nine, `mora_*` for
    /// morabaraba, `lask_*` for lasker), `DIR` or `RULES=DIR`; draws show
    /// Malom's rank.
    #[arg(long, value_name = "[RULES=]DIR")]
    malom: Vec<DirArg>,
    /// The most table look-ups at once (default: twice the cores).
    #[arg(long, value_name = "N", value_parser = number::<usize>(1..=4096))]
    max_in_flight: Option<usize>,
}

impl ServedArgs {
    /// The server configuration these options give.
    ///
    /// # Errors
    /// When neither `--db` nor `--malom` is given.
    pub fn config(&self) -> anyhow::Result<Config> {
        if self.db.is_empty() && self.malom.is_empty() {
            bail!("give a database: --db DIR (or --malom DIR)");
        }
        let mut config = Config { dbs: self.db.clone(), malom: self.malom.clone(), ..Config::default() };
        if let Some(n) = self.max_in_flight {
            config.max_in_flight = n;
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::*;

    #[derive(Parser)]
    struct WithRules {
        #[command(flatten)]
        rules: RulesArg,
    }

    /// The `--rules` help lists every preset the library knows, in its
    /// order (the list is written out in the docstring, so it could drift).
    #[test]
    fn rules_help_names_every_preset() {
        let cmd = WithRules::command();
        let rules = cmd.get_arguments().find(|a| a.get_id() == "rules").expect("--rules");
        let help = rules.get_help().map(|h| h.to_string()).unwrap_or_default();
        let listed: Vec<&str> =
            help.trim_start_matches("Rule set: ").trim_end_matches('.').split(", ").map(str::trim).collect();
        assert_eq!(listed, morris_db::rules::PRESETS, "{help}");
    }
}
