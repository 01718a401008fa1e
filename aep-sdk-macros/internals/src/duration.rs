//! Durations as people write them in flags, environment variables and attributes: a
//! number (whole or decimal) and a unit, `ms`, `s`, `m` or `h`; a bare number is seconds.
//! `500ms`, `30s`, `1.5m`, `2h`, `30`.

use std::time::Duration;

/// Parses `text` (surrounding spaces allowed); the error says what is wrong, for a person.
///
/// ```
/// use std::time::Duration;
/// use aep_sdk_internals::duration::parse;
///
/// assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
/// assert_eq!(parse("30"), Ok(Duration::from_secs(30)));
/// assert_eq!(parse("1.5m"), Ok(Duration::from_secs(90)));
/// assert!(parse("thirty seconds").is_err());
/// ```
pub fn parse(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = match number.parse() {
        Ok(value) if !number.starts_with('.') && !number.ends_with('.') => value,
        _ => return Err(format!("'{text}' is not a duration (try 500ms, 10s, 5m)")),
    };
    let seconds = match unit.trim() {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("'{text}': unknown unit '{other}' (use ms, s, m or h)")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("'{text}': {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_decimals_and_bare_seconds() {
        assert_eq!(parse(" 2h "), Ok(Duration::from_secs(7200)));
        assert_eq!(parse("0.25s"), Ok(Duration::from_millis(250)));
        assert_eq!(parse("0"), Ok(Duration::ZERO));
        for bad in ["", "s", "5 minutes", "1..2s", ".5s", "5.s", "-1s", "1e3s"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
