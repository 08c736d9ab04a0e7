//! Positions: the stones of each colour, the side to move and the stones in
//! hand, with the text format of docs/rules.md ("Notation"):
//! `W:<points> B:<points> <w|b> [<White in hand> <Black in hand>]`.
//!
//! Two types, as shakmaty's `Setup` and `Position`: a [`Setup`] is raw input
//! (parsed text or FEN, or an edit), anything goes; [`Setup::validate`]
//! checks it against a rule set once and gives a [`Position`], whose fields
//! are private so that it stays what the rule set allows.

use std::fmt;

use crate::board::{Bitboard, Board, Points};
use crate::rules::RuleSet;
use crate::sector::Sector;

/// A player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// White, who moves first.
    White,
    /// Black.
    Black,
}

impl Color {
    /// The other player.
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::White => "White",
            Color::Black => "Black",
        })
    }
}

/// What is wrong with a position given as text or built by hand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text does not follow the format.
    #[error("malformed position `{}`: {why}; expected `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`, e.g. `{example}`", crate::quoted(.text))]
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong with it.
        why: String,
        /// A position on the board the text was read for
        /// ([`position_example`]).
        example: String,
    },
    /// A point name the board does not have.
    #[error("unknown point `{}` on the {board}", crate::quoted(.point))]
    UnknownPoint {
        /// The name given.
        point: String,
        /// The board's description.
        board: &'static str,
    },
    /// A point holds stones of both colours.
    #[error("point {0} holds both a White and a Black stone")]
    Overlap(String),
    /// A point is listed twice for one colour.
    #[error("point {0} is listed twice")]
    Duplicate(String),
    /// A player has more stones than the rule set gives.
    #[error(
        "{color} has {on_board} stones on the board and {in_hand} in hand, more than the {max} of rule set `{rules}`"
    )]
    TooManyStones {
        /// The player.
        color: Color,
        /// Stones on the board.
        on_board: u32,
        /// Stones in hand.
        in_hand: u8,
        /// Stones per player in the rule set.
        max: u8,
        /// The rule set's name.
        rules: String,
    },
    /// Stones in hand that no game reaches with this side to move: outside
    /// Lasker Morris placements alternate, White first, so with White to
    /// move both hands are equal, and with Black to move Black holds one
    /// stone more than White.
    #[error("{why}; outside Lasker Morris placements alternate, White first, so with White to move both hands are equal and with Black to move Black holds one stone more (in hand here: White {white_in_hand}, Black {black_in_hand}; rule set `{rules}`)")]
    ImpossibleHands {
        /// White's stones in hand.
        white_in_hand: u8,
        /// Black's stones in hand.
        black_in_hand: u8,
        /// What is wrong, in words.
        why: String,
        /// The rule set's name.
        rules: String,
    },
}

/// A position as given, not yet checked: what [`Setup::parse`] and
/// [`Setup::from_fen`] produce and what code that edits a position works
/// on. Any values are allowed: stones outside the board, on both colours at
/// once, more than a rule set gives, hands no game reaches.
/// [`Setup::validate`] is the one step from a `Setup` to a [`Position`].
///
/// Bitboards are over the board's points (bit `p` is point `p` of
/// [`Board::point_name`]); stones in hand are counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Setup {
    /// White's stones on the board.
    pub white: Bitboard,
    /// Black's stones on the board.
    pub black: Bitboard,
    /// The player to move.
    pub side_to_move: Color,
    /// White's stones in hand.
    pub white_in_hand: u8,
    /// Black's stones in hand.
    pub black_in_hand: u8,
}

/// A position that a rule set allows: built by [`Setup::validate`] (or by
/// one of the trusted constructors below, whose callers vouch for the same
/// facts), so code that holds one does not check it again.
///
/// Guarantees, for the rule set `R` that validated it: the bitboards
/// (over the board's points) hold only points of `R`'s board and no point
/// of both colours; each player's stones on the board plus in hand are at
/// most `R`'s stones (so stones in hand are `0..=stones`); and, outside the
/// Lasker rule, the hands are ones a game reaches with this side to move
/// (see [`Setup::validate`]). It does not record `R`: a position is used
/// with the rule set it was made for (the table front-ends refuse one whose
/// points are off their board, and one whose sector their rule set lacks).
///
/// Read it through the accessors; to edit one, take its [`Setup`]
/// ([`Position::to_setup`]), change that and validate it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    white: Bitboard,
    black: Bitboard,
    side_to_move: Color,
    white_in_hand: u8,
    black_in_hand: u8,
}

