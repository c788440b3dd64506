//! A test [`Driver`] around another ([`Lazy`]) that runs every queued operation — upload, launch,
//! download, event record — as late as the stream and event rules allow, as a GPU may: an operation
//! runs only when the host forces it (synchronizing an event recorded after it on its stream, draining
//! its stream, settling the device) or when a forced operation of another stream waited for an event
//! recorded after it. An upload reads its host bytes then, a launch reads its inputs then, a download
//! writes its host bytes then.
//!
//! So a missing `wait` between two streams shows as a kernel reading stale input or a download
//! copying stale output; a host buffer written while an upload from it is pending, or read while a
//! download into it is pending, panics ([`Driver::host`], [`Driver::host_mut`]); and anything still
//! queued when a call has returned shows up in [`Lazy::pending`] (and lands, late, at the next
//! `settle`). The drivers it wraps run each operation when it is handed to them.

use std::cell::{Cell, RefCell};

use warpforge_ir::Verified;

use super::driver::{Arg, Driver, HostMemory};
use super::{GpuDeviceInfo, GpuError};
use crate::runtime::{Backend, Clock, Loaded};

/// A kernel argument as a pointer to the engine's buffer (the engine keeps its buffers in its slots,
/// allocated once, and is not moved while anything is queued: [`Lazy::begin`] checks).
enum ArgPtr<B> {
    In(*const B),
    Out(*mut B),
    Scratch(*mut B),
}

/// A queued operation (taken out of its queue, leaving [`Op::Ran`], when it runs).
enum Op<D: Driver> {
    Upload {
        src: *const u8,
        len: usize,
        dst: *mut D::Buffer,
    },
    Download {
        src: *const D::Buffer,
        dst: *mut u8,
        len: usize,
    },
    Launch {
        kernel: *const Loaded,
        name: &'static str,
        pages: usize,
        args: Vec<ArgPtr<D::Buffer>>,
    },
    Record(*const D::Event),
    /// Wait until stream `stream` has run its first `upto` operations.
    Wait {
        stream: usize,
        upto: usize,
    },
    /// An operation that has run.
    Ran,
}

/// One stream: `D`'s, its queued operations, how many of them ran, and whether it is being run now
/// (a wait cycle would deadlock a GPU; here it panics).
struct Queue<D: Driver> {
    inner: D::Stream,
    ops: Vec<Op<D>>,
    done: usize,
    running: bool,
}

/// `D`, with every operation run as late as allowed (module docs).
pub(super) struct Lazy<D: Driver> {
    pub(super) inner: D,
    queues: RefCell<Vec<Queue<D>>>,
    /// Launches queued so far, and the one to refuse when queued ([`Lazy::refuse_launch`]).
    launches: Cell<usize>,
    refuse: Cell<Option<usize>>,
}

/// A stream of [`Lazy`]: an index into its queues.
#[derive(Clone)]
pub(super) struct LazyStream(usize);

/// An event of [`Lazy`]: `D`'s, and where it was last recorded (stream, operations queued on it
/// up to and including the record).
pub(super) struct LazyEvent<E> {
    inner: E,
    at: Cell<Option<(usize, usize)>>,
}

/// Whether `[a, a + n)` and `[b, b + m)` share a byte.
fn overlap(a: *const u8, n: usize, b: *const u8, m: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    n > 0 && m > 0 && a < b + m && b < a + n
}

impl<D: Driver> Lazy<D> {
    pub(super) fn new(inner: D) -> Lazy<D> {
        Lazy {
            inner,
            queues: RefCell::default(),
            launches: Cell::new(0),
            refuse: Cell::new(None),
        }
    }

    /// Refuses the launch queued `n` launches from now (0: the next), when it is queued, as
    /// `cuLaunchKernel` refuses one: the calls queued before it are still waiting to run.
    pub(super) fn refuse_launch(&self, n: usize) {
        self.refuse.set(Some(self.launches.get() + n));
    }

    /// Operations queued and not run yet, over every stream.
    pub(super) fn pending(&self) -> usize {
        self.queues
            .borrow()
            .iter()
            .map(|q| q.ops.len() - q.done)
            .sum()
    }

    fn push(&self, stream: &LazyStream, op: Op<D>) -> usize {
        let mut queues = self.queues.borrow_mut();
        let queue = &mut queues[stream.0];
        queue.ops.push(op);
        queue.ops.len()
    }

