//! Values of positions for the side to move, and their 16-bit table entries.
//!
//! | value | meaning | entry |
//! |---|---|---|
//! | `Win(n)` | the side to move wins in `n` plies (n odd) | `n + 1` |
//! | `Loss(n)` | the side to move loses in `n` plies (n even) | `n + 1` |
//! | `Draw` | neither side can force a win | `0` |
//! | (padding) | the slot is not a canonical position | `0xFFFF` |
//!
//! DTM counts plies to the end of the game under perfect play (the winner
//! takes the shortest way, the loser the longest); a move with its removal is
//! one ply. `Loss(0)`: the side to move is blocked or has fewer than three
//! stones. Under misère play that side has won instead, stored as `Win(1)`:
//! the end of the game counts as one ply, so that wins stay odd
//! ([`crate::RuleSet::decided_value`]). Entries hold DTM up to 65,533 plies.

use std::cmp::Ordering;
use std::fmt;

/// The game-theoretic value of a position for the side to move.
///
/// A win's distance is odd and a loss's even (the winner makes the last
/// move). The distances are [`Odd`] and [`Even`], which only this crate
/// makes, so a `Value` built elsewhere comes from the checked constructors
/// ([`Value::win`], [`Value::loss`]), from [`Value::from_ply`] (which picks
/// the side by parity), from [`Value::LOST`] and [`Value::back`], or from a
/// table entry. Matching works as usual: `Value::Win(n)` binds `n`, read with
/// `n.get()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// Win in this many plies (odd).
    Win(Odd),
    /// Loss in this many plies (even).
    Loss(Even),
    /// Draw.
    Draw,
}

/// Defines a distance of one parity, made only in this crate.
macro_rules! plies {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u16);

        /// The bare number, so that a value debugs as `Win(15)`.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl $name {
            /// The number of plies.
            #[inline]
            pub const fn get(self) -> u16 {
                self.0
            }
        }

        impl From<$name> for u16 {
            fn from(p: $name) -> u16 {
                p.0
            }
        }

        impl From<$name> for u32 {
            fn from(p: $name) -> u32 {
                p.0.into()
            }
        }

        impl From<$name> for u64 {
            fn from(p: $name) -> u64 {
                p.0.into()
            }
        }

        impl From<$name> for usize {
            fn from(p: $name) -> usize {
                p.0.into()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

plies!(
    /// The distance of a [`Value::Win`]: an odd number of plies, at most
    /// [`MAX_DTM`] when it comes from a table. Read with `get`.
    Odd
);
plies!(
    /// The distance of a [`Value::Loss`]: an even number of plies, at most
    /// [`MAX_DTM`] when it comes from a table. Read with `get`.
    Even
);

/// Table entry of a slot that is not a canonical position.
pub const PADDING_ENTRY: u16 = 0xFFFF;
/// Table entry of a draw.
pub const DRAW_ENTRY: u16 = 0;
/// The largest DTM an entry can hold, in plies.
pub const MAX_DTM: u16 = 0xFFFD;

impl Value {
    /// `Loss(0)`: the side to move has lost (it is blocked or has fewer than
    /// three stones). [`Value::back`] of it is `Win(1)`, a move that wins at
    /// once.
    pub const LOST: Value = Value::Loss(Even(0));

    /// The value with DTM `ply`: `Win(ply)` when odd, `Loss(ply)` when even.
    #[inline]
    pub fn from_ply(ply: u16) -> Value {
        if ply % 2 == 1 {
            Value::Win(Odd(ply))
        } else {
            Value::Loss(Even(ply))
        }
    }

    /// A win in `plies` plies: `None` unless `plies` is odd (the winner
    /// makes the last move) and at most [`MAX_DTM`]. The checked way to make
    /// a win from a number read from outside.
    #[inline]
    pub fn win(plies: u16) -> Option<Value> {
        (plies % 2 == 1 && plies <= MAX_DTM).then_some(Value::Win(Odd(plies)))
    }

    /// A loss in `plies` plies: `None` unless `plies` is even (the loser is
    /// to move at the end) and at most [`MAX_DTM`].
    #[inline]
    pub fn loss(plies: u16) -> Option<Value> {
        (plies % 2 != 1 && plies <= MAX_DTM).then_some(Value::Loss(Even(plies)))
    }

    /// Decodes a table entry; `None` for the padding entry.
    #[inline]
    pub fn from_entry(entry: u16) -> Option<Value> {
        match entry {
            DRAW_ENTRY => Some(Value::Draw),
            PADDING_ENTRY => None,
            e => Some(Value::from_ply(e - 1)),
        }
    }

    /// The table entry of this value (see the module table).
    #[inline]
    pub fn to_entry(self) -> u16 {
        match self {
            Value::Draw => DRAW_ENTRY,
            Value::Win(Odd(n)) | Value::Loss(Even(n)) => n + 1,
        }
    }

    /// The distance to mate in plies, `None` for a draw.
    #[inline]
    pub fn plies(self) -> Option<u16> {
        match self {
            Value::Draw => None,
            Value::Win(Odd(n)) | Value::Loss(Even(n)) => Some(n),
        }
    }

    /// The value of a move for the mover, given the value of the position
    /// it leads to for the opponent: `Loss(n)` becomes `Win(n + 1)`, `Win(n)`
    /// becomes `Loss(n + 1)`.
    #[inline]
    pub fn back(self) -> Value {
        match self {
            Value::Win(n) => Value::Loss(Even(n.0 + 1)),
            Value::Loss(n) => Value::Win(Odd(n.0 + 1)),
            Value::Draw => Value::Draw,
        }
    }

    /// Orders values best first for the side to move: shortest win, then
    /// draws, then the longest loss.
    pub fn best_first(a: &Value, b: &Value) -> Ordering {
        fn key(v: &Value) -> (u8, i32) {
            match *v {
                Value::Win(n) => (0, n.0 as i32),
                Value::Draw => (1, 0),
                Value::Loss(n) => (2, -(n.0 as i32)),
            }
        }
        key(a).cmp(&key(b))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n}"),
            Value::Loss(n) => write!(f, "loss in {n}"),
            Value::Draw => write!(f, "draw"),
        }
    }
}

