//! Rule sets as data: a board plus the parameters that vary between
//! traditions (RULES.md, "Presets"), and the fingerprint that every table
//! header carries so that a database of one rule set is never read as another.

use std::sync::Arc;

use crate::board::Board;
use crate::index::Indexer;

/// What happens when the board is full at the end of placement (only
/// possible with 12 stones on the 24-point board).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FullBoardOutcome {
    /// The game is drawn (Malom's Morabaraba).
    Draw,
    /// White, who placed first, loses (Sanmill's default for Twelve Men's Morris).
    WhiteLoses,
}

/// Which board a rule set is played on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoardKind {
    /// The 24-point board (Nine Men's Morris).
    TwentyFour,
    /// The 24-point board with the four diagonal lines.
    TwentyFourDiagonals,
    /// The 16-point board (Six Men's Morris).
    Sixteen,
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
            BoardKind::NinePointDiagonals => Board::nine_point(true),
            BoardKind::NinePoint => Board::nine_point(false),
        }
    }
}

/// The named presets of RULES.md.
pub const PRESETS: [&str; 10] = [
    "nine",
    "nine-noflying",
    "nine-diagonal",
    "twelve",
    "morabaraba",
    "lasker",
    "six",
    "six-flying",
    "three",
    "three-nodiagonal",
];

/// A rule set: a board and the parameters of play.
#[derive(Debug, Clone)]
pub struct RuleSet {
    name: String,
    board_kind: BoardKind,
    board: Arc<Board>,
    indexer: Arc<Indexer>,
    /// Stones each player starts with in hand.
    pub stones: u8,
    /// Whether a player with exactly 3 stones (board plus hand) may fly.
    pub flying: bool,
    /// Whether closing two mills at once removes two stones (else one).
    pub remove_per_mill: bool,
    /// Whether a stone in a mill may always be removed (else only when all
    /// the opponent's stones are in mills).
    pub remove_from_mills_always: bool,
    /// Outcome of a full board at the end of placement.
    pub full_board: FullBoardOutcome,
    /// Lasker rule: a player with stones in hand may move instead of placing.
    pub lasker: bool,
    /// Three Men's Morris: a line of three wins at once, nothing is removed.
    pub line_wins: bool,
}

/// A name given to [`RuleSet::preset`] that is not a preset.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown rule set `{0}`; the presets are: {list}", list = PRESETS.join(", "))]
pub struct UnknownPreset(pub String);

impl RuleSet {
    /// The preset of this name (RULES.md, "Presets").
    ///
    /// # Errors
    /// [`UnknownPreset`] when `name` is not in [`PRESETS`].
    pub fn preset(name: &str) -> Result<RuleSet, UnknownPreset> {
        use BoardKind::*;
        let (kind, stones, flying, full_board, lasker, line_wins) = match name {
            "nine" => (TwentyFour, 9, true, FullBoardOutcome::Draw, false, false),
            "nine-noflying" => (TwentyFour, 9, false, FullBoardOutcome::Draw, false, false),
            "nine-diagonal" => (
                TwentyFourDiagonals,
                9,
                true,
                FullBoardOutcome::Draw,
                false,
                false,
            ),
            "twelve" => (
                TwentyFourDiagonals,
                12,
                true,
                FullBoardOutcome::WhiteLoses,
                false,
                false,
            ),
            "morabaraba" => (
                TwentyFourDiagonals,
                12,
                true,
                FullBoardOutcome::Draw,
                false,
                false,
            ),
            "lasker" => (TwentyFour, 10, true, FullBoardOutcome::Draw, true, false),
            "six" => (Sixteen, 6, false, FullBoardOutcome::Draw, false, false),
            "six-flying" => (Sixteen, 6, true, FullBoardOutcome::Draw, false, false),
            "three" => (
                NinePointDiagonals,
                3,
                false,
                FullBoardOutcome::Draw,
                false,
                true,
            ),
            "three-nodiagonal" => (NinePoint, 3, false, FullBoardOutcome::Draw, false, true),
            _ => return Err(UnknownPreset(name.to_string())),
        };
        let board = Arc::new(kind.build());
        Ok(RuleSet {
            name: name.to_string(),
            board_kind: kind,
            indexer: Arc::new(Indexer::new(board.clone())),
            board,
            stones,
            flying,
            remove_per_mill: false,
            remove_from_mills_always: false,
            full_board,
            lasker,
            line_wins,
        })
    }

    /// The preset name this rule set was made from.
    pub fn name(&self) -> &str {
        &self.name
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

    /// Whether a player with `stones` stones (board plus hand) flies.
    #[inline]
    pub fn flies(&self, stones: u32) -> bool {
        self.flying && stones == 3
    }

    /// Whether the sliding phase (both hands empty) is solved by retrograde
    /// analysis for this rule set. Three Men's Morris (a line wins at once)
    /// and Lasker (which comes with its placement phase) are not yet.
    pub fn sliding_phase_supported(&self) -> bool {
        !self.line_wins && !self.lasker && !self.remove_per_mill && !self.remove_from_mills_always
    }

    /// A canonical text that describes everything that affects a value: the
    /// board's points, adjacency and mills, and every parameter.
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
            self.flying,
            self.remove_per_mill,
            self.remove_from_mills_always,
            self.full_board,
            self.lasker,
            self.line_wins
        ));
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
        let prints: std::collections::HashSet<u64> = PRESETS
            .iter()
            .map(|p| RuleSet::preset(p).unwrap().fingerprint())
            .collect();
        assert_eq!(prints.len(), PRESETS.len());
    }

    #[test]
    fn unknown_preset_names_the_list() {
        let e = RuleSet::preset("ten").unwrap_err().to_string();
        assert!(e.contains("ten") && e.contains("nine"));
    }
}
