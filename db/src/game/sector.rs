//! Sectors: the sets of positions with the same stone counts (docs/design.md,
//! "Words") and their names.

use std::fmt;

/// A sector: side to move's stones on the board `w`, opponent's `b`, side to
/// move's stones in hand `wh`, opponent's `bh`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sector {
    /// Side to move's stones on the board.
    pub w: u8,
    /// Opponent's stones on the board.
    pub b: u8,
    /// Side to move's stones in hand.
    pub wh: u8,
    /// Opponent's stones in hand.
    pub bh: u8,
}

impl Sector {
    /// A sliding sector (both hands empty).
    pub const fn sliding(w: u8, b: u8) -> Sector {
        Sector { w, b, wh: 0, bh: 0 }
    }

    /// Whether both hands are empty.
    pub fn is_sliding(&self) -> bool {
        self.wh == 0 && self.bh == 0
    }

    /// The sector seen from the other side: `b-w-bh-wh`.
    pub fn mirrored(&self) -> Sector {
        Sector { w: self.b, b: self.w, wh: self.bh, bh: self.wh }
    }

    /// The sector a move of this one leads to, seen by the opponent, who
    /// moves next: the side to move placed `placed` stones from its hand
    /// (0 for a slide or flight) and removed `removed` of the opponent's
    /// stones from the board. `None` when no such move exists (more stones
    /// placed than in hand, or removed than on the board). Whether the
    /// board has room, and whether a table is kept there, is the rule
    /// set's to say ([`crate::RuleSet::successor_sectors`]).
    pub fn after_move(&self, placed: u8, removed: u8) -> Option<Sector> {
        Some(Sector {
            w: self.b.checked_sub(removed)?,
            b: self.w.checked_add(placed)?,
            wh: self.bh,
            bh: self.wh.checked_sub(placed)?,
        })
    }

    /// Parses `w-b` or `w-b-wh-bh` (the notation of `morris stats`).
    pub fn parse(text: &str) -> Option<Sector> {
        let nums: Vec<u8> = text.split(['-', '_']).map(|t| t.parse().ok()).collect::<Option<_>>()?;
        match nums.as_slice() {
            [w, b] => Some(Sector::sliding(*w, *b)),
            [w, b, wh, bh] => Some(Sector { w: *w, b: *b, wh: *wh, bh: *bh }),
            _ => None,
        }
    }
}

impl fmt::Display for Sector {
    /// `w-b` for a sliding sector, `w-b-wh-bh` otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_sliding() {
            write!(f, "{}-{}", self.w, self.b)
        } else {
            write!(f, "{}-{}-{}-{}", self.w, self.b, self.wh, self.bh)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let s = Sector { w: 3, b: 4, wh: 5, bh: 6 };
        assert_eq!(s.to_string(), "3-4-5-6");
        assert_eq!(Sector::sliding(3, 4).to_string(), "3-4");
        assert_eq!(Sector::parse("3-4"), Some(Sector::sliding(3, 4)));
    }
}
