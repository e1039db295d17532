//! A marker written again with its chips' new numbers, in a form that reads back as the same
//! citations.

use std::ops::RangeInclusive;

use super::Tally;
use crate::citations::MAX_MARKER_BYTES;
use crate::citations::markers::Marker;

impl Tally<'_> {
    /// Writes `marker` with its numbers replaced, keeping its brackets, spaces and dashes. A
    /// range whose new numbers no longer run on (`[3-5]` to 2, 1, 3) becomes a list of runs. Each
    /// item's `numbers` are as [`record`](Self::record) read them: an item read as none (a
    /// range reversed, too wide, or past the answer's bound) is kept as written.
    pub(super) fn write_renumbered(
        &self,
        marker: &Marker,
        numbers: &[Option<RangeInclusive<usize>>],
        out: &mut String,
    ) {
        let text = marker.text.as_str();
        let mut copied = 0;
        for (item, numbers) in marker.items.iter().zip(numbers) {
            let Some(numbers) = numbers.clone() else {
                continue;
            };
            let new: Vec<usize> = numbers.clone().map(|n| self.new_number(n)).collect();
            if new.iter().copied().eq(numbers) {
                // Nothing changes: keep the item as written (`[07]` stays `[07]`).
                continue;
            }
            let runs_on = new.windows(2).all(|pair| pair[1] == pair[0] + 1);
            out.push_str(&text[copied..item.first_at.start]);
            match &item.last_at {
                Some(last_at) if runs_on => {
                    push_number(out, new[0]);
                    out.push_str(&text[item.first_at.end..last_at.start]);
                    push_number(out, new[new.len() - 1]);
                    copied = last_at.end;
                }
                Some(last_at) => {
                    // As runs (`[1-1000]` to `2, 1, 3-1000`): a list of every number would
                    // be too long to read as a marker again.
                    let mut first = true;
                    for run in new.chunk_by(|a, b| b == &(a + 1)) {
                        if !first {
                            out.push_str(", ");
                        }
                        first = false;
                        push_number(out, run[0]);
                        if run.len() > 1 {
                            out.push('-');
                            push_number(out, run[run.len() - 1]);
                        }
                    }
                    copied = last_at.end;
                }
                None => {
                    push_number(out, new[0]);
                    copied = item.first_at.end;
                }
            }
        }
        out.push_str(&text[copied..]);
    }

    /// Writes `marker` renumbered as runs with no padding (`[2-4, 1, 5-100]`), split into
    /// adjacent markers where one would be longer than [`MAX_MARKER_BYTES`]: so that the
    /// renumbered answer still reads as markers citing the same chips.
    pub(super) fn write_compact(
        &self,
        marker: &Marker,
        numbers: &[Option<RangeInclusive<usize>>],
        out: &mut String,
    ) {
        let text = marker.text.as_str();
        let mut pieces: Vec<String> = Vec::new();
        for (item, numbers) in marker.items.iter().zip(numbers) {
            let Some(numbers) = numbers.clone() else {
                let end = item.last_at.as_ref().map_or(item.first_at.end, |at| at.end);
                pieces.push(text[item.first_at.start..end].to_string());
                continue;
            };
            let new: Vec<usize> = numbers.map(|n| self.new_number(n)).collect();
            for run in new.chunk_by(|a, b| b == &(a + 1)) {
                pieces.push(if run.len() > 1 {
                    format!("{}-{}", run[0], run[run.len() - 1])
                } else {
                    run[0].to_string()
                });
            }
        }
        let mut current = String::new();
        for piece in pieces {
            if !current.is_empty() && current.len() + piece.len() + 3 > MAX_MARKER_BYTES {
                out.push('[');
                out.push_str(&current);
                out.push(']');
                current.clear();
            }
            if !current.is_empty() {
                current.push_str(", ");
            }
            current.push_str(&piece);
        }
        out.push('[');
        out.push_str(&current);
        out.push(']');
    }
}

fn push_number(out: &mut String, n: usize) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}
