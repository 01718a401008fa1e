//! A verified token and its cache: tokens are kept by digest (never as they are) until
//! they expire, so a repeated token costs one lookup, not a signature check or an
//! introspection request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::caller::{Caller, TokenFacts};

/// Why a token was not accepted.
#[derive(Debug, Clone)]
pub(crate) enum Refusal {
    /// The token is not good here: 401 `invalid_token`.
    Invalid(String),
    /// It cannot be checked now (its issuer cannot be reached): 503.
    Unavailable(String),
}

impl Refusal {
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        Self::Invalid(reason.into())
    }
}

/// What a token proved, before the audience is compared with the resource requested.
pub(crate) struct Verified {
    pub(crate) facts: TokenFacts,
    pub(crate) audiences: Vec<String>,
    /// `exp`, seconds since the epoch.
    pub(crate) expires_at: u64,
}

/// A cached verdict.
#[derive(Clone)]
pub(crate) enum Cached {
    /// Good until `until` (seconds since the epoch) for these audiences.
    Accepted {
        caller: Caller,
        audiences: Arc<[String]>,
        until: u64,
    },
    /// Refused (an introspection answer `active: false`) until `until`.
    Refused { reason: Arc<str>, until: u64 },
}

impl Cached {
    fn until(&self) -> u64 {
        match self {
            Cached::Accepted { until, .. } | Cached::Refused { until, .. } => *until,
        }
    }
}

/// A token's key in the cache: a 64-bit hash under a key that is random per process,
/// and the token's last 16 bytes. The token itself is never kept.
///
/// A forged token reaches another's verdict only if both match: without the token, no
/// one knows its last 16 bytes (in a JWT, 96 bits of its signature; in an opaque token,
/// of its random value), so no hash weakness helps; and two real tokens differ in them.
/// foldhash rather than SHA-256 or SipHash: hashing a 700-byte JWT with SHA-256 costs
/// ~30k instructions without the CPU's SHA extensions (as under callgrind), as much as
/// the rest of a `/chat` request, and SipHash ~1.5k.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Digest {
    hash: u64,
    tail: [u8; 16],
}

/// Computes [`Digest`]s with one secret key.
pub(crate) struct Digester(foldhash::quality::RandomState);

impl Digester {
    pub(crate) fn new() -> Self {
        Self(foldhash::quality::RandomState::default())
    }

    pub(crate) fn digest(&self, token: &[u8]) -> Digest {
        use std::hash::BuildHasher;
        let mut tail = [0u8; 16];
        let end = &token[token.len().saturating_sub(16)..];
        tail[..end.len()].copy_from_slice(end);
        Digest {
            hash: self.0.hash_one(token),
            tail,
        }
    }
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Verdicts by token digest, at most `capacity` of them.
pub(crate) struct TokenCache {
    entries: Mutex<HashMap<Digest, Cached, foldhash::fast::RandomState>>,
    capacity: usize,
}

impl TokenCache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            entries: Mutex::default(),
            capacity,
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<Digest, Cached, foldhash::fast::RandomState>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The verdict on `digest`, if it is still current at `now`.
    pub(crate) fn get(&self, digest: &Digest, now: u64) -> Option<Cached> {
        let mut entries = self.entries();
        let cached = entries.get(digest)?;
        if cached.until() < now {
            entries.remove(digest);
            return None;
        }
        Some(cached.clone())
    }

    /// Keeps `verdict` until its time is up. A full cache first drops what has expired,
    /// then (many distinct live tokens at once) everything: verdicts are recomputed.
    pub(crate) fn put(&self, digest: Digest, verdict: Cached, now: u64) {
        let mut entries = self.entries();
        if entries.len() >= self.capacity {
            entries.retain(|_, c| c.until() >= now);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(digest, verdict);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(until: u64) -> Cached {
        Cached::Refused {
            reason: "no".into(),
            until,
        }
    }

    #[test]
    fn verdicts_last_until_their_time_and_the_cache_stays_bounded() {
        let digester = Digester::new();
        let digest = |token: &str| digester.digest(token.as_bytes());
        let cache = TokenCache::new(2);
        cache.put(digest("a"), refused(100), 10);
        assert!(cache.get(&digest("a"), 100).is_some());
        assert!(cache.get(&digest("a"), 101).is_none(), "expired");
        assert_eq!(cache.len(), 0, "an expired verdict is dropped when seen");
        cache.put(digest("b"), refused(50), 10);
        cache.put(digest("c"), refused(500), 10);
        cache.put(digest("d"), refused(500), 60);
        assert!(cache.get(&digest("b"), 60).is_none(), "expired ones go first");
        assert!(cache.get(&digest("c"), 60).is_some());
        assert!(cache.len() <= 2);
        assert_ne!(digest("a"), digest("b"));
        assert_eq!(digest("a"), digest("a"));
        assert_ne!(
            Digester::new().digest(b"a"),
            digest("a"),
            "the key differs between caches"
        );
        assert_ne!(
            digest("same-prefix-then-AAAAAAAAAAAAAAAA"),
            digest("same-prefix-then-AAAAAAAAAAAAAAAB")
        );
    }
}
