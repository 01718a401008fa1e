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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable { name: String, reserved: bool },
}

impl UriTemplate {
    /// Parses `template`; an error says what is wrong (an unclosed brace, an empty or
    /// repeated name, two variables with nothing between them, an unsupported operator).
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(format!("'{{' without a closing '}}' in '{template}'"));
            };
            let inner = &rest[open + 1..open + close];
            let (reserved, name) = match inner.strip_prefix('+') {
                Some(name) => (true, name),
                None => (false, inner),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!(
                    "'{{{inner}}}' in '{template}': a variable is `{{name}}` or `{{+name}}` with a name of letters, digits and '_'"
                ));
            }
            if matches!(parts.last(), Some(Part::Variable { .. })) {
                return Err(format!(
                    "'{template}' has two variables with no text between them, so a URI cannot be split between them"
                ));
            }
            if parts
                .iter()
                .any(|p| matches!(p, Part::Variable { name: n, .. } if n == name))
            {
                return Err(format!("variable '{name}' appears twice in '{template}'"));
            }
            parts.push(Part::Variable {
                name: name.to_owned(),
                reserved,
            });
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err(format!("'}}' without an opening '{{' in '{template}'"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(Self { parts })
    }

    /// The variable names, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Variable { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
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
