//! Nothing here: the crate holds the tests of `#[aep_extension]` (`tests/`), which need
//! `aep-sdk` and so cannot live in `aep-sdk-macros` itself.
