//! What the PTX front end makes of the constructs of real compiler output that need care, checked
//! on corpus files (`analysis/tests/corpus/ptx`): positions against the text, `.func` return
//! parameters, call sequences, inline asm scopes with plain register names, brace vectors, `mma` /
//! `wgmma` operands, `::` modifiers, negative immediates and offsets, `.loc … inlined_at`, debug
//! sections, `.ptr` parameters, initializers.

use crate::support;
use warpforge_ptx::isa::{Modifier, Opcode};

use warpforge_ptx::parse::{
    parse, AddressBase, Component, DataType, DataValue, FloatImm, Function, FunctionKind,
    Initializer, Instruction, Linkage, Module, ModuleItem, OperandKind, SectionItem, StateSpace,
    Statement,
};

fn corpus(name: &str) -> (String, Module) {
    let text = support::corpus_file(name);
    let module = parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (text, module)
}

/// The 1-based line and character column of the first occurrence of `needle`.
fn position_of(text: &str, needle: &str) -> (u32, u32) {
    let at = text.find(needle).expect("needle in text");
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    (line as u32, column as u32)
}

fn first<'a>(f: &'a Function, full_opcode: &str) -> &'a Instruction {
    f.instructions()
        .find(|i| i.full_opcode() == full_opcode)
        .unwrap_or_else(|| panic!("no {full_opcode} in {}", f.name))
}

fn kinds(i: &Instruction) -> Vec<&OperandKind> {
    i.operands.iter().map(|o| &o.kind).collect()
}

fn reg(kind: &OperandKind) -> String {
    match kind {
        OperandKind::Register(r) => r.to_string(),
        other => panic!("not a register: {other:?}"),
    }
}

#[test]
fn nvcc_device_function_call_sequence_loc_and_debug_section() {
    let (text, m) = corpus("device_barrier.nvcc13-lineinfo.sm80.ptx");
    assert_eq!((m.version.major, m.version.minor), (9, 0));
    assert_eq!(m.target.names, ["sm_80"]);
    assert_eq!(m.address_size.map(|a| a.bits), Some(64));

    let shared = m.variables().next().expect("a module-scope shared array");
    assert_eq!(
        (shared.space, shared.align, shared.ty),
        (StateSpace::Shared, Some(4), DataType::B8)
    );
    assert_eq!(shared.declarators[0].dims, [Some(512)]);

    let func = m.function("_Z8exchangePff").expect(".func");
    assert_eq!(func.kind, FunctionKind::Func);
    assert_eq!(func.returns.len(), 1);
    assert_eq!(func.returns[0].name, "func_retval0");
    assert_eq!(func.params[0].name, "_Z8exchangePff_param_0");
    let bar = first(func, "bar.sync");
    assert_eq!(
        (bar.pos.line, bar.pos.column),
        position_of(&text, "bar.sync")
    );

    let entry = m.function("device_barrier").expect("entry");
    assert_eq!(entry.linkage, [Linkage::Visible]);
    assert_eq!(entry.maxntid(), Some([128, 1, 1]));
    assert_eq!(entry.reqntid(), None);
    let call = first(entry, "call.uni");
    match kinds(call).as_slice() {
        [OperandKind::CallArgs(ret), OperandKind::Symbol(callee), OperandKind::CallArgs(args)] => {
            assert_eq!(callee, "_Z8exchangePff");
            assert_eq!(ret[0].kind, OperandKind::Symbol("retval0".into()));
            assert_eq!(args[0].kind, OperandKind::Symbol("param0".into()));
        }
        other => panic!("call operands {other:?}"),
    }
    // The call sits in its own scope with its `.param` declarations.
    let body = entry.body.as_ref().expect("body");
    let scope = body
        .statements
        .iter()
        .find_map(|s| match s {
            Statement::Block(b) => Some(b),
            _ => None,
        })
        .expect("a call scope");
    assert!(scope
        .statements
        .iter()
        .any(|s| matches!(s, Statement::Decl(d) if d.space == StateSpace::Param)));

    let add = entry
        .instructions()
        .find(|i| {
            i.full_opcode() == "add.s32"
                && i.operands.len() == 3
                && i.operands[2].kind == OperandKind::Int(warpforge_ptx::parse::IntImm::decimal(-4))
        })
        .expect("add.s32 %r23, %r23, -4");
    assert_eq!(reg(&add.operands[0].kind), "%r23");
    let branch = entry
        .instructions()
        .find(|i| i.opcode == Opcode::Bra && i.guard.is_some())
        .expect("a guarded branch");
    assert!(matches!(&branch.operands[0].kind, OperandKind::Label(l) if l.starts_with("$L__BB1_")));
    assert!(!branch.guard.as_ref().expect("guard").negated);

    let locs: Vec<_> = body
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Loc(l) => Some(l),
            _ => None,
        })
        .collect();
    let inlined = locs
        .iter()
        .find(|l| l.inlined_at.is_some())
        .expect("an inlined .loc");
    assert_eq!(inlined.function_name.as_deref(), Some("$L__info_string0"));
    assert!(body
        .statements
        .iter()
        .any(|s| matches!(s, Statement::Pragma(p) if p.values == ["nounroll"])));

    let file = m
        .items
        .iter()
        .find_map(|i| match i {
            ModuleItem::File(f) => Some(f),
            _ => None,
        })
        .expect(".file");
    assert_eq!(
        (file.index, file.path.as_str()),
        (1, "/tmp/warpforge-corpus/src/device_barrier.cu")
    );
    let section = m
        .items
        .iter()
        .find_map(|i| match i {
            ModuleItem::Section(s) => Some(s),
            _ => None,
        })
        .expect(".section");
    assert_eq!(section.name, "debug_str");
    match section.items.as_slice() {
        [SectionItem::Label(l), SectionItem::Data(d)] => {
            assert_eq!(l.name, "$L__info_string0");
            assert_eq!(d.ty, DataType::B8);
            assert_eq!(d.values.len(), 21);
            assert!(matches!(d.values[0], DataValue::Int(v) if v.value() == 95));
        }
        other => panic!("section items {other:?}"),
    }
}

