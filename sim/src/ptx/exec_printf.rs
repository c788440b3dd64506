//! Device `printf` (`call vprintf`, see `decode_call.rs`): each lane of the call, in lane order,
//! formats its format string with its arguments (`printf.rs`), read through the lane's generic
//! addresses — the format from the module's variables (nvcc's `$str`), the arguments from the
//! lane's local memory — and the text goes to the launch's report (`SimReport::printed`), as the
//! CUDA runtime's buffer goes to the host's stdout at the next synchronisation. A block keeps at
//! most [`MAX_PRINTED`](crate::MAX_PRINTED) entries; an argument or string that cannot be read
//! prints as 0 or as its address, never a fault of the kernel's own (CUDA's printf reads them
//! from its own copy).

use super::block::{PtxBlock, PtxWarp};
use super::inst::{Op, Slot};
use super::lanes;
use super::printf::{format, Args};
use crate::block::{Stop, Who};
use crate::memory::write_bytes;

/// The longest format or `%s` string read.
const MAX_TEXT: u64 = 4096;

/// One lane's view of its arguments.
struct LaneArgs<'b, 'a> {
    block: &'b mut PtxBlock<'a>,
    who: Who,
    pc: usize,
    lane: usize,
    /// The next argument's address (generic).
    at: u64,
}

impl Args for LaneArgs<'_, '_> {
    fn next(&mut self, size: u32) -> Option<u64> {
        let size = u64::from(size);
        self.at = self.at.checked_next_multiple_of(size)?;
        let v = self
            .block
            .generic_read(self.who, self.pc, self.lane, self.at, size as u32)?;
        self.at += size;
        Some(v)
    }

    fn string(&mut self, addr: u64) -> String {
        match self
            .block
            .c_bytes(self.who, self.pc, self.lane, addr, MAX_TEXT)
        {
            Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            None => format!("(the string at {addr:#x})"),
        }
    }
}

impl PtxBlock<'_> {
    /// Runs the `printf` at `pc` for `mask`'s lanes.
    pub(super) fn printf(&mut self, warp: &mut PtxWarp, pc: usize, mask: u32) -> Result<(), Stop> {
        let Op::Printf {
            format: f,
            args,
            ret,
        } = self.launch.program.insts[pc].op.clone()
        else {
            return Ok(());
        };
        let who = Who {
            warp: warp.index,
            step: warp.step,
        };
        for l in lanes(mask) {
            let (fmt_at, args_at) = (
                self.slot_value(warp, l, f, 8),
                self.slot_value(warp, l, args, 8),
            );
            let thread = warp.index as usize * 32 + l;
            let (text, read) = match self.c_bytes(who, pc, thread, fmt_at, MAX_TEXT) {
                Some(fmt) => {
                    let mut lane_args = LaneArgs {
                        block: self,
                        who,
                        pc,
                        lane: thread,
                        at: args_at,
                    };
                    format(&fmt, &mut lane_args)
                }
                None => (format!("(printf: no format string at {fmt_at:#x})"), 0),
            };
            if self.printed.len() < crate::MAX_PRINTED {
                self.printed.push(text);
            } else {
                self.printed_dropped += 1;
            }
            match ret {
                Some(Slot::Reg(r)) => warp.regs[r as usize][l] = u64::from(read),
                Some(Slot::Frame(off)) => {
                    let thread = warp.index as usize * 32 + l;
                    let base = warp.regs[self.launch.program.frame_reg as usize][l];
                    let at = (base + u64::from(off)) as usize;
                    if let Some(local) = self.local.get_mut(thread) {
                        if at + 4 <= local.len() {
                            write_bytes(local, at, 4, u64::from(read));
                        }
                    }
                }
                None => {}
            }
        }
        Ok(())
    }
}
