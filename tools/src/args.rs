//! The options that several subcommands share, each with one meaning
//! everywhere: the rule set (`--rules` and the custom rule options), the
//! database directory, the tables to read (ours or Malom's), a position,
//! the worker threads, the phase of a solve, the databases to serve.

use std::path::{Path, PathBuf};

use anyhow::bail;
use clap::Args;
use morris_db::fen::{is_fen, Clocks};
use morris_db::rules::{Flying, FullBoardOutcome, Overrides, Removal};
use morris_db::{Position, RuleSet, Sector, Store};
use morris_server::{Config, DirArg};

/// The rule set option shared by every subcommand: a preset, optionally
/// changed by overrides into a custom rule set (named `<preset>-<8 hex
/// digits of its fingerprint>`, so that its tables never mix with the
/// preset's).
#[derive(Args, Clone)]
pub struct RulesArg {
    /// Rule set: nine, nine-noflying, nine-diagonal, nine-diagonal-noflying,
    /// eleven, eleven-flying, twelve, morabaraba, sesotho, sesotho-flying,
    /// lasker, seven, seven-flying, six, six-flying, five, five-flying, three,
    /// three-nodiagonal.
    ///
    /// Default: with `--db`, the rule set of the directory's tables when
    /// they are of one rule set (a custom one too, told from its file
    /// names; the custom options then change it); `nine` where there is no
    /// table yet (`solve`, `value`, `plan`) or no database.
    #[arg(long, value_name = "PRESET")]
    pub rules: Option<String>,
    /// Custom rule set: stones per player.
    #[arg(long, value_name = "N", value_parser = number::<u8>(3..=12))]
    pub stones: Option<u8>,
    /// Custom rule set: a player with 3 stones flies (`--fly-at 3`).
    #[arg(long, conflicts_with_all = ["no_flying", "fly_at"])]
    pub flying: bool,
    /// Custom rule set: no flying (`--fly-at never`).
    #[arg(long, conflicts_with = "fly_at")]
    pub no_flying: bool,
    /// Custom rule set: when a player flies (moves a stone to any empty
    /// point): with 3 stones, with 3 or 4, always, or never.
    #[arg(long, value_name = "WHEN", value_parser = ["3", "4", "always", "never"])]
    pub fly_at: Option<String>,
    /// Custom rule set: a move closing several mills at once removes one
    /// stone per mill.
    #[arg(long)]
    pub remove_per_mill: bool,
    /// Custom rule set: stones in mills may always be removed (`--removal
    /// lenient`).
    #[arg(long, conflicts_with = "removal")]
    pub remove_from_mills: bool,
    /// Custom rule set: which stones a mill removes: `standard` (stones in
    /// mills only when all are), `strict` (never stones in mills: when all
    /// are, nothing) or `lenient` (any stone).
    #[arg(long, value_name = "RULE", value_parser = ["standard", "strict", "lenient"])]
    pub removal: Option<String>,
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
    /// Custom rule set: misère play, the player who would win loses (a
    /// player down to two stones or without a move wins). Not with Three
    /// Men's Morris.
    #[arg(long)]
    pub misere: bool,
}

