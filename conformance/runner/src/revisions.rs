//! Which protocol revisions a run covers (`--revision`).

use std::fmt;

use aep_sdk::protocol::ProtocolVersion;

/// Which protocol revisions the discovery and manifest checks cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Revisions {
    /// Only `1.0` (`/.well-known/agentstration`).
    V1,
    /// Only `2026-08-01` (`/.well-known/aep`).
    V2026_08_01,
    /// Both (the default): an extension serves both routes.
    #[default]
    Both,
}

impl Revisions {
    /// The selected revisions, oldest first.
    pub fn list(self) -> Vec<ProtocolVersion> {
        match self {
            Revisions::V1 => vec![ProtocolVersion::V1],
            Revisions::V2026_08_01 => vec![ProtocolVersion::V2026_08_01],
            Revisions::Both => ProtocolVersion::ALL.to_vec(),
        }
    }

    /// Whether `revision` is selected.
    pub fn includes(self, revision: ProtocolVersion) -> bool {
        self.list().contains(&revision)
    }
}

impl std::str::FromStr for Revisions {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, String> {
        match value {
            "1.0" | "v1" | "V1" => Ok(Revisions::V1),
            "2026-08-01" => Ok(Revisions::V2026_08_01),
            "both" | "all" => Ok(Revisions::Both),
            other => Err(format!("unknown revision '{other}': use 1.0, 2026-08-01 or both")),
        }
    }
}

impl fmt::Display for Revisions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Revisions::V1 => "1.0",
            Revisions::V2026_08_01 => "2026-08-01",
            Revisions::Both => "both",
        })
    }
}
