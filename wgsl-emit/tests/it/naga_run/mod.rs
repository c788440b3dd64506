//! A small interpreter of emitted WGSL, so the subgroup lowering can be *run* where no GPU with
//! 32- or 64-wide subgroups exists (lavapipe's are 8 wide). It parses the WGSL with naga's front end
//! (the text a WebGPU implementation receives) and runs each workgroup with one OS thread per
//! invocation; invocations meet at every `workgroupBarrier`, `workgroupUniformLoad` and subgroup
//! operation, and a meeting checks that they all came to the same kind of point (WGSL's uniformity
//! rule, checked at run time).
//!
//! Subgroups are modelled as the runtime's probe requires them to be before it chooses the subgroup
//! lowering: `width` invocations wide, subgroup `s` holding local invocations `s·width ..
//! s·width + width` (fewer in a partial last one), `subgroup_invocation_id = local % width`. A
//! shuffle from an invocation outside the subgroup — undefined in WGSL — is a [`Stop::Fault`], as
//! is any index out of bounds. Memory is sequentially consistent; a `workgroupBarrier` is a
//! rendezvous. What it does not model (most float math, f16, textures) is [`Stop::Unsupported`],
//! named.

mod invocation;
mod value;

use std::sync::{Condvar, Mutex};
use std::time::Duration;

use naga::{AddressSpace, Binding, BuiltIn, Expression as E, Handle, Module};
use warpforge_wgsl::Wgsl;

use self::invocation::Invocation;
pub use self::value::Stop;
use self::value::{fault, unsupported, Root, Val, R};

/// Runs `wgsl` over `blocks` blocks (dispatched as the layout says, workgroups past the grid
/// included) on subgroups `width` wide; `buffers` are the buffer arguments' bytes in binding order,
/// `scalars` the scalar parameters' bits. Returns every buffer's bytes afterwards.
pub fn run(
    wgsl: &Wgsl,
    width: u32,
    blocks: u32,
    buffers: &[Vec<u8>],
    scalars: &[u64],
) -> Result<Vec<Vec<u8>>, Stop> {
    let module = naga::front::wgsl::parse_str(&wgsl.source)
        .map_err(|e| Stop::Fault(e.emit_to_string(&wgsl.source)))?;
    let entry = module
        .entry_points
        .iter()
        .find(|e| e.name == wgsl.entry_point)
        .ok_or_else(|| Stop::Fault("no entry point".into()))?;
    let size = entry.workgroup_size[0];
    let params = wgsl.params_bytes(blocks, scalars);
    let mut globals = Vec::new();
    for (_, g) in module.global_variables.iter() {
        let binding = g.binding.as_ref().map(|b| b.binding);
        globals.push(Mutex::new(match g.space {
            AddressSpace::Storage { .. } => {
                let b = binding.expect("storage buffers are bound") as usize;
                value::from_bytes(&module, g.ty, &buffers[b])?
            }
            AddressSpace::Uniform => value::from_bytes(&module, g.ty, &params)?,
            AddressSpace::WorkGroup | AddressSpace::Private => value::zero(&module, g.ty, 0)?,
            other => return unsupported(other),
        }));
    }
    let shared = Shared {
        module: &module,
        globals,
        width,
        size,
        meeting: Meeting::new(size as usize),
        first_stop: Mutex::new(None),
    };
    let (nx, ny, _) = wgsl.dispatch(blocks).expect("a grid the layout dispatches");
    for wy in 0..ny {
        for wx in 0..nx {
            shared.run_workgroup(&entry.function, [wx, wy], [nx, ny])?;
        }
    }
    let mut out = Vec::new();
    for (h, g) in module.global_variables.iter() {
        if let (AddressSpace::Storage { .. }, Some(b)) = (g.space, &g.binding) {
            let mut bytes = Vec::new();
            value::to_bytes(&shared.globals[h.index()].lock().unwrap(), &mut bytes)?;
            bytes.truncate(buffers[b.binding as usize].len());
            out.push(bytes);
        }
    }
    Ok(out)
}

/// The state every invocation of a workgroup shares.
pub struct Shared<'m> {
    module: &'m Module,
    globals: Vec<Mutex<Val>>,
    /// Subgroup width.
    width: u32,
    /// Invocations per workgroup.
    size: u32,
    meeting: Meeting,
    first_stop: Mutex<Option<Stop>>,
}

