//! The model catalogue served by `/api/tags` and `/api/show`, and Ollama's
//! model-name rules (`model` → `registry.ollama.ai/library/model:latest`).

use serde_json::{Map, Value, json};

/// Capability names as Ollama reports them in `/api/show` (`capabilities`).
pub mod capability {
    /// Text generation (`/api/chat`, `/api/generate`).
    pub const COMPLETION: &str = "completion";
    /// Tool calling (`tools` in a chat request).
    pub const TOOLS: &str = "tools";
    /// Reasoning output (`message.thinking`).
    pub const THINKING: &str = "thinking";
    /// Image input (`messages[].images`).
    pub const VISION: &str = "vision";
    /// Embedding model (no chat).
    pub const EMBEDDING: &str = "embedding";
    /// Fill-in-the-middle (`suffix`).
    pub const INSERT: &str = "insert";
}

/// One installed model of the fake server.
///
/// Build one with [`ModelSpec::new`] and the chainable setters; every field
/// has a deterministic default derived from the name.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSpec {
    /// Name as listed by `/api/tags`, e.g. `"qwen3:8b"`. A missing tag means
    /// `latest`; the listed name is always `model:tag` (as Ollama lists it).
    pub name: String,
    /// `details.format`, `"gguf"` by default.
    pub format: String,
    /// `details.family` and the architecture used for `model_info` keys.
    pub family: String,
    /// `details.families`; `None` serialises as `null` like Ollama does.
    pub families: Option<Vec<String>>,
    /// `details.parameter_size`, e.g. `"8.2B"`.
    pub parameter_size: String,
    /// `details.quantization_level`, e.g. `"Q4_K_M"`.
    pub quantization_level: String,
    /// Size in bytes (`/api/tags`).
    pub size: u64,
    /// 64 hex digits (`/api/tags`).
    pub digest: String,
    /// RFC 3339 timestamp (`/api/tags`, `/api/show`).
    pub modified_at: String,
    /// `/api/show` capabilities, e.g. `["completion","tools","thinking"]`.
    pub capabilities: Vec<String>,
    /// `model_info["<family>.context_length"]`; `0` leaves the key out.
    pub context_length: u64,
    /// `model_info["<family>.embedding_length"]`; `0` leaves the key out.
    pub embedding_length: u64,
    /// Extra `model_info` entries, merged last (they win).
    pub extra_model_info: Map<String, Value>,
}

