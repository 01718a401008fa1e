//! Label values of bounded cardinality: the first values seen are kept as they are, the
//! rest are counted under `other`. Each value is shared (`Arc<str>`), so recording a
//! sample clones a pointer, never a string.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::{Arc, RwLock};

use prometheus_client::encoding::{EncodeLabelValue, LabelValueEncoder};

/// The label value past the bound.
pub(crate) const OTHER: &str = "other";

/// One label value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Label(Arc<str>);

impl Label {
    pub(crate) fn new(value: &str) -> Self {
        Self(value.into())
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// The shared value (a pointer copy).
    #[cfg(feature = "otel")]
    pub(crate) fn shared(&self) -> Arc<str> {
        self.0.clone()
    }
}

impl EncodeLabelValue for &Label {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(&self.0)
    }
}

impl EncodeLabelValue for Label {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        encoder.write_str(&self.0)
    }
}

/// At most `limit` distinct values, then [`OTHER`].
#[derive(Debug)]
pub(crate) struct Bounded {
    limit: usize,
    /// Keyed with foldhash: at most `limit` entries, so no flooding, and a short model
    /// or route name hashes in a fraction of SipHash's time.
    values: RwLock<HashMap<Box<str>, Label, foldhash::fast::RandomState>>,
    other: Label,
}

impl Bounded {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            values: RwLock::new(HashMap::default()),
            other: Label::new(OTHER),
        }
    }

    /// Makes `key` read as `value`'s label (a literal route as its template). Counts
    /// towards the limit like any value.
    pub(crate) fn alias(&self, key: &str, value: &str) {
        let label = self.get(value);
        let mut values = self.values.write().unwrap_or_else(|e| e.into_inner());
        if values.len() < self.limit {
            values.insert(key.into(), label);
        }
    }

    /// The label for `value`: itself while fewer than `limit` values were seen (or it is
    /// one of them), else [`OTHER`].
    pub(crate) fn get(&self, value: &str) -> Label {
        if let Some(label) = self.values.read().unwrap_or_else(|e| e.into_inner()).get(value) {
            return label.clone();
        }
        let mut values = self.values.write().unwrap_or_else(|e| e.into_inner());
        if let Some(label) = values.get(value) {
            return label.clone();
        }
        if values.len() >= self.limit {
            return self.other.clone();
        }
        let label = Label::new(value);
        values.insert(value.into(), label.clone());
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_past_the_limit_are_other() {
        let bounded = Bounded::new(2);
        assert_eq!(bounded.get("a"), Label::new("a"));
        assert_eq!(bounded.get("b"), Label::new("b"));
        assert_eq!(bounded.get("c"), Label::new(OTHER));
        // The first values stay themselves.
        assert_eq!(bounded.get("a"), Label::new("a"));
        assert_eq!(bounded.get("d"), Label::new(OTHER));
    }
}
