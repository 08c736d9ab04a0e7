//! Legal moves (placements, slides, flights, each with its removals) and
//! un-moves of the sliding phase, on bitboards relative to the side to move
//! (docs/rules.md, "Play" and "Mills and removal"); the end of the game; move
//! notation; perft.

use std::fmt;

use crate::board::{Bitboard, Board, Point, Points};
use crate::position::{Color, Position, Setup};
use crate::rules::{NoMoveOutcome, Removal, RuleSet};

/// A move: a placement (`from == None`), or a slide or flight from `from`
/// to `to`; with the removals it makes, if it closes a mill.
///
/// A move closing one mill (or several, under the usual rule) removes
/// `removal`. Under [`RuleSet::remove_per_mill`] a move closing k mills at
/// once removes k stones (as many as the opponent has): `removal` and the
/// k - 1 points of `extra_removals`, removed in that order (`removal` first,
/// then the others in a legal order); two moves that remove the same set of
/// stones are the same move. `extra_removals` is 0 for every other move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The point a stone leaves (`None` for a placement).
    pub from: Option<Point>,
    /// The point a stone arrives at.
    pub to: Point,
    /// The opponent's stone removed, if the move closes a mill.
    pub removal: Option<Point>,
    /// Further opponent stones removed when the move closes several mills
    /// under [`RuleSet::remove_per_mill`]; 0 otherwise.
    pub extra_removals: Bitboard,
}

impl Move {
    /// A placement on `to` without removal.
    pub fn place(to: Point) -> Move {
        Move { from: None, to, removal: None, extra_removals: 0 }
    }

    /// A slide or flight from `from` to `to` without removal.
    pub fn step(from: Point, to: Point) -> Move {
        Move { from: Some(from), to, removal: None, extra_removals: 0 }
    }

    /// This move removing `r` (replacing any removal).
    pub fn removing(self, r: Point) -> Move {
        Move { removal: Some(r), extra_removals: 0, ..self }
    }

    /// Every stone the move removes.
    #[inline]
    pub fn removals(&self) -> Bitboard {
        self.removal.map_or(0, |r| 1 << r) | self.extra_removals
    }

    /// The move mapped point by point, e.g. by a symmetry.
    pub fn map_points(&self, f: impl Fn(Point) -> Point) -> Move {
        Move {
            from: self.from.map(&f),
            to: f(self.to),
            removal: self.removal.map(&f),
            extra_removals: Points(self.extra_removals).fold(0, |acc, p| acc | (1 << f(p))),
        }
    }

    /// The move in docs/rules.md notation on `board`: `d6`, `d6-d5`, `d6-d5xb4`,
    /// `a1xd7`; several removals (one per mill) each with their `x`,
    /// `removal` first: `d6xb4xf4`.
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
        for r in Points(self.extra_removals) {
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

/// A move as written, read against a board but not yet against a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenMove {
    /// The point left (`None` for a placement).
    pub from: Option<Point>,
    /// The point reached.
    pub to: Point,
    /// The points named after `x`, in the order written.
    pub removals: Vec<Point>,
}

impl WrittenMove {
    /// Reads docs/rules.md move notation (`d6`, `d6-d5`, `d6-d5xb4`, `a1xd7`,
    /// `d6xb4xf4`) on the rule set's board, case-insensitive.
    ///
    /// # Errors
    /// [`MoveError::Syntax`] for anything else or a point the board lacks.
    pub fn parse(text: &str, rules: &RuleSet) -> Result<WrittenMove, MoveError> {
        let board = rules.board();
        let t = text.trim().to_ascii_lowercase();
        let syntax = || MoveError::Syntax { text: text.trim().to_string(), how: how_to_write_moves(rules) };
        let point = |name: &str| board.point(name).ok_or_else(syntax);
        let mut parts = t.split('x');
        let head = parts.next().ok_or_else(syntax)?;
        let (from, to) = match head.split_once('-') {
            Some((f, to)) => (Some(point(f)?), point(to)?),
            None => (None, point(head)?),
        };
        let removals = parts.map(point).collect::<Result<Vec<_>, _>>()?;
        Ok(WrittenMove { from, to, removals })
    }

