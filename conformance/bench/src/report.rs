//! The report: a table on stdout and `target/aep-bench/report.json`.

use std::path::Path;

use serde::Serialize;

use crate::stats::Summary;

/// One line of the report: an SDK figure against its baseline.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What was measured.
    pub name: String,
    /// Unit of the figures.
    pub unit: &'static str,
    /// The SDK variant.
    pub sdk: Summary,
    /// The baseline, when there is one.
    pub baseline: Option<Summary>,
    /// sdk / baseline medians.
    pub ratio: Option<f64>,
    /// The goal, in words (e.g. ">= 0.95x").
    pub goal: String,
    /// Whether the goal is met, when it can be judged.
    pub met: Option<bool>,
    /// Free-form notes.
    pub note: String,
}

impl Row {
    pub fn compare(name: impl Into<String>, unit: &'static str, sdk: &[f64], baseline: &[f64]) -> Self {
        let sdk = Summary::of(sdk);
        let baseline = Summary::of(baseline);
        Self {
            name: name.into(),
            unit,
            sdk,
            ratio: Some(sdk.median / baseline.median),
            baseline: Some(baseline),
            goal: String::new(),
            met: None,
            note: String::new(),
        }
    }

    pub fn single(name: impl Into<String>, unit: &'static str, sdk: &[f64]) -> Self {
        Self {
            name: name.into(),
            unit,
            sdk: Summary::of(sdk),
            baseline: None,
            ratio: None,
            goal: String::new(),
            met: None,
            note: String::new(),
        }
    }

    /// Goal on the ratio: at least `min` (throughput) ...
    pub fn ratio_at_least(mut self, min: f64) -> Self {
        self.goal = format!(">= {min:.2}x");
        self.met = self.ratio.map(|r| r >= min);
        self
    }

    /// ... or at most `max` (latency).
    pub fn ratio_at_most(mut self, max: f64) -> Self {
        self.goal = format!("<= {max:.2}x");
        self.met = self.ratio.map(|r| r <= max);
        self
    }

    /// Goal on the SDK median itself.
    pub fn value_at_most(mut self, max: f64, goal: &str) -> Self {
        self.goal = goal.to_owned();
        self.met = Some(self.sdk.median <= max);
        self
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.note = note.into();
        self
    }
}

fn fmt(value: f64) -> String {
    if value.is_nan() {
        "-".into()
    } else if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else if value.abs() >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.4}")
    }
}

/// Prints the table as Markdown.
pub fn print(rows: &[Row]) {
    println!(
        "| measurement | unit | SDK median | baseline median | ratio | spread SDK/base | goal | met | note |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let baseline = row.baseline.map(|b| fmt(b.median)).unwrap_or_else(|| "-".into());
        let ratio = row
            .ratio
            .map(|r| format!("{r:.3}x"))
            .unwrap_or_else(|| "-".into());
        let spread = match row.baseline {
            Some(b) => format!("{:.0}% / {:.0}%", row.sdk.spread_pct(), b.spread_pct()),
            None => format!("{:.0}%", row.sdk.spread_pct()),
        };
        let met = match row.met {
            Some(true) => "yes",
            Some(false) => "NO",
            None => "-",
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.name,
            row.unit,
            fmt(row.sdk.median),
            baseline,
            ratio,
            spread,
            row.goal,
            met,
            row.note
        );
    }
}

/// Writes the rows and the machine description as JSON.
pub fn write_json(rows: &[Row], path: &Path) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let document = serde_json::json!({
        "machine": machine(),
        "rows": rows,
    });
    std::fs::write(path, serde_json::to_vec_pretty(&document).unwrap_or_default())
}

/// CPU model and core count, from /proc.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    format!("{cpu}, {cores} cores")
}
