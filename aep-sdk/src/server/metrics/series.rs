//! A histogram family looked up by the identity of its label values. Bounded labels are
//! shared `Arc<str>`s and the rest are `&'static str`s, so a few pointers name a series:
//! the hot path hashes those with foldhash instead of hashing the label strings with
//! the family's SipHash.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::RwLock;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;

use super::bounded::Label;

/// A label set whose series can be named by pointers and numbers.
pub(crate) trait Keyed {
    /// Equal label sets may have different keys (two copies of a `&'static str`), which
    /// only costs one more cache entry for the same series. Different label sets never
    /// share a key while their values are allocated, and the cache keeps each entry's
    /// labels (so their `Arc`s) alive: an address in a key is never reused.
    fn key(&self) -> [usize; 3];
}

/// A bounded label's identity: the address of its shared value.
pub(crate) fn ptr(label: &Label) -> usize {
    label.as_str().as_ptr() as usize
}

/// A static value's identity: its address and length.
pub(crate) fn static_ptr(value: &'static str) -> usize {
    value.as_ptr() as usize ^ (value.len() << 48)
}

/// The cached handles, each with the labels it was made for.
type Handles<L> = RwLock<HashMap<[usize; 3], (L, Histogram), foldhash::fast::RandomState>>;

/// A family of histograms with a cache of handles in front.
pub(crate) struct Series<L> {
    family: Family<L, Histogram, fn() -> Histogram>,
    handles: Handles<L>,
}

impl<L: Keyed + Clone + Hash + Eq + EncodeLabelSet + std::fmt::Debug + Send + Sync + 'static> Series<L> {
    pub(crate) fn new(buckets: fn() -> Histogram) -> Self {
        Self {
            family: Family::new_with_constructor(buckets),
            handles: RwLock::default(),
        }
    }

    /// The family, to register.
    pub(crate) fn family(&self) -> Family<L, Histogram, fn() -> Histogram> {
        self.family.clone()
    }

    /// The histogram of `labels` (a shared handle).
    pub(crate) fn get_or_create(&self, labels: &L) -> Histogram {
        let key = labels.key();
        if let Some((_, histogram)) = self.handles.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return histogram.clone();
        }
        let histogram = self.family.get_or_create(labels).clone();
        self.handles
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, (labels.clone(), histogram.clone()));
        histogram
    }
}
