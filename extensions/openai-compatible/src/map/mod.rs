//! AEP <-> Chat Completions, as pure functions: the request body ([`request`]) and the
//! stream's chunks into AEP updates ([`stream`]).

pub mod request;
pub mod stream;

pub use request::{RequestSettings, chat_body};
pub use stream::StreamMapper;
