//! A previous report handed back for a follow-up turn: any bytes, or one changed byte of a
//! real report, sealed or not. It is refused with an error, or continued to a text that
//! starts with the earlier text (up to its closing) byte for byte, keeps the earlier chips,
//! and stays within the budget with an exact count.
//!
//! Input layout (see `fuzz/README.md`; `fuzz/seed.sh` writes seeds in it):
//!
//! | bytes | meaning |
//! | ----- | ------- |
//! | 0     | bit 0 the assembler seals (and checks seals); bit 1 XML format; bit 2 a header; bit 3 one-byte change of a real report (else the rest is the report) |
//! | 1..   | without bit 3: the report's JSON, UTF-8 |
//! | 1..3  | with bit 3: the position of the change, `u16` little-endian, modulo the report's length |
//! | 3     | with bit 3: the byte written there |
//! | 4     | with bit 3: which real report: bit 0 the first turn of `fixtures/conversation` or the second, continued from it; bit 1 the report serialized pretty |
//!
//! A one-byte change that still reads as a report: with a seal, refused unless the report
//! read is the one written (a change in whitespace); without one, continued only within the
//! contract above. The real report itself is always continued.

#![no_main]

mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mentor_context::format::BuiltinFormat;
use mentor_context::tokenizer::TokenCounter;
use mentor_context::wire::parse_results;
use mentor_context::{AssembledContext, Assembler, ContextBuilder, Encoding, MentorRagResult};

const BUDGET: usize = 600;
const KEY: &[u8] = b"the fuzzing seal key, 32 bytes..";
const HEADER: &str = "Answer only from these documents and cite them as [n].";

struct Setup {
    assembler: Assembler,
    /// The reports of turns 1 and 2, as written.
    reports: [AssembledContext<'static>; 2],
}

fn turn(n: usize) -> Vec<MentorRagResult> {
    let json = match n {
        1 => include_str!("../../fixtures/conversation/turn-1.json"),
        2 => include_str!("../../fixtures/conversation/turn-2.json"),
        _ => include_str!("../../fixtures/conversation/turn-3.json"),
    };
    parse_results(json).unwrap()
}

fn setup(options: u8) -> &'static Setup {
    static SETUPS: OnceLock<Vec<Setup>> = OnceLock::new();
    let all = SETUPS.get_or_init(|| {
        (0..8u8)
            .map(|options| {
                let mut builder = ContextBuilder::new(BUDGET);
                if options & 1 != 0 {
                    builder = builder.seal_key(KEY);
                }
                if options & 2 != 0 {
                    builder = builder.format(BuiltinFormat::Xml);
                }
                if options & 4 != 0 {
                    builder = builder.header(HEADER);
                }
                let assembler = builder.build().unwrap();
                let first = assembler.assemble(&turn(1)).into_owned();
                let second = assembler
                    .assemble_follow_up(&first, &turn(2))
                    .unwrap()
                    .into_owned();
                Setup {
                    assembler,
                    reports: [first, second],
                }
            })
            .collect()
    });
    &all[usize::from(options & 7)]
}

fn results() -> &'static [MentorRagResult] {
    static RESULTS: OnceLock<Vec<MentorRagResult>> = OnceLock::new();
    RESULTS.get_or_init(|| turn(3))
}

/// Continues `previous`; checks the contract when it is accepted, and returns whether it was.
fn continue_from(setup: &Setup, previous: &AssembledContext<'_>, xml: bool) -> bool {
    let Ok(next) = setup.assembler.assemble_follow_up(previous, results()) else {
        return false;
    };
    let kept = if xml && !previous.citations.is_empty() {
        previous
            .text
            .strip_suffix("</documents>\n")
            .expect("accepted with its closing")
    } else {
        previous.text.as_str()
    };
    assert!(
        next.text.starts_with(kept),
        "the next text does not start with the earlier one\nearlier {kept:?}\nnext {:?}",
        next.text
    );
    assert!(
        next.token_count <= BUDGET,
        "token_count {} over the budget",
        next.token_count
    );
    assert_eq!(
        Encoding::O200kBase.count(&next.text),
        next.token_count,
        "token_count is not the count of the text"
    );
    assert_eq!(
        next.citations[..previous.citations.len()],
        previous.citations[..],
        "the earlier chips changed"
    );
    for (i, chip) in next.citations.iter().enumerate() {
        assert_eq!(chip.index, i + 1, "chips not numbered 1..n");
    }
    assert_eq!(
        next.citations.len() + next.omitted.len(),
        previous.citations.len() + results().len()
    );
    true
}

fuzz_target!(|data: &[u8]| {
    let Some((&options, rest)) = data.split_first() else {
        return;
    };
    let sealed = options & 1 != 0;
    let xml = options & 2 != 0;
    let setup = setup(options);
    if options & 8 == 0 {
        let Ok(previous) = serde_json::from_slice::<AssembledContext<'_>>(rest) else {
            return;
        };
        continue_from(setup, &previous, xml);
        return;
    }
    let Some(&[lo, hi, byte, which]) = rest.first_chunk::<4>() else {
        return;
    };
    let original = &setup.reports[usize::from(which & 1)];
    let mut json = if which & 2 != 0 {
        serde_json::to_vec_pretty(original).unwrap()
    } else {
        serde_json::to_vec(original).unwrap()
    };
    let at = usize::from(u16::from_le_bytes([lo, hi])) % json.len();
    json[at] = byte;
    let Ok(changed) = serde_json::from_slice::<AssembledContext<'_>>(&json) else {
        return; // refused by the JSON reader
    };
    let accepted = continue_from(setup, &changed, xml);
    if changed == *original {
        assert!(accepted, "the report as written was refused");
    } else if sealed {
        assert!(
            !accepted,
            "a sealed report with byte {at} changed to {byte:#04x} was accepted"
        );
    }
});
