//! MCP resources: [`ResourceDef`] (one fixed URI) and [`ResourceTemplateDef`] (a URI
//! template whose variables are the read's parameters), and [`ResourceOutput`], how a
//! read's return value becomes `contents`.

use std::str::FromStr;
use std::sync::Arc;

use base64::Engine;
use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use super::{JsonObject, ToolContext, UriTemplate};

/// Reads one resource on the state `S`: the URI asked for, the template's variables
/// (empty for a fixed URI) and the request's context in; `contents` out.
pub type ResourceRead<S> = fn(
    Arc<S>,
    String,
    JsonObject,
    ToolContext,
) -> BoxFuture<'static, Result<Vec<ResourceContents>, ErrorData>>;

/// A resource at a fixed URI: its `resources/list` entry and how to read it.
pub struct ResourceDef<S> {
    /// The `resources/list` entry.
    pub resource: Resource,
    /// The read.
    pub read: ResourceRead<S>,
    /// The OAuth scopes reading it needs (empty: the extension's default).
    pub scopes: Vec<String>,
}

impl<S> ResourceDef<S> {
    /// The resource `uri`, named `name`, read through `read`.
    pub fn new(uri: &str, name: &str, read: ResourceRead<S>) -> Self {
        Self {
            resource: Resource::new(uri, name),
            read,
            scopes: Vec::new(),
        }
    }

    /// The OAuth scopes a request for it needs (instead of the extension's default).
    pub fn scopes<I: IntoIterator<Item = T>, T: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: &str) -> Self {
        self.resource.description = Some(description.to_owned());
        self
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: &str) -> Self {
        self.resource.title = Some(title.to_owned());
        self
    }

    /// Sets the MIME type (also given to the contents the read returns).
    pub fn mime_type(mut self, mime_type: &str) -> Self {
        self.resource.mime_type = Some(mime_type.to_owned());
        self
    }
}

/// A family of resources named by a URI template: its `resources/templates/list` entry,
/// the parsed template a URI is matched against, and how to read a match.
pub struct ResourceTemplateDef<S> {
    /// The `resources/templates/list` entry.
    pub template: ResourceTemplate,
    /// The parsed `uriTemplate`.
    pub matcher: UriTemplate,
    /// The read.
    pub read: ResourceRead<S>,
    /// The OAuth scopes reading a match needs (empty: the extension's default).
    pub scopes: Vec<String>,
}

impl<S> ResourceTemplateDef<S> {
    /// The template `uri_template`, named `name`, read through `read`.
    ///
    /// # Panics
    ///
    /// If `uri_template` is not a template [`UriTemplate::parse`] accepts (the macro
    /// checks it at compile time).
    pub fn new(uri_template: &str, name: &str, read: ResourceRead<S>) -> Self {
        let matcher = UriTemplate::parse(uri_template).unwrap_or_else(|e| panic!("{e}"));
        Self {
            template: ResourceTemplate::new(uri_template, name),
            matcher,
            read,
            scopes: Vec::new(),
        }
    }

    /// The OAuth scopes a request for it needs (instead of the extension's default).
    pub fn scopes<I: IntoIterator<Item = T>, T: Into<String>>(mut self, scopes: I) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the description.
    pub fn description(mut self, description: &str) -> Self {
        self.template.description = Some(description.to_owned());
        self
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: &str) -> Self {
        self.template.title = Some(title.to_owned());
        self
    }

    /// Sets the MIME type of the resources it names.
    pub fn mime_type(mut self, mime_type: &str) -> Self {
        self.template.mime_type = Some(mime_type.to_owned());
        self
    }
}

/// Bytes a resource read returns as a base64 `blob` (a `Vec<u8>` does the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blob(pub Vec<u8>);

/// What a `#[resource]` method may return: text (`String`, `&'static str`), bytes
/// (`Vec<u8>`, [`Blob`]: sent base64-encoded as `blob`), or rmcp's contents as they are.
#[diagnostic::on_unimplemented(
    message = "a `#[resource]` method cannot return `{Self}`",
    label = "not a resource's contents",
    note = "return text (`String`, `&'static str`), bytes (`Vec<u8>`, `Blob`), `ResourceContents` or `Vec<ResourceContents>`, optionally in a `Result<_, ToolError>`"
)]
pub trait ResourceOutput {
    /// The `contents` of a read of `uri` whose declared MIME type is `mime_type`.
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents>;
}

fn text_contents(text: String, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents> {
    vec![ResourceContents::TextResourceContents {
        uri: uri.to_owned(),
        mime_type: mime_type.map(str::to_owned),
        text,
        meta: None,
    }]
}

impl ResourceOutput for String {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents> {
        text_contents(self, uri, mime_type)
    }
}

impl ResourceOutput for &'static str {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents> {
        text_contents(self.to_owned(), uri, mime_type)
    }
}

impl ResourceOutput for Vec<u8> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents> {
        Blob(self).into_contents(uri, mime_type)
    }
}

impl ResourceOutput for Blob {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> Vec<ResourceContents> {
        vec![ResourceContents::BlobResourceContents {
            uri: uri.to_owned(),
            mime_type: mime_type.map(str::to_owned),
            blob: base64::engine::general_purpose::STANDARD.encode(self.0),
            meta: None,
        }]
    }
}

impl ResourceOutput for ResourceContents {
    fn into_contents(self, _uri: &str, _mime_type: Option<&str>) -> Vec<ResourceContents> {
        vec![self]
    }
}

impl ResourceOutput for Vec<ResourceContents> {
    fn into_contents(self, _uri: &str, _mime_type: Option<&str>) -> Vec<ResourceContents> {
        self
    }
}

/// Converts the value of string parameter `name` (a template variable or a prompt
/// argument) to `T`; a missing or unparsable value is an invalid-params error naming it.
pub fn string_param<T: FromStr>(values: &JsonObject, name: &str) -> Result<T, ErrorData>
where
    T::Err: std::fmt::Display,
{
    match optional_string_param(values, name)? {
        Some(value) => Ok(value),
        None => Err(ErrorData::invalid_params(
            format!("missing required argument '{name}'"),
            None,
        )),
    }
}

/// Like [`string_param`] for an optional parameter: absent (or JSON `null`) is `None`.
pub fn optional_string_param<T: FromStr>(values: &JsonObject, name: &str) -> Result<Option<T>, ErrorData>
where
    T::Err: std::fmt::Display,
{
    let text = match values.get(name) {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::String(text)) => text.clone(),
        // Prompt arguments are strings; a client that sends a number or boolean still
        // means its text.
        Some(other) => other.to_string(),
    };
    text.parse::<T>().map(Some).map_err(|error| {
        // Say what was sent unless the parser's message already does.
        let error = error.to_string();
        let message = match error.contains(&text) {
            true => format!("argument '{name}': {error}"),
            false => format!("argument '{name}': {error} (got '{text}')"),
        };
        ErrorData::invalid_params(message, None)
    })
}
