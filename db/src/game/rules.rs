//! Rule sets as data: a board plus the parameters that vary between
//! traditions (docs/rules.md, "Presets"), and the fingerprint that every table
//! header carries so that a database of one rule set is never read as another.

use std::sync::{Arc, OnceLock};

use crate::board::{Bitboard, Board};
use crate::index::Indexer;
use crate::value::Value;

/// What happens when the board is full at the end of placement (only
/// possible with 12 stones on the 24-point board).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FullBoardOutcome {
    /// The game is drawn (Malom's Morabaraba).
    Draw,
    /// White, who placed first, loses (Sanmill's default for Twelve Men's Morris).
    WhiteLoses,
}

impl FullBoardOutcome {
    /// The word used on the command line and in descriptions: `draw` or
    /// `white-loses`.
    pub fn word(self) -> &'static str {
        match self {
            FullBoardOutcome::Draw => "draw",
            FullBoardOutcome::WhiteLoses => "white-loses",
        }
    }

    /// Reads [`FullBoardOutcome::word`].
    pub fn from_word(word: &str) -> Option<FullBoardOutcome> {
        match word {
            "draw" => Some(FullBoardOutcome::Draw),
            "white-loses" => Some(FullBoardOutcome::WhiteLoses),
            _ => None,
        }
    }
}

/// When a player may fly: move a stone to any empty point instead of
/// sliding it along a line (docs/rules.md, "Play"). The thresholds count
/// the player's stones on the board plus in hand; the four choices are
/// GamesmanOne's "flying rule" for its mills games (never, with at most 3,
/// with at most 4, always).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flying {
    /// Never: every move slides (`six`, `nine-noflying`).
    Never,
    /// With exactly 3 stones (`nine`; fewer end the game).
    AtThree,
    /// With 3 or 4 stones.
    AtFour,
    /// Always, with any number of stones.
    Always,
}

impl Flying {
    /// Every choice, in the order of [`Flying::word`]'s list.
    pub const ALL: [Flying; 4] = [Flying::Never, Flying::AtThree, Flying::AtFour, Flying::Always];

    /// The word of `--fly-at`: `never`, `3`, `4` or `always`.
    pub fn word(self) -> &'static str {
        match self {
            Flying::Never => "never",
            Flying::AtThree => "3",
            Flying::AtFour => "4",
            Flying::Always => "always",
        }
    }

    /// Reads [`Flying::word`].
    pub fn from_word(word: &str) -> Option<Flying> {
        Flying::ALL.into_iter().find(|f| f.word() == word)
    }

    /// Whether a player with `stones` stones (board plus hand) flies.
    #[inline]
    pub fn flies(self, stones: u32) -> bool {
        match self {
            Flying::Never => false,
            Flying::AtThree => stones == 3,
            Flying::AtFour => stones <= 4,
            Flying::Always => true,
        }
    }
}

/// Which opposing stones a mill may remove (docs/rules.md, "Mills and
/// removal"); the three choices are GamesmanOne's "removal rule".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Removal {
    /// A stone in no mill; a stone in a mill only when every opposing stone
    /// stands in a mill (every preset).
    Standard,
    /// A stone in no mill; when every opposing stone stands in a mill,
    /// nothing is removed (the move stands, without removal).
    Strict,
    /// Any opposing stone, in a mill or not.
    Lenient,
}

impl Removal {
    /// Every choice.
    pub const ALL: [Removal; 3] = [Removal::Standard, Removal::Strict, Removal::Lenient];

    /// The word of `--removal`: `standard`, `strict` or `lenient`.
    pub fn word(self) -> &'static str {
        match self {
            Removal::Standard => "standard",
            Removal::Strict => "strict",
            Removal::Lenient => "lenient",
        }
    }

    /// Reads [`Removal::word`].
    pub fn from_word(word: &str) -> Option<Removal> {
        Removal::ALL.into_iter().find(|r| r.word() == word)
    }
}

/// Which board a rule set is played on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardKind {
    /// The 24-point board (Nine Men's Morris).
    TwentyFour,
    /// The 24-point board with the four diagonal lines.
    TwentyFourDiagonals,
    /// The 16-point board (Six and Five Men's Morris).
    Sixteen,
    /// The 16-point board with a centre point (Seven Men's Morris).
    Seventeen,
    /// The 25-point board of Sesotho Morabaraba.
    Sesotho,
    /// The 3x3 board with diagonals (Three Men's Morris).
    NinePointDiagonals,
    /// The 3x3 board without diagonals.
    NinePoint,
}

impl BoardKind {
    fn build(self) -> Board {
        match self {
            BoardKind::TwentyFour => Board::twenty_four(false),
            BoardKind::TwentyFourDiagonals => Board::twenty_four(true),
            BoardKind::Sixteen => Board::sixteen(),
            BoardKind::Seventeen => Board::seventeen(),
            BoardKind::Sesotho => Board::sesotho(),
            BoardKind::NinePointDiagonals => Board::nine_point(true),
            BoardKind::NinePoint => Board::nine_point(false),
        }
    }

    /// Every board kind (a new one needs a new [`BoardKind::code`] too).
    const ALL: [BoardKind; 7] = [
        BoardKind::TwentyFour,
        BoardKind::TwentyFourDiagonals,
        BoardKind::Sixteen,
        BoardKind::Seventeen,
        BoardKind::Sesotho,
        BoardKind::NinePointDiagonals,
        BoardKind::NinePoint,
    ];

