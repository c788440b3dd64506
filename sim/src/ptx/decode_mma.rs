//! Decoding the warp-level matrix instructions (`inst_mma.rs`): `ldmatrix` and `stmatrix`
//! (`.m8n8` `.b16`), `mma.sync.aligned` in the shapes and types of sm_80 (`.m16n8k16` and `.m16n8k8`
//! with `.f16`/`.bf16`, `.m16n8k8`/`.m16n8k4` `.tf32`, `.m16n8k32`/`.m16n8k16` `.s8`/`.u8`,
//! `.m8n8k4` `.f64`), and `wmma.load`/`wmma.mma`/`wmma.store` in the shapes `.m16n16k16`
//! (`.f16`, `.bf16`, `.s8`, `.u8`) and `.m16n16k8` (`.tf32`). Other shapes and types are refused
//! by name.

use warpforge_ptx::isa::Modifier as M;
use warpforge_ptx::isa::Opcode as O;
use warpforge_ptx::parse::{DataType, Instruction, Operand, OperandKind};

use super::decode::{Decoder, Imm, Mods};
use super::inst::{MemSpace, Op};
use super::inst_mma::{El, Frag, MmaOp, MmaTypes, Regs, Shape, Tf32Round};

/// The type modifiers among an instruction's modifiers, in order.
fn type_names(inst: &Instruction) -> Vec<M> {
    inst.modifiers
        .iter()
        .filter(|m| {
            El::of(m).is_some() || matches!(m, M::Type(DataType::B16) | M::Type(DataType::B8))
        })
        .cloned()
        .collect()
}

/// The shape among the modifiers.
fn shape(mods: &mut Mods, inst: &Instruction) -> Result<Shape, String> {
    let found = inst
        .modifiers
        .iter()
        .find(|m| matches!(m, M::Shape { k: Some(_), .. }));
    match found {
        Some(m) => {
            let shape = Shape::of(m).ok_or_else(|| format!("the shape `.{m}` is not supported"))?;
            mods.take(m.clone());
            Ok(shape)
        }
        None => Err("no shape modifier (`.m16n8k16`, …)".into()),
    }
}

/// `.shared` (or `.shared::cta`) or none (a generic address into shared memory).
fn shared_space(mods: &mut Mods) -> MemSpace {
    match mods.one_of(&[M::Shared, M::SharedCta]) {
        Some(_) => MemSpace::Shared,
        None => MemSpace::Generic,
    }
}

