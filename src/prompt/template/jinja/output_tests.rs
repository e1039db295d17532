//! The render's output limit: the input, a margin of the template's own and an allowance per
//! message; an error at exactly the limit is still the template's.

use minijinja::value::Value;

use super::JinjaTemplate;
use super::bounds_tests::input;
use super::tests::{chat, render};

/// The framing a template writes grows with the messages: 200,000 one-letter messages through
/// Llama 3's framing write about 11 MB around 200 KB of content, past a fixed allowance, and
/// still render.
#[test]
fn the_output_allows_each_message_its_framing() {
    let messages = Value::from(
        (0..200_000)
            .map(|i| {
                Value::from_pairs([
                    (
                        "role",
                        Value::from(if i % 2 == 0 { "user" } else { "assistant" }),
                    ),
                    ("content", Value::from("x")),
                ])
            })
            .collect::<Vec<_>>(),
    );
    let template = JinjaTemplate::new(
        "{% for m in messages %}<|start_header_id|>{{ m.role }}<|end_header_id|>\n\n{{ m.content }}<|eot_id|>{% endfor %}",
    )
    .unwrap();
    let out = template.render(&input(&messages, 200_000 * 16)).unwrap();
    assert!(out.len() > 200_000 * 16 + (4 << 20), "{}", out.len());
}
/// The output's margin is the template's own: a template may write megabytes of its own text
/// around two short messages (3 MB here, under the 4 MiB margin), not only each message's
/// framing. (Kills the margin made 0.)
#[test]
fn a_template_may_write_megabytes_of_its_own_text() {
    let source = format!(
        "{{% for i in range(3000) %}}{}{{% endfor %}}",
        "x".repeat(1000)
    );
    assert_eq!(render(&source, &chat()).map(|out| out.len()), Ok(3_000_000));
}

/// A template that raises after writing exactly as much as it may has raised: only a byte past
/// the limit makes its error the output's. (Kills the limit's test made `>=`, or `true`.)
#[test]
fn an_error_at_exactly_the_output_limit_is_the_template_s_own() {
    use super::tests::render_typed;
    use crate::error::TemplateErrorKind;
    // `render` gives 1,000 input bytes; `chat()` has two messages.
    let limit =
        1000 + super::MAX_EXTRA_OUTPUT_BYTES + 2 * super::MAX_EXTRA_OUTPUT_BYTES_PER_MESSAGE;
    for (written, kind) in [
        (limit, TemplateErrorKind::Raised),
        (limit + 1, TemplateErrorKind::OutputTooLarge),
    ] {
        let source = format!(
            "{{% for i in range({}) %}}{}{{% endfor %}}{}{{{{ raise_exception('boom') }}}}",
            written / 1000,
            "x".repeat(1000),
            "x".repeat(written % 1000)
        );
        let error = render_typed(&source, &chat()).unwrap_err();
        assert_eq!(error.kind(), kind, "{written}: {}", error.problem());
    }
}
