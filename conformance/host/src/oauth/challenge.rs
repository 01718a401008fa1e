//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 section 3, RFC 9728
//! section 5.1): `resource_metadata`, `scope`, `error`.

/// The parameters of the header's `Bearer` challenge (other schemes are skipped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    params: Vec<(String, String)>,
}

impl Challenge {
    /// The `Bearer` challenge of `header`; `None` when it has none.
    pub fn parse(header: &str) -> Option<Self> {
        let mut parser = Parser {
            rest: header.as_bytes(),
        };
        let mut bearer: Option<Challenge> = None;
        let mut in_bearer = false;
        while let Some(token) = parser.token() {
            if parser.eat(b'=') {
                let value = parser.value();
                if in_bearer && let Some(challenge) = bearer.as_mut() {
                    challenge.params.push((token.to_ascii_lowercase(), value));
                }
            } else {
                // A scheme name starts the next challenge.
                in_bearer = token.eq_ignore_ascii_case("bearer") && bearer.is_none();
                if in_bearer {
                    bearer = Some(Challenge::default());
                }
            }
        }
        bearer
    }

    /// A parameter's value (names are case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `resource_metadata`: where the protected resource metadata is (RFC 9728).
    pub fn resource_metadata(&self) -> Option<&str> {
        self.get("resource_metadata").filter(|v| !v.is_empty())
    }

    /// `scope`, split on spaces (empty when absent).
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.get("scope").unwrap_or_default())
    }

    /// `error`, e.g. `invalid_token` or `insufficient_scope`.
    pub fn error(&self) -> Option<&str> {
        self.get("error")
    }

    /// Whether this is a step-up request (403 `insufficient_scope`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error() == Some("insufficient_scope")
    }
}

/// A space-separated scope string as a list, without empty entries.
pub fn split_scopes(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_owned).collect()
}

struct Parser<'a> {
    rest: &'a [u8],
}

impl Parser<'_> {
    fn skip(&mut self, separators: &[u8]) {
        while let Some((first, rest)) = self.rest.split_first()
            && separators.contains(first)
        {
            self.rest = rest;
        }
    }

    /// The next token (RFC 9110 tchar), skipping spaces and commas before it.
    fn token(&mut self) -> Option<String> {
        loop {
            self.skip(b" \t,");
            let end = self
                .rest
                .iter()
                .position(|c| !is_tchar(*c))
                .unwrap_or(self.rest.len());
            if end > 0 {
                let token = String::from_utf8_lossy(&self.rest[..end]).into_owned();
                self.rest = &self.rest[end..];
                return Some(token);
            }
            // Not a token (stray character): drop it and go on.
            let (_, rest) = self.rest.split_first()?;
            self.rest = rest;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip(b" \t");
        match self.rest.split_first() {
            Some((first, rest)) if *first == byte => {
                self.rest = rest;
                true
            }
            _ => false,
        }
    }

    /// A token or a quoted string (with `\` escapes).
    fn value(&mut self) -> String {
        self.skip(b" \t");
        if self.rest.first() == Some(&b'"') {
            let mut value = Vec::new();
            let mut bytes = self.rest[1..].iter();
            let mut used = 1;
            while let Some(&c) = bytes.next() {
                used += 1;
                match c {
                    b'\\' => {
                        if let Some(&escaped) = bytes.next() {
                            used += 1;
                            value.push(escaped);
                        }
                    }
                    b'"' => break,
                    other => value.push(other),
                }
            }
            self.rest = &self.rest[used.min(self.rest.len())..];
            return String::from_utf8_lossy(&value).into_owned();
        }
        // token68 may end in '='.
        let end = self
            .rest
            .iter()
            .position(|c| !(is_tchar(*c) || *c == b'=' || *c == b'/'))
            .unwrap_or(self.rest.len());
        let value = String::from_utf8_lossy(&self.rest[..end]).into_owned();
        self.rest = &self.rest[end..];
        value
    }
}

fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bearer_parameters_quoted_or_not() {
        let c = Challenge::parse(
            r#"Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp", scope="a b""#,
        )
        .unwrap();
        assert_eq!(
            c.resource_metadata(),
            Some("https://h/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.scopes(), ["a", "b"]);
        let c = Challenge::parse(r#"bearer error=insufficient_scope, scope="x""#).unwrap();
        assert!(c.is_insufficient_scope());
        assert_eq!(c.scopes(), ["x"]);
    }

    #[test]
    fn other_schemes_and_escapes() {
        let c = Challenge::parse(
            r#"Basic realm="r", DPoP algs="ES256", Bearer error_description="say \"no\"", realm=api"#,
        )
        .unwrap();
        assert_eq!(c.get("error_description"), Some(r#"say "no""#));
        assert_eq!(c.get("REALM"), Some("api"));
        assert_eq!(c.get("algs"), None);
        assert!(Challenge::parse(r#"Basic realm="r""#).is_none());
        assert_eq!(Challenge::parse("Bearer").unwrap(), Challenge::default());
    }
}
