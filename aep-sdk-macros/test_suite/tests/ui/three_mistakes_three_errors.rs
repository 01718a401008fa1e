use aep_sdk::prelude::*;

struct Ext;

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool(colour = "red")]
    async fn paint(&self) -> String {
        String::new()
    }

    #[tool]
    fn not_async(&self) -> String {
        String::new()
    }

    #[model_provider]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(ChatStream::from_updates([ChatUpdate::text("hi")]))
    }
}

fn main() {
    // No second error here: the placeholder impl keeps `serve` known.
    let _ = Ext.serve();
}
