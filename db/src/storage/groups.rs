//! The grouped WDL coding: a WDL file's slots in groups of [`GROUP_SLOTS`],
//! each group stored as one value or in the shortest of seven forms, so that
//! a look-up reads a few bytes of one run and one group, and never
//! decompresses anything ([`crate::wdl`], encoding `ENCODING_WDL_GROUPS`).
//!
//! Most groups of a sector hold nearly one value (most sectors are nearly
//! all wins or all losses for the side to move), so a group is usually one
//! value, or its most frequent value and the slots that differ. Where two
//! values mix, the slots of the rarer one are stored as an enumerative
//! code (Raman, Raman and Rao 2002, "succinct indexable dictionaries"):
//! per 16 slots, how many hold it and which of the `C(16, c)` patterns
//! with that many they form, close to the entropy of the group's two
//! counts and read back with one table look-up.
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
//! where the run's bytes start, counted from the end of the words. Those
//! bytes are:
//!
//! | size | field |
//! |---:|---|
//! | 16 | the kind of each of the run's groups, two bits a group, group `i` in bits `2i, 2i + 1` (little-endian, 128 bits): 0, 1 or 2 where every slot of the group reads as that value, 3 where the group has a body |
//! | 2 n | for each of the `n` groups of kind 3, in order, where its body starts, counted from the end of this list |
//! | … | the bodies |
//!
//! A body's first byte `h` says its form:
//!
//! | `h` | form | then |
//! |---|---|---|
//! | `3 k + m`, `k` ≤ [`MAX_EXCEPTIONS`] | every slot has value `m` but `k` exceptions, of both other values | `k` bytes: the exceptions' slots within the group, ascending; `ceil(k / 8)` bytes: bit `i` (least significant first) picks exception `i`'s value, 0 the smaller of the two values other than `m`, 1 the larger |
//! | `0xE8 + q` | values `a` and `b` only, (`a`, `b`) the ordered pair `q` of [`ORDERED_PAIRS`]: the enumerative code of the slots holding `b` | one byte `w` (1 to 5), then a bit string (bit `j` is bit `j % 8` of byte `j / 8`, fields least significant bit first): 16 counts of `w` bits, count `i` the slots holding `b` among slots `16 i .. 16 i + 16`; then for each such 16 slots in order, the rank of their pattern in [`RANK_BITS`]`[c]` bits (below) |
//! | `0xE0 + m` | value `m` but where the enumerative code says otherwise | as `0xE8 + q` for the slots not holding `m` (the exceptions), then one bit per exception, in slot order, as in the first form |
//! | `0xF0 + p` | two values only, pair `p`: 0 is (0, 1), 1 is (0, 2), 2 is (1, 2) | 32 bytes: bit `s` (least significant first) of byte `s / 8` picks slot `s`'s value, 0 the pair's first, 1 its second |
//! | `0xF3 + m` | value `m` but where the mask says otherwise | 32 bytes of mask: bit `s` set where slot `s` is an exception; then one bit per exception, in slot order, as in the first form |
//! | `0xFF` | base 3 | 52 bytes: slot `s` is digit `s % 5` of byte `s / 5`, as in the plain WDL payload |
//!
//! The *pattern* of 16 slots is the 16-bit number with bit `t` set where
//! slot `t` of them holds `b`; its *rank* is its position, from 0, among
//! the patterns with as many bits set, in increasing order.
//!
//! Any other first byte, an exception list out of order, a count above 16
//! or a rank past its patterns, and a body past the end are damage: the
//! look-up returns `None`. Run words out of order or past the end, uniform
//! words with another value or other bits, and directories past the end
//! are refused when the file is opened.
//!
//! Encodings 5 and 6, the codings before uniform runs and before group
//! kinds and enumerative codes, are no longer read: export such files
//! again.

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

/// What [`Groups::head`] reads for a slot past the words: no run word is
/// this (a uniform one has no bit but its value's set, checked at open).
pub(crate) const NO_HEAD: u64 = u64::MAX;

/// The flag of [`Groups::locate`]'s answer that says it holds the code
/// itself rather than where a body starts.
const LOCATED: u64 = 1 << 63;
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

/// The first byte of the enumerative form, plus the ordered pair's index.
const ENUMERATIVE_FORM: u8 = 0xE8;
/// The first byte of the three-value enumerative form, plus the group's
/// most frequent value.
const EXCEPTIONS_FORM: u8 = 0xE0;
/// The ordered value pairs (`a`, `b`) of the enumerative form: `a` the
/// value of most slots, `b` the other.
pub const ORDERED_PAIRS: [(u8, u8); 6] = [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)];
/// Slots per pattern of the enumerative form.
const PATTERN_SLOTS: usize = 16;
/// Patterns per group in the enumerative form.
const PATTERNS: usize = GROUP_SLOTS as usize / PATTERN_SLOTS;
/// The most bits a count of the enumerative form takes (a count is at most
/// 16).
const MAX_COUNT_BITS: u8 = 5;

/// `C(16, c)` for `c` in 0..=16: the patterns of 16 slots with `c` set.
const CHOOSE_16: [u32; PATTERN_SLOTS + 1] = {
    let mut t = [1u32; PATTERN_SLOTS + 1];
    let mut c = 1;
    while c <= PATTERN_SLOTS {
        t[c] = t[c - 1] * (PATTERN_SLOTS + 1 - c) as u32 / c as u32;
        c += 1;
    }
    t
};

