//! Early writeback for output files that are synced when complete (the archive, the decompressed page
//! file): every [`STEP`] bytes the writer's buffer is flushed and the kernel is asked to start writing
//! what has been written so far (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`, as RocksDB's
//! `bytes_per_sync` does), so the disk works while the pipeline goes on and the final `fsync` finds
//! most of the file written already. It does not make anything durable by itself: the final
//! `sync_all` still does, and still reports any write error (the request without a wait flag does not
//! consume it). On other systems only the flush happens.

use std::fs::File;
use std::io::{BufWriter, Write};

/// Bytes written between two requests.
pub(crate) const STEP: u64 = 2 << 20;

/// Tracks how much of a file the kernel has been asked to write back.
#[derive(Debug, Default)]
pub(crate) struct Writeback {
    started: u64,
}

impl Writeback {
    /// `out` has had `written` bytes written through it from offset 0: when a step's worth is not yet
    /// handed to the kernel, flushes `out` and starts the writeback of those bytes.
    pub(crate) fn wrote(&mut self, out: &mut BufWriter<File>, written: u64) -> std::io::Result<()> {
        if written < self.started + STEP {
            return Ok(());
        }
        out.flush()?;
        // A refusal (a file system or system without it) only leaves the work to the final sync,
        // which reports any real write error.
        let _ = start(out.get_ref(), self.started, written - self.started);
        self.started = written;
        Ok(())
    }
}

/// Asks the kernel to start writing `len` bytes of `file` from `offset`; does not wait for them.
#[cfg(target_os = "linux")]
fn start(file: &File, offset: u64, len: u64) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let invalid = |_| std::io::Error::from(std::io::ErrorKind::InvalidInput);
    let (offset, len) = (
        i64::try_from(offset).map_err(invalid)?,
        i64::try_from(len).map_err(invalid)?,
    );
    // SAFETY: sync_file_range takes a descriptor and three integers and touches no memory of ours;
    // the descriptor stays open while `file` is borrowed.
    let rc = unsafe {
        libc::sync_file_range(file.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE)
    };
    match rc {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

#[cfg(not(target_os = "linux"))]
fn start(_: &File, _: u64, _: u64) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_writer_is_flushed_at_each_step_and_not_between() {
        let path = std::env::temp_dir().join(format!("warpforge-writeback-{}", std::process::id()));
        let mut out = BufWriter::with_capacity(2 * STEP as usize, File::create(&path).unwrap());
        let mut wb = Writeback::default();
        let chunk = vec![7u8; (STEP / 2) as usize];
        out.write_all(&chunk).unwrap();
        wb.wrote(&mut out, STEP / 2).unwrap();
        // Half a step: still in the writer's buffer.
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
        out.write_all(&chunk).unwrap();
        wb.wrote(&mut out, STEP).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), STEP);
        assert_eq!(wb.started, STEP);
        out.write_all(&chunk).unwrap();
        wb.wrote(&mut out, STEP + STEP / 2).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), STEP);
        out.flush().unwrap();
        // The request itself is accepted for a written range of a regular file.
        start(out.get_ref(), 0, STEP).expect("sync_file_range on a regular file");
        let back = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(back, vec![7u8; (STEP * 3 / 2) as usize]);
    }
}