impl RulesArg {
    /// The overrides given on the command line.
    pub fn overrides(&self) -> Overrides {
        let flag = |on: bool, off: bool| match (on, off) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        };
        let flying = match flag(self.flying, self.no_flying) {
            Some(true) => Some(Flying::AtThree),
            Some(false) => Some(Flying::Never),
            None => self.fly_at.as_deref().and_then(Flying::from_word),
        };
        let removal = if self.remove_from_mills {
            Some(Removal::Lenient)
        } else {
            self.removal.as_deref().and_then(Removal::from_word)
        };
        Overrides {
            stones: self.stones,
            flying,
            remove_per_mill: self.remove_per_mill.then_some(true),
            removal,
            full_board: self.full_board.as_deref().and_then(FullBoardOutcome::from_word),
            lasker: flag(self.lasker, self.no_lasker),
            misere: self.misere.then_some(true),
        }
    }

    /// The rule set named by `--rules` (`nine` when it is absent), with
    /// the overrides applied: for the subcommands that read no database.
    pub fn rule_set(&self) -> anyhow::Result<RuleSet> {
        self.apply(RuleSet::preset(self.rules.as_deref().unwrap_or(DEFAULT_RULES))?)
    }

    /// The rule set for the database directory `dir`: the one `--rules`
    /// names; without `--rules`, the one whose tables `dir` holds
    /// ([`Store::rule_set`]), or where it holds none `nine` for a
    /// subcommand that creates tables and an error for one that reads
    /// them. The overrides apply to the rule set found.
    ///
    /// # Errors
    /// An unknown preset or overrides that do not fit; a directory with
    /// tables of several rule sets (naming them), or, for a reader, without
    /// any.
    pub fn rule_set_in(&self, dir: &Path, dir_use: DirUse) -> anyhow::Result<RuleSet> {
        if self.rules.is_some() {
            return self.rule_set();
        }
        match Store::new(dir).rule_set()? {
            Some(found) => self.apply(found),
            None if dir_use == DirUse::Creates => self.rule_set(),
            None if !dir.is_dir() => {
                bail!("database directory {} does not exist or is not a directory", dir.display())
            }
            None => bail!(
                "{} holds no table (no `.mtb` or `.mtz` file); solve some with `morris solve --db {}`",
                dir.display(),
                dir.display()
            ),
        }
    }

    /// The rule set for a directory of Malom's files: the one `--rules`
    /// names; without it, the game whose files `dir` holds, `nine` where it
    /// holds none (opening it then says what is missing).
    ///
    /// # Errors
    /// As [`RulesArg::rule_set`]; files of several games.
    pub fn rule_set_in_malom(&self, dir: &Path) -> anyhow::Result<RuleSet> {
        if self.rules.is_some() {
            return self.rule_set();
        }
        match morris_server::source::malom_games_in(dir).as_slice() {
            [] => self.rule_set(),
            [one] => self.apply(RuleSet::preset(one)?),
            many => bail!(
                "{} holds Malom files of several games ({}); name one with `--rules`",
                dir.display(),
                many.join(", ")
            ),
        }
    }

    /// `base` with the overrides given on the command line.
    fn apply(&self, base: RuleSet) -> anyhow::Result<RuleSet> {
        let overrides = self.overrides();
        if overrides.is_empty() {
            return Ok(base);
        }
        Ok(base.with_overrides(&overrides)?)
    }
}

/// The rule set of the subcommands that read no database, and of a new
/// database, when `--rules` is not given.
pub const DEFAULT_RULES: &str = "nine";

/// What a subcommand does with its database directory, which decides the
/// rule set when `--rules` is absent and the directory holds no table
/// ([`RulesArg::rule_set_in`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DirUse {
    /// Reads tables that must be there (an error without any).
    Reads,
    /// Solves tables into it (`nine` without any).
    Creates,
}

