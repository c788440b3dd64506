//! Ordering between blocks through a fence and an atomic, for racecheck's cross-block check: the
//! idiom CUDA documents for a last block that combines the others' results (cuda-samples'
//! `threadFenceReduction`): each block writes its result, executes `__threadfence()` (a
//! device-scope fence) and then an atomic on a counter; the block whose atomic comes last reads
//! every result. In the PTX memory model the fence followed by the atomic is a release pattern, the
//! later atomic on the same location (with the reader's barrier or fence after it) an acquire
//! pattern, so the writes happen before the reads.
//!
//! Tracked per launch: for each global address an atomic touched, the blocks that had executed a
//! device-scope fence before their atomic there, in the order their atomics ran (`release`); per
//! block, each address it made an atomic on with how many releases there were then (`acquire`).
//! A byte another block wrote is ordered before this block's access when that block released at an
//! address before this block's atomic there. An approximation on the generous side, as racecheck's
//! release/acquire within a block: a fence by any thread of the block counts, and writes after the
//! fence are covered too — it can miss a race, never invent one.

use std::collections::HashMap;
use std::sync::Mutex;

/// A global address: buffer and byte offset.
type At = (u32, u64);

/// The launch's releases: per address, the releasing blocks with their order.
#[derive(Debug, Default)]
pub(crate) struct Releases {
    table: Mutex<HashMap<At, HashMap<u32, u32>>>,
}

impl Releases {
    /// A global atomic at `at` by `block`: it releases when the block has fenced; returns how many
    /// releases at `at` precede it (what the block acquires).
    pub fn atomic(&self, at: At, block: u32, fenced: bool) -> u32 {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        let blocks = table.entry(at).or_default();
        let before = blocks.len() as u32;
        if fenced {
            let next = blocks.len() as u32;
            blocks.entry(block).or_insert(next);
        }
        before
    }

    /// Whether `writer` released at an address before `acquired` says this block's atomic there
    /// came: (address, releases then) per address.
    pub fn ordered(&self, writer: u32, acquired: &[(At, u32)]) -> bool {
        if acquired.is_empty() {
            return false;
        }
        let table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        acquired.iter().any(|(at, seen)| {
            table
                .get(at)
                .and_then(|blocks| blocks.get(&writer))
                .is_some_and(|&order| order < *seen)
        })
    }
}

/// A block's side: whether it has fenced, and what it acquired.
#[derive(Debug, Default)]
pub(crate) struct BlockSync {
    pub fenced: bool,
    pub acquired: Vec<(At, u32)>,
}

impl BlockSync {
    /// Records an acquire at `at` of `seen` releases (keeping the most per address).
    pub fn acquire(&mut self, at: At, seen: u32) {
        match self.acquired.iter_mut().find(|(a, _)| *a == at) {
            Some((_, n)) => *n = (*n).max(seen),
            None => self.acquired.push((at, seen)),
        }
    }
}
