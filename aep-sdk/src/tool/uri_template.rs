//! [`UriTemplate`]: the RFC 6570 subset MCP resource templates use, matched against a
//! `resources/read` URI.

use super::JsonObject;

/// A URI template of literal text and `{name}` (one path segment) or `{+name}`
/// (reserved expansion: may span `/`) variables, e.g. `notes://{id}` or
/// `hash://sha256/{text}`.
///
/// ```
/// use aep_sdk::tool::UriTemplate;
///
/// let template = UriTemplate::parse("notes://{folder}/{id}").unwrap();
/// assert_eq!(template.variables().collect::<Vec<_>>(), ["folder", "id"]);
/// let vars = template.matches("notes://work/hello%20world").unwrap();
/// assert_eq!(vars["id"], "hello world");
/// assert!(template.matches("notes://work").is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    parts: Vec<Part>,
}

use aep_sdk_internals::uri_template::{self as grammar, Part};

impl UriTemplate {
    /// Parses `template`; an error says what is wrong (an unclosed brace, an empty or
    /// repeated name, two variables with nothing between them, an unsupported operator).
    pub fn parse(template: &str) -> Result<Self, String> {
        grammar::parse(template).map(|parts| Self { parts })
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        grammar::variables(&self.parts)
    }

    /// The variables' values if `uri` matches, percent-decoded; `None` otherwise. A
    /// value is never empty, and a `{name}` value never holds a `/`.
    pub fn matches(&self, uri: &str) -> Option<JsonObject> {
        let mut vars = JsonObject::new();
        let mut rest = uri;
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(text) => rest = rest.strip_prefix(text.as_str())?,
                Part::Variable { name, reserved } => {
                    // The value runs to the next literal (or to the end).
                    let end = match self.parts.get(i + 1) {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let raw = &rest[..end];
                    if raw.is_empty() || (!reserved && raw.contains('/')) {
                        return None;
                    }
                    let value = percent_encoding::percent_decode_str(raw).decode_utf8().ok()?;
                    vars.insert(name.clone(), value.into_owned().into());
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}
