//! The async-DMA ring's bookkeeping: each slot moves Free → H2D → Kernel → D2H → Complete → Free, slots
//! are filled and drained in order, and an illegal step is an error rather than a corrupted batch. The
//! CUDA engine drives it; it needs no GPU and is tested on its own.

use super::GpuError;

/// Where a slot's batch is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotState {
    /// Unused.
    Free,
    /// Host-to-device copy queued.
    H2d,
    /// Kernel queued.
    Kernel,
    /// Device-to-host copy queued.
    D2h,
    /// Results ready on the host.
    Complete,
}

pub use super::error::RingError;

/// The slots and their order.
#[derive(Clone, Debug)]
pub struct Ring {
    states: Vec<SlotState>,
    /// Next slot to fill.
    head: usize,
    /// Oldest slot in flight.
    tail: usize,
    in_flight: usize,
}

impl Ring {
    /// A ring of `slots` free slots.
    pub fn new(slots: usize) -> Ring {
        Ring {
            states: vec![SlotState::Free; slots.max(1)],
            head: 0,
            tail: 0,
            in_flight: 0,
        }
    }

    /// Slots in flight (not free).
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Whether every slot is busy (the oldest must be drained first).
    pub fn is_full(&self) -> bool {
        self.in_flight == self.states.len()
    }

    /// The state of `slot`.
    pub fn state(&self, slot: usize) -> SlotState {
        self.states[slot]
    }

    /// Takes the next slot for a new batch (its H2D is about to be queued).
    pub fn acquire(&mut self) -> Result<usize, RingError> {
        if self.is_full() {
            return Err(RingError(
                "every slot is in flight; drain the oldest first".into(),
            ));
        }
        let slot = self.head;
        self.states[slot] = SlotState::H2d;
        self.head = (self.head + 1) % self.states.len();
        self.in_flight += 1;
        Ok(slot)
    }

    /// Moves `slot` one step on (H2D → Kernel → D2H → Complete).
    pub fn advance(&mut self, slot: usize, to: SlotState) -> Result<(), RingError> {
        let from = *self
            .states
            .get(slot)
            .ok_or_else(|| RingError(format!("no slot {slot}")))?;
        let legal = matches!(
            (from, to),
            (SlotState::H2d, SlotState::Kernel)
                | (SlotState::Kernel, SlotState::D2h)
                | (SlotState::D2h, SlotState::Complete)
        );
        if !legal {
            return Err(RingError(format!(
                "slot {slot} cannot go from {from:?} to {to:?}"
            )));
        }
        self.states[slot] = to;
        Ok(())
    }

    /// The oldest slot in flight, which must be drained next.
    pub fn oldest(&self) -> Option<usize> {
        (self.in_flight > 0).then_some(self.tail)
    }

    /// Frees the oldest slot once its results were taken.
    pub fn release(&mut self, slot: usize) -> Result<(), RingError> {
        if self.oldest() != Some(slot) {
            return Err(RingError(format!(
                "slot {slot} released out of order (oldest is {:?})",
                self.oldest()
            )));
        }
        if self.states[slot] != SlotState::Complete {
            return Err(RingError(format!(
                "slot {slot} released while {:?}",
                self.states[slot]
            )));
        }
        self.states[slot] = SlotState::Free;
        self.tail = (self.tail + 1) % self.states.len();
        self.in_flight -= 1;
        Ok(())
    }
}

/// What the pipeline drives, per ring slot.
pub trait Stages {
    /// A finished batch.
    type Output;
    /// Queue the upload and the first kernel of `chunk` in `slot` (do not wait); for compression the
    /// compress kernel, for decompression the decode and its download.
    fn start(&mut self, slot: usize, chunk: usize) -> Result<(), GpuError>;
    /// The second step, for compression: wait for the slot's sizes, then queue the compaction and
    /// the download of its compressed bytes (decompression has none).
    fn compact(&mut self, slot: usize) -> Result<(), GpuError>;
    /// Wait for the slot's bytes and build its output.
    fn finish(&mut self, slot: usize, chunk: usize) -> Result<Self::Output, GpuError>;
    /// After a failure: wait for (or abandon) all queued work so every slot can be reused.
    fn quiesce(&mut self);
}

/// The stages of a running ring, drained ([`Stages::quiesce`]) if the run unwinds: a panic in a stage
/// (in a caller's `Records`, say) leaves copies queued from or into the caller's memory, and they
/// finish before the caller can write, read or free that memory again.
struct DrainOnUnwind<'s, S: Stages>(&'s mut S);

impl<S: Stages> Drop for DrainOnUnwind<'_, S> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            // A second panic out of the drain would abort the process: it is caught and dropped
            // (the first one is on its way out already).
            let stages = &mut *self.0;
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stages.quiesce()));
        }
    }
}

impl<S: Stages> std::ops::Deref for DrainOnUnwind<'_, S> {
    type Target = S;

    fn deref(&self) -> &S {
        self.0
    }
}

impl<S: Stages> std::ops::DerefMut for DrainOnUnwind<'_, S> {
    fn deref_mut(&mut self) -> &mut S {
        self.0
    }
}

