//! `scopes = [..]` on each attribute that takes it expands to code that compiles and
//! builds (`build()` refuses provider scopes of a provider it does not know).

use aep_sdk::prelude::*;

struct Ext;

const PROVIDER: &str = "echo";

#[aep_extension(id = "t.ext", name = "Ext", scopes = ["ext:use"])]
impl Ext {
    /// Writes a file.
    #[tool(scopes = ["files:read", "files:write"])]
    async fn write(&self) -> String {
        String::new()
    }

    /// On another server.
    #[tool(server = "admin", scopes = ["admin"])]
    async fn reset(&self) {}

    /// The guide.
    #[resource(uri = "docs://guide", scopes = ["docs:read"])]
    async fn guide(&self) -> String {
        String::new()
    }

    /// A file.
    #[resource(uri_template = "file://{+path}", scopes = ["files:read"])]
    async fn file(&self, path: String) -> String {
        path
    }

    /// Ask for a summary.
    #[prompt(scopes = ["prompts:use"])]
    async fn summarize(&self, text: String) -> String {
        text
    }

    #[model_provider(id = PROVIDER, scopes = ["chat", "models"])]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(ChatStream::from_updates([ChatUpdate::text("hi")]))
    }
}

fn main() {
    Ext.into_extension().expect("the extension builds");
}
