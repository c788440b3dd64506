//! One PTX instruction → analysis instructions: guards, control flow, barriers and warp collectives,
//! memory accesses with their addresses, and value instructions; anything else becomes `Op::Unknown`.

use super::*;

impl Entry {
    pub(super) fn instruction(&mut self, parsed: &Parsed, loc: Location) {
        // `@%p` / `@!%p`: the predicate register, and whether it is negated.
        let (predicate, negated) = match &parsed.guard {
            Some((register, negated)) => (Some(self.var(register)), *negated),
            None => (None, false),
        };
        let (base, mods) = (&parsed.opcode, parsed.mods.as_slice());
        let ops = &parsed.ops;
        match (base, predicate) {
            (O::Bra, None) => {
                self.end_block(Terminator::Jump, ops.first().cloned(), false);
                return;
            }
            (O::Ret | O::Exit, None) => {
                self.end_block(Terminator::Return, None, false);
                return;
            }
            // A branch on `@!%p` branches on %p with its successors the other way round.
            (O::Bra | O::Ret | O::Exit, Some(cond)) => {
                let target = if *base == O::Bra {
                    ops.first().cloned()
                } else {
                    Some("#exit".into())
                };
                if negated {
                    self.negated_branches
                        .insert(self.blocks.len().saturating_sub(1));
                }
                self.end_block(Terminator::Branch { cond, loc }, target, true);
                return;
            }
            _ => {}
        }
        let guard = match predicate {
            Some(p) if negated => {
                let name = format!("!{}", parsed.guard.as_ref().map_or("", |g| g.0.as_str()));
                Some(self.negation(p, &name, &loc))
            }
            guard => guard,
        };
        match base {
            O::Bar | O::Barrier if mods.first() == Some(&M::Warp) => {
                let mask = self.mask(ops.first().map(String::as_str).unwrap_or("-1"));
                let uses = mask_uses(mask);
                self.push(
                    &loc,
                    Op::Collective {
                        kind: Collective::Sync,
                        mask,
                    },
                    vec![],
                    uses,
                    guard,
                );
            }
            O::Bar | O::Barrier => self.push(&loc, Op::Barrier, vec![], vec![], guard),
            O::Shfl | O::Vote | O::Match | O::Redux => {
                let kind = match (base, mods.get(1)) {
                    (O::Shfl, mode) => Collective::Shuffle {
                        index_mode: mode == Some(&M::Idx),
                    },
                    (O::Vote, Some(M::Ballot)) => Collective::Ballot,
                    // A reduction over the mask's lanes: one result for the warp, like a vote.
                    (O::Vote | O::Redux, _) => Collective::Vote,
                    _ => Collective::Match,
                };
                let defs = ops.first().map(|d| self.registers(d)).unwrap_or_default();
                let mask = self.mask(ops.last().map(String::as_str).unwrap_or("-1"));
                let mut uses: Vec<Var> = ops
                    .iter()
                    .skip(1)
                    .take(ops.len().saturating_sub(2))
                    .map(|o| self.value(o, &loc))
                    .collect();
                uses.extend(mask_uses(mask));
                self.push(&loc, Op::Collective { kind, mask }, defs, uses, guard);
            }
            O::Ld | O::Ldu | O::St | O::Atom | O::Red => self.memory(base, mods, ops, loc, guard),
            _ if self.warp_level(base, mods, ops, &loc, guard) => {}
            _ => self.value_instruction(base, mods, ops, loc, guard),
        }
    }

    /// The guard of an instruction under `@!%p`: a temporary `!%p` = (`%p` == 0).
    fn negation(&mut self, p: Var, name: &str, loc: &Location) -> Var {
        let zero = self.value("0", loc);
        let negated = self.temp_named(name);
        self.push(
            loc,
            Op::Arith(Arith::Cmp(Cmp::Eq, false)),
            vec![negated],
            vec![p, zero],
            None,
        );
        negated
    }

    /// The registers of an operand: `%r1`, `{%r1, %r2}`, `%r1|%p1` (literals and `_` left out).
    pub(super) fn registers(&mut self, s: &str) -> Vec<Var> {
        s.trim_start_matches('{')
            .trim_end_matches('}')
            .split([',', '|'])
            .map(str::trim)
            .filter(|r| r.starts_with('%'))
            .map(|r| self.var(r))
            .collect()
    }

    fn mask(&mut self, s: &str) -> MaskInfo {
        match parse_imm(s.trim()) {
            Some(v) => MaskInfo::Const(v as u32),
            None => MaskInfo::Var(self.var(s.trim())),
        }
    }

