//! `.func` device functions and `call`: each function's body is summarised (does it, or anything it
//! calls, reach a block barrier or a full-mask warp collective?), and a `call` to it counts at the call
//! site as that barrier or collective — so a `__syncthreads()` inside a device function called under a
//! divergent branch is B001. A call's return values are divergent (loaded from the callee's frame).

use std::collections::{HashMap, HashSet};

use warpforge_ptx::isa::{Modifier, Opcode};

use super::literals::parse_imm;
use super::text::Stmt;

/// What a device function reaches, with the functions it calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct FuncSummary {
    /// A block barrier (`bar.sync`, `barrier.sync`, `bar.red`, …).
    pub barrier: bool,
    /// A warp collective or warp sync with the full mask.
    pub warp_sync: bool,
    callees: HashSet<String>,
}

/// The callee named by a `call` statement's operands (`(ret), name, (args)` or `name, (args)`).
pub(super) fn callee(args: &str) -> Option<String> {
    let mut depth = 0;
    let mut outside = String::new();
    for c in args.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    outside
        .split(',')
        .map(str::trim)
        .find(|w| !w.is_empty())
        .map(str::to_owned)
}

fn is_full(mask: &str) -> bool {
    parse_imm(mask.trim()).is_some_and(|m| m as u32 == u32::MAX) || mask.trim().starts_with('%')
}

/// Summaries of every `.func` with a body, closed over the calls between them.
pub(super) fn summaries(stmts: &[Stmt]) -> HashMap<String, FuncSummary> {
    let mut out: HashMap<String, FuncSummary> = HashMap::new();
    let mut i = 0;
    while i < stmts.len() {
        let text = &stmts[i].text;
        let Some(pos) = text.find(".func") else {
            i += 1;
            continue;
        };
        // `.func (.param .b32 r) name(`: the name follows the optional return list.
        let header = text[pos + 5..].trim_start();
        let header = if header.starts_with('(') {
            header.split_once(')').map_or("", |(_, rest)| rest)
        } else {
            header
        };
        let name = header
            .trim()
            .split(['(', ' ', '\n'])
            .next()
            .unwrap_or_default()
            .to_owned();
        i += 1;
        while i < stmts.len() && stmts[i].text != "{" && !stmts[i].text.contains(".func") {
            i += 1;
        }
        if i >= stmts.len() || stmts[i].text != "{" {
            continue; // a declaration without a body (`.extern .func`)
        }
        let mut summary = FuncSummary::default();
        let mut depth = 0;
        while i < stmts.len() {
            let t = stmts[i].text.as_str();
            match t {
                "{" => depth += 1,
                "}" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {
                    let Some(p) = &stmts[i].inst else {
                        i += 1;
                        continue;
                    };
                    let warp = p.mods.contains(&Modifier::Warp);
                    let last = p.ops.last().map_or("", String::as_str);
                    match p.opcode {
                        Opcode::Bar | Opcode::Barrier if warp => {
                            summary.warp_sync |= is_full(p.ops.first().map_or("-1", String::as_str))
                        }
                        Opcode::Bar | Opcode::Barrier => summary.barrier = true,
                        Opcode::Shfl | Opcode::Vote | Opcode::Match | Opcode::Redux => {
                            summary.warp_sync |= is_full(last)
                        }
                        Opcode::Call => {
                            if let Some(c) = callee(&p.ops.join(", ")) {
                                summary.callees.insert(c);
                            }
                        }
                        _ => {}
                    }
                }
            }
            i += 1;
        }
        if !name.is_empty() {
            out.insert(name, summary);
        }
        i += 1;
    }
    // Close over calls: a function reaches what its callees reach.
    loop {
        let mut changed = false;
        let names: Vec<String> = out.keys().cloned().collect();
        for name in names {
            let callees = out[&name].callees.clone();
            let (mut barrier, mut warp_sync) = (out[&name].barrier, out[&name].warp_sync);
            for c in callees {
                if let Some(s) = out.get(&c) {
                    barrier |= s.barrier;
                    warp_sync |= s.warp_sync;
                }
            }
            let s = out.get_mut(&name).expect("present");
            if (barrier, warp_sync) != (s.barrier, s.warp_sync) {
                (s.barrier, s.warp_sync) = (barrier, warp_sync);
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}
