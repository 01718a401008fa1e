//! Text renderings of a [`Report`]: the table (with optional ANSI colours) and JUnit XML.

use std::fmt::Write as _;

use crate::catalog::Level;
use crate::report::{CheckResult, Report, Status};

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";

struct Paint {
    color: bool,
}

impl Paint {
    fn paint(&self, style: &str, text: &str) -> String {
        if self.color {
            format!("{style}{text}{RESET}")
        } else {
            text.to_owned()
        }
    }
}

fn status_label(status: Status) -> (&'static str, &'static str) {
    match status {
        Status::Passed => ("pass", GREEN),
        Status::Failed => ("FAIL", RED),
        Status::Warned => ("warn", YELLOW),
        Status::Skipped => ("skip", DIM),
    }
}

/// Shortens `text` to `max` characters with an ellipsis.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

impl Report {
    /// The human-readable table (`--format table`): one row per check, the reason and
    /// details of every failure, warning and skip under its row, a summary, and the plain
    /// closing line `N passed, N failed[, N skipped]`. `color` adds ANSI colours to
    /// everything but the closing line.
    pub fn to_table(&self, color: bool) -> String {
        let paint = Paint { color };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} {} (revisions {}{})",
            paint.paint(BOLD, "AEP conformance of"),
            self.target,
            self.revisions.join(", "),
            if self.strict { ", strict" } else { "" }
        );
        out.push('\n');
        let width = self.results.iter().map(|r| r.id.len()).max().unwrap_or(10).max(5);
        let _ = writeln!(
            out,
            "{}",
            paint.paint(
                DIM,
                &format!(
                    "{:<6}{:<width$}  {:<11}  {:<5}  DESCRIPTION",
                    "", "CHECK", "LEVEL", "§"
                )
            )
        );
        for result in &self.results {
            let (label, style) = status_label(result.status);
            let level = match result.level {
                Level::Required => "required",
                Level::Recommended => "recommended",
            };
            let _ = writeln!(
                out,
                "{:<6}{:<width$}  {:<11}  {:<5}  {}",
                paint.paint(style, &format!("{label:<4}")) + "  ",
                result.id,
                level,
                result.section,
                clip(result.description, 100)
            );
            if result.status != Status::Passed {
                rows_below(&mut out, result, &paint);
            }
        }
        out.push('\n');
        let counts = self.counts();
        let mut summary = format!(
            "Summary: {} checks in {:.1} s: {} passed, {} failed, {} skipped",
            self.results.len(),
            self.duration.as_secs_f64(),
            counts.passed,
            counts.failed,
            counts.skipped
        );
        if counts.warned > 0 {
            let ids: Vec<&str> = self.warned().iter().map(|r| r.id).collect();
            let _ = write!(
                summary,
                "; {} recommended check(s) with a warning, counted as passed without --strict: {}",
                counts.warned,
                ids.join(", ")
            );
        }
        let style = if counts.failed > 0 { RED } else { GREEN };
        let _ = writeln!(out, "{}", paint.paint(style, &summary));
        if counts.failed > 0 {
            let ids: Vec<&str> = self.failed().iter().map(|r| r.id).collect();
            let _ = writeln!(
                out,
                "{}",
                paint.paint(RED, &format!("Failed: {}", ids.join(", ")))
            );
        }
        let _ = writeln!(out, "{}", self.closing_line());
        out
    }

    /// JUnit XML (`--format junit`): one `<testsuite>`, one `<testcase>` per check with
    /// `<failure>` or `<skipped>`; warnings pass with the problem in `<system-out>`.
    pub fn to_junit(&self) -> String {
        let counts = self.counts();
        let seconds = |d: std::time::Duration| format!("{:.3}", d.as_secs_f64());
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            "<testsuites name=\"aep-conformance\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\">",
            self.results.len(),
            counts.failed,
            counts.skipped,
            seconds(self.duration)
        );
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\">",
            xml_escape(&format!("aep-conformance {}", self.target)),
            self.results.len(),
            counts.failed,
            counts.skipped,
            seconds(self.duration)
        );
        let _ = writeln!(out, "    <properties>");
        let _ = writeln!(
            out,
            "      <property name=\"target\" value=\"{}\"/>",
            xml_escape(&self.target)
        );
        let _ = writeln!(
            out,
            "      <property name=\"revisions\" value=\"{}\"/>",
            xml_escape(&self.revisions.join(","))
        );
        let _ = writeln!(out, "      <property name=\"strict\" value=\"{}\"/>", self.strict);
        let _ = writeln!(out, "    </properties>");
        for result in &self.results {
            let classname = format!("aep.section{}", result.id.split('.').next().unwrap_or(""));
            let name = format!(
                "{} ({}): {}",
                result.id,
                result.level.as_str(),
                result.description
            );
            let _ = write!(
                out,
                "    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"",
                xml_escape(&classname),
                xml_escape(&name),
                seconds(result.duration)
            );
            let reason = result.reason.clone().unwrap_or_default();
            let body = result.details.join("\n");
            match result.status {
                Status::Passed if result.details.is_empty() => out.push_str("/>\n"),
                Status::Passed => {
                    let _ = writeln!(
                        out,
                        ">\n      <system-out>{}</system-out>\n    </testcase>",
                        xml_escape(&body)
                    );
                }
                Status::Failed => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\" type=\"{}\">{}</failure>\n    </testcase>",
                        xml_escape(&reason),
                        result.level.as_str(),
                        xml_escape(&body)
                    );
                }
                Status::Warned => {
                    let _ = writeln!(
                        out,
                        ">\n      <system-out>{}</system-out>\n    </testcase>",
                        xml_escape(&format!("warning (recommended check): {reason}\n{body}"))
                    );
                }
                Status::Skipped => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        xml_escape(&reason)
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

