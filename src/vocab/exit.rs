//! Exit statuses of every command, in one place (`--help` texts and the README quote them).

/// Everything as expected.
pub const OK: u8 = 0;
/// Findings at or above the failure threshold, expectation mismatches, or (probe) a call
/// without a complete response.
pub const FINDINGS: u8 = 1;
/// Bad command line, or a revision that cannot be told.
pub const USAGE: u8 = 2;
/// An input could not be read or is not valid (a file, a capture, or an unreachable server).
pub const INPUT: u8 = 3;
/// `classify --har`: the capture was read, but no tools/call in it could be judged (none
/// recorded, bodies not recorded, or revisions unknown).
pub const NOTHING_JUDGED: u8 = 4;