    fn memory(&mut self, base: &O, mods: &[M], ops: &[String], loc: Location, guard: Option<Var>) {
        // The state space, wherever it stands among the modifiers (`ld.volatile.shared`).
        let first_space = mods.iter().find_map(M::space);
        let space = match first_space {
            Some(StateSpace::Shared) => Space::Shared(None),
            Some(StateSpace::Global) => Space::Global,
            // A call's return value is the callee's, per thread: not a uniform kernel parameter.
            Some(StateSpace::Param) if !ops.get(1).is_some_and(|a| a.contains("retval")) => {
                let defs = ops.first().map(|d| vec![self.var(d)]).unwrap_or_default();
                self.push(&loc, Op::Param, defs, vec![], guard);
                return;
            }
            _ => Space::Generic,
        };
        let vector = mods
            .iter()
            .find_map(|m| match m {
                M::V2 => Some(2),
                M::V4 => Some(4),
                M::V8 => Some(8),
                _ => None,
            })
            .unwrap_or(1);
        let width = type_bytes(mods.last()) * vector;
        let read_only =
            mods.contains(&M::Nc) || *base == O::Ldu || first_space == Some(StateSpace::Const);
        match base {
            O::Ld | O::Ldu => {
                let defs: Vec<Var> = ops.first().map(|d| self.registers(d)).unwrap_or_default();
                let (addr, uses) =
                    self.address(ops.get(1).map(String::as_str).unwrap_or("[]"), space, &loc);
                self.push(
                    &loc,
                    Op::Load {
                        addr,
                        width,
                        read_only,
                    },
                    defs,
                    uses,
                    guard,
                );
            }
            O::St => {
                let (addr, mut uses) =
                    self.address(ops.first().map(String::as_str).unwrap_or("[]"), space, &loc);
                let values: Vec<Var> = ops
                    .get(1)
                    .map(|v| {
                        v.trim_start_matches('{')
                            .trim_end_matches('}')
                            .split(',')
                            .map(str::trim)
                            .map(|r| self.value(r, &loc))
                            .collect()
                    })
                    .unwrap_or_default();
                uses.extend(&values);
                self.push(
                    &loc,
                    Op::Store {
                        addr,
                        width,
                        values,
                    },
                    vec![],
                    uses,
                    guard,
                );
            }
            _ => {
                // atom / red: [addr] is the first operand after an optional destination.
                let addr_at = ops.iter().position(|o| o.starts_with('[')).unwrap_or(0);
                let defs = if addr_at > 0 {
                    vec![self.var(&ops[0])]
                } else {
                    Vec::new()
                };
                let at = ops.get(addr_at).map_or("[]", String::as_str);
                let (addr, mut uses) = self.address(at, space, &loc);
                for o in ops.iter().skip(addr_at + 1) {
                    let v = self.value(o, &loc);
                    uses.push(v);
                }
                self.push(&loc, Op::Atomic { addr }, defs, uses, guard);
            }
        }
    }

