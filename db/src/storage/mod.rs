//! Storage: the files a database directory holds. The shared header, the
//! DTM table encoding, its compressed form, the WDL export format, and the
//! one place that maps files into memory.
//!
//! Everything here speaks of the game only through [`crate::game`]'s types
//! (sectors, rule sets, values).

pub(crate) mod blocks;
pub mod compressed;
pub mod derived;
pub(crate) mod groups;
pub mod header;
pub mod mapped;
pub mod reach;
pub mod store;
pub mod table;
pub mod wdl;
