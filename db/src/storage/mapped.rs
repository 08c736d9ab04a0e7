//! The one place that maps files into memory, and the only module of the
//! workspace allowed unsafe code (`unsafe_code` is forbidden in every other
//! crate and denied in the rest of this one): every reader of table files
//! (ours and Malom's) maps through [`map_file`].
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::path::Path;

use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;

/// Maps a whole file read-only.
///
/// # Contract
/// This function is safe to call, but mapping a file is sound only while
/// no one truncates or rewrites the file; the project keeps that promise
/// for its own files, and callers must not map files that programs edit in
/// place. In detail: no one may truncate or rewrite the file that no one truncates or rewrites the file
/// while the mapping lives (as `memmap2::Mmap::map` requires). Table files are written under a temporary name and renamed
/// into place when complete (see `table::write_table`); a finished table is
/// never modified again, and replacing one is a rename, which leaves the
/// mapped inode intact. Users must not edit table files in place while a
/// program has them open; every field read from the mapping is checked, so
/// even then the worst outcome is a wrong value or an error, not memory
/// unsafety beyond what the operating system does to a process whose mapped
/// file shrinks (SIGBUS).
pub fn map_file(file: &File) -> io::Result<Mmap> {
    // SAFETY: the contract above: table files are renamed into place when
    // complete and never rewritten; Malom's files are read-only downloads.
    unsafe { Mmap::map(file) }
}

/// A read-only copy of `bytes` in anonymous memory, asked to be backed by
/// huge pages (2 MiB on x86-64; Linux's transparent huge pages, which
/// honour the request in both their `always` and `madvise` modes; elsewhere,
/// and where the kernel has none free, ordinary pages), copied on all of
/// rayon's threads. For files read at random: a look-up into a mapped
/// table of a few GB with 4 KiB pages mostly waits for the processor's
/// page walk (above all in a virtual machine, whose walks are nested),
/// which huge pages spare. Costs the file's size in memory, outside the
/// page cache.
///
/// # Errors
/// The operating system's, when the memory cannot be mapped.
pub fn huge_page_copy(bytes: &[u8]) -> io::Result<Mmap> {
    let mut copy = huge_page_map(bytes.len())?;
    const CHUNK: usize = 1 << 21;
    copy[..bytes.len()]
        .par_chunks_mut(CHUNK)
        .zip(bytes.par_chunks(CHUNK))
        .for_each(|(to, from)| to.copy_from_slice(from));
    copy.make_read_only()
}

/// `bytes` bytes of zeroed anonymous memory (at least one page), asked to be
/// backed by huge pages: [`huge_page_copy`] and [`HugeCells`].
fn huge_page_map(bytes: usize) -> io::Result<MmapMut> {
    let map = MmapMut::map_anon(bytes.max(1))?;
    #[cfg(target_os = "linux")]
    // Only a hint: without huge pages the memory still works.
    let _ = map.advise(memmap2::Advice::HugePage);
    Ok(map)
}

/// A working array of `u16` cells in anonymous memory, asked to be backed
/// by huge pages as [`huge_page_copy`] is, for arrays of hundreds of MB that
/// are read or written at random (a placement sector's values in the
/// mirrored index's order, gathered into slot order at random). Reads and
/// writes as a `[u16]` slice (`Deref`); the memory is returned when it is
/// dropped.
#[derive(Debug)]
pub struct HugeCells {
    map: MmapMut,
    len: usize,
}

impl HugeCells {
    /// `len` cells, each `value`, filled on all of rayon's threads (a cell
    /// is 2 bytes; `len` 0 maps one page).
    ///
    /// # Errors
    /// The operating system's, when the memory cannot be mapped (also when
    /// `2 len` bytes overflow `usize`, as [`io::ErrorKind::OutOfMemory`]).
    pub fn filled(len: usize, value: u16) -> io::Result<HugeCells> {
        let bytes = len.checked_mul(2).ok_or_else(|| io::Error::from(io::ErrorKind::OutOfMemory))?;
        let mut cells = HugeCells { map: huge_page_map(bytes)?, len };
        cells.par_chunks_mut(1 << 20).for_each(|chunk| chunk.fill(value));
        Ok(cells)
    }
}

impl std::ops::Deref for HugeCells {
    type Target = [u16];
    fn deref(&self) -> &[u16] {
        // An anonymous map starts on a page boundary, so the cast of its
        // first `2 len` bytes never fails.
        bytemuck::cast_slice(&self.map[..2 * self.len])
    }
}

impl std::ops::DerefMut for HugeCells {
    fn deref_mut(&mut self) -> &mut [u16] {
        bytemuck::cast_slice_mut(&mut self.map[..2 * self.len])
    }
}

/// Opens a file to be mapped, read-only: a table, a WDL file, a Malom file.
///
/// # Errors
/// The operating system's error when it cannot be opened, and an error of
/// kind [`io::ErrorKind::InvalidInput`] saying so when the path is a
/// directory or another non-regular file (mapping one fails with an
/// unhelpful "No such device").
pub fn open_file(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    let kind = file.metadata()?.file_type();
    if !kind.is_file() {
        let what = if kind.is_dir() { "a directory" } else { "not a regular file" };
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("is {what}, not a table file")));
    }
    Ok(file)
}

/// Hints the processor to bring the cache line holding `value` in, ahead
/// of a read that would otherwise wait for memory (a table entry, a
/// solver's cell); no effect on any value, and a no-op on processors other
/// than x86-64. Several hints issued back to back let their cache misses
/// overlap, where plain loads, each used at once, would wait one after
/// another.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    safe_arch::prefetch_t0(value);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells start at their fill value and keep what is written, at
    /// both ends and across the 1 Mi-cell chunks the fill is cut into; an
    /// empty array has no cells.
    #[test]
    fn huge_cells_start_filled_and_keep_writes() {
        let len = (1 << 20) * 3 + 7;
        let mut cells = HugeCells::filled(len, 0xFFFF).unwrap();
        assert_eq!(cells.len(), len);
        assert!(cells.iter().all(|&c| c == 0xFFFF));
        for (i, c) in cells.iter_mut().enumerate() {
            *c = (i % 65_521) as u16;
        }
        assert!(cells.iter().enumerate().all(|(i, &c)| c == (i % 65_521) as u16));
        assert!(HugeCells::filled(0, 1).unwrap().is_empty());
    }
}