    /// Whether `mv` is this move (same points, same set of removals).
    pub fn matches(&self, mv: &Move) -> bool {
        mv.from == self.from
            && mv.to == self.to
            && mv.removals() == self.removals.iter().fold(0, |acc, &r| acc | (1 << r))
            && self.removals.len() == mv.removals().count_ones() as usize
    }
}

/// Examples of moves under `rules`, on its board: a placement, a slide
/// and, where mills remove stones, a slide with a removal: `d6`, `d6-d5`,
/// `d6-d5xb4` on the 24- and 16-point boards; `a1`, `a1-b1` on the 9-point
/// board, where a line wins and nothing is removed.
pub fn move_examples(rules: &RuleSet) -> Vec<String> {
    let board = rules.board();
    let by_name = |names: [&str; 3]| -> Option<[Point; 3]> {
        let [p, q, r] = names.map(|n| board.point(n));
        let (p, q, r) = (p?, q?, r?);
        (board.adjacent(p) & (1 << q) != 0).then_some([p, q, r])
    };
    let [p, q, r] = by_name(["d6", "d5", "b4"]).unwrap_or_else(|| {
        let p = (0..board.len() as Point).find(|&p| board.adjacent(p) != 0).unwrap_or(0);
        let q = Points(board.adjacent(p)).next().unwrap_or(p);
        let r = (0..board.len() as Point).rev().find(|&r| r != p && r != q).unwrap_or(p);
        [p, q, r]
    });
    let [p, q, r] = [p, q, r].map(|x| board.point_name(x));
    let mut v = vec![p.to_string(), format!("{p}-{q}")];
    if !rules.line_wins() {
        v.push(format!("{p}-{q}x{r}"));
    }
    v
}

/// How moves are written under `rules`, with [`move_examples`] on its
/// board: `a placement `d6`, a slide `d6-d5`, and a removal with `x`
/// (`d6-d5xb4`)`.
pub fn how_to_write_moves(rules: &RuleSet) -> String {
    match move_examples(rules).as_slice() {
        [place, slide, remove] => {
            format!("a placement `{place}`, a slide `{slide}`, and a removal with `x` (`{remove}`)")
        }
        [place, slide, ..] => {
            format!("a placement `{place}` or a slide `{slide}` (rule set `{}` removes no stones)", rules.name())
        }
        _ => String::new(),
    }
}

/// The opponent stones that a mill may remove ([`RuleSet::removal`]):
/// under the standard rule those in no mill, or all of them when every
/// one stands in a mill; under the strict rule those in no mill (none when
/// every one stands in a mill: the mill removes nothing); under the
/// lenient rule all of them.
#[inline]
pub fn removable(rules: &RuleSet, them: Bitboard) -> Bitboard {
    if rules.removal() == Removal::Lenient {
        return them;
    }
    let free = them & !rules.board().stones_in_mills(them);
    if free == 0 && rules.removal() == Removal::Standard {
        them
    } else {
        free
    }
}

/// Whether a mill closed against the opponent's stones `victims` removes a
/// stone: the opponent has a stone on the board, lines do not win (Three
/// Men's Morris removes nothing), and [`removable`] leaves one (under the
/// strict rule not when all of `victims` stand in mills). A mill that
/// removes nothing is an ordinary move: it keeps the stones of both sides,
/// and un-moves must produce it too.
#[inline]
pub fn mill_removes(rules: &RuleSet, victims: Bitboard) -> bool {
    // The strict rule's look at the mills only under that rule: this is
    // asked for every position the solver propagates.
    victims != 0
        && !rules.line_wins()
        && (rules.removal() != Removal::Strict || victims & !rules.board().stones_in_mills(victims) != 0)
}

/// Appends the legal moves of the side to move to `out`: `us`, `them` are
/// the stones on the board, `us_in_hand` the side to move's stones in hand.
/// A player with stones in hand places (and, under the Lasker rule, may also
/// move); otherwise slides, or flies when the rule set allows it with
/// exactly 3 stones. A move closing a mill appears once per removable stone
/// (once per removable set of stones under the remove-per-mill rule); if the
/// opponent has no stone on the board it appears without removal. Under
/// [`RuleSet::line_wins`] nothing is removed: a move that makes a line ends
/// the game (see [`Position::outcome`]).
///
/// This does not check whether the game is already over (see
/// [`Position::legal_moves`]).
pub fn generate_moves(rules: &RuleSet, us: Bitboard, them: Bitboard, us_in_hand: u8, out: &mut Vec<Move>) {
    for_each_move(rules, us, them, us_in_hand, |mv, _| out.push(mv));
}

/// Calls `f(move, mover's stones after the move)` for each legal move, in
/// the order of [`generate_moves`] (which is built on it); for solvers that
/// need no move list.
#[inline]
pub fn for_each_move(rules: &RuleSet, us: Bitboard, them: Bitboard, us_in_hand: u8, mut f: impl FnMut(Move, Bitboard)) {
    if rules.remove_per_mill() {
        // Kept out of the usual path, which the solver runs hot.
        for_each_move_per_mill(rules, us, them, us_in_hand, f);
        return;
    }
    let board = rules.board();
    // Mills remove only if the opponent has a stone, lines do not win and
    // (strict rule) one of its stones stands in no mill.
    let removes = mill_removes(rules, them);
    let mut removable_cache: Option<Bitboard> = None;
    for_each_step(rules, us, them, us_in_hand, |from, to, after| {
        if removes && board.closes_mill(after, to) {
            let set = *removable_cache.get_or_insert_with(|| removable(rules, them));
            for r in Points(set) {
                f(Move { from, to, removal: Some(r), extra_removals: 0 }, after);
            }
        } else {
            f(Move { from, to, removal: None, extra_removals: 0 }, after);
        }
    });
}

/// [`for_each_move`] under [`RuleSet::remove_per_mill`]: a move closing
/// k > 1 mills at once comes once per set of stones that k removals in a
/// row may take.
#[inline(never)]
fn for_each_move_per_mill(
    rules: &RuleSet,
    us: Bitboard,
    them: Bitboard,
    us_in_hand: u8,
    mut f: impl FnMut(Move, Bitboard),
) {
    let board = rules.board();
    let removes = mill_removes(rules, them);
    for_each_step(rules, us, them, us_in_hand, |from, to, after| {
        let closed = if removes { board.mills_through(to).iter().filter(|&&m| after & m == m).count() } else { 0 };
        if closed == 0 {
            f(Move { from, to, removal: None, extra_removals: 0 }, after);
            return;
        }
        for_each_removal_set(rules, them, closed, |removal, extra| {
            f(Move { from, to, removal: Some(removal), extra_removals: extra }, after)
        });
    });
}

/// Calls `push(from, to, mover's stones after)` for each placement, slide
/// or flight of the side to move, before removals: placements while stones
/// are in hand (and then, under the Lasker rule, moves too), else slides,
/// or flights with exactly 3 stones when the rule set allows it.
#[inline(always)]
fn for_each_step(
    rules: &RuleSet,
    us: Bitboard,
    them: Bitboard,
    us_in_hand: u8,
    mut push: impl FnMut(Option<Point>, Point, Bitboard),
) {
    let board = rules.board();
    let empty = board.all() & !us & !them;
    if us_in_hand > 0 {
        for to in Points(empty) {
            push(None, to, us | (1 << to));
        }
        if !rules.lasker() {
            return;
        }
    }
    let flying = rules.flies(us.count_ones() + us_in_hand as u32);
    for from in Points(us) {
        let targets = if flying { empty } else { board.adjacent(from) & empty };
        for to in Points(targets) {
            push(Some(from), to, us ^ (1 << from) ^ (1 << to));
        }
    }
}

/// The distinct sets of stones that `count` removals in a row may take
/// from `them`, each removal obeying [`removable`] on the stones left; the
/// removals stop early when no stone is left, or (strict rule) none is
/// removable (`them` must have a removable stone). Calls `f(first, rest)` once per set with the lexicographically
/// smallest legal order's first stone.
fn for_each_removal_set(rules: &RuleSet, them: Bitboard, count: usize, mut f: impl FnMut(Point, Bitboard)) {
    fn walk(
        rules: &RuleSet,
        left: Bitboard,
        taken: Bitboard,
        first: Option<Point>,
        to_go: usize,
        seen: &mut Vec<Bitboard>,
        f: &mut dyn FnMut(Point, Bitboard),
    ) {
        let can = removable(rules, left);
        if to_go == 0 || can == 0 {
            if let Some(first) = first {
                if !seen.contains(&taken) {
                    seen.push(taken);
                    f(first, taken & !(1 << first));
                }
            }
            return;
        }
        for r in Points(can) {
            walk(rules, left & !(1 << r), taken | (1 << r), first.or(Some(r)), to_go - 1, seen, f);
        }
    }
    let mut seen = Vec::new();
    walk(rules, them, 0, None, count, &mut seen, &mut f);
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
        Some(r) => them & !(1 << r) & !mv.extra_removals,
        None => them,
    };
    (us2, them2)
}

