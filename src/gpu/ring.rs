//! The async-DMA ring's bookkeeping: each slot moves Free → H2D → Kernel → D2H → Complete → Free, slots
//! are filled and drained in order, and an illegal step is an error rather than a corrupted batch. The
//! CUDA engine drives it; it needs no GPU and is tested on its own.

use std::fmt;

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

/// An illegal ring operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RingError(pub String);

impl fmt::Display for RingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DMA ring: {}", self.0)
    }
}

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
}
