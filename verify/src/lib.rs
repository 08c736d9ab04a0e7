//! Independent verification of a database (`morris verify`): every table's
//! header, size and checksums, and every stored value re-derived from the
//! stored values of its successors, one ply deep.
//!
//! The verifier shares no code with the solver: it generates moves forward
//! ([`morris_db::moves::for_each_move`]), looks the positions they lead to up
//! in the tables on disk (captures in the tables of smaller sectors), and
//! takes the minimax of what it finds. No un-moves, no successor counters,
//! no claims. For each canonical position, with `c` ranging over the values
//! its moves lead to (for the opponent, to move there):
//!
//! | stored | must hold |
//! |---|---|
//! | `Win(n)` | some `c` is `Loss(n - 1)`, none is a shorter loss |
//! | `Loss(n)`, n > 0 | every `c` is a win, the longest exactly `Win(n - 1)` |
//! | `Loss(0)` | no legal move (and the board is not full under a "full board: draw" rule) |
//! | `Draw` | no `c` is a loss, some `c` is a draw (or: no move on a full board that draws) |
//!
//! Under a rule set where a line wins (Three Men's Morris) a position whose
//! opponent has a line is `Loss(0)`, a move that makes a line leads to
//! `Loss(0)`, and a position whose side to move has a line cannot arise and
//! must be padding.
//!
//! A move that leaves the opponent fewer than 3 stones leads to `Loss(0)`.
//! Padding slots must hold the padding entry and canonical slots a value; the
//! header's counts and longest distances must match the payload.
//!
//! These local conditions, holding everywhere, imply that every value is the
//! true one: by induction on n, a position stored `Win(n)` or `Loss(n)` has
//! exactly that value (its witnesses have shorter distances), so no decisive
//! position can be stored as a draw, and every draw is a draw.
//!
//! The crate's parts: [`Verifier`] checks one table under the conditions
//! above; [`Session`] checks a directory table by table, skipping what the
//! [`ledger`] of verified tables already holds. `morris verify` takes the
//! tables in [`Verifier::reading_order`], which lets consecutive tables
//! share the successor tables already in memory; no check depends on the
//! order.

pub mod ledger;
mod session;
mod verifier;

pub use session::{Outcome, Session, SessionTally, Step, TableSum};
pub use verifier::{Fault, TableReport, Verifier};
