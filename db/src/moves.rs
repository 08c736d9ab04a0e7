//! Legal moves (placements, slides, flights, each with its removal) and
//! un-moves of the sliding phase, on bitboards relative to the side to move
//! (RULES.md, "Play" and "Mills and removal").

use std::fmt;

use crate::board::{Bitboard, Board, Point, Points};
use crate::position::{Color, Position};
use crate::rules::RuleSet;

/// A move: a placement (`from == None`), or a slide or flight from `from`
/// to `to`; with the removal it makes, if it closes a mill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The point a stone leaves (`None` for a placement).
    pub from: Option<Point>,
    /// The point a stone arrives at.
    pub to: Point,
    /// The opponent's stone removed, if the move closes a mill.
    pub removal: Option<Point>,
}

impl Move {
    /// The move in RULES.md notation on `board`: `d6`, `d6-d5`, `d6-d5xb4`,
    /// `a1xd7`.
    pub fn notation(&self, board: &Board) -> String {
        let mut s = String::new();
        if let Some(f) = self.from {
            s.push_str(board.point_name(f));
            s.push('-');
        }
        s.push_str(board.point_name(self.to));
        if let Some(r) = self.removal {
            s.push('x');
            s.push_str(board.point_name(r));
        }
        s
    }

    /// A displayable form of the move on `board`.
    pub fn display<'a>(&'a self, board: &'a Board) -> impl fmt::Display + 'a {
        struct D<'a>(&'a Move, &'a Board);
        impl fmt::Display for D<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0.notation(self.1))
            }
        }
        D(self, board)
    }
}

/// The opponent stones that a mill may remove: those not in a mill, or all
/// of them when every one stands in a mill (or when the rule set always
/// allows removal from mills).
#[inline]
pub fn removable(rules: &RuleSet, them: Bitboard) -> Bitboard {
    if rules.remove_from_mills_always {
        return them;
    }
    let free = them & !rules.board().stones_in_mills(them);
    if free == 0 {
        them
    } else {
        free
    }
}

/// Appends the legal moves of the side to move to `out`: `us`, `them` are
/// the stones on the board, `us_in_hand` the side to move's stones in hand.
/// A player with stones in hand places (and, under the Lasker rule, may also
/// move); otherwise slides, or flies when the rule set allows it with
/// exactly 3 stones. A move closing a mill appears once per removable stone;
/// if the opponent has no stone on the board it appears without removal.
pub fn generate_moves(rules: &RuleSet, us: Bitboard, them: Bitboard, us_in_hand: u8, out: &mut Vec<Move>) {
    for_each_move(rules, us, them, us_in_hand, |mv, _| out.push(mv));
}

/// Calls `f(move, mover's stones after the move)` for each legal move, in
/// the order of [`generate_moves`] (which is built on it); for solvers that
/// need no move list.
#[inline]
pub fn for_each_move(rules: &RuleSet, us: Bitboard, them: Bitboard, us_in_hand: u8, mut f: impl FnMut(Move, Bitboard)) {
    let board = rules.board();
    let empty = board.all() & !us & !them;
    let mut removable_cache: Option<Bitboard> = None;
    let mut push = |from: Option<Point>, to: Point, after: Bitboard| {
        if them != 0 && board.closes_mill(after, to) {
            let set = *removable_cache.get_or_insert_with(|| removable(rules, them));
            for r in Points(set) {
                f(Move { from, to, removal: Some(r) }, after);
            }
        } else {
            f(Move { from, to, removal: None }, after);
        }
    };
    if us_in_hand > 0 {
        for to in Points(empty) {
            push(None, to, us | (1 << to));
        }
        if !rules.lasker {
            return;
        }
    }
    let flying = rules.flies(us.count_ones() + us_in_hand as u32);
    for from in Points(us) {
        let targets = if flying {
            empty
        } else {
            board.adjacent(from) & empty
        };
        for to in Points(targets) {
            push(Some(from), to, us ^ (1 << from) ^ (1 << to));
        }
    }
}

/// The stones after a move, from the mover's point of view: `(mover's
/// stones, opponent's stones)`.
#[inline]
pub fn apply_move(us: Bitboard, them: Bitboard, mv: Move) -> (Bitboard, Bitboard) {
    let mut us2 = us | (1 << mv.to);
    if let Some(f) = mv.from {
        us2 &= !(1 << f);
    }
    let them2 = match mv.removal {
        Some(r) => them & !(1 << r),
        None => them,
    };
    (us2, them2)
}

/// Appends to `out` the predecessors of a sliding-phase position by a move
/// without removal: `(us, them)` is the position with `us` to move; each
/// predecessor is `(mover's stones before the move, us)`, the mover being
/// the one to move there. The mover's last stone went from an empty point
/// (adjacent, or any when the mover flies) to a point of `them` where it
/// closed no mill.
pub fn sliding_unmoves(
    rules: &RuleSet,
    us: Bitboard,
    them: Bitboard,
    out: &mut Vec<(Bitboard, Bitboard)>,
) {
    let board = rules.board();
    let empty = board.all() & !us & !them;
    let flying = rules.flies(them.count_ones());
    for to in Points(them) {
        if board.closes_mill(them, to) {
            continue;
        }
        let sources = if flying {
            empty
        } else {
            board.adjacent(to) & empty
        };
        for from in Points(sources) {
            out.push((them ^ (1 << to) ^ (1 << from), us));
        }
    }
}

