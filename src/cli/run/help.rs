//! `warpforge run --help`'s long text: arguments, shapes, PTX files, outputs and exit status.

pub(super) const HELP: &str = "\
Arguments (--arg, one for each kernel parameter):
  NAME=@FILE.bin     a buffer's initial contents: raw little-endian elements of its type
  NAME=zeros:COUNT   a buffer of COUNT zero elements (COUNT bytes for a PTX file's pointer)
  NAME=VALUE         a scalar: decimal or 0x hex (negative decimals for i32/i64; 0x hex gives the
                     bits); f32 as a decimal float (or 0x hex for its IEEE bits); bool as true/false
  NAME=buf:P+OFFSET  (a PTX file, sim) a pointer to byte OFFSET of the buffer an earlier parameter P
                     brought: in-place kernels, k(data, data + n), several parameters on one buffer
  NAME=@FILE.bin     (a PTX file, sim) on a by-value parameter wider than 8 bytes (a struct,
                     `.param .align 4 .b8 p[16]`): its bytes, exactly its size

The grid is 1 block unless --grid says otherwise (X, or X,Y or X,Y,Z for a PTX file); a .wfir
kernel's block has its block_size threads.
--kernel NAME runs the catalog kernel in the shape the backend launches it (the LZ4 page kernels: 4
warps per block on cuda and ptx-sim, 1 on webgpu and sim); with --check sim, the simulator runs that
same form. --backend ptx-sim emits the kernel's PTX for --sm (70, 80 or 90; default 70) and runs that
PTX on the PTX simulator; --check sim compares it with the IR on the simulator.

A PTX file (FILE.ptx) runs an entry (--entry NAME; optional when the module has one) on the PTX
simulator (--backend sim or ptx-sim) or on a GPU (--backend cuda: the driver compiles the PTX; with
--check sim the PTX simulator runs it too and every buffer is compared byte for byte). Blocks have the entry's .reqntid shape, or --block X[,Y[,Z]]
(required without .reqntid, refused when it contradicts it); --dynamic-shared BYTES sizes .extern
.shared arrays. Parameters are named as in the PTX: a 64-bit parameter given @FILE.bin or zeros:BYTES
is a buffer (the kernel gets its address; every buffer can be written to --out), any other value a
scalar of the declared type. A parameter is named by its PTX name, by its position (0, 1, …) or by
the param_N its name ends with, so a templated kernel's mangled names need not be typed. A module
variable (`__constant__`: .const, `__device__`: .global) is set before the launch by its PTX name,
NAME=@FILE.bin (its first bytes; the sim backend only). Findings
name the PTX line. For example, nvcc's `template <unsigned B> __global__ void reduce(const float*,
float*, unsigned)` instantiated for B = 256 (entry _Z6reduceILj256EEvPKfPfj):

  warpforge run reduce.ptx --backend sim --entry _Z6reduceILj256EEvPKfPfj --block 256 --grid 4 \
      --arg 0=@in.bin --arg 1=zeros:16 --arg 2=1024 --out 1=sums.bin

Each --out NAME=FILE.bin gets a read_write buffer's bytes after the kernel, written once the run is
over, also when the run found errors, so that the damage can be inspected.

Exit status: 0 ran clean; 1 a sanitizer error, a kernel fault, a --check mismatch or a backend that
could not run; 2 bad usage (each bad argument is named).";
