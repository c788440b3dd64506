//! The verifier rejects broken IR with the path of the broken statement, and never panics.
//!
//! The property test takes a random valid kernel and breaks it in one place. Because the kernel was
//! valid before, the first error the verifier reports must be the one we introduced, so the test checks
//! the exact statement path, not just that some error came back.

use proptest::prelude::*;
use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::random::random_kernel;
use warpforge_ir::*;

#[derive(Clone, Copy, Debug)]
enum Seg {
    Index(usize),
    Then,
    Else,
    Loop,
}

/// Every statement's route from the body, in tree order.
fn routes(block: &Block, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    for (i, stmt) in block.iter().enumerate() {
        prefix.push(Seg::Index(i));
        out.push(prefix.clone());
        match stmt {
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                prefix.push(Seg::Then);
                routes(then_block, prefix, out);
                prefix.pop();
                prefix.push(Seg::Else);
                routes(else_block, prefix, out);
                prefix.pop();
            }
            Stmt::Loop { body } => {
                prefix.push(Seg::Loop);
                routes(body, prefix, out);
                prefix.pop();
            }
            _ => {}
        }
        prefix.pop();
    }
}

fn path_text(route: &[Seg]) -> String {
    let mut text = String::from("body");
    for seg in route {
        match seg {
            Seg::Index(i) => text.push_str(&format!("[{i}]")),
            Seg::Then => text.push_str(".then"),
            Seg::Else => text.push_str(".else"),
            Seg::Loop => text.push_str(".loop"),
        }
    }
    text
}

fn stmt_mut<'a>(mut block: &'a mut Block, route: &[Seg]) -> &'a mut Stmt {
    let (last, inner) = route.split_last().expect("a route names a statement");
    let mut segs = inner.iter();
    while let Some(Seg::Index(i)) = segs.next() {
        block = match (&mut block[*i], segs.next()) {
            (Stmt::If { then_block, .. }, Some(Seg::Then)) => then_block,
            (Stmt::If { else_block, .. }, Some(Seg::Else)) => else_block,
            (Stmt::Loop { body }, Some(Seg::Loop)) => body,
            _ => unreachable!("routes only lead into nested blocks"),
        };
    }
    let Seg::Index(i) = last else {
        unreachable!("routes end at an index")
    };
    &mut block[*i]
}

/// The first value a statement defines, if any.
fn defined_value(stmt: &Stmt) -> Option<Value> {
    match stmt {
        Stmt::Let { value, .. }
        | Stmt::Load { value, .. }
        | Stmt::LoadByte { value, .. }
        | Stmt::Atomic { value, .. } => Some(*value),
        Stmt::LoadWide { values, .. } => values.first().copied(),
        Stmt::Warp(op) => match op {
            WarpOp::Shuffle { value, .. }
            | WarpOp::Ballot { value, .. }
            | WarpOp::Vote { value, .. }
            | WarpOp::MatchAny { value, .. } => Some(*value),
            WarpOp::Sync { .. } => None,
        },
        _ => None,
    }
}

/// The first value a statement uses, for rewriting.
fn first_operand_mut(stmt: &mut Stmt) -> Option<&mut Value> {
    match stmt {
        Stmt::Let { expr, .. } => match expr {
            Expr::Unary(_, a) | Expr::Cast(_, a, _) | Expr::Binary(_, a, _) => Some(a),
            Expr::MulWide(a, _) | Expr::Compare(_, a, _) | Expr::MulAdd(a, _, _) => Some(a),
            Expr::FunnelShr(a, _, _) => Some(a),
            Expr::Select { cond, .. } => Some(cond),
            Expr::Literal(_) | Expr::Param(_) | Expr::Special(_) | Expr::Local(_) => None,
        },
        Stmt::Assign { value, .. } => Some(value),
        Stmt::Load { index, .. }
        | Stmt::Store { index, .. }
        | Stmt::LoadByte { index, .. }
        | Stmt::StoreByte { index, .. } => Some(index),
        Stmt::LoadWide { index, .. }
        | Stmt::StoreWide { index, .. }
        | Stmt::Atomic { index, .. } => Some(index),
        Stmt::If { cond, .. } => Some(cond),
        Stmt::Warp(WarpOp::Shuffle { src, .. }) | Stmt::Warp(WarpOp::MatchAny { src, .. }) => {
            Some(src)
        }
        Stmt::Warp(WarpOp::Ballot { pred, .. }) | Stmt::Warp(WarpOp::Vote { pred, .. }) => {
            Some(pred)
        }
        _ => None,
    }
}

