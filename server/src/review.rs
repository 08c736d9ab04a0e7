//! Game review: every move of a game record marked against the tables.
//!
//! For each move: the value of the position for the player to move before
//! it (what best play keeps), the value of the move played (for the same
//! player), and a mark:
//!
//! - `kept`: the move keeps the value (a win exactly as fast as the best
//!   move, a draw, a loss exactly as slow);
//! - `threw_win`: a won position, and the move draws or loses;
//! - `lost_draw`: a drawn position, and the move loses;
//! - `gave_plies`: the value stays a win (or a loss), but `plies_given`
//!   plies longer to win (or shorter to lose) than the best move;
//! - `not_covered`: a table the move needs is not in the database, so no
//!   value is guessed.
//!
//! A decisive mistake is `threw_win` or `lost_draw`. Values are exact
//! perfect-play values (DTM in plies, docs/rules.md), not an engine's opinion.

use morris_db::fen::Clocks;
use morris_db::record::{read_record, replay};
use morris_db::wdl::Wdl;
use morris_db::{Color, Points, Position, Value};
use serde::Serialize;

use crate::source::{Eval, LookupError, Source};

/// A value in JSON: `category` and `dtm`.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct ValueJson {
    /// `win`, `draw` or `loss`.
    pub category: &'static str,
    /// Plies to the end of the game, `null` for a draw.
    pub dtm: Option<u16>,
}

impl From<Eval> for ValueJson {
    fn from(e: Eval) -> ValueJson {
        ValueJson { category: e.category(), dtm: e.dtm() }
    }
}

/// A best move and its value for the mover.
#[derive(Debug, Clone, Serialize)]
pub struct BestJson {
    /// Its notation.
    pub notation: String,
    /// Its value.
    #[serde(flatten)]
    pub value: ValueJson,
}

/// One move of the record, reviewed.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewedMove {
    /// 1 for the first move of the record.
    pub ply: u32,
    /// `5.` or `5...`.
    pub number: String,
    /// `white` or `black`: who moved.
    pub side: &'static str,
    /// The move, docs/rules.md notation.
    pub notation: String,
    /// The position before the move, our notation.
    pub position: String,
    /// The position after the move, our notation (the next move's
    /// `position`; for the last move, where the game stands).
    pub position_after: String,
    /// The point the stone left, `null` for a placement.
    pub from: Option<&'static str>,
    /// The point it arrived at.
    pub to: &'static str,
    /// The opponent's stones it removed (empty unless it closed a mill).
    pub removes: Vec<&'static str>,
    /// The value of the position for the mover (what the best move keeps),
    /// `null` when not covered.
    pub before: Option<ValueJson>,
    /// The value of the move played for the mover, `null` when not
    /// covered.
    pub after: Option<ValueJson>,
    /// A best move, `null` when not covered.
    pub best: Option<BestJson>,
    /// `kept`, `threw_win`, `lost_draw`, `gave_plies` or `not_covered`.
    pub mark: &'static str,
    /// Plies given away against the best move (`gave_plies` only, else 0).
    pub plies_given: u32,
    /// For `not_covered`: the table that is missing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
}

/// One player's moves, summed up.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PlayerSummary {
    /// Moves reviewed.
    pub moves: u32,
    /// Moves that kept the value.
    pub kept: u32,
    /// Moves that threw a win away.
    pub threw_win: u32,
    /// Moves that turned a draw into a loss.
    pub lost_draw: u32,
    /// Moves that kept a win or loss but gave plies away.
    pub gave_plies: u32,
    /// Plies given away in all.
    pub plies_given: u32,
    /// Moves the database does not cover.
    pub not_covered: u32,
    /// The ply of this player's first decisive mistake, if any.
    pub first_decisive_mistake: Option<u32>,
}

/// Both players' summaries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summaries {
    /// White's.
    pub white: PlayerSummary,
    /// Black's.
    pub black: PlayerSummary,
}

/// The review of a game record.
#[derive(Debug, Clone, Serialize)]
pub struct ReviewJson {
    /// The rule set.
    pub rules: String,
    /// The position the record starts from.
    pub start: String,
    /// Every move played, reviewed.
    pub moves: Vec<ReviewedMove>,
    /// Per player.
    pub summary: Summaries,
    /// The first decisive mistake of the game (ply, 1-based), if any.
    pub first_decisive_mistake: Option<u32>,
    /// Why the record cannot be read, or the first move of it that could
    /// not be played (the review stops before it), if any.
    pub error: Option<String>,
    /// Move numbers that disagree with the moves' order (the record is
    /// replayed by order).
    pub warnings: Vec<String>,
}