impl ModelSpec {
    /// A completion-only `gguf` model named `name`; the family is the part of
    /// the model name before the first digit-or-punctuation run (`llama3.2` →
    /// `llama`), the digest is derived from the name.
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let parsed = ModelName::parse(&name);
        let base = parsed.model.to_ascii_lowercase();
        let family: String = base.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
        let family = if family.is_empty() { base.clone() } else { family };
        ModelSpec {
            digest: fake_digest(&parsed.full()),
            name: parsed.display_shortest(),
            format: "gguf".into(),
            families: Some(vec![family.clone()]),
            family,
            parameter_size: "7.6B".into(),
            quantization_level: "Q4_K_M".into(),
            size: 4_683_087_332,
            modified_at: "2025-06-01T14:03:07.519284364+02:00".into(),
            capabilities: vec![capability::COMPLETION.into()],
            context_length: 32_768,
            embedding_length: 4_096,
            extra_model_info: Map::new(),
        }
    }

    /// Sets `details.family` (and `families` to `[family]`).
    pub fn family(mut self, family: impl Into<String>) -> Self {
        self.family = family.into();
        self.families = Some(vec![self.family.clone()]);
        self
    }

    /// Replaces the capability list.
    pub fn capabilities<I, S>(mut self, caps: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.capabilities = caps.into_iter().map(Into::into).collect();
        self
    }

    /// Sets `<family>.context_length` in `model_info`.
    pub fn context_length(mut self, n: u64) -> Self {
        self.context_length = n;
        self
    }

    /// Sets `details.parameter_size`.
    pub fn parameter_size(mut self, s: impl Into<String>) -> Self {
        self.parameter_size = s.into();
        self
    }

    /// Sets `details.quantization_level`.
    pub fn quantization_level(mut self, s: impl Into<String>) -> Self {
        self.quantization_level = s.into();
        self
    }

    /// Adds one `model_info` entry.
    pub fn model_info(mut self, key: impl Into<String>, value: Value) -> Self {
        self.extra_model_info.insert(key.into(), value);
        self
    }

    /// True when the model lists `cap` among its capabilities.
    pub fn has(&self, cap: &str) -> bool {
        self.capabilities.iter().any(|c| c == cap)
    }

    /// The default catalogue:
    ///
    /// | name | capabilities | context |
    /// |---|---|---|
    /// | `llama3.2:latest` | completion, tools | 131072 |
    /// | `qwen3:8b` | completion, tools, thinking | 40960 |
    /// | `gemma3:4b` | completion, vision | 131072 |
    /// | `nomic-embed-text:latest` | embedding | 2048 |
    pub fn defaults() -> Vec<ModelSpec> {
        use capability::*;
        vec![
            ModelSpec::new("llama3.2:latest")
                .family("llama")
                .parameter_size("3.2B")
                .capabilities([COMPLETION, TOOLS])
                .context_length(131_072),
            ModelSpec::new("qwen3:8b")
                .family("qwen3")
                .parameter_size("8.2B")
                .capabilities([COMPLETION, TOOLS, THINKING])
                .context_length(40_960),
            ModelSpec::new("gemma3:4b")
                .family("gemma3")
                .parameter_size("4.3B")
                .capabilities([COMPLETION, VISION])
                .context_length(131_072),
            ModelSpec::new("nomic-embed-text:latest")
                .family("nomic-bert")
                .parameter_size("137M")
                .quantization_level("F16")
                .capabilities([EMBEDDING])
                .context_length(2_048),
        ]
    }

    pub(crate) fn details_json(&self) -> Value {
        json!({
            "parent_model": "",
            "format": self.format,
            "family": self.family,
            "families": self.families,
            "parameter_size": self.parameter_size,
            "quantization_level": self.quantization_level,
        })
    }

    pub(crate) fn tags_entry(&self) -> Value {
        json!({
            "name": self.name,
            "model": self.name,
            "modified_at": self.modified_at,
            "size": self.size,
            "digest": self.digest,
            "details": self.details_json(),
        })
    }

    pub(crate) fn show_json(&self) -> Value {
        let mut info = Map::new();
        info.insert("general.architecture".into(), json!(self.family));
        info.insert(
            "general.parameter_count".into(),
            json!(parameter_count(&self.parameter_size)),
        );
        if self.context_length > 0 {
            info.insert(
                format!("{}.context_length", self.family),
                json!(self.context_length),
            );
        }
        if self.embedding_length > 0 {
            info.insert(
                format!("{}.embedding_length", self.family),
                json!(self.embedding_length),
            );
        }
        for (k, v) in &self.extra_model_info {
            info.insert(k.clone(), v.clone());
        }
        json!({
            "modelfile": format!("# Modelfile generated by \"ollama show\"\nFROM {}\n", self.name),
            "template": "{{ .Prompt }}",
            "details": self.details_json(),
            "model_info": info,
            "capabilities": self.capabilities,
            "modified_at": self.modified_at,
        })
    }
}

/// A parsed Ollama model name (`host/namespace/model:tag`), with Ollama's
/// defaults `registry.ollama.ai`, `library` and `latest`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelName {
    /// Registry host.
    pub host: String,
    /// Namespace (`library` for official models).
    pub namespace: String,
    /// Model.
    pub model: String,
    /// Tag.
    pub tag: String,
}