    /// The number that names this board in files (`1..=7`; a compressed
    /// DTM table of encoding 8 stores it, docs/formats.md).
    pub fn code(self) -> u32 {
        match self {
            BoardKind::TwentyFour => 1,
            BoardKind::TwentyFourDiagonals => 2,
            BoardKind::Sixteen => 3,
            BoardKind::Seventeen => 4,
            BoardKind::Sesotho => 5,
            BoardKind::NinePointDiagonals => 6,
            BoardKind::NinePoint => 7,
        }
    }

    /// The board kind whose [`BoardKind::code`] is `code`; `None` for any
    /// other number.
    pub fn from_code(code: u32) -> Option<BoardKind> {
        BoardKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The sector index of this board, one per board kind in the process
    /// (built on first use, its orbit tables built lazily per stone count):
    /// every rule set on the board and every table reader shares it.
    pub fn indexer(self) -> Arc<Indexer> {
        static SHARED: [OnceLock<Arc<Indexer>>; 7] = [const { OnceLock::new() }; 7];
        let i = self.code() as usize - 1;
        SHARED[i].get_or_init(|| Arc::new(Indexer::new(Arc::new(self.build())))).clone()
    }
}

/// The named presets of docs/rules.md.
pub const PRESETS: [&str; 19] = [
    "nine",
    "nine-noflying",
    "nine-diagonal",
    "nine-diagonal-noflying",
    "eleven",
    "eleven-flying",
    "twelve",
    "morabaraba",
    "sesotho",
    "sesotho-flying",
    "lasker",
    "seven",
    "seven-flying",
    "six",
    "six-flying",
    "five",
    "five-flying",
    "three",
    "three-nodiagonal",
];

/// A short form of each preset's name, for the names of custom rule sets
/// (`<short>-<8 hex digits>` must fit the 16 bytes a table header holds).
fn short_name(preset: &str) -> &str {
    match preset {
        "nine-noflying" => "nine-nf",
        "nine-diagonal" => "nine-dg",
        "nine-diagonal-noflying" => "nine-dn",
        "morabaraba" => "mora",
        "six-flying" => "six-fl",
        "five-flying" => "five-fl",
        "seven-flying" => "svn-fl",
        "eleven-flying" => "elvn-fl",
        "sesotho-flying" => "ses-fl",
        "three-nodiagonal" => "three-n",
        other => other,
    }
}

/// The preset whose short form ([`RuleSet::with_overrides`]) is `short`,
/// e.g. `nine-diagonal` for `nine-dg`: the inverse of the short names that
/// custom rule sets are named with.
pub fn preset_of_short_name(short: &str) -> Option<&'static str> {
    PRESETS.iter().copied().find(|p| short_name(p) == short)
}

/// A rule set: a board and the parameters of play.
///
/// Make one with [`RuleSet::preset`] or [`RuleSet::custom`] (a preset with
/// [`Overrides`], checked); change parameters only through
/// [`RuleSet::with_overrides`], which checks and names the result. The
/// parameters are private and read through accessors, so a rule set's name
/// and fingerprint always describe its parameters.
#[derive(Debug, Clone)]
pub struct RuleSet {
    name: String,
    preset: &'static str,
    board_kind: BoardKind,
    board: Arc<Board>,
    indexer: Arc<Indexer>,
    stones: u8,
    flying: Flying,
    remove_per_mill: bool,
    removal: Removal,
    full_board: FullBoardOutcome,
    lasker: bool,
    line_wins: bool,
    misere: bool,
}

/// A name given to [`RuleSet::preset`] that is not a preset.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown rule set `{}`; the presets are: {list}", crate::quoted(.0), list = PRESETS.join(", "))]
pub struct UnknownPreset(pub String);

/// Changes to a preset's parameters that make a custom rule set
/// ([`RuleSet::custom`]); `None` keeps the preset's value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Stones each player starts with.
    pub stones: Option<u8>,
    /// When a player flies.
    pub flying: Option<Flying>,
    /// A move closing several mills removes one stone per mill.
    pub remove_per_mill: Option<bool>,
    /// Which stones a mill removes.
    pub removal: Option<Removal>,
    /// Outcome of a full board.
    pub full_board: Option<FullBoardOutcome>,
    /// The Lasker rule (place or move while stones are in hand).
    pub lasker: Option<bool>,
    /// Misère play: the player who would win loses ([`RuleSet::misere`]).
    pub misere: Option<bool>,
}

impl Overrides {
    /// Whether no parameter is changed.
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }
}

/// A rule set that cannot be made.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RulesError {
    /// The preset does not exist.
    #[error(transparent)]
    UnknownPreset(#[from] UnknownPreset),
    /// The number of stones does not fit the board.
    #[error("rule set `{preset}` with {stones} stones per player: {why}")]
    Stones {
        /// The preset the custom rule set starts from.
        preset: String,
        /// The stones asked for.
        stones: u8,
        /// Why they do not fit.
        why: String,
    },
    /// Options that make no game together.
    #[error("rule set `{preset}` with {flags}: {why}")]
    Combination {
        /// The preset the custom rule set starts from.
        preset: String,
        /// The command-line flags that clash, e.g. `--misere`.
        flags: String,
        /// Why they make no game.
        why: String,
    },
}

