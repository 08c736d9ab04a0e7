//! A byte string cut into blocks compressed one by one with zstd, read at
//! random: the payload shape of compressed DTM tables ([`crate::compressed`],
//! one code byte per slot) and compressed WDL files ([`crate::wdl`], five
//! slots per byte). A read decompresses one block, at most
//! [`MAX_BLOCK_BYTES`]; each thread keeps the last [`CACHED_BLOCKS`] blocks
//! it decompressed, so scans and nearby reads decompress once.
//!
//! The payload starts right after the 128-byte file header. Little-endian,
//! from the payload's start:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 4 | bytes per block (the last block may be shorter) |
//! | 4 | 4 | the format's own word (the board of a DTM table of encoding 8), else zero |
//! | 8 | 8 | blocks `n` (the string's length / block size, rounded up) |
//! | 16 | 8 | records `m` in the format's own list (zero where it has none) |
//! | 24 | 8 | compressed data size `d`, bytes |
//! | 32 | 8 (n + 1) | start of each block in the data, then `d` |
//! | … | `m` records | the format's own list (the DTM overflow list) |
//! | … | d | the zstd frames of the blocks, in order |

use std::cell::RefCell;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use xxhash_rust::xxh3::Xxh3;

use crate::table::{TableError, HEADER_SIZE};

/// The largest block this module reads or writes, bytes.
pub const MAX_BLOCK_BYTES: usize = 65536;
/// Decompressed blocks each thread keeps.
pub const CACHED_BLOCKS: usize = 8;
/// Bytes of the fixed part before the block offsets.
pub(crate) const SUBHEADER_SIZE: usize = 32;

/// Distinguishes open files in the per-thread block cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The little-endian `u64` at byte `o` of `map`; `None` past its end.
pub(crate) fn u64_at(map: &[u8], o: usize) -> Option<u64> {
    Some(u64::from_le_bytes(map.get(o..o.checked_add(8)?)?.try_into().ok()?))
}

/// Where the blocks of a mapped file lie, read and checked when it is
/// opened ([`Blocks::parse`]).
#[derive(Debug)]
pub(crate) struct Blocks {
    id: u64,
    /// Length of the whole (decompressed) byte string.
    len: u64,
    block_bytes: usize,
    offsets_at: usize,
    /// Where the format's own list starts, and its records.
    list_at: usize,
    list_count: usize,
    data_at: usize,
    data_len: u64,
}

impl Blocks {
    /// Reads and checks the sub-header and the block offsets of a mapped
    /// file holding a byte string of `len` bytes in blocks of one of the
    /// sizes `allowed` (those the format allows, each at most
    /// [`MAX_BLOCK_BYTES`]), with the format's own list of records of
    /// `record` bytes each.
    ///
    /// # Errors
    /// [`TableError::Corrupt`] naming the first part that is inconsistent:
    /// the block size, the block count, the file size, offsets not
    /// ascending or past the data.
    pub(crate) fn parse(
        map: &[u8],
        len: u64,
        allowed: &[usize],
        record: usize,
        path: &Path,
    ) -> Result<Blocks, TableError> {
        let corrupt = |field: &'static str, detail: String| TableError::corrupt(path, field, detail);
        let sub = map
            .get(HEADER_SIZE..HEADER_SIZE + SUBHEADER_SIZE)
            .ok_or_else(|| corrupt("file size", format!("{} bytes, shorter than the headers", map.len())))?;
        let block_bytes = u32::from_le_bytes([sub[0], sub[1], sub[2], sub[3]]) as usize;
        if !allowed.contains(&block_bytes) || block_bytes > MAX_BLOCK_BYTES {
            let expected: Vec<String> = allowed.iter().map(usize::to_string).collect();
            return Err(corrupt("block size", format!("{block_bytes}, expected {}", expected.join(" or "))));
        }
        let word = |i: usize| u64::from_le_bytes(sub[i..i + 8].try_into().unwrap_or([0; 8]));
        let (block_count, list_count, data_len) = (word(8), word(16), word(24));
        let expected = len.div_ceil(block_bytes as u64);
        if block_count != expected {
            return Err(corrupt("block count", format!("{block_count}, but {len} bytes need {expected}")));
        }
        let offsets_at = HEADER_SIZE + SUBHEADER_SIZE;
        let sizes = block_count
            .checked_add(1)
            .and_then(|n| n.checked_mul(8))
            .and_then(|o| o.checked_add(offsets_at as u64))
            .and_then(|o| Some((o, list_count.checked_mul(record as u64)?)))
            .and_then(|(o, v)| Some((o, o.checked_add(v)?)))
            .and_then(|(o, d)| Some((o, d, d.checked_add(data_len)?)));
        let Some((list_at, data_at, _)) = sizes.filter(|s| s.2 == map.len() as u64) else {
            return Err(corrupt(
                "file size",
                format!("{} bytes, which does not match the counts in the compressed header", map.len()),
            ));
        };
        let mut previous = 0;
        for b in 0..=block_count as usize {
            let o = u64_at(map, offsets_at + 8 * b).unwrap_or(u64::MAX);
            if o < previous || o > data_len || (b == 0 && o != 0) || (b == block_count as usize && o != data_len) {
                return Err(corrupt("block offsets", format!("offset {b} is {o}, out of order or past the data")));
            }
            previous = o;
        }
        Ok(Blocks {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            len,
            block_bytes,
            offsets_at,
            list_at: list_at as usize,
            list_count: list_count as usize,
            data_at: data_at as usize,
            data_len,
        })
    }