    /// Runs stream `s`'s operations until `upto` of them have run (first the ones each waits for).
    /// The first error is returned; the operations after it still run (the drivers wrapped here
    /// fail a launch without poisoning the device).
    fn force(&self, s: usize, upto: usize) -> Result<(), GpuError> {
        let mut first_error = Ok(());
        {
            let mut queues = self.queues.borrow_mut();
            if queues[s].done >= upto {
                return Ok(());
            }
            assert!(
                !queues[s].running,
                "stream {s} waits for itself through other streams: a GPU would deadlock"
            );
            queues[s].running = true;
        }
        // Clears `running` however the loop ends (a panicking operation included), so that the
        // drain on unwinding and later calls see the stream as it is, not as a wait cycle.
        struct Running<'a, D: Driver>(&'a RefCell<Vec<Queue<D>>>, usize);
        impl<D: Driver> Drop for Running<'_, D> {
            fn drop(&mut self) {
                if let Ok(mut queues) = self.0.try_borrow_mut() {
                    queues[self.1].running = false;
                }
            }
        }
        let _running = Running(&self.queues, s);
        loop {
            let (op, stream) = {
                let mut queues = self.queues.borrow_mut();
                let queue = &mut queues[s];
                if queue.done >= upto {
                    break;
                }
                queue.done += 1;
                let op = std::mem::replace(&mut queue.ops[queue.done - 1], Op::Ran);
                (op, queue.inner.clone())
            };
            let ran = self.run(&stream, op);
            if first_error.is_ok() {
                first_error = ran;
            }
        }
        first_error
    }

    /// Runs one operation on `D`.
    fn run(&self, stream: &D::Stream, op: Op<D>) -> Result<(), GpuError> {
        // SAFETY (every dereference below): the pointers are to the engine's buffers, events and
        // kernels, which it allocates once and keeps in place while anything is queued, and to the
        // host bytes a queued copy reads or writes, which the ring keeps alive, unmoved and otherwise
        // unreferenced until the copy has run (the `Driver` contract; `host`/`host_mut` check it for
        // page-locked buffers, `begin` that nothing outlives a call). A known limit of this test
        // driver: a buffer is dereferenced here while the stage that forced it holds a `&mut` to the
        // engine's slots, which Stacked Borrows (Miri) would reject although no byte is accessed
        // through both; a GPU driver holds device addresses, not references, so the engine's own
        // drivers do not do this.
        match op {
            Op::Upload { src, len, dst } => {
                let src = unsafe { std::slice::from_raw_parts(src, len) };
                self.inner.upload_from(stream, src, unsafe { &mut *dst })
            }
            Op::Download { src, dst, len } => {
                let dst = unsafe { std::slice::from_raw_parts_mut(dst, len) };
                self.inner.download_into(stream, unsafe { &*src }, dst)
            }
            Op::Launch {
                kernel,
                name,
                pages,
                args,
            } => {
                let mut args: Vec<Arg<'_, D::Buffer>> = args
                    .into_iter()
                    .map(|a| match a {
                        ArgPtr::In(b) => Arg::In(unsafe { &*b }),
                        ArgPtr::Out(b) => Arg::Out(unsafe { &mut *b }),
                        ArgPtr::Scratch(b) => Arg::Scratch(unsafe { &mut *b }),
                    })
                    .collect();
                self.inner
                    .launch(stream, unsafe { &*kernel }, name, pages, &mut args)
            }
            Op::Record(event) => self.inner.record(unsafe { &*event }, stream),
            Op::Wait { stream, upto } => self.force(stream, upto),
            Op::Ran => unreachable!("an operation runs once"),
        }
    }

    /// Runs everything queued on every stream.
    fn force_all(&self) -> Result<(), GpuError> {
        let mut first_error = Ok(());
        let streams = self.queues.borrow().len();
        for s in 0..streams {
            let upto = self.queues.borrow()[s].ops.len();
            let ran = self.force(s, upto);
            if first_error.is_ok() {
                first_error = ran;
            }
        }
        first_error
    }

    /// Panics when a queued upload reads, or a queued download writes (`writing`: or a queued upload
    /// reads), a byte of `bytes` at `base`: the host is about to read or write it.
    fn check_host(&self, base: *const u8, bytes: usize, writing: bool) {
        for (s, queue) in self.queues.borrow().iter().enumerate() {
            for op in &queue.ops[queue.done..] {
                match *op {
                    Op::Download { dst, len, .. } if overlap(base, bytes, dst, len) => panic!(
                        "a host buffer is {} while a download into it is queued on stream {s}",
                        if writing { "written" } else { "read" }
                    ),
                    Op::Upload { src, len, .. } if writing && overlap(base, bytes, src, len) => {
                        panic!(
                            "a host buffer is written while an upload from it is queued on stream {s}"
                        )
                    }
                    _ => {}
                }
            }
        }
    }
}

impl<D: Driver> Driver for Lazy<D> {
    type Stream = LazyStream;
    type Event = LazyEvent<D::Event>;
    type Buffer = D::Buffer;
    type Host = D::Host;
    type Registration = D::Registration;

