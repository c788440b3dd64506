//! The LZ4 page codec as device functions: one warp compresses or decodes one 4 KiB page inside a
//! kernel someone else wrote, so a transform and the codec run in one launch (what NVIDIA's nvCOMPDx
//! offers CUDA C++). They are the batch kernels' own code ([`super::lz4_compress_kernel_level`],
//! [`super::lz4_decompress_kernel`]) with the page's place given by the caller, and they produce the
//! same bytes.
//!
//! Each has the signature `#[warpforge_ir::device]` gives a device function, so a `#[kernel]` calls
//! it like any other (arrays by name, values as expressions):
//!
//! ```
//! use warpforge_ir::kernel;
//! use warpforge_lz4::kernels::lz4::device::compress_page;
//!
//! /// One warp per page: compresses `pages[1024 g..]` into `output[4096 g..]`, meta words `4 g..`.
//! #[kernel(block_size = 32)]
//! fn compress_all(pages: &[u32], output: &mut [u8], meta: &mut [u32], n: u32) {
//!     let g = block_index();
//!     if g < n {
//!         compress_page(pages, g * 1024, output, g as u64 * 4096, meta, g * 4);
//!     }
//! }
//! assert_eq!(compress_all().block_size, 32);
//! ```
//!
//! The rules they share:
//! - **The whole warp calls them**, all 32 lanes, with the same arguments (warp-uniform control
//!   flow and values), as for any warp collective. On WebGPU collectives must also be
//!   workgroup-uniform: there one warp per block (`block_size = 32`) is the safe shape.
//! - **Each call declares its own shared memory**, sized for every warp of the block: `compress_page`
//!   7,040 bytes per warp (its hash table: it reads the page where the caller has it),
//!   [`compress_page_default`] 12 KiB (a copy of the page and its chains; 8 KiB, the chains alone,
//!   when the page is in a shared array of the caller's, which it then reads in place) plus 8 KiB of
//!   the caller's `scratch`, [`decompress_page`] 4,192 bytes (the page, with the block staged at its
//!   end). Call one in a loop rather than writing several calls.
//! - **They return after a `warp_sync`**: every lane has read (compressors) or written
//!   ([`decompress_page`]) the caller's page by then, so the caller may write its next page into the
//!   same array, or read any word of the decoded one, right after the call.
//! - Offsets are the caller's: a page is any 1024 consecutive words of a buffer **or shared array**
//!   (the first a multiple of 4: it is read in 16-byte groups), so a kernel can transform a page in
//!   shared memory and compress it from there.

use super::compress_kernel::{Ctx, PageHome, PageIo, Place};
use super::decompress_layout::{Dec, DecPlace};
use super::decompress_seq::Consts;
use super::Lz4Level;
use warpforge_ir::builder::{AnyArray, Array, KernelBuilder, Val, U16, U32, U64, U8};
use warpforge_ir::{Mask, MemRef};

/// Compresses one page at level 0 ([`Lz4Level::THROUGHPUT`]): words `first_word .. first_word + 1024`
/// of `page` (little-endian; `first_word` a multiple of 4) into an LZ4 block at bytes `out_byte ..` of
/// `output` (room for 4096 bytes), and writes four words at `meta[meta_word ..]`: the kind (0: LZ4
/// block, 1: raw — the block would not be shorter than the page, keep the page itself and ignore the
/// bytes written —, 2: same-filled, every 8 bytes the pattern), the block's length in bytes, and the
/// pattern's low and high word for kind 2. The bytes are those of [`super::encode_page_level`].
pub fn compress_page(
    b: &mut KernelBuilder,
    page: impl Array<U32>,
    first_word: Val<U32>,
    output: impl Array<U8>,
    out_byte: Val<U64>,
    meta: impl Array<U32>,
    meta_word: Val<U32>,
) {
    let io = PageIo {
        input: AnyArray::of(page),
        output: AnyArray::of(output),
        meta: AnyArray::of(meta),
        scratch: None,
    };
    let place = Place::At {
        first_word,
        out_base: out_byte,
        slots_base: out_byte,
        meta_base: meta_word,
    };
    Ctx::declare(b, io, Lz4Level::THROUGHPUT, PageHome::Input).compress_page(b, place);
}

/// [`compress_page`] at the default level ([`Lz4Level::DEFAULT`]: 64 chain entries, one lazy step; a
/// smaller block for about four times the work), which also needs 4096 `u16` of `scratch` from
/// element `scratch_at` (a buffer: no initialization needed, contents left undefined).
#[allow(clippy::too_many_arguments)]
pub fn compress_page_default(
    b: &mut KernelBuilder,
    page: impl Array<U32>,
    first_word: Val<U32>,
    output: impl Array<U8>,
    out_byte: Val<U64>,
    meta: impl Array<U32>,
    meta_word: Val<U32>,
    scratch: impl Array<U16>,
    scratch_at: Val<U64>,
) {
    let io = PageIo {
        input: AnyArray::of(page),
        output: AnyArray::of(output),
        meta: AnyArray::of(meta),
        scratch: Some(AnyArray::of(scratch)),
    };
    let place = Place::At {
        first_word,
        out_base: out_byte,
        slots_base: scratch_at,
        meta_base: meta_word,
    };
    // A page already in shared memory is read where it is (no copy, 4 KiB less shared memory per
    // warp); a page in a buffer is copied into shared memory, as the batch kernel does.
    let home = match page.mem_ref() {
        MemRef::Shared(_) => PageHome::Input,
        MemRef::Global(_) => PageHome::SharedCopy,
    };
    Ctx::declare(b, io, Lz4Level::DEFAULT, home).compress_page(b, place);
}

/// Decodes the LZ4 block at bytes `start .. start + size` of `blocks` (little-endian words; the array
/// readable up to the next multiple of 16 bytes after the block) into the page at words
/// `first_word .. first_word + 1024` of `page`, checked as the batch kernel checks it: a malformed
/// block never reads or writes out of bounds. Returns the status word in every lane: the code
/// ([`super::decode_status`]) in the low 8 bits (0: the block decoded to exactly one page, which is
/// then written; otherwise `page` is left untouched) and the block offset where decoding stopped above.
pub fn decompress_page(
    b: &mut KernelBuilder,
    blocks: impl Array<U32>,
    start: Val<U32>,
    size: Val<U32>,
    page: impl Array<U32>,
    first_word: Val<U32>,
) -> Val<U32> {
    let k = Dec::declare(b, AnyArray::of(blocks), AnyArray::of(page));
    let c = Consts::new(b);
    let place = DecPlace::At {
        start,
        size,
        out_word: first_word,
    };
    let status = k
        .decode_page(b, &c, place)
        .expect("a device function's page returns its status");
    // Every lane's writes to the caller's page come before the call returns, so the caller may read
    // any word of it at once.
    b.warp_sync(Mask::FULL);
    status
}
