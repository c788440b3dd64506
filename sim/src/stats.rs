//! Execution counters, in Nsight Compute's vocabulary, so a GPU measurement can be set beside them:
//! warp-level instructions executed by class, average active threads per warp-instruction (SIMT
//! efficiency), shared-memory wavefronts and bank conflicts (32 banks of 4 bytes), global requests,
//! bytes and 32-byte sectors (coalescing), and barriers. These are a model of the kernel's cost, not a
//! measurement of any GPU.

use std::fmt;
use std::ops::AddAssign;

use serde::{Serialize, Serializer};

/// Counters of one block or of a whole launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Warp-instructions that compute (`let`, assignments).
    pub arithmetic: u64,
    /// Warp-instructions that access shared memory (loads, stores, wide accesses, atomics).
    pub shared: u64,
    /// Warp-instructions that access global memory.
    pub global: u64,
    /// Warp collectives (shuffle, ballot, vote, match, warp_sync).
    pub collective: u64,
    /// Barriers, per warp that reached one.
    pub barrier: u64,
    /// Branches, loop back edges, break / continue / return.
    pub control: u64,
    /// Sum over every warp-instruction of its active lanes.
    pub active_lanes: u64,
    /// Shared-memory wavefronts (one per conflict-free access; k for a k-way bank conflict).
    pub shared_wavefronts: u64,
    /// Extra wavefronts caused by bank conflicts (`shared_wavefronts` minus the conflict-free ideal).
    pub bank_conflicts: u64,
    /// Bytes requested by global loads, stores and atomics (active lanes × access size).
    pub global_bytes: u64,
    /// Distinct 32-byte sectors touched, summed over global warp accesses.
    pub global_sectors: u64,
    /// Barriers the block passed (each counted once per block, not per warp).
    pub barriers: u64,
    /// `f32` warp-instructions with a NaN, an infinity or a negative zero as an operand or result on
    /// some lane. WGSL lets an implementation assume no NaN or infinity occurs and ignore the sign of a
    /// zero, so such a kernel's results may differ on WebGPU (lavapipe answers `x != x` with false for
    /// a NaN and gives `-3.3e-5 * 0.0` as +0.0); CUDA follows IEEE, as the simulator. The IR
    /// simulator counts `f64` operations too (their NaN payloads are not portable either).
    pub f32_special: u64,
}

impl Counters {
    /// What was counted since `before` (an earlier reading of the same counters).
    pub fn since(&self, before: &Counters) -> Counters {
        Counters {
            arithmetic: self.arithmetic - before.arithmetic,
            shared: self.shared - before.shared,
            global: self.global - before.global,
            collective: self.collective - before.collective,
            barrier: self.barrier - before.barrier,
            control: self.control - before.control,
            active_lanes: self.active_lanes - before.active_lanes,
            shared_wavefronts: self.shared_wavefronts - before.shared_wavefronts,
            bank_conflicts: self.bank_conflicts - before.bank_conflicts,
            global_bytes: self.global_bytes - before.global_bytes,
            global_sectors: self.global_sectors - before.global_sectors,
            barriers: self.barriers - before.barriers,
            f32_special: self.f32_special - before.f32_special,
        }
    }

    /// Every warp-instruction executed.
    pub fn warp_instructions(&self) -> u64 {
        self.arithmetic + self.shared + self.global + self.collective + self.barrier + self.control
    }

    /// Average active lanes per warp-instruction divided by 32 (1.0 when no lane ever idles).
    pub fn simt_efficiency(&self) -> f64 {
        match self.warp_instructions() {
            0 => 0.0,
            n => self.active_lanes as f64 / (32.0 * n as f64),
        }
    }

    /// Average 32-byte sectors per global warp-instruction (4 is perfectly coalesced 32-bit access).
    pub fn sectors_per_global_access(&self) -> f64 {
        match self.global {
            0 => 0.0,
            n => self.global_sectors as f64 / n as f64,
        }
    }
}

/// The counters as JSON (`--format json`, `bench --stats --json`): the counters with
/// `warp_instructions` first and `simt_efficiency` after `active_lanes`.
#[derive(Serialize)]
struct CountersJson {
    warp_instructions: u64,
    arithmetic: u64,
    shared: u64,
    global: u64,
    collective: u64,
    barrier: u64,
    control: u64,
    active_lanes: u64,
    simt_efficiency: f64,
    shared_wavefronts: u64,
    bank_conflicts: u64,
    global_bytes: u64,
    global_sectors: u64,
    barriers: u64,
    f32_special: u64,
}

impl Serialize for Counters {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        CountersJson {
            warp_instructions: self.warp_instructions(),
            arithmetic: self.arithmetic,
            shared: self.shared,
            global: self.global,
            collective: self.collective,
            barrier: self.barrier,
            control: self.control,
            active_lanes: self.active_lanes,
            simt_efficiency: self.simt_efficiency(),
            shared_wavefronts: self.shared_wavefronts,
            bank_conflicts: self.bank_conflicts,
            global_bytes: self.global_bytes,
            global_sectors: self.global_sectors,
            barriers: self.barriers,
            f32_special: self.f32_special,
        }
        .serialize(serializer)
    }
}