#[test]
fn triton_wgmma_brace_vectors_ptr_params_and_dwarf() {
    let (text, m) = corpus("matmul.triton39.sm90.ptx");
    assert_eq!((m.version.major, m.version.minor), (9, 4));
    assert_eq!(m.target.names, ["sm_90a"]);
    let smem = m.variables().next().expect("global_smem");
    assert_eq!(smem.linkage, [Linkage::Extern]);
    assert_eq!(smem.align, Some(16));
    assert_eq!(smem.declarators[0].dims, [None]);

    let k = m.function("matmul").expect("matmul");
    assert_eq!(k.reqntid(), Some([128, 1, 1]));
    let p0 = k.param("matmul_param_0").expect("param 0");
    let ptr = p0.ptr.expect(".ptr");
    assert_eq!(
        (p0.ty, ptr.space, ptr.align),
        (DataType::U64, Some(StateSpace::Global), Some(1))
    );
    assert_eq!(k.params.len(), 14);

    let wgmma = first(k, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16");
    assert_eq!(
        (wgmma.pos.line, wgmma.pos.column),
        position_of(&text, "wgmma.mma_async")
    );
    match kinds(wgmma).as_slice() {
        [OperandKind::Vector(acc), a, b, scale, rest @ ..] => {
            assert_eq!(acc.len(), 32);
            assert_eq!(reg(&acc[31].kind), "%r394");
            assert_eq!(
                (reg(a), reg(b), reg(scale)),
                ("%rd77".into(), "%rd78".into(), "%p19".into())
            );
            let ints: Vec<i64> = rest
                .iter()
                .map(|k| match k {
                    OperandKind::Int(v) => v.value(),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(ints, [1, 1, 0, 1]);
        }
        other => panic!("wgmma operands {other:?}"),
    }

    let ld = k
        .instructions()
        .find(|i| i.full_opcode() == "ld.global.b16" && i.guard.is_some())
        .expect("@%p2 ld.global.b16 { %rs1 }, [ %rd29 + 0 ]");
    match kinds(ld).as_slice() {
        [OperandKind::Vector(v), OperandKind::Address(a)] => {
            assert_eq!(v.len(), 1);
            assert!(matches!(&a.base, AddressBase::Register(r) if r.name.starts_with("%rd")));
            assert_eq!(a.offset, 0);
        }
        other => panic!("{other:?}"),
    }
    let fence = k
        .instructions()
        .find(|i| i.opcode == Opcode::Fence)
        .expect("fence");
    assert_eq!(
        fence.modifiers,
        [Modifier::Proxy, Modifier::Async, Modifier::SharedCta]
    );

    let sections: Vec<_> = m
        .items
        .iter()
        .filter_map(|i| match i {
            ModuleItem::Section(s) => Some(s),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["debug_abbrev", "debug_info", "debug_str", "debug_macinfo"]
    );
    assert!(sections[3].items.is_empty());
    let info_symbols: Vec<&str> = sections[1]
        .items
        .iter()
        .filter_map(|i| match i {
            SectionItem::Data(d) => match &d.values[0] {
                DataValue::Symbol { name, .. } => Some(name.as_str()),
                DataValue::Int(_) => None,
            },
            SectionItem::Label(_) => None,
        })
        .collect();
    assert_eq!(info_symbols[..2], [".debug_abbrev", ".debug_line"]);
    assert!(info_symbols.contains(&"$L__func_begin0"));
}

#[test]
fn triton_sm80_mma_and_ldmatrix_fragments() {
    let (_, m) = corpus("matmul.triton39.sm80.ptx");
    let k = m.function("matmul").expect("matmul");
    let mma = first(k, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32");
    let widths: Vec<usize> = kinds(mma)
        .iter()
        .map(|k| match k {
            OperandKind::Vector(v) => v.len(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(widths, [4, 4, 2, 4]);
    let ldm = first(k, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
    assert!(
        matches!(kinds(ldm).as_slice(), [OperandKind::Vector(v), OperandKind::Address(_)] if v.len() == 4)
    );
}

#[test]
fn inline_asm_scopes_with_plain_register_names() {
    let (text, m) = corpus("cub_block_scan.nvcc13.sm80.ptx");
    let shfl = m
        .functions()
        .flat_map(|f| f.instructions())
        .find(|i| {
            i.full_opcode() == "shfl.sync.up.b32"
                && matches!(i.operands[0].kind, OperandKind::PredPair(..))
        })
        .expect("shfl.sync.up.b32 r0|p");
    assert_eq!(
        (shfl.pos.line, shfl.pos.column),
        position_of(&text, "shfl.sync.up.b32 r0|p")
    );
    match &shfl.operands[0].kind {
        OperandKind::PredPair(value, pred) => {
            assert_eq!((value.name.as_str(), pred.name.as_str()), ("r0", "p"))
        }
        other => panic!("{other:?}"),
    }
    let add = m
        .functions()
        .flat_map(|f| f.instructions())
        .find(|i| i.guard.as_ref().is_some_and(|g| g.pred.name == "p"))
        .expect("@p add.s32 r0, r0, …");
    assert_eq!(add.full_opcode(), "add.s32");
    // `r0` is declared by `.reg .s32 r0;` in the scope, so it is a register, not a symbol.
    assert_eq!(add.operands[0].kind, add.operands[1].kind);
    assert_eq!(reg(&add.operands[0].kind), "r0");
}

#[test]
fn negative_offsets_pred_pairs_special_registers_and_floats() {
    let (_, m) = corpus("cub_block_reduce.nvcc13.sm80.ptx");
    let st = m
        .functions()
        .flat_map(|f| f.instructions())
        .find_map(|i| match i.operands.first().map(|o| &o.kind) {
            Some(OperandKind::Address(a)) if a.offset < 0 => Some(a.offset),
            _ => None,
        })
        .expect("a store to [%r+-N]");
    assert_eq!(st, -112);

    let (_, m) = corpus("vote_match.nvcc13.sm80.ptx");
    let all = m
        .functions()
        .flat_map(|f| f.instructions())
        .find(|i| i.full_opcode() == "match.all.sync.b32")
        .expect("match.all");
    assert!(
        matches!(&all.operands[0].kind, OperandKind::PredPair(v, p) if v.name == "%r9" && p.name == "%p4")
    );
    let tid = m
        .functions()
        .flat_map(|f| f.instructions())
        .flat_map(|i| &i.operands)
        .find_map(|o| match &o.kind {
            OperandKind::Register(r) if r.name == "%tid" => Some(r.component),
            _ => None,
        })
        .expect("%tid.x");
    assert_eq!(tid, Some(Component::X));

    let (_, m) = corpus("softmax.triton39.sm80.ptx");
    let f = m
        .functions()
        .flat_map(|f| f.instructions())
        .flat_map(|i| &i.operands)
        .find_map(|o| match &o.kind {
            OperandKind::Float(FloatImm::F32Bits(bits)) if *bits == 0x3FB8_AA3B => Some(bits),
            _ => None,
        });
    assert!(f.is_some(), "0f3FB8AA3B (log2 e)");
}

#[test]
fn nvrtc_initializers() {
    let (_, m) = corpus("cg_reduce.nvrtc129.sm70.ptx");
    let min_exponent = m
        .variables()
        .find(|v| {
            v.declarators[0]
                .name
                .ends_with("IfLNS1_21__numeric_limits_typeE2EE12min_exponentE")
        })
        .expect("min_exponent");
    match &min_exponent.declarators[0].init {
        Some(Initializer::Value(v)) => {
            assert!(matches!(&v.kind, OperandKind::Int(i) if i.value() == -125));
        }
        other => panic!("{other:?}"),
    }
    let friday = m
        .variables()
        .find(|v| v.declarators[0].name.ends_with("6FridayE"))
        .expect("Friday");
    let d = &friday.declarators[0];
    assert_eq!(d.dims, [Some(1)]);
    match &d.init {
        Some(Initializer::List { items, .. }) => {
            assert!(
                matches!(&items[..], [Initializer::Value(v)] if matches!(&v.kind, OperandKind::Int(i) if i.value() == 5))
            );
        }
        other => panic!("{other:?}"),
    }
}

/// Not in the corpus: nvcc's indirect calls (`.callprototype`) and `brx.idx` tables, as nvcc prints
/// them.
#[test]
fn indirect_calls_and_branch_tables() {
    let text = r#".version 8.0
.target sm_80
.address_size 64

.visible .entry indirect(
	.param .u64 indirect_param_0
)
{
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd2, [indirect_param_0];
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r1;
	.param .b32 retval0;
	prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
	call (retval0), 
	%rd2, 
	(
	param0
	)
	, prototype_0;
	ld.param.b32 	%r2, [retval0];
	} // callseq 0
	ts: .branchtargets $L__BB0_1, $L__BB0_2;
	brx.idx 	%r2, ts;
$L__BB0_1:
	ret;
$L__BB0_2:
	ret;
}
"#;
    let m = parse(text).unwrap_or_else(|e| panic!("{e}"));
    let k = m.function("indirect").expect("entry");
    let call = first(k, "call");
    match kinds(call).as_slice() {
        [OperandKind::CallArgs(ret), OperandKind::Register(target), OperandKind::CallArgs(args), OperandKind::Label(proto)] =>
        {
            assert_eq!((ret.len(), args.len()), (1, 1));
            assert_eq!(target.name, "%rd2");
            assert_eq!(proto, "prototype_0");
        }
        other => panic!("{other:?}"),
    }
    let body = k.body.as_ref().expect("body");
    let scope = body
        .statements
        .iter()
        .find_map(|s| match s {
            Statement::Block(b) => Some(b),
            _ => None,
        })
        .expect("call scope");
    let proto = scope
        .statements
        .iter()
        .find_map(|s| match s {
            Statement::CallPrototype(p) => Some(p),
            _ => None,
        })
        .expect(".callprototype");
    assert_eq!((proto.returns.len(), proto.params.len()), (1, 1));
    assert_eq!(proto.params[0].ty, DataType::B32);
    let table = body
        .statements
        .iter()
        .find_map(|s| match s {
            Statement::BranchTargets(t) => Some(t),
            _ => None,
        })
        .expect(".branchtargets");
    assert_eq!(table.labels, ["$L__BB0_1", "$L__BB0_2"]);
    assert!(matches!(&first(k, "brx.idx").operands[1].kind, OperandKind::Label(l) if l == "ts"));

    let mut again = parse(&m.to_string()).unwrap_or_else(|e| panic!("reprinted: {e}"));
    let mut original = m;
    original.erase_positions();
    again.erase_positions();
    assert_eq!(original, again);
}
