//! Damage for the no-panic property tests of table files: a valid file,
//! changed in ways that reach past its first checks. Random bytes almost
//! always stop at the magic number; a real file with a few bytes changed,
//! its header checksum (and sometimes its payload checksum) recomputed and
//! its length sometimes changed reaches the header fields, the size check,
//! the checksum and the payload decoding.
//!
//! Both formats this is used on (`.mtb` DTM tables and `.mwdl` WDL files)
//! keep an XXH3-64 of the header's first 120 bytes at bytes 120..128.

use proptest::prelude::*;
use proptest::sample::Index;
use xxhash_rust::xxh3::xxh3_64;

/// The bytes covered by the header checksum, and where it is stored.
const HEADER_SUMMED: usize = 120;

/// One way of damaging a file (see [`damage`]).
#[derive(Debug, Clone)]
pub struct Damage {
    /// Bytes of the payload set to a value (offsets taken modulo its length).
    pub payload: Vec<(Index, u8)>,
    /// Bytes of the header (first 120 bytes) set to a value.
    pub header: Vec<(usize, u8)>,
    /// Recompute the header checksum after the changes, as a careless tool
    /// would, so that the fields behind it are read.
    pub reseal_header: bool,
    /// Recompute the payload checksum too (through the format's own header
    /// type: see [`Damage::apply`]), so that damaged entries pass a
    /// checked open.
    pub reseal_payload: bool,
    /// Bytes cut from the end (negative) or appended (positive).
    pub length: i32,
}

/// A runner for [`damage`]: `cases` cases, no failure file (the tests that
/// use it run the cases themselves, to count what they reached).
pub fn runner(cases: u32) -> proptest::test_runner::TestRunner {
    proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    })
}

/// Damage mostly inside the payload, sometimes in the header, with the
/// checksums mostly recomputed and the length mostly kept.
pub fn damage() -> impl Strategy<Value = Damage> {
    (
        proptest::collection::vec((any::<Index>(), any::<u8>()), 0..8),
        prop_oneof![3 => Just(Vec::new()), 1 => proptest::collection::vec((0usize..HEADER_SUMMED, any::<u8>()), 1..3)],
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.6),
        prop_oneof![6 => Just(0i32), 1 => -300i32..0, 1 => 1i32..300],
    )
        .prop_map(|(payload, header, reseal_header, reseal_payload, length)| Damage {
            payload,
            header,
            reseal_header,
            reseal_payload,
            length,
        })
}

impl Damage {
    /// `file` (a valid file with a header of `header_size` bytes) damaged.
    /// `set_payload_sum(header, sum)` writes `sum` as the payload checksum
    /// into the header bytes (decoding and encoding them with the format's
    /// own type) and returns false when the header no longer decodes.
    pub fn apply(&self, file: &[u8], header_size: usize, set_payload_sum: impl Fn(&mut [u8], u64) -> bool) -> Vec<u8> {
        let mut bytes = file.to_vec();
        let payload_len = bytes.len() - header_size;
        if payload_len > 0 {
            for (i, v) in &self.payload {
                bytes[header_size + i.index(payload_len)] = *v;
            }
        }
        for &(i, v) in &self.header {
            bytes[i] = v;
        }
        if self.reseal_header {
            reseal(&mut bytes);
        }
        if self.reseal_payload {
            let sum = xxh3_64(&bytes[header_size..]);
            set_payload_sum(&mut bytes[..header_size], sum);
        }
        if self.length < 0 {
            bytes.truncate(bytes.len().saturating_sub(self.length.unsigned_abs() as usize));
        } else {
            bytes.extend(std::iter::repeat_n(0xA5, self.length as usize));
        }
        bytes
    }
}

/// Recomputes the header checksum of `bytes` (at 120..128, over 0..120).
pub fn reseal(bytes: &mut [u8]) {
    let sum = xxh3_64(&bytes[..HEADER_SUMMED]);
    bytes[HEADER_SUMMED..HEADER_SUMMED + 8].copy_from_slice(&sum.to_le_bytes());
}