    /// Where the format's own list starts in the file, and its records.
    pub(crate) fn list(&self) -> (usize, usize) {
        (self.list_at, self.list_count)
    }

    /// Byte `i` of the string; `None` past the end or when its block does
    /// not decompress to the right size (a damaged file).
    #[inline]
    pub(crate) fn byte(&self, map: &[u8], i: u64) -> Option<u8> {
        if i >= self.len {
            return None;
        }
        let block = i / self.block_bytes as u64;
        let within = (i % self.block_bytes as u64) as usize;
        CACHE.with(|cache| {
            let mut cache = cache.try_borrow_mut().ok()?;
            let way = (self.id.wrapping_mul(0x9e37_79b9) ^ block) as usize % CACHED_BLOCKS;
            if cache.tags[way] != (self.id, block) {
                cache.tags[way] = (0, 0);
                let BlockCache { decompressor, blocks, .. } = &mut *cache;
                let buffer = &mut blocks[way];
                if buffer.len() < self.block_bytes {
                    buffer.resize(self.block_bytes, 0);
                }
                self.decompress(map, block, decompressor.as_mut()?, &mut buffer[..])?;
                cache.tags[way] = (self.id, block);
            }
            Some(cache.blocks[way][within])
        })
    }

    /// Bytes per block (the last block may be shorter).
    pub(crate) fn block_bytes(&self) -> usize {
        self.block_bytes
    }

    /// The second sub-header word (bytes 4..8 of the payload), which a
    /// format may use for a field of its own (zero where it does not).
    pub(crate) fn word(map: &[u8]) -> u32 {
        map.get(HEADER_SIZE + 4..HEADER_SIZE + 8).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Blocks of the string.
    pub(crate) fn block_count(&self) -> u64 {
        self.len.div_ceil(self.block_bytes as u64)
    }

    /// Decompresses block `block` into the start of `out` (at least the
    /// block size long), without the cache, for reads of whole blocks; the
    /// block's length, `None` when it does not decompress to that length
    /// (a damaged file) or `block` is past the end.
    pub(crate) fn block_into(&self, map: &[u8], block: u64, out: &mut [u8]) -> Option<usize> {
        CACHE.with(|cache| {
            let mut cache = cache.try_borrow_mut().ok()?;
            self.decompress(map, block, cache.decompressor.as_mut()?, out)
        })
    }

    /// Decompresses block `block` with `decompressor` into `out`; its
    /// length, `None` unless that is the block's length.
    fn decompress(
        &self,
        map: &[u8],
        block: u64,
        decompressor: &mut zstd::bulk::Decompressor<'static>,
        out: &mut [u8],
    ) -> Option<usize> {
        if block >= self.block_count() {
            return None;
        }
        let start = u64_at(map, self.offsets_at + 8 * block as usize)?;
        let end = u64_at(map, self.offsets_at + 8 * (block as usize + 1))?;
        if start > end || end > self.data_len {
            return None;
        }
        let frame = map.get(self.data_at + start as usize..self.data_at + end as usize)?;
        let expected = (self.len - block * self.block_bytes as u64).min(self.block_bytes as u64) as usize;
        let n = decompressor.decompress_to_buffer(frame, out).ok()?;
        (n == expected).then_some(n)
    }
}

/// The blocks a thread decompressed last (`tags`: file id and block, `(0,
/// 0)` for none; each buffer grown to the largest block it has held), and
/// its zstd context.
struct BlockCache {
    tags: [(u64, u64); CACHED_BLOCKS],
    blocks: [Vec<u8>; CACHED_BLOCKS],
    decompressor: Option<zstd::bulk::Decompressor<'static>>,
}

thread_local! {
    static CACHE: RefCell<BlockCache> = RefCell::new(BlockCache {
        tags: [(0, 0); CACHED_BLOCKS],
        blocks: Default::default(),
        decompressor: zstd::bulk::Decompressor::new().ok(),
    });
}

/// A byte string compressed in blocks, ready to be written after a file
/// header: [`Packed::head`] (sub-header, offsets, then the format's own
/// list, which the caller appends), then [`Packed::frames`].
pub(crate) struct Packed<T> {
    /// The sub-header and block offsets; the caller appends its list.
    pub head: Vec<u8>,
    /// Each block's zstd frame and what `fill` returned for it.
    pub frames: Vec<(Vec<u8>, T)>,
    /// Records of the format's own list, as the sub-header says.
    pub list_count: u64,
}

impl<T> Packed<T> {
    /// Bytes after the file header: head, list and frames.
    pub fn payload_len(&self) -> u64 {
        self.head.len() as u64 + self.frames.iter().map(|f| f.0.len() as u64).sum::<u64>()
    }