impl Setup {
    /// A setup from the side to move's point of view: `us` are the stones
    /// of `side_to_move`, `them` the opponent's.
    pub fn from_relative(us: Bitboard, them: Bitboard, side_to_move: Color, us_in_hand: u8, them_in_hand: u8) -> Setup {
        match side_to_move {
            Color::White => {
                Setup { white: us, black: them, side_to_move, white_in_hand: us_in_hand, black_in_hand: them_in_hand }
            }
            Color::Black => {
                Setup { white: them, black: us, side_to_move, white_in_hand: them_in_hand, black_in_hand: us_in_hand }
            }
        }
    }

    /// Parses the text format, checking point names against `board`.
    ///
    /// # Errors
    /// [`PositionError::Syntax`] for text not in the format,
    /// [`PositionError::UnknownPoint`], [`PositionError::Duplicate`] and
    /// [`PositionError::Overlap`] for bad point lists. Stone counts are
    /// checked by [`Setup::validate`].
    pub fn parse(text: &str, board: &Board) -> Result<Setup, PositionError> {
        let syntax = |why: &str| PositionError::Syntax {
            text: text.to_string(),
            why: why.to_string(),
            example: position_example(board),
        };
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let (mut white, mut black, mut side) = (None, None, None);
        let mut hands = Vec::new();
        for tok in &tokens {
            if let Some(list) = tok.strip_prefix("W:").or_else(|| tok.strip_prefix("w:")) {
                if white.is_some() {
                    return Err(syntax("White's stones are given twice"));
                }
                white = Some(parse_points(list, board)?);
            } else if let Some(list) = tok.strip_prefix("B:").or_else(|| tok.strip_prefix("b:")) {
                if black.is_some() {
                    return Err(syntax("Black's stones are given twice"));
                }
                black = Some(parse_points(list, board)?);
            } else if *tok == "w" || *tok == "b" {
                if side.is_some() {
                    return Err(syntax("the side to move is given twice"));
                }
                if white.is_none() || black.is_none() {
                    return Err(syntax("the side to move must follow `W:...` and `B:...`"));
                }
                side = Some(if *tok == "w" { Color::White } else { Color::Black });
            } else if let Ok(n) = tok.parse::<u8>() {
                if side.is_none() {
                    return Err(syntax("stones in hand must follow the side to move"));
                }
                hands.push(n);
            } else {
                if tok.len() == text.trim().len() {
                    return Err(syntax("it is not in this notation"));
                }
                return Err(syntax(&format!("unexpected `{}`", crate::quoted_part(tok))));
            }
        }
        let white = white.ok_or_else(|| syntax("White's stones `W:...` are missing"))?;
        let black = black.ok_or_else(|| syntax("Black's stones `B:...` are missing"))?;
        let side = side.ok_or_else(|| syntax("the side to move (`w` or `b`) is missing"))?;
        let (white_in_hand, black_in_hand) = match hands.as_slice() {
            [] => (0, 0),
            [w, b] => (*w, *b),
            _ => return Err(syntax("give both stones in hand (White's, then Black's) or neither")),
        };
        if let Some(p) = Points(white & black).next() {
            return Err(PositionError::Overlap(board.point_name(p).to_string()));
        }
        Ok(Setup { white, black, side_to_move: side, white_in_hand, black_in_hand })
    }