/// The mark of a move of value `played` (for the mover) in a position of
/// value `best` (for the mover), and the plies it gives away.
pub fn mark(best: Value, played: Value) -> (&'static str, u32) {
    match (best, played) {
        (Value::Win(_), Value::Draw | Value::Loss(_)) => ("threw_win", 0),
        (Value::Draw, Value::Loss(_)) => ("lost_draw", 0),
        (Value::Win(b), Value::Win(p)) if p > b => ("gave_plies", u32::from(p.get() - b.get())),
        (Value::Loss(b), Value::Loss(p)) if p < b => ("gave_plies", u32::from(b.get() - p.get())),
        _ => ("kept", 0),
    }
}

/// [`mark`] of two [`Eval`]s; from WDL files, which hold no distance, a
/// move that keeps the category is `kept`.
pub fn mark_eval(best: Eval, played: Eval) -> (&'static str, u32) {
    match (best.value, played.value) {
        (Some(b), Some(p)) => mark(b, p),
        _ if played.wdl < best.wdl && best.wdl == Wdl::Win => ("threw_win", 0),
        _ if played.wdl < best.wdl => ("lost_draw", 0),
        _ => ("kept", 0),
    }
}

/// Reviews the record `text` (our notation, or a PGN as Sanmill exports
/// it; `morris_db::record`) played from `start`, else from the record's
/// `[FEN]` tag, else from the rule set's start (see the module docs).
/// Moves after an unreadable or illegal one are not reviewed; a record
/// that cannot be read at all gives no moves. `error` says which.
///
/// # Errors
/// A damaged table ([`LookupError::Damaged`]) or another failure; a
/// missing table only marks the move `not_covered`.
pub fn review_record(source: Source, start: Option<Position>, text: &str) -> Result<ReviewJson, LookupError> {
    let rules = source.rules();
    let board = rules.board();
    let empty = |start: Position, error: String| ReviewJson {
        rules: rules.name().to_string(),
        start: start.to_text(board),
        moves: Vec::new(),
        summary: Summaries::default(),
        first_decisive_mistake: None,
        error: Some(error),
        warnings: Vec::new(),
    };
    let record = match read_record(text) {
        Ok(r) => r,
        Err(e) => {
            return Ok(empty(start.unwrap_or_else(|| Position::start(rules)), format!("cannot read the record: {e}")))
        }
    };
    let (start, clocks) = match (start, record.start(rules)) {
        (Some(p), _) => (p, Clocks::estimate(&p, rules)),
        (None, Ok(Some(tagged))) => tagged,
        (None, Ok(None)) => {
            let p = Position::start(rules);
            (p, Clocks::estimate(&p, rules))
        }
        (None, Err(e)) => return Ok(empty(Position::start(rules), format!("cannot read the record's [FEN] tag: {e}"))),
    };
    let replayed = replay(rules, start, clocks.full_move, &record);
    let mut moves = Vec::new();
    let mut summary = Summaries::default();
    let mut first = None;
    let mut before_pos = start;
    // Missing tables become `not_covered`; anything else stops the review.
    let covered = |r: Result<Eval, LookupError>| -> Result<Result<Eval, String>, LookupError> {
        match r {
            Ok(e) => Ok(Ok(e)),
            Err(LookupError::Missing { sector, .. }) => Ok(Err(sector)),
            Err(e) => Err(e),
        }
    };
    for played in &replayed.played {
        let mover = before_pos.side_to_move();
        let before = covered(source.evaluate(&before_pos))?;
        let after = covered(source.evaluate(&played.after).map(Eval::back))?;
        let best = match source.analyze(&before_pos) {
            Ok(moves) => moves.first().map(|(mv, e)| BestJson { notation: mv.notation(board), value: (*e).into() }),
            Err(LookupError::Missing { .. }) => None,
            Err(e) => return Err(e),
        };
        let (mark, plies_given, missing) = match (&before, &after) {
            (Ok(b), Ok(a)) => {
                let (m, p) = mark_eval(*b, *a);
                (m, p, None)
            }
            (Err(s), _) | (_, Err(s)) => ("not_covered", 0, Some(s.clone())),
        };
        let ply = played.number.ply;
        let s = match mover {
            Color::White => &mut summary.white,
            Color::Black => &mut summary.black,
        };
        s.moves += 1;
        match mark {
            "kept" => s.kept += 1,
            "threw_win" => s.threw_win += 1,
            "lost_draw" => s.lost_draw += 1,
            "gave_plies" => {
                s.gave_plies += 1;
                s.plies_given += plies_given;
            }
            _ => s.not_covered += 1,
        }
        if matches!(mark, "threw_win" | "lost_draw") {
            s.first_decisive_mistake.get_or_insert(ply);
            first.get_or_insert(ply);
        }
        moves.push(ReviewedMove {
            ply,
            number: played.number.to_string(),
            side: match mover {
                Color::White => "white",
                Color::Black => "black",
            },
            notation: played.mv.notation(board),
            position: before_pos.to_text(board),
            position_after: played.after.to_text(board),
            from: played.mv.from.map(|p| board.point_name(p)),
            to: board.point_name(played.mv.to),
            removes: Points(played.mv.removals()).map(|p| board.point_name(p)).collect(),
            before: before.ok().map(ValueJson::from),
            after: after.ok().map(ValueJson::from),
            best,
            mark,
            plies_given,
            missing,
        });
        before_pos = played.after;
    }
    Ok(ReviewJson {
        rules: rules.name().to_string(),
        start: start.to_text(board),
        moves,
        summary,
        first_decisive_mistake: first,
        error: replayed.error.map(|e| e.to_string()),
        warnings: replayed.warnings,
    })
}