impl ModelName {
    /// Parses like Ollama's `model.ParseName` (defaults filled in; a digest
    /// suffix is not supported).
    pub fn parse(s: &str) -> ModelName {
        let mut rest = s;
        let mut tag = "";
        let last_colon = rest.rfind(':');
        let last_slash = rest.rfind('/');
        if let Some(c) = last_colon
            && last_slash.is_none_or(|sl| c > sl)
        {
            tag = &rest[c + 1..];
            rest = &rest[..c];
        }
        let mut parts = rest.rsplitn(3, '/');
        let model = parts.next().unwrap_or_default();
        let namespace = parts.next();
        let host = parts.next();
        let or = |v: Option<&str>, d: &str| match v {
            Some(x) if !x.is_empty() => x.to_string(),
            _ => d.to_string(),
        };
        ModelName {
            host: or(host, "registry.ollama.ai"),
            namespace: or(namespace, "library"),
            model: model.to_string(),
            tag: or(Some(tag), "latest"),
        }
    }

    /// Whether every part matches Ollama's name grammar.
    pub fn is_valid(&self) -> bool {
        fn part(s: &str, allow_dot: bool, allow_colon: bool) -> bool {
            let b = s.as_bytes();
            if b.is_empty() || b.len() > 350 {
                return false;
            }
            let an = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            an(b[0])
                && b[1..]
                    .iter()
                    .all(|&c| an(c) || c == b'-' || (allow_dot && c == b'.') || (allow_colon && c == b':'))
        }
        part(&self.host, true, true)
            && part(&self.namespace, false, false)
            && part(&self.model, true, false)
            && part(&self.tag, true, false)
    }

    /// `registry.ollama.ai/library/model:tag`.
    pub fn full(&self) -> String {
        format!("{}/{}/{}:{}", self.host, self.namespace, self.model, self.tag)
    }

    /// Ollama's `DisplayShortest`: `model:tag`, `ns/model:tag` or
    /// `host/ns/model:tag`.
    pub fn display_shortest(&self) -> String {
        if !self.host.eq_ignore_ascii_case("registry.ollama.ai") {
            format!("{}/{}/{}:{}", self.host, self.namespace, self.model, self.tag)
        } else if !self.namespace.eq_ignore_ascii_case("library") {
            format!("{}/{}:{}", self.namespace, self.model, self.tag)
        } else {
            format!("{}:{}", self.model, self.tag)
        }
    }

    /// Case-insensitive equality of the fully qualified names (Ollama matches
    /// existing models case-insensitively).
    pub fn same_as(&self, other: &ModelName) -> bool {
        self.full().eq_ignore_ascii_case(&other.full())
    }
}

/// Canonical key used for per-model counters (`show_calls`).
pub(crate) fn canonical(name: &str) -> String {
    ModelName::parse(name).full().to_ascii_lowercase()
}

fn parameter_count(size: &str) -> u64 {
    let s = size.trim();
    let (num, mult) = match s.chars().last() {
        Some('B') | Some('b') => (&s[..s.len() - 1], 1e9),
        Some('M') | Some('m') => (&s[..s.len() - 1], 1e6),
        Some('K') | Some('k') => (&s[..s.len() - 1], 1e3),
        _ => (s, 1.0),
    };
    num.parse::<f64>().map(|n| (n * mult) as u64).unwrap_or(0)
}

/// A stable 64-hex-digit pseudo digest of `s` (FNV-1a, stretched).
pub(crate) fn fake_digest(s: &str) -> String {
    let mut out = String::with_capacity(64);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for round in 0u8..4 {
        for b in s.bytes().chain([round]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        out.push_str(&format!("{h:016x}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let n = ModelName::parse("llama3.2");
        assert_eq!(n.full(), "registry.ollama.ai/library/llama3.2:latest");
        assert_eq!(n.display_shortest(), "llama3.2:latest");
        let n = ModelName::parse("me/m:q4");
        assert_eq!(n.full(), "registry.ollama.ai/me/m:q4");
        assert_eq!(n.display_shortest(), "me/m:q4");
        let n = ModelName::parse("localhost:5000/me/m");
        assert_eq!(n.host, "localhost:5000");
        assert_eq!(n.tag, "latest");
        assert!(n.is_valid());
        assert!(!ModelName::parse("bad name").is_valid());
        assert!(ModelName::parse("QWEN3:8B").same_as(&ModelName::parse("qwen3:8b")));
    }

    #[test]
    fn digest_is_hex64() {
        let d = fake_digest("x");
        assert_eq!(d.len(), 64);
        assert!(d.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
