//! The registers a thread may read before it has written them. A warp whose register file is
//! reused from a finished warp (`warp_init.rs`) must start with those as a fresh file has them
//! (zero); every other register is written on each path of the thread before any read, so what the
//! last warp left there is never seen and need not be reset.
//!
//! A forward "definitely written" analysis over the instructions' control flow: a register is
//! definitely written at an instruction when every path from the entry writes it first (the
//! constants and special registers are written before the first instruction). An instruction's
//! reads and writes are the ones poison tracking lists (`poison::flow`, which names every operand
//! of every instruction), plus its guard and the frame base (`printf` and `assert` read their
//! arguments through it); a guarded instruction writes nothing for certain. Calls,
//! indirect branches and very large programs are not analysed: every register is then reset.
//! In builds with debug assertions (the tests), registers a reused file does not reset are filled
//! with a canary instead, so that a read the analysis missed changes the kernel's outputs.

use super::inst::{Inst, Op, R};
use super::poison::{flow, Flow};
use super::registers::Init;

/// What the analysis reads of a decoded entry.
pub(crate) struct Entry<'p> {
    pub insts: &'p [Inst],
    /// Registers in all.
    pub registers: usize,
    /// Registers filled before the first instruction.
    pub init: &'p [(R, Init)],
    /// The frame base register (`Program::frame_reg`).
    pub frame_reg: R,
    /// Whether the entry calls functions.
    pub calls: bool,
}

/// The most instructions × registers analysed (bits of the per-instruction sets: 8 MiB).
const MAX_BITS: usize = 1 << 26;

/// Per register, whether some thread may read it before writing it; `None` when the program is not
/// analysed (a call, `brx.idx`, too large, or control flow that does not settle within 64 visits
/// per instruction): every register may.
pub(crate) fn read_before_written(program: &Entry<'_>) -> Option<Vec<bool>> {
    let (insts, n) = (program.insts, program.registers);
    let words = n.div_ceil(64);
    if insts.len().checked_mul(words * 64)? > MAX_BITS
        || program.calls
        || insts
            .iter()
            .any(|i| matches!(i.op, Op::Call { .. } | Op::Brx { .. }))
    {
        return None;
    }
    let set = |bits: &mut [u64], r: R| bits[r as usize / 64] |= 1 << (r % 64);
    let has = |bits: &[u64], r: R| bits[r as usize / 64] >> (r % 64) & 1 == 1;
    // What each instruction reads and writes for certain.
    let effects: Vec<(Vec<R>, Vec<R>)> = insts
        .iter()
        .map(|inst| {
            let (mut reads, writes) = match flow(&inst.op) {
                Flow::Sink { reads, writes, .. } | Flow::Pass { reads, writes } => (reads, writes),
                Flow::Select { d, a, b, c } => (vec![a, b, c], vec![d]),
            };
            reads.extend(inst.guard.map(|(p, _)| p));
            // Written when a barrier completes or a call returns: not counted.
            let later = matches!(inst.op, Op::Bar { .. } | Op::Printf { .. });
            let certain = inst.guard.is_none() && !later;
            (reads, if certain { writes } else { Vec::new() })
        })
        .collect();
    // Definitely written before each instruction (all ones: not reached yet).
    let mut before = vec![vec![u64::MAX; words]; insts.len()];
    let mut entry = vec![0u64; words];
    for &(r, _) in program.init {
        set(&mut entry, r);
    }
    let mut reached = vec![false; insts.len()];
    let mut work = vec![0usize];
    if let Some(first) = before.first_mut() {
        *first = entry;
    }
    let mut after = vec![0u64; words];
    // Sets only shrink, so this ends; a budget bounds the time on hostile control flow.
    let mut budget = insts.len().saturating_mul(64);
    while let Some(pc) = work.pop() {
        budget = budget.checked_sub(1)?;
        reached[pc] = true;
        after.copy_from_slice(&before[pc]);
        for &w in &effects[pc].1 {
            set(&mut after, w);
        }
        for next in successors(&insts[pc].op, insts[pc].guard.is_some(), pc) {
            let Some(into) = before.get_mut(next) else {
                continue; // past the end: the thread ends
            };
            let mut changed = !reached[next];
            for (b, a) in into.iter_mut().zip(&after) {
                let meet = *b & a;
                changed |= meet != *b;
                *b = meet;
            }
            if changed {
                work.push(next);
            }
        }
    }
    let mut maybe = vec![false; n];
    // The frame base: read by `printf` and `assert` for their frame arguments, written by no
    // instruction of an entry (it starts at 0).
    if let Some(frame) = maybe.get_mut(program.frame_reg as usize) {
        *frame = true;
    }
    for (pc, (reads, _)) in effects.iter().enumerate() {
        if reached[pc] {
            for &r in reads {
                if !has(&before[pc], r) {
                    maybe[r as usize] = true;
                }
            }
        }
    }
    Some(maybe)
}

/// Where control may go after the instruction at `pc`.
fn successors(op: &Op, guarded: bool, pc: usize) -> impl Iterator<Item = usize> {
    let (a, b) = match *op {
        Op::Bra { target, .. } => (Some(target as usize), guarded.then_some(pc + 1)),
        Op::Exit | Op::Ret | Op::Trap => (guarded.then_some(pc + 1), None),
        _ => (Some(pc + 1), None),
    };
    a.into_iter().chain(b)
}

#[cfg(test)]
mod tests {
    use crate::ptx::PtxKernel;

    fn maybe(ptx: &str) -> Vec<String> {
        let kernel = PtxKernel::load(ptx, "k").expect("decodes");
        let program = &kernel.program;
        let flags = program.read_before_written.clone().expect("analysed");
        (0..flags.len())
            .filter(|&r| flags[r] && r != program.frame_reg as usize)
            .map(|r| format!("{r}"))
            .collect()
    }

    /// Straight-line code, branches that write on one side only, guarded writes and loops.
    #[test]
    fn registers_read_before_every_path_writes_them_are_found() {
        let head = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n.reg .pred %p<4>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<4>;\n";
        let tail = "ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r9;\nret;\n}\n";
        // Every register written before it is read.
        let clean = format!("{head}mov.u32 %r1, %tid.x;\nadd.s32 %r9, %r1, 1;\n{tail}");
        assert!(maybe(&clean).is_empty(), "{:?}", maybe(&clean));
        // %r9 written on one side of a branch only.
        let one_side = format!(
            "{head}mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra $L;\nmov.u32 %r9, 1;\n$L:\n{tail}"
        );
        assert_eq!(maybe(&one_side).len(), 1);
        // Written on both sides: nothing.
        let both = format!(
            "{head}mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 bra $A;\nmov.u32 %r9, 1;\nbra $L;\n$A:\nmov.u32 %r9, 2;\n$L:\n{tail}"
        );
        assert!(maybe(&both).is_empty());
        // A guarded write is not a write for certain.
        let guarded = format!(
            "{head}mov.u32 %r1, %tid.x;\nsetp.eq.s32 %p1, %r1, 0;\n@%p1 mov.u32 %r9, 1;\n{tail}"
        );
        assert_eq!(maybe(&guarded).len(), 1);
        // A loop's counter written before the loop, the sum read around the back edge unwritten.
        let looped = format!(
            "{head}mov.u32 %r1, 0;\n$L:\nadd.s32 %r9, %r9, %r1;\nadd.s32 %r1, %r1, 1;\nsetp.lt.s32 %p1, %r1, 4;\n@%p1 bra $L;\n{tail}"
        );
        assert_eq!(maybe(&looped).len(), 1);
    }
}
