//! Constants asked for inside a loop are defined once, in front of the body (a GPU folds constants
//! into the instructions that use them; a statement inside a loop would be emitted and counted on every
//! iteration): one definition per distinct constant, shared by every loop, the loop bodies without
//! any, constants outside loops left where they are, and the source positions moved with their
//! statements.

use warpforge_ir::builder::{KernelBuilder, U32};
use warpforge_ir::{Access, Expr, Kernel, Literal, Stmt};

/// `data[i] = i * 3 + 7` for `i` in `0..n`, stepping by 32, with the constants asked for inside the
/// loop (3 and 7 twice), a constant outside it (0) and positions on every line.
fn looped() -> Kernel {
    let mut b = KernelBuilder::new("looped", 32);
    let data = b.buffer::<U32>("data", Access::ReadWrite);
    let n = b.scalar_param::<U32>("n");
    b.set_loc("src/k.rs", 3, 5);
    let n = b.param(n); // body[2] after hoisting (3 and 7 go in front)
    let zero = b.u32(0);
    let i = b.local::<U32>("i");
    let lane = b.lane_id();
    b.assign(i, lane);
    b.loop_(|b| {
        b.set_loc("src/k.rs", 6, 9);
        let at = b.read(i); // body[7].loop[0]
        let done = b.ge(at, n);
        b.if_(done, |b| b.break_());
        let three = b.u32(3);
        let seven = b.u32(7);
        let x = b.mul(at, three);
        let x = b.add(x, seven);
        let seven_again = b.u32(7);
        let x = b.add(x, seven_again);
        let x = b.sub(x, seven_again);
        b.store(data, at, x);
        let step = b.u32(32);
        let next = b.add(at, step);
        b.assign(i, next);
    });
    b.store(data, n, zero);
    b.finish().expect("verifies")
}

fn literal(stmt: &Stmt) -> Option<Literal> {
    match stmt {
        Stmt::Let {
            expr: Expr::Literal(l),
            ..
        } => Some(*l),
        _ => None,
    }
}

#[test]
fn constants_inside_loops_are_defined_once_in_front_of_the_body() {
    let k = looped();
    let front: Vec<Literal> = k.body.iter().map_while(literal).collect();
    assert_eq!(
        front,
        [Literal::U32(3), Literal::U32(7), Literal::U32(32)],
        "one definition per distinct constant, in the order first asked for"
    );
    let Some(Stmt::Loop { body }) = k.body.iter().find(|s| matches!(s, Stmt::Loop { .. })) else {
        panic!("the loop");
    };
    assert!(
        body.iter().all(|s| literal(s).is_none()),
        "no constant left in the loop"
    );
    let outside = k.body[front.len()..]
        .iter()
        .filter_map(literal)
        .collect::<Vec<_>>();
    assert_eq!(
        outside,
        [Literal::U32(0)],
        "the constant outside the loop stays"
    );
}

#[test]
fn source_positions_move_with_their_statements() {
    let k = looped();
    let text = k.to_string();
    // Every recorded position names a statement that exists, and the loop's first statement keeps
    // line 6 at its new path.
    let loop_at = k
        .body
        .iter()
        .position(|s| matches!(s, Stmt::Loop { .. }))
        .expect("the loop");
    assert_eq!(
        k.locs
            .get(&format!("body[{loop_at}].loop[0]"))
            .map(ToString::to_string)
            .as_deref(),
        Some("src/k.rs:6:9"),
        "{text}"
    );
    assert_eq!(
        k.locs.get("body[0]"),
        None,
        "a hoisted constant has no position"
    );
    assert_eq!(
        k.locs.get("body[3]").map(ToString::to_string).as_deref(),
        Some("src/k.rs:3:5"),
        "the first statement pushed (the parameter), three constants down"
    );
}