/// Counts of values: wins, losses and draws for the side to move, and the
/// longest win and the longest loss (DTM, in plies). The one place where a
/// table's statistics are added up: a table header's counts
/// ([`crate::TableHeader::for_entries`], the WDL export), `morris verify`'s
/// re-count, the census of Malom's files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Positions won by the side to move.
    pub wins: u64,
    /// Positions lost by the side to move.
    pub losses: u64,
    /// Drawn positions.
    pub draws: u64,
    /// The longest win; `None` without wins.
    pub longest_win: Option<Odd>,
    /// The longest loss; `None` without losses.
    pub longest_loss: Option<Even>,
}

impl Tally {
    /// Counts one more position of value `v`.
    #[inline]
    pub fn add(&mut self, v: Value) {
        match v {
            Value::Win(n) => {
                self.wins += 1;
                self.longest_win = self.longest_win.max(Some(n));
            }
            Value::Loss(n) => {
                self.losses += 1;
                self.longest_loss = self.longest_loss.max(Some(n));
            }
            Value::Draw => self.draws += 1,
        }
    }

    /// The tally of both: counts added, the longer distances kept.
    pub fn merge(self, other: Tally) -> Tally {
        Tally {
            wins: self.wins + other.wins,
            losses: self.losses + other.losses,
            draws: self.draws + other.draws,
            longest_win: self.longest_win.max(other.longest_win),
            longest_loss: self.longest_loss.max(other.longest_loss),
        }
    }

    /// The positions counted: wins + losses + draws.
    pub fn positions(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// The longest win in plies as a table header stores it: 0 without
    /// wins.
    pub fn max_win(&self) -> u32 {
        self.longest_win.map_or(0, u32::from)
    }

    /// The longest loss in plies as a table header stores it: 0 without
    /// losses (and for `Loss(0)` alone).
    pub fn max_loss(&self) -> u32 {
        self.longest_loss.map_or(0, u32::from)
    }
}

impl Extend<Value> for Tally {
    fn extend<I: IntoIterator<Item = Value>>(&mut self, values: I) {
        for v in values {
            self.add(v);
        }
    }
}

impl FromIterator<Value> for Tally {
    fn from_iter<I: IntoIterator<Item = Value>>(values: I) -> Tally {
        let mut t = Tally::default();
        t.extend(values);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_constructors_keep_wins_odd_and_losses_even() {
        assert_eq!(Value::win(25), Some(Value::win(25).unwrap()));
        assert_eq!(Value::win(24), None);
        assert_eq!(Value::loss(0), Some(Value::loss(0).unwrap()));
        assert_eq!(Value::loss(7), None);
        assert_eq!(Value::win(u16::MAX), None);
    }

    #[test]
    fn entries_round_trip() {
        for v in [
            Value::Draw,
            Value::loss(0).unwrap(),
            Value::win(1).unwrap(),
            Value::loss(26).unwrap(),
            Value::win(4095).unwrap(),
        ] {
            assert_eq!(Value::from_entry(v.to_entry()), Some(v));
        }
        assert_eq!(Value::from_entry(PADDING_ENTRY), None);
    }

    #[test]
    fn best_first_order() {
        let mut v = vec![
            Value::loss(2).unwrap(),
            Value::Draw,
            Value::win(5).unwrap(),
            Value::loss(8).unwrap(),
            Value::win(1).unwrap(),
        ];
        v.sort_by(Value::best_first);
        assert_eq!(
            v,
            [
                Value::win(1).unwrap(),
                Value::win(5).unwrap(),
                Value::Draw,
                Value::loss(8).unwrap(),
                Value::loss(2).unwrap()
            ]
        );
    }
    #[test]
    fn a_tally_counts_values_and_keeps_the_longest_distances() {
        let v = |p: u16| Value::from_ply(p);
        let a: Tally = [v(3), Value::Draw, v(0), v(7), v(2)].into_iter().collect();
        assert_eq!((a.wins, a.losses, a.draws, a.positions()), (2, 2, 1, 5));
        assert_eq!((a.max_win(), a.max_loss()), (7, 2));
        let b: Tally = [v(9), Value::Draw].into_iter().collect();
        let m = a.merge(b);
        assert_eq!((m.wins, m.losses, m.draws, m.max_win(), m.max_loss()), (3, 2, 2, 9, 2));
        let only_lost: Tally = [Value::LOST].into_iter().collect();
        assert_eq!((only_lost.longest_loss, only_lost.max_loss(), only_lost.max_win()), (Some(Even(0)), 0, 0));
        assert_eq!(Tally::default().longest_win, None);
    }
}