/// Appends to `out` the predecessors of a sliding-phase position by a move
/// without removal: `(us, them)` is the position with `us` to move; each
/// predecessor is `(mover's stones before the move, us)`, the mover being
/// the one to move there ([`for_each_sliding_unmove`]).
pub fn sliding_unmoves(rules: &RuleSet, us: Bitboard, them: Bitboard, out: &mut Vec<(Bitboard, Bitboard)>) {
    for_each_sliding_unmove(rules, us, them, |from, to| out.push((them ^ (1 << to) ^ (1 << from), us)));
}

/// Calls `f(from, to)` for every un-move into a sliding-phase position by
/// a move without removal, `(us, them)` with `us` to move: the mover's last
/// stone went from the empty point `from` (adjacent, or any when the mover
/// flies) to `to`, a point of `them` where it closed no mill, or closed one
/// that removed nothing ([`mill_removes`]: under the strict rule, when all
/// of `us` stand in mills). The predecessor is
/// `(them ^ (1 << to) ^ (1 << from), us)`, distinct for each call.
#[inline]
pub fn for_each_sliding_unmove(rules: &RuleSet, us: Bitboard, them: Bitboard, mut f: impl FnMut(Point, Point)) {
    let board = rules.board();
    let empty = board.all() & !us & !them;
    let flying = rules.flies(them.count_ones());
    // Lines that win end the game: no position after one is propagated.
    let mills_remove = rules.line_wins() || mill_removes(rules, us);
    for to in Points(them) {
        if mills_remove && board.closes_mill(them, to) {
            continue;
        }
        let sources = if flying { empty } else { board.adjacent(to) & empty };
        for from in Points(sources) {
            f(from, to);
        }
    }
}

