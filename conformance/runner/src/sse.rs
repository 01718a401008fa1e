//! A strict reading of a `text/event-stream` body, for the framing checks: the SDK's
//! decoder is lenient (as readers must be); this one reports everything the contract's
//! writer side forbids.

/// One `data:` line and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DataLine {
    /// 1-based line number in the body.
    pub(crate) line: usize,
    /// The payload after `data:` (one leading space removed).
    pub(crate) payload: String,
}

/// What a body holds, line by line.
#[derive(Debug, Default, Clone)]
pub(crate) struct Framing {
    /// Every data line, in order.
    pub(crate) data: Vec<DataLine>,
    /// Framing problems: foreign lines, several data lines in one event, an unterminated
    /// last event.
    pub(crate) problems: Vec<String>,
    /// Number of comment lines (`: keep-alive`).
    pub(crate) comments: usize,
}

/// Reads a whole SSE body.
pub(crate) fn analyze(body: &[u8]) -> Framing {
    let text = String::from_utf8_lossy(body);
    let mut framing = Framing::default();
    let mut in_event = 0usize; // data lines of the current event
    let mut event_start = 0usize;
    let mut lines = split_lines(&text);
    if lines.last().is_some_and(|(_, line, _)| line.is_empty()) {
        lines.pop();
    }
    let unterminated_tail = lines.last().is_some_and(|(_, _, terminated)| !terminated);
    for (number, line, _) in &lines {
        if line.is_empty() {
            in_event = 0;
            continue;
        }
        if line.starts_with(':') {
            framing.comments += 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("data:") {
            if in_event == 0 {
                event_start = *number;
            } else {
                framing.problems.push(format!(
                    "line {number}: a second data line in the event that starts at line {event_start} (each update is one `data: <json>` line followed by a blank line)"
                ));
            }
            in_event += 1;
            framing.data.push(DataLine {
                line: *number,
                payload: rest.strip_prefix(' ').unwrap_or(rest).to_owned(),
            });
            continue;
        }
        framing.problems.push(format!(
            "line {number}: not a `data:` line or a comment: {}",
            crate::render::clip(line, 80)
        ));
    }
    if in_event > 0 || unterminated_tail {
        framing
            .problems
            .push("the body ends inside an event (no blank line after the last line)".to_owned());
    }
    framing
}

/// Lines with their 1-based numbers; the flag says whether a line ending followed.
fn split_lines(text: &str) -> Vec<(usize, String, bool)> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines.push((lines.len() + 1, std::mem::take(&mut current), true));
            }
            '\n' => lines.push((lines.len() + 1, std::mem::take(&mut current), true)),
            c => current.push(c),
        }
    }
    lines.push((lines.len() + 1, current, false));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_stream() {
        let framing = analyze(b": keep-alive\n\ndata: {\"a\":1}\n\ndata:{\"b\":2}\r\n\r\n");
        assert!(framing.problems.is_empty(), "{:?}", framing.problems);
        assert_eq!(framing.comments, 1);
        let payloads: Vec<_> = framing.data.iter().map(|d| d.payload.as_str()).collect();
        assert_eq!(payloads, ["{\"a\":1}", "{\"b\":2}"]);
    }

    #[test]
    fn reports_foreign_lines_joined_events_and_a_cut_tail() {
        let framing = analyze(b"event: x\ndata: 1\ndata: 2\n\ndata: 3");
        assert_eq!(framing.problems.len(), 3, "{:?}", framing.problems);
        assert!(framing.problems[0].contains("line 1"));
        assert!(framing.problems[1].contains("second data line"));
        assert!(framing.problems[2].contains("ends inside an event"));
        assert_eq!(framing.data.len(), 3);
    }

    #[test]
    fn empty_body_has_no_events() {
        let framing = analyze(b"");
        assert!(framing.problems.is_empty());
        assert!(framing.data.is_empty());
    }
}
