//! The grouped WDL coding: a WDL file's slots in groups of [`GROUP_SLOTS`],
//! each group stored in the shortest of four forms, so that a look-up reads
//! a directory entry and a few bytes of one group, and never decompresses
//! anything ([`crate::wdl`], encoding `ENCODING_WDL_GROUPS`).
//!
//! Most groups of a sector hold nearly one value (most sectors are nearly
//! all wins or all losses for the side to move), so a group is usually its
//! most frequent value and a short list of the slots that differ.
//!
//! Values are the WDL file's base-3 codes (0 draw, 1 win, 2 loss). Padding
//! slots (not canonical positions) and slots past the end are *free*: the
//! encoder gives them whatever value keeps the group shortest, so they may
//! read as any value.
//!
//! The payload starts right after the 128-byte file header. Little-endian,
//! with `g = ceil(slots / 256)` groups in `r = ceil(g / 64)` runs of 64
//! (the last run may be shorter):
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 8 r | one word per run (below) |
//! | 8 r | … | the bytes of each run that is not uniform, in order |
//!
//! A run's word with bit 63 set says the run is *uniform*: every slot of
//! it reads as the value in bits 0–1 (0, 1 or 2; every other bit clear),
//! and the run has no bytes. Most runs of a sector that is nearly all wins
//! or all losses are: they cost 8 bytes for 16,384 slots. Any other word is
//! where the run's bytes start, counted from the end of the words; those
//! bytes are a directory of `2 n` bytes (its `n` groups' bodies' starts,
//! counted from the end of the directory) and then the bodies.
//!
//! A body's first byte `h` says its form:
//!
//! | `h` | form | then |
//! |---|---|---|
//! | `3 k + m`, `k` ≤ [`MAX_EXCEPTIONS`] | every slot has value `m` but `k` exceptions | `k` bytes: the exceptions' slots within the group, ascending; `ceil(k / 8)` bytes: bit `i` (least significant first) picks exception `i`'s value, 0 the smaller of the two values other than `m`, 1 the larger |
//! | `0xF0 + p` | two values only, pair `p`: 0 is (0, 1), 1 is (0, 2), 2 is (1, 2) | 32 bytes: bit `s` (least significant first) of byte `s / 8` picks slot `s`'s value, 0 the pair's first, 1 its second |
//! | `0xF3 + m` | value `m` but where the mask says otherwise | 32 bytes of mask: bit `s` set where slot `s` is an exception; then one bit per exception, in slot order, as in the first form |
//! | `0xFF` | base 3 | 52 bytes: slot `s` is digit `s % 5` of byte `s / 5`, as in the plain WDL payload |
//!
//! Any other first byte, an exception list out of order and a body past
//! the end are damage: the look-up returns `None`. Run words out of order
//! or past the end, and uniform words with another value or other bits,
//! are refused when the file is opened.
//!
//! Encoding 5, the coding before uniform runs (every run with its bytes,
//! and the directory of all groups ahead of all bodies), is no longer
//! read: export such files again.

use std::path::Path;

use rayon::prelude::*;

use crate::storage::blocks::u64_at;
use crate::table::{TableError, HEADER_SIZE};
use crate::value::Tally;

/// Slots per payload byte of a WDL file: five base-3 digits (3^5 = 243
/// fits a byte).
pub const SLOTS_PER_BYTE: u64 = 5;

/// Slots per group.
pub const GROUP_SLOTS: u64 = 256;
/// Groups per run (one 8-byte word per run).
pub const RUN_GROUPS: u64 = 64;
/// The flag of a uniform run's word.
const UNIFORM_RUN: u64 = 1 << 63;
/// The most exceptions a group of the first form lists: beyond 45 the
/// base-3 form (53 bytes) is no longer.
pub const MAX_EXCEPTIONS: usize = 45;
const PAIR_FORM: u8 = 0xF0;
const MASK_FORM: u8 = 0xF3;
const BASE3_FORM: u8 = 0xFF;
const BASE3_BYTES: usize = GROUP_SLOTS.div_ceil(SLOTS_PER_BYTE) as usize;
const BITMAP_BYTES: usize = GROUP_SLOTS as usize / 8;
/// The value pairs of the two-value form, by `p`.
const PAIRS: [(u8, u8); 3] = [(0, 1), (0, 2), (1, 2)];

/// The largest valid base-3 byte: 3^5 - 1.
const MAX_BASE3_BYTE: u8 = 242;

