//! Snapshot tests: every request file in `fixtures/`, in every format, at a few budgets. The
//! invariants are asserted before each snapshot, so a snapshot never records a broken context.

use crate::common;

use std::fmt::Write;

use mentor_context::format::XmlFormat;
use mentor_context::tokenizer::TokenCounter;
use mentor_context::wire::parse_results;
use mentor_context::{AssembledContext, ContextBuilder, Encoding, MentorRagResult, Order};

/// Budgets that cut inside the first block, a few blocks in, and most of a fixture.
const BUDGETS: [usize; 3] = [80, 400, 2000];

fn report(context: &AssembledContext) -> String {
    let mut out = String::new();
    writeln!(out, "tokens: {} of {}", context.token_count, context.budget).unwrap();
    for c in &context.citations {
        writeln!(
            out,
            "[{}] {} | {} | score {} | {} tokens{}{}",
            c.index,
            c.title.as_deref().unwrap_or("-"),
            c.source_url.as_deref().unwrap_or("-"),
            c.score,
            c.token_count,
            if c.truncated { " | truncated" } else { "" },
            if c.head_shortened {
                " | head shortened"
            } else {
                ""
            }
        )
        .unwrap();
    }
    for o in &context.omitted {
        writeln!(
            out,
            "omitted: {} | score {} | {}",
            o.title.as_deref().unwrap_or("-"),
            o.score,
            o.reason
        )
        .unwrap();
    }
    out.push_str("---\n");
    out.push_str(&context.text);
    out
}

/// The invariants an assembly is checked against: [`common::check_invariants`], or
/// [`common::check_any_order`] for the orders that rearrange blocks.
type Check = fn(&AssembledContext<'_>, &[MentorRagResult], &dyn TokenCounter, bool, Option<&str>);

/// What `builder` assembles of `results` in the plain layout, or with `xml` the XML one,
/// held to `check` before it may be a snapshot, and the layout's name for the snapshot's.
fn assemble_in(
    builder: ContextBuilder,
    xml: bool,
    results: &[MentorRagResult],
    check: Check,
) -> (AssembledContext<'_>, &'static str) {
    let (builder, format) = match xml {
        true => (builder.format(XmlFormat), "xml"),
        false => (builder, "plain"),
    };
    let context = builder.build().unwrap().assemble(results);
    check(&context, results, &Encoding::O200kBase, xml, None);
    (context, format)
}

#[test]
fn fixtures() {
    insta::glob!("../../fixtures", "*.json", |path| {
        let name = path.file_stem().unwrap().to_str().unwrap();
        // The 50-result bench files are for throughput, not for reading.
        if name.starts_with("bench-") {
            return;
        }
        let results = common::fixture(name);
        for xml in [false, true] {
            for budget in BUDGETS {
                let builder = ContextBuilder::new(budget).encoding(Encoding::O200kBase);
                let (context, format) =
                    assemble_in(builder, xml, &results, common::check_invariants);
                insta::assert_snapshot!(format!("{name}-{format}-{budget}"), report(&context));
            }
        }
    });
}

/// Each order on the support fixture (9 blocks at 1,500 tokens, the last cut), in both
/// formats: the same blocks, arranged and renumbered.
#[test]
fn orders() {
    let results = common::fixture("support");
    for &order in Order::ALL {
        for xml in [false, true] {
            let builder = ContextBuilder::new(1500).order(order);
            let (context, format) = assemble_in(builder, xml, &results, common::check_any_order);
            insta::assert_snapshot!(format!("order-{order}-{format}"), report(&context));
        }
    }
}

/// Heads capped at 20 tokens on the pricing fixture, whose heads carry three or four metadata
/// lines: titles and values shortened and marked, the chips flagged.
#[test]
fn capped_heads() {
    let results = common::fixture("pricing");
    for xml in [false, true] {
        let builder = ContextBuilder::new(400).max_head_tokens(20);
        let (context, format) = assemble_in(builder, xml, &results, common::check_invariants);
        assert!(context.citations.iter().any(|c| c.head_shortened));
        insta::assert_snapshot!(format!("capped-head-{format}"), report(&context));
    }
}

/// The wire form is the .NET record's: every fixture reads and writes back to the same JSON
/// values.
#[test]
fn fixtures_round_trip_through_the_wire_form() {
    insta::glob!("../../fixtures", "*.json", |path| {
        let json = common::fixture_text(path.file_name().unwrap().to_str().unwrap());
        let results = parse_results(&json).unwrap();
        let written: serde_json::Value = serde_json::to_value(&results).unwrap();
        let mut original: serde_json::Value = serde_json::from_str(&json).unwrap();
        // A missing optional field and `null` mean the same; .NET writes `null`.
        for record in original.as_array_mut().unwrap() {
            let record = record.as_object_mut().unwrap();
            for key in ["sourceUrl", "title", "metadata"] {
                record.entry(key).or_insert(serde_json::Value::Null);
            }
        }
        assert_eq!(written, normalise_numbers(original));
    });
}

/// Scores are 32-bit floats: compare them as such.
fn normalise_numbers(mut value: serde_json::Value) -> serde_json::Value {
    for record in value.as_array_mut().unwrap() {
        let score = record["score"].as_f64().unwrap() as f32;
        record["score"] = serde_json::to_value(score).unwrap();
    }
    value
}
