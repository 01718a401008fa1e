//! The mapping between AEP's wire types ([`aep_sdk::protocol`]) and rig's
//! ([`rig_core::completion`], [`rig_core::message`], [`rig_core::streaming`]): pure
//! functions, no I/O. [`request`] maps requests both ways, [`reply`] answers (stream
//! frames and events, responses, finish reasons, usage), [`error`] errors.

pub mod error;
pub mod reply;
pub mod request;