/// A sector that cannot exist under a rule set ([`RuleSet::check_sector`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sector {sector} does not exist under rule set `{rules}`: {why}")]
pub struct SectorError {
    /// The sector named.
    pub sector: crate::Sector,
    /// The rule set's name.
    pub rules: String,
    /// Why it cannot exist (stones and board, or stones per player).
    pub why: String,
}

/// What happens when the side to move has no legal move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoMoveOutcome {
    /// The side to move has lost (blocked).
    SideToMoveLoses,
    /// The board is full and the rule set calls it a draw.
    Draw,
    /// The board is full and White, who placed first, has lost.
    WhiteLoses,
}

impl RuleSet {
    /// The preset of this name (docs/rules.md, "Presets").
    ///
    /// # Errors
    /// [`UnknownPreset`] when `name` is not in [`PRESETS`].
    pub fn preset(name: &str) -> Result<RuleSet, UnknownPreset> {
        use BoardKind::*;
        use Flying::{AtThree, Never};
        let Some(&preset) = PRESETS.iter().find(|&&p| p == name) else {
            return Err(UnknownPreset(name.to_string()));
        };
        let (kind, stones, flying, full_board, lasker, line_wins) = match preset {
            "nine" => (TwentyFour, 9, AtThree, FullBoardOutcome::Draw, false, false),
            "nine-noflying" => (TwentyFour, 9, Never, FullBoardOutcome::Draw, false, false),
            "nine-diagonal" => (TwentyFourDiagonals, 9, AtThree, FullBoardOutcome::Draw, false, false),
            "nine-diagonal-noflying" => (TwentyFourDiagonals, 9, Never, FullBoardOutcome::Draw, false, false),
            "twelve" => (TwentyFourDiagonals, 12, AtThree, FullBoardOutcome::WhiteLoses, false, false),
            "morabaraba" => (TwentyFourDiagonals, 12, AtThree, FullBoardOutcome::Draw, false, false),
            "lasker" => (TwentyFour, 10, AtThree, FullBoardOutcome::Draw, true, false),
            "six" => (Sixteen, 6, Never, FullBoardOutcome::Draw, false, false),
            "six-flying" => (Sixteen, 6, AtThree, FullBoardOutcome::Draw, false, false),
            "five" => (Sixteen, 5, Never, FullBoardOutcome::Draw, false, false),
            "five-flying" => (Sixteen, 5, AtThree, FullBoardOutcome::Draw, false, false),
            "seven" => (Seventeen, 7, Never, FullBoardOutcome::Draw, false, false),
            "seven-flying" => (Seventeen, 7, AtThree, FullBoardOutcome::Draw, false, false),
            "eleven" => (TwentyFourDiagonals, 11, Never, FullBoardOutcome::Draw, false, false),
            "eleven-flying" => (TwentyFourDiagonals, 11, AtThree, FullBoardOutcome::Draw, false, false),
            "sesotho" => (Sesotho, 12, Never, FullBoardOutcome::Draw, false, false),
            "sesotho-flying" => (Sesotho, 12, AtThree, FullBoardOutcome::Draw, false, false),
            "three" => (NinePointDiagonals, 3, Never, FullBoardOutcome::Draw, false, true),
            "three-nodiagonal" => (NinePoint, 3, Never, FullBoardOutcome::Draw, false, true),
            _ => return Err(UnknownPreset(name.to_string())),
        };
        let indexer = kind.indexer();
        let board = indexer.shared_board();
        Ok(RuleSet {
            name: preset.to_string(),
            preset,
            board_kind: kind,
            indexer,
            board,
            stones,
            flying,
            remove_per_mill: false,
            removal: Removal::Standard,
            full_board,
            lasker,
            line_wins,
            misere: false,
        })
    }

    /// A custom rule set: the preset `preset` with `overrides` applied (see
    /// [`RuleSet::with_overrides`] for its name).
    ///
    /// # Errors
    /// [`RulesError::UnknownPreset`], [`RulesError::Stones`] when the
    /// stones do not fit the board, or [`RulesError::Combination`] for
    /// options that make no game together.
    pub fn custom(preset: &str, overrides: &Overrides) -> Result<RuleSet, RulesError> {
        RuleSet::preset(preset)?.with_overrides(overrides)
    }

