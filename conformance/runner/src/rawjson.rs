//! Where each value sits in a JSON text: enough to hand the SDK's digest functions the
//! schema text exactly as an extension served it (number tokens and member order kept).

use std::ops::Range;

/// A JSON value with the byte range of its text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// An object: members in written order.
    Object(Vec<(String, Node)>, Range<usize>),
    /// An array.
    Array(Vec<Node>, Range<usize>),
    /// A string, number, `true`, `false` or `null`.
    Scalar(Range<usize>),
}

impl Node {
    pub(crate) fn span(&self) -> Range<usize> {
        match self {
            Node::Object(_, span) | Node::Array(_, span) | Node::Scalar(span) => span.clone(),
        }
    }

    /// The first member called `name` of an object.
    pub(crate) fn member(&self, name: &str) -> Option<&Node> {
        match self {
            Node::Object(members, _) => members.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The items of an array (empty for anything else).
    pub(crate) fn items(&self) -> &[Node] {
        match self {
            Node::Array(items, _) => items,
            _ => &[],
        }
    }
}

const MAX_DEPTH: usize = 256;

/// Parses `text` (one JSON value, surrounding whitespace allowed).
pub(crate) fn parse(text: &str) -> Result<Node, String> {
    let mut parser = Parser { text, pos: 0 };
    parser.ws();
    let node = parser.value(0)?;
    parser.ws();
    if parser.pos != text.len() {
        return Err(format!("unexpected content at byte {}", parser.pos));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn fail<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.pos))
    }

    fn value(&mut self, depth: usize) -> Result<Node, String> {
        if depth > MAX_DEPTH {
            return self.fail("nesting too deep");
        }
        let start = self.pos;
        match self.peek() {
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                    return Ok(Node::Object(members, start..self.pos));
                }
                loop {
                    self.ws();
                    let key_span = self.string()?;
                    let key: String = serde_json::from_str(&self.text[key_span])
                        .map_err(|e| format!("bad member name: {e}"))?;
                    self.ws();
                    if self.peek() != Some(b':') {
                        return self.fail("expected ':'");
                    }
                    self.pos += 1;
                    self.ws();
                    let value = self.value(depth + 1)?;
                    members.push((key, value));
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Node::Object(members, start..self.pos));
                        }
                        _ => return self.fail("expected ',' or '}'"),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                    return Ok(Node::Array(items, start..self.pos));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Node::Array(items, start..self.pos));
                        }
                        _ => return self.fail("expected ',' or ']'"),
                    }
                }
            }
            Some(b'"') => Ok(Node::Scalar(self.string()?)),
            Some(b'-' | b'0'..=b'9') => {
                while matches!(self.peek(), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
                    self.pos += 1;
                }
                serde_json::from_str::<serde_json::Number>(&self.text[start..self.pos])
                    .map_err(|e| format!("bad number at byte {start}: {e}"))?;
                Ok(Node::Scalar(start..self.pos))
            }
            _ => {
                for literal in ["true", "false", "null"] {
                    if self.text[self.pos..].starts_with(literal) {
                        self.pos += literal.len();
                        return Ok(Node::Scalar(start..self.pos));
                    }
                }
                self.fail("expected a JSON value")
            }
        }
    }

    /// A string token's span, quotes included.
    fn string(&mut self) -> Result<Range<usize>, String> {
        let start = self.pos;
        if self.peek() != Some(b'"') {
            return self.fail("expected a string");
        }
        self.pos += 1;
        loop {
            match self.peek() {
                None => return self.fail("unterminated string"),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(start..self.pos);
                }
                Some(b'\\') => self.pos += 2,
                Some(_) => self.pos += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_keep_the_text_as_written() {
        let text = r#"{"optionSets":[{"versions":[{"schema": {"b":1.0, "a" : [1e2]} ,"x":"\"}"}]}]}"#;
        let root = parse(text).unwrap();
        let schema = root.member("optionSets").unwrap().items()[0]
            .member("versions")
            .unwrap()
            .items()[0]
            .member("schema")
            .unwrap();
        assert_eq!(&text[schema.span()], r#"{"b":1.0, "a" : [1e2]}"#);
    }

    #[test]
    fn rejects_broken_text() {
        for text in ["{", "[1,]", "{\"a\" 1}", "tru", "1 2", "\"abc"] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
