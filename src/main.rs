use std::alloc::{GlobalAlloc, Layout, System};

use mimalloc::MiMalloc;

// The command line allocates per exchange on every worker thread (maps, strings, records):
// mimalloc's thread-local heaps serve those small blocks faster than the system allocator.
// Large blocks (a recording read whole, a big body) stay with the system allocator, which
// grows them in place and gives them back when freed. The library sets no allocator: its
// users choose theirs.
#[global_allocator]
static ALLOCATOR: SmallFast = SmallFast;

/// mimalloc's `mi_option_arena_eager_commit` and `mi_option_purge_delay` (their places in
/// `mi_option_e` of the mimalloc 3 header the crate builds).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Blocks of at least this many bytes go to the system allocator.
const LARGE: usize = 32 << 10;

/// The alignment every mimalloc block has: its block sizes are multiples of a word, in pages
/// whose first block is aligned to 16 bytes. A layout aligned to no more than this is
/// allocated through mimalloc's plain calls: its aligned calls (all the `mimalloc` crate
/// makes) over-allocate by the alignment and mark the page as holding interior pointers
/// whenever their fast path misses (a block over 1 KiB, or a size class whose page has no
/// free block left), about ten times a line of `classify --jsonl`.
const WORD: usize = std::mem::size_of::<usize>();

/// mimalloc for blocks under [`LARGE`] bytes, the system allocator for the rest. A block is
/// freed by the allocator its size picks; it moves between the two only when a reallocation
/// crosses the threshold.
struct SmallFast;

// SAFETY: every block is allocated, reallocated and freed by the one allocator its layout's
// size picks (a layout passed to `dealloc` or `realloc` is the one the block was allocated
// with), and each of the two upholds `GlobalAlloc`'s contract on its own blocks (mimalloc's
// plain calls for alignments its blocks always have, see [`WORD`]; `mi_free` frees a block
// of either kind); a move between them copies the smaller of the two sizes, then frees the
// old block.
unsafe impl GlobalAlloc for SmallFast {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout is passed on unchanged.
        unsafe {
            if layout.size() >= LARGE {
                System.alloc(layout)
            } else if layout.align() <= WORD {
                let p = libmimalloc_sys::mi_malloc(layout.size()).cast::<u8>();
                debug_assert!(p.is_null() || (p as usize).is_multiple_of(layout.align()));
                p
            } else {
                MiMalloc.alloc(layout)
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe {
            if layout.size() >= LARGE {
                System.alloc_zeroed(layout)
            } else if layout.align() <= WORD {
                libmimalloc_sys::mi_zalloc(layout.size()).cast::<u8>()
            } else {
                MiMalloc.alloc_zeroed(layout)
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the block came from the allocator its layout's size picks.
        unsafe {
            if layout.size() >= LARGE {
                System.dealloc(ptr, layout)
            } else {
                MiMalloc.dealloc(ptr, layout)
            }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (was_large, is_large) = (layout.size() >= LARGE, new_size >= LARGE);
        // SAFETY: within one allocator the call is passed on unchanged; across the two, the new
        // block (of a layout valid by `realloc`'s contract on `new_size`) gets the bytes both
        // blocks hold before the old one is freed by its own allocator.
        unsafe {
            match (was_large, is_large) {
                (true, true) => System.realloc(ptr, layout, new_size),
                (false, false) if layout.align() <= WORD => {
                    libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast::<u8>()
                }
                (false, false) => MiMalloc.realloc(ptr, layout, new_size),
                _ => {
                    let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
                    let new = self.alloc(new_layout);
                    if !new.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    new
                }
            }
        }
    }
}

fn main() -> std::process::ExitCode {
    // Memory is committed as it is used and given back as soon as it is free, not held for
    // reuse: with mimalloc's defaults for every block, `check` on a 50 MiB recording peaked
    // at 3.04x the file against 2.98x with the system allocator alone (the bound in
    // tests/it/check_memory.rs is 3x); with these settings and large blocks kept apart, 2.89x.
    // SAFETY: setting an option is a plain store mimalloc reads on its next decision.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 0);
    }
    mcp_verdict::commands::main()
}