    fn value_instruction(
        &mut self,
        base: &O,
        mods: &[M],
        ops: &[String],
        loc: Location,
        guard: Option<Var>,
    ) {
        let Some(dst) = ops.first() else {
            self.unknown.push((loc.clone(), base.name().to_owned()));
            self.push(
                &loc,
                Op::Unknown(base.name().to_owned()),
                vec![],
                vec![],
                guard,
            );
            return;
        };
        let n = mods.len();
        // The last two modifiers of a `cvt` are its destination and source types.
        let (cvt_to, cvt_from) = match mods {
            [.., to, from] => (to.data_type(), from.data_type()),
            _ => (None, None),
        };
        let defs: Vec<Var> = dst
            .split('|')
            .map(str::trim)
            .filter(|r| r.starts_with('%'))
            .map(|r| self.var(r))
            .collect();
        let arith = match base {
            O::Mov | O::Cvta => Some(Arith::Mov),
            O::Cvt
                if n >= 2
                    && type_bytes(mods.get(n - 2)) >= type_bytes(mods.last())
                    && cvt_to.is_some_and(is_unsigned) =>
            {
                Some(Arith::Mov)
            }
            O::Cvt
                if n >= 2
                    && cvt_from == Some(DataType::S32)
                    && type_bytes(mods.get(n - 2)) == 8 =>
            {
                Some(Arith::Sext32)
            }
            O::Xor => Some(Arith::Xor),
            O::Add => Some(Arith::Add),
            O::Sub => Some(Arith::Sub),
            O::Mul if mods.first() != Some(&M::Hi) => Some(Arith::Mul),
            O::Shl => Some(Arith::Shl),
            // shr.s* is an arithmetic shift: only the logical one keeps the range facts simple.
            O::Shr if !mods.iter().filter_map(M::data_type).any(is_signed) => Some(Arith::Shr),
            O::And => Some(Arith::And),
            O::Or => Some(Arith::Or),
            O::Min => Some(Arith::Min),
            O::Max => Some(Arith::Max),
            O::Rem => Some(Arith::Rem),
            O::Div => Some(Arith::Div),
            // An ordered integer comparison into one predicate (`setp.lt.u32 %p, a, b`).
            O::Setp if ops.len() == 3 && mods.get(1).is_some_and(|t| !is_float(t)) => {
                let signed = mods.get(1).and_then(M::data_type).is_some_and(is_signed);
                match mods.first() {
                    Some(M::Lt | M::Lo) => Some(Arith::Cmp(Cmp::Lt, signed)),
                    Some(M::Le | M::Ls) => Some(Arith::Cmp(Cmp::Le, signed)),
                    Some(M::Gt | M::Hi) => Some(Arith::Cmp(Cmp::Gt, signed)),
                    Some(M::Ge | M::Hs) => Some(Arith::Cmp(Cmp::Ge, signed)),
                    Some(M::Eq) => Some(Arith::Cmp(Cmp::Eq, signed)),
                    Some(M::Ne) => Some(Arith::Cmp(Cmp::Ne, signed)),
                    _ => Some(Arith::Other),
                }
            }
            // `selp d, a, b, p`: one of `a`, `b` (the facts join them).
            O::Selp => Some(Arith::Select),
            // `bfe.u32 d, a, pos, len` with constant `pos`/`len` is `(a >> pos) & (2^len - 1)`.
            O::Bfe if bfe_fields(mods, ops).is_some() => {
                let len = bfe_fields(mods, ops).map_or(1, |f| f.1);
                let a = self.value(&ops[1], &loc);
                let shift = self.value(&ops[2], &loc);
                let mask = self.value(&((1u64 << len) - 1).to_string(), &loc);
                let t = self.temp();
                self.push(&loc, Op::Arith(Arith::Shr), vec![t], vec![a, shift], guard);
                self.push(&loc, Op::Arith(Arith::And), defs, vec![t, mask], guard);
                return;
            }
            O::Mad if ops.len() == 4 && matches!(mods.first(), Some(M::Lo | M::Wide)) => {
                // d = a * b + c, as two steps the range analysis understands.
                let (a, b, c) = (
                    self.value(&ops[1], &loc),
                    self.value(&ops[2], &loc),
                    self.value(&ops[3], &loc),
                );
                let t = self.temp();
                self.push(&loc, Op::Arith(Arith::Mul), vec![t], vec![a, b], guard);
                self.push(&loc, Op::Arith(Arith::Add), defs, vec![t, c], guard);
                return;
            }
            O::Setp
            | O::Not
            | O::Neg
            | O::Popc
            | O::Clz
            | O::Brev
            | O::Bfind
            | O::Cvt
            | O::Mul
            | O::Shr
            | O::Abs
            | O::Cnot
            | O::Fma
            | O::Slct
            | O::Bfe
            | O::Bfi
            | O::Prmt
            | O::Shf
            | O::Sad
            | O::Testp
            | O::Copysign
            | O::Rcp
            | O::Sqrt
            | O::Rsqrt
            | O::Ex2
            | O::Lg2
            | O::Sin
            | O::Cos
            | O::Mad24
            | O::Mul24
            | O::Fns
            | O::Dp4a
            | O::Dp2a
            | O::Lop3
            | O::Bmsk
            | O::Szext
            | O::Tanh => Some(Arith::Other),
            _ => None,
        };
        let uses: Vec<Var> = ops.iter().skip(1).map(|o| self.value(o, &loc)).collect();
        match arith {
            Some(a) => self.push(&loc, Op::Arith(a), defs, uses, guard),
            None => {
                self.unknown.push((loc.clone(), base.name().to_owned()));
                self.push(&loc, Op::Unknown(base.name().to_owned()), defs, uses, guard);
            }
        }
    }
}

/// `bfe.u* d, a, pos, len` with constant `pos < 64` and `1 <= len < 64`: `(pos, len)`.
fn bfe_fields(mods: &[M], ops: &[String]) -> Option<(u64, u64)> {
    if !mods.first().and_then(M::data_type).is_some_and(is_unsigned) || ops.len() != 4 {
        return None;
    }
    let (pos, len) = (parse_imm(ops[2].trim())?, parse_imm(ops[3].trim())?);
    (pos < 64 && (1..64).contains(&len)).then_some((pos, len))
}

fn is_unsigned(t: DataType) -> bool {
    matches!(
        t,
        DataType::U8 | DataType::U16 | DataType::U32 | DataType::U64
    )
}

fn is_signed(t: DataType) -> bool {
    matches!(
        t,
        DataType::S8 | DataType::S16 | DataType::S32 | DataType::S64
    )
}

/// A floating-point comparison: a float type, or `.ftz` before it.
fn is_float(m: &M) -> bool {
    *m == M::Ftz
        || matches!(
            m.data_type(),
            Some(
                DataType::F16
                    | DataType::F16x2
                    | DataType::Bf16
                    | DataType::Bf16x2
                    | DataType::F32
                    | DataType::F64
            )
        )
}
