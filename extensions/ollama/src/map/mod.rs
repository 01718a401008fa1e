//! AEP <-> Ollama mapping, both directions, as pure functions (no I/O).

pub mod request;
pub mod response;

pub use request::chat_request;
pub use response::StreamMapper;