impl Decoder<'_> {
    /// `cvt` to `.tf32` (the tensor cores' input format).
    pub(crate) fn cvt_tf32(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        let round = match mods.one_of(&[M::Rna, M::Rn, M::Rz]) {
            Some(M::Rna) => Tf32Round::Rna,
            Some(M::Rn) => Tf32Round::Rn,
            Some(_) => Tf32Round::Rz,
            None => return Err("`cvt` to `.tf32` needs `.rna`, `.rn` or `.rz`".into()),
        };
        let relu = mods.take(M::Relu);
        let satfinite = mods.take(M::Satfinite);
        if relu && round == Tf32Round::Rna {
            return Err("`.relu` with `.rna` (not a form of `cvt.tf32.f32`)".into());
        }
        if !(mods.take(M::Tf32) && mods.take(M::Type(DataType::F32))) {
            return Err("only `cvt.tf32.f32` converts to `.tf32`".into());
        }
        mods.finish()?;
        let [d, a] = super::decode::operands::<2>(inst)?;
        Ok(Op::Mma(Box::new(MmaOp::Tf32 {
            round,
            relu,
            satfinite,
            d: self.dst(d, 32)?,
            a: self.src(a, Imm::F32)?,
        })))
    }

    /// `ldmatrix`, `stmatrix`, `mma`, `wmma`.
    pub(crate) fn matrix(&mut self, inst: &Instruction) -> Result<Op, String> {
        let mut mods = Mods::new(inst);
        if !(mods.take(M::Sync) && mods.take(M::Aligned)) {
            return Err(format!(
                "`{}` without `.sync.aligned` (mandatory)",
                inst.opcode
            ));
        }
        let op = match inst.opcode {
            O::Ldmatrix | O::Stmatrix => self.ld_st_matrix(inst, &mut mods)?,
            O::Mma => self.mma(inst, &mut mods)?,
            _ => self.wmma(inst, &mut mods)?,
        };
        mods.finish()?;
        Ok(Op::Mma(Box::new(op)))
    }

    /// A brace list of exactly `n` registers (destinations, or sources that may be immediates).
    fn fragment(&mut self, op: &Operand, n: usize, dst: bool, what: &str) -> Result<Regs, String> {
        let parts = match &op.kind {
            OperandKind::Vector(parts) => parts.as_slice(),
            _ if n == 1 => std::slice::from_ref(op),
            _ => return Err(format!("expected {what} as a brace list of {n} registers")),
        };
        if parts.len() != n {
            return Err(format!(
                "{what} has {} registers; this form takes {n}",
                parts.len()
            ));
        }
        parts
            .iter()
            .map(|p| {
                if dst {
                    self.dst(p, 32)
                } else {
                    self.src(p, Imm::Int)
                }
            })
            .collect()
    }

    fn ld_st_matrix(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<MmaOp, String> {
        let name = &inst.opcode;
        if !mods.take(M::Shape {
            m: 8,
            n: 8,
            k: None,
        }) {
            return Err(format!("`{name}`: only the `.m8n8` shape is supported"));
        }
        let count = match mods.one_of(&[M::X1, M::X2, M::X4]) {
            Some(M::X1) => 1,
            Some(M::X2) => 2,
            Some(_) => 4,
            None => return Err(format!("`{name}` without `.x1`, `.x2` or `.x4`")),
        };
        let trans = mods.take(M::Trans);
        let space = shared_space(mods);
        if !mods.take(M::Type(DataType::B16)) {
            return Err(format!("`{name}`: only `.b16` elements are supported"));
        }
        let [first, second] = super::decode::operands::<2>(inst)?;
        Ok(if *name == O::Ldmatrix {
            let regs = self.fragment(first, count, true, "the destination")?;
            MmaOp::Ldmatrix {
                trans,
                space,
                regs,
                addr: self.addr(second)?,
            }
        } else {
            let regs = self.fragment(second, count, false, "the source")?;
            MmaOp::Stmatrix {
                trans,
                space,
                regs,
                addr: self.addr(first)?,
            }
        })
    }

    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`.
    fn mma(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<MmaOp, String> {
        let shape = shape(mods, inst)?;
        if shape.is_wmma() {
            return Err(format!("`mma` has no shape `.{:?}`", shape).to_lowercase());
        }
        let layouts: Vec<&M> = inst
            .modifiers
            .iter()
            .filter(|m| matches!(m, M::Row | M::Col))
            .collect();
        if layouts != [&M::Row, &M::Col] {
            return Err(
                "only `.row.col` layouts are supported (the only ones of these shapes)".into(),
            );
        }
        mods.take(M::Row);
        mods.take(M::Col);
        let satfinite = mods.take(M::Satfinite);
        // What is left of the modifiers are the types, D, A, B, C.
        let names: Vec<M> = inst
            .modifiers
            .iter()
            .filter(|m| {
                !matches!(m, M::Sync | M::Aligned | M::Row | M::Col | M::Satfinite)
                    && Shape::of(m).is_none()
            })
            .cloned()
            .collect();
        let [d, a, b, c] = elements(&names)?[..] else {
            return Err(format!(
                "expected four types (D, A, B, C), found {}",
                names.len()
            ));
        };
        let types = mma_types([d, a, b, c], satfinite);
        check_combination(shape, types)?;
        mods.ignore(&names);
        self.mma_operands(inst, shape, types)
    }

    /// The four fragments of `mma` / `wmma.mma`.
    fn mma_operands(
        &mut self,
        inst: &Instruction,
        shape: Shape,
        types: MmaTypes,
    ) -> Result<MmaOp, String> {
        let [d, a, b, c] = super::decode::operands::<4>(inst)?;
        let a_regs = Frag::A.regs(shape, types.a);
        let b_regs = Frag::B.regs(shape, types.b);
        Ok(MmaOp::Mma {
            shape,
            types,
            d: self.fragment(d, Frag::C.regs(shape, types.d), true, "D")?,
            a: self.fragment(a, a_regs, false, "A")?,
            b: self.fragment(b, b_regs, false, "B")?,
            c: self.fragment(c, Frag::C.regs(shape, types.c), false, "C")?,
        })
    }

    /// `wmma.load.{a,b,c}`, `wmma.store.d`, `wmma.mma`.
    fn wmma(&mut self, inst: &Instruction, mods: &mut Mods) -> Result<MmaOp, String> {
        let verb = mods.one_of(&[M::Load, M::Store, M::Mma]);
        let shape = shape(mods, inst)?;
        if !shape.is_wmma() {
            return Err(format!(
                "`wmma` in shape `.{}` is not supported (only `.m16n16k16` and `.m16n16k8`)",
                format!("{shape:?}").to_lowercase()
            ));
        }
        let names = type_names(inst);
        mods.ignore(&names);
        let els = elements(&names)?;
        if verb == Some(M::Mma) {
            let (a, b) = (
                mods.one_of(&[M::Row, M::Col]),
                mods.one_of(&[M::Row, M::Col]),
            );
            if a.is_none() || b.is_none() {
                return Err("`wmma.mma` needs the layouts of A and B (`.row`/`.col`)".into());
            }
            let satfinite = mods.take(M::Satfinite);
            let types = match els[..] {
                // `.dtype.ctype` with `.f16` A and B.
                [d, c] => mma_types([d, El::F16, El::F16, c], satfinite),
                [d, a, b, c] => mma_types([d, a, b, c], satfinite),
                _ => return Err(format!("expected 2 or 4 types, found {}", els.len())),
            };
            check_combination(shape, types)?;
            return self.mma_operands(inst, shape, types);
        }
        let frag = match (&verb, mods.one_of(&[M::A, M::B, M::C, M::D])) {
            (Some(M::Load), Some(M::A)) => Frag::A,
            (Some(M::Load), Some(M::B)) => Frag::B,
            (Some(M::Load), Some(M::C)) | (Some(M::Store), Some(M::D)) => Frag::C,
            _ => return Err("expected `wmma.load.{a,b,c}`, `wmma.store.d` or `wmma.mma`".into()),
        };
        let store = verb == Some(M::Store);
        let col_major = match mods.one_of(&[M::Row, M::Col]) {
            Some(l) => l == M::Col,
            None => return Err("no layout (`.row` or `.col`)".into()),
        };
        let space = match mods.one_of(&[M::Global, M::Shared, M::SharedCta]) {
            Some(M::Global) => MemSpace::Global,
            Some(_) => MemSpace::Shared,
            None => MemSpace::Generic,
        };
        let [el] = els.as_slice() else {
            return Err(format!("expected one type, found {}", els.len()));
        };
        let ok = match (frag, shape) {
            (Frag::C, Shape::M16N16K16) => matches!(el, El::F16 | El::F32 | El::S32),
            (Frag::C, _) => *el == El::F32,
            (_, Shape::M16N16K16) => matches!(el, El::F16 | El::Bf16 | El::S8 | El::U8),
            _ => *el == El::Tf32,
        };
        if !ok {
            return Err(
                format!("a `.{:?}` fragment of this shape is not supported", el).to_lowercase(),
            );
        }
        let n = frag.regs(shape, *el);
        let (regs, address, stride) = match inst.operands.as_slice() {
            [r, p, s] if !store => (self.fragment(r, n, true, "the fragment")?, p, s),
            [p, r, s] if store => (self.fragment(r, n, false, "the fragment")?, p, s),
            ops => {
                return Err(format!(
                    "expected 3 operands (with the stride), found {}",
                    ops.len()
                ))
            }
        };
        Ok(MmaOp::Wmma {
            store,
            frag,
            shape,
            el: *el,
            col_major,
            space,
            regs,
            addr: self.addr(address)?,
            stride: self.src(stride, Imm::Int)?,
        })
    }
}

/// The types D, A, B, C.
fn mma_types(els: [El; 4], satfinite: bool) -> MmaTypes {
    let [d, a, b, c] = els;
    MmaTypes {
        d,
        a,
        b,
        c,
        satfinite,
    }
}

/// The element types named, or an error naming one that is not.
fn elements(names: &[M]) -> Result<Vec<El>, String> {
    names
        .iter()
        .map(|n| El::of(n).ok_or_else(|| format!("the type `.{n}` is not supported here")))
        .collect()
}

/// Whether the shape takes these types (the ISA's table for sm_80 and sm_90).
fn check_combination(shape: Shape, t: MmaTypes) -> Result<(), String> {
    let float_acc = |x: El| matches!(x, El::F16 | El::F32);
    let int = |x: El| matches!(x, El::S8 | El::U8);
    let ok = match (t.a, t.b) {
        (El::F16, El::F16) => {
            matches!(shape, Shape::M16N8K8 | Shape::M16N8K16 | Shape::M16N16K16)
                && float_acc(t.d)
                && float_acc(t.c)
        }
        (El::Bf16, El::Bf16) => {
            matches!(shape, Shape::M16N8K8 | Shape::M16N8K16 | Shape::M16N16K16)
                && t.d == El::F32
                && t.c == El::F32
        }
        (El::Tf32, El::Tf32) => {
            matches!(shape, Shape::M16N8K4 | Shape::M16N8K8 | Shape::M16N16K8)
                && t.d == El::F32
                && t.c == El::F32
        }
        (El::F64, El::F64) => shape == Shape::M8N8K4 && t.d == El::F64 && t.c == El::F64,
        (a, b) if int(a) && int(b) => {
            matches!(shape, Shape::M16N8K16 | Shape::M16N8K32 | Shape::M16N16K16)
                && t.d == El::S32
                && t.c == El::S32
        }
        _ => false,
    };
    let int_types = int(t.a) && int(t.b);
    if t.satfinite && !int_types {
        return Err("`.satfinite` on a floating-point multiply is not supported".into());
    }
    if ok {
        Ok(())
    } else {
        let name = |x: El| format!(".{x:?}").to_lowercase();
        Err(format!(
            "the shape `.{}` with types {}{}{}{} is not supported",
            format!("{shape:?}").to_lowercase(),
            name(t.d),
            name(t.a),
            name(t.b),
            name(t.c)
        ))
    }
}
