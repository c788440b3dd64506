//! The whole operation × type × backend table: every unary and binary operator, comparison,
//! conversion, `select`, `mul_wide`, `mul_add`, load and store at every scalar type (`f16`, `bf16`
//! and `f64` included; and every pair of types for conversions) either verifies and emits code each
//! target accepts — PTX that ptxas assembles for sm_70, sm_80 and sm_90, WGSL, SPIR-V, MSL and HLSL
//! that naga validates — or is refused: by the verifier with a message naming the statement, or
//! (`f64`, which WGSL lacks) by the WGSL emitters naming the place and the missing capability. No combination emits invalid code.
//! (Each row is a kernel in the text form; ptxas sees one kernel holding every accepted row.)

use crate::common;

use warpforge::ptx::Sm;
use warpforge::wgsl::{emit_target, ShaderTarget};
use warpforge_ir::{
    typing::{binary_type, cast_type, unary_type},
    verify, BinaryOp, CastKind, CmpOp, Kernel, ScalarType, UnaryOp,
};

/// One combination: the expression (operands `%a`, `%b`, `%c`), its operand types and its result.
struct Row {
    what: String,
    expr: String,
    operands: Vec<ScalarType>,
    result: ScalarType,
}

/// A combination the typing rules refuse: its expression, operand types, result type and name.
type Refused = (String, Vec<ScalarType>, ScalarType, String);

/// Every accepted row, and the combinations the typing rules refuse (checked against the verifier).
fn rows() -> (Vec<Row>, Vec<Refused>) {
    let (mut ok, mut refused) = (Vec::new(), Vec::new());
    let mut add = |what: String,
                   expr: String,
                   operands: Vec<ScalarType>,
                   typed: Result<ScalarType, String>,
                   result: ScalarType| match typed {
        Ok(r) => ok.push(Row {
            what,
            expr,
            operands,
            result: r,
        }),
        Err(_) => refused.push((expr, operands, result, what)),
    };
    for &t in &ScalarType::ALL {
        for &op in UnaryOp::ALL {
            let typed = unary_type(op, t);
            let result = typed.clone().unwrap_or(t);
            add(
                format!("{} {t}", op.name()),
                format!("{} %a", op.name()),
                vec![t],
                typed,
                result,
            );
        }
        for &op in BinaryOp::ALL {
            let rhs = if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                ScalarType::U32
            } else {
                t
            };
            let typed = binary_type(op, t, rhs);
            let result = typed.clone().unwrap_or(t);
            add(
                format!("{} {t}", op.name()),
                format!("{} %a, %b", op.name()),
                vec![t, rhs],
                typed,
                result,
            );
        }
        for &op in CmpOp::ALL {
            let typed = if t == ScalarType::Bool || t.is_half() {
                Err("bool or a half".into())
            } else {
                Ok(ScalarType::Bool)
            };
            add(
                format!("cmp {} {t}", op.name()),
                format!("cmp {} %a, %b", op.name()),
                vec![t, t],
                typed,
                ScalarType::Bool,
            );
        }
        add(
            format!("select {t}"),
            "select %c, %a, %b".into(),
            vec![t, t, ScalarType::Bool],
            Ok(t),
            t,
        );
        for &to in &ScalarType::ALL {
            for &kind in CastKind::ALL {
                let typed = cast_type(kind, t, to);
                add(
                    format!("{} {t} -> {to}", kind.name()),
                    format!("{} %a", kind.name()),
                    vec![t],
                    typed,
                    to,
                );
            }
        }
    }
    for t in [ScalarType::U32, ScalarType::I32] {
        let wide = if t == ScalarType::U32 {
            ScalarType::U64
        } else {
            ScalarType::I64
        };
        add(
            format!("mul_wide {t}"),
            "mul_wide %a, %b".into(),
            vec![t, t],
            Ok(wide),
            wide,
        );
    }
    for &f in &ScalarType::ALL {
        let typed = if matches!(f, ScalarType::F32 | ScalarType::F64) {
            Ok(f)
        } else {
            Err(format!("mul_add {f}"))
        };
        add(
            format!("mul_add {f}"),
            "mul_add %a, %b, %c".into(),
            vec![f, f, f],
            typed,
            f,
        );
    }
    (ok, refused)
}

