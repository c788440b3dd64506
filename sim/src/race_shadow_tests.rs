//! The word shadow against the byte shadow: random accesses of 1 to 8 bytes by the lanes of two
//! warps (reads and writes, plain and strong, several lanes at one instruction writing equal or
//! different values), with barriers and `warp_sync`s between, checked once through one state as
//! they come and once through another byte by byte (1-byte accesses split every word, so it is the
//! byte-level check). Whole-word reads go through the quiet path (`race_quiet.rs`) half the time
//! where it takes them. The first race of each access and its byte must agree.

use crate::race::{RaceState, Region, Touch};

/// xorshift64*: deterministic and enough for shuffling accesses.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn byte_by_byte(
    state: &mut RaceState,
    region: Region,
    addr: u64,
    size: u32,
    t: Touch,
    value: u64,
) -> Option<(crate::race::Race, u64)> {
    let mut found = None;
    for i in 0..u64::from(size) {
        let r = state.check(region, addr + i, 1, t, value >> (8 * i) & 0xff);
        if found.is_none() {
            found = r;
        }
    }
    found
}

#[test]
fn word_records_find_what_byte_records_find() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut races = 0;
    let mut quiet_reads = 0;
    for round in 0..200 {
        let region = if round % 2 == 0 {
            Region::Shared
        } else {
            Region::Global(1)
        };
        let (mut words, mut bytes) = (RaceState::new(64, 2), RaceState::new(64, 2));
        let mut step = 0u64;
        for _ in 0..60 {
            step += 1;
            match rng.below(12) {
                0 => {
                    words.barrier();
                    bytes.barrier();
                    continue;
                }
                1 => {
                    let (warp, mask) = (rng.below(2) as u32, rng.next() as u32 | 1);
                    words.warp_sync(warp, step, mask);
                    bytes.warp_sync(warp, step, mask);
                    continue;
                }
                _ => {}
            }
            let warp = rng.below(2) as u32;
            let size = 1u32 << rng.below(4);
            let write = rng.below(2) == 0;
            let strong = rng.below(4) == 0;
            let pc = rng.below(3) as u32;
            // A few lanes of the warp at one instruction, often at one address.
            let shared_addr = rng.below(64 / u64::from(size)) * u64::from(size);
            for _ in 0..1 + rng.below(3) {
                let lane = rng.below(32) as u32;
                let addr = if rng.below(2) == 0 {
                    shared_addr
                } else {
                    rng.below(64 / u64::from(size)) * u64::from(size)
                };
                // Equal values, or one byte changed (lanes writing different values, the first
                // difference at any byte), or anything.
                let value = match rng.below(3) {
                    0 => 0x0102_0304_0506_0708,
                    1 => 0x0102_0304_0506_0708 ^ (1 + rng.below(255)) << (8 * rng.below(8)),
                    _ => rng.next(),
                } & if size == 8 {
                    u64::MAX
                } else {
                    (1 << (8 * size)) - 1
                };
                let t = Touch {
                    thread: warp * 32 + lane,
                    pc,
                    step,
                    write,
                    strong,
                    value: 0,
                };
                // A whole-word read, half the time through the quiet path (stamps and the log)
                // where every word it reads is quiet, as `exec_mem_checked.rs` takes it.
                let quiet = !write
                    && size >= 4
                    && rng.below(2) == 0
                    && (words.unwritten(region)
                        || (0..u64::from(size) / 4)
                            .all(|w| words.quiet_read(region, addr / 4 + w, t.thread, strong)));
                let got = if quiet {
                    let n = u64::from(size) / 4;
                    if region == Region::Shared {
                        let mut offsets = [0; 32];
                        offsets[lane as usize] = addr;
                        words.log_shared_load(warp, 1 << lane, pc, step, strong, n, &offsets);
                    } else {
                        for w in 0..n {
                            let lanes = 1 << lane;
                            words.record_read(region, addr / 4 + w, warp, lanes, pc, step, strong);
                        }
                    }
                    None
                } else {
                    words.check(region, addr, size, t, value)
                };
                quiet_reads += usize::from(quiet);
                let want = byte_by_byte(&mut bytes, region, addr, size, t, value);
                assert_eq!(
                    got, want,
                    "round {round}, step {step}: {size} bytes at {addr}"
                );
                races += usize::from(got.is_some());
            }
        }
    }
    assert!(
        races > 100,
        "the accesses must race often enough to test it ({races})"
    );
    assert!(
        quiet_reads > 100,
        "reads must take the quiet path often enough ({quiet_reads})"
    );
}
