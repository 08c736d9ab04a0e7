//! Sanmill's FEN for positions on the 24-point boards (RULES.md,
//! "Notation"), read and written, and [`Position::read`], which takes
//! either notation.
//!
//! A FEN lists the three rings of 8 points as `inner/middle/outer`, each
//! ring from its top middle point clockwise, `O` White, `@` Black, `*`
//! empty; then the side to move (`w`/`b`), the phase (`r` ready, `p`
//! placing, `m` moving, `o` game over), the action (`p` place, `s` select,
//! `r` remove), White on board, White in hand, Black on board, Black in
//! hand, White stones still to remove, Black stones still to remove, further
//! fields (last mill squares, mill bitmask), the half-move clock and the
//! full-move number. The start is
//! `********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1`.
//!
//! Reading checks that the counts agree with the board and refuses a
//! position with a removal pending: a removal is part of the move that made
//! the mill, so such a position is not a position of the database. Phase,
//! further fields and clocks are read but not kept. Writing derives phase and
//! action from the position, writes zeros for the further fields and the
//! half-move clock, and a full-move number counted from the stones placed.

use crate::board::{Bitboard, Board, Point};
use crate::moves::Outcome;
use crate::position::{Color, Position, PositionError};
use crate::rules::RuleSet;

/// The rings of a FEN, each from its top middle point clockwise.
const RINGS: [[&str; 8]; 3] = [
    ["d5", "e5", "e4", "e3", "d3", "c3", "c4", "c5"],
    ["d6", "f6", "f4", "f2", "d2", "b2", "b4", "b6"],
    ["d7", "g7", "g4", "g1", "d1", "a1", "a4", "a7"],
];

/// The example given in errors.
const EXAMPLE: &str = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";

