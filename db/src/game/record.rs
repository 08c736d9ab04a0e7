//! Game records (docs/rules.md, "Notation"): `1. d6 d2 2. f4 b4 ... 5. a1xd7
//! ...`, as typed by hand or as Sanmill exports them (PGN), replayed from a
//! position.
//!
//! Reading a record ([`read_record`]):
//! - tag pairs `[Name "value"]` (Sanmill writes `Event`, `Site`, `Date`,
//!   `Round`, `White`, `Black`, `Result`, `Variant`, `PlyCount`, and for a
//!   game from a set-up position `FEN` and `SetUp`) are kept; `[FEN "..."]`
//!   gives the start ([`Record::start`]);
//! - `{...}` comments and the rest of a line after `;` or `#` are skipped;
//!   a `{` or `(` never closed is an error naming the line and column where
//!   it opened;
//! - variations in parentheses, nested or not, are skipped: the main line
//!   is replayed;
//! - move numbers (`5.`, `5...`, also glued to a move: `5.a1xd7`) are kept
//!   to be checked against the moves' order ([`replay`] warns when they
//!   disagree); numeric annotations (`$1`) and `!`/`?` after a move are
//!   dropped;
//! - a removal written apart (`a1 xd7`, or `a1 x d7`) belongs to the move
//!   before it;
//! - a result (`1-0`, `0-1`, `1/2-1/2`, `*`) ends the record.
//!
//! Commas separate like spaces; line ends may be `\r\n`, as Sanmill writes
//! them.

use std::fmt;

use crate::fen::{Clocks, FenError};
use crate::moves::{Move, MoveError};
use crate::position::{Color, Position};
use crate::rules::RuleSet;

/// A record that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// A `{` comment is never closed.
    #[error("line {line}, column {column}: the comment `{{` opened here is never closed (a `}}` is missing)")]
    UnclosedComment {
        /// Line of the `{`, from 1.
        line: usize,
        /// Column of the `{`, from 1.
        column: usize,
    },
    /// A `(` variation is never closed.
    #[error("line {line}, column {column}: the variation `(` opened here is never closed (a `)` is missing)")]
    UnclosedVariation {
        /// Line of the `(`, from 1.
        line: usize,
        /// Column of the `(`, from 1.
        column: usize,
    },
    /// A `)` without its `(`.
    #[error("line {line}, column {column}: `)` closes no variation")]
    StrayClose {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
    },
    /// A `[` tag pair that is not `[Name "value"]`.
    #[error("line {line}, column {column}: `{}` is not a tag pair `[Name \"value\"]`", crate::quoted(.text))]
    BadTag {
        /// Line of the `[`, from 1.
        line: usize,
        /// Column of the `[`, from 1.
        column: usize,
        /// The text from the `[` on (to the end of its line).
        text: String,
    },
}

/// A move number as written before a move: `5.` or `5...`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenNumber {
    /// The number.
    pub number: u32,
    /// Whether it was written `N...` (Black's move).
    pub black: bool,
}

impl fmt::Display for WrittenNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.number, if self.black { "..." } else { "." })
    }
}

/// One move of a record as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordMove {
    /// The move, removals joined to it (`d6-d5xb4`).
    pub text: String,
    /// The move number written just before it, if any.
    pub number: Option<WrittenNumber>,
    /// Its line in the record, from 1.
    pub line: usize,
}

/// A game record, read: tag pairs, the moves of the main line, the result.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    /// The tag pairs `[Name "value"]`, in order.
    pub tags: Vec<(String, String)>,
    /// The moves of the main line, in order.
    pub moves: Vec<RecordMove>,
    /// The result token that ended it (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub result: Option<String>,
}

impl Record {
    /// The value of tag `name` (the first, compared without case).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The start given by the `[FEN "..."]` tag, read and checked under
    /// `rules` ([`Position::read_for`]), with its clocks; `None` without
    /// the tag.
    ///
    /// # Errors
    /// As [`Position::read_for`].
    pub fn start(&self, rules: &RuleSet) -> Result<Option<(Position, Clocks)>, FenError> {
        self.tag("FEN").map(|fen| Position::read_for(fen, rules)).transpose()
    }

