//! Why `warpforge run` stopped before reporting ([`Failure`]).

/// Why `run` stopped before reporting: the exit status (2 bad usage, 1 the backend could not run) and
/// one line per problem.
pub(super) struct Failure(pub(super) i32, pub(super) Vec<String>);

/// Bad usage: exit status 2.
pub(super) fn usage(line: String) -> Failure {
    Failure(2, vec![line])
}

/// The backend could not run: exit status 1.
pub(super) fn fault(line: String) -> Failure {
    Failure(1, vec![line])
}