/// An illegal move or a move that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// The text is not a move in docs/rules.md notation on this board.
    #[error("cannot read move `{}`: write {how}", crate::quoted(.text))]
    Syntax {
        /// The text given.
        text: String,
        /// How moves are written, with examples on the rule set's board
        /// ([`how_to_write_moves`]).
        how: String,
    },
    /// The move is not legal in the position.
    #[error("illegal move `{}`: {why}; legal moves: {legal}", crate::quoted(.mv))]
    Illegal {
        /// The move given.
        mv: String,
        /// Why it is illegal.
        why: String,
        /// The legal moves, space-separated (`none` when the game is over).
        legal: String,
    },
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This player lost: fewer than 3 stones, blocked, the opponent made a
    /// line (Three Men's Morris), or a full board counted against White.
    Loss(Color),
    /// A full board that the rule set calls a draw.
    Draw,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Loss(c) => write!(f, "{} wins, {c} has lost", c.other()),
            Outcome::Draw => f.write_str("a draw (the board is full)"),
        }
    }
}

/// The rule that ended a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndReason {
    /// The loser has fewer than 3 stones, on the board and in hand together
    /// (this many).
    FewerThanThree(u32),
    /// The winner has a line of three (Three Men's Morris,
    /// [`RuleSet::line_wins`]).
    Line,
    /// The side to move has no legal move.
    Blocked,
    /// The board is full at the end of placement; the rule set's
    /// [`crate::rules::FullBoardOutcome`] decides.
    FullBoard,
}

/// How and why a game ended: [`Position::game_over`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GameOver {
    /// Who lost, or a draw.
    pub outcome: Outcome,
    /// The rule that decided it.
    pub reason: EndReason,
    /// Misère play ([`RuleSet::misere`]) turned the result: the player
    /// `outcome` names as the loser is the one the rule would have made
    /// the winner.
    pub misere: bool,
}

