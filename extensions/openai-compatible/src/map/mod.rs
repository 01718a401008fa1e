//! AEP <-> Chat Completions, as pure functions: the request body ([`request`]), a
//! non-streamed answer ([`response`]) and the stream's chunks ([`stream`]).

pub mod request;
pub mod response;
pub mod stream;

pub use request::{RequestSettings, chat_body};
pub use response::chat_response;
pub use stream::StreamMapper;