    /// The moves as written, in order.
    pub fn move_texts(&self) -> Vec<&str> {
        self.moves.iter().map(|m| m.text.as_str()).collect()
    }
}

/// Reads a record (the rules in the module documentation).
///
/// # Errors
/// [`RecordError`] for a comment or variation never closed, a stray `)`,
/// or a malformed tag pair.
pub fn read_record(text: &str) -> Result<Record, RecordError> {
    let mut record = Record::default();
    // Tokens of the main line with their line numbers.
    let mut tokens: Vec<(String, usize)> = Vec::new();
    let mut token = String::new();
    let mut token_line = 1;
    // Open variations: where each `(` stands.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let (mut line, mut column) = (1usize, 0usize);
    let mut i = 0;
    let flush = |token: &mut String, tokens: &mut Vec<(String, usize)>, line: usize, open: &[(usize, usize)]| {
        if !token.is_empty() && open.is_empty() {
            tokens.push((std::mem::take(token), line));
        }
        token.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        column += 1;
        match c {
            '\n' => {
                flush(&mut token, &mut tokens, token_line, &open);
                line += 1;
                column = 0;
            }
            '{' => {
                flush(&mut token, &mut tokens, token_line, &open);
                let (l, col) = (line, column);
                loop {
                    i += 1;
                    match chars.get(i) {
                        None => return Err(RecordError::UnclosedComment { line: l, column: col }),
                        Some('}') => {
                            column += 1;
                            break;
                        }
                        Some('\n') => {
                            line += 1;
                            column = 0;
                        }
                        Some(_) => column += 1,
                    }
                }
            }
            ';' | '#' => {
                flush(&mut token, &mut tokens, token_line, &open);
                while i + 1 < chars.len() && chars[i + 1] != '\n' {
                    i += 1;
                }
            }
            '(' => {
                flush(&mut token, &mut tokens, token_line, &open);
                open.push((line, column));
            }
            ')' => {
                flush(&mut token, &mut tokens, token_line, &open);
                if open.pop().is_none() {
                    return Err(RecordError::StrayClose { line, column });
                }
            }
            '[' if token.is_empty() && open.is_empty() => {
                let (l, col) = (line, column);
                let rest: String = chars[i..].iter().take_while(|&&c| c != '\n').collect();
                let bad = || RecordError::BadTag { line: l, column: col, text: rest.trim_end().to_string() };
                let (name, value, used) = read_tag(&chars[i..]).ok_or_else(bad)?;
                record.tags.push((name, value));
                i += used - 1;
                column += used - 1;
            }
            c if c.is_whitespace() || c == ',' => flush(&mut token, &mut tokens, token_line, &open),
            c => {
                if token.is_empty() {
                    token_line = line;
                }
                token.push(c);
            }
        }
        i += 1;
    }
    flush(&mut token, &mut tokens, token_line, &open);
    if let Some(&(line, column)) = open.first() {
        return Err(RecordError::UnclosedVariation { line, column });
    }

    let mut number: Option<WrittenNumber> = None;
    let mut removal_next = false;
    for (token, line) in tokens {
        if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            record.result = Some(token);
            break;
        }
        if token.starts_with('$') {
            continue;
        }
        // A move number, alone or glued to the move.
        let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let mut rest = token.as_str();
        if digits > 0 && token[digits..].starts_with('.') {
            let dots = token[digits..].len() - token[digits..].trim_start_matches('.').len();
            number = token[..digits].parse().ok().map(|n| WrittenNumber { number: n, black: dots >= 3 });
            rest = &token[digits + dots..];
        }
        let rest = rest.trim_end_matches(['!', '?']);
        if rest.is_empty() {
            continue;
        }
        if let Some(last) = record.moves.last_mut() {
            if rest.eq_ignore_ascii_case("x") {
                // `x d7`: the removal follows as its own word.
                removal_next = true;
                continue;
            }
            if removal_next || rest.starts_with(['x', 'X']) {
                if !rest.starts_with(['x', 'X']) {
                    last.text.push('x');
                }
                last.text.push_str(rest);
                removal_next = false;
                continue;
            }
        }
        record.moves.push(RecordMove { text: rest.to_string(), number: number.take(), line });
    }
    Ok(record)
}