/// Per byte, its five base-3 digits (all 0 for bytes above 242, which
/// [`base3_digit`] refuses).
static DIGITS: [[u8; 5]; 256] = {
    let mut t = [[0u8; 5]; 256];
    let mut b = 0;
    while b <= MAX_BASE3_BYTE as usize {
        let mut v = b;
        let mut k = 0;
        while k < 5 {
            t[b][k] = (v % 3) as u8;
            v /= 3;
            k += 1;
        }
        b += 1;
    }
    t
};

/// The code of the `k`-th base-3 digit (`k` < 5) of `byte`, the digit of
/// weight `3^k`; `None` for a byte above 242 (damage).
#[inline]
pub(crate) fn base3_digit(byte: u8, k: usize) -> Option<u8> {
    if byte > MAX_BASE3_BYTE {
        return None;
    }
    Some(DIGITS[byte as usize][k])
}

/// The byte holding `digits` (at most 5, the first of weight 1) in base 3;
/// missing digits are 0.
#[inline]
pub(crate) fn base3_byte(digits: impl DoubleEndedIterator<Item = u8>) -> u8 {
    digits.rev().fold(0, |byte, d| 3 * byte + d)
}

/// A 32-byte bitmap of a group: bit `s` (least significant first) of byte
/// `s / 8` set where `set(codes[s])`.
fn bitmap(codes: &[Option<u8>], set: impl Fn(Option<u8>) -> bool) -> [u8; BITMAP_BYTES] {
    let mut bits = [0u8; BITMAP_BYTES];
    for (s, &c) in codes.iter().enumerate() {
        if set(c) {
            bits[s / 8] |= 1 << (s % 8);
        }
    }
    bits
}

/// The two codes other than `m`, smaller first.
#[inline]
fn others(m: u8) -> (u8, u8) {
    match m {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    }
}

