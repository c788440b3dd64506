//! A warp's SIMT state: 32 lanes in lockstep, the active mask, and a stack of the structured control
//! flow it is inside. An `if` pushes a frame that remembers the lanes that entered it (they reconverge
//! at its end) and the lanes waiting for the else branch; a `loop` pushes one that collects the lanes
//! that broke out and those that continue. `break`, `continue` and `return` take lanes out of every frame
//! up to their target, so a frame never resumes a lane that left it. When no lane is active, the warp
//! jumps to the next place where lanes wait: the else branch, the join, or the loop's back edge.

use super::decode::Reg;

/// One frame of the SIMT stack.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Frame {
    /// Inside an `if`.
    If {
        /// Lanes that entered the `if` (and have not left through break / continue / return).
        outer: u32,
        /// Lanes waiting to run the else branch.
        else_mask: u32,
        /// The `Else` marker.
        else_pc: u32,
        /// The `EndIf` marker.
        end_pc: u32,
        /// Whether the else branch is running.
        in_else: bool,
    },
    /// Inside a `loop`.
    Loop {
        /// Lanes that left through `break`.
        broke: u32,
        /// Lanes that reached `continue` this iteration.
        continued: u32,
        /// First instruction of the body.
        body_pc: u32,
        /// The `LoopEnd` marker.
        end_pc: u32,
    },
}

/// Where a warp is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WarpState {
    /// Executing.
    Running,
    /// Waiting at the barrier at its `pc` with its `active` lanes.
    AtBarrier,
    /// Every lane has returned.
    Done,
}

/// One warp of a block.
pub(crate) struct Warp {
    /// Index within the block.
    pub index: u32,
    pub pc: u32,
    pub active: u32,
    /// Lanes that returned.
    pub exited: u32,
    pub stack: Vec<Frame>,
    /// Registers, one column of 32 lanes each.
    pub regs: Vec<[u64; 32]>,
    pub state: WarpState,
    /// Warp-instructions this warp issued (orders its accesses for racecheck).
    pub step: u64,
}

impl Warp {
    pub fn new(index: u32, regs: usize) -> Self {
        Warp {
            index,
            pc: 0,
            active: u32::MAX,
            exited: 0,
            stack: Vec::new(),
            regs: vec![[0; 32]; regs],
            state: WarpState::Running,
            step: 0,
        }
    }

    #[inline]
    pub fn reg(&self, r: Reg) -> &[u64; 32] {
        &self.regs[r as usize]
    }

    /// Splits on `cond` at an `If`.
    pub fn branch(&mut self, cond: u32, else_pc: u32, end_pc: u32) {
        let taken = self.active & cond;
        let not_taken = self.active & !cond;
        self.stack.push(Frame::If {
            outer: self.active,
            else_mask: not_taken,
            else_pc,
            end_pc,
            in_else: taken == 0,
        });
        if taken != 0 {
            self.active = taken;
            self.pc += 1;
        } else {
            self.active = not_taken;
            self.pc = else_pc + 1;
        }
    }

    /// At the `Else` marker, the end of the then branch.
    pub fn end_then(&mut self) {
        if let Some(Frame::If {
            else_mask,
            in_else,
            end_pc,
            else_pc,
            ..
        }) = self.stack.last_mut()
        {
            if *else_mask != 0 {
                self.active = *else_mask;
                *in_else = true;
                self.pc = *else_pc + 1;
            } else {
                self.pc = *end_pc;
            }
        }
    }

    /// At the `EndIf` marker: the lanes that entered reconverge.
    pub fn end_if(&mut self) {
        self.pop_if();
        self.resume();
    }

    /// At a `Loop`.
    pub fn enter_loop(&mut self, end_pc: u32) {
        self.stack.push(Frame::Loop {
            broke: 0,
            continued: 0,
            body_pc: self.pc + 1,
            end_pc,
        });
        self.pc += 1;
    }

    /// At the `LoopEnd` marker: the lanes still in the loop go round again, or the loop is done.
    pub fn end_iteration(&mut self) {
        self.loop_back();
        self.resume();
    }

    /// `break` (`to_break`) or `continue`: the active lanes leave every frame up to the innermost loop.
    pub fn leave_iteration(&mut self, to_break: bool) {
        let lanes = self.active;
        for frame in self.stack.iter_mut().rev() {
            if let Frame::Loop {
                broke, continued, ..
            } = frame
            {
                *(if to_break { broke } else { continued }) |= lanes;
                break;
            }
            frame.drop_lanes(lanes);
        }
        self.active = 0;
        self.resume();
    }

    /// `return`, or the end of the kernel: the active lanes are done.
    pub fn exit_lanes(&mut self) {
        let lanes = self.active;
        self.exited |= lanes;
        for frame in &mut self.stack {
            frame.drop_lanes(lanes);
        }
        self.active = 0;
        self.resume();
    }

    /// Pops an `if` frame at its join: the lanes that entered it are active again.
    fn pop_if(&mut self) {
        if let Some(Frame::If { outer, end_pc, .. }) = self.stack.pop() {
            self.active = outer;
            self.pc = end_pc + 1;
        }
    }

    /// At the innermost loop's back edge: the active and continuing lanes run the body again, or, when
    /// there are none, the loop is left with the lanes that broke out.
    fn loop_back(&mut self) {
        if let Some(Frame::Loop {
            broke,
            continued,
            body_pc,
            end_pc,
        }) = self.stack.last_mut()
        {
            self.active |= *continued;
            *continued = 0;
            if self.active != 0 {
                self.pc = *body_pc;
                return;
            }
            self.active = *broke;
            self.pc = *end_pc + 1;
            self.stack.pop();
        }
    }

    /// With no lane active: continue where lanes wait, or finish.
    fn resume(&mut self) {
        while self.active == 0 {
            match self.stack.last().copied() {
                None => {
                    self.state = WarpState::Done;
                    return;
                }
                Some(Frame::If {
                    in_else: false,
                    else_pc,
                    ..
                }) => {
                    self.pc = else_pc;
                    self.end_then();
                    if self.active == 0 {
                        // No lane for the else branch: `pc` is now the join.
                        self.pop_if();
                    }
                }
                Some(Frame::If { in_else: true, .. }) => self.pop_if(),
                Some(Frame::Loop { .. }) => self.loop_back(),
            }
        }
    }
}

impl Frame {
    /// Takes `lanes` out of the frame: they will not be resumed by it.
    fn drop_lanes(&mut self, lanes: u32) {
        match self {
            Frame::If {
                outer, else_mask, ..
            } => {
                *outer &= !lanes;
                *else_mask &= !lanes;
            }
            Frame::Loop {
                broke, continued, ..
            } => {
                *broke &= !lanes;
                *continued &= !lanes;
            }
        }
    }
}
