//! The RFC 6570 subset MCP resource templates use: literal text and `{name}` (one path
//! segment) or `{+name}` (reserved expansion: may span `/`) variables, at least one
//! character of literal text between two variables, each name once.

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Text matched as it is.
    Literal(String),
    /// A variable: `{name}`, or `{+name}` when `reserved`.
    Variable {
        /// Letters, digits and `_`.
        name: String,
        /// `{+name}`: the value may hold `/`.
        reserved: bool,
    },
}

/// Parses `template` into its parts; an error says what is wrong (an unclosed brace,
/// an empty or repeated name, two variables with nothing between them, an unsupported
/// operator).
///
/// ```
/// use aep_sdk_internals::uri_template::{Part, parse};
///
/// let parts = parse("notes://{+path}").unwrap();
/// assert_eq!(parts[1], Part::Variable { name: "path".into(), reserved: true });
/// assert!(parse("x://{a}{b}").is_err());
/// ```
pub fn parse(template: &str) -> Result<Vec<Part>, String> {
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
        if variables(&parts).any(|n| n == name) {
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
    Ok(parts)
}

/// The variable names of `parts`, in order.
pub fn variables(parts: &[Part]) -> impl Iterator<Item = &str> {
    parts.iter().filter_map(|p| match p {
        Part::Variable { name, .. } => Some(name.as_str()),
        Part::Literal(_) => None,
    })
}
