//! A failed device `assert()` (`call __assertfail`, see `decode_call.rs`): the finding's text, read
//! from the arguments of the first failing lane as the CUDA runtime prints it — the assertion, the
//! file and line, the function. The strings are C strings in the module's variables (nvcc's `$str`);
//! one that cannot be read (a bad pointer, no terminator within [`MAX_TEXT`] bytes) is named by its
//! address instead.

use super::block::{PtxBlock, PtxWarp};
use super::inst::{MemSpace, Op, Slot};
use super::lanes;
use crate::block::Who;
use crate::memory::read_bytes;
use crate::race::Strength;

/// The longest string read from an assertion's arguments.
const MAX_TEXT: u64 = 1024;

impl PtxBlock<'_> {
    /// "assertion `x < n` failed at kernel.cu:12 in `void k(int*)`" for the first lane of `mask`.
    pub(super) fn assertion(&mut self, warp: &PtxWarp, pc: usize, mask: u32) -> String {
        let Op::AssertFail {
            message,
            file,
            line,
            function,
        } = self.launch.program.insts[pc].op.clone()
        else {
            return "a failed assertion".into();
        };
        let Some(l) = lanes(mask).next() else {
            return "a failed assertion".into();
        };
        let (message, file, line, function) = (
            self.slot_value(warp, l, message, 8),
            self.slot_value(warp, l, file, 8),
            self.slot_value(warp, l, line, 4) as u32,
            self.slot_value(warp, l, function, 8),
        );
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let thread = warp.index as usize * 32 + l;
        let mut text = |addr: u64| match self.c_bytes(who, pc, thread, addr, MAX_TEXT) {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => format!("(the string at {addr:#x})"),
        };
        let (message, file, function) = (text(message), text(file), text(function));
        format!(
            "thread {} of block {} fails `assert({message})` at {file}:{line} in `{function}`: the \
             kernel aborts (on a GPU the launch fails with cudaErrorAssert)",
            warp.index * 32 + l as u32,
            self.run.block
        )
    }

    /// Lane `l`'s value of a call argument in `slot` (`size` bytes of a `.param` variable in its
    /// frame, or a register).
    pub(super) fn slot_value(&self, warp: &PtxWarp, l: usize, slot: Slot, size: u32) -> u64 {
        match slot {
            Slot::Reg(r) => warp.regs[r as usize][l],
            Slot::Frame(off) => {
                let thread = warp.index as usize * 32 + l;
                let base = warp.regs[self.launch.program.frame_reg as usize][l];
                read_bytes(&self.local[thread], (base + u64::from(off)) as usize, size)
            }
        }
    }

    /// `size` bytes at generic address `addr` for thread `thread`, if they are in memory the
    /// thread may read.
    pub(super) fn generic_read(
        &mut self,
        who: Who,
        pc: usize,
        thread: usize,
        addr: u64,
        size: u32,
    ) -> Option<u64> {
        let place = self
            .place(MemSpace::Generic, addr, u64::from(size), thread)
            .ok()?;
        let (warp, l) = ((thread / 32) as u32, thread % 32);
        self.read(who, pc, warp, l, place, 0, size, Strength::Plain)
            .ok()
    }

    /// The C string at generic address `addr` for thread `thread`: its bytes, or `None` when it
    /// cannot be read or has no terminator within `max` bytes.
    pub(super) fn c_bytes(
        &mut self,
        who: Who,
        pc: usize,
        thread: usize,
        addr: u64,
        max: u64,
    ) -> Option<Vec<u8>> {
        let mut bytes = Vec::new();
        for k in 0..max {
            match self.generic_read(who, pc, thread, addr.checked_add(k)?, 1)? {
                0 => return Some(bytes),
                b => bytes.push(b as u8),
            }
        }
        None
    }
}