/// Per count `c` of set slots among 16 (0..=16), the bits of a pattern's
/// rank in the enumerative form: `ceil(log2 C(16, c))`, 0 where there is
/// one pattern only.
pub const RANK_BITS: [u8; PATTERN_SLOTS + 1] = {
    let mut t = [0u8; PATTERN_SLOTS + 1];
    let mut c = 0;
    while c <= PATTERN_SLOTS {
        let mut bits = 0;
        while (1u32 << bits) < CHOOSE_16[c] {
            bits += 1;
        }
        t[c] = bits;
        c += 1;
    }
    t
};

/// The 16-bit patterns by count and rank, and each pattern's rank: the
/// enumerative form's code book (2 × 128 KiB, built once).
struct CodeBook {
    /// Where the patterns with `c` bits set start in `patterns`.
    start: [u32; PATTERN_SLOTS + 1],
    /// Every 16-bit pattern, by count, then increasing.
    patterns: Vec<u16>,
    /// Each pattern's rank among those with as many bits set.
    rank: Vec<u16>,
}

static CODE_BOOK: std::sync::LazyLock<CodeBook> = std::sync::LazyLock::new(|| {
    let mut start = [0u32; PATTERN_SLOTS + 1];
    for c in 1..=PATTERN_SLOTS {
        start[c] = start[c - 1] + CHOOSE_16[c - 1];
    }
    let mut next = start;
    let mut patterns = vec![0u16; 1 << PATTERN_SLOTS];
    let mut rank = vec![0u16; 1 << PATTERN_SLOTS];
    for p in 0..=u16::MAX {
        let c = p.count_ones() as usize;
        rank[p as usize] = (next[c] - start[c]) as u16;
        patterns[next[c] as usize] = p;
        next[c] += 1;
    }
    CodeBook { start, patterns, rank }
});

/// Bits `at .. at + n` (`n` ≤ 25) of the bit string `bytes`, least
/// significant first; `None` past its end.
#[inline]
fn bits_at(bytes: &[u8], at: usize, n: u8) -> Option<u32> {
    let first = at / 8;
    let word = match bytes.get(first..first + 4) {
        // The common case: four bytes to read at once (for `n` = 0 too:
        // no branch on `n`, the mask below is then 0).
        Some(four) => u32::from_le_bytes(four.try_into().ok()?),
        // Near the end of the map: only the bytes the field needs.
        None if n == 0 => return Some(0),
        None => {
            let last = (at + n as usize - 1) / 8;
            let mut word = 0u32;
            for (i, &b) in bytes.get(first..=last)?.iter().enumerate() {
                word |= u32::from(b) << (8 * i);
            }
            word
        }
    };
    Some(word >> (at % 8) & ((1u32 << n) - 1))
}

/// Appends `n` bits of `value` to the bit string `bytes` holding `len`
/// bits, least significant first.
fn push_bits(bytes: &mut Vec<u8>, len: &mut usize, value: u32, n: u8) {
    for i in 0..n {
        let bit = (value >> i & 1) as u8;
        if len.is_multiple_of(8) {
            bytes.push(bit);
        } else if let Some(last) = bytes.last_mut() {
            // (Always: a byte was pushed at the last multiple of 8.)
            *last |= bit << (*len % 8);
        }
        *len += 1;
    }
}

/// The enumerative forms' bytes after their first byte, for a group whose
/// slots of the coded value are those set in `ones` (one 16-bit pattern
/// per 16 slots): the count width, then the bit string of counts and ranks,
/// followed by `extra` (`(bits, n)`: `n` more bits, the three-value form's
/// exception values).
fn enumerative_body(ones: &[u16; PATTERNS], extra: Option<(&[u8], usize)>) -> Vec<u8> {
    let w = count_width(ones);
    let mut bits = Vec::new();
    let mut len = 0;
    for p in ones {
        push_bits(&mut bits, &mut len, p.count_ones(), w);
    }
    let book = &*CODE_BOOK;
    for &p in ones {
        push_bits(&mut bits, &mut len, u32::from(book.rank[p as usize]), RANK_BITS[p.count_ones() as usize]);
    }
    if let Some((extra, n)) = extra {
        for i in 0..n {
            push_bits(&mut bits, &mut len, u32::from(extra[i / 8] >> (i % 8) & 1), 1);
        }
    }
    let mut bytes = vec![w];
    bytes.extend_from_slice(&bits);
    bytes
}

/// The bits of each count of the enumerative forms for the patterns
/// `ones`: enough for the largest, at least 1.
fn count_width(ones: &[u16; PATTERNS]) -> u8 {
    let most = ones.iter().map(|p| p.count_ones()).max().unwrap_or(0);
    (u32::BITS - most.leading_zeros()).max(1) as u8
}

/// The bytes the enumerative forms' body takes after its first byte, for
/// the patterns `ones` and `extra` bits more: the count width byte and the
/// bit string.
fn enumerative_len(ones: &[u16; PATTERNS], extra: usize) -> usize {
    let w = count_width(ones) as usize;
    let ranks: usize = ones.iter().map(|p| RANK_BITS[p.count_ones() as usize] as usize).sum();
    1 + (PATTERNS * w + ranks + extra).div_ceil(8)
}

/// Where slot `s` of a group lies in the enumerative forms' bit string
/// `bits` (after the count width byte `w`).
struct Enumerated {
    /// Whether the slot holds the coded value.
    set: bool,
    /// The coded slots before `s` in the group.
    before: usize,
    /// Where the ranks end in the bit string (computed when asked for).
    end: usize,
}

/// Counts of the enumerative forms read at once by [`PREFIX_SUMS`], per
/// count width `w` (index `w`, 1 to 5): as many as fit 8 bits (9 for
/// width 3, 10 for width 5, so that no table needs more than 1,024 rows).
const CHUNK_COUNTS: [usize; MAX_COUNT_BITS as usize + 1] = [0, 8, 4, 3, 2, 2];