impl AddAssign<&Counters> for Counters {
    fn add_assign(&mut self, o: &Counters) {
        self.arithmetic += o.arithmetic;
        self.shared += o.shared;
        self.global += o.global;
        self.collective += o.collective;
        self.barrier += o.barrier;
        self.control += o.control;
        self.active_lanes += o.active_lanes;
        self.shared_wavefronts += o.shared_wavefronts;
        self.bank_conflicts += o.bank_conflicts;
        self.global_bytes += o.global_bytes;
        self.global_sectors += o.global_sectors;
        self.barriers += o.barriers;
        self.f32_special += o.f32_special;
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "warp-instructions      {:>12}  (arithmetic {}, shared {}, global {}, collective {}, barrier {}, control {})",
            self.warp_instructions(),
            self.arithmetic,
            self.shared,
            self.global,
            self.collective,
            self.barrier,
            self.control
        )?;
        writeln!(
            f,
            "SIMT efficiency        {:>11.1}%  (average active lanes per warp-instruction / 32)",
            100.0 * self.simt_efficiency()
        )?;
        writeln!(
            f,
            "shared wavefronts      {:>12}  (bank conflicts: {} extra)",
            self.shared_wavefronts, self.bank_conflicts
        )?;
        writeln!(
            f,
            "global bytes           {:>12}  ({} sectors of 32 bytes, {:.2} per access)",
            self.global_bytes,
            self.global_sectors,
            self.sectors_per_global_access()
        )?;
        writeln!(f, "barriers               {:>12}", self.barriers)?;
        write!(
            f,
            "special f32 ops        {:>12}  (NaN, infinity or -0.0 in or out; WebGPU may not honour them)",
            self.f32_special
        )
    }
}

/// Wavefronts of one shared-memory warp access: the lanes' byte addresses (active lanes only) and the
/// access width. Accesses of 8 bytes are served per half-warp and 16 bytes per quarter-warp, as on
/// NVIDIA GPUs; within a phase, k distinct 4-byte words in one bank take k wavefronts. Returns
/// (wavefronts, ideal wavefronts).
pub(crate) fn shared_wavefronts(addrs: &[(u32, u64)], width: u32) -> (u64, u64) {
    let lanes_per_phase: u32 = match width {
        16 => 8,
        8 => 16,
        _ => 32,
    };
    let mut total = 0u64;
    let mut ideal = 0u64;
    for phase in 0..32 / lanes_per_phase {
        let lo = phase * lanes_per_phase;
        let hi = lo + lanes_per_phase;
        let mut words: Vec<u64> = Vec::new();
        for &(_, addr) in addrs.iter().filter(|(l, _)| (lo..hi).contains(l)) {
            let first = addr / 4;
            for w in first..first + u64::from(width.max(4) / 4) {
                words.push(w);
            }
        }
        if words.is_empty() {
            continue;
        }
        words.sort_unstable();
        words.dedup();
        let mut per_bank = [0u64; 32];
        for w in &words {
            per_bank[(w % 32) as usize] += 1;
        }
        total += per_bank.iter().copied().max().unwrap_or(0);
        ideal += 1;
    }
    (total, ideal)
}

/// Distinct 32-byte sectors touched by one global warp access.
pub(crate) fn global_sectors(addrs: &[(u32, u64)], width: u32) -> u64 {
    let mut sectors: Vec<u64> = Vec::with_capacity(addrs.len() * 2);
    for &(_, addr) in addrs {
        sectors.push(addr / 32);
        sectors.push((addr + u64::from(width) - 1) / 32);
    }
    sectors.sort_unstable();
    sectors.dedup();
    sectors.len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bank_conflicts_follow_the_32_bank_model() {
        let linear: Vec<(u32, u64)> = (0..32).map(|l| (l, 4 * u64::from(l))).collect();
        assert_eq!(shared_wavefronts(&linear, 4), (1, 1));
        let strided: Vec<(u32, u64)> = (0..32).map(|l| (l, 128 * u64::from(l))).collect();
        assert_eq!(shared_wavefronts(&strided, 4), (32, 1), "32-way conflict");
        let broadcast: Vec<(u32, u64)> = (0..32).map(|l| (l, 0)).collect();
        assert_eq!(
            shared_wavefronts(&broadcast, 4),
            (1, 1),
            "one word is a broadcast"
        );
        let wide: Vec<(u32, u64)> = (0..32).map(|l| (l, 16 * u64::from(l))).collect();
        assert_eq!(
            shared_wavefronts(&wide, 16),
            (4, 4),
            "16-byte accesses: 4 phases"
        );
        assert_eq!(global_sectors(&linear, 4), 4);
        assert_eq!(global_sectors(&strided, 4), 32);
    }

    #[test]
    fn json_has_the_derived_counters_in_place() {
        let c = Counters {
            arithmetic: 3,
            control: 1,
            active_lanes: 64,
            global_sectors: 7,
            ..Counters::default()
        };
        let json = serde_json::to_value(c).expect("serializes");
        let keys: Vec<&str> = json
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys.len(), 15, "{json}");
        assert_eq!(json["warp_instructions"], 4);
        assert_eq!(json["simt_efficiency"], 0.5);
        assert_eq!(json["global_sectors"], 7);
        let text = serde_json::to_string(&c).expect("serializes");
        assert!(
            text.starts_with(r#"{"warp_instructions":4,"arithmetic":3,"#),
            "{text}"
        );
        assert!(
            text.contains(r#""active_lanes":64,"simt_efficiency":0.5,"shared_wavefronts":0,"#),
            "{text}"
        );
        assert!(text.ends_with(r#""barriers":0,"f32_special":0}"#), "{text}");
    }
}