/// An illegal move or a move that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in RULES.md notation on this board.
    #[error("cannot read move `{0}`: write a placement `d6`, a slide `d6-d5`, and a removal with `x` (`d6-d5xb4`)")]
    Syntax(String),
    /// The move is not legal in the position.
    #[error("illegal move `{mv}`; legal moves: {legal}")]
    Illegal {
        /// The move given.
        mv: String,
        /// The legal moves, space-separated.
        legal: String,
    },
}

impl Position {
    /// The legal moves of the side to move (empty when the game is over:
    /// the side to move has fewer than 3 stones or is blocked).
    pub fn legal_moves(&self, rules: &RuleSet) -> Vec<Move> {
        let mut out = Vec::new();
        if self.us().count_ones() + self.us_in_hand() as u32 >= 3
            && self.them().count_ones() + self.them_in_hand() as u32 >= 3
        {
            generate_moves(rules, self.us(), self.them(), self.us_in_hand(), &mut out);
        }
        out
    }

    /// The position after `mv`, which the caller has taken from
    /// [`Position::legal_moves`].
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let (us, them) = apply_move(self.us(), self.them(), mv);
        let us_in_hand = if mv.from.is_none() {
            self.us_in_hand() - 1
        } else {
            self.us_in_hand()
        };
        Position::from_relative(
            them,
            us,
            self.side_to_move.other(),
            self.them_in_hand(),
            us_in_hand,
        )
    }

    /// Finds the legal move written as `text` in RULES.md notation.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] if the text is not a move on this board,
    /// [`MoveError::Illegal`] (listing the legal moves) if it is not legal.
    pub fn parse_move(&self, rules: &RuleSet, text: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves(rules);
        let board = rules.board();
        legal
            .iter()
            .copied()
            .find(|m| m.notation(board) == text.trim().to_ascii_lowercase())
            .ok_or_else(|| MoveError::Illegal {
                mv: text.trim().to_string(),
                legal: legal
                    .iter()
                    .map(|m| m.notation(board))
                    .collect::<Vec<_>>()
                    .join(" "),
            })
    }

    /// The player whose turn it is has lost (fewer than 3 stones, or no
    /// legal move); `None` while the game goes on.
    pub fn loser(&self, rules: &RuleSet) -> Option<Color> {
        if self.us().count_ones() + (self.us_in_hand() as u32) < 3
            || self.legal_moves(rules).is_empty()
        {
            Some(self.side_to_move)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(rules: &RuleSet, text: &str) -> Position {
        Position::parse(text, rules.board()).unwrap()
    }

    fn notations(rules: &RuleSet, p: &Position) -> Vec<String> {
        let mut v: Vec<String> = p
            .legal_moves(rules)
            .iter()
            .map(|m| m.notation(rules.board()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn slide_closing_a_mill_removes_a_free_stone() {
        // Hand-checked: White a7,d7 and g4 slides to g7 closing a7-d7-g7;
        // Black b6,d6,f6 is a mill, so only d2 can be taken.
        let rules = RuleSet::preset("nine").unwrap();
        let p = pos(&rules, "W:a7,d7,g4,a1 B:b6,d6,f6,d2 w");
        let moves = notations(&rules, &p);
        assert!(moves.contains(&"g4-g7xd2".to_string()), "{moves:?}");
        assert!(!moves.iter().any(|m| m.starts_with("g4-g7xb6")));
    }

    #[test]
    fn all_in_mills_allows_any_removal() {
        let rules = RuleSet::preset("nine").unwrap();
        let p = pos(&rules, "W:a7,d7,g4,a1 B:b6,d6,f6 w");
        let moves = notations(&rules, &p);
        for r in ["b6", "d6", "f6"] {
            assert!(moves.contains(&format!("g4-g7x{r}")), "{moves:?}");
        }
    }

    #[test]
    fn flying_with_three_not_four() {
        let rules = RuleSet::preset("nine").unwrap();
        let three = pos(&rules, "W:a1,d7,g4 B:b6,d6,f6,d2 w");
        assert!(notations(&rules, &three).contains(&"a1-e4".to_string()));
        let four = pos(&rules, "W:a1,d7,g4,c3 B:b6,d6,f6,d2 w");
        assert!(!notations(&rules, &four).contains(&"a1-e4".to_string()));
        let noflying = RuleSet::preset("nine-noflying").unwrap();
        assert!(!notations(&noflying, &three).contains(&"a1-e4".to_string()));
    }

    #[test]
    fn unmoves_invert_moves_without_removal() {
        let rules = RuleSet::preset("nine").unwrap();
        let p = pos(&rules, "W:a1,d7,g4,c3 B:b6,d6,f6,d2 w");
        let mut moves = Vec::new();
        generate_moves(&rules, p.us(), p.them(), 0, &mut moves);
        for m in moves.iter().filter(|m| m.removal.is_none()) {
            let (us2, them2) = apply_move(p.us(), p.them(), *m);
            let mut preds = Vec::new();
            sliding_unmoves(&rules, them2, us2, &mut preds);
            assert!(
                preds.contains(&(p.us(), p.them())),
                "{}",
                m.notation(rules.board())
            );
        }
    }
}
