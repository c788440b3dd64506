//! Quiet reads: the whole-word reads that cannot race, found without the shadow's records. A read
//! races only with a write since the last barrier, so when nothing wrote a region (shared memory, a
//! global buffer) since the barrier, no read of it can race; otherwise a word's last writer (a
//! [`Stamp`], 16 bytes beside the word's record of about a hundred) says whether a read of it needs
//! the full check: no write since the barrier, the reader's own, or a strong write read by a strong
//! load, and the read is quiet. A quiet read still matters to a later write (write after read), so
//! it is recorded: a global word's at once, a shared load's in a log, written into the records
//! before anything checks them (`RaceState::check`), in the order the loads came, so the records
//! are the ones lane-by-lane checking would have made. A barrier drops the log: what it holds is
//! ordered before everything after the barrier. Between barriers, loads of a shared tile nobody
//! writes (the operands of a GEMM step) are logged and dropped without one record touched.

use super::{RaceState, Region, Touch, PAGE};
use crate::race_shadow::Word;

/// A word's last writer since the barrier of `epoch`: `writer` is the thread, with [`STRONG`] for a
/// strong write, or [`SPLIT`] when a narrower access split the word (its bytes are checked one by
/// one). A stamp of an earlier epoch: no write since the last barrier.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Stamp {
    epoch: u64,
    writer: u32,
}

const STRONG: u32 = 1 << 31;
const SPLIT: u32 = u32::MAX;

impl Stamp {
    /// Brings the stamp up to date after `t` was checked against `word` in `epoch`.
    #[inline]
    pub fn after(&mut self, word: &Word, epoch: u64, t: &Touch) {
        if word.split_in(epoch) {
            *self = Stamp {
                epoch,
                writer: SPLIT,
            };
        } else if t.write {
            let strong = if t.strong { STRONG } else { 0 };
            *self = Stamp {
                epoch,
                writer: t.thread | strong,
            };
        }
    }

    /// Whether a whole-word read by `thread` (`strong`: a strong load) in `epoch` cannot race.
    #[inline]
    fn quiet(self, epoch: u64, thread: u32, strong: bool) -> bool {
        self.epoch != epoch
            || (self.writer != SPLIT
                && (self.writer & !STRONG == thread || (strong && self.writer & STRONG != 0)))
    }
}

/// A quiet whole-word load from shared memory not yet recorded: the words `offsets[l] / 4 ..
/// + words` of each lane `l` of `mask`, read by `warp` at `pc`, warp step `step`.
#[derive(Clone, Debug)]
pub(crate) struct LoggedLoad {
    warp: u32,
    mask: u32,
    pc: u32,
    step: u64,
    strong: bool,
    words: u64,
    offsets: [u64; 32],
}

/// The most loads logged before they are written into the records (a kernel without barriers
/// would otherwise log every load it makes).
const MAX_LOGGED: usize = 1 << 12;

impl RaceState {
    /// Whether nothing wrote `region` (or split a word of it) since the last barrier: then no
    /// read of it can race, whoever makes it.
    #[inline]
    pub fn unwritten(&self, region: Region) -> bool {
        let last = match region {
            Region::Shared => self.shared_written,
            Region::Global(b) => self.global_written.get(b as usize).copied().unwrap_or(0),
        };
        last != self.epoch
    }

    /// Notes a write to `region` (or a split of one of its words) since the last barrier.
    #[inline]
    pub(super) fn mark_written(&mut self, region: Region) {
        match region {
            Region::Shared => self.shared_written = self.epoch,
            Region::Global(b) => {
                let b = b as usize;
                if self.global_written.len() <= b {
                    self.global_written.resize(b + 1, 0);
                }
                self.global_written[b] = self.epoch;
            }
        }
    }

    /// Whether a read of whole word `word` of `region` by `thread` cannot race, judged without what
    /// orders threads; `false` means "check it", not "a race".
    #[inline]
    pub fn quiet_read(&mut self, region: Region, word: u64, thread: u32, strong: bool) -> bool {
        let stamp = match region {
            Region::Shared => self.shared_stamps[word as usize],
            Region::Global(buffer) => {
                let index = self.page((buffer, word * 4 / PAGE as u64)) as usize;
                self.stamp_pages[index][(word % (PAGE as u64 / 4)) as usize]
            }
        };
        stamp.quiet(self.epoch, thread, strong)
    }

    /// Records the read of whole word `word` of `region` by `lanes` of `warp`, which
    /// [`Self::quiet_read`] cleared for each of them.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn record_read(
        &mut self,
        region: Region,
        word: u64,
        warp: u32,
        lanes: u32,
        pc: u32,
        step: u64,
        strong: bool,
    ) {
        let epoch = self.epoch;
        let index = match region {
            Region::Shared => {
                // After the logged loads, as it came.
                self.flush_reads();
                None
            }
            Region::Global(buffer) => Some(self.page((buffer, word * 4 / PAGE as u64)) as usize),
        };
        let word = match index {
            None => &mut self.shared[word as usize],
            Some(i) => &mut self.pages[i][(word % (PAGE as u64 / 4)) as usize],
        };
        word.record_read(epoch, warp, lanes, pc, step, strong);
    }

    /// Logs a load of `words` whole words at each of `mask`'s lanes' shared byte `offsets` by
    /// `warp`, every one of them cleared by [`Self::quiet_read`] or [`Self::unwritten`].
    #[allow(clippy::too_many_arguments)]
    pub fn log_shared_load(
        &mut self,
        warp: u32,
        mask: u32,
        pc: u32,
        step: u64,
        strong: bool,
        words: u64,
        offsets: &[u64; 32],
    ) {
        if self.log.len() >= MAX_LOGGED {
            self.flush_reads();
        }
        self.log.push(LoggedLoad {
            warp,
            mask,
            pc,
            step,
            strong,
            words,
            offsets: *offsets,
        });
    }

    /// Writes the logged loads into the records, oldest first and lane after lane (a run of
    /// neighbouring lanes at one address at once, as they would merge).
    pub(super) fn flush_reads(&mut self) {
        if self.log.is_empty() {
            return;
        }
        let epoch = self.epoch;
        for r in &self.log {
            let same = |o: usize, l: usize| r.offsets[o] == r.offsets[l];
            for (l, lanes) in runs(r.mask, same) {
                for w in 0..r.words {
                    let word = &mut self.shared[(r.offsets[l] / 4 + w) as usize];
                    word.record_read(epoch, r.warp, lanes, r.pc, r.step, r.strong);
                }
            }
        }
        self.log.clear();
    }
}

/// `mask`'s lanes in runs of neighbours that `same(lane, first)` puts with the run's first lane:
/// each run's first lane and its lanes. Lane after lane, the reads of one step merge into one
/// record, so a run is recorded at once.
pub(crate) fn runs(
    mask: u32,
    same: impl Fn(usize, usize) -> bool,
) -> impl Iterator<Item = (usize, u32)> {
    let mut rest = mask;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let l = rest.trailing_zeros() as usize;
        let mut run = 1u32 << l;
        let mut next = rest & !run;
        while next != 0 && same(next.trailing_zeros() as usize, l) {
            run |= next & next.wrapping_neg();
            next &= next - 1;
        }
        rest &= !run;
        Some((l, run))
    })
}
