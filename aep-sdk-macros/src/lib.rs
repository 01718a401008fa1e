//! Procedural macros for `aep-sdk`. Use them through `aep_sdk::aep_extension`; the
//! runtime crate documents them.
//!
//! The macro is split the way serde_derive is: `attr` reads each attribute with syn's meta
//! grammar into its typed, finished value; `signature` reads each method's signature;
//! `read` drives the two to fill `model`, which holds the attributes' values as they are;
//! `check` is one pass of rules over the finished model; `expand` writes the code. Every
//! misuse is a `syn::Error` on the user's tokens, collected in `ctxt` and reported
//! together, and the expansion still emits the item and a placeholder impl.
//!
//! Dependencies point one way: `ctxt`, `helper` and `text` are leaves; `attr` uses them;
//! `model` holds `attr`'s values; `signature` fills parts of `model`; `read` uses all of
//! those; `check` reads `model`; `expand` drives `read` and `check` and writes `model` out.

use proc_macro::TokenStream;

mod attr;
mod check;
mod ctxt;
mod expand;
mod helper;
mod model;
mod read;
mod signature;
mod text;

/// Turns the annotated methods of an `impl` block into an AEP extension: `#[tool]`
/// methods become MCP tools and AEP tool contributions, `#[resource]` and `#[prompt]`
/// methods MCP resources and prompts on the same servers, `#[model_provider]` methods
/// become model providers (with optional `#[models]`, `#[health]` and `#[chat]`
/// siblings), `#[option_set]` methods declare option sets, and the type implements
/// `aep_sdk::server::AepExtension` (`serve()`, `into_extension()`, `extension_builder()`).
///
/// `#[aep_extension(id = "..", name = "..", version = "..", description = "..", mcp_server = "..", tool_switch = field)]`:
/// `id` and `name` are required; `version` defaults to the crate's version; `mcp_server`
/// names the default MCP server (default `"default"`, served at `/mcp`); `tool_switch`
/// names the field holding an `aep_sdk::tool::ToolSwitch` that turns tools off and on at
/// run time (the servers then advertise `tools.listChanged`).
///
/// `scopes = ["a", "b"]` on `#[aep_extension]`, `#[tool]`, `#[resource]`, `#[prompt]` and
/// `#[model_provider]`: the OAuth scopes a request needs (all of them). An item's own
/// list replaces the extension's default, which covers everything else; static bearer
/// tokens pass every scope check.
///
/// `#[tool(name, id, display_name, description, title, server, metadata(k = v, ..),
/// read_only, destructive, idempotent, open_world)]` on `async fn(&self, params..) -> R`:
/// every key is optional. `name` is the MCP tool name (default: the method name), `id`
/// the AEP contribution id (default: `name`), `display_name` defaults to the humanized
/// method name, `description` to the doc comment, `server = "x"` puts the tool on MCP
/// server `x` at `/mcp/x`. Parameters are owned `Deserialize + JsonSchema` types (their
/// `///` docs become schema descriptions; `Option<T>` is optional), or one `#[args]`
/// struct; a `ToolContext` parameter receives the call's context. `R` is `String`/`&str`
/// (text), `()`, `CallToolResult`, any `Serialize + JsonSchema` type (structured content,
/// output schema and a text copy), or `Result<_, E: Display>` (`Err` is a tool error).
///
/// `#[resource(uri = "docs://x" | uri_template = "notes://{id}", name, title, description,
/// mime_type, server)]` on `async fn(&self[, vars..][, ctx: ToolContext]) -> R`: a fixed URI
/// takes no other parameter; a template's variables (`{id}` one segment, `{+path}` may
/// span `/`) are parameters of `FromStr` types, matched by name. `R` (or `Result<R, E>`,
/// `E` into `ToolError`) is text (`String`, `&'static str`), bytes (`Vec<u8>`, `Blob`:
/// sent base64) or `ResourceContents`. `name` defaults to the method name, `description`
/// to the doc comment. Unknown URIs answer MCP's -32002.
///
/// `#[prompt(name, title, description, server)]` on `async fn(&self, args..[, ctx]) -> R`:
/// arguments are `FromStr` types (`Option<T>` optional; `///` docs become their
/// descriptions); `R` (or `Result<R, E>`) is `String` (one user message),
/// `Vec<PromptMessage>` or `GetPromptResult`. A missing or unparsable argument answers
/// -32602.
///
/// `#[model_provider(id, display_name, models = [..], metadata(..), chat, streaming, tools,
/// thinking, structured_output, vision, model_discovery)]` on
/// `async fn(&self, request: ChatRequest[, ctx: RequestContext]) -> Result<ChatStream, AepError>`
/// (streamed; `/chat` folds it) or `-> Result<ChatResponse, AepError>` (in one piece;
/// `/chat/stream` sends it as one update and a finish). Siblings:
/// `#[chat(provider = "id")]` (non-streaming answer of a streamed provider), `#[models(provider = "id")]`
/// and `#[health(provider = "id")]`, each `async fn(&self[, ctx])`.
///
/// `#[option_set]` on `fn(&self) -> aep_sdk::config::OptionSetDecl`.
///
/// This is a summary. Every key, with examples that compile, is in aep-sdk's guide
/// (`aep_sdk::guide`): `tools` (also `timeout`, `timeout_resets_on_progress`,
/// `input_schema`, `Vec<ContentBlock>` results), `resources_prompts` (also `#[complete]`
/// and `subscriptions = field`), `model_providers` and `configuration`.
#[proc_macro_attribute]
pub fn aep_extension(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::aep_extension(attr.into(), item.into()).into()
}
