//! The two AEP protocol revisions an extension serves.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An AEP protocol revision. An extension serves every revision, each on its own
/// discovery route; a client asks for the one it speaks and rejects any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProtocolVersion {
    /// V1 of the design records: `"1.0"` at `/.well-known/agentstration`.
    V1,
    /// The published reference revision: `"2026-08-01"` at `/.well-known/aep`.
    V2026_08_01,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 2] = [ProtocolVersion::V1, ProtocolVersion::V2026_08_01];

    /// The newest revision; what the canonical client asks for by default.
    pub const LATEST: ProtocolVersion = ProtocolVersion::V2026_08_01;

    /// The `protocolVersion` string of this revision.
    pub const fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V1 => "1.0",
            ProtocolVersion::V2026_08_01 => "2026-08-01",
        }
    }

    /// The discovery route that serves this revision's manifest.
    pub const fn discovery_path(self) -> &'static str {
        match self {
            ProtocolVersion::V1 => "/.well-known/agentstration",
            ProtocolVersion::V2026_08_01 => "/.well-known/aep",
        }
    }

    /// Parses a `protocolVersion` string; exact match only.
    pub fn from_wire(value: &str) -> Result<Self, UnknownProtocolVersion> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == value)
            .ok_or_else(|| UnknownProtocolVersion(value.to_owned()))
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProtocolVersion {
    type Err = UnknownProtocolVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_wire(s)
    }
}

/// A `protocolVersion` this SDK does not implement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown AEP protocol version {0:?}; supported: \"1.0\", \"2026-08-01\"")]
pub struct UnknownProtocolVersion(pub String);

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = String::deserialize(deserializer)?;
        Self::from_wire(&value).map_err(serde::de::Error::custom)
    }
}