/// Reads `[Name "value"]` at the start of `chars`: the name, the value
/// (`\"` and `\\` unescaped) and the characters used, or `None`.
fn read_tag(chars: &[char]) -> Option<(String, String, usize)> {
    let mut i = 1;
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    let start = i;
    while chars.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
        i += 1;
    }
    let name: String = chars[start..i].iter().collect();
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    if name.is_empty() || chars.get(i) != Some(&'"') {
        return None;
    }
    i += 1;
    let mut value = String::new();
    loop {
        match chars.get(i)? {
            '"' => break,
            '\\' => {
                value.push(*chars.get(i + 1)?);
                i += 2;
            }
            '\n' => return None,
            c => {
                value.push(*c);
                i += 1;
            }
        }
    }
    i += 1;
    while chars.get(i).is_some_and(|c| *c == ' ' || *c == '\t') {
        i += 1;
    }
    (chars.get(i) == Some(&']')).then_some((name, value, i + 1))
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
#[error("move {number} ({color}, ply {ply}) `{text}`: {error}", number = .number, color = .number.color, ply = .number.ply, text = crate::quoted_part(.text))]
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

/// A replayed record: the moves played, the first that could not be, and
/// warnings (move numbers that disagree with the moves' order).
#[derive(Debug, Clone)]
pub struct Replay {
    /// The moves played, in order.
    pub played: Vec<Played>,
    /// The first move that is unreadable or illegal (the replay stopped
    /// there), if any.
    pub error: Option<ReplayError>,
    /// Warnings, one a line: each move number that is not the number of its
    /// move.
    pub warnings: Vec<String>,
}