impl<'m> Shared<'m> {
    fn run_workgroup(
        &self,
        entry: &'m naga::Function,
        id: [u32; 2],
        count: [u32; 2],
    ) -> Result<(), Stop> {
        for (h, g) in self.module.global_variables.iter() {
            if g.space == AddressSpace::WorkGroup {
                *self.globals[h.index()].lock().unwrap() = value::zero(self.module, g.ty, 0)?;
            }
        }
        self.meeting.reset();
        std::thread::scope(|scope| {
            for local in 0..self.size {
                scope.spawn(move || {
                    let outcome = self.invoke(entry, local, id, count);
                    // The invocation's own stop is recorded before it leaves: leaving (or aborting)
                    // fails the meeting the others wait at, and the stops that causes in them are
                    // consequences, not the first one.
                    let stopped = outcome.is_err();
                    if let Err(stop) = outcome {
                        let mut first = self.first_stop.lock().unwrap();
                        if first.is_none() {
                            *first = Some(stop);
                        }
                    }
                    self.meeting.leave();
                    if stopped {
                        self.meeting.abort("another invocation stopped");
                    }
                });
            }
        });
        match self.first_stop.lock().unwrap().take() {
            Some(stop) => Err(stop),
            None => Ok(()),
        }
    }

    fn invoke(
        &self,
        entry: &'m naga::Function,
        local: u32,
        id: [u32; 2],
        count: [u32; 2],
    ) -> R<()> {
        let builtin = |b: BuiltIn| -> R<Val> {
            let v3 =
                |x: u32, y: u32, z: u32| Val::Vector(vec![Val::U32(x), Val::U32(y), Val::U32(z)]);
            Ok(match b {
                BuiltIn::LocalInvocationIndex => Val::U32(local),
                BuiltIn::LocalInvocationId => v3(local, 0, 0),
                BuiltIn::WorkGroupId => v3(id[0], id[1], 0),
                BuiltIn::NumWorkGroups => v3(count[0], count[1], 1),
                BuiltIn::GlobalInvocationId => v3(id[0] * self.size + local, id[1], 0),
                BuiltIn::SubgroupInvocationId => Val::U32(local % self.width),
                BuiltIn::SubgroupSize => Val::U32(self.width),
                BuiltIn::SubgroupId => Val::U32(local / self.width),
                BuiltIn::NumSubgroups => Val::U32(self.size.div_ceil(self.width)),
                other => return unsupported(other),
            })
        };
        let mut args = Vec::new();
        for arg in &entry.arguments {
            args.push(match (&arg.binding, &self.module.types[arg.ty].inner) {
                (Some(Binding::BuiltIn(b)), _) => builtin(*b)?,
                (None, naga::TypeInner::Struct { members, .. }) => Val::Composite(
                    members
                        .iter()
                        .map(|m| match m.binding {
                            Some(Binding::BuiltIn(b)) => builtin(b),
                            ref other => unsupported(other),
                        })
                        .collect::<R<_>>()?,
                ),
                other => return unsupported(other),
            });
        }
        Invocation::new(self, local).call(entry, args).map(|_| ())
    }

    /// A rendezvous of the whole workgroup at a point of kind `label`.
    pub fn meet(&self, local: u32, label: &'static str, post: Option<Post>) -> R<()> {
        self.meeting.meet(local as usize, label, post)
    }

    /// A subgroup operation: every invocation posts its operand (and a shuffle its source), meets
    /// the others, computes its result from its subgroup's posts, and meets them again before the
    /// posts may be overwritten.
    pub fn subgroup(&self, local: u32, label: &'static str, x: Val, source: Option<u32>) -> R<Val> {
        self.meet(local, label, Some((x, source)))?;
        let result = {
            let state = self.meeting.state.lock().unwrap();
            let first = local / self.width * self.width;
            let members = self.width.min(self.size - first);
            let post = |i: u32| {
                state.posts[(first + i) as usize]
                    .clone()
                    .expect("every member posted")
                    .0
            };
            match source {
                None => {
                    let mut words = [0u32; 4];
                    for i in 0..members {
                        if post(i).bool()? {
                            words[(i / 32) as usize] |= 1 << (i % 32);
                        }
                    }
                    Val::Vector(words.iter().map(|&w| Val::U32(w)).collect())
                }
                Some(s) if s < members => post(s),
                Some(s) => {
                    return fault(format!(
                        "{label}: invocation {local} reads subgroup invocation {s}, outside its \
                         subgroup of {members} (width {})",
                        self.width
                    ))
                }
            }
        };
        self.meet(local, "end of a subgroup operation", None)?;
        Ok(result)
    }

    /// The value of a constant's initializer (a global expression).
    pub fn constant(&self, h: Handle<E>) -> R<Val> {
        Ok(match self.module.global_expressions[h] {
            E::Literal(ref l) => value::literal(l)?,
            E::ZeroValue(ty) => value::zero(self.module, ty, 0)?,
            E::Constant(c) => self.constant(self.module.constants[c].init)?,
            E::Splat { size, value } => Val::Vector(vec![self.constant(value)?; size as usize]),
            E::Compose { ty, ref components } => {
                let parts = components
                    .iter()
                    .map(|&c| self.constant(c))
                    .collect::<R<Vec<_>>>()?;
                invocation::compose(self.module, ty, parts)
            }
            ref other => return unsupported(other),
        })
    }

