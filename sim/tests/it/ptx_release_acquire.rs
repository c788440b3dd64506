//! racecheck and release/acquire: a producer writes data with a plain store, then releases a flag
//! (`st.release`, or an `atom`/`red` with `.release`/`.acq_rel`); a consumer spins on the flag with
//! an acquire (`ld.acquire`, `atom.acquire`/`.acq_rel`) and then reads the data with a plain load.
//! The PTX memory model orders the data write before the read (the release synchronises with the
//! acquire that reads its value), so there is no race — this is how libcu++'s sm_70 `cuda::barrier`
//! hands a tile from one warp to another. Without the release or the acquire (`.relaxed` instead),
//! or with the release on another word than the acquire, the data accesses are unordered: a race.

use crate::common::ptx::{run_out, shape};
use warpforge_sim::{Finding, FindingKind, SimOptions};

/// One producer/consumer pair in shared or global memory.
struct Case<'a> {
    /// `.shared` or `.global`.
    space: &'a str,
    /// The thread of warp 1 that stores 42 to the data word (plain).
    data_thread: u32,
    /// What warp 1 does between the data store and the flag write (e.g. `bar.warp.sync -1;`).
    producer_sync: &'a str,
    /// Thread 32's flag write (`{flag}`, `{flag2}`: the words; `%r4` holds 1).
    release: &'a str,
    /// Thread 0's flag read into `%r6`, repeated until non-zero.
    acquire: &'a str,
    /// What warp 0 does after thread 0's spin.
    consumer_sync: &'a str,
    /// The thread of warp 0 that reads the data and stores it to the output.
    read_thread: u32,
}

impl Case<'_> {
    fn kernel(&self) -> String {
        let (flag, flag2, data) = match self.space {
            ".shared" => ("[s_flag]", "[s_flag2]", "[s_data]"),
            _ => ("[%rd1+12]", "[%rd1+4]", "[%rd1+8]"),
        };
        let fill = |s: &str| {
            s.replace("{sp}", self.space)
                .replace("{flag}", flag)
                .replace("{flag2}", flag2)
        };
        format!(
            "\
.version 7.8
.target sm_80
.address_size 64

.visible .entry relacq(.param .u64 out)
{{
    .reg .pred %p<8>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .shared .align 4 .b32 s_flag[1];
    .shared .align 4 .b32 s_flag2[1];
    .shared .align 4 .b32 s_data[1];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r9, 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra STARTED;
    st{sp}.u32 {flag}, %r9;
    st{sp}.u32 {flag2}, %r9;
STARTED:
    bar.sync 0;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra CONSUMER;
    setp.ne.u32 %p2, %r1, {data_thread};
    @%p2 bra SKIPDATA;
    mov.u32 %r2, 42;
    st{sp}.u32 {data}, %r2;
SKIPDATA:
    {producer_sync}
    setp.ne.u32 %p3, %r1, 32;
    @%p3 bra DONE;
    mov.u32 %r4, 1;
    {release};
    bra.uni DONE;
CONSUMER:
    setp.ne.u32 %p4, %r1, 0;
    @%p4 bra AFTERSPIN;
    mov.u32 %r8, 0;
SPIN:
    {acquire};
    add.u32 %r8, %r8, 1;
    setp.eq.u32 %p5, %r6, 0;
    setp.lt.u32 %p6, %r8, 100000;
    and.pred %p5, %p5, %p6;
    @%p5 bra SPIN;
AFTERSPIN:
    {consumer_sync}
    setp.ne.u32 %p7, %r1, {read_thread};
    @%p7 bra DONE;
    ld{sp}.u32 %r3, {data};
    st.global.u32 [%rd1], %r3;
DONE:
    ret;
}}
",
            sp = self.space,
            flag = flag,
            flag2 = flag2,
            data_thread = self.data_thread,
            producer_sync = self.producer_sync,
            release = fill(self.release),
            acquire = fill(self.acquire),
            consumer_sync = self.consumer_sync,
            read_thread = self.read_thread,
        )
    }

    /// Runs one block of 64 threads: the value the reader saw and the findings.
    fn run(&self) -> (u32, Vec<Finding>) {
        let text = self.kernel();
        let options = SimOptions::default();
        let (report, out) = run_out(&text, "relacq", &shape(1, 64), 16, &[], &options);
        let seen = u32::from_le_bytes(out[..4].try_into().expect("4 bytes"));
        (seen, report.findings)
    }

    /// Whether racecheck reports the data read (`%r3`) as racing.
    fn data_race(findings: &[Finding]) -> bool {
        findings.iter().any(|f| {
            matches!(f.kind, FindingKind::SharedRace | FindingKind::GlobalRace)
                && f.statement.contains("%r3")
        })
    }
}

