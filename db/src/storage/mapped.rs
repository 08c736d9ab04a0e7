//! The one place that maps files into memory, and the only module of the
//! workspace allowed unsafe code (`unsafe_code` is forbidden in every other
//! crate and denied in the rest of this one): every reader of table files
//! (ours and Malom's) maps through [`map_file`].
#![allow(unsafe_code)]

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicUsize, Ordering};

use memmap2::{Mmap, MmapMut};
use rayon::prelude::*;

/// Maps a whole file read-only.
///
/// # Contract
/// This function is safe to call, but mapping a file is sound only while
/// no one truncates or rewrites the file while the mapping lives (as
/// `memmap2::Mmap::map` requires). The project keeps that promise for its
/// own files: table files are written under a temporary name and renamed
/// into place when complete (see `table::write_table`), a finished table is
/// never modified again, and replacing one is a rename, which leaves the
/// mapped inode intact. Users must not edit table files in place while a
/// program has them open; every field read from the mapping is checked, so
/// even then the worst outcome is a wrong value or an error, not memory
/// unsafety beyond what the operating system does to a process whose mapped
/// file shrinks: SIGBUS on a read past the new end, which kills the
/// process unless the mapping is covered by a [`Guard`].
pub fn map_file(file: &File) -> io::Result<Mmap> {
    // SAFETY: the contract above: table files are renamed into place when
    // complete and never rewritten; Malom's files are read-only downloads.
    unsafe { Mmap::map(file) }
}

/// The most mappings [`Guard`]s cover at once; a mapping past that is
/// left unguarded (a read past the end of its shrunk file kills the
/// process, as without a guard).
pub const GUARD_SLOTS: usize = 16_384;

/// The guarded address ranges: `[start, end)` of each, `start` 0 when the
/// slot is free, and whether a read past the end of its file was caught.
/// Statics, so that the signal handler reads them without locks or
/// allocation.
static GUARD_START: [AtomicUsize; GUARD_SLOTS] = [const { AtomicUsize::new(0) }; GUARD_SLOTS];
static GUARD_END: [AtomicUsize; GUARD_SLOTS] = [const { AtomicUsize::new(0) }; GUARD_SLOTS];
static GUARD_HIT: [AtomicBool; GUARD_SLOTS] = [const { AtomicBool::new(false) }; GUARD_SLOTS];
static GUARD_TAKEN: [AtomicBool; GUARD_SLOTS] = [const { AtomicBool::new(false) }; GUARD_SLOTS];

/// Covers one file mapping (`[start, start + len)`) against the file
/// shrinking underneath it: a read past the file's new end, which the
/// kernel answers with SIGBUS, is caught by this module's SIGBUS handler,
/// which maps zero pages over the rest of the mapping (so the read goes on,
/// finding zeros) and marks the guard [`Guard::tripped`]. Whoever reads
/// through a guarded mapping checks `tripped` after reading and discards
/// what it read when it is set: the bytes were not the file's.
///
/// A SIGBUS at an address no guard covers is left to the handler that was
/// there before (by default, the process dies as it would have). The
/// handler is installed with the first guard (Unix only; elsewhere a guard
/// is never tripped). Mapping zero pages from a signal handler is what
/// Linux allows (`mmap` is a plain system call); the handler takes no lock
/// and allocates nothing.
///
/// Dropping the guard frees its slot; drop it before the mapping it covers
/// is unmapped (a field declared before the mapping's).
#[derive(Debug)]
pub struct Guard {
    /// The slot in the statics; `None` when all [`GUARD_SLOTS`] were taken.
    slot: Option<usize>,
}

impl Guard {
    /// Guards the mapping `map` (of a file, read-only).
    pub fn new(map: &Mmap) -> Guard {
        let (start, len) = (map.as_ptr() as usize, map.len());
        if len == 0 {
            return Guard { slot: None };
        }
        install_handler();
        let slot = (0..GUARD_SLOTS)
            .find(|&i| GUARD_TAKEN[i].compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok());
        if let Some(i) = slot {
            GUARD_HIT[i].store(false, Ordering::SeqCst);
            GUARD_END[i].store(start + len, Ordering::SeqCst);
            GUARD_START[i].store(start, Ordering::SeqCst);
        }
        Guard { slot }
    }

    /// Whether a read past the end of the file was caught: the file shrank
    /// underneath the mapping, and what was read from it since may be
    /// zeros instead of the file's bytes.
    #[inline]
    pub fn tripped(&self) -> bool {
        self.slot.is_some_and(|i| GUARD_HIT[i].load(Ordering::SeqCst))
    }

