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
        let parts: Vec<&str> = parsed.parts.iter().map(String::as_str).collect();
        let ops = &parsed.ops;
        if parts.is_empty() {
            return;
        }
        let base = parts[0];
        match (base, predicate) {
            ("bra", None) => {
                self.end_block(Terminator::Jump, ops.first().cloned(), false);
                return;
            }
            ("ret" | "exit", None) => {
                self.end_block(Terminator::Return, None, false);
                return;
            }
            // A branch on `@!%p` branches on %p with its successors the other way round.
            ("bra" | "ret" | "exit", Some(cond)) => {
                let target = if base == "bra" {
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
            "bar" | "barrier" if parts.get(1) == Some(&"warp") => {
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
            "bar" | "barrier" => self.push(&loc, Op::Barrier, vec![], vec![], guard),
            "shfl" | "vote" | "match" | "redux" => {
                let kind = match (base, parts.get(2).copied().unwrap_or("")) {
                    ("shfl", mode) => Collective::Shuffle {
                        index_mode: mode == "idx",
                    },
                    ("vote", "ballot") => Collective::Ballot,
                    // A reduction over the mask's lanes: one result for the warp, like a vote.
                    ("vote" | "redux", _) => Collective::Vote,
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
            "ld" | "ldu" | "st" | "atom" | "red" => self.memory(base, &parts, ops, loc, guard),
            _ if self.warp_level(base, &parts, ops, &loc, guard) => {}
            _ => self.value_instruction(base, &parts, ops, loc, guard),
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

    fn memory(
        &mut self,
        base: &str,
        parts: &[&str],
        ops: &[String],
        loc: Location,
        guard: Option<Var>,
    ) {
        let space_name = parts.get(1).copied().unwrap_or("");
        let space = match space_name {
            "shared" => Space::Shared(None),
            "global" => Space::Global,
            // A call's return value is the callee's, per thread: not a uniform kernel parameter.
            "param" if !ops.get(1).is_some_and(|a| a.contains("retval")) => {
                let defs = ops.first().map(|d| vec![self.var(d)]).unwrap_or_default();
                self.push(&loc, Op::Param, defs, vec![], guard);
                return;
            }
            _ => Space::Generic,
        };
        let vector = parts
            .iter()
            .find_map(|p| p.strip_prefix('v').and_then(|n| n.parse::<u32>().ok()))
            .unwrap_or(1);
        let width = type_bytes(parts.last().copied().unwrap_or("u32")) * vector;
        let read_only = parts.contains(&"nc") || base == "ldu" || space_name == "const";
        match base {
            "ld" | "ldu" => {
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
            "st" => {
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
        base: &str,
        parts: &[&str],
        ops: &[String],
        loc: Location,
        guard: Option<Var>,
    ) {
        let Some(dst) = ops.first() else {
            self.unknown.push((loc.clone(), base.to_owned()));
            self.push(&loc, Op::Unknown(base.to_owned()), vec![], vec![], guard);
            return;
        };
        let defs: Vec<Var> = dst
            .split('|')
            .map(str::trim)
            .filter(|r| r.starts_with('%'))
            .map(|r| self.var(r))
            .collect();
        let arith = match base {
            "mov" | "cvta" => Some(Arith::Mov),
            "cvt"
                if parts.len() >= 3
                    && type_bytes(parts[parts.len() - 2]) >= type_bytes(parts[parts.len() - 1])
                    && parts[parts.len() - 1].starts_with('u') =>
            {
                Some(Arith::Mov)
            }
            "cvt"
                if parts.len() >= 3
                    && parts[parts.len() - 1] == "s32"
                    && type_bytes(parts[parts.len() - 2]) == 8 =>
            {
                Some(Arith::Sext32)
            }
            "xor" => Some(Arith::Xor),
            "add" => Some(Arith::Add),
            "sub" => Some(Arith::Sub),
            "mul" if parts.get(1) != Some(&"hi") => Some(Arith::Mul),
            "shl" => Some(Arith::Shl),
            // shr.s* is an arithmetic shift: only the logical one keeps the range facts simple.
            "shr" if !parts[1..].iter().any(|p| p.starts_with('s')) => Some(Arith::Shr),
            "and" => Some(Arith::And),
            "or" => Some(Arith::Or),
            "min" => Some(Arith::Min),
            "max" => Some(Arith::Max),
            "rem" => Some(Arith::Rem),
            "div" => Some(Arith::Div),
            // An ordered integer comparison into one predicate (`setp.lt.u32 %p, a, b`).
            "setp" if ops.len() == 3 && parts.get(2).is_some_and(|t| !t.starts_with('f')) => {
                let signed = parts.get(2).is_some_and(|t| t.starts_with('s'));
                match parts.get(1).copied() {
                    Some("lt" | "lo") => Some(Arith::Cmp(Cmp::Lt, signed)),
                    Some("le" | "ls") => Some(Arith::Cmp(Cmp::Le, signed)),
                    Some("gt" | "hi") => Some(Arith::Cmp(Cmp::Gt, signed)),
                    Some("ge" | "hs") => Some(Arith::Cmp(Cmp::Ge, signed)),
                    Some("eq") => Some(Arith::Cmp(Cmp::Eq, signed)),
                    Some("ne") => Some(Arith::Cmp(Cmp::Ne, signed)),
                    _ => Some(Arith::Other),
                }
            }
            // `selp d, a, b, p`: one of `a`, `b` (the facts join them).
            "selp" => Some(Arith::Select),
            // `bfe.u32 d, a, pos, len` with constant `pos`/`len` is `(a >> pos) & (2^len - 1)`.
            "bfe" if bfe_fields(parts, ops).is_some() => {
                let len = bfe_fields(parts, ops).map_or(1, |f| f.1);
                let a = self.value(&ops[1], &loc);
                let shift = self.value(&ops[2], &loc);
                let mask = self.value(&((1u64 << len) - 1).to_string(), &loc);
                let t = self.temp();
                self.push(&loc, Op::Arith(Arith::Shr), vec![t], vec![a, shift], guard);
                self.push(&loc, Op::Arith(Arith::And), defs, vec![t, mask], guard);
                return;
            }
            "mad" if ops.len() == 4 && matches!(parts.get(1), Some(&"lo" | &"wide")) => {
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
            "setp" | "not" | "neg" | "popc" | "clz" | "brev" | "bfind" | "cvt" | "mul" | "shr"
            | "abs" | "cnot" | "fma" | "slct" | "bfe" | "bfi" | "prmt" | "shf" | "sad"
            | "testp" | "copysign" | "rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos"
            | "mad24" | "mul24" | "fns" | "dp4a" | "dp2a" | "lop3" | "bmsk" | "szext" | "tanh" => {
                Some(Arith::Other)
            }
            _ => None,
        };
        let uses: Vec<Var> = ops.iter().skip(1).map(|o| self.value(o, &loc)).collect();
        match arith {
            Some(a) => self.push(&loc, Op::Arith(a), defs, uses, guard),
            None => {
                self.unknown.push((loc.clone(), base.to_owned()));
                self.push(&loc, Op::Unknown(base.to_owned()), defs, uses, guard);
            }
        }
    }
}

/// `bfe.u* d, a, pos, len` with constant `pos < 64` and `1 <= len < 64`: `(pos, len)`.
fn bfe_fields(parts: &[&str], ops: &[String]) -> Option<(u64, u64)> {
    if !parts.get(1).is_some_and(|t| t.starts_with('u')) || ops.len() != 4 {
        return None;
    }
    let (pos, len) = (parse_imm(ops[2].trim())?, parse_imm(ops[3].trim())?);
    (pos < 64 && (1..64).contains(&len)).then_some((pos, len))
}