const RELEASES: [&str; 5] = [
    "st.release.cta{sp}.u32 {flag}, %r4",
    "st.release.gpu{sp}.u32 {flag}, %r4",
    "atom.release.cta{sp}.exch.b32 %r5, {flag}, %r4",
    "atom.acq_rel.cta{sp}.add.u32 %r5, {flag}, %r4",
    "red.release.cta{sp}.add.u32 {flag}, %r4",
];
const ACQUIRES: [&str; 3] = [
    "ld.acquire.cta{sp}.u32 %r6, {flag}",
    "atom.acquire.cta{sp}.or.b32 %r6, {flag}, 0",
    "atom.acq_rel.gpu{sp}.add.u32 %r6, {flag}, 0",
];

fn case<'a>(space: &'a str, release: &'a str, acquire: &'a str) -> Case<'a> {
    Case {
        space,
        data_thread: 32,
        producer_sync: "",
        release,
        acquire,
        consumer_sync: "",
        read_thread: 0,
    }
}

#[test]
fn a_release_read_by_an_acquire_orders_the_data() {
    for space in [".shared", ".global"] {
        for release in RELEASES {
            for acquire in ACQUIRES {
                let (seen, findings) = case(space, release, acquire).run();
                assert_eq!(seen, 42, "`{release}` / `{acquire}` ({space})");
                assert!(
                    findings.is_empty(),
                    "`{release}` / `{acquire}` ({space}): {findings:#?}"
                );
            }
        }
    }
}

#[test]
fn without_the_release_or_the_acquire_the_data_races() {
    for space in [".shared", ".global"] {
        for (release, acquire) in [
            (
                "st.release.cta{sp}.u32 {flag}, %r4",
                "ld.relaxed.cta{sp}.u32 %r6, {flag}",
            ),
            (
                "st.relaxed.cta{sp}.u32 {flag}, %r4",
                "ld.acquire.cta{sp}.u32 %r6, {flag}",
            ),
            (
                "atom.relaxed.cta{sp}.exch.b32 %r5, {flag}, %r4",
                "ld.acquire.cta{sp}.u32 %r6, {flag}",
            ),
            (
                "red.relaxed.cta{sp}.add.u32 {flag}, %r4",
                "atom.acq_rel.cta{sp}.add.u32 %r6, {flag}, 0",
            ),
            (
                "atom.acq_rel.cta{sp}.exch.b32 %r5, {flag}, %r4",
                "atom.relaxed.cta{sp}.or.b32 %r6, {flag}, 0",
            ),
        ] {
            let (seen, findings) = case(space, release, acquire).run();
            assert_eq!(seen, 42, "`{release}` / `{acquire}` ({space})");
            assert!(
                Case::data_race(&findings),
                "`{release}` / `{acquire}` ({space}) should race: {findings:#?}"
            );
        }
    }
}

#[test]
fn a_release_to_another_word_does_not_order_the_data() {
    // The release goes to `flag2`; the flag the consumer acquires is set with a relaxed store.
    let release = "st.release.cta{sp}.u32 {flag2}, %r4; st.relaxed.cta{sp}.u32 {flag}, %r4";
    for space in [".shared", ".global"] {
        let (seen, findings) = case(space, release, ACQUIRES[0]).run();
        assert_eq!(seen, 42, "{space}");
        assert!(Case::data_race(&findings), "{space}: {findings:#?}");
    }
}

/// libcu++'s shape: another lane of the producer warp writes the data, a `__syncwarp` orders it
/// before lane 0's release; lane 0 of the consumer warp spins, a `__syncwarp` orders its acquire
/// before another lane's read. Either `__syncwarp` missing leaves the data unordered.
#[test]
fn warp_syncs_carry_the_order_to_and_from_other_lanes() {
    let release = "atom.acq_rel.cta{sp}.add.u32 %r5, {flag}, %r4";
    for space in [".shared", ".global"] {
        for (producer_sync, consumer_sync, race) in [
            ("bar.warp.sync -1;", "bar.warp.sync -1;", false),
            ("", "bar.warp.sync -1;", true),
            ("bar.warp.sync -1;", "", true),
        ] {
            let c = Case {
                data_thread: 37,
                producer_sync,
                consumer_sync,
                read_thread: 5,
                ..case(space, release, ACQUIRES[0])
            };
            let (seen, findings) = c.run();
            assert_eq!(seen, 42, "{space} `{producer_sync}` `{consumer_sync}`");
            assert_eq!(
                Case::data_race(&findings),
                race,
                "{space} `{producer_sync}` `{consumer_sync}`: {findings:#?}"
            );
        }
    }
}
