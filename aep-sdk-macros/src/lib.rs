//! Procedural macros for `aep-sdk`. Use them through `aep_sdk::aep_extension`.