fn mem_ref_mut(stmt: &mut Stmt) -> Option<&mut MemRef> {
    match stmt {
        Stmt::Load { array, .. }
        | Stmt::Store { array, .. }
        | Stmt::LoadByte { array, .. }
        | Stmt::StoreByte { array, .. }
        | Stmt::LoadWide { array, .. }
        | Stmt::StoreWide { array, .. }
        | Stmt::Atomic { array, .. } => Some(array),
        _ => None,
    }
}

fn fresh(kernel: &mut Kernel, ty: ScalarType) -> Value {
    kernel.values.append(ValueInfo { ty })
}

/// Breaks `kernel` in one place; returns the path the verifier must report and a needle of its message.
fn break_kernel(kernel: &mut Kernel, which: u8, pick: usize) -> (String, &'static str) {
    let mut all = Vec::new();
    routes(&kernel.body, &mut Vec::new(), &mut all);
    let choose = |filter: &dyn Fn(&Stmt) -> bool, kernel: &Kernel| -> Option<Vec<Seg>> {
        let found: Vec<_> = all
            .iter()
            .filter(|r| filter(stmt_mut(&mut kernel.body.clone(), r)))
            .cloned()
            .collect();
        (!found.is_empty()).then(|| found[pick % found.len()].clone())
    };
    match which % 9 {
        0 => {
            if let Some(route) = choose(&|s| defined_value(s).is_some(), kernel) {
                let v = defined_value(stmt_mut(&mut kernel.body, &route)).expect("filtered");
                let old = kernel.values[v].ty;
                let new = ScalarType::ALL
                    [(ScalarType::ALL.iter().position(|&t| t == old).unwrap() + 1 + pick % 7) % 8];
                kernel.values.get_mut(v).expect("in range").ty = new;
                return (path_text(&route), "is declared");
            }
        }
        1 => {
            if let Some(route) = choose(&|s| first_operand_mut(&mut s.clone()).is_some(), kernel) {
                let dangling = Handle::from_index((kernel.values.len() + pick % 5) as u32);
                *first_operand_mut(stmt_mut(&mut kernel.body, &route)).expect("filtered") =
                    dangling;
                return (path_text(&route), "dangling handle");
            }
        }
        2 => {
            if let Some(route) = choose(&|s| mem_ref_mut(&mut s.clone()).is_some(), kernel) {
                let (new, needle) = if pick % 2 == 0 {
                    // Parameter 2 of every random kernel is the scalar `n`.
                    (MemRef::Global(Handle::from_index(2)), "not a global buffer")
                } else {
                    (
                        MemRef::Shared(Handle::from_index(kernel.shared.len() as u32)),
                        "does not exist",
                    )
                };
                *mem_ref_mut(stmt_mut(&mut kernel.body, &route)).expect("filtered") = new;
                return (path_text(&route), needle);
            }
        }
        3 => {
            if let Some(route) = choose(&|s| matches!(s, Stmt::Warp(_)), kernel) {
                let Stmt::Warp(op) = stmt_mut(&mut kernel.body, &route) else {
                    unreachable!()
                };
                match op {
                    WarpOp::Shuffle { mask, .. }
                    | WarpOp::Ballot { mask, .. }
                    | WarpOp::Vote { mask, .. }
                    | WarpOp::MatchAny { mask, .. }
                    | WarpOp::Sync { mask } => *mask = Mask::Const(0),
                }
                return (path_text(&route), "at least one lane");
            }
        }
        4 if !kernel.values.is_empty() => {
            let v = Handle::from_index((pick % kernel.values.len()) as u32);
            let ty = kernel.values[v].ty;
            let local = kernel.locals.append(LocalVar {
                name: "mutant".into(),
                ty,
            });
            kernel.body.insert(0, Stmt::Assign { local, value: v });
            return ("body[0]".into(), "before its definition");
        }
        5 => {
            let i = fresh(kernel, ScalarType::U32);
            kernel.body.insert(
                0,
                Stmt::Let {
                    value: i,
                    expr: Expr::Literal(Literal::U32(0)),
                },
            );
            // Parameter 1 of every random kernel is the read-only `data`.
            let store = Stmt::Store {
                array: MemRef::Global(Handle::from_index(1)),
                index: i,
                value: i,
            };
            kernel.body.insert(1, store);
            return ("body[1]".into(), "read-only");
        }
        6 => {
            let c = fresh(kernel, ScalarType::U32);
            kernel.body.insert(
                0,
                Stmt::Let {
                    value: c,
                    expr: Expr::Literal(Literal::U32(1)),
                },
            );
            let branch = Stmt::If {
                cond: c,
                then_block: Vec::new(),
                else_block: Vec::new(),
            };
            kernel.body.insert(1, branch);
            return ("body[1]".into(), "must be bool");
        }
        7 => {
            let i = fresh(kernel, ScalarType::U32);
            kernel.body.insert(
                0,
                Stmt::Let {
                    value: i,
                    expr: Expr::Literal(Literal::U32(0)),
                },
            );
            let values = (0..3).map(|_| fresh(kernel, ScalarType::U32)).collect();
            let wide = Stmt::LoadWide {
                values,
                array: MemRef::Shared(Handle::from_index(0)),
                index: i,
            };
            kernel.body.insert(1, wide);
            return ("body[1]".into(), "2 or 4 elements");
        }
        _ => {}
    }
    let at = pick % (kernel.body.len() + 1);
    kernel.body.insert(
        at,
        if pick % 2 == 0 {
            Stmt::Break
        } else {
            Stmt::Continue
        },
    );
    (format!("body[{at}]"), "outside of a loop")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn broken_kernels_are_rejected_at_the_broken_statement(
        choices in proptest::collection::vec(any::<u8>(), 0..2048),
        which in any::<u8>(),
        pick in any::<usize>(),
    ) {
        let mut kernel = random_kernel(&choices);
        prop_assume!(verify(&kernel).is_ok());
        let (path, needle) = break_kernel(&mut kernel, which, pick);
        let err = verify(&kernel).expect_err("a broken kernel must be rejected");
        prop_assert_eq!(&err.path, &path, "{}\n{}", err, kernel);
        prop_assert!(err.message.contains(needle), "expected `{}` in: {}", needle, err);
    }
}

