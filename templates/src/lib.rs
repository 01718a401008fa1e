//! The tests of this repository's cargo-generate templates (`templates/aep-extension`):
//! `tests/render.rs` renders each starting point with real `cargo generate` (the tool
//! users run; CI installs 0.23.7), builds it against this checkout, runs its tests and
//! checks its binary with the foreign peers. There is no library code here.
