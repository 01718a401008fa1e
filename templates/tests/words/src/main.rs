//! A new extension written exactly as the README's example, in a crate of
//! its own that depends on nothing but `aep-sdk` and `tokio` (see ../outside_workspace.rs).

use aep_sdk::prelude::*;

const ID: &str = "acme.words";

struct Words;

#[aep_extension(id = ID, name = "Words")]
impl Words {
    /// Streams the words back, one every 20 ms.
    #[model_provider(id = "words", models = ["words-1"])]
    async fn words(&self, request: ChatRequest) -> Result<ChatStream, AepError> {
        let text = request.last_user_text().unwrap_or_default().to_owned();
        Ok(chat_stream! {
            for word in text.split_inclusive(' ') {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                yield ChatUpdate::text(word).with_model("words-1");
            }
            // ending without a terminal update means finishReason "stop"
        })
    }

    /// Answers in one piece; /chat/stream streams it as one update and a finish.
    #[model_provider(id = "oneshot", models = ["oneshot-1"])]
    async fn oneshot(&self, _request: ChatRequest) -> Result<ChatResponse, AepError> {
        Ok(ChatResponse::text("done").with_usage(Usage::new(1, 1)))
    }
}

#[tokio::main]
async fn main() -> Result<(), aep_sdk::Error> {
    Words.serve().await
}