fn one_value_kernel() -> KernelBuilder {
    let mut b = KernelBuilder::new("k", 64);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let i = b.thread_index();
    b.store(out, i, i);
    b
}

#[test]
fn declaration_errors_name_the_declaration() {
    let base = one_value_kernel().finish().expect("valid");
    type Mutation = Box<dyn Fn(&mut Kernel)>;
    let cases: Vec<(Mutation, &str, &str)> = vec![
        (Box::new(|k| k.block_size = 48), "kernel", "multiple of 32"),
        (
            Box::new(|k| k.block_size = 2048),
            "kernel",
            "multiple of 32",
        ),
        (
            Box::new(|k| k.name = "1st".into()),
            "kernel",
            "not an identifier",
        ),
        (
            Box::new(|k| {
                k.shared.append(SharedArray {
                    name: "s".into(),
                    elem: ScalarType::U64,
                    len: 4,
                    align: 4,
                });
            }),
            "shared[0]",
            "at least the element size (8)",
        ),
        (
            Box::new(|k| {
                k.locals.append(LocalVar {
                    name: "out".into(),
                    ty: ScalarType::U32,
                });
            }),
            "locals[0]",
            "declared twice",
        ),
        (
            Box::new(|k| {
                k.params.append(Param {
                    name: "flags".into(),
                    kind: ParamKind::Buffer {
                        elem: ScalarType::Bool,
                        access: Access::ReadOnly,
                    },
                });
            }),
            "params[1]",
            "bool elements",
        ),
    ];
    for (mutate, path, needle) in cases {
        let mut kernel = base.clone();
        mutate(&mut kernel);
        let err = verify(&kernel).expect_err("must be rejected");
        assert_eq!(err.path, path, "{err}");
        assert!(err.message.contains(needle), "{err}");
        assert!(err.to_string().starts_with("kernel `"), "{err}");
    }
}

