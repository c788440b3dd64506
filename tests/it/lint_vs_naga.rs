//! warpforge's barrier rule against naga's uniformity analysis, on random kernels.
//!
//! naga 30 gives no verdict on barriers (it records the requirement and reports nothing), so the
//! comparison is on what decides the rule: for every `if` that guards a barrier, is its condition
//! uniform? warpforge answers with its CFG divergence analysis (block scope) on the IR; naga with its
//! per-expression uniformity on the WGSL warpforge emits for the same kernel. Every disagreement must
//! fall into one of the documented categories (README, *Lint*); anything else fails the test.

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRng, TestRunner};
use warpforge::analysis::divergence::{divergence, Scope};
use warpforge::analysis::ir_front::program_of;
use warpforge::ir::random::random_kernel_without;
use warpforge::ir::{verify, Expr, Kernel, MemRef, ScalarType, ShuffleMode, Stmt, Value, WarpOp};

/// What a value (transitively) depends on, as far as the two analyses differ.
#[derive(Default)]
struct Sources {
    local: bool,
    shared_memory: bool,
    f32_constant: bool,
    warp_result: bool,
}

/// The statement that defines each value.
fn definitions(block: &[Stmt], out: &mut HashMap<usize, Stmt>) {
    for stmt in block {
        let defined: Vec<Value> = match stmt {
            Stmt::Let { value, .. }
            | Stmt::Load { value, .. }
            | Stmt::LoadByte { value, .. }
            | Stmt::Atomic { value, .. } => vec![*value],
            Stmt::LoadWide { values, .. } => values.clone(),
            Stmt::Warp(op) => match op {
                WarpOp::Shuffle { value, .. }
                | WarpOp::Ballot { value, .. }
                | WarpOp::Vote { value, .. }
                | WarpOp::MatchAny { value, .. } => vec![*value],
                WarpOp::Sync { .. } => vec![],
            },
            Stmt::If {
                then_block,
                else_block,
                ..
            } => {
                definitions(then_block, out);
                definitions(else_block, out);
                vec![]
            }
            Stmt::Loop { body } => {
                definitions(body, out);
                vec![]
            }
            _ => vec![],
        };
        for v in defined {
            out.insert(v.index(), stmt.clone());
        }
    }
}

fn sources(
    k: &Kernel,
    defs: &HashMap<usize, Stmt>,
    v: Value,
    seen: &mut Vec<bool>,
    s: &mut Sources,
) {
    if std::mem::replace(&mut seen[v.index()], true) {
        return;
    }
    let Some(stmt) = defs.get(&v.index()) else {
        return;
    };
    let mut visit = |u: Value, s: &mut Sources| sources(k, defs, u, seen, s);
    match stmt {
        Stmt::Let { expr, value } => {
            match expr {
                Expr::Local(_) => s.local = true,
                Expr::Literal(_) if k.values[*value].ty == ScalarType::F32 => s.f32_constant = true,
                _ => {}
            }
            for u in warpforge::ir::typing::expr_operands(expr) {
                visit(u, s);
            }
        }
        Stmt::Load { array, index, .. }
        | Stmt::LoadByte { array, index, .. }
        | Stmt::LoadWide { array, index, .. } => {
            s.shared_memory |= matches!(array, MemRef::Shared(_));
            visit(*index, s);
        }
        Stmt::Atomic { array, index, .. } => {
            s.shared_memory |= matches!(array, MemRef::Shared(_));
            visit(*index, s);
        }
        Stmt::Warp(op) => {
            s.warp_result = true;
            if let WarpOp::Shuffle {
                mode: ShuffleMode::Index,
                lane,
                ..
            } = op
            {
                visit(*lane, s);
            }
        }
        _ => {}
    }
}

fn contains_barrier(block: &[Stmt]) -> bool {
    block.iter().any(|s| match s {
        Stmt::Barrier => true,
        Stmt::If {
            then_block,
            else_block,
            ..
        } => contains_barrier(then_block) || contains_barrier(else_block),
        Stmt::Loop { body } => contains_barrier(body),
        _ => false,
    })
}

/// Conditions of `if`s guarding a barrier.
fn guards(block: &[Stmt], out: &mut Vec<Value>) {
    for stmt in block {
        match stmt {
            Stmt::If {
                cond,
                then_block,
                else_block,
            } => {
                if contains_barrier(then_block) || contains_barrier(else_block) {
                    out.push(*cond);
                }
                guards(then_block, out);
                guards(else_block, out);
            }
            Stmt::Loop { body } => guards(body, out),
            _ => {}
        }
    }
}

#[test]
fn barrier_guards_agree_with_naga_or_differ_for_documented_reasons() {
    let tally: std::cell::RefCell<BTreeMap<&'static str, usize>> = Default::default();
    // A fixed seed: divergent barrier guards are rare in random kernels (1 to 9 in 400 with a
    // random seed, sometimes none, which made the count check below flaky).
    let config = ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(400),
    );
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&proptest::collection::vec(any::<u8>(), 0..2048), |choices| {
        // WGSL has no f64 (its emitters refuse it, tested in `f64_generic.rs`).
        let kernel = random_kernel_without(&choices, &[ScalarType::F64]);
        let verified = verify(&kernel).expect("random kernels verify");
        let naga = warpforge::wgsl::naga_value_uniformity(&verified).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let program = program_of(&verified);
        let ours = divergence(&program, Scope::Block);
        let mut defs = HashMap::new();
        definitions(&kernel.body, &mut defs);
        let mut conds = Vec::new();
        guards(&kernel.body, &mut conds);
        for cond in conds {
            let ours_uniform = !ours.var_divergent(cond.index());
            let naga_uniform = naga[cond.index()].unwrap_or(true);
            let mut s = Sources::default();
            sources(&kernel, &defs, cond, &mut vec![false; kernel.values.len()], &mut s);
            let category = match (ours_uniform, naga_uniform) {
                (true, true) => "agree: uniform",
                (false, false) => "agree: divergent",
                (true, false) if s.local => "naga: every function variable is non-uniform (warpforge tracks locals)",
                (true, false) if s.f32_constant => "naga: f32 constants are read from a variable (see warpforge-wgsl)",
                (true, false) if s.warp_result => "naga: emulated warp results are loaded at a per-lane index",
                (false, true) if s.shared_memory => "naga: workgroup memory counts as uniform (not in the WGSL spec)",
                _ => {
                    return Err(TestCaseError::fail(format!(
                        "unexplained disagreement on %{} (warpforge uniform: {ours_uniform}, naga uniform: {naga_uniform}):\n{kernel}",
                        cond.index()
                    )))
                }
            };
            *tally.borrow_mut().entry(category).or_default() += 1;
        }
        Ok(())
    });
    let tally = tally.into_inner();
    eprintln!("barrier guards compared with naga: {tally:#?}");
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(
        tally.get("agree: divergent").copied().unwrap_or(0) > 0,
        "the random kernels exercise divergent guards"
    );
}
