//! Prints the PTX this crate embedded at build time.

fn main() {
    print!("{}", warpforge_example_build_time::VECTOR_ADD_SM80_PTX);
}