#[test]
fn values_do_not_escape_their_block() {
    let mut b = KernelBuilder::new("k", 32);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let i = b.thread_index();
    let yes = b.bool(true);
    let mut inner = None;
    b.if_(yes, |b| inner = Some(b.u32(7)));
    b.store(out, i, inner.expect("set by the closure"));
    let err = b.finish().expect_err("the value is out of scope");
    assert_eq!(err.path, "body[3]");
    assert!(
        err.message.contains("outside the block that defines it"),
        "{err}"
    );
}

#[test]
fn nested_paths_read_like_the_issue_example() {
    let mut b = KernelBuilder::new("k", 32);
    let yes = b.bool(true);
    b.if_(yes, |b| {
        let _v = b.u32(1);
        b.break_();
    });
    let err = b.finish().expect_err("break outside a loop");
    assert_eq!(err.path, "body[1].then[1]");
    assert_eq!(
        err.to_string(),
        "kernel `k`, body[1].then[1]: `break` outside of a loop"
    );
}

#[test]
fn byte_loads_read_u32_arrays_only() {
    let mut b = KernelBuilder::new("k", 32);
    let words = b.buffer::<U32>("words", Access::ReadOnly);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let i = b.thread_index();
    let byte = b.load_byte(words, i);
    b.store(out, i, byte);
    let mut kernel = b.finish().expect("a byte of a u32 buffer");
    let text = kernel.to_string();
    assert!(text.contains("= load.u8 global words["), "{text}");
    // The same load from a u8 buffer is refused, with where and why.
    kernel
        .params
        .get_mut(Handle::from_index(0))
        .expect("the words parameter")
        .kind = ParamKind::Buffer {
        elem: ScalarType::U8,
        access: Access::ReadOnly,
    };
    let err = verify(&kernel).expect_err("a byte load of a u8 buffer");
    assert_eq!(err.path, "body[1]", "{err}");
    assert!(
        err.message.contains("reads a u32 array, not one of u8"),
        "{err}"
    );
}

#[test]
fn byte_stores_write_u32_arrays_only() {
    let mut b = KernelBuilder::new("k", 32);
    let out = b.buffer::<U32>("out", Access::ReadWrite);
    let i = b.thread_index();
    b.store_byte(out, i, i);
    let mut kernel = b.finish().expect("a byte of a u32 buffer");
    let text = kernel.to_string();
    assert!(text.contains("store.u8 global out["), "{text}");
    assert_eq!(
        parse_kernel(&text)
            .expect("the text parses back")
            .to_string(),
        text
    );
    kernel
        .params
        .get_mut(Handle::from_index(0))
        .expect("the out parameter")
        .kind = ParamKind::Buffer {
        elem: ScalarType::U16,
        access: Access::ReadWrite,
    };
    let err = verify(&kernel).expect_err("a byte store into a u16 buffer");
    assert_eq!(err.path, "body[1]", "{err}");
    assert!(
        err.message.contains("writes a u32 array, not one of u16"),
        "{err}"
    );
}