impl GameOver {
    /// The rule in words, e.g. `White has a line of three`, `Black cannot
    /// move`, `Black is down to 2 stones`, `the board is full at the end of
    /// placement`.
    pub fn why(&self) -> String {
        // The rule names the player it decides against under normal play.
        let outcome = match self.outcome {
            Outcome::Loss(c) if self.misere => Outcome::Loss(c.other()),
            o => o,
        };
        match (outcome, self.reason) {
            (Outcome::Loss(c), EndReason::FewerThanThree(n)) => {
                format!("{c} is down to {n} stone{}", if n == 1 { "" } else { "s" })
            }
            (Outcome::Loss(c), EndReason::Line) => format!("{} has a line of three", c.other()),
            (Outcome::Loss(c), EndReason::Blocked) => format!("{c} cannot move"),
            (Outcome::Loss(c), EndReason::FullBoard) => {
                format!("the board is full at the end of placement, which {c} (who placed first) loses")
            }
            (Outcome::Draw, _) => "the board is full at the end of placement".to_string(),
        }
    }
}

impl fmt::Display for GameOver {
    /// The result, then the rule: `Black has lost: White has a line of
    /// three`, `a draw: the board is full at the end of placement`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Loss(c) if self.misere => write!(f, "{c} has lost: {} (misère)", self.why()),
            Outcome::Loss(c) => write!(f, "{c} has lost: {}", self.why()),
            Outcome::Draw => write!(f, "a draw: {}", self.why()),
        }
    }
}

/// Whether the game is over before the side to move moves, for a reason
/// other than having no legal move: a player below 3 stones (board plus
/// hand), or under [`RuleSet::line_wins`] a line on the board. Relative to
/// the side to move: `Some(true)` when the rule decides against the side
/// to move, `Some(false)` against the opponent (under normal play; misère
/// turns the result, [`RuleSet::decided_value`]).
#[inline]
pub fn decided_before_moving(
    rules: &RuleSet,
    us: Bitboard,
    them: Bitboard,
    us_in_hand: u8,
    them_in_hand: u8,
) -> Option<bool> {
    decided_why(rules, us, them, us_in_hand, them_in_hand).map(|(lost, _)| lost)
}

/// [`decided_before_moving`] with the rule that decided.
#[inline]
fn decided_why(
    rules: &RuleSet,
    us: Bitboard,
    them: Bitboard,
    us_in_hand: u8,
    them_in_hand: u8,
) -> Option<(bool, EndReason)> {
    let ours = us.count_ones() + (us_in_hand as u32);
    if ours < 3 {
        return Some((true, EndReason::FewerThanThree(ours)));
    }
    let theirs = them.count_ones() + (them_in_hand as u32);
    if theirs < 3 {
        return Some((false, EndReason::FewerThanThree(theirs)));
    }
    if rules.line_wins() {
        // The opponent's line was made by the move just played; a line of
        // the side to move (only in a position set up by hand) ended the
        // game before.
        if rules.has_line(them) {
            return Some((true, EndReason::Line));
        }
        if rules.has_line(us) {
            return Some((false, EndReason::Line));
        }
    }
    None
}

impl Position {
    /// The start of a game under `rules`: an empty board, White to move,
    /// each player with the rule set's stones in hand.
    pub fn start(rules: &RuleSet) -> Position {
        // Trusted: an empty board and full hands, which every rule set allows.
        Position::trusted(Setup {
            white: 0,
            black: 0,
            side_to_move: Color::White,
            white_in_hand: rules.stones(),
            black_in_hand: rules.stones(),
        })
    }

    /// How the game has ended in this position, or `None` while the side to
    /// move has a legal move. In order: a player with fewer than 3 stones
    /// (board plus hand) has lost; under [`RuleSet::line_wins`] the player
    /// who made a line has won; a side to move without a legal move has
    /// lost, except on a full board, where the rule set's
    /// [`crate::rules::FullBoardOutcome`] decides (a draw, or a loss for
    /// White whoever is to move).
    pub fn outcome(&self, rules: &RuleSet) -> Option<Outcome> {
        self.game_over(rules).map(|g| g.outcome)
    }