    /// An atomic read-modify-write of a global; returns the old value (with `exchanged` for a
    /// compare-exchange).
    pub fn atomic(
        &self,
        root: &Root,
        path: &[usize],
        fun: &naga::AtomicFunction,
        operand: Val,
        compare: Option<Val>,
    ) -> R<Val> {
        use naga::{AtomicFunction as A, BinaryOperator as Op};
        let Root::Global(g) = *root else {
            return unsupported("an atomic on a local");
        };
        let mut guard = self.globals[g].lock().unwrap();
        let mut at: &mut Val = &mut guard;
        for &i in path {
            at = at.element_mut(i)?;
        }
        let old = at.clone();
        let new = match *fun {
            A::Add => value::binary(Op::Add, &old, &operand)?,
            A::Subtract => value::binary(Op::Subtract, &old, &operand)?,
            A::And => value::binary(Op::And, &old, &operand)?,
            A::InclusiveOr => value::binary(Op::InclusiveOr, &old, &operand)?,
            A::ExclusiveOr => value::binary(Op::ExclusiveOr, &old, &operand)?,
            A::Min => value::math(naga::MathFunction::Min, &[old.clone(), operand])?,
            A::Max => value::math(naga::MathFunction::Max, &[old.clone(), operand])?,
            A::Exchange { compare: None } => operand,
            A::Exchange { compare: Some(_) } => {
                let exchanged = Some(&old) == compare.as_ref();
                if exchanged {
                    *at = operand;
                }
                return Ok(Val::Composite(vec![old, Val::Bool(exchanged)]));
            }
        };
        *at = new;
        Ok(old)
    }
}

/// What an invocation brings to a subgroup meeting: its operand and, for a shuffle, its source.
pub type Post = (Val, Option<u32>);

struct MeetState {
    arrived: usize,
    generation: u64,
    label: Option<&'static str>,
    posts: Vec<Option<Post>>,
    left: usize,
    failed: Option<String>,
}

/// A barrier for `n` invocations that checks they meet at the same kind of point, fails instead
/// of hanging when some never come, and carries subgroup posts.
struct Meeting {
    n: usize,
    state: Mutex<MeetState>,
    cv: Condvar,
}

impl Meeting {
    fn new(n: usize) -> Meeting {
        Meeting {
            n,
            state: Mutex::new(MeetState {
                arrived: 0,
                generation: 0,
                label: None,
                posts: vec![None; n],
                left: 0,
                failed: None,
            }),
            cv: Condvar::new(),
        }
    }

    fn reset(&self) {
        let mut s = self.state.lock().unwrap();
        s.arrived = 0;
        s.label = None;
        s.left = 0;
        s.failed = None;
        s.posts.iter_mut().for_each(|p| *p = None);
    }

    fn fail(&self, s: &mut MeetState, why: String) -> Stop {
        if s.failed.is_none() {
            s.failed = Some(why.clone());
        }
        self.cv.notify_all();
        Stop::Fault(why)
    }

    fn abort(&self, why: &str) {
        let mut s = self.state.lock().unwrap();
        self.fail(&mut s, why.into());
    }

    fn leave(&self) {
        let mut s = self.state.lock().unwrap();
        s.left += 1;
        if s.arrived > 0 {
            let why = format!(
                "an invocation returned while others wait at a {:?}",
                s.label
            );
            self.fail(&mut s, why);
        }
    }

    fn meet(&self, local: usize, label: &'static str, post: Option<Post>) -> R<()> {
        let mut s = self.state.lock().unwrap();
        if let Some(why) = &s.failed {
            return fault(why.clone());
        }
        if s.left > 0 {
            return Err(self.fail(&mut s, format!("{label} after an invocation returned")));
        }
        match s.label {
            Some(l) if l != label => {
                let why = format!("invocations meet at different points: {l} and {label}");
                return Err(self.fail(&mut s, why));
            }
            _ => s.label = Some(label),
        }
        if let Some(p) = post {
            s.posts[local] = Some(p);
        }
        s.arrived += 1;
        if s.arrived == self.n {
            s.arrived = 0;
            s.generation += 1;
            s.label = None;
            self.cv.notify_all();
            return Ok(());
        }
        let generation = s.generation;
        loop {
            let (guard, wait) = self.cv.wait_timeout(s, Duration::from_secs(30)).unwrap();
            s = guard;
            if s.generation != generation {
                return Ok(());
            }
            if let Some(why) = &s.failed {
                return fault(why.clone());
            }
            if wait.timed_out() {
                return Err(self.fail(&mut s, format!("{label}: 30 s without the others")));
            }
        }
    }
}
