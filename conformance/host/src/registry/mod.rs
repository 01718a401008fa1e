//! The extension registry: extensions by id with their base URL (host
//! configuration), discovery with exact protocol negotiation, manifest validation and
//! the identity check.
//!
//! A manifest is fetched once per extension and kept; [`Registry::refresh`] fetches it
//! again (the catalog does so once when a contribution is missing) and
//! [`Registry::forget`] drops it. Concurrent users of one extension share one discovery.

mod discovery;
mod entry;

use std::collections::BTreeMap;
use std::sync::Arc;

use aep_sdk::protocol::{Manifest, ProtocolVersion};
use tokio::sync::Mutex;

pub use discovery::discover;
pub use entry::{CONNECT_TIMEOUT, ExtensionEntry, READ_TIMEOUT, describe_endpoint_error, parse_revision};

use crate::error::{ErrorCode, HostError, Result};

/// Extensions by id.
#[derive(Debug, Default)]
pub struct Registry {
    entries: BTreeMap<String, Registered>,
}

#[derive(Debug)]
struct Registered {
    entry: ExtensionEntry,
    manifest: Mutex<Option<Arc<Manifest>>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `id` at `base_url`, negotiating `revision` exactly.
    pub fn register(&mut self, id: &str, base_url: &str, revision: ProtocolVersion) -> Result<()> {
        self.insert(ExtensionEntry::new(id, base_url, revision)?)
    }

    /// Registers an entry; an id registered twice is a configuration error.
    pub fn insert(&mut self, entry: ExtensionEntry) -> Result<()> {
        if self.entries.contains_key(&entry.id) {
            return Err(HostError::new(
                ErrorCode::ConfigurationInvalid,
                format!("extension '{}' is registered twice", entry.id),
            )
            .with_target(&entry.id));
        }
        let registered = Registered {
            entry: entry.clone(),
            manifest: Mutex::new(None),
        };
        self.entries.insert(entry.id, registered);
        Ok(())
    }

    /// The entry of `id`.
    pub fn get(&self, id: &str) -> Option<&ExtensionEntry> {
        self.entries.get(id).map(|r| &r.entry)
    }

    /// Every registered entry, by id.
    pub fn entries(&self) -> impl Iterator<Item = &ExtensionEntry> {
        self.entries.values().map(|r| &r.entry)
    }

    /// The entry of `id`, or `extension_unreachable` when no base URL is registered
    /// for it (the host cannot reach an extension it does not know where to find).
    pub fn entry(&self, id: &str) -> Result<&ExtensionEntry> {
        self.get(id).ok_or_else(|| not_registered(id))
    }

    /// The validated manifest of extension `id`, discovered on first use and kept.
    ///
    /// Fails with `extension_unreachable`, `protocol_incompatible`,
    /// `aep_descriptor_invalid` or `extension_identity_mismatch` (the manifest's
    /// `extension.id` is not `id`); a failure is not kept, the next call tries again.
    pub async fn manifest(&self, id: &str) -> Result<Arc<Manifest>> {
        let Some(registered) = self.entries.get(id) else {
            return Err(not_registered(id));
        };
        let mut slot = registered.manifest.lock().await;
        if let Some(manifest) = slot.as_ref() {
            return Ok(manifest.clone());
        }
        let manifest = Arc::new(discover(&registered.entry).await?);
        *slot = Some(manifest.clone());
        Ok(manifest)
    }

    /// Discovers `id` again, unless another caller already replaced `seen` (the manifest
    /// this caller found lacking), in which case that newer manifest is returned.
    pub async fn refresh(&self, id: &str, seen: &Arc<Manifest>) -> Result<Arc<Manifest>> {
        let Some(registered) = self.entries.get(id) else {
            return Err(not_registered(id));
        };
        let mut slot = registered.manifest.lock().await;
        if let Some(current) = slot.as_ref()
            && !Arc::ptr_eq(current, seen)
        {
            return Ok(current.clone());
        }
        let manifest = Arc::new(discover(&registered.entry).await?);
        *slot = Some(manifest.clone());
        Ok(manifest)
    }

    /// Drops the kept manifest of `id`; the next use discovers again.
    pub async fn forget(&self, id: &str) {
        if let Some(registered) = self.entries.get(id) {
            *registered.manifest.lock().await = None;
        }
    }
}

fn not_registered(id: &str) -> HostError {
    HostError::new(
        ErrorCode::ExtensionUnreachable,
        format!("extension '{id}' is not registered: no base URL is configured for it"),
    )
    .with_target(id)
}
