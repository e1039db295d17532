//! Server-sent events, split as they arrive: `data:` lines gathered until a blank line.

/// The lines of a server-sent-events stream read so far. A line ends at CR LF, LF or CR,
/// as the specification has it; a byte order mark that starts the stream is not text.
#[derive(Debug, Default)]
pub(super) struct SseLines {
    /// The start of a line whose end has not arrived.
    partial: String,
    /// How much of `partial` is known to hold no line end: a long line that arrives in many
    /// chunks is looked through once.
    scanned: usize,
    /// The `data` of the event being read.
    data: Vec<String>,
    /// The last line ended with a CR that ended its chunk: an LF that starts the next chunk
    /// belongs to it, and is no blank line.
    after_cr: bool,
    /// Some text was read: a byte order mark now is text.
    started: bool,
}

impl SseLines {
    /// Reads `chunk`; returns the `data` of each event it completes.
    pub(super) fn feed(&mut self, chunk: &str) -> Vec<String> {
        let mut events = Vec::new();
        let mut chunk = chunk;
        if !self.started && !chunk.is_empty() {
            chunk = chunk.strip_prefix('\u{feff}').unwrap_or(chunk);
            self.started = true;
        }
        if self.after_cr && !chunk.is_empty() {
            chunk = chunk.strip_prefix('\n').unwrap_or(chunk);
            self.after_cr = false;
        }
        self.partial.push_str(chunk);
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(found) = self.partial[from..].find(['\r', '\n']) {
            let end = from + found;
            let line = &self.partial[start..end];
            if line.is_empty() {
                if !self.data.is_empty() {
                    events.push(std::mem::take(&mut self.data).join("\n"));
                }
            } else if let Some(data) = line.strip_prefix("data:") {
                let data = data.strip_prefix(' ').unwrap_or(data);
                // OpenAI-style end marker: not an event.
                if data != "[DONE]" {
                    self.data.push(data.to_string());
                }
            }
            // `event:`, `id:`, `retry:` and `:` comments say nothing the data does not.
            start = end + 1;
            if self.partial.as_bytes()[end] == b'\r' {
                match self.partial.as_bytes().get(start) {
                    Some(b'\n') => start += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            from = start;
        }
        self.partial.drain(..start);
        self.scanned = self.partial.len();
        events
    }

    /// Whether an event was begun and not ended by its blank line.
    pub(super) fn has_partial_event(&self) -> bool {
        !self.data.is_empty() || self.partial.trim_start().starts_with("data:")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_end_at_blank_lines_in_any_chunking() {
        let text = "event: a\ndata: {\"x\":1}\n\n: comment\ndata: {\"y\":\ndata: 2}\r\n\r\n";
        let whole = SseLines::default().feed(text);
        assert_eq!(whole, ["{\"x\":1}", "{\"y\":\n2}"]);
        for split in 0..=text.len() {
            let mut lines = SseLines::default();
            let mut events = lines.feed(&text[..split]);
            events.extend(lines.feed(&text[split..]));
            assert_eq!(events, whole, "split at {split}");
            assert!(!lines.has_partial_event());
        }
        // Line ends of CR alone, or CR LF cut between two chunks; a byte order mark first.
        let cr = "\u{feff}event: a\rdata: {\"x\":1}\r\r: c\rdata: {\"y\":\rdata: 2}\r\n\r\n";
        for split in (0..=cr.len()).filter(|&at| cr.is_char_boundary(at)) {
            let mut lines = SseLines::default();
            let mut events = lines.feed(&cr[..split]);
            events.extend(lines.feed(""));
            events.extend(lines.feed(&cr[split..]));
            assert_eq!(events, whole, "CR, split at {split}");
        }
        let mut cut = SseLines::default();
        assert!(cut.feed("data: {\"x\":").is_empty());
        assert!(cut.has_partial_event());
    }
}