/// A FEN that cannot be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The rule set's board is not the 24-point board.
    #[error("Sanmill's FEN describes the 24-point board, but this rule set plays on the {0}; write the position as `W:<points> B:<points> <w|b> [<white in hand> <black in hand>]`")]
    Board(&'static str),
    /// The text is not a FEN.
    #[error("malformed FEN `{text}`: {why}; expected e.g. `{EXAMPLE}`")]
    Syntax {
        /// The text given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// The FEN has a removal pending (action `r`, or stones still to
    /// remove).
    #[error("FEN `{text}` has a removal pending ({why}): such a position is not a database position, because the removal is part of the move that made the mill; give the position before that move, or the one after the removal")]
    PendingRemoval {
        /// The text given.
        text: String,
        /// What in it says so.
        why: String,
    },
    /// A position in the other notation that cannot be read.
    #[error(transparent)]
    Position(#[from] PositionError),
}

/// The board's points in FEN order, or the error for a board without them.
fn fen_points(board: &Board) -> Result<[[Point; 8]; 3], FenError> {
    if board.len() != 24 {
        return Err(FenError::Board(board.name()));
    }
    let mut out = [[0; 8]; 3];
    for (ring, names) in out.iter_mut().zip(RINGS.iter()) {
        for (slot, name) in ring.iter_mut().zip(names.iter()) {
            *slot = board.point(name).ok_or(FenError::Board(board.name()))?;
        }
    }
    Ok(out)
}

impl Position {
    /// Reads a Sanmill FEN on `board` (a 24-point board).
    ///
    /// # Errors
    /// [`FenError::Board`] on another board, [`FenError::Syntax`] for text
    /// that is not a FEN or whose counts disagree with its board,
    /// [`FenError::PendingRemoval`] when a removal is pending.
    pub fn from_fen(text: &str, board: &Board) -> Result<Position, FenError> {
        let points = fen_points(board)?;
        let syntax = |why: String| FenError::Syntax { text: text.trim().to_string(), why };
        let fields: Vec<&str> = text.split_whitespace().collect();
        let Some(&placement) = fields.first() else {
            return Err(syntax("it is empty".to_string()));
        };
        let rings: Vec<&str> = placement.split('/').collect();
        if rings.len() != 3 {
            return Err(syntax(format!(
                "the board field `{placement}` has {} rings, not 3 (`inner/middle/outer`)",
                rings.len()
            )));
        }
        let (mut white, mut black): (Bitboard, Bitboard) = (0, 0);
        for (ring, (text_ring, pts)) in ["inner", "middle", "outer"].iter().zip(rings.iter().zip(points.iter())) {
            let chars: Vec<char> = text_ring.chars().collect();
            if chars.len() != 8 {
                return Err(syntax(format!("the {ring} ring `{text_ring}` has {} points, not 8", chars.len())));
            }
            for (&c, &p) in chars.iter().zip(pts.iter()) {
                match c {
                    'O' => white |= 1 << p,
                    '@' => black |= 1 << p,
                    '*' => {}
                    'X' => {
                        return Err(syntax(format!(
                            "{} is marked `X` (Sanmill's mark-and-delay rule), which no rule set here has",
                            board.point_name(p)
                        )))
                    }
                    other => {
                        return Err(syntax(format!(
                            "`{other}` on {} is not `O` (White), `@` (Black) or `*` (empty)",
                            board.point_name(p)
                        )))
                    }
                }
            }
        }
        let side = match fields.get(1) {
            Some(&"w") => Color::White,
            Some(&"b") => Color::Black,
            Some(other) => return Err(syntax(format!("the side to move is `{other}`, not `w` or `b`"))),
            None => return Err(syntax("the side to move is missing".to_string())),
        };
        match fields.get(2) {
            Some(&("r" | "p" | "m" | "o")) => {}
            Some(other) => return Err(syntax(format!("the phase is `{other}`, not `r`, `p`, `m` or `o`"))),
            None => return Err(syntax("the phase is missing".to_string())),
        }
        match fields.get(3) {
            Some(&"r") => {
                return Err(FenError::PendingRemoval { text: text.trim().to_string(), why: "action `r`".to_string() })
            }
            Some(&("p" | "s")) => {}
            Some(other) => return Err(syntax(format!("the action is `{other}`, not `p`, `s` or `r`"))),
            None => return Err(syntax("the action is missing".to_string())),
        }
        let numbers: Vec<u64> = fields[4..]
            .iter()
            .map(|f| f.parse::<u64>().map_err(|_| syntax(format!("`{f}` is not a number"))))
            .collect::<Result<_, _>>()?;
        if numbers.len() < 6 {
            return Err(syntax(format!(
                "{} numbers follow the action; at least 6 are needed (stones on board and in hand of each side, stones to remove of each side)",
                numbers.len()
            )));
        }
        for (i, color) in [(4, Color::White), (5, Color::Black)] {
            if numbers[i] != 0 {
                return Err(FenError::PendingRemoval {
                    text: text.trim().to_string(),
                    why: format!("{color} still has {} stone(s) to remove", numbers[i]),
                });
            }
        }
        for (i, color, set) in [(0, Color::White, white), (2, Color::Black, black)] {
            if numbers[i] != set.count_ones() as u64 {
                return Err(syntax(format!(
                    "it gives {color} {} stones on the board, but its board field shows {}",
                    numbers[i],
                    set.count_ones()
                )));
            }
        }
        let hand = |i: usize, color: Color| {
            u8::try_from(numbers[i]).map_err(|_| syntax(format!("{color} has {} stones in hand", numbers[i])))
        };
        Ok(Position {
            white,
            black,
            side_to_move: side,
            white_in_hand: hand(1, Color::White)?,
            black_in_hand: hand(3, Color::Black)?,
        })
    }

    /// Writes the position as a Sanmill FEN under `rules` (a 24-point
    /// board), with a zero half-move clock and a full-move number counted
    /// from the stones placed (exact in the placement phase).
    ///
    /// # Errors
    /// [`FenError::Board`] when the rule set's board is not the 24-point
    /// board.
    pub fn to_fen(&self, rules: &RuleSet) -> Result<String, FenError> {
        let placed = (rules.stones.saturating_sub(self.white_in_hand) as u32)
            + (rules.stones.saturating_sub(self.black_in_hand) as u32);
        let full_move = 1 + (placed.saturating_sub(u32::from(self.side_to_move == Color::Black))) / 2;
        self.to_fen_with_clocks(rules, 0, full_move)
    }

    /// Writes the position as a Sanmill FEN with the given half-move clock
    /// and full-move number.
    ///
    /// # Errors
    /// As [`Position::to_fen`].
    pub fn to_fen_with_clocks(&self, rules: &RuleSet, half_move: u32, full_move: u32) -> Result<String, FenError> {
        let points = fen_points(rules.board())?;
        let mut s = String::with_capacity(64);
        for (i, ring) in points.iter().enumerate() {
            if i > 0 {
                s.push('/');
            }
            for &p in ring {
                s.push(if self.white & (1 << p) != 0 {
                    'O'
                } else if self.black & (1 << p) != 0 {
                    '@'
                } else {
                    '*'
                });
            }
        }
        let side = match self.side_to_move {
            Color::White => 'w',
            Color::Black => 'b',
        };
        let phase = match self.outcome(rules) {
            Some(Outcome::Loss(_) | Outcome::Draw) => 'o',
            None if self.white_in_hand > 0 || self.black_in_hand > 0 => 'p',
            None => 'm',
        };
        let action = if self.us_in_hand() > 0 { 'p' } else { 's' };
        s.push_str(&format!(
            " {side} {phase} {action} {} {} {} {} 0 0 0 0 0 0 0 {half_move} {full_move}",
            self.white.count_ones(),
            self.white_in_hand,
            self.black.count_ones(),
            self.black_in_hand,
        ));
        Ok(s)
    }

    /// Reads a position in either notation: a Sanmill FEN when the text
    /// holds a `/`, else `W:<points> B:<points> <w|b> [<in hand> <in hand>]`.
    ///
    /// # Errors
    /// As [`Position::from_fen`] or [`Position::parse`] (as
    /// [`FenError::Position`]).
    pub fn read(text: &str, board: &Board) -> Result<Position, FenError> {
        if text.contains('/') {
            Position::from_fen(text, board)
        } else {
            Ok(Position::parse(text, board)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_round_trips() {
        let rules = RuleSet::preset("nine").unwrap();
        let start = Position::start(&rules);
        assert_eq!(start.to_fen(&rules).unwrap(), EXAMPLE);
        assert_eq!(Position::from_fen(EXAMPLE, rules.board()).unwrap(), start);
    }

    #[test]
    fn rings_start_at_the_top_middle() {
        let rules = RuleSet::preset("nine").unwrap();
        let p = Position::parse("W:d5,d6 B:d7,c5 b 7 7", rules.board()).unwrap();
        let fen = p.to_fen(&rules).unwrap();
        assert!(fen.starts_with("O******@/O*******/@******* b p p 2 7 2 7"), "{fen}");
        assert_eq!(Position::read(&fen, rules.board()).unwrap(), p);
    }

    #[test]
    fn refuses_pending_removal_and_other_boards() {
        let rules = RuleSet::preset("nine").unwrap();
        let e = Position::from_fen("OOO*****/********/@@****** b p r 3 6 2 7 0 1 0 0 0 0 0 0 3", rules.board())
            .unwrap_err();
        assert!(matches!(e, FenError::PendingRemoval { .. }), "{e}");
        assert!(e.to_string().contains("removal pending"));
        let six = RuleSet::preset("six").unwrap();
        assert!(matches!(Position::from_fen(EXAMPLE, six.board()), Err(FenError::Board(_))));
    }
}