    /// Whether the mapping is covered (false when every slot was taken).
    pub fn covers(&self) -> bool {
        self.slot.is_some()
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            GUARD_START[i].store(0, Ordering::SeqCst);
            GUARD_END[i].store(0, Ordering::SeqCst);
            GUARD_TAKEN[i].store(false, Ordering::Release);
        }
    }
}

#[cfg(unix)]
mod sigbus {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    use super::{GUARD_END, GUARD_HIT, GUARD_SLOTS, GUARD_START};

    static INSTALL: Once = Once::new();
    /// The action SIGBUS had before ours, restored for a fault no guard
    /// covers. Set once, before our handler is installed.
    static PREVIOUS: OnceLock<libc::sigaction> = OnceLock::new();
    /// The page size, read once at installation (the handler calls nothing
    /// but mmap and sigaction).
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    pub(super) fn install() {
        INSTALL.call_once(|| {
            // SAFETY: plain calls of sigaction with valid, zeroed structs.
            unsafe {
                let mut previous: libc::sigaction = std::mem::zeroed();
                libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous);
                let _ = PREVIOUS.set(previous);
                PAGE.store(libc::sysconf(libc::_SC_PAGESIZE).max(1) as usize, Ordering::SeqCst);
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handler as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
            }
        });
    }

    extern "C" fn handler(_signal: libc::c_int, info: *mut libc::siginfo_t, _context: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t for SA_SIGINFO.
        let addr = unsafe { (*info).si_addr() } as usize;
        for i in 0..GUARD_SLOTS {
            let start = GUARD_START[i].load(Ordering::SeqCst);
            if start == 0 || addr < start {
                continue;
            }
            let end = GUARD_END[i].load(Ordering::SeqCst);
            if addr >= end {
                continue;
            }
            let page = PAGE.load(Ordering::SeqCst);
            let from = addr & !(page - 1);
            // SAFETY: [from, end) lies inside a live read-only mapping of a
            // file (the guard is dropped before its mapping is unmapped);
            // replacing its pages with anonymous zero pages changes only
            // what reads of that mapping find, which the guard reports.
            let mapped = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if mapped != libc::MAP_FAILED {
                GUARD_HIT[i].store(true, Ordering::SeqCst);
                return;
            }
            break;
        }
        // Not ours (or the zero pages could not be mapped): put back the
        // action there was before and return; the faulting read runs again
        // and gets it.
        // SAFETY: sigaction and signal are async-signal-safe; PREVIOUS is
        // read with an atomic load, no lock.
        unsafe {
            match PREVIOUS.get() {
                Some(p) => libc::sigaction(libc::SIGBUS, p, std::ptr::null_mut()),
                None => libc::signal(libc::SIGBUS, libc::SIG_DFL) as libc::c_int,
            };
        }
    }
}

/// Installs the SIGBUS handler of [`Guard`] once (a no-op off Unix).
fn install_handler() {
    #[cfg(unix)]
    sigbus::install();
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

impl HugeCells {
    /// The cells as atomics, for updates from several threads at once (the
    /// pair solver's cells, each updated by a compare-exchange). The
    /// exclusive borrow lasts as long as the returned slice, so no plain
    /// access to a cell overlaps an atomic one.
    pub fn atomic(&mut self) -> &[AtomicU16] {
        let cells: &mut [u16] = self;
        // SAFETY: `AtomicU16` has the size and bit validity of `u16`, and
        // an alignment of 2 (asserted below), which the map's page-aligned
        // start and 2-byte cells keep; the slice borrows `self` exclusively
        // for its lifetime, so the memory is reached only through it.
        unsafe { &*(cells as *mut [u16] as *const [AtomicU16]) }
    }
}

const _: () = assert!(std::mem::align_of::<AtomicU16>() == 2 && std::mem::size_of::<AtomicU16>() == 2);

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

    /// The atomic view reaches the same cells: what is stored through it
    /// reads back through it and through the plain slice after it.
    #[test]
    fn huge_cells_atomic_view_is_the_cells() {
        use std::sync::atomic::Ordering::Relaxed;
        let mut cells = HugeCells::filled(5000, 7).unwrap();
        let atomic = cells.atomic();
        assert_eq!(atomic.len(), 5000);
        assert!(atomic.iter().all(|c| c.load(Relaxed) == 7));
        atomic[4999].store(0xBEEF, Relaxed);
        assert_eq!(atomic[4999].compare_exchange(0xBEEF, 3, Relaxed, Relaxed), Ok(0xBEEF));
        atomic[0].store(11, Relaxed);
        assert_eq!((cells[0], cells[1], cells[4999]), (11, 7, 3));
    }
}
