//! A value of the wrong kind is one error on its key: the attribute is still read, and a
//! required key given with the wrong kind is not also reported missing.

use aep_sdk::prelude::*;

struct Ext;

const URI: &str = "docs://readme";

#[aep_extension(id = "t.ext", name = "Ext")]
impl Ext {
    #[tool(name = 1)]
    async fn number_as_name(&self) {}

    #[tool(title)]
    async fn flag_as_title(&self) {}

    #[tool(read_only(yes))]
    async fn nested_list_as_flag(&self) {}

    #[tool(metadata = "text")]
    async fn string_as_metadata(&self) {}

    #[tool(input_schema = ["a"])]
    async fn list_as_schema(&self) {}

    #[resource(uri = URI)]
    async fn constant_as_uri(&self) -> String {
        String::new()
    }

    #[complete(prompt = true, argument = "city")]
    async fn flag_as_prompt(&self, value: String) -> Vec<String> {
        vec![value]
    }

    #[model_provider(id = 7, models = ["echo-1", 2])]
    async fn echo(&self, _request: ChatRequest) -> Result<ChatStream, AepError> {
        Ok(ChatStream::from_updates([ChatUpdate::text("hi")]))
    }
}

fn main() {}