/// Where each width's rows start in [`PREFIX_SUMS`] (index `w`), and, at
/// the end, how many rows there are: width `w` has a row for each value of
/// its `w * CHUNK_COUNTS[w]` bits.
const PREFIX_ROW: [usize; MAX_COUNT_BITS as usize + 2] = {
    let mut t = [0; MAX_COUNT_BITS as usize + 2];
    let mut w = 1;
    while w <= MAX_COUNT_BITS as usize {
        t[w + 1] = t[w] + (1 << (w * CHUNK_COUNTS[w]));
        w += 1;
    }
    t
};

/// Rows of [`PREFIX_SUMS`], all widths together.
const PREFIX_ROWS: usize = PREFIX_ROW[MAX_COUNT_BITS as usize + 1];

/// Per count width `w` and chunk of [`CHUNK_COUNTS`]`[w]` counts (the
/// chunk's bits as a number, row `PREFIX_ROW[w] + chunk`): the sum of the
/// counts in bits 0–9 and the sum of their patterns' rank bits
/// ([`RANK_BITS`]) in bits 10–19, or [`PREFIX_DAMAGED`] where a count is
/// above 16. Summing the rows of a group's chunks gives both sums at once
/// (at most 256 and 224 over 16 counts, so neither carries into the other).
static PREFIX_SUMS: [u32; PREFIX_ROWS] = {
    let mut t = [0u32; PREFIX_ROWS];
    let mut w = 1;
    while w <= MAX_COUNT_BITS as usize {
        let bits = w * CHUNK_COUNTS[w];
        let mut chunk = 0;
        while chunk < 1 << bits {
            let (mut counts, mut ranks, mut damaged) = (0u32, 0u32, false);
            let mut i = 0;
            while i < CHUNK_COUNTS[w] {
                let c = (chunk >> (i * w)) & ((1 << w) - 1);
                if c > PATTERN_SLOTS {
                    damaged = true;
                } else {
                    counts += c as u32;
                    ranks += RANK_BITS[c] as u32;
                }
                i += 1;
            }
            t[PREFIX_ROW[w] + chunk] = if damaged { PREFIX_DAMAGED } else { counts | ranks << 10 };
            chunk += 1;
        }
        w += 1;
    }
    t
};

/// A row of [`PREFIX_SUMS`] whose chunk holds a count above 16: any sum of
/// at most 8 rows with one of these is at least this, and any sum without
/// is below.
const PREFIX_DAMAGED: u32 = 1 << 24;

/// The sum of the counts in `counts` (the enumerative forms' 16 counts of
/// width `w`, 1 to 5, count `i` in bits `w i ..`; counts to leave out
/// cleared) and the sum of their patterns' rank bits; `None` where a count
/// is above 16. A fixed number of table reads per width, whatever the
/// counts: no branch depends on them.
#[inline]
fn prefix_sums(counts: u128, w: usize) -> Option<(usize, usize)> {
    let total = match w {
        1 => chunk_sums::<1>(counts),
        2 => chunk_sums::<2>(counts),
        3 => chunk_sums::<3>(counts),
        4 => chunk_sums::<4>(counts),
        _ => chunk_sums::<5>(counts),
    };
    (total < PREFIX_DAMAGED).then_some(((total & 0x3FF) as usize, (total >> 10) as usize))
}

/// [`prefix_sums`] for width `W`: the sum of the [`PREFIX_SUMS`] rows of
/// each chunk of `counts` (its shifts constant, so each chunk is a shift, a
/// mask and a read).
#[inline(always)]
fn chunk_sums<const W: usize>(counts: u128) -> u32 {
    let bits = W * CHUNK_COUNTS[W];
    let rows = &PREFIX_SUMS[PREFIX_ROW[W]..PREFIX_ROW[W + 1]];
    let mut total = 0;
    for k in 0..PATTERNS.div_ceil(CHUNK_COUNTS[W]) {
        total += rows[(counts >> (k * bits)) as usize & ((1 << bits) - 1)];
    }
    total
}

/// Reads slot `s` from an enumerative body's bit string `bits` with count
/// width `w`; with `to_end`, also where the ranks end. `None` where a count
/// is above 16, a rank past its patterns, or the bits past the map.
#[inline]
fn enumerated(bits: &[u8], w: u8, s: usize, to_end: bool) -> Option<Enumerated> {
    if w == 0 || w > MAX_COUNT_BITS {
        return None;
    }
    let w = w as usize;
    // The counts, at most 80 bits, as one number.
    let counts_len = (PATTERNS * w).div_ceil(8);
    let mut counts = match bits.get(..16) {
        Some(sixteen) => u128::from_le_bytes(sixteen.try_into().ok()?),
        None => {
            let mut raw = [0u8; 16];
            raw[..counts_len].copy_from_slice(bits.get(..counts_len)?);
            u128::from_le_bytes(raw)
        }
    };
    // Only the 16 counts: the bits after them are ranks.
    counts &= (1u128 << (PATTERNS * w)) - 1;
    let j = s / PATTERN_SLOTS;
    let c = (counts >> (j * w)) as usize & ((1 << w) - 1);
    let rank_bits = *RANK_BITS.get(c)?;
    // The rank's place: after the counts and the ranks of the patterns
    // before this one.
    let (before, ranks_before) = prefix_sums(counts & ((1u128 << (j * w)) - 1), w)?;
    let at = PATTERNS * w + ranks_before;
    let rank = bits_at(bits, at, rank_bits)?;
    if rank >= CHOOSE_16[c] {
        return None;
    }
    let mut end = 0;
    if to_end {
        end = PATTERNS * w + prefix_sums(counts, w)?.1;
    }
    let book = &*CODE_BOOK;
    let pattern = book.patterns[(book.start[c] + rank) as usize];
    let t = s % PATTERN_SLOTS;
    Some(Enumerated {
        set: pattern >> t & 1 == 1,
        before: before + (pattern & ((1 << t) - 1)).count_ones() as usize,
        end,
    })
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

/// How one group is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Every slot reads as this value: no body.
    Uniform(u8),
    /// A body was appended.
    Body,
}