    fn info(&self) -> GpuDeviceInfo {
        self.inner.info()
    }
    fn describe(&self) -> String {
        self.inner.describe()
    }
    fn backend(&self) -> Backend {
        self.inner.backend()
    }
    fn load(&self, kernel: &Verified<'_>) -> Result<Loaded, GpuError> {
        self.inner.load(kernel)
    }
    fn clock(&self) -> Clock {
        self.inner.clock()
    }
    fn transfer_clock(&self) -> Clock {
        self.inner.transfer_clock()
    }
    fn stream(&self) -> Result<LazyStream, GpuError> {
        let inner = self.inner.stream()?;
        let mut queues = self.queues.borrow_mut();
        queues.push(Queue {
            inner,
            ops: Vec::new(),
            done: 0,
            running: false,
        });
        Ok(LazyStream(queues.len() - 1))
    }
    fn event(&self) -> Result<Self::Event, GpuError> {
        Ok(LazyEvent {
            inner: self.inner.event()?,
            at: Cell::new(None),
        })
    }
    fn alloc(&self, stream: &LazyStream, bytes: usize) -> Result<D::Buffer, GpuError> {
        let inner = self.queues.borrow()[stream.0].inner.clone();
        self.inner.alloc(&inner, bytes)
    }
    fn alloc_host(&self, bytes: usize, host_reads: bool) -> Result<D::Host, GpuError> {
        self.inner.alloc_host(bytes, host_reads)
    }
    fn host<'h>(&self, host: &'h D::Host) -> Result<&'h [u8], GpuError> {
        self.check_host(host.base(), host.bytes(), false);
        self.inner.host(host)
    }
    fn host_mut<'h>(&self, host: &'h mut D::Host) -> Result<&'h mut [u8], GpuError> {
        self.check_host(host.base(), host.bytes(), true);
        self.inner.host_mut(host)
    }
    unsafe fn register(&self, base: *mut u8, bytes: usize) -> Result<D::Registration, GpuError> {
        // SAFETY: the caller's contract, passed on.
        unsafe { self.inner.register(base, bytes) }
    }
    fn upload_from(
        &self,
        stream: &LazyStream,
        src: &[u8],
        dst: &mut D::Buffer,
    ) -> Result<(), GpuError> {
        let op = Op::Upload {
            src: src.as_ptr(),
            len: src.len(),
            dst,
        };
        self.push(stream, op);
        Ok(())
    }
    fn download_into(
        &self,
        stream: &LazyStream,
        src: &D::Buffer,
        dst: &mut [u8],
    ) -> Result<(), GpuError> {
        let op = Op::Download {
            src,
            dst: dst.as_mut_ptr(),
            len: dst.len(),
        };
        self.push(stream, op);
        Ok(())
    }
    fn launch(
        &self,
        stream: &LazyStream,
        kernel: &Loaded,
        name: &'static str,
        pages: usize,
        args: &mut [Arg<'_, D::Buffer>],
    ) -> Result<(), GpuError> {
        let launch = self.launches.get();
        self.launches.set(launch + 1);
        if self.refuse.get() == Some(launch) {
            return Err(GpuError::Injected(format!(
                "launch {launch} ({name}) refused"
            )));
        }
        let args = args
            .iter_mut()
            .map(|a| match a {
                Arg::In(b) => ArgPtr::In(*b as *const _),
                Arg::Out(b) => ArgPtr::Out(*b as *mut _),
                Arg::Scratch(b) => ArgPtr::Scratch(*b as *mut _),
            })
            .collect();
        let op = Op::Launch {
            kernel,
            name,
            pages,
            args,
        };
        self.push(stream, op);
        Ok(())
    }
    fn record(&self, event: &Self::Event, stream: &LazyStream) -> Result<(), GpuError> {
        let at = self.push(stream, Op::Record(&event.inner));
        event.at.set(Some((stream.0, at)));
        Ok(())
    }
    fn wait(&self, stream: &LazyStream, event: &Self::Event) -> Result<(), GpuError> {
        // Waiting for an event never recorded waits for nothing (as on CUDA).
        if let Some((on, upto)) = event.at.get() {
            self.push(stream, Op::Wait { stream: on, upto });
        }
        Ok(())
    }
    fn synchronize(&self, event: &Self::Event) -> Result<(), GpuError> {
        if let Some((on, upto)) = event.at.get() {
            self.force(on, upto)?;
        }
        self.inner.synchronize(&event.inner)
    }
    fn elapsed_ns(&self, from: &Self::Event, to: &Self::Event) -> Result<u64, GpuError> {
        for event in [from, to] {
            if let Some((on, upto)) = event.at.get() {
                assert!(
                    self.queues.borrow()[on].done >= upto,
                    "an event's time is read before its record has run"
                );
            }
        }
        self.inner.elapsed_ns(&from.inner, &to.inner)
    }
    fn settle(&self) -> Result<(), GpuError> {
        self.force_all()?;
        self.inner.settle()
    }
    fn check(&self) -> Result<(), GpuError> {
        self.inner.check()
    }
    fn drain(&self, stream: &LazyStream) {
        let upto = self.queues.borrow()[stream.0].ops.len();
        let _ = self.force(stream.0, upto);
        let inner = self.queues.borrow()[stream.0].inner.clone();
        self.inner.drain(&inner)
    }
    fn begin(&self) {
        // A call leaves nothing queued: it waited for what it reads, and drained the rest after a
        // failure or a panic. (Anything left would also hold pointers into buffers the engine may
        // have moved since.)
        assert_eq!(
            self.pending(),
            0,
            "a call starts with operations of an earlier call still queued"
        );
        self.inner.begin()
    }
}
