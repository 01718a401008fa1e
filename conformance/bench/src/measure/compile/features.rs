//! The features each build enables on the crates both compile (`cargo tree`), to show that
//! the baseline asks for what the SDK does and to name what else differs.

use std::collections::{BTreeMap, BTreeSet};

/// Crate (name, version) -> the features its build enables, from
/// `cargo tree -e normal,build -f '{p}|{f}' --prefix none`.
pub type Features = BTreeMap<(String, String), BTreeSet<String>>;

pub fn parse(tree: &str) -> Features {
    let mut features = Features::new();
    for line in tree.lines() {
        let Some((package, list)) = line.split_once('|') else {
            continue;
        };
        let mut words = package.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        // A crate built for the host and the target appears twice: take the union.
        let list = list.trim_end_matches(" (*)").trim();
        features
            .entry((name.to_owned(), version.to_owned()))
            .or_default()
            .extend(list.split(',').filter(|f| !f.is_empty()).map(str::to_owned));
    }
    features
}

/// One crate both builds compile with different features.
#[derive(Debug, PartialEq)]
pub struct Difference {
    pub name: String,
    /// Enabled in the SDK's build only.
    pub sdk_only: Vec<String>,
    /// Enabled in the baseline's build only.
    pub baseline_only: Vec<String>,
}

/// The crates both trees hold, and those whose features differ.
pub fn compare(sdk: &Features, baseline: &Features) -> (usize, Vec<Difference>) {
    let mut shared = 0;
    let mut differences = Vec::new();
    for (key, sdk_features) in sdk {
        let Some(baseline_features) = baseline.get(key) else {
            continue;
        };
        shared += 1;
        if sdk_features != baseline_features {
            differences.push(Difference {
                name: key.0.clone(),
                sdk_only: sdk_features.difference(baseline_features).cloned().collect(),
                baseline_only: baseline_features.difference(sdk_features).cloned().collect(),
            });
        }
    }
    (shared, differences)
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.name)?;
        if !self.sdk_only.is_empty() {
            write!(f, " +{}", self.sdk_only.join(",+"))?;
        }
        if !self.baseline_only.is_empty() {
            write!(f, " -{}", self.baseline_only.join(",-"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_the_features_of_shared_crates() {
        let sdk = parse(
            "aep-sdk v0.1.0 (/w/aep-sdk)|client\nhyper v1.12.0|client,http1,server\nhyper v1.12.0|client,http1,server (*)\nserde v1.0.0|derive,std\nreqwest v0.13.0|json\n",
        );
        let baseline = parse("hyper v1.12.0|http1,server\nserde v1.0.0|derive,std\naxum v0.8.9|\n");
        let (shared, differences) = compare(&sdk, &baseline);
        assert_eq!(shared, 2);
        assert_eq!(
            differences,
            vec![Difference {
                name: "hyper".into(),
                sdk_only: vec!["client".into()],
                baseline_only: vec![],
            }]
        );
        assert_eq!(differences[0].to_string(), "hyper +client");
    }
}