/// Appends the shortest body of one group to `out`, or returns the one
/// value its slots hold. `codes[s]` is slot `s`'s code, `None` where the
/// slot is free; at most [`GROUP_SLOTS`].
fn encode_group(codes: &[Option<u8>], out: &mut Vec<u8>) -> Kind {
    let mut count = [0usize; 3];
    for c in codes.iter().flatten() {
        count[*c as usize] += 1;
    }
    let m = (0..3).max_by_key(|&v| count[v]).unwrap_or(0) as u8;
    let k = count.iter().sum::<usize>() - count[m as usize];
    if k == 0 {
        return Kind::Uniform(m);
    }
    // With two values only: the rarer one, `b`, and the pairs' indices.
    let two = count.iter().filter(|&&n| n > 0).count() == 2;
    let b = (0..3u8).find(|&v| v != m && count[v as usize] > 0).unwrap_or(m);
    let ordered = ORDERED_PAIRS.iter().position(|&pair| pair == (m, b)).unwrap_or(0);
    let pair = PAIRS.iter().position(|&(x, y)| (x, y) == (m.min(b), m.max(b)));
    // The slots not holding `m`: with two values, those holding `b`.
    let mut exceptions = [0u16; PATTERNS];
    for (s, c) in codes.iter().enumerate() {
        if c.is_some_and(|c| c != m) {
            exceptions[s / PATTERN_SLOTS] |= 1 << (s % PATTERN_SLOTS);
        }
    }
    // Each form's length; the first of the shortest is written.
    let lengths = [
        if k <= MAX_EXCEPTIONS { 1 + k + k.div_ceil(8) } else { usize::MAX },
        if two { 1 + enumerative_len(&exceptions, 0) } else { usize::MAX },
        1 + enumerative_len(&exceptions, k),
        if two { 1 + BITMAP_BYTES } else { usize::MAX },
        1 + BITMAP_BYTES + k.div_ceil(8),
        1 + BASE3_BYTES,
    ];
    let form = (0..lengths.len()).min_by_key(|&f| lengths[f]).unwrap_or(5);
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
    match (form, pair) {
        (0, _) => {
            out.push(3 * k as u8 + m);
            out.extend(codes.iter().enumerate().filter(|(_, c)| c.is_some_and(|c| c != m)).map(|(s, _)| s as u8));
            out.extend_from_slice(&exception_bits());
        }
        (1, _) => {
            out.push(ENUMERATIVE_FORM + ordered as u8);
            out.extend_from_slice(&enumerative_body(&exceptions, None));
        }
        (2, _) => {
            out.push(EXCEPTIONS_FORM + m);
            out.extend_from_slice(&enumerative_body(&exceptions, Some((&exception_bits(), k))));
        }
        (3, Some(p)) => {
            out.push(PAIR_FORM + p as u8);
            out.extend_from_slice(&bitmap(codes, |c| c == Some(PAIRS[p].1)));
        }
        (4, _) => {
            out.push(MASK_FORM + m);
            // The mask: the exception patterns, little-endian.
            out.extend(exceptions.iter().flat_map(|p| p.to_le_bytes()));
            out.extend_from_slice(&exception_bits());
        }
        _ => {
            out.push(BASE3_FORM);
            let mut bytes = [0u8; BASE3_BYTES];
            // (Digits past a short last group's end stay 0.)
            for (byte, five) in bytes.iter_mut().zip(codes.chunks(SLOTS_PER_BYTE as usize)) {
                *byte = base3_byte(five.iter().map(|c| c.unwrap_or(0)));
            }
            out.extend_from_slice(&bytes);
        }
    }
    Kind::Body
}

/// The bytes of a run's kinds: two bits a group.
const KIND_BYTES: usize = 2 * RUN_GROUPS as usize / 8;
/// The kind of a group with a body.
const KIND_BODY: u128 = 3;
/// Bit 0 of each group's two kind bits.
const KIND_LOW_BITS: u128 = u128::MAX / 3;

