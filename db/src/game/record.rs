//! Game records in move notation (RULES.md, "Notation"): `1. d6 d2 2. f4
//! b4 ... 5. a1xd7 ...`, with or without move numbers, one move or several
//! a line, replayed from a position.
//!
//! Reading a record: `{...}` comments and the rest of a line after `;` or
//! `#` are skipped; move numbers (`5.`, `5...`, also glued to a move:
//! `5.a1xd7`) are skipped, since the numbers of the moves follow from their
//! order; a result (`1-0`, `0-1`, `1/2-1/2`, `*`) ends the record; a
//! removal written apart (`a1 xd7`, as some programs list it) belongs to the
//! move before it; `!` and `?` after a move are dropped. Commas separate
//! like spaces.

use std::fmt;

use crate::moves::{Move, MoveError};
use crate::position::{Color, Position};
use crate::rules::RuleSet;

/// The moves of a record as written, in order.
pub fn record_moves(text: &str) -> Vec<String> {
    let mut clean = String::with_capacity(text.len());
    let mut depth = 0usize;
    for line in text.lines() {
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' if depth > 0 => depth -= 1,
                ';' | '#' if depth == 0 => break,
                _ if depth > 0 => {}
                ',' => clean.push(' '),
                _ => clean.push(c),
            }
        }
        clean.push('\n');
    }
    let mut moves: Vec<String> = Vec::new();
    for token in clean.split_whitespace() {
        if matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*") {
            break;
        }
        // A move number, alone or glued to the move.
        let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let token = if digits > 0 && token[digits..].starts_with('.') {
            token[digits..].trim_start_matches('.')
        } else {
            token
        };
        let token = token.trim_end_matches(['!', '?']);
        if token.is_empty() {
            continue;
        }
        if token.starts_with(['x', 'X']) {
            if let Some(last) = moves.last_mut() {
                last.push_str(token);
                continue;
            }
        }
        moves.push(token.to_string());
    }
    moves
}

/// The number of a ply as game records write it: `5.` for White's fifth
/// move, `5...` for Black's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveNumber {
    /// The full-move number (1 for the first move of each side).
    pub number: u32,
    /// The player who moves.
    pub color: Color,
    /// The ply, 1 for the first move of the record.
    pub ply: u32,
}

impl MoveNumber {
    /// The number of ply `ply` (1-based) of a record starting with `first`
    /// to move.
    pub fn of_ply(ply: u32, first: Color) -> MoveNumber {
        let offset = u32::from(first == Color::Black);
        let color = if (ply - 1 + offset) & 1 == 0 { Color::White } else { Color::Black };
        MoveNumber { number: 1 + (ply - 1 + offset) / 2, color, ply }
    }
}

impl fmt::Display for MoveNumber {
    /// `5.` or `5...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.color {
            Color::White => write!(f, "{}.", self.number),
            Color::Black => write!(f, "{}...", self.number),
        }
    }
}

/// One move of a replayed record.
#[derive(Debug, Clone)]
pub struct Played {
    /// Its number.
    pub number: MoveNumber,
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub after: Position,
}

/// The first move of a record that cannot be played.
#[derive(Debug, Clone, thiserror::Error)]
#[error("move {number} ({color}, ply {ply}) `{text}`: {error}", number = .number, color = .number.color, ply = .number.ply)]
pub struct ReplayError {
    /// Its number.
    pub number: MoveNumber,
    /// The move as written.
    pub text: String,
    /// The position it was played in.
    pub before: Position,
    /// Why it cannot be played (an illegal move lists the legal ones).
    pub error: MoveError,
}

/// A replayed record: the moves played, and the first that could not be.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The moves played, in order.
    pub played: Vec<Played>,
    /// The first move that is unreadable or illegal (the replay stopped
    /// there), if any.
    pub error: Option<ReplayError>,
}

/// Replays the record `text` from `start` under `rules`.
pub fn replay(rules: &RuleSet, start: Position, text: &str) -> Replay {
    let mut pos = start;
    let mut played = Vec::new();
    for (i, written) in record_moves(text).into_iter().enumerate() {
        let number = MoveNumber::of_ply(i as u32 + 1, start.side_to_move);
        match pos.parse_move(rules, &written) {
            Ok(mv) => {
                pos = pos.play_unchecked(mv);
                played.push(Played { number, mv, after: pos });
            }
            Err(error) => {
                return Replay { played, error: Some(ReplayError { number, text: written, before: pos, error }) }
            }
        }
    }
    Replay { played, error: None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers_comments_and_loose_removals() {
        let text = "1. d6 d2 {opening} 2.f4 b4\n3. a1 ; a comment\n xd6  4... g7!, 1-0 d1";
        assert_eq!(record_moves(text), vec!["d6", "d2", "f4", "b4", "a1xd6", "g7"]);
    }

    #[test]
    fn numbers_plies() {
        let n = MoveNumber::of_ply(10, Color::White);
        assert_eq!((n.number, n.color, n.to_string()), (5, Color::Black, "5...".to_string()));
        let n = MoveNumber::of_ply(1, Color::Black);
        assert_eq!(n.to_string(), "1...");
        assert_eq!(MoveNumber::of_ply(2, Color::Black).to_string(), "2.");
    }
}