    /// The XXH3-64 of everything after the file header (the header's
    /// payload checksum).
    pub fn checksum(&self) -> u64 {
        let mut hasher = Xxh3::new();
        hasher.update(&self.head);
        for f in &self.frames {
            hasher.update(&f.0);
        }
        hasher.digest()
    }

    /// Writes the encoded file header `header`, then the payload.
    ///
    /// # Errors
    /// What writing to `w` returns.
    pub fn write(&self, w: &mut impl io::Write, header: &[u8]) -> io::Result<()> {
        w.write_all(header)?;
        w.write_all(&self.head)?;
        for f in &self.frames {
            w.write_all(&f.0)?;
        }
        Ok(())
    }
}

/// Compresses a byte string of `len` bytes in blocks of `block_bytes` (at
/// most [`MAX_BLOCK_BYTES`]) at zstd `level`, blocks in parallel, `word`
/// in the sub-header's second word (the format's own; zero for none):
/// `fill(b, buf)` appends block `b`'s bytes to the empty `buf` (as many as
/// the block holds) and returns what the format keeps of it besides (the
/// DTM overflow records); `list_count` gives the number of records of the
/// format's own list from those.
///
/// # Errors
/// What `fill` returns, and [`TableError::Io`] naming `path` when zstd
/// fails.
pub(crate) fn pack<T: Send>(
    len: u64,
    block_bytes: usize,
    word: u32,
    level: i32,
    path: &Path,
    fill: impl Fn(u64, &mut Vec<u8>) -> Result<T, TableError> + Sync,
    list_count: impl FnOnce(&[(Vec<u8>, T)]) -> u64,
) -> Result<Packed<T>, TableError> {
    debug_assert!(block_bytes <= MAX_BLOCK_BYTES);
    let io_error = |e: io::Error| TableError::io(path, e);
    let block_count = len.div_ceil(block_bytes as u64);
    let frames: Vec<(Vec<u8>, T)> = (0..block_count)
        .into_par_iter()
        .map_init(
            || (zstd::bulk::Compressor::new(level), Vec::with_capacity(block_bytes)),
            |(compressor, buf), b| {
                let compressor = compressor.as_mut().map_err(|e| io_error(io::Error::other(e.to_string())))?;
                buf.clear();
                let kept = fill(b, buf)?;
                Ok((compressor.compress(buf).map_err(io_error)?, kept))
            },
        )
        .collect::<Result<_, TableError>>()?;
    let data_len: u64 = frames.iter().map(|f| f.0.len() as u64).sum();
    let list_count = list_count(&frames);
    let mut head = Vec::with_capacity(SUBHEADER_SIZE + 8 * (block_count as usize + 1));
    head.extend_from_slice(&(block_bytes as u32).to_le_bytes());
    head.extend_from_slice(&word.to_le_bytes());
    head.extend_from_slice(&block_count.to_le_bytes());
    head.extend_from_slice(&list_count.to_le_bytes());
    head.extend_from_slice(&data_len.to_le_bytes());
    let mut offset = 0u64;
    head.extend_from_slice(&offset.to_le_bytes());
    for f in &frames {
        offset += f.0.len() as u64;
        head.extend_from_slice(&offset.to_le_bytes());
    }
    Ok(Packed { head, frames, list_count })
}
