//! aep-host.