/// Where, in a run's kinds, the groups with a body are: bit `2 i` set for
/// each such group `i`.
#[inline]
fn bodies_of(kinds: u128) -> u128 {
    kinds & (kinds >> 1) & KIND_LOW_BITS
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
            let mut kinds = 0u128;
            for (i, group) in codes.chunks(GROUP_SLOTS as usize).enumerate() {
                let at = bodies.len();
                let kind = match encode_group(group, &mut bodies) {
                    Kind::Uniform(v) => u128::from(v),
                    Kind::Body => {
                        // At most 64 bodies of at most 53 bytes: well
                        // inside a u16.
                        starts.push(at as u16);
                        KIND_BODY
                    }
                };
                kinds |= kind << (2 * i);
            }
            // Bit v set where some slot of the run holds value v.
            let seen = codes.iter().flatten().fold(0u8, |m, &c| m | 1 << c);
            if seen.count_ones() <= 1 {
                // One value (or none: every slot free, read as 0).
                let value = if seen == 0 { 0 } else { seen.trailing_zeros() as u8 };
                return Ok((Run::Uniform(value), tally));
            }
            let mut bytes = kinds.to_le_bytes().to_vec();
            bytes.extend(starts.iter().flat_map(|s| s.to_le_bytes()));
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
    /// The run's kinds, directory and bodies.
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

/// A run's kinds, from the 16 bytes at `at` of `map`.
#[inline]
fn kinds_at(map: &[u8], at: usize) -> Option<u128> {
    Some(u128::from_le_bytes(map.get(at..at.checked_add(KIND_BYTES)?)?.try_into().ok()?))
}

impl Groups {
    /// Checks a mapped file of `slots` slots: its size holds the run words,
    /// uniform words name a value and nothing else, and the other runs'
    /// words ascend and leave room for their kinds and directories.
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
            let past = |what: &str| {
                corrupt("run words", format!("run {r} starts at {word}, after {last}, of {bytes_len} bytes: {what}"))
            };
            if word < last || word.saturating_add(KIND_BYTES as u64) > bytes_len {
                return Err(past("no room for its kinds"));
            }
            let kinds = kinds_at(map, bytes_at + word as usize).unwrap_or(0);
            let n = u64::from(bodies_of(kinds).count_ones());
            if word + KIND_BYTES as u64 + 2 * n > bytes_len {
                return Err(past("no room for its directory"));
            }
            last = word;
        }
        Ok(Groups { groups, bytes_at })
    }

    /// The code of `slot` (below the file's slot count); `None` where the
    /// bytes are damaged: [`Groups::head`], [`Groups::locate`] and
    /// [`Groups::code_in`] one after the other.
    #[inline]
    pub(crate) fn code(&self, map: &[u8], slot: u64) -> Option<u8> {
        match self.try_locate(map, slot, self.head(map, slot))? {
            Located::Code(c) => Some(c),
            Located::Body(at) => body_code(map, slot, at),
        }
    }

    /// The first read of [`Groups::code`]: the word of `slot`'s run
    /// ([`NO_HEAD`] past the end). Reading it for several slots before
    /// the next read ([`Groups::locate`]) lets the reads overlap.
    #[inline]
    pub(crate) fn head(&self, map: &[u8], slot: u64) -> u64 {
        let r = slot / GROUP_SLOTS / RUN_GROUPS;
        usize::try_from(r).ok().and_then(|r| u64_at(map, HEADER_SIZE + 8 * r)).unwrap_or(NO_HEAD)
    }

    /// The second read of [`Groups::code`]: from `slot`'s run word `word`
    /// ([`Groups::head`]), the run's kinds and directory, giving either
    /// the code (a uniform run or group: [`LOCATED`] plus the code, or
    /// plus 3 where the bytes are damaged) or where the group's body
    /// starts in `map` (below [`LOCATED`]), which [`Groups::code_in`]
    /// reads.
    #[inline]
    pub(crate) fn locate(&self, map: &[u8], slot: u64, word: u64) -> u64 {
        match self.try_locate(map, slot, word) {
            Some(Located::Code(c)) => LOCATED | u64::from(c),
            // Below `LOCATED`: a map is smaller than 2^63 bytes.
            Some(Located::Body(at)) => at as u64,
            None => LOCATED | 3,
        }
    }

    /// [`Groups::locate`], `None` where the bytes are damaged.
    #[inline]
    fn try_locate(&self, map: &[u8], slot: u64, word: u64) -> Option<Located> {
        let g = slot / GROUP_SLOTS;
        if g >= self.groups || word == NO_HEAD {
            return None;
        }
        if word & UNIFORM_RUN != 0 {
            // Checked at open: 0, 1 or 2.
            return Some(Located::Code((word & 3) as u8));
        }
        let run = self.bytes_at.checked_add(usize::try_from(word).ok()?)?;
        let kinds = kinds_at(map, run)?;
        let i = (g % RUN_GROUPS) as u32;
        let kind = (kinds >> (2 * i) & KIND_BODY) as u8;
        if kind != KIND_BODY as u8 {
            return Some(Located::Code(kind));
        }
        let bodies = bodies_of(kinds);
        // The group's place among those with a body, and their number.
        let before = (bodies & ((1u128 << (2 * i)) - 1)).count_ones() as usize;
        let dir = run + KIND_BYTES;
        let start = dir + 2 * before;
        let rel = u16::from_le_bytes(map.get(start..start + 2)?.try_into().ok()?);
        let at = dir.checked_add(2 * bodies.count_ones() as usize)?.checked_add(rel as usize)?;
        Some(Located::Body(at))
    }

    /// The code of `slot` from what [`Groups::locate`] found for it: the
    /// code itself, or read from the group's body.
    #[inline]
    pub(crate) fn code_in(&self, map: &[u8], slot: u64, located: u64) -> Option<u8> {
        if located & LOCATED != 0 {
            return Some(located as u8 & 3).filter(|&c| c < 3);
        }
        body_code(map, slot, usize::try_from(located).ok()?)
    }
}

/// What [`Groups::try_locate`] finds for a slot.
enum Located {
    /// The slot's code (a uniform run or group).
    Code(u8),
    /// Where the slot's group's body starts in the map.
    Body(usize),
}

