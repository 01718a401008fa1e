//! aep-conformance.