    /// How the game has ended in this position and by which rule, or `None`
    /// while the side to move has a legal move; the order of
    /// [`Position::outcome`]. The one place where the reason is decided.
    pub fn game_over(&self, rules: &RuleSet) -> Option<GameOver> {
        let me = self.side_to_move();
        // Under misère the player the rule decides against wins.
        let lost = |normal_loser: Color, reason| GameOver {
            outcome: Outcome::Loss(if rules.misere() { normal_loser.other() } else { normal_loser }),
            reason,
            misere: rules.misere(),
        };
        if let Some((side_to_move_lost, reason)) =
            decided_why(rules, self.us(), self.them(), self.us_in_hand(), self.them_in_hand())
        {
            return Some(lost(if side_to_move_lost { me } else { me.other() }, reason));
        }
        let mut any = false;
        for_each_move(rules, self.us(), self.them(), self.us_in_hand(), |_, _| any = true);
        if any {
            return None;
        }
        Some(match rules.no_move_outcome(self.us(), self.them()) {
            NoMoveOutcome::SideToMoveLoses => lost(me, EndReason::Blocked),
            NoMoveOutcome::Draw => GameOver { outcome: Outcome::Draw, reason: EndReason::FullBoard, misere: false },
            NoMoveOutcome::WhiteLoses => lost(Color::White, EndReason::FullBoard),
        })
    }

    /// The legal moves of the side to move (empty when the game is over:
    /// a player has fewer than 3 stones, a line decided Three Men's Morris,
    /// or the side to move is blocked or faces a full board).
    pub fn legal_moves(&self, rules: &RuleSet) -> Vec<Move> {
        let mut out = Vec::new();
        if decided_before_moving(rules, self.us(), self.them(), self.us_in_hand(), self.them_in_hand()).is_none() {
            generate_moves(rules, self.us(), self.them(), self.us_in_hand(), &mut out);
        }
        out
    }

    /// The legal moves up to symmetry: one move per class of moves that lead
    /// to the same position up to the board's symmetries (the first moves
    /// of `nine` from the empty board: `a1`, `a4`, `b2`, `b4`). Each class
    /// is represented by its move whose notation sorts first, and the list
    /// is in notation order, so every command that lists moves "up to
    /// symmetry" names the same ones.
    pub fn legal_moves_up_to_symmetry(&self, rules: &RuleSet) -> Vec<Move> {
        let board = rules.board();
        let mut moves: Vec<(String, Move)> =
            self.legal_moves(rules).into_iter().map(|mv| (mv.notation(board), mv)).collect();
        moves.sort_by(|a, b| a.0.cmp(&b.0));
        let mut seen = std::collections::HashSet::new();
        moves
            .into_iter()
            .filter(|(_, mv)| {
                let child = self.play_unchecked(*mv);
                let s = child.sector();
                // A legal move's child fits the board, so `sector` cannot panic.
                let slot = rules.indexer().sector(s).index(child.us(), child.them());
                seen.insert((s, slot))
            })
            .map(|(_, mv)| mv)
            .collect()
    }

    /// The position after `mv`, which the caller has taken from
    /// [`Position::legal_moves`] (or [`Position::parse_move`]): a trusted
    /// constructor, since a legal move keeps every guarantee of
    /// [`Position`] (stones stay on empty points of the board, a placement
    /// takes one from the hand, the turn passes). Another move is not
    /// checked and may break them.
    pub fn play_unchecked(&self, mv: Move) -> Position {
        let (us, them) = apply_move(self.us(), self.them(), mv);
        let us_in_hand = if mv.from.is_none() { self.us_in_hand() - 1 } else { self.us_in_hand() };
        Position::trusted(Setup::from_relative(them, us, self.side_to_move().other(), self.them_in_hand(), us_in_hand))
    }

    /// Finds the legal move written as `text` in docs/rules.md notation (several
    /// removals may be written in any legal order).
    ///
    /// # Errors
    /// [`MoveError::Syntax`] if the text is not a move on this board,
    /// [`MoveError::Illegal`] (saying why, and listing the legal moves) if
    /// it is not legal.
    pub fn parse_move(&self, rules: &RuleSet, text: &str) -> Result<Move, MoveError> {
        let written = WrittenMove::parse(text, rules)?;
        let legal = self.legal_moves(rules);
        if let Some(mv) = legal.iter().find(|m| written.matches(m)) {
            return Ok(*mv);
        }
        let board = rules.board();
        let mut names: Vec<String> = legal.iter().map(|m| m.notation(board)).collect();
        names.sort();
        Err(MoveError::Illegal {
            mv: text.trim().to_string(),
            why: self.why_illegal(rules, &written, &legal),
            legal: if names.is_empty() { "none".to_string() } else { names.join(" ") },
        })
    }

