//! A model API's response, in every dialect, read whole and streamed: the streamed reading
//! equals the whole one, whatever the chunking, and every place lies inside the answer.
//!
//! Input layout (see `fuzz/README.md`; `fuzz/seed.sh` writes seeds in it):
//!
//! | bytes | meaning |
//! | ----- | ------- |
//! | 0     | bits 0-2 the dialect (modulo 5: anthropic, anthropic-documents, bedrock, cohere, mistral); bit 3 give the resolver the entries sent; bit 4 give it the contents |
//! | 1     | the seed of the chunking (chunks of 1 to 64 bytes) |
//! | 2..   | the response, UTF-8: a whole message, JSON Lines of events, or server-sent events |
//!
//! Against a report of `fixtures/pricing.json` in that dialect (budget 600, as the response
//! fixtures), it checks:
//! - `Resolver::response` on the whole text: an error, or a resolution whose every span lies
//!   inside its answer on character boundaries, with UTF-16 offsets that are those of the
//!   bytes, chips cited once each and numbered 1..k in order;
//! - server-sent events, pushed in the chunks the seed picks: the same result as the whole,
//!   the text shown put together is the answer;
//! - JSON Lines (any text that is not one JSON value), pushed event by event, and the same
//!   events wrapped as server-sent events and pushed in chunks: all three give the same
//!   result, and both streams the same citation events.

#![no_main]

mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mentor_context::citations::{CitationEvent, Resolution, Resolver};
use mentor_context::dialects::{Dialect, Entry};
use mentor_context::{AssembledContext, ContextBuilder, Error};

struct Sent {
    report: AssembledContext<'static>,
    entries: Vec<Entry>,
    contents: Vec<String>,
}

fn sent(dialect: Dialect) -> &'static Sent {
    static SENT: OnceLock<Vec<Sent>> = OnceLock::new();
    let all = SENT.get_or_init(|| {
        let results = common::pricing();
        Dialect::ALL
            .iter()
            .copied()
            .map(|dialect| {
                let assembler = ContextBuilder::new(600).dialect(dialect).build().unwrap();
                let report = assembler.assemble(&results).into_owned();
                Sent {
                    entries: assembler.entries(&report).unwrap(),
                    contents: assembler.contents(&report).unwrap(),
                    report,
                }
            })
            .collect()
    });
    &all[Dialect::ALL.iter().position(|d| *d == dialect).unwrap()]
}

/// What a stream gave: the result, the text shown put together, and the events.
struct Streamed {
    result: Result<Resolution, Error>,
    shown: String,
    events: Vec<CitationEvent>,
}

fn stream<'a>(
    resolver: &Resolver<'_>,
    pieces: impl IntoIterator<Item = &'a str>,
    sse: bool,
) -> Streamed {
    let mut reader = resolver.response_stream().expect("a dialect report");
    let mut shown = String::new();
    let mut events = Vec::new();
    for piece in pieces {
        let pushed = if sse {
            reader.push_sse(piece)
        } else {
            reader.push_event(piece)
        };
        match pushed {
            Ok(out) => {
                shown.push_str(&out.text);
                events.extend(out.events);
            }
            Err(err) => {
                return Streamed {
                    result: Err(err),
                    shown,
                    events,
                };
            }
        }
    }
    let result = reader.finish().map(|(out, resolution)| {
        shown.push_str(&out.text);
        events.extend(out.events);
        resolution
    });
    Streamed {
        result,
        shown,
        events,
    }
}

/// Checks that a streamed reading gave what the whole one did.
fn same(whole: &Result<Resolution, Error>, streamed: &Streamed, what: &str) {
    match (whole, &streamed.result) {
        (Ok(whole), Ok(streamed_resolution)) => {
            assert_eq!(whole, streamed_resolution, "{what}: resolutions differ");
            assert_eq!(
                whole.answer.as_deref(),
                Some(streamed.shown.as_str()),
                "{what}: the text shown is not the answer"
            );
        }
        (Err(_), Err(_)) => {}
        (whole, streamed) => panic!("{what}: whole {whole:?}, streamed {streamed:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(([control, seed], text)) = data.split_first_chunk::<2>() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let dialect = Dialect::ALL[usize::from(control & 0b111) % Dialect::ALL.len()];
    let sent = sent(dialect);
    let mut resolver = Resolver::for_context(&sent.report);
    if control & 0x08 != 0 {
        resolver = resolver.entries(&sent.entries);
    }
    if control & 0x10 != 0 {
        resolver = resolver.contents(&sent.contents);
    }
    let chips = sent.report.citations.len();

    let whole = resolver.response(text);
    if let Ok(resolution) = &whole {
        let answer = resolution
            .answer
            .as_deref()
            .expect("a response has an answer");
        common::check_resolution(answer, resolution, chips, dialect.as_str());
    }

    let trimmed = text.trim_start();
    if ["event:", "data:", "id:", "retry:", ":"]
        .iter()
        .any(|field| trimmed.starts_with(field))
    {
        let streamed = stream(&resolver, common::chunks(text, *seed), true);
        same(&whole, &streamed, &format!("{dialect} sse"));
        return;
    }
    // One JSON value is a whole message, or a single event: only the whole reading applies.
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return;
    }
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect();
    let by_event = stream(&resolver, lines.iter().copied(), false);
    same(&whole, &by_event, &format!("{dialect} events"));
    // The same events as server-sent events ("[DONE]" is the end marker there, not JSON).
    if lines.iter().any(|line| *line == "[DONE]") {
        return;
    }
    // A bare CR ends a line in server-sent events (and JSON reads it as whitespace): a line
    // holding one is written as several `data:` lines, which the reader joins with `\n`.
    let wrapped: String = lines
        .iter()
        .map(|line| {
            let data: String = line.split('\r').map(|part| format!("data: {part}\n")).collect();
            format!("{data}\n")
        })
        .collect();
    let by_sse = stream(&resolver, common::chunks(&wrapped, *seed), true);
    same(&whole, &by_sse, &format!("{dialect} events as sse"));
    if by_event.result.is_ok() {
        assert_eq!(by_event.events, by_sse.events, "{dialect}: events differ");
    }
});