/// The review as text: one line per move, then the summaries.
pub fn render_text(r: &ReviewJson) -> String {
    let shown = |v: &Option<ValueJson>| match v {
        None => "?".to_string(),
        Some(ValueJson { category, dtm: Some(n) }) => format!("{category} {n}"),
        Some(ValueJson { category, dtm: None }) => category.to_string(),
    };
    let mut out = format!("review of a game of {} from {}\n", r.rules, r.start);
    for m in &r.moves {
        let mark = match m.mark {
            "gave_plies" => format!("gave {} plies", m.plies_given),
            "threw_win" => "THREW A WIN".to_string(),
            "lost_draw" => "LOST A DRAW".to_string(),
            "not_covered" => format!("not covered (no table {})", m.missing.as_deref().unwrap_or("?")),
            other => other.to_string(),
        };
        let best =
            m.best.as_ref().map(|b| format!("best {} ({})", b.notation, shown(&Some(b.value)))).unwrap_or_default();
        out.push_str(&format!(
            "{:<7}{:<12}{:>9} -> {:<9} {:<28} {best}\n",
            m.number,
            m.notation,
            shown(&m.before),
            shown(&m.after),
            mark
        ));
    }
    for (name, s) in [("White", &r.summary.white), ("Black", &r.summary.black)] {
        out.push_str(&format!(
            "{name}: {} move{}: {} kept the value, {} threw a win away, {} lost a draw, {} gave plies away ({} in all), {} not covered",
            s.moves,
            if s.moves == 1 { "" } else { "s" },
            s.kept,
            s.threw_win,
            s.lost_draw,
            s.gave_plies,
            s.plies_given,
            s.not_covered
        ));
        match s.first_decisive_mistake {
            Some(p) => out.push_str(&format!("; first decisive mistake at ply {p}\n")),
            None => out.push('\n'),
        }
    }
    match r.first_decisive_mistake.and_then(|p| r.moves.iter().find(|m| m.ply == p)) {
        Some(m) => out.push_str(&format!(
            "first decisive mistake: {} {} ({} -> {})\n",
            m.number,
            m.notation,
            shown(&m.before),
            shown(&m.after)
        )),
        None => out.push_str("no decisive mistake\n"),
    }
    for w in &r.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    if let Some(e) = &r.error {
        out.push_str(&format!("stopped: {e}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks() {
        let (win, loss, draw) = (|n| Value::win(n).unwrap(), |n| Value::loss(n).unwrap(), Value::Draw);
        assert_eq!(mark(win(5), win(5)), ("kept", 0));
        assert_eq!(mark(win(5), win(9)), ("gave_plies", 4));
        assert_eq!(mark(win(5), draw), ("threw_win", 0));
        assert_eq!(mark(win(5), loss(8)), ("threw_win", 0));
        assert_eq!(mark(draw, draw), ("kept", 0));
        assert_eq!(mark(draw, loss(4)), ("lost_draw", 0));
        assert_eq!(mark(loss(10), loss(10)), ("kept", 0));
        assert_eq!(mark(loss(10), loss(4)), ("gave_plies", 6));
    }
}