    /// Why a written move that matches no legal move is illegal.
    fn why_illegal(&self, rules: &RuleSet, w: &WrittenMove, legal: &[Move]) -> String {
        let board = rules.board();
        let name = |p: Point| board.point_name(p);
        let list = |set: Bitboard| {
            let mut v: Vec<&str> = Points(set).map(name).collect();
            v.sort_unstable();
            v.join(", ")
        };
        let me = self.side_to_move();
        if let Some(over) = self.game_over(rules) {
            return format!("the game is over: {over}");
        }
        let (us, them, hand) = (self.us(), self.them(), self.us_in_hand());
        let occupied = us | them;
        match w.from {
            None => {
                if hand == 0 {
                    return format!("{me} has no stones in hand; move a stone with `from-to`");
                }
            }
            Some(from) => {
                if hand > 0 && !rules.lasker() {
                    return format!(
                        "{me} still has {hand} stone{} in hand and must place (write the point only, e.g. `{}`)",
                        if hand == 1 { "" } else { "s" },
                        name(Points(board.all() & !occupied).next().unwrap_or(0))
                    );
                }
                if us & (1 << from) == 0 {
                    return format!("{me} has no stone on {}", name(from));
                }
            }
        }
        if occupied & (1 << w.to) != 0 {
            return format!("{} is not empty", name(w.to));
        }
        if let Some(from) = w.from {
            let total = us.count_ones() + hand as u32;
            if !rules.flies(total) && board.adjacent(from) & (1 << w.to) == 0 {
                let why = if rules.flying() {
                    let only = if rules.fly_rule() == crate::rules::Flying::AtFour { "3 or 4" } else { "3" };
                    format!("{me} has {total} stones and flies only with {only}")
                } else {
                    format!("rule set `{}` has no flying", rules.name())
                };
                return format!("{} and {} are not adjacent ({why})", name(from), name(w.to));
            }
        }
        // The points are right: the removals are wrong.
        let base: Vec<&Move> = legal.iter().filter(|m| m.from == w.from && m.to == w.to).collect();
        let Some(first) = base.first() else {
            return "it is not among the legal moves".to_string();
        };
        let needed = first.removals().count_ones() as usize;
        if rules.line_wins() && !w.removals.is_empty() {
            return format!("rule set `{}` removes no stones (a line wins)", rules.name());
        }
        if needed == 0 && !w.removals.is_empty() {
            if them != 0
                && rules.removal() == Removal::Strict
                && board.closes_mill(apply_move(us, them, **first).0, w.to)
            {
                return format!(
                    "every stone of {} stands in a mill, and under strict removal the mill then removes nothing",
                    me.other()
                );
            }
            return "it closes no mill, so it removes nothing".to_string();
        }
        if needed > 0 && w.removals.is_empty() {
            let example = first.notation(board);
            return format!(
                "it closes a mill: name the stone{} to remove with `x`, e.g. `{example}`",
                if needed > 1 { "s" } else { "" }
            );
        }
        if needed != w.removals.len() {
            return format!("it removes {needed} stone{}, not {}", if needed > 1 { "s" } else { "" }, w.removals.len());
        }
        let mut seen: Bitboard = 0;
        for &r in &w.removals {
            if seen & (1 << r) != 0 {
                return format!("{} is removed twice", name(r));
            }
            seen |= 1 << r;
            if them & (1 << r) == 0 {
                return format!("{} holds no {} stone", name(r), me.other());
            }
        }
        if needed == 1 {
            let allowed = removable(rules, them);
            return format!(
                "{} stands in a mill and {} has stones outside mills (removable: {})",
                name(w.removals[0]),
                me.other(),
                list(allowed)
            );
        }
        format!("no legal order removes {} (a stone in a mill goes only when all are)", list(seen))
    }

    /// The player who has lost ([`Position::outcome`]); `None` while the
    /// game goes on and when it ended in a draw.
    pub fn loser(&self, rules: &RuleSet) -> Option<Color> {
        match self.outcome(rules) {
            Some(Outcome::Loss(c)) => Some(c),
            _ => None,
        }
    }
}