/// The code of `slot` from its group's body, which starts at `at` of
/// `map`; `None` where the body is damaged.
#[inline]
fn body_code(map: &[u8], slot: u64, at: usize) -> Option<u8> {
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
        ENUMERATIVE_FORM..=0xED => {
            let (a, b) = ORDERED_PAIRS[(h - ENUMERATIVE_FORM) as usize];
            let e = enumerated(map.get(body + 1..)?, *map.get(body)?, s, false)?;
            Some(if e.set { b } else { a })
        }
        EXCEPTIONS_FORM..=0xE2 => {
            let m = h - EXCEPTIONS_FORM;
            let bits = map.get(body + 1..)?;
            let e = enumerated(bits, *map.get(body)?, s, true)?;
            if !e.set {
                return Some(m);
            }
            let (low, high) = others(m);
            Some(if bits_at(bits, e.end + e.before, 1)? == 0 { low } else { high })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Packs `codes` as a file of one run and reads every slot back: the
    /// body's length (0 for a uniform group) and the codes read.
    fn round_trip(codes: &[Option<u8>]) -> (usize, Vec<Option<u8>>) {
        let (payload, _) = pack(codes.len() as u64, |_, out| {
            out.copy_from_slice(codes);
            Ok::<_, ()>(Tally::default())
        })
        .unwrap();
        let mut map = vec![0u8; HEADER_SIZE];
        map.extend_from_slice(&payload);
        let g = Groups::parse(&map, codes.len() as u64, Path::new("t")).unwrap();
        // Words, kinds and one directory entry before the body.
        let body = payload.len().saturating_sub(8 + KIND_BYTES + 2);
        (body, (0..codes.len() as u64).map(|s| g.code(&map, s)).collect())
    }

    /// Packs `codes` and checks that every slot that is not free reads
    /// back as it was (`what` names the case); returns the group's body.
    fn body_reading_back(codes: &[Option<u8>], what: &str) -> Vec<u8> {
        let (len, back) = round_trip(codes);
        for (s, (c, r)) in codes.iter().zip(&back).enumerate() {
            assert!(c.is_none() || c == r, "slot {s}: {c:?} read as {r:?} ({what})");
        }
        let mut body = Vec::new();
        encode_group(codes, &mut body);
        assert_eq!(len, body.len(), "{what}");
        body
    }

    /// A deterministic stream of pseudo-random numbers (xorshift).
    fn noise(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// The reads of a batch one step at a time ([`Groups::head`],
    /// [`Groups::locate`], [`Groups::code_in`]) give what [`Groups::code`]
    /// gives, in every form of group, and nothing for a slot past the
    /// groups or a word past the words.
    #[test]
    fn staged_reads_agree_and_refuse_past_the_end() {
        // Groups of each kind: uniform, a few exceptions, two values
        // mixed, all three mixed.
        let codes: Vec<Option<u8>> = (0..4 * GROUP_SLOTS as usize)
            .map(|s| match s / GROUP_SLOTS as usize {
                0 => Some(1),
                1 => Some(if s % 50 == 0 { 2 } else { 0 }),
                2 => Some((s % 2) as u8),
                _ => Some((s * 7 % 3) as u8),
            })
            .collect();
        let (payload, _) = pack(codes.len() as u64, |_, out| {
            out.copy_from_slice(&codes);
            Ok::<_, ()>(Tally::default())
        })
        .unwrap();
        let mut map = vec![0u8; HEADER_SIZE];
        map.extend_from_slice(&payload);
        let g = Groups::parse(&map, codes.len() as u64, Path::new("t")).unwrap();
        let staged = |s: u64| g.code_in(&map, s, g.locate(&map, s, g.head(&map, s)));
        for (s, c) in codes.iter().enumerate() {
            assert_eq!(staged(s as u64), *c, "slot {s}");
            assert_eq!(g.code(&map, s as u64), *c, "slot {s}");
        }
        let past = codes.len() as u64;
        assert_eq!(staged(past), None);
        assert_eq!(staged(u64::MAX), None);
        assert_eq!(g.code_in(&map, 0, g.locate(&map, 0, NO_HEAD)), None);
    }

    #[test]
    fn each_form_reads_back_and_is_the_shortest() {
        let n = GROUP_SLOTS as usize;
        // One value: no body.
        let all_wins = vec![Some(1); n];
        assert_eq!(round_trip(&all_wins), (0, all_wins.clone()));
        // Three exceptions, of both other values.
        let mut few = vec![Some(2); n];
        (few[0], few[100], few[255]) = (Some(0), Some(1), Some(0));
        assert_eq!(round_trip(&few), (1 + 3 + 1, few.clone()));
        // Thirteen exceptions of one other value, one in each of 13 of the
        // 16-slot patterns: the enumerative form (one-bit counts, ranks
        // of RANK_BITS[1] = 4 bits), shorter than the list (1 + 13 + 2).
        let mut one_other = vec![Some(2); n];
        for s in (0..n).step_by(21) {
            one_other[s] = Some(1);
        }
        assert_eq!(round_trip(&one_other), (1 + 1 + (16 + 13 * 4usize).div_ceil(8), one_other.clone()));
        // Two values, half each: the bitmap.
        let halves: Vec<_> = (0..n).map(|s| Some(if s % 2 == 0 { 0 } else { 2 })).collect();
        assert_eq!(round_trip(&halves), (33, halves.clone()));
        // Three values evenly: base 3.
        let mixed: Vec<_> = (0..n).map(|s| Some((s % 3) as u8)).collect();
        assert_eq!(round_trip(&mixed), (53, mixed.clone()));
        // Half one value, the other half both others in turn: the mask
        // (49 bytes; the three-value enumerative form would take 2 + (16 ×
        // 4 + 16 × 14 + 128) / 8 = 54, base 3 53).
        let masked: Vec<_> = (0..n).map(|s| Some([1, 0, 1, 2][s % 4])).collect();
        assert_eq!(round_trip(&masked), (1 + 32 + 16, masked.clone()));
        // Mostly one value, 81 exceptions of both others: the three-value
        // enumerative form (43 bytes), shorter than the mask (44).
        let sparse: Vec<_> = (0..n)
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
        let k = sparse.iter().filter(|c| **c != Some(1)).count();
        assert_eq!(k, 81);
        let (len, back) = round_trip(&sparse);
        assert_eq!((len, back), (43, sparse.clone()));
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

    /// The enumerative form, worked by hand: 64 losses among draws, four
    /// in each 16 slots, at slots 16 i + {0, 1, 2, 3} (the first pattern
    /// with four bits set, rank 0) but for the last 16, where they are at
    /// {12, 13, 14, 15} (the last such pattern, rank C(16, 4) - 1 = 1819).
    /// The body: its first byte, the count width 3, 16 counts of 3 bits
    /// and 16 ranks of RANK_BITS[4] = 11 bits: 2 + (48 + 176) / 8 bytes,
    /// shorter than the list (2 + 64) or the bitmap (33).
    #[test]
    fn the_enumerative_form_is_the_rank_of_each_16_slots_pattern() {
        let n = GROUP_SLOTS as usize;
        let codes: Vec<_> = (0..n)
            .map(|s| {
                let t = s % 16;
                let loss = if s < 240 { t < 4 } else { t >= 12 };
                Some(if loss { 2 } else { 0 })
            })
            .collect();
        assert_eq!(RANK_BITS[4], 11);
        assert_eq!(CHOOSE_16[4], 1820);
        let mut body = Vec::new();
        assert_eq!(encode_group(&codes, &mut body), Kind::Body);
        assert_eq!(body.len(), 2 + (16 * 3 + 16 * 11) / 8);
        // (0, 2): draws and losses, the losses set.
        assert_eq!(body[0], ENUMERATIVE_FORM + 1);
        assert_eq!(body[1], 3);
        let bits = &body[2..];
        for i in 0..16 {
            assert_eq!(bits_at(bits, 3 * i, 3), Some(4), "count {i}");
        }
        for i in 0..15 {
            assert_eq!(bits_at(bits, 48 + 11 * i, 11), Some(0), "rank {i}");
        }
        assert_eq!(bits_at(bits, 48 + 11 * 15, 11), Some(1819));
        assert_eq!(round_trip(&codes), (body.len(), codes.clone()));
    }

    /// The three-value enumerative form, worked by hand: wins but for
    /// draws at slots 0 and 40 and a loss at slot 17, and more exceptions
    /// than the list takes (slots 100 to 147 alternate draw, loss). Its
    /// exceptions read in slot order: 0 draw (bit 0), 17 loss (1), 40 draw
    /// (0), then 100 draw, 101 loss, ...: bit `i` of the value bits is the
    /// exception's value, 0 the smaller other value (draw).
    #[test]
    fn the_three_value_form_lists_each_exceptions_value() {
        let n = GROUP_SLOTS as usize;
        let mut codes = vec![Some(1); n];
        (codes[0], codes[17], codes[40]) = (Some(0), Some(2), Some(0));
        for (s, c) in codes.iter_mut().enumerate().take(148).skip(100) {
            *c = Some(if s % 2 == 0 { 0 } else { 2 });
        }
        let k = 3 + 48;
        let mut body = Vec::new();
        encode_group(&codes, &mut body);
        assert_eq!(body[0], EXCEPTIONS_FORM + 1);
        let w = body[1];
        let bits = &body[2..];
        let mut ranks = 0;
        for i in 0..PATTERNS {
            let c = bits_at(bits, i * w as usize, w).unwrap();
            let expected = (i * 16..i * 16 + 16).filter(|&s| codes[s] != Some(1)).count() as u32;
            assert_eq!(c, expected, "count {i}");
            ranks += RANK_BITS[c as usize] as usize;
        }
        let values = PATTERNS * w as usize + ranks;
        let exception_values: Vec<u32> = (0..k).map(|i| bits_at(bits, values + i, 1).unwrap()).collect();
        assert_eq!(exception_values[..5], [0, 1, 0, 0, 1]);
        assert_eq!(body.len(), 2 + (values + k).div_ceil(8));
        assert_eq!(round_trip(&codes), (body.len(), codes.clone()));
    }

    /// A group whose first 16 slots all hold the rarer value (a count of
    /// 16: counts of width 5), and a few later slots: the enumerative form,
    /// every slot read back (each slot after the first 16 counts them among
    /// the coded slots before it).
    #[test]
    fn a_full_pattern_takes_counts_of_width_5() {
        let n = GROUP_SLOTS as usize;
        let codes: Vec<_> = (0..n).map(|s| Some(if s < 16 || s == 100 || s == 255 { 1 } else { 2 })).collect();
        let body = body_reading_back(&codes, "a full pattern");
        assert_eq!(body[..2], [ENUMERATIVE_FORM + 5, 5]);
    }

    /// Random groups of two values at every density, with free slots, read
    /// back whatever form they take; denser than the lists allow and
    /// sparser than half, the enumerative form is the shortest.
    #[test]
    fn random_two_value_groups_read_back() {
        let n = GROUP_SLOTS as usize;
        let mut next = noise(0x9E37_79B9_7F4A_7C15);
        let mut enumerative = 0;
        for density in (1..=128).step_by(3) {
            for (a, b) in ORDERED_PAIRS {
                let codes: Vec<_> = (0..n)
                    .map(|_| {
                        let r = next() % 256;
                        if r < 16 {
                            None
                        } else if r % 256 < density {
                            Some(b)
                        } else {
                            Some(a)
                        }
                    })
                    .collect();
                let body = body_reading_back(&codes, &format!("density {density}"));
                enumerative += usize::from(body.first().is_some_and(|&h| h & 0xF8 == ENUMERATIVE_FORM));
            }
        }
        assert!(enumerative > 100, "{enumerative}");
    }

    /// Random groups of three values, mostly one, read back whatever form
    /// they take; the three-value enumerative form is among them.
    #[test]
    fn random_three_value_groups_read_back() {
        let n = GROUP_SLOTS as usize;
        let mut next = noise(0x2545_F491_4F6C_DD1D);
        let mut three = 0;
        for density in (2..=160).step_by(2) {
            for m in 0..3u8 {
                let codes: Vec<_> = (0..n)
                    .map(|_| {
                        let r = next() % 512;
                        if r < 20 {
                            None
                        } else if r % 256 < density {
                            Some((m + 1 + (r % 2) as u8) % 3)
                        } else {
                            Some(m)
                        }
                    })
                    .collect();
                let body = body_reading_back(&codes, &format!("density {density}"));
                three += usize::from(body.first().is_some_and(|&h| (EXCEPTIONS_FORM..=0xE2).contains(&h)));
            }
        }
        assert!(three > 50, "{three}");
    }

    /// Runs of one value are stored as their word alone; in the others, a
    /// group of one value has no body; every slot reads back, over several
    /// runs and a short last one, free slots as their run's value.
    #[test]
    fn uniform_runs_and_groups_read_back() {
        let run = GROUP_SLOTS * RUN_GROUPS;
        let slots = 4 * run + 1000;
        // Run 0 wins (some slots free), run 1 all three values evenly, run 2
        // losses, run 3 draws but for its group 5 (wins) and group 9 (all
        // three values), the short last run draws.
        let value = |s: u64| match s / run {
            0 => (!s.is_multiple_of(7)).then_some(1),
            1 => Some((s % 3) as u8),
            2 => Some(2),
            3 => Some(match s % run / GROUP_SLOTS {
                5 => 1,
                9 => (s % 3) as u8,
                _ => 0,
            }),
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
        let words: Vec<u64> = (0..5).map(|r| u64_at(&map, HEADER_SIZE + 8 * r).unwrap()).collect();
        let run1 = KIND_BYTES + 2 * 64 + 64 * (1 + BASE3_BYTES);
        assert_eq!(words, [UNIFORM_RUN | 1, 0, UNIFORM_RUN | 2, run1 as u64, UNIFORM_RUN]);
        // Run 1: kinds, 64 directory entries and 64 base-3 bodies; run 3:
        // kinds, one entry and one body.
        assert_eq!(payload.len(), 5 * 8 + run1 + KIND_BYTES + 2 + 1 + BASE3_BYTES);
        let kinds = kinds_at(&map, HEADER_SIZE + 5 * 8 + run1).unwrap();
        assert_eq!(kinds, 1 << (2 * 5) | KIND_BODY << (2 * 9));
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
        m.truncate(HEADER_SIZE + 5 * 8 + 100);
        assert!(Groups::parse(&m, slots, Path::new("t")).is_err());
    }

    /// A file of one run whose only group has the body `body`.
    fn one_body(body: &[u8]) -> (Vec<u8>, Groups) {
        let mut map = vec![0u8; HEADER_SIZE];
        map.extend_from_slice(&0u64.to_le_bytes());
        map.extend_from_slice(&KIND_BODY.to_le_bytes());
        map.extend_from_slice(&0u16.to_le_bytes());
        map.extend_from_slice(body);
        let g = Groups::parse(&map, 10, Path::new("t")).unwrap();
        (map, g)
    }

    #[test]
    fn damage_reads_as_none() {
        for body in [
            &[0xF7][..],
            // A mask announced, not there.
            &[MASK_FORM],
            // Ten exceptions announced, none there.
            &[30],
            // Enumerative: count width 0 or 6; bits missing; a count of 17
            // (5 bits); a rank of 127 for a pattern of two slots, of which
            // there are C(16, 2) = 120.
            &[ENUMERATIVE_FORM, 0, 0xFF, 0xFF],
            &[ENUMERATIVE_FORM, 6, 0xFF, 0xFF],
            &[ENUMERATIVE_FORM, 1],
            &[ENUMERATIVE_FORM, 5, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
            &[ENUMERATIVE_FORM, 2, 2, 0, 0, 0, 0x7F],
        ] {
            let (map, g) = one_body(body);
            assert_eq!(g.code(&map, 0), None, "{body:?}");
        }
        // A count of 17 before the slot's 16 slots: the slots after them
        // read as damage too.
        let (map, g) = one_body(&[ENUMERATIVE_FORM, 5, 17, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(g.code(&map, 16), None);
        assert_eq!(g.code(&map, 255), None);
        // The last one with rank 119, the last pattern of two, reads:
        // slots 14 and 15 hold the pair's second value.
        let (map, g) = one_body(&[ENUMERATIVE_FORM, 2, 2, 0, 0, 0, 119]);
        let back: Vec<_> = (0..16).map(|s| g.code(&map, s)).collect();
        assert_eq!(back[..14], [Some(0); 14]);
        assert_eq!(back[14..], [Some(1); 2]);
        // A run word past the bodies is refused at open.
        let (mut map, _) = one_body(&[0]);
        map[HEADER_SIZE] = 9;
        assert!(Groups::parse(&map, 10, Path::new("t")).is_err());
        // So are kinds promising more directory entries than there are bytes.
        let (mut map, _) = one_body(&[0]);
        map[HEADER_SIZE + 8..HEADER_SIZE + 8 + KIND_BYTES].copy_from_slice(&u128::MAX.to_le_bytes());
        assert!(Groups::parse(&map, 10, Path::new("t")).is_err());
    }
}