fn rows_below(out: &mut String, result: &CheckResult, paint: &Paint) {
    let indent = " ".repeat(6);
    if let Some(reason) = &result.reason {
        let _ = writeln!(out, "{indent}{} {}", paint.paint(DIM, "└"), clip(reason, 300));
    }
    let shown = if result.status == Status::Skipped { 0 } else { 12 };
    for detail in result.details.iter().take(shown) {
        if Some(detail) == result.reason.as_ref() {
            continue;
        }
        let _ = writeln!(out, "{indent}  {} {}", paint.paint(DIM, "·"), clip(detail, 300));
    }
    if result.details.len() > shown && shown > 0 {
        let _ = writeln!(
            out,
            "{indent}  {}",
            paint.paint(
                DIM,
                &format!("… {} more (see --format json)", result.details.len() - shown)
            )
        );
    }
}

/// Escapes text for XML attribute values and character data; characters XML 1.0 does not
/// allow (most control characters, unpaired surrogates cannot occur in Rust strings) are
/// replaced by U+FFFD.
pub(crate) fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || matches!(c, '\u{FFFE}' | '\u{FFFF}') => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CATALOG;
    use std::time::Duration;

    fn report() -> Report {
        let results = vec![
            CheckResult::new(
                &CATALOG[0],
                Status::Passed,
                None,
                vec![],
                Duration::from_millis(3),
            ),
            CheckResult::new(
                &CATALOG[1],
                Status::Failed,
                Some("got <html> & \"quotes\"".into()),
                vec!["line\u{1}two".into()],
                Duration::from_millis(4),
            ),
            CheckResult::new(
                &CATALOG[2],
                Status::Skipped,
                Some("n/a".into()),
                vec![],
                Duration::ZERO,
            ),
            CheckResult::new(
                crate::catalog::info("3.stream.accel-buffering").unwrap(),
                Status::Warned,
                Some("missing".into()),
                vec![],
                Duration::ZERO,
            ),
        ];
        Report {
            target: "http://h:1".into(),
            revisions: vec!["1.0".into()],
            strict: false,
            results,
            duration: Duration::from_millis(20),
        }
    }

    #[test]
    fn table_ends_with_the_plain_closing_line() {
        let report = report();
        for color in [false, true] {
            let table = report.to_table(color);
            let last = table.lines().last().unwrap();
            assert_eq!(last, "2 passed, 1 failed, 1 skipped");
            assert_eq!(table.contains('\x1b'), color);
        }
        assert!(!report.is_success());
        assert_eq!(report.failed().len(), 1);
    }

    #[test]
    fn closing_line_omits_zero_skips() {
        let mut report = report();
        report.results.retain(|r| r.status != Status::Skipped);
        assert_eq!(report.closing_line(), "2 passed, 1 failed");
    }

    #[test]
    fn junit_escapes_and_counts() {
        let xml = report().to_junit();
        assert!(
            xml.contains("tests=\"4\" failures=\"1\" errors=\"0\" skipped=\"1\""),
            "{xml}"
        );
        assert!(
            xml.contains("message=\"got &lt;html&gt; &amp; &quot;quotes&quot;\""),
            "{xml}"
        );
        assert!(xml.contains("line\u{FFFD}two"), "{xml}");
        assert!(xml.contains("<skipped message=\"n/a\"/>"));
        assert!(!xml.contains('\u{1}'));
    }

    #[test]
    fn json_has_statuses_and_levels() {
        let json: serde_json::Value = serde_json::from_str(&report().to_json()).unwrap();
        assert_eq!(json["results"][1]["status"], "failed");
        assert_eq!(json["results"][3]["level"], "recommended");
        assert_eq!(json["results"][0]["durationMs"], 3);
    }
}
