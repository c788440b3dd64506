//! Decoding the asynchronous copies (`cp.async` with its groups and its mbarrier arrival) and the
//! mbarrier instructions (`mbarrier.*`), PTX ISA 8.x "Data Movement and Conversion Instructions:
//! cp.async" and "Parallel Synchronization and Communication Instructions: mbarrier". Memory
//! ordering (`.release`, `.acquire`, `.relaxed`) and scope (`.cta`, `.cluster`) qualifiers and the
//! cache hints (`.L2::128B`, …) are accepted and have no effect: the simulator is sequentially
//! consistent and has no caches. The global-to-shared bulk copy on an mbarrier (`cp.async.bulk
//! .shared::cluster.global.mbarrier::complete_tx::bytes`, what `cuda::memcpy_async` becomes on
//! sm_90) runs (`exec_bulk.rs`); the other bulk forms, TMA's `cp.async.bulk.tensor` and Hopper's
//! warpgroup MMA (`wgmma`) are refused by name.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction, Operand, OperandKind};

use super::decode::{operands, Decoder, Imm, Mods};
use super::inst::{Addr, MemSpace, Op, R};
use super::inst_async::Async;

/// The message for `wgmma.*`.
const WGMMA: &str = "wgmma (Hopper warpgroup MMA) is not supported by the simulator";

/// Ordering, scope and cache hints with nothing to simulate.
fn is_hint(m: &M) -> bool {
    matches!(
        m,
        M::Release
            | M::Acquire
            | M::Relaxed
            | M::Cta
            | M::Cluster
            | M::L2Prefetch64B
            | M::L2Prefetch128B
            | M::L2Prefetch256B
    )
}

/// The mbarrier's state space: `.shared`/`.shared::cta`, or generic when none is given.
fn mbarrier_space(mods: &mut Mods) -> Result<MemSpace, String> {
    if mods.take(M::SharedCluster) {
        return Err(
            "an mbarrier in `.shared::cluster` (another block's barrier) is not \
                    supported: a block runs alone here"
                .into(),
        );
    }
    Ok(match mods.one_of(&[M::Shared, M::SharedCta]) {
        Some(_) => MemSpace::Shared,
        None => MemSpace::Generic,
    })
}

/// Takes the `.b64` of an mbarrier instruction.
fn b64(mods: &mut Mods, inst: &Instruction) -> Result<(), String> {
    let name = inst.full_opcode();
    match mods.types().as_slice() {
        [DataType::B64] => Ok(()),
        [] => Err(format!("`{name}` needs its `.b64` type")),
        _ => Err(format!("`{name}` takes the type `.b64` only")),
    }
}

/// A register's operand that must be an integer immediate.
fn immediate(op: &Operand, what: &str) -> Result<u64, String> {
    match &op.kind {
        OperandKind::Int(i) => Ok(i.value() as u64),
        _ => Err(format!("{what} must be an integer constant, not `{op}`")),
    }
}

