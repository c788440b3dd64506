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
        let value = |s: Slot, size: u32| match s {
            Slot::Reg(r) => warp.regs[r as usize][l],
            Slot::Frame(off) => {
                let thread = warp.index as usize * 32 + l;
                let base = warp.regs[self.launch.program.frame_reg as usize][l];
                read_bytes(&self.local[thread], (base + u64::from(off)) as usize, size)
            }
        };
        let (message, file, line, function) = (
            value(message, 8),
            value(file, 8),
            value(line, 4) as u32,
            value(function, 8),
        );
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        let mut text = |addr: u64| self.c_string(who, pc, warp.index, l, addr);
        let (message, file, function) = (text(message), text(file), text(function));
        format!(
            "thread {} of block {} fails `assert({message})` at {file}:{line} in `{function}`: the \
             kernel aborts (on a GPU the launch fails with cudaErrorAssert)",
            warp.index * 32 + l as u32,
            self.run.block
        )
    }

    /// The C string at generic address `addr` for lane `l`, or its address when it cannot be read.
    fn c_string(&mut self, who: Who, pc: usize, warp: u32, l: usize, addr: u64) -> String {
        let thread = warp as usize * 32 + l;
        let mut bytes = Vec::new();
        for k in 0..MAX_TEXT {
            let Some(at) = addr.checked_add(k) else { break };
            let Ok(place) = self.place(MemSpace::Generic, at, 1, thread) else {
                break;
            };
            match self.read(who, pc, warp, l, place, 0, 1, Strength::Plain) {
                Ok(0) => return String::from_utf8_lossy(&bytes).into_owned(),
                Ok(b) => bytes.push(b as u8),
                Err(_) => break,
            }
        }
        format!("(the string at {addr:#x})")
    }
}