    /// Checks the position against a rule set: each player's stones on the
    /// board plus in hand are at most the rule set's stones, no point holds
    /// two stones, and (outside the Lasker rule) the stones in hand are ones
    /// a game reaches with this side to move (docs/rules.md, "Play": White places
    /// first and placements alternate, so with White to move both hands are
    /// equal, with Black to move Black's holds one more; once both are empty
    /// either side may be to move).
    ///
    /// This is the one checked step from raw input to a [`Position`].
    ///
    /// # Errors
    /// [`PositionError::TooManyStones`] (also for a stone off the board),
    /// [`PositionError::Overlap`] or [`PositionError::ImpossibleHands`].
    pub fn validate(self, rules: &RuleSet) -> Result<Position, PositionError> {
        if let Some(p) = Points(self.white & self.black).next() {
            return Err(PositionError::Overlap(rules.board().point_name(p).to_string()));
        }
        for (color, stones, hand) in
            [(Color::White, self.white, self.white_in_hand), (Color::Black, self.black, self.black_in_hand)]
        {
            let on_board = stones.count_ones();
            if stones & !rules.board().all() != 0 || on_board + hand as u32 > rules.stones() as u32 {
                return Err(PositionError::TooManyStones {
                    color,
                    on_board,
                    in_hand: hand,
                    max: rules.stones(),
                    rules: rules.name().to_string(),
                });
            }
        }
        let (wh, bh) = (self.white_in_hand, self.black_in_hand);
        if !rules.lasker() && (wh, bh) != (0, 0) {
            let fine = match self.side_to_move {
                Color::White => wh == bh,
                Color::Black => bh == wh.wrapping_add(1),
            };
            let why = (!fine).then(|| {
                let (pw, pb) = (rules.stones().saturating_sub(wh), rules.stones().saturating_sub(bh));
                format!(
                    "White has placed {pw} stone{} and Black {pb}, yet it is {}'s turn",
                    if pw == 1 { "" } else { "s" },
                    self.side_to_move
                )
            });
            if let Some(why) = why {
                return Err(PositionError::ImpossibleHands {
                    white_in_hand: wh,
                    black_in_hand: bh,
                    why,
                    rules: rules.name().to_string(),
                });
            }
        }
        Ok(Position::trusted(self))
    }

    /// The text form, points in the board's name order (a1, a4, a7, b2, ...),
    /// hands omitted when both are empty. Every stone must be a point of
    /// `board` (as [`Setup::parse`] and a [`Position`] give them).
    pub fn to_text(&self, board: &Board) -> String {
        let list = |set: Bitboard| {
            let mut names: Vec<&str> = Points(set).map(|p| board.point_name(p)).collect();
            names.sort_unstable();
            names.join(",")
        };
        let side = match self.side_to_move {
            Color::White => "w",
            Color::Black => "b",
        };
        let mut s = format!("W:{} B:{} {side}", list(self.white), list(self.black));
        if self.white_in_hand != 0 || self.black_in_hand != 0 {
            s.push_str(&format!(" {} {}", self.white_in_hand, self.black_in_hand));
        }
        s
    }

