//! The LZ4 block each record sends to the decode kernel. Normally only LZ4 records go to the device and
//! the host fills raw and same-filled pages itself. When the decoded pages download straight into the
//! caller's page-locked pages ([`super::HostPages`]), every page of a batch must come out of the
//! kernel in page order, so raw and same-filled pages travel as LZ4 blocks too: a raw page as one
//! literal run (4,114 bytes, the longest block a page can have), a same-filled page as eight literals,
//! a 4,083-byte match at offset 8 and five closing literals (33 bytes; the block format's end rules
//! kept: the last five bytes are literals, the last match starts more than 12 bytes before the end).

use crate::archive::RecordRef;
use crate::kernels::lz4::LZ4_MAX_PAGE_BLOCK;
use crate::PAGE_SIZE;

/// Bytes of a same-filled page's block.
const SAME_LEN: usize = 33;
/// Bytes before a raw page's literals: the token and 17 length bytes (4,096 = 15 + 16 × 255 + 1).
const RAW_HEADER: [u8; 18] = {
    let mut h = [255u8; 18];
    h[0] = 0xf0;
    h[17] = 1;
    h
};

/// What goes to the device for one record.
#[derive(Clone, Copy, Debug)]
pub(super) enum DeviceBlock<'a> {
    /// The record's own LZ4 block.
    Lz4(&'a [u8]),
    /// A raw page, as literals.
    Raw(&'a [u8; PAGE_SIZE]),
    /// A same-filled page.
    Same([u8; SAME_LEN]),
}

impl DeviceBlock<'_> {
    /// The block's length in bytes.
    pub fn len(&self) -> usize {
        match self {
            DeviceBlock::Lz4(block) => block.len(),
            DeviceBlock::Raw(_) => RAW_HEADER.len() + PAGE_SIZE,
            DeviceBlock::Same(block) => block.len(),
        }
    }

    /// Writes the block to the start of `out` (at least [`DeviceBlock::len`] bytes).
    pub fn write(&self, out: &mut [u8]) {
        match self {
            DeviceBlock::Lz4(block) => out[..block.len()].copy_from_slice(block),
            DeviceBlock::Raw(page) => {
                out[..RAW_HEADER.len()].copy_from_slice(&RAW_HEADER);
                out[RAW_HEADER.len()..RAW_HEADER.len() + PAGE_SIZE].copy_from_slice(&page[..]);
            }
            DeviceBlock::Same(block) => out[..block.len()].copy_from_slice(block),
        }
    }
}

/// The block of a page filled with `pattern` (little-endian, repeated).
fn same_filled(pattern: u64) -> [u8; SAME_LEN] {
    let p = pattern.to_le_bytes();
    let mut b = [0u8; SAME_LEN];
    // Eight literals and a match of 4 + 15 + 15 × 255 + 239 = 4,083 bytes at offset 8.
    b[0] = 0x8f;
    b[1..9].copy_from_slice(&p);
    b[9..11].copy_from_slice(&8u16.to_le_bytes());
    b[11..26].fill(255);
    b[26] = 239;
    // Five literals: the pattern's bytes at page offsets 4091..4096.
    b[27] = 0x50;
    for (i, byte) in b[28..33].iter_mut().enumerate() {
        *byte = p[(PAGE_SIZE - 5 + i) % 8];
    }
    b
}

/// The block for `record`: its own LZ4 block when it fits a page's; with `every_page`, raw and
/// same-filled pages' blocks too, and a stand-in (a zero page's) for an LZ4 block too long for any
/// page, which the host reports as malformed. `None`: the host handles the page.
pub(super) fn device_block(record: RecordRef<'_>, every_page: bool) -> Option<DeviceBlock<'_>> {
    match record {
        RecordRef::Lz4(block) if block.len() <= LZ4_MAX_PAGE_BLOCK as usize => {
            Some(DeviceBlock::Lz4(block))
        }
        _ if !every_page => None,
        RecordRef::Lz4(_) => Some(DeviceBlock::Same(same_filled(0))),
        RecordRef::Raw(page) => Some(DeviceBlock::Raw(page)),
        RecordRef::SameFilled(pattern) => Some(DeviceBlock::Same(same_filled(pattern))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_io::fill_ref;

    fn decode(record: RecordRef<'_>) -> Vec<u8> {
        let block = device_block(record, true).expect("every page has a block");
        let mut bytes = vec![0u8; block.len()];
        block.write(&mut bytes);
        assert!(bytes.len() <= LZ4_MAX_PAGE_BLOCK as usize);
        lz4_flex::block::decompress(&bytes, PAGE_SIZE).expect("a valid LZ4 block")
    }

    #[test]
    fn simple_pages_blocks_decode_to_the_pages() {
        let mut raw = [0u8; PAGE_SIZE];
        raw.iter_mut()
            .enumerate()
            .for_each(|(i, b)| *b = (i * 7 % 251) as u8);
        for record in [
            RecordRef::Raw(&raw),
            RecordRef::SameFilled(0),
            RecordRef::SameFilled(0x0102_0304_0506_0708),
            RecordRef::SameFilled(u64::MAX),
        ] {
            let mut page = [0u8; PAGE_SIZE];
            assert!(fill_ref(record, &mut page));
            assert_eq!(decode(record), page.to_vec(), "{record:?}");
        }
        assert_eq!(
            device_block(RecordRef::Raw(&raw), true).unwrap().len(),
            LZ4_MAX_PAGE_BLOCK as usize
        );
    }

    #[test]
    fn only_lz4_blocks_go_to_the_device_unless_every_page_does() {
        let raw = [0u8; PAGE_SIZE];
        let long = vec![0u8; LZ4_MAX_PAGE_BLOCK as usize + 1];
        assert!(device_block(RecordRef::Raw(&raw), false).is_none());
        assert!(device_block(RecordRef::SameFilled(3), false).is_none());
        assert!(device_block(RecordRef::Lz4(&long), false).is_none());
        assert!(matches!(
            device_block(RecordRef::Lz4(&long), true),
            Some(DeviceBlock::Same(_))
        ));
        assert!(matches!(
            device_block(RecordRef::Lz4(&[0x10, 7]), false),
            Some(DeviceBlock::Lz4(_))
        ));
    }
}