impl Decoder<'_> {
    /// `cp.*`, `mbarrier.*`, `wgmma.*`.
    pub(crate) fn async_op(&mut self, inst: &Instruction) -> Result<Op, String> {
        let a = match inst.opcode {
            O::Wgmma => return Err(WGMMA.into()),
            O::Mbarrier => self.mbarrier(inst)?,
            _ => return self.cp(inst),
        };
        Ok(Op::Async(a))
    }

    /// An address operand of an mbarrier or of a copy.
    fn async_addr(&mut self, op: &Operand) -> Result<Addr, String> {
        self.addr(op)
    }

    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.L2::cache_hint} [dst],
    /// [src], size, [mbar]{, policy}`: the global-to-shared bulk copy of one block (a cluster of
    /// one block: `shared::cluster` addresses are the block's shared memory). The multicast form,
    /// the other directions and bulk groups are refused by name.
    fn bulk(&mut self, inst: &Instruction, mut mods: Mods) -> Result<Op, String> {
        mods.take(M::Async);
        mods.take(M::Bulk);
        let unsupported = |what: &str| {
            Err(format!(
                "`{}`: {what} is not supported by the simulator (only \
                 `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`)",
                inst.full_opcode()
            ))
        };
        // `cp.async.bulk.dst.src`: the destination's state space comes first.
        let at = |m: &[M]| inst.modifiers.iter().position(|x| m.contains(x));
        let to_shared = match (
            at(&[M::SharedCluster, M::Shared, M::SharedCta]),
            at(&[M::Global]),
        ) {
            (Some(s), Some(g)) => s < g,
            _ => false,
        };
        if !to_shared
            || mods
                .one_of(&[M::SharedCluster, M::Shared, M::SharedCta])
                .is_none()
            || !mods.take(M::Global)
        {
            return unsupported("a bulk copy other than global to shared");
        }
        if !mods.take(M::MbarrierCompleteTxBytes) {
            return unsupported("a bulk copy without `.mbarrier::complete_tx::bytes`");
        }
        let policy = mods.take(M::L2CacheHint);
        mods.ignore_if(is_hint);
        if let Err(e) = mods.finish() {
            return unsupported(&e);
        }
        let ops = &inst.operands;
        let want = 4 + usize::from(policy);
        if ops.len() != want {
            return Err(format!(
                "expected {want} operands ([dst], [src], size, [mbar]{}), found {}",
                if policy { ", cache-policy" } else { "" },
                ops.len()
            ));
        }
        if policy {
            self.src(&ops[4], Imm::Int)?;
        }
        Ok(Op::Async(Async::Bulk {
            dst: self.async_addr(&ops[0])?,
            src: self.async_addr(&ops[1])?,
            size: self.src(&ops[2], Imm::Int)?,
            mbar: self.async_addr(&ops[3])?,
        }))
    }

    /// `cp.async…` (and the refused `cp.async.bulk…` / `cp.reduce.async.bulk…`).
    fn cp(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        if mods.has(M::Bulk) && !mods.has(M::Tensor) && !mods.has(M::Reduce) {
            return self.bulk(inst, mods);
        }
        if mods.has(M::Bulk) {
            let what = if mods.has(M::Tensor) {
                "`cp.async.bulk.tensor` (the Tensor Memory Accelerator, TMA)"
            } else if mods.has(M::Reduce) {
                "`cp.reduce.async.bulk` (bulk asynchronous reduction)"
            } else {
                "`cp.async.bulk` (bulk asynchronous copy, sm_90)"
            };
            return Err(format!("{what} is not supported by the simulator"));
        }
        if !mods.take(M::Async) {
            return Err(format!(
                "`{}` is not a PTX instruction the simulator knows",
                { inst.full_opcode() }
            ));
        }
        if mods.take(M::CommitGroup) {
            mods.finish()?;
            operands::<0>(inst)?;
            return Ok(Op::Async(Async::Commit));
        }
        if mods.take(M::WaitGroup) {
            mods.finish()?;
            let [n] = operands::<1>(inst)?;
            let n = immediate(n, "the group count of `cp.async.wait_group`")?;
            let n = u32::try_from(n).map_err(|_| format!("group count {n} is out of range"))?;
            return Ok(Op::Async(Async::CopyWait(Some(n))));
        }
        if mods.take(M::WaitAll) {
            mods.finish()?;
            operands::<0>(inst)?;
            return Ok(Op::Async(Async::CopyWait(None)));
        }
        if mods.take(M::Mbarrier) {
            if !mods.take(M::Arrive) {
                return Err("expected `cp.async.mbarrier.arrive`".into());
            }
            let noinc = mods.take(M::Noinc);
            let space = mbarrier_space(&mut mods)?;
            b64(&mut mods, inst)?;
            mods.finish()?;
            let [mbar] = operands::<1>(inst)?;
            let mbar = self.async_addr(mbar)?;
            return Ok(Op::Async(Async::CopyArrive { mbar, space, noinc }));
        }
        let cg = match mods.one_of(&[M::Ca, M::Cg]) {
            Some(level) => level == M::Cg,
            None => {
                return Err(
                    "expected `cp.async.ca` or `cp.async.cg` (or `.commit_group`, \
                                `.wait_group`, `.wait_all`, `.mbarrier.arrive`)"
                        .into(),
                )
            }
        };
        if mods.one_of(&[M::Shared, M::SharedCta]).is_none() || !mods.take(M::Global) {
            return Err("`cp.async` copies from `.global` to `.shared`: expected \
                        `cp.async.{ca,cg}.shared.global`"
                .into());
        }
        let policy = mods.take(M::L2CacheHint);
        mods.ignore_if(is_hint);
        mods.finish()?;
        let ops = &inst.operands;
        let fixed = 3 + usize::from(policy);
        if ops.len() != fixed && ops.len() != fixed + 1 {
            return Err(format!(
                "expected {fixed} or {} operands ([dst], [src], cp-size, {{src-size or \
                 ignore-src}}{}), found {}",
                fixed + 1,
                if policy { ", cache-policy" } else { "" },
                ops.len()
            ));
        }
        if policy {
            // The cache policy is a hint: read it so a bad register is still an error.
            self.src(&ops[ops.len() - 1], Imm::Int)?;
        }
        let size = immediate(&ops[2], "cp-size")?;
        if !matches!(size, 4 | 8 | 16) || (cg && size != 16) {
            return Err(format!(
                "cp-size {size}: `.ca` copies 4, 8 or 16 bytes, `.cg` 16"
            ));
        }
        let dst = self.async_addr(&ops[0])?;
        let src = self.async_addr(&ops[1])?;
        let (mut src_size, mut ignore) = (None, None);
        if ops.len() == fixed + 1 {
            let extra = &ops[3];
            let predicate = match &extra.kind {
                OperandKind::Not(_) => true,
                OperandKind::Register(_) => {
                    let r = self.src(extra, Imm::Int)?;
                    self.regs.bits.get(r as usize) == Some(&1)
                }
                _ => false,
            };
            if predicate {
                ignore = Some(self.pred(extra)?);
            } else {
                if let OperandKind::Int(i) = &extra.kind {
                    if i.value() as u64 > size {
                        return Err(format!(
                            "src-size {} is larger than cp-size {size} (undefined)",
                            i.value()
                        ));
                    }
                }
                src_size = Some(self.src(extra, Imm::Int)?);
            }
        }
        Ok(Op::Async(Async::Copy {
            dst,
            src,
            size: size as u32,
            src_size,
            ignore,
        }))
    }

    /// `mbarrier.*`.
    fn mbarrier(&mut self, inst: &Instruction) -> Result<Async, String> {
        let mut mods = Mods::new(inst);
        let Some(what) = mods.one_of(&[
            M::Init,
            M::Arrive,
            M::ArriveDrop,
            M::ExpectTx,
            M::CompleteTx,
            M::TestWait,
            M::TryWait,
            M::Inval,
            M::PendingCount,
        ]) else {
            return Err(format!(
                "`{}` is not an mbarrier instruction the simulator knows",
                inst.full_opcode()
            ));
        };
        mods.ignore_if(is_hint);
        if what == M::PendingCount {
            b64(&mut mods, inst)?;
            mods.finish()?;
            let [d, state] = operands::<2>(inst)?;
            return Ok(Async::PendingCount {
                d: self.dst(d, 32)?,
                state: self.src(state, Imm::Int)?,
            });
        }
        let expect_tx = matches!(what, M::Arrive | M::ArriveDrop) && mods.take(M::ExpectTx);
        let no_complete = matches!(what, M::Arrive | M::ArriveDrop) && mods.take(M::NoComplete);
        let parity = matches!(what, M::TestWait | M::TryWait) && mods.take(M::Parity);
        let space = mbarrier_space(&mut mods)?;
        b64(&mut mods, inst)?;
        mods.finish()?;
        let ops = &inst.operands;
        Ok(match what {
            M::Init => {
                let [addr, count] = operands::<2>(inst)?;
                Async::Init {
                    addr: self.async_addr(addr)?,
                    space,
                    count: self.src(count, Imm::Int)?,
                }
            }
            M::Inval => {
                let [addr] = operands::<1>(inst)?;
                Async::Inval {
                    addr: self.async_addr(addr)?,
                    space,
                }
            }
            M::ExpectTx | M::CompleteTx => {
                let [addr, bytes] = operands::<2>(inst)?;
                Async::Tx {
                    addr: self.async_addr(addr)?,
                    space,
                    bytes: self.src(bytes, Imm::Int)?,
                    add: what == M::ExpectTx,
                }
            }
            M::TestWait | M::TryWait => {
                let hint = usize::from(what == M::TryWait);
                if ops.len() != 3 && ops.len() != 3 + hint {
                    return Err(format!(
                        "expected 3{} operands, found {}",
                        if hint == 1 { " or 4" } else { "" },
                        ops.len()
                    ));
                }
                if ops.len() == 4 {
                    // suspendTimeHint: how long the hardware may suspend; no time passes here.
                    self.src(&ops[3], Imm::Int)?;
                }
                Async::Wait {
                    p: self.dst(&ops[0], 1)?,
                    addr: self.async_addr(&ops[1])?,
                    space,
                    operand: self.src(&ops[2], Imm::Int)?,
                    parity,
                    try_: what == M::TryWait,
                }
            }
            _ => {
                // arrive / arrive_drop: state, [addr]{, count | txCount}
                if (expect_tx || no_complete) && ops.len() != 3 {
                    return Err(format!(
                        "`{}.{what}.{}` takes 3 operands (state, [addr], {}), found {}",
                        O::Mbarrier,
                        if expect_tx {
                            M::ExpectTx
                        } else {
                            M::NoComplete
                        },
                        if expect_tx { "txCount" } else { "count" },
                        ops.len()
                    ));
                }
                if ops.len() != 2 && ops.len() != 3 {
                    return Err(format!("expected 2 or 3 operands, found {}", ops.len()));
                }
                let state = match &ops[0].kind {
                    OperandKind::Sink => None,
                    _ => Some(self.dst(&ops[0], 64)?),
                };
                let third: Option<R> = match ops.get(2) {
                    Some(op) => Some(self.src(op, Imm::Int)?),
                    None => None,
                };
                Async::Arrive {
                    state,
                    addr: self.async_addr(&ops[1])?,
                    space,
                    count: if expect_tx { None } else { third },
                    drop: what == M::ArriveDrop,
                    tx: if expect_tx { third } else { None },
                    no_complete,
                }
            }
        })
    }
}
