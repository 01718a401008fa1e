//! Cargo's `--timings` report: the unit data in `cargo-timing.html`, and what share of a
//! build a set of crates takes.

use std::collections::HashSet;
use std::path::Path;

use serde::Deserialize;

/// One unit of a build (a crate's lib, bin, build script or its run), as cargo reports it.
#[derive(Debug, Clone, Deserialize)]
pub struct Unit {
    pub name: String,
    pub version: String,
    /// Seconds from the build's start.
    pub start: f64,
    /// Seconds.
    pub duration: f64,
}

impl Unit {
    fn end(&self) -> f64 {
        self.start + self.duration
    }
}

/// Reads `<target dir>/cargo-timings/cargo-timing.html`.
pub fn read(target_dir: &Path) -> Result<Vec<Unit>, String> {
    let path = target_dir.join("cargo-timings/cargo-timing.html");
    let html = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&html).map_err(|e| format!("{}: {e}", path.display()))
}

/// The `const UNIT_DATA = [...]` array of the report's script.
pub fn parse(html: &str) -> Result<Vec<Unit>, String> {
    const MARK: &str = "const UNIT_DATA = ";
    let at = html.find(MARK).ok_or("no UNIT_DATA in the timing report")?;
    let json = &html[at + MARK.len()..];
    // The array is followed by `;` and more script: read the first JSON value only.
    serde_json::Deserializer::from_str(json)
        .into_iter::<Vec<Unit>>()
        .next()
        .ok_or("empty UNIT_DATA")?
        .map_err(|e| format!("UNIT_DATA: {e}"))
}

/// Sum of the units' durations.
pub fn total(units: &[&Unit]) -> f64 {
    units.iter().map(|u| u.duration).sum()
}

/// When the last unit ended: the build's length on cargo's clock.
pub fn span(units: &[Unit]) -> f64 {
    units.iter().map(Unit::end).fold(0.0, f64::max)
}

/// How long at least one of `units` was being built (the union of their intervals).
pub fn busy(units: &[&Unit]) -> f64 {
    let mut intervals: Vec<(f64, f64)> = units.iter().map(|u| (u.start, u.end())).collect();
    intervals.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut covered = 0.0;
    let mut current: Option<(f64, f64)> = None;
    for (start, end) in intervals {
        current = match current {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                covered += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    covered + current.map_or(0.0, |(s, e)| e - s)
}

/// The units of `build` whose crate `other` does not build at all (by name and version).
pub fn only_in<'a>(build: &'a [Unit], other: &[Unit]) -> Vec<&'a Unit> {
    let crates: HashSet<(&str, &str)> = other
        .iter()
        .map(|u| (u.name.as_str(), u.version.as_str()))
        .collect();
    build
        .iter()
        .filter(|u| !crates.contains(&(u.name.as_str(), u.version.as_str())))
        .collect()
}

/// Unit time per crate, largest first.
pub fn by_crate(units: &[&Unit]) -> Vec<(String, f64)> {
    let mut sums: Vec<(String, f64)> = Vec::new();
    for unit in units {
        match sums.iter_mut().find(|(name, _)| *name == unit.name) {
            Some((_, sum)) => *sum += unit.duration,
            None => sums.push((unit.name.clone(), unit.duration)),
        }
    }
    sums.sort_by(|a, b| b.1.total_cmp(&a.1));
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"<script>
DURATION = 1;
const UNIT_DATA = [
  {"i": 0, "name": "itoa", "version": "1.0.19", "mode": "todo", "target": "", "features": [],
   "start": 0.0, "duration": 2.0, "unblocked_units": [1], "unblocked_rmeta_units": [],
   "sections": [["frontend", {"start": 0.0, "end": 0.09}]]},
  {"i": 1, "name": "tt", "version": "0.1.0", "mode": "todo", "target": " tt \"bin\"", "features": [],
   "start": 1.0, "duration": 2.0, "unblocked_units": [], "unblocked_rmeta_units": [], "sections": null},
  {"i": 2, "name": "late", "version": "0.1.0", "target": "", "start": 5.0, "duration": 1.0}
];
const CONCURRENCY_DATA = [];
</script>"#;

    #[test]
    fn reads_the_unit_data_and_sums_it() {
        let units = parse(REPORT).expect("parses");
        assert_eq!(units.len(), 3);
        assert_eq!(units[1].name, "tt");
        let all: Vec<&Unit> = units.iter().collect();
        assert_eq!(total(&all), 5.0);
        assert_eq!(span(&units), 6.0);
        // [0, 2] and [1, 3] overlap: 3 s, plus [5, 6].
        assert_eq!(busy(&all), 4.0);
        let other = [units[0].clone()];
        assert_eq!(only_in(&units, &other).len(), 2);
        assert_eq!(by_crate(&all)[0].1, 2.0);
    }

    #[test]
    fn a_report_without_unit_data_is_an_error() {
        assert!(parse("<html></html>").is_err());
    }
}
