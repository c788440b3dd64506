//! The `warpforge` command line; its commands are in `src/cli/`, one module each.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