    /// An ASCII drawing of the position on the 24- or 16-point board
    /// (`O` White, `@` Black, `.` empty), with the side to move and hands;
    /// a stone off `board` is not drawn.
    pub fn diagram(&self, board: &Board) -> String {
        let mut out = String::new();
        let names = board.point_names();
        let files: Vec<char> = "abcdefg".chars().collect();
        let ranks: Vec<usize> = names.iter().filter_map(|n| n[1..].parse::<usize>().ok()).collect();
        let (min_rank, max_rank) = (ranks.iter().copied().min().unwrap_or(1), ranks.iter().copied().max().unwrap_or(0));
        let min_file = names.iter().filter_map(|n| n.chars().next()).min().unwrap_or('a');
        let max_file = names.iter().filter_map(|n| n.chars().next()).max().unwrap_or('a');
        let files: Vec<char> = files.into_iter().filter(|&f| (min_file..=max_file).contains(&f)).collect();
        for rank in (min_rank..=max_rank).rev() {
            out.push_str(&format!("{rank} "));
            for &f in &files {
                let name = format!("{f}{rank}");
                let c = match board.point(&name) {
                    Some(p) if self.white & (1 << p) != 0 => 'O',
                    Some(p) if self.black & (1 << p) != 0 => '@',
                    Some(_) => '.',
                    None => ' ',
                };
                out.push(c);
                out.push(' ');
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
        }
        out.push_str("  ");
        for &f in &files {
            out.push(f);
            out.push(' ');
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
        out.push_str(&format!(
            "{} to move; in hand: White {}, Black {}\n",
            self.side_to_move, self.white_in_hand, self.black_in_hand
        ));
        out
    }
}

impl Position {
    /// A position the caller vouches for (see [`Position`]'s guarantees):
    /// inside morris-db, a start position, a child made by move generation,
    /// or a setup already checked.
    pub(crate) fn trusted(setup: Setup) -> Position {
        let Setup { white, black, side_to_move, white_in_hand, black_in_hand } = setup;
        Position { white, black, side_to_move, white_in_hand, black_in_hand }
    }

    /// The position of a slot of a sector's table: `us` (the side to move's
    /// stones) and `them` as decoded from the sector's index
    /// ([`crate::SectorIndex`], or the enumeration of a table's slots), the
    /// hands the sector's (`sector.wh` for the side to move, `sector.bh` for
    /// the opponent). Not checked: for code that walks a table (verifiers,
    /// the prover's leaves, the longest-win search, Malom's files), where
    /// validating every slot would cost more than the walk.
    ///
    /// Contract: `sector` is one the rule set the position is used with
    /// has ([`RuleSet::check_sector`]); `us` and `them` are disjoint sets of
    /// that board's points with `sector.w` and `sector.b` stones; outside
    /// the Lasker rule, `side_to_move` is one a game reaches with these
    /// hands (White when they are equal and not both empty, Black when the
    /// side to move holds one more). Debug builds check the counts and
    /// disjointness. Anything else goes through [`Setup::validate`].
    pub fn from_sector(sector: Sector, side_to_move: Color, us: Bitboard, them: Bitboard) -> Position {
        debug_assert_eq!(us & them, 0, "a stone of both colours");
        debug_assert_eq!(us.count_ones(), u32::from(sector.w), "stones of the side to move");
        debug_assert_eq!(them.count_ones(), u32::from(sector.b), "stones of the opponent");
        Position::trusted(Setup::from_relative(us, them, side_to_move, sector.wh, sector.bh))
    }

    /// The raw description of this position, to edit (then validate again)
    /// or to write out.
    pub fn to_setup(&self) -> Setup {
        let Position { white, black, side_to_move, white_in_hand, black_in_hand } = *self;
        Setup { white, black, side_to_move, white_in_hand, black_in_hand }
    }

    /// White's stones on the board (a bitboard over the board's points).
    pub fn white(&self) -> Bitboard {
        self.white
    }

    /// Black's stones on the board (a bitboard over the board's points).
    pub fn black(&self) -> Bitboard {
        self.black
    }

    /// The player to move.
    pub fn side_to_move(&self) -> Color {
        self.side_to_move
    }

    /// White's stones in hand (`0..=` the rule set's stones).
    pub fn white_in_hand(&self) -> u8 {
        self.white_in_hand
    }

    /// Black's stones in hand (`0..=` the rule set's stones).
    pub fn black_in_hand(&self) -> u8 {
        self.black_in_hand
    }

    /// The side to move's stones on the board.
    #[inline]
    pub fn us(&self) -> Bitboard {
        [self.white, self.black][self.side_to_move as usize]
    }

    /// The opponent's stones on the board.
    #[inline]
    pub fn them(&self) -> Bitboard {
        [self.black, self.white][self.side_to_move as usize]
    }

    /// The side to move's stones in hand.
    #[inline]
    pub fn us_in_hand(&self) -> u8 {
        [self.white_in_hand, self.black_in_hand][self.side_to_move as usize]
    }

    /// The opponent's stones in hand.
    #[inline]
    pub fn them_in_hand(&self) -> u8 {
        [self.black_in_hand, self.white_in_hand][self.side_to_move as usize]
    }

    /// The sector of this position (stones from the side to move's point of
    /// view).
    pub fn sector(&self) -> Sector {
        Sector {
            w: self.us().count_ones() as u8,
            b: self.them().count_ones() as u8,
            wh: self.us_in_hand(),
            bh: self.them_in_hand(),
        }
    }

    /// Parses the text format and validates the result under `rules`
    /// ([`Setup::parse`], then [`Setup::validate`]).
    ///
    /// # Errors
    /// As [`Setup::parse`] and [`Setup::validate`].
    pub fn parse(text: &str, rules: &RuleSet) -> Result<Position, PositionError> {
        Setup::parse(text, rules.board())?.validate(rules)
    }

    /// The text form, as [`Setup::to_text`].
    pub fn to_text(&self, board: &Board) -> String {
        self.to_setup().to_text(board)
    }

    /// The ASCII drawing, as [`Setup::diagram`].
    pub fn diagram(&self, board: &Board) -> String {
        self.to_setup().diagram(board)
    }
}

impl From<Position> for Setup {
    fn from(pos: Position) -> Setup {
        pos.to_setup()
    }
}

/// A position written on `board`, for error messages: `W:a4,a1,d3
/// B:a7,d1,c4 w` on the 24-point boards, two stones each and one in hand
/// on the others (`W:a1,c1 B:b1,a2 w 1 1` on the 9-point board).
pub fn position_example(board: &Board) -> String {
    const NINE: &str = "W:a4,a1,d3 B:a7,d1,c4 w";
    if ["a4", "a1", "d3", "a7", "d1", "c4"].iter().all(|p| board.point(p).is_some()) {
        return NINE.to_string();
    }
    let name = |i: usize| board.point_names().get(i).copied().unwrap_or("a1");
    format!("W:{},{} B:{},{} w 1 1", name(0), name(2), name(1), name(3))
}

fn parse_points(list: &str, board: &Board) -> Result<Bitboard, PositionError> {
    let mut set: Bitboard = 0;
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let p = board
            .point(&name.to_ascii_lowercase())
            .ok_or_else(|| PositionError::UnknownPoint { point: name.to_string(), board: board.name() })?;
        if set & (1 << p) != 0 {
            return Err(PositionError::Duplicate(name.to_string()));
        }
        set |= 1 << p;
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_readme_example() {
        let rules = RuleSet::preset("nine").unwrap();
        let b = rules.board();
        let p = Setup::parse("W:a4,a1,d3 B:a7,d1,c4 w", b).unwrap();
        assert_eq!(p.white.count_ones(), 3);
        assert_eq!(p.side_to_move, Color::White);
        assert_eq!(p.to_text(b), "W:a1,a4,d3 B:a7,c4,d1 w");
        assert_eq!(Setup::parse(&p.to_text(b), b).unwrap(), p);
        assert_eq!(Position::parse(&p.to_text(b), &rules).unwrap().to_setup(), p);
        let q = Setup::parse("W:d6 B: b 8 9", b).unwrap();
        assert_eq!((q.white_in_hand, q.black_in_hand, q.black), (8, 9, 0));
    }

    #[test]
    fn rejects_bad_input() {
        let rules = RuleSet::preset("nine").unwrap();
        let b = rules.board();
        assert!(matches!(Setup::parse("W:a4,z9 B:a7 w", b), Err(PositionError::UnknownPoint { .. })));
        assert!(matches!(Setup::parse("W:a4 B:a4 w", b), Err(PositionError::Overlap(_))));
        assert!(matches!(Setup::parse("W:a4,a4 B:a7 w", b), Err(PositionError::Duplicate(_))));
        assert!(matches!(Setup::parse("W:a4 B:a7", b), Err(PositionError::Syntax { .. })));
        assert!(matches!(Setup::parse("W:a4 B:a7 x", b), Err(PositionError::Syntax { .. })));
        assert!(matches!(Setup::parse("W:a4 B:a7 w 3", b), Err(PositionError::Syntax { .. })));
        let p = Setup::parse("W:a4 B:a7 w 9 0", b).unwrap();
        assert!(matches!(p.validate(&rules), Err(PositionError::TooManyStones { .. })));
    }

    /// Hands that no game reaches with that side to move (issue 19), and
    /// every pair that one does (docs/rules.md: White places first, placements
    /// alternate).
    #[test]
    fn validate_refuses_impossible_hands() {
        let six = RuleSet::preset("six").unwrap();
        let b = six.board();
        for (text, why) in [
            ("W:b2 B: w 5 6", "White has placed 1 stone and Black 0, yet it is White's turn"),
            ("W: B:b2 w 6 5", "White has placed 0 stones and Black 1, yet it is White's turn"),
            ("W:b2 B:d6 b 5 5", "White has placed 1 stone and Black 1, yet it is Black's turn"),
            ("W:b2,b4 B: b 4 6", "White has placed 2 stones and Black 0, yet it is Black's turn"),
            ("W:b2 B: w 0 1", "White has placed 6 stones and Black 5, yet it is White's turn"),
        ] {
            let e = Setup::parse(text, b).unwrap().validate(&six).unwrap_err();
            assert!(matches!(e, PositionError::ImpossibleHands { .. }), "{text}: {e}");
            assert!(e.to_string().contains(why), "{text}: {e}");
        }
        for text in [
            "W: B: w 6 6",
            "W:b2 B: b 5 6",
            "W:b2 B:d6 w 5 5",
            "W:b2,b4,b6 B:d6,d2 b 0 1",
            "W:b2,b4,b6 B:d6,d2,f2 w",
            "W:b2,b4,b6 B:d6,d2,f2 b",
        ] {
            Setup::parse(text, b).unwrap().validate(&six).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
        // Lasker: a player may move instead of placing, so any hands.
        let lasker = RuleSet::preset("lasker").unwrap();
        Setup::parse("W:a1 B: w 9 10", lasker.board()).unwrap().validate(&lasker).unwrap();
    }
}
