//! One finding per cause for what cannot be proven.
//!
//! A kernel whose index is bounded only by something the analysis cannot see (a 2-D block's
//! `%tid.y`, a thread rank linearised over three dimensions) gets the same "cannot prove" warning on
//! every access to the array: 33 of them in a tiled matmul. Those warnings are one finding: the first
//! access carries it, the others are listed in [`Diagnostic::also`]. Errors are never grouped.

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;
use crate::rule::{Rule, Severity};

/// The grouping key of a "cannot prove" warning: kernel, rule and the message up to its details
/// (`cannot prove this access stays inside `As` (1024 bytes)`), or `None` for every other finding.
fn key(d: &Diagnostic) -> Option<(String, Rule, String)> {
    let unproven = d.severity == Severity::Warning
        && matches!(d.rule, Rule::S001 | Rule::A001)
        && d.message.starts_with("cannot prove");
    unproven.then(|| {
        let head = d.message.split(": ").next().unwrap_or_default();
        (d.kernel.clone(), d.rule, head.to_owned())
    })
}

/// Groups the "cannot prove" warnings of each kernel, rule and array into their first finding
/// (`out` is sorted by location, so the first is the earliest); the rest keep their order.
pub(crate) fn group_unproven(out: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut first: BTreeMap<(String, Rule, String), usize> = BTreeMap::new();
    let mut kept: Vec<Diagnostic> = Vec::with_capacity(out.len());
    for d in out {
        let Some(k) = key(&d) else {
            kept.push(d);
            continue;
        };
        match first.get(&k) {
            Some(&i) => {
                // The first finding says the worst range of the group.
                if d.message.ends_with("an unbounded offset")
                    && !kept[i].message.ends_with("an unbounded offset")
                {
                    kept[i].message = d.message.clone();
                }
                kept[i].also.push(d.location);
            }
            None => {
                first.insert(k, kept.len());
                kept.push(d);
            }
        }
    }
    kept
}