/// The number of distinct move sequences of length `depth` from a position
/// (a removal choice makes a distinct move; a finished game ends a
/// sequence, so sequences that end early are not counted). Relative to the
/// side to move: `us`, `them` on the board, `us_in_hand`, `them_in_hand`.
pub fn perft(rules: &RuleSet, us: Bitboard, them: Bitboard, us_in_hand: u8, them_in_hand: u8, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if decided_before_moving(rules, us, them, us_in_hand, them_in_hand).is_some() {
        return 0;
    }
    let mut n = 0u64;
    if depth == 1 {
        for_each_move(rules, us, them, us_in_hand, |_, _| n += 1);
        return n;
    }
    for_each_move(rules, us, them, us_in_hand, |mv, after| {
        let them_after = them & !mv.removals();
        let hand_after = us_in_hand - u8::from(mv.from.is_none());
        n += perft(rules, them_after, after, them_in_hand, hand_after, depth - 1);
    });
    n
}

impl Position {
    /// [`perft`] from this position.
    pub fn perft(&self, rules: &RuleSet, depth: u32) -> u64 {
        perft(rules, self.us(), self.them(), self.us_in_hand(), self.them_in_hand(), depth)
    }

    /// Every legal move in the notation of `rules`' board ([`Move::notation`]:
    /// `d2`, `a1-a4`, `d2xa7`), sorted as strings; empty where the side to
    /// move has none.
    pub fn legal_move_names(&self, rules: &RuleSet) -> Vec<String> {
        let mut names: Vec<String> = self.legal_moves(rules).iter().map(|m| m.notation(rules.board())).collect();
        names.sort();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(rules: &RuleSet, text: &str) -> Position {
        Position::parse(text, rules).unwrap()
    }

    fn notations(rules: &RuleSet, p: &Position) -> Vec<String> {
        p.legal_move_names(rules)
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
            assert!(preds.contains(&(p.us(), p.them())), "{}", m.notation(rules.board()));
        }
    }

    /// The reason is the rule that ended the game (issue 19: a line of
    /// three was reported as "Black cannot move").
    #[test]
    fn game_over_names_the_rule() {
        let three = RuleSet::preset("three").unwrap();
        // White's c1-c2-c3 is a line; Black is also without a move.
        let p = pos(&three, "W:c1,c2,c3 B:a3,a2,b1 b");
        let over = p.game_over(&three).unwrap();
        assert_eq!((over.outcome, over.reason), (Outcome::Loss(Color::Black), EndReason::Line));
        assert_eq!(over.to_string(), "Black has lost: White has a line of three");
        let nine = RuleSet::preset("nine").unwrap();
        // Two stones on the board and one in hand are three: not over.
        assert_eq!(pos(&nine, "W:a1,d1,g4 B:a7,g7 b 0 1").game_over(&nine), None);
        let over = pos(&nine, "W:a1,d1,g4 B:a7,g7 b").game_over(&nine).unwrap();
        assert_eq!(over.reason, EndReason::FewerThanThree(2));
        assert_eq!(over.why(), "Black is down to 2 stones");
        // Black's a1, b2, c3 are hemmed in by White, and nine-noflying has
        // no flying.
        let noflying = RuleSet::preset("nine-noflying").unwrap();
        let blocked = pos(&noflying, "W:a4,d1,b4,c4,d2,d3 B:a1,b2,c3 b");
        let got = blocked.game_over(&noflying).unwrap();
        assert_eq!((got.outcome, got.reason), (Outcome::Loss(Color::Black), EndReason::Blocked));
        assert_eq!(got.why(), "Black cannot move");
        // Misère (docs/rules.md): the same rules decide for the other player.
        let misere = |r: &RuleSet| r.with_overrides(&crate::Overrides { misere: Some(true), ..Default::default() });
        let nine_m = misere(&nine).unwrap();
        let over = pos(&nine_m, "W:a1,d1,g4 B:a7,g7 b").game_over(&nine_m).unwrap();
        assert_eq!((over.outcome, over.reason), (Outcome::Loss(Color::White), EndReason::FewerThanThree(2)));
        assert_eq!(over.to_string(), "White has lost: Black is down to 2 stones (misère)");
        let noflying_m = misere(&noflying).unwrap();
        let got = pos(&noflying_m, "W:a4,d1,b4,c4,d2,d3 B:a1,b2,c3 b").game_over(&noflying_m).unwrap();
        assert_eq!((got.outcome, got.reason), (Outcome::Loss(Color::White), EndReason::Blocked));
        assert_eq!(got.why(), "Black cannot move");
    }
}