/// `rules` as command-line words for another `morris`: `--rules PRESET`
/// and the custom options that make it from its preset.
pub fn rules_args(rules: &RuleSet) -> Vec<String> {
    let preset = RuleSet::preset(rules.preset_name()).unwrap_or_else(|_| rules.clone());
    let mut args = vec!["--rules".to_string(), rules.preset_name().to_string()];
    if rules.stones() != preset.stones() {
        args.extend(["--stones".to_string(), rules.stones().to_string()]);
    }
    if rules.fly_rule() != preset.fly_rule() {
        args.push(match rules.fly_rule() {
            Flying::AtThree => "--flying".to_string(),
            Flying::Never => "--no-flying".to_string(),
            other => format!("--fly-at={}", other.word()),
        });
    }
    if rules.removal() != preset.removal() {
        args.push(format!("--removal={}", rules.removal().word()));
    }
    for (differs, on, flag_on, flag_off) in [
        (rules.remove_per_mill() != preset.remove_per_mill(), rules.remove_per_mill(), "--remove-per-mill", ""),
        (rules.lasker() != preset.lasker(), rules.lasker(), "--lasker", "--no-lasker"),
        (rules.misere() != preset.misere(), rules.misere(), "--misere", ""),
    ] {
        let flag = if on { flag_on } else { flag_off };
        if differs && !flag.is_empty() {
            args.push(flag.to_string());
        }
    }
    if rules.full_board() != preset.full_board() {
        args.extend(["--full-board".to_string(), rules.full_board().word().to_string()]);
    }
    args
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

/// The value parser of a sector option (`--sectors` of `verify` and
/// `compare`): `w-b` or `w-b-wh-bh`. A value that is not one is refused
/// with at most [`morris_db::QUOTE_CHARS`] characters of it quoted (clap's
/// own message for a bad value would echo it whole).
#[derive(Clone, Copy)]
pub struct SectorParser;

impl clap::builder::TypedValueParser for SectorParser {
    type Value = Sector;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Sector, clap::Error> {
        let text = value.to_string_lossy();
        Sector::parse(text.trim()).ok_or_else(|| {
            let option = arg.and_then(|a| a.get_long()).map_or(String::new(), |l| format!(" of --{l}"));
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "`{}`{option} is not a sector: write `w-b` or `w-b-wh-bh`, e.g. `3-4`\n",
                    crate::ui::quoted(&text)
                ),
            )
            .with_cmd(cmd)
        })
    }
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
    /// More threads than cores run, but slower (999 threads on 2 cores
    /// solved 17 times slower): a warning says so, once per run.
    pub fn count(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        match self.threads {
            Some(n) if n > 0 => {
                if n > cores {
                    static WARNED: std::sync::Once = std::sync::Once::new();
                    WARNED.call_once(|| {
                        crate::ui::output::errln!(
                            "warning: --threads {n} is more than the {} of this machine; running anyway, but more threads than cores only slow the work down",
                            crate::ui::plural(cores as u64, "core", "cores")
                        )
                    });
                }
                n
            }
            _ => cores,
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
        anyhow::bail!(
            "`{}` follows the FEN given after `--fen`; give the position once",
            crate::ui::quoted(&fen[1..].join(" "))
        );
    }
    if must_be_fen && !is_fen(&text) {
        anyhow::bail!(
            "`--fen {}` is not a FEN (it has no `/`); give a position in our notation without `--fen`",
            crate::ui::quoted(&text)
        );
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
    /// The rule set named by `--rules` and the custom options; without
    /// `--rules`, the one of the directory's files
    /// ([`RulesArg::rule_set_in`], [`RulesArg::rule_set_in_malom`]).
    ///
    /// # Errors
    /// As those.
    pub fn rule_set(&self) -> anyhow::Result<RuleSet> {
        match self.dir()? {
            TablesDir::Ours(dir) => self.rules.rule_set_in(dir, DirUse::Reads),
            TablesDir::Malom(dir) => self.rules.rule_set_in_malom(dir),
        }
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

    /// `rules_args` gives back, through the command line, the rule set it
    /// was made from: presets and custom rule sets alike.
    #[test]
    fn rules_args_give_the_rule_set_back() {
        let custom = |preset: &str, o: Overrides| RuleSet::custom(preset, &o).unwrap();
        let all = [
            RuleSet::preset("nine").unwrap(),
            RuleSet::preset("lasker").unwrap(),
            custom("six", Overrides { stones: Some(4), flying: Some(Flying::AtThree), ..Default::default() }),
            custom(
                "nine-noflying",
                Overrides {
                    flying: Some(Flying::AtThree),
                    remove_per_mill: Some(true),
                    removal: Some(Removal::Lenient),
                    full_board: Some(FullBoardOutcome::WhiteLoses),
                    lasker: Some(true),
                    ..Default::default()
                },
            ),
            custom("lasker", Overrides { lasker: Some(false), ..Default::default() }),
            custom(
                "six",
                Overrides { flying: Some(Flying::AtFour), removal: Some(Removal::Strict), ..Default::default() },
            ),
            custom("nine", Overrides { flying: Some(Flying::Always), ..Default::default() }),
            custom("six", Overrides { misere: Some(true), ..Default::default() }),
            custom("twelve", Overrides { misere: Some(true), flying: Some(Flying::AtFour), ..Default::default() }),
            custom(
                "nine",
                Overrides { flying: Some(Flying::Never), removal: Some(Removal::Lenient), ..Default::default() },
            ),
        ];
        for rules in all {
            let mut words = vec!["test".to_string()];
            words.extend(rules_args(&rules));
            let back = WithRules::try_parse_from(&words).unwrap().rules.rule_set().unwrap();
            assert_eq!((back.name(), back.fingerprint()), (rules.name(), rules.fingerprint()), "{words:?}");
        }
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