/// Appends the shortest body of one group to `out`. `codes[s]` is slot
/// `s`'s code, `None` where the slot is free; at most [`GROUP_SLOTS`].
fn encode_group(codes: &[Option<u8>], out: &mut Vec<u8>) {
    let mut count = [0usize; 3];
    for c in codes.iter().flatten() {
        count[*c as usize] += 1;
    }
    let m = (0..3).max_by_key(|&v| count[v]).unwrap_or(0) as u8;
    let k = count.iter().sum::<usize>() - count[m as usize];
    let pair = PAIRS
        .iter()
        .position(|&(a, b)| count.iter().enumerate().all(|(v, &n)| n == 0 || v == a as usize || v == b as usize));
    // Each form's length; the first of the shortest is written.
    let lengths = [
        if k <= MAX_EXCEPTIONS { 1 + k + k.div_ceil(8) } else { usize::MAX },
        if pair.is_some() { 1 + BITMAP_BYTES } else { usize::MAX },
        1 + BITMAP_BYTES + k.div_ceil(8),
        1 + BASE3_BYTES,
    ];
    let form = (0..4).min_by_key(|&f| lengths[f]).unwrap_or(3);
    // One bit per exception, in slot order: 0 the smaller other value.
    let exception_bits = || {
        let (low, _) = others(m);
        let mut bits = vec![0u8; k.div_ceil(8)];
        for (i, c) in codes.iter().flatten().filter(|&&c| c != m).enumerate() {
            if *c != low {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        bits
    };
    if form == 0 {
        out.push(3 * k as u8 + m);
        out.extend(codes.iter().enumerate().filter(|(_, c)| c.is_some_and(|c| c != m)).map(|(s, _)| s as u8));
        out.extend_from_slice(&exception_bits());
    } else if form == 2 {
        out.push(MASK_FORM + m);
        out.extend_from_slice(&bitmap(codes, |c| c.is_some_and(|c| c != m)));
        out.extend_from_slice(&exception_bits());
    } else if let (1, Some(p)) = (form, pair) {
        out.push(PAIR_FORM + p as u8);
        out.extend_from_slice(&bitmap(codes, |c| c == Some(PAIRS[p].1)));
    } else {
        out.push(BASE3_FORM);
        let mut bytes = [0u8; BASE3_BYTES];
        // (Digits past a short last group's end stay 0.)
        for (byte, five) in bytes.iter_mut().zip(codes.chunks(SLOTS_PER_BYTE as usize)) {
            *byte = base3_byte(five.iter().map(|c| c.unwrap_or(0)));
        }
        out.extend_from_slice(&bytes);
    }
}

/// The payload of `slots` slots in the grouped coding, and the tally of
/// their values. `read(first, codes)` fills `codes` (one run of groups,
/// sized by the caller) with the codes of slots `first..`, `None` for
/// padding, and returns their tally, or an error that ends the packing.
/// Runs are encoded in parallel.
pub(crate) fn pack<E: Send>(
    slots: u64,
    read: impl Fn(u64, &mut [Option<u8>]) -> Result<Tally, E> + Sync,
) -> Result<(Vec<u8>, Tally), E> {
    let groups = slots.div_ceil(GROUP_SLOTS);
    let runs = groups.div_ceil(RUN_GROUPS);
    let encoded: Vec<(Run, Tally)> = (0..runs)
        .into_par_iter()
        .map(|r| {
            let first = r * RUN_GROUPS * GROUP_SLOTS;
            let mut codes = vec![None; (slots - first).min(RUN_GROUPS * GROUP_SLOTS) as usize];
            let tally = read(first, &mut codes)?;
            let mut starts = Vec::with_capacity(RUN_GROUPS as usize);
            let mut bodies = Vec::new();
            // Bit v set where some slot of the run holds value v.
            let seen = codes.iter().flatten().fold(0u8, |m, &c| m | 1 << c);
            for group in codes.chunks(GROUP_SLOTS as usize) {
                // 64 bodies of at most 53 bytes: well inside a u16.
                starts.push(bodies.len() as u16);
                encode_group(group, &mut bodies);
            }
            if seen.count_ones() <= 1 {
                // One value (or none: every slot free, read as 0).
                let value = if seen == 0 { 0 } else { seen.trailing_zeros() as u8 };
                return Ok((Run::Uniform(value), tally));
            }
            let mut bytes: Vec<u8> = starts.iter().flat_map(|s| s.to_le_bytes()).collect();
            bytes.extend_from_slice(&bodies);
            Ok((Run::Bytes(bytes), tally))
        })
        .collect::<Result<_, E>>()?;
    let bytes_len: usize = encoded.iter().map(|(run, _)| run.bytes().len()).sum();
    let mut payload = Vec::with_capacity(8 * runs as usize + bytes_len);
    let mut at = 0u64;
    for (run, _) in &encoded {
        let word = match run {
            Run::Uniform(value) => UNIFORM_RUN | u64::from(*value),
            Run::Bytes(bytes) => {
                let start = at;
                at += bytes.len() as u64;
                start
            }
        };
        payload.extend_from_slice(&word.to_le_bytes());
    }
    let mut tally = Tally::default();
    for (run, t) in &encoded {
        payload.extend_from_slice(run.bytes());
        tally = tally.merge(*t);
    }
    Ok((payload, tally))
}

/// One run as [`pack`] encodes it.
enum Run {
    /// Every slot holds this value (or is free): stored in the word alone.
    Uniform(u8),
    /// The run's directory and bodies.
    Bytes(Vec<u8>),
}

impl Run {
    /// The bytes the run adds after the words (none for a uniform run).
    fn bytes(&self) -> &[u8] {
        match self {
            Run::Uniform(_) => &[],
            Run::Bytes(bytes) => bytes,
        }
    }
}

/// Where the parts of a mapped grouped WDL file lie, read and checked when
/// it is opened ([`Groups::parse`]).
#[derive(Debug)]
pub(crate) struct Groups {
    groups: u64,
    /// Where the runs' bytes start in the map (after the words).
    bytes_at: usize,
}

impl Groups {
    /// Checks a mapped file of `slots` slots: its size holds the run words,
    /// uniform words name a value and nothing else, and the other runs'
    /// words ascend and leave room for their directories.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the file size or the run words.
    pub(crate) fn parse(map: &[u8], slots: u64, path: &Path) -> Result<Groups, TableError> {
        let corrupt = |field: &'static str, detail: String| TableError::corrupt(path, field, detail);
        let groups = slots.div_ceil(GROUP_SLOTS);
        let runs = groups.div_ceil(RUN_GROUPS);
        let bytes_at = runs
            .checked_mul(8)
            .and_then(|w| usize::try_from(w).ok()?.checked_add(HEADER_SIZE))
            .filter(|&b| b <= map.len())
            .ok_or_else(|| corrupt("file size", format!("{} bytes cannot hold the words of {runs} runs", map.len())))?;
        let bytes_len = (map.len() - bytes_at) as u64;
        let mut last = 0;
        for r in 0..runs {
            let word = u64_at(map, HEADER_SIZE + 8 * r as usize).unwrap_or(u64::MAX);
            if word & UNIFORM_RUN != 0 {
                if word & !UNIFORM_RUN > 2 {
                    return Err(corrupt("run words", format!("run {r} is uniform with value {}", word & !UNIFORM_RUN)));
                }
                continue;
            }
            let n = (groups - r * RUN_GROUPS).min(RUN_GROUPS);
            if word < last || word.saturating_add(2 * n) > bytes_len {
                return Err(corrupt(
                    "run words",
                    format!("run {r} starts at {word}, after {last}, of {bytes_len} bytes"),
                ));
            }
            last = word;
        }
        Ok(Groups { groups, bytes_at })
    }

    /// The code of `slot` (below the file's slot count); `None` where the
    /// bytes are damaged.
    #[inline]
    pub(crate) fn code(&self, map: &[u8], slot: u64) -> Option<u8> {
        let g = slot / GROUP_SLOTS;
        if g >= self.groups {
            return None;
        }
        let r = g / RUN_GROUPS;
        let word = u64_at(map, HEADER_SIZE + 8 * r as usize)?;
        if word & UNIFORM_RUN != 0 {
            // Checked at open: 0, 1 or 2.
            return Some((word & 3) as u8);
        }
        let n = (self.groups - r * RUN_GROUPS).min(RUN_GROUPS) as usize;
        let run = self.bytes_at.checked_add(usize::try_from(word).ok()?)?;
        let start = run + 2 * (g % RUN_GROUPS) as usize;
        let rel = u16::from_le_bytes(map.get(start..start + 2)?.try_into().ok()?);
        let at = run.checked_add(2 * n)?.checked_add(rel as usize)?;
        let h = *map.get(at)?;
        let s = (slot % GROUP_SLOTS) as usize;
        let body = at + 1;
        match h {
            BASE3_FORM => {
                let per_byte = SLOTS_PER_BYTE as usize;
                base3_digit(*map.get(body + s / per_byte)?, s % per_byte)
            }
            PAIR_FORM..=0xF2 => {
                let (a, b) = PAIRS[(h - PAIR_FORM) as usize];
                Some(if map.get(body + s / 8)? >> (s % 8) & 1 == 0 { a } else { b })
            }
            MASK_FORM..=0xF5 => {
                let m = h - MASK_FORM;
                let mask = map.get(body..body + BITMAP_BYTES)?;
                if mask[s / 8] >> (s % 8) & 1 == 0 {
                    return Some(m);
                }
                // The exception's rank: the mask's set bits below `s`.
                let word = |j: usize| u64::from_le_bytes(mask[8 * j..8 * j + 8].try_into().unwrap_or([0; 8]));
                let below = (0..s / 64).map(|j| word(j).count_ones()).sum::<u32>()
                    + (word(s / 64) & ((1u64 << (s % 64)) - 1)).count_ones();
                let i = below as usize;
                let (low, high) = others(m);
                Some(if map.get(body + BITMAP_BYTES + i / 8)? >> (i % 8) & 1 == 0 { low } else { high })
            }
            _ if h < 3 * (MAX_EXCEPTIONS as u8 + 1) => {
                let (k, m) = ((h / 3) as usize, h % 3);
                let list = map.get(body..body + k)?;
                match list.binary_search(&(s as u8)) {
                    Err(_) => Some(m),
                    Ok(i) => {
                        let (low, high) = others(m);
                        Some(if map.get(body + k + i / 8)? >> (i % 8) & 1 == 0 { low } else { high })
                    }
                }
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes one group into a file-shaped map and reads every slot back.
    fn round_trip(codes: &[Option<u8>]) -> (usize, Vec<Option<u8>>) {
        let mut body = Vec::new();
        encode_group(codes, &mut body);
        let mut map = vec![0u8; HEADER_SIZE];
        map.extend_from_slice(&0u64.to_le_bytes());
        map.extend_from_slice(&0u16.to_le_bytes());
        map.extend_from_slice(&body);
        let g = Groups::parse(&map, codes.len() as u64, Path::new("t")).unwrap();
        (body.len(), (0..codes.len() as u64).map(|s| g.code(&map, s)).collect())
    }

    #[test]
    fn each_form_reads_back_and_is_the_shortest() {
        let n = GROUP_SLOTS as usize;
        // One value: a single byte.
        let all_wins = vec![Some(1); n];
        assert_eq!(round_trip(&all_wins), (1, all_wins.clone()));
        // Three exceptions, of both other values.
        let mut few = vec![Some(2); n];
        (few[0], few[100], few[255]) = (Some(0), Some(1), Some(0));
        assert_eq!(round_trip(&few), (1 + 3 + 1, few.clone()));
        // Two values, half each: the bitmap.
        let halves: Vec<_> = (0..n).map(|s| Some(if s % 2 == 0 { 0 } else { 2 })).collect();
        assert_eq!(round_trip(&halves), (33, halves.clone()));
        // Three values evenly: base 3.
        let mixed: Vec<_> = (0..n).map(|s| Some((s % 3) as u8)).collect();
        assert_eq!(round_trip(&mixed), (53, mixed.clone()));
        // Mostly one value, 100 exceptions of both others: the mask.
        let masked: Vec<_> = (0..n)
            .map(|s| {
                Some(if s % 5 == 1 {
                    0
                } else if s % 5 == 3 && s < 150 {
                    2
                } else {
                    1
                })
            })
            .collect();
        let k = masked.iter().filter(|c| **c != Some(1)).count();
        assert_eq!(k, 81);
        assert_eq!(round_trip(&masked), (1 + 32 + 11, masked.clone()));
        // A short last group in base 3.
        let short: Vec<_> = (0..7).map(|s| Some((s % 3) as u8)).collect();
        assert_eq!(round_trip(&short).1, short);
        // Free slots take the group's most frequent value.
        let mut free = vec![None; n];
        free[3] = Some(2);
        free[9] = Some(1);
        free[10] = Some(2);
        let (len, back) = round_trip(&free);
        assert_eq!((len, back[3], back[9], back[10], back[0]), (1 + 1 + 1, Some(2), Some(1), Some(2), Some(2)));
    }

    /// Runs of one value are stored as their word alone; the others keep
    /// their directory and bodies; every slot reads back, over several
    /// runs and a short last one, free slots as their run's value.
    #[test]
    fn uniform_runs_read_back() {
        let run = GROUP_SLOTS * RUN_GROUPS;
        let slots = 3 * run + 1000;
        // Run 0 wins (some slots free), run 1 all three values evenly, run 2
        // losses, the short last run draws.
        let value = |s: u64| match s / run {
            0 => (!s.is_multiple_of(7)).then_some(1),
            1 => Some((s % 3) as u8),
            2 => Some(2),
            _ => Some(0),
        };
        let (payload, _) = pack(slots, |first, codes| {
            for (s, c) in (first..).zip(codes.iter_mut()) {
                *c = value(s);
            }
            Ok::<_, ()>(Tally::default())
        })
        .unwrap();
        let mut map = vec![0u8; HEADER_SIZE];
        map.extend_from_slice(&payload);
        let words: Vec<u64> = (0..4).map(|r| u64_at(&map, HEADER_SIZE + 8 * r).unwrap()).collect();
        assert_eq!(words, [UNIFORM_RUN | 1, 0, UNIFORM_RUN | 2, UNIFORM_RUN]);
        // Only run 1 has bytes: 64 directory entries and 64 base-3 bodies.
        assert_eq!(payload.len(), 4 * 8 + 2 * 64 + 64 * (1 + BASE3_BYTES));
        let g = Groups::parse(&map, slots, Path::new("t")).unwrap();
        for s in 0..slots {
            assert_eq!(g.code(&map, s), Some(value(s).unwrap_or(1)), "slot {s}");
        }
        assert_eq!(g.code(&map, slots.next_multiple_of(GROUP_SLOTS)), None);
        // A uniform word naming no value, or with other bits, is refused.
        for bad in [UNIFORM_RUN | 3, UNIFORM_RUN | 1 << 8] {
            let mut m = map.clone();
            m[HEADER_SIZE..HEADER_SIZE + 8].copy_from_slice(&bad.to_le_bytes());
            assert!(Groups::parse(&m, slots, Path::new("t")).is_err());
        }
        // So is a run whose directory would end past the file.
        let mut m = map.clone();
        m.truncate(HEADER_SIZE + 4 * 8 + 100);
        assert!(Groups::parse(&m, slots, Path::new("t")).is_err());
    }

    #[test]
    fn damage_reads_as_none() {
        let mut map = vec![0u8; HEADER_SIZE];
        map.extend_from_slice(&0u64.to_le_bytes());
        map.extend_from_slice(&0u16.to_le_bytes());
        map.push(0xF7);
        let g = Groups::parse(&map, 10, Path::new("t")).unwrap();
        assert_eq!(g.code(&map, 0), None);
        // A mask announced, not there.
        *map.last_mut().unwrap() = MASK_FORM;
        assert_eq!(g.code(&map, 0), None);
        // Ten exceptions announced, none there.
        *map.last_mut().unwrap() = 30;
        assert_eq!(g.code(&map, 0), None);
        // A run word past the bodies is refused at open.
        map[HEADER_SIZE] = 9;
        assert!(Groups::parse(&map, 10, Path::new("t")).is_err());
    }
}