/// Runs `chunks` batches through a ring of `depth` slots: batch k+1 is started before batch k is
/// compacted, and the oldest batch is finished only when the ring is full or the input exhausted, so
/// uploads, kernels and downloads of successive batches overlap. One result per batch, in order; a
/// failure fails the batches in flight (the caller redoes them) and the ring starts afresh. Nothing
/// is left queued when it returns after a failure, so the caller may redo failed batches into, or
/// write, the memory their copies would have read or written.
pub fn run_pipeline<S: Stages>(
    chunks: usize,
    depth: usize,
    stages: &mut S,
) -> Vec<Result<S::Output, GpuError>> {
    let stages = &mut DrainOnUnwind(stages);
    let mut outcomes: Vec<Option<Result<S::Output, GpuError>>> =
        (0..chunks).map(|_| None).collect();
    let mut ring = Ring::new(depth);
    let mut in_flight: Vec<(usize, usize)> = Vec::new(); // (slot, chunk), oldest first
    let mut next = 0;
    // A batch that failed in `finish` (after the steps that queue its work): drained at the end.
    let mut finish_failed = false;
    while next < chunks || !in_flight.is_empty() {
        let mut step = || -> Result<(), GpuError> {
            if next < chunks && !ring.is_full() {
                let slot = ring.acquire()?;
                in_flight.push((slot, next));
                next += 1;
                stages.start(slot, next - 1)?;
                ring.advance(slot, SlotState::Kernel)?;
            }
            // Compact every batch but the newest, whose kernel keeps the GPU busy while the host waits
            // for the older batches' sizes (the newest too once the input is exhausted).
            let keep = usize::from(next < chunks);
            for &(slot, _) in &in_flight[..in_flight.len().saturating_sub(keep)] {
                if ring.state(slot) == SlotState::Kernel {
                    stages.compact(slot)?;
                    ring.advance(slot, SlotState::D2h)?;
                }
            }
            if ring.is_full() || next == chunks {
                if let Some(&(slot, chunk)) = in_flight.first() {
                    if ring.state(slot) == SlotState::Kernel {
                        stages.compact(slot)?;
                        ring.advance(slot, SlotState::D2h)?;
                    }
                    let finished = stages.finish(slot, chunk);
                    finish_failed |= finished.is_err();
                    outcomes[chunk] = Some(finished);
                    ring.advance(slot, SlotState::Complete)?;
                    ring.release(slot)?;
                    in_flight.remove(0);
                }
            }
            Ok(())
        };
        if let Err(e) = step() {
            stages.quiesce();
            for &(_, chunk) in &in_flight {
                if outcomes[chunk].is_none() {
                    outcomes[chunk] = Some(Err(e.clone()));
                }
            }
            in_flight.clear();
            ring = Ring::new(depth);
            if e.is_sticky() {
                // The device is unusable: send it nothing more; the caller redoes the rest on the CPU.
                for outcome in &mut outcomes[next..] {
                    *outcome = Some(Err(e.clone()));
                }
                break;
            }
        }
    }
    if finish_failed {
        stages.quiesce();
    }
    outcomes
        .into_iter()
        .map(|o| o.unwrap_or_else(|| Err(GpuError::NotAvailable("batch never ran".into()))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_cycle_in_order_and_illegal_steps_are_refused() {
        let mut ring = Ring::new(3);
        let a = ring.acquire().expect("free");
        let b = ring.acquire().expect("free");
        let c = ring.acquire().expect("free");
        assert_eq!((a, b, c), (0, 1, 2));
        assert!(ring.is_full() && ring.acquire().is_err());
        assert!(
            ring.advance(a, SlotState::D2h).is_err(),
            "H2D cannot skip the kernel"
        );
        for s in [SlotState::Kernel, SlotState::D2h, SlotState::Complete] {
            ring.advance(b, s).expect("legal");
        }
        assert!(ring.release(b).is_err(), "b is not the oldest");
        assert!(ring.release(a).is_err(), "a is not complete");
        for s in [SlotState::Kernel, SlotState::D2h, SlotState::Complete] {
            ring.advance(a, s).expect("legal");
        }
        ring.release(a).expect("oldest and complete");
        ring.release(b).expect("now the oldest");
        assert_eq!(ring.oldest(), Some(c));
        assert_eq!(ring.acquire().expect("slot 0 is free again"), 0);
        assert_eq!(ring.in_flight(), 2);
        assert!(ring.advance(7, SlotState::Kernel).is_err());
    }

    /// Records the order of calls; fails `start` of the chunks in `fail`.
    struct Fake {
        log: Vec<String>,
        fail: Vec<usize>,
        busy: Vec<Option<usize>>,
    }

    impl Stages for Fake {
        type Output = usize;
        fn start(&mut self, slot: usize, chunk: usize) -> Result<(), GpuError> {
            assert!(self.busy[slot].is_none(), "slot {slot} reused while busy");
            self.busy[slot] = Some(chunk);
            self.log.push(format!("start {chunk}"));
            if self.fail.contains(&chunk) {
                return Err(GpuError::Injected(format!("chunk {chunk}")));
            }
            Ok(())
        }
        fn compact(&mut self, slot: usize) -> Result<(), GpuError> {
            self.log
                .push(format!("compact {}", self.busy[slot].expect("busy")));
            Ok(())
        }
        fn finish(&mut self, slot: usize, chunk: usize) -> Result<usize, GpuError> {
            assert_eq!(self.busy[slot].take(), Some(chunk));
            self.log.push(format!("finish {chunk}"));
            Ok(chunk * 10)
        }
        fn quiesce(&mut self) {
            self.busy.iter_mut().for_each(|b| *b = None);
            self.log.push("quiesce".into());
        }
    }

    #[test]
    fn the_pipeline_overlaps_batches_and_keeps_their_order() {
        for depth in 1..=4 {
            let mut fake = Fake {
                log: Vec::new(),
                fail: Vec::new(),
                busy: vec![None; depth],
            };
            let out = run_pipeline(7, depth, &mut fake);
            assert_eq!(
                out.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
                (0..7).map(|c| c * 10).collect::<Vec<_>>()
            );
            let at = |what: &str| fake.log.iter().position(|l| l == what).expect(what);
            if depth >= 2 {
                assert!(
                    at("start 1") < at("compact 0"),
                    "depth {depth}: {:?}",
                    fake.log
                );
            }
            if depth >= 3 {
                assert!(
                    at("start 2") < at("finish 0") && at("compact 1") < at("finish 0"),
                    "{:?}",
                    fake.log
                );
            }
        }
        let mut fake = Fake {
            log: Vec::new(),
            fail: Vec::new(),
            busy: vec![None; 3],
        };
        assert!(run_pipeline(0, 3, &mut fake).is_empty() && fake.log.is_empty());
    }

    #[test]
    fn after_a_sticky_error_no_further_batch_is_started() {
        struct Sticky(Vec<usize>);
        impl Stages for Sticky {
            type Output = ();
            fn start(&mut self, _: usize, chunk: usize) -> Result<(), GpuError> {
                self.0.push(chunk);
                match chunk {
                    2 => Err(GpuError::cuda("cuLaunchKernel", 700)),
                    _ => Ok(()),
                }
            }
            fn compact(&mut self, _: usize) -> Result<(), GpuError> {
                Ok(())
            }
            fn finish(&mut self, _: usize, _: usize) -> Result<(), GpuError> {
                Ok(())
            }
            fn quiesce(&mut self) {}
        }
        let mut stages = Sticky(Vec::new());
        let out = run_pipeline(6, 2, &mut stages);
        assert_eq!(
            stages.0,
            [0, 1, 2],
            "nothing started after the sticky error"
        );
        assert!(out[0].is_ok());
        for outcome in &out[2..] {
            assert!(
                outcome.as_ref().is_err_and(GpuError::is_sticky),
                "{outcome:?}"
            );
        }
    }

    /// A batch failing in `finish` (its event's wait, say) leaves the copies of the batches after it
    /// to the later finishes, but the run drains the streams before it returns all the same.
    #[test]
    fn a_failed_finish_drains_the_streams_before_the_run_returns() {
        struct FailsFinish(Vec<String>);
        impl Stages for FailsFinish {
            type Output = ();
            fn start(&mut self, _: usize, chunk: usize) -> Result<(), GpuError> {
                self.0.push(format!("start {chunk}"));
                Ok(())
            }
            fn compact(&mut self, _: usize) -> Result<(), GpuError> {
                Ok(())
            }
            fn finish(&mut self, _: usize, chunk: usize) -> Result<(), GpuError> {
                self.0.push(format!("finish {chunk}"));
                match chunk {
                    1 => Err(GpuError::Injected("finish 1".into())),
                    _ => Ok(()),
                }
            }
            fn quiesce(&mut self) {
                self.0.push("quiesce".into());
            }
        }
        let mut stages = FailsFinish(Vec::new());
        let out = run_pipeline(4, 2, &mut stages);
        assert!(out[1].is_err() && out.iter().filter(|o| o.is_ok()).count() == 3);
        assert_eq!(
            stages.0.last().map(String::as_str),
            Some("quiesce"),
            "{:?}",
            stages.0
        );
        let mut fine = FailsFinish(Vec::new());
        run_pipeline(1, 2, &mut fine);
        assert!(!fine.0.contains(&"quiesce".to_string()), "{:?}", fine.0);
    }

    #[test]
    fn a_failure_fails_the_batches_in_flight_and_the_rest_still_run() {
        let mut fake = Fake {
            log: Vec::new(),
            fail: vec![3],
            busy: vec![None; 3],
        };
        let out = run_pipeline(8, 3, &mut fake);
        let failed: Vec<usize> = (0..8).filter(|&c| out[c].is_err()).collect();
        assert!(failed.contains(&3), "{failed:?}");
        assert!(
            failed.iter().all(|&c| (1..=3).contains(&c)),
            "only batches in flight fail: {failed:?}"
        );
        for (c, outcome) in out.iter().enumerate().skip(4) {
            assert_eq!(outcome.as_ref().ok(), Some(&(c * 10)));
        }
    }
}