/// The text of a kernel computing `rows` (each from loads of its operand types; `bool` operands
/// compare a `u32` with zero, a `bool` result is stored as 0 or 1).
fn kernel_text(name: &str, rows: &[&Row]) -> String {
    let mut text = format!("kernel {name} {{\n    block_size 32\n");
    // One buffer in and one out of every type memory can hold that the rows use (and `u32`).
    let used = |t: ScalarType| {
        t == ScalarType::U32
            || rows
                .iter()
                .any(|r| r.result == t || r.operands.contains(&t))
    };
    for t in ScalarType::ALL
        .into_iter()
        .filter(|&t| t.size_bytes().is_some() && used(t))
    {
        text += &format!(
            "    param in_{t}: global {t} read\n    param out_{t}: global {t} read_write\n"
        );
    }
    text += "    %0: u32 = special thread_index\n    %1: u32 = const 0\n    %2: u32 = const 1\n";
    let mut next = 3;
    let mut fresh = || {
        next += 1;
        next - 1
    };
    for row in rows {
        let mut names = Vec::new();
        for &t in &row.operands {
            let v = if t == ScalarType::Bool {
                let (raw, b) = (fresh(), fresh());
                text += &format!("    %{raw}: u32 = load global in_u32[%0]\n    %{b}: bool = cmp ne %{raw}, %1\n");
                b
            } else {
                let v = fresh();
                text += &format!("    %{v}: {t} = load global in_{t}[%0]\n");
                v
            };
            names.push(format!("%{v}"));
        }
        // `%a, %b, %c` are the operands in order, except `select %c, %a, %b` (its condition last).
        let mut expr = row.expr.clone();
        for (k, letter) in ["%a", "%b", "%c"].iter().enumerate() {
            if let Some(name) = names.get(k) {
                expr = expr.replace(letter, name);
            }
        }
        let r = fresh();
        text += &format!("    %{r}: {} = {expr}\n", row.result);
        if row.result == ScalarType::Bool {
            let s = fresh();
            text += &format!(
                "    %{s}: u32 = select %{r}, %2, %1\n    store global out_u32[%0], %{s}\n"
            );
        } else {
            text += &format!("    store global out_{}[%0], %{r}\n", row.result);
        }
    }
    text + "}\n"
}

fn parse(text: &str) -> Kernel {
    text.parse()
        .unwrap_or_else(|e| panic!("the table's kernel parses: {e}\n{text}"))
}

#[test]
fn every_accepted_combination_emits_valid_code_for_every_target() {
    let (rows, refused) = rows();
    let mut refused_at_emit = 0;
    for row in &rows {
        let kernel = parse(&kernel_text("row", &[row]));
        let verified = verify(&kernel).unwrap_or_else(|e| panic!("{}: {e}", row.what));
        for sm in Sm::ALL {
            warpforge::ptx::emit(&verified, sm)
                .unwrap_or_else(|e| panic!("{} PTX {sm}: {e}", row.what));
        }
        let f64_row = row.result == ScalarType::F64 || row.operands.contains(&ScalarType::F64);
        if f64_row {
            // WGSL has no f64: refused at emit time, naming the place and the capability.
            let err = warpforge::wgsl::emit(&verified)
                .expect_err(&row.what)
                .to_string();
            assert!(
                err.contains("f64 is not a WGSL type"),
                "{}: {err}",
                row.what
            );
            refused_at_emit += 1;
            continue;
        }
        warpforge::wgsl::emit(&verified).unwrap_or_else(|e| panic!("{} WGSL: {e}", row.what));
        for target in [ShaderTarget::SpirV, ShaderTarget::Msl, ShaderTarget::Hlsl] {
            emit_target(&verified, target).unwrap_or_else(|e| panic!("{} {target}: {e}", row.what));
        }
    }
    common::say(&format!(
        "op table: {} combinations emit for PTX (3 targets), {} of them also for WGSL, SPIR-V, MSL and HLSL (the other {refused_at_emit}, holding f64, are refused by those emitters naming the place); {} are refused by the verifier",
        rows.len(),
        rows.len() - refused_at_emit,
        refused.len()
    ));
    let Some(ptxas) =
        common::ptxas_or_skip("every_accepted_combination_emits_valid_code_for_every_target")
    else {
        return;
    };
    let all: Vec<&Row> = rows.iter().collect();
    let kernel = parse(&kernel_text("table", &all));
    let verified = verify(&kernel).expect("the table kernel verifies");
    for sm in Sm::ALL {
        let ptx = warpforge::ptx::emit(&verified, sm).expect("emits");
        ptxas
            .assemble(&ptx.text, sm)
            .unwrap_or_else(|e| panic!("{sm}: {e}"));
    }
}

#[test]
fn every_refused_combination_is_refused_by_the_verifier_at_its_statement() {
    let (_, refused) = rows();
    assert!(
        refused.len() > 100,
        "the table covers the refused combinations too"
    );
    for (expr, operands, result, what) in &refused {
        let row = Row {
            what: what.clone(),
            expr: expr.clone(),
            operands: operands.clone(),
            result: *result,
        };
        let text = kernel_text("refused", &[&row]);
        // Refused by the parser (naming the line) or by the verifier (naming the statement).
        match text.parse::<Kernel>() {
            Err(e) => {
                let e = e.to_string();
                assert!(
                    e.contains("line"),
                    "{what}: the parse error names the line: {e}"
                );
            }
            Ok(kernel) => {
                let err = verify(&kernel).expect_err(what).to_string();
                assert!(
                    err.contains("body["),
                    "{what}: the error names the statement: {err}"
                );
            }
        }
    }
}