    /// This rule set with `overrides` applied, named after what it is: if
    /// its parameters are those of a preset on the same board, that
    /// preset's name (`nine` with `--stones 10 --lasker` is `lasker`);
    /// otherwise `<preset>-<the first 8 hex digits of its fingerprint>`,
    /// with a shortened preset name (`nine-nf`, `nine-dg`, `nine-dn`, `mora`,
    /// `six-fl`, `five-fl`, `svn-fl`, `elvn-fl`, `ses-fl`, `three-n`), e.g. `nine-3fa2c91b`: at most 16 bytes, the name field
    /// of a table header, and never the name of another rule set's tables.
    ///
    /// # Errors
    /// [`RulesError::Stones`] when the stones are fewer than 3 or more than
    /// half the board's points (a full board must hold every stone);
    /// [`RulesError::Combination`] for misère with a line game (Three
    /// Men's Morris: no source defines a misère line game, and GamesmanOne
    /// offers misère for its mills games only).
    pub fn with_overrides(&self, overrides: &Overrides) -> Result<RuleSet, RulesError> {
        let mut r = self.clone();
        if let Some(n) = overrides.stones {
            let max = r.board.len() / 2;
            if n < 3 || n as usize > max {
                return Err(RulesError::Stones {
                    preset: self.name.clone(),
                    stones: n,
                    why: format!(
                        "a player needs 3 to {max} stones on the {} ({} points)",
                        r.board.name(),
                        r.board.len()
                    ),
                });
            }
            r.stones = n;
        }
        if let Some(v) = overrides.flying {
            r.flying = v;
        }
        if let Some(v) = overrides.remove_per_mill {
            r.remove_per_mill = v;
        }
        if let Some(v) = overrides.removal {
            r.removal = v;
        }
        if let Some(v) = overrides.full_board {
            r.full_board = v;
        }
        if let Some(v) = overrides.lasker {
            r.lasker = v;
        }
        if let Some(v) = overrides.misere {
            r.misere = v;
        }
        if r.misere && r.line_wins {
            return Err(RulesError::Combination {
                preset: self.name.clone(),
                flags: "--misere".to_string(),
                why: format!(
                    "misère play is defined for the mill games (a player reduced to two stones or blocked wins; \
                     GamesmanOne's mills games), not for a game a line of three ends ({}, {})",
                    self.preset,
                    r.board.name()
                ),
            });
        }
        let fingerprint = r.fingerprint();
        let same = PRESETS
            .iter()
            .filter_map(|p| RuleSet::preset(p).ok())
            .find(|p| p.board_kind == r.board_kind && p.fingerprint() == fingerprint);
        match same {
            Some(p) => {
                r.name = p.name;
                r.preset = p.preset;
            }
            None => {
                r.name = format!("{}-{:08x}", short_name(self.preset), (fingerprint >> 32) as u32);
            }
        }
        Ok(r)
    }

    /// The custom rule set made from this preset whose fingerprint begins
    /// with the 32 bits `prefix` (the 8 hex digits of its name,
    /// [`RuleSet::with_overrides`]): found by trying every combination of
    /// parameters the overrides can set (a few hundred fingerprints), so
    /// that a custom rule set can be told from its tables' file names.
    /// `None` when no combination has that prefix.
    pub fn custom_with_prefix(&self, prefix: u32) -> Option<RuleSet> {
        let bools = [false, true];
        let max = (self.board.len() / 2) as u8;
        for stones in 3..=max {
            for flying in Flying::ALL {
                for remove_per_mill in bools {
                    for removal in Removal::ALL {
                        for full_board in [FullBoardOutcome::Draw, FullBoardOutcome::WhiteLoses] {
                            for (lasker, misere) in bools.into_iter().flat_map(|l| bools.map(|m| (l, m))) {
                                let mut r = self.clone();
                                r.stones = stones;
                                r.flying = flying;
                                r.remove_per_mill = remove_per_mill;
                                r.removal = removal;
                                r.full_board = full_board;
                                r.lasker = lasker;
                                r.misere = misere;
                                if (r.fingerprint() >> 32) as u32 != prefix {
                                    continue;
                                }
                                let overrides = Overrides {
                                    stones: Some(stones),
                                    flying: Some(flying),
                                    remove_per_mill: Some(remove_per_mill),
                                    removal: Some(removal),
                                    full_board: Some(full_board),
                                    lasker: Some(lasker),
                                    misere: Some(misere),
                                };
                                if let Ok(found) = self.with_overrides(&overrides) {
                                    return Some(found);
                                }
                            }
                        }
                    }
                }
            }
        }
        None
    }

    /// The rule set's name: a preset's, or for a custom rule set
    /// `<preset>-<8 hex digits>` ([`RuleSet::with_overrides`]). Table files
    /// are named after it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name written into a table header's 16-byte name field: the
    /// name itself, or, for a preset whose name is longer than 16 bytes
    /// (`nine-diagonal-noflying`), its short form (`nine-dn`). The header's
    /// name is a label for messages; a table is matched to its rule set by
    /// the fingerprint.
    pub fn header_name(&self) -> &str {
        if self.name.len() <= 16 {
            &self.name
        } else {
            short_name(self.preset)
        }
    }