/// Replays `record`'s main line from `start` under `rules`. Move numbers
/// are checked, not used: they may count from 1 (as Sanmill writes them
/// even after a set-up position) or from `first_number` (the start's
/// full-move number, as PGN does); one that is neither, or that disagrees
/// with the colour to move, gives a warning.
pub fn replay(rules: &RuleSet, start: Position, first_number: u32, record: &Record) -> Replay {
    let mut pos = start;
    let mut played = Vec::new();
    let mut warnings = Vec::new();
    // The offset of the written numbers from ours (which count from 1),
    // fixed by the first number written.
    let mut offset: Option<u32> = None;
    for (i, written) in record.moves.iter().enumerate() {
        let number = MoveNumber::of_ply(i as u32 + 1, start.side_to_move());
        if let Some(w) = written.number {
            let expected_black = number.color == Color::Black;
            let off = *offset.get_or_insert(
                if w.number >= number.number && w.number - number.number == first_number.saturating_sub(1) {
                    first_number.saturating_sub(1)
                } else {
                    0
                },
            );
            if w.number != number.number + off || w.black != expected_black {
                let want = WrittenNumber { number: number.number + off, black: expected_black };
                warnings.push(format!(
                    "line {}: `{w}` before `{}`, which is move {want} ({}, ply {})",
                    written.line,
                    crate::quoted(&written.text),
                    number.color,
                    number.ply
                ));
            }
        }
        match pos.parse_move(rules, &written.text) {
            Ok(mv) => {
                pos = pos.play_unchecked(mv);
                played.push(Played { number, mv, after: pos });
            }
            Err(error) => {
                return Replay {
                    played,
                    error: Some(ReplayError { number, text: written.text.clone(), before: pos, error }),
                    warnings,
                }
            }
        }
    }
    Replay { played, error: None, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<String> {
        read_record(text).unwrap().moves.into_iter().map(|m| m.text).collect()
    }

    #[test]
    fn reads_numbers_comments_and_loose_removals() {
        let text = "1. d6 d2 {opening} 2.f4 b4\n3. a1 ; a comment\n xd6  4... g7!, 1-0 d1";
        assert_eq!(moves(text), vec!["d6", "d2", "f4", "b4", "a1xd6", "g7"]);
        assert_eq!(moves("1. a1 x d7 d6 $2 2. b2 X d6"), vec!["a1xd7", "d6", "b2xd6"]);
    }

    /// A record as Sanmill exports it (its `addTagPairs` and
    /// `moveHistoryText`): CRLF tag pairs, `[FEN]` and `[SetUp]` for a set-up
    /// position, a variation after the move it replaces, the result.
    #[test]
    fn reads_sanmills_export() {
        let text = "[Event \"Sanmill-Game\"]\r\n[Site \"Sanmill\"]\r\n[Date \"2026.11.30\"]\r\n[Round \"1\"]\r\n\
                    [White \"Human\"]\r\n[Black \"AI\"]\r\n[Result \"*\"]\r\n[Variant \"Nine Men's Morris\"]\r\n\
                    [PlyCount \"4\"]\r\n[FEN \"********/********/******** w p p 0 9 0 9 0 0 -1 -1 -1 -1 0 0 1 ids:nodes\"]\r\n\
                    [SetUp \"1\"]\r\n\r\n{study} 1. d6 {good} f4 (1... d2 2. b4 (2. b6) ) 2. d2!? b4 *";
        let r = read_record(text).unwrap();
        assert_eq!(r.tag("event"), Some("Sanmill-Game"));
        assert_eq!(r.tag("Variant"), Some("Nine Men's Morris"));
        assert_eq!(r.move_texts(), ["d6", "f4", "d2", "b4"]);
        assert_eq!(r.result.as_deref(), Some("*"));
        let nine = RuleSet::preset("nine").unwrap();
        assert_eq!(r.start(&nine).unwrap().unwrap().0, Position::start(&nine));
        assert!(replay(&nine, Position::start(&nine), 1, &r).warnings.is_empty());
    }

    #[test]
    fn unclosed_comments_and_variations_are_errors_naming_where() {
        let e = read_record("1. d6 f4\n2. d2 {never closed b4 3. a1").unwrap_err();
        assert_eq!(e, RecordError::UnclosedComment { line: 2, column: 7 });
        assert!(e.to_string().contains("line 2, column 7"), "{e}");
        let e = read_record("1. d6 (1. d2 (1. f4) f4 2. d2").unwrap_err();
        assert_eq!(e, RecordError::UnclosedVariation { line: 1, column: 7 });
        assert!(matches!(read_record("1. d6 ) f4"), Err(RecordError::StrayClose { line: 1, column: 7 })));
        assert!(matches!(read_record("[Event Sanmill]\n1. d6"), Err(RecordError::BadTag { line: 1, column: 1, .. })));
    }

    #[test]
    fn wrong_move_numbers_are_warned_about() {
        let nine = RuleSet::preset("nine").unwrap();
        let start = Position::start(&nine);
        let r = read_record("1. d6 f4 3. d2 b4 3... a1").unwrap();
        let done = replay(&nine, start, 1, &r);
        assert!(done.error.is_none());
        assert_eq!(done.warnings.len(), 2, "{:?}", done.warnings);
        assert!(done.warnings[0].contains("`3.` before `d2`, which is move 2."), "{:?}", done.warnings);
        assert!(done.warnings[1].contains("`3...` before `a1`, which is move 3."), "{:?}", done.warnings);
        // Numbered from the start's full-move number (PGN) or from 1
        // (Sanmill after a set-up position): both are fine.
        for text in ["12. d6 f4 13. d2", "1. d6 f4 2. d2"] {
            let done = replay(&nine, start, 12, &read_record(text).unwrap());
            assert!(done.warnings.is_empty(), "{text}: {:?}", done.warnings);
        }
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
