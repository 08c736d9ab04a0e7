//! Positions drawn at random from one sector, with their values: training
//! data for engines and networks (`morris sample`, Python's
//! `Tablebase.sample`).

use morris_db::{Bitboard, Position, Sector};

use crate::longest::side_to_move;
use crate::tables::{Encoding, Tables};
use crate::ProbeError;

/// A position drawn by [`sample`], with its value for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample<A> {
    /// The position (its side to move as [`crate::longest::side_to_move`]
    /// gives for the sector).
    pub position: Position,
    /// Its value for the side to move (for [`crate::Database`] a
    /// [`morris_db::Value`] with DTM in plies).
    pub value: A,
}

/// How many draws a sample may take per position asked for before it
/// gives up (draws are refused only for positions no game reaches: under
/// a line-wins rule set, a side to move with a line).
const TRIES_PER_POSITION: usize = 1000;

/// `n` positions of `sector` drawn uniformly and independently (with
/// replacement) from all its positions, not its symmetry classes: the
/// side to move's `sector.w` stones and the opponent's `sector.b` on
/// points chosen at random, stones in hand as the sector says. Each comes
/// with its value from `db`. The same `seed` gives the same positions (and
/// so the same values) on every machine and run of this version; the
/// generator is a seeded [`fastrand::Rng`] (wyrand), drawn from in one
/// thread.
///
/// ```
/// use morris_db::{RuleSet, Sector};
/// use morris_probe::{sample, Database};
///
/// let rules = RuleSet::preset("three")?;
/// let dir = tempfile::tempdir()?;
/// let options = morris_solver::SolveOptions { max_stones: 6, progress: false };
/// morris_solver::solve_sliding(&rules, dir.path(), &options)?;
/// let db = Database::open(dir.path(), rules)?;
///
/// let drawn = sample(&db, Sector::sliding(3, 3), 100, 7)?;
/// assert_eq!(drawn.len(), 100);
/// assert_eq!(drawn, sample(&db, Sector::sliding(3, 3), 100, 7)?); // reproducible
/// for s in &drawn {
///     assert_eq!(db.value(&s.position)?, s.value);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`ProbeError::Unreachable`] for a sector the rule set cannot have (or
/// whose every drawn position no game reaches);
/// [`ProbeError::MissingTable`] when `db` has no table of the sector;
/// [`ProbeError::Table`] for a damaged one.
pub fn sample<E: Encoding>(
    db: &Tables<E>,
    sector: Sector,
    n: usize,
    seed: u64,
) -> Result<Vec<Sample<E::Answer>>, ProbeError> {
    // Refuses a sector the rule set cannot have, and a missing table, once.
    db.table(sector)?;
    let rules = db.rules();
    let points = rules.board().len();
    let color = side_to_move(rules, sector);
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut prober = db.prober();
    let mut order: Vec<u8> = (0..points as u8).collect();
    let mut out = Vec::with_capacity(n.min(1 << 16));
    let mut tries = 0usize;
    while out.len() < n {
        tries += 1;
        if tries > TRIES_PER_POSITION * n.max(1) {
            return Err(ProbeError::unreachable(format!(
                "sector {sector}: no position drawn in {tries} tries is one a game reaches"
            )));
        }
        // A partial Fisher-Yates shuffle: the first w points are ours, the
        // next b the opponent's.
        let (w, b) = (usize::from(sector.w), usize::from(sector.b));
        for i in 0..w + b {
            let j = rng.usize(i..points);
            order.swap(i, j);
        }
        let set = |range: &[u8]| range.iter().fold(0 as Bitboard, |acc, &p| acc | (1 as Bitboard) << p);
        let (us, them) = (set(&order[..w]), set(&order[w..w + b]));
        let position = Position::from_sector(sector, color, us, them);
        match prober.value(&position) {
            Ok(value) => out.push(Sample { position, value }),
            Err(ProbeError::Unreachable { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}