    /// The preset this rule set was made from (or equals).
    pub fn preset_name(&self) -> &'static str {
        self.preset
    }

    /// Whether this rule set is a preset (not a custom rule set).
    pub fn is_preset(&self) -> bool {
        self.name == self.preset
    }

    /// Stones each player starts with in hand.
    #[inline]
    pub fn stones(&self) -> u8 {
        self.stones
    }

    /// Whether a player ever flies under this rule set (with some number
    /// of stones; see [`RuleSet::fly_rule`] and [`RuleSet::flies`]).
    #[inline]
    pub fn flying(&self) -> bool {
        self.flying != Flying::Never
    }

    /// When a player flies.
    #[inline]
    pub fn fly_rule(&self) -> Flying {
        self.flying
    }

    /// Whether closing two mills at once removes two stones (else one).
    #[inline]
    pub fn remove_per_mill(&self) -> bool {
        self.remove_per_mill
    }

    /// Which opposing stones a mill removes.
    #[inline]
    pub fn removal(&self) -> Removal {
        self.removal
    }

    /// Outcome of a full board at the end of placement.
    #[inline]
    pub fn full_board(&self) -> FullBoardOutcome {
        self.full_board
    }

    /// Lasker rule: a player with stones in hand may move instead of placing.
    #[inline]
    pub fn lasker(&self) -> bool {
        self.lasker
    }

    /// Three Men's Morris: a line of three wins at once, nothing is removed.
    #[inline]
    pub fn line_wins(&self) -> bool {
        self.line_wins
    }

    /// Misère play: the player who would win loses (GamesmanOne's mills
    /// games, branch `rs/mills`, `mills.c`: its "Misere" option turns each
    /// primitive loss into a win). A player reduced below 3 stones wins,
    /// and so does a player without a legal move; a full board that would
    /// lose for White wins for White; a full board that is a draw stays
    /// one. See [`RuleSet::decided_value`] for how such a win is stored.
    #[inline]
    pub fn misere(&self) -> bool {
        self.misere
    }

    /// The value, for the side to move, of a position in which the game
    /// has ended and in which the side to move would have lost under
    /// normal play (it is down to two stones, or blocked, or White on a
    /// full board under [`FullBoardOutcome::WhiteLoses`]): `Loss(0)`
    /// ([`Value::LOST`]); under misère `Win(1)` ([`Value::LOST`]'s
    /// [`Value::back`]). A misère win at the end of the game is stored as
    /// one ply, not zero, so that a win's distance stays odd and a loss's
    /// even as every table stores them: under misère a distance `n` means
    /// the game ends after `n - 1` plies (docs/rules.md, "Values").
    #[inline]
    pub fn decided_value(&self) -> Value {
        if self.misere {
            Value::LOST.back()
        } else {
            Value::LOST
        }
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board as a shared handle.
    pub fn board_arc(&self) -> &Arc<Board> {
        &self.board
    }

    /// Which board this is.
    pub fn board_kind(&self) -> BoardKind {
        self.board_kind
    }

    /// The symmetry-reduced index of this rule set's board (shared, lazily
    /// built per stone count).
    pub fn indexer(&self) -> &Indexer {
        &self.indexer
    }

    /// Whether sector `s` can exist under this rule set: its stones fit on
    /// the board and no player has more than the rule set's stones. Sectors
    /// named by users or by file names are checked with it before indexing.
    pub fn sector_fits(&self, s: crate::Sector) -> bool {
        self.check_sector(s).is_ok()
    }

    /// Checks that sector `s` can exist under this rule set ([`RuleSet::sector_fits`]),
    /// saying why not.
    ///
    /// # Errors
    /// [`SectorError`] naming the sector, the rule set and the board when the
    /// stones do not fit on the board or a player has more stones than the
    /// rule set gives.
    pub fn check_sector(&self, s: crate::Sector) -> Result<(), SectorError> {
        let why = if s.w as usize + s.b as usize > self.board.len() {
            format!("{} + {} stones do not fit on the {}", s.w, s.b, self.board.name())
        } else if s.w as u32 + s.wh as u32 > self.stones as u32 || s.b as u32 + s.bh as u32 > self.stones as u32 {
            let most = (s.w as u32 + s.wh as u32).max(s.b as u32 + s.bh as u32);
            format!("a player would have {most} stones, but it gives each {}", self.stones)
        } else {
            return Ok(());
        };
        Err(SectorError { sector: s, rules: self.name.clone(), why })
    }

    /// The index of sector `s`: the one checked way from a sector named by a
    /// user or a file name to its index (the [`Indexer::sector`] it calls
    /// panics on a sector that does not fit).
    ///
    /// # Errors
    /// [`SectorError`] as [`RuleSet::check_sector`].
    pub fn sector_index(&self, s: crate::Sector) -> Result<crate::SectorIndex, SectorError> {
        self.check_sector(s)?;
        Ok(self.indexer.sector(s))
    }

    /// Whether positions of sector `s` can arise in a game played from the
    /// start, as far as the opponent's stones on the board tell.
    ///
    /// The opponent of the side to move (`b` on the board) made the last
    /// move, and a move never removes the mover's own stones: the stone it
    /// placed, slid or flew stays on the board. So `b = 0` occurs only
    /// before the first move, in the start sector `0-0-N-N`; every other
    /// sector with `b = 0` holds no reachable position, under every rule
    /// set (the Lasker rule included). For Nine Men's Morris these are 48 of
    /// the 497 placement sectors with `wh + bh > 0` (from `0-0-3-3` and
    /// `3-0-3-3` to `0-0-8-8` and `0-0-9-8`, 22,481 canonical positions);
    /// Malom's standard database leaves out the same 48 (449 placement
    /// sectors). No move leads into them either, so no other table needs
    /// them: the solver skips them and the probe calls their positions
    /// unreachable.
    pub fn sector_occurs(&self, s: crate::Sector) -> bool {
        s.b > 0 || (s.w == 0 && s.wh == self.stones && s.bh == self.stones)
    }

    /// The sectors a move from `sector` can lead to where the side to move
    /// there still has 3 stones (a move that leaves it fewer has ended the
    /// game: no table holds it): a placement (when the side to move has a
    /// stone in hand) or a move on the board (when it has none, or under
    /// the Lasker rule), removing 0 or 1 of the opponent's stones (up to 3
    /// under [`RuleSet::remove_per_mill`]: a move closes at most the lines
    /// through one point), within the board. Each once, in that order; some
    /// may hold no position.
    pub fn successor_sectors(&self, sector: crate::Sector) -> Vec<crate::Sector> {
        let mut out = Vec::new();
        let placements = [(sector.wh > 0).then_some(1u8), (sector.wh == 0 || self.lasker).then_some(0u8)];
        let most = if self.remove_per_mill { 3 } else { 1 };
        for placed in placements.into_iter().flatten() {
            for removed in 0..=most {
                let Some(child) = sector.after_move(placed, removed) else { continue };
                let fits = usize::from(child.w) + usize::from(child.b) <= self.board.len();
                if u32::from(child.w) + u32::from(child.wh) >= 3 && fits && !out.contains(&child) {
                    out.push(child);
                }
            }
        }
        out
    }

    /// Whether a player with `stones` stones (board plus hand) flies
    /// ([`Flying::flies`]).
    #[inline]
    pub fn flies(&self, stones: u32) -> bool {
        self.flying.flies(stones)
    }

    /// Whether the sliding phase (both hands empty) is solved by retrograde
    /// analysis for this rule set. Not yet: Lasker (which comes with its
    /// placement phase), and one removal per mill (a flight closing two
    /// mills captures into a sector two stones down, which the solver does
    /// not open).
    pub fn sliding_phase_supported(&self) -> bool {
        !self.lasker && !self.remove_per_mill
    }

    /// What it means that the side to move, with stones `us` against
    /// `them`, has no legal move: a loss, unless the board is full, when the
    /// rule set's [`FullBoardOutcome`] decides.
    #[inline]
    pub fn no_move_outcome(&self, us: Bitboard, them: Bitboard) -> NoMoveOutcome {
        if us | them == self.board.all() {
            match self.full_board {
                FullBoardOutcome::Draw => NoMoveOutcome::Draw,
                FullBoardOutcome::WhiteLoses => NoMoveOutcome::WhiteLoses,
            }
        } else {
            NoMoveOutcome::SideToMoveLoses
        }
    }

    /// The value for the side to move of a sliding-phase position without
    /// a legal move, relative to the side to move as tables store it:
    /// [`RuleSet::decided_value`] (`Loss(0)`; under misère `Win(1)`), or
    /// `Draw` on a full board under [`FullBoardOutcome::Draw`]. (A full
    /// board under [`FullBoardOutcome::WhiteLoses`] is decided against the
    /// side to move: without the Lasker rule the board fills on Black's
    /// last placement, so White is to move.)
    #[inline]
    pub fn no_move_value(&self, us: Bitboard, them: Bitboard) -> Value {
        match self.no_move_outcome(us, them) {
            NoMoveOutcome::Draw => Value::Draw,
            _ => self.decided_value(),
        }
    }

    /// Whether the stones `set` stand on a complete line (a mill); with
    /// [`RuleSet::line_wins`], their owner has won.
    #[inline]
    pub fn has_line(&self, set: Bitboard) -> bool {
        self.board.mills().iter().any(|&m| m & !set == 0)
    }

    /// The parameters in words, e.g. `24-point board, 9 stones, flying, a
    /// double mill removes one stone, ...`.
    pub fn summary(&self) -> String {
        let mut parts = vec![
            self.board.name().to_string(),
            format!("{} stones", self.stones),
            match self.flying {
                Flying::Never => "no flying",
                Flying::AtThree => "flying with 3 stones",
                Flying::AtFour => "flying with 3 or 4 stones",
                Flying::Always => "flying always",
            }
            .to_string(),
        ];
        if self.line_wins {
            parts.push("a line of three wins".to_string());
        } else {
            parts.push(
                if self.remove_per_mill { "one removal per mill closed" } else { "one removal per move" }.to_string(),
            );
            parts.push(
                match self.removal {
                    Removal::Standard => "stones in mills only when all are",
                    Removal::Strict => "stones in mills never (nothing when all are)",
                    Removal::Lenient => "stones in mills may always be removed",
                }
                .to_string(),
            );
        }
        if 2 * self.stones as usize >= self.board.len() {
            parts.push(format!("full board: {}", self.full_board.word()));
        }
        if self.lasker {
            parts.push("Lasker: place or move while stones in hand".to_string());
        }
        if self.misere {
            parts.push("misère: the player who would win loses".to_string());
        }
        parts.join(", ")
    }

    /// A canonical text that describes everything that affects a value: the
    /// board's points, adjacency and mills, and every parameter. The rule
    /// options added after the first tables were written (flying with 4
    /// stones or always, strict removal, misère) are appended only when chosen, so
    /// that every rule set that existed before them keeps its text and its
    /// fingerprint, and its tables still open.
    pub fn description(&self) -> String {
        let b = &self.board;
        let mut s = String::from("morris-rules-v1;points=");
        s.push_str(&b.point_names().join(","));
        s.push_str(";adjacency=");
        for p in 0..b.len() {
            s.push_str(&format!("{:x},", b.adjacent(p as u8)));
        }
        s.push_str(";mills=");
        for m in b.mills() {
            s.push_str(&format!("{m:x},"));
        }
        s.push_str(&format!(
            ";stones={};flying={};remove_per_mill={};remove_from_mills_always={};full_board={:?};lasker={};line_wins={}",
            self.stones,
            self.flying != Flying::Never,
            self.remove_per_mill,
            self.removal == Removal::Lenient,
            self.full_board,
            self.lasker,
            self.line_wins
        ));
        if matches!(self.flying, Flying::AtFour | Flying::Always) {
            s.push_str(&format!(";fly_at={}", self.flying.word()));
        }
        if self.removal == Removal::Strict {
            s.push_str(";removal=strict");
        }
        if self.misere {
            s.push_str(";misere=true");
        }
        s
    }

    /// The rule-set fingerprint stored in every table header: XXH3-64 of
    /// [`RuleSet::description`].
    pub fn fingerprint(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(self.description().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_have_distinct_fingerprints() {
        let prints: std::collections::HashSet<u64> =
            PRESETS.iter().map(|p| RuleSet::preset(p).unwrap().fingerprint()).collect();
        assert_eq!(prints.len(), PRESETS.len());
    }

    /// The fingerprints of the presets that existed before the rule
    /// options of flying with 4 or always and strict removal, read from
    /// the headers of tables solved by the binary before those options
    /// (`morris solve --sectors 3-3`, header bytes 16..24): a regression
    /// check that those tables still open.
    #[test]
    fn old_presets_keep_their_fingerprints() {
        for (preset, print) in [
            ("nine", 0xad0cb875ca081a22),
            ("nine-noflying", 0x7ab14b07cca72a3d),
            ("nine-diagonal", 0xdbefc11b3b070c0f),
            ("nine-diagonal-noflying", 0x9a6d423666948489),
            ("twelve", 0x99f91cec06237746),
            ("morabaraba", 0xaff659d0aeb4cc6e),
            ("lasker", 0xd0301452c2bbb48f),
            ("six", 0x90c296e76c39c63b),
            ("six-flying", 0x0e72c2d17216c429),
            ("three", 0x830bd91d4166e8a6),
            ("three-nodiagonal", 0xd143102af75c1c20u64),
        ] {
            assert_eq!(RuleSet::preset(preset).unwrap().fingerprint(), print, "{preset}");
        }
    }

    /// Every new rule option makes a rule set of its own, named after its
    /// preset and fingerprint, and found again from that name.
    #[test]
    fn each_rule_option_changes_the_fingerprint() {
        let six = RuleSet::preset("six").unwrap();
        let mut prints = vec![six.fingerprint()];
        for o in [
            Overrides { flying: Some(Flying::AtThree), ..Default::default() },
            Overrides { flying: Some(Flying::AtFour), ..Default::default() },
            Overrides { flying: Some(Flying::Always), ..Default::default() },
            Overrides { removal: Some(Removal::Strict), ..Default::default() },
            Overrides { removal: Some(Removal::Lenient), ..Default::default() },
            Overrides { flying: Some(Flying::AtFour), removal: Some(Removal::Strict), ..Default::default() },
            Overrides { misere: Some(true), ..Default::default() },
            Overrides { flying: Some(Flying::AtThree), misere: Some(true), ..Default::default() },
        ] {
            let r = six.with_overrides(&o).unwrap();
            prints.push(r.fingerprint());
            if r.is_preset() {
                assert_eq!(r.name(), "six-flying");
                continue;
            }
            let prefix = u32::from_str_radix(r.name().rsplit_once('-').unwrap().1, 16).unwrap();
            let found = six.custom_with_prefix(prefix).unwrap();
            assert_eq!(
                (found.fly_rule(), found.removal(), found.misere()),
                (r.fly_rule(), r.removal(), r.misere()),
                "{}",
                r.name()
            );
        }
        let n = prints.len();
        prints.sort_unstable();
        prints.dedup();
        assert_eq!(prints.len(), n);
    }

    /// The thresholds of docs/rules.md: who flies with how many stones.
    #[test]
    fn fly_thresholds() {
        let flies = |f: Flying| (3..=9).filter(|&n| f.flies(n)).collect::<Vec<u32>>();
        assert_eq!(flies(Flying::Never), Vec::<u32>::new());
        assert_eq!(flies(Flying::AtThree), vec![3]);
        assert_eq!(flies(Flying::AtFour), vec![3, 4]);
        assert_eq!(flies(Flying::Always), (3..=9).collect::<Vec<u32>>());
        for f in Flying::ALL {
            assert_eq!(Flying::from_word(f.word()), Some(f));
        }
        for r in Removal::ALL {
            assert_eq!(Removal::from_word(r.word()), Some(r));
        }
    }

    /// The new presets are the rule sets their boards and stones make from
    /// the old ones: `six` with 5 stones is `five`, the diagonal board with
    /// 11 stones is `eleven(-flying)`.
    #[test]
    fn new_presets_are_found_from_overrides() {
        let five = RuleSet::custom("six", &Overrides { stones: Some(5), ..Default::default() }).unwrap();
        assert_eq!(five.name(), "five");
        let eleven =
            RuleSet::custom("nine-diagonal-noflying", &Overrides { stones: Some(11), ..Default::default() }).unwrap();
        assert_eq!(eleven.name(), "eleven");
        let eleven_fl =
            RuleSet::custom("nine-diagonal", &Overrides { stones: Some(11), ..Default::default() }).unwrap();
        assert_eq!(eleven_fl.name(), "eleven-flying");
        let seven = RuleSet::preset("seven").unwrap();
        assert_eq!((seven.board().len(), seven.board().mills().len(), seven.stones()), (17, 14, 7));
    }

    #[test]
    fn unknown_preset_names_the_list() {
        let e = RuleSet::preset("ten").unwrap_err().to_string();
        assert!(e.contains("ten") && e.contains("nine"));
    }

    #[test]
    fn a_custom_rule_set_is_found_from_its_name() {
        let o = Overrides { stones: Some(4), flying: Some(Flying::AtThree), ..Default::default() };
        let custom = RuleSet::custom("six", &o).unwrap();
        let prefix = u32::from_str_radix(custom.name().rsplit_once('-').unwrap().1, 16).unwrap();
        let found = RuleSet::preset("six").unwrap().custom_with_prefix(prefix).unwrap();
        assert_eq!(found.name(), custom.name());
        assert_eq!(found.fingerprint(), custom.fingerprint());
        assert!(RuleSet::preset("nine").unwrap().custom_with_prefix(prefix).is_none());
    }

    #[test]
    fn custom_names_fit_a_table_header_and_differ_from_presets() {
        let all = Overrides {
            stones: Some(4),
            flying: Some(Flying::AtThree),
            remove_per_mill: Some(true),
            removal: Some(Removal::Lenient),
            full_board: Some(FullBoardOutcome::WhiteLoses),
            lasker: Some(true),
            misere: None,
        };
        for p in PRESETS {
            let r = RuleSet::custom(p, &all).unwrap();
            assert!(r.name().len() <= 16, "{}", r.name());
            assert!(!PRESETS.contains(&r.name()), "{}", r.name());
            assert!(!r.is_preset());
            assert_eq!(r.preset_name(), p);
            assert_ne!(r.fingerprint(), RuleSet::preset(p).unwrap().fingerprint());
        }
    }

    #[test]
    fn overrides_that_change_nothing_keep_the_preset() {
        let r = RuleSet::custom(
            "nine",
            &Overrides { flying: Some(Flying::AtThree), stones: Some(9), ..Overrides::default() },
        )
        .unwrap();
        assert_eq!(r.name(), "nine");
        assert!(r.is_preset());
        let l = RuleSet::custom("nine", &Overrides { stones: Some(10), lasker: Some(true), ..Overrides::default() })
            .unwrap();
        assert_eq!(l.name(), "lasker");
        assert_eq!(l.preset_name(), "lasker");
        let nf = RuleSet::custom("nine", &Overrides { flying: Some(Flying::Never), ..Overrides::default() }).unwrap();
        assert_eq!(nf.name(), "nine-noflying");
        let dn = RuleSet::custom("nine-diagonal", &Overrides { flying: Some(Flying::Never), ..Overrides::default() })
            .unwrap();
        assert_eq!(dn.name(), "nine-diagonal-noflying");
        assert_eq!(dn.header_name(), "nine-dn");
    }

    /// Misère changes who wins a decided game, nothing else: `Loss(0)`
    /// becomes `Win(1)` (docs/rules.md, "Values"), a drawn full board stays
    /// a draw; and misère with Three Men's Morris is refused, naming the
    /// flag.
    #[test]
    fn misere_turns_decided_losses_into_wins() {
        let six = RuleSet::preset("six").unwrap();
        let misere = six.with_overrides(&Overrides { misere: Some(true), ..Default::default() }).unwrap();
        assert_eq!(six.decided_value(), Value::LOST);
        assert_eq!(misere.decided_value(), Value::win(1).unwrap());
        let b = misere.board();
        let point = |n: &str| 1 << b.point(n).unwrap();
        // Asked only of positions without a legal move: the board decides.
        assert_eq!(misere.no_move_value(point("b6"), point("d6")), Value::win(1).unwrap());
        assert_eq!(six.no_move_value(point("b6"), point("d6")), Value::LOST);
        let full = b.all();
        assert_eq!(misere.no_move_value(full & !point("b6"), point("b6")), Value::Draw);
        let twelve = RuleSet::preset("twelve").unwrap();
        let twelve_m = twelve.with_overrides(&Overrides { misere: Some(true), ..Default::default() }).unwrap();
        let all = twelve.board().all();
        assert_eq!(twelve.no_move_value(all & 0xfff, all & !0xfff), Value::LOST);
        assert_eq!(twelve_m.no_move_value(all & 0xfff, all & !0xfff), Value::win(1).unwrap());
        assert!(misere.name().starts_with("six-") && misere.name() != "six", "{}", misere.name());
        assert!(misere.summary().contains("misère"));
        let e = RuleSet::custom("three", &Overrides { misere: Some(true), ..Default::default() }).unwrap_err();
        assert!(matches!(e, RulesError::Combination { .. }));
        assert!(e.to_string().contains("--misere") && e.to_string().contains("three"), "{e}");
    }

    #[test]
    fn stones_must_fit_the_board() {
        for (p, bad) in [("nine", 13), ("six", 9), ("three", 5), ("nine", 2)] {
            let e = RuleSet::custom(p, &Overrides { stones: Some(bad), ..Overrides::default() }).unwrap_err();
            assert!(matches!(e, RulesError::Stones { .. }), "{p} {bad}: {e}");
        }
    }

    /// The board codes that compressed tables store are those
    /// docs/formats.md lists; every code names one board, and no other
    /// number names any.
    #[test]
    fn board_codes_are_the_documented_ones() {
        let documented = [
            (1, BoardKind::TwentyFour),
            (2, BoardKind::TwentyFourDiagonals),
            (3, BoardKind::Sixteen),
            (4, BoardKind::Seventeen),
            (5, BoardKind::Sesotho),
            (6, BoardKind::NinePointDiagonals),
            (7, BoardKind::NinePoint),
        ];
        for (code, kind) in documented {
            assert_eq!(kind.code(), code);
            assert_eq!(BoardKind::from_code(code), Some(kind));
        }
        assert_eq!(BoardKind::from_code(0), None);
        assert_eq!(BoardKind::from_code(8), None);
        assert_eq!(RuleSet::preset("six").unwrap().board_kind().code(), 3);
        // Rule sets on one board share one index.
        let (a, b) = (RuleSet::preset("nine").unwrap(), RuleSet::preset("nine-noflying").unwrap());
        assert!(std::ptr::eq(a.indexer(), b.indexer()));
    }
}
