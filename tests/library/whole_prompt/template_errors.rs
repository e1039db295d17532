//! A chat template's errors by kind: each kind made by a template that produces it, with the
//! line the engine names and minijinja's error as the `source()`; the message stays the one
//! line it was.

use std::error::Error as _;

use mentor_context::prompt::{ChatTemplate, Message, PromptBuilder};
use mentor_context::{Encoding, Error, ErrorKind, TemplateError, TemplateErrorKind};

use super::properties::date;

const CONTROL: [&str; 2] = ["<|im_start|>", "<|im_end|>"];

fn compile(source: &str) -> Result<ChatTemplate, Error> {
    ChatTemplate::jinja(
        source,
        Encoding::O200kBase,
        CONTROL.map(String::from),
        None,
        None,
    )
}

/// The error of rendering `source` on a one-question conversation.
fn render_error(source: &str) -> Error {
    let template = compile(source).unwrap();
    PromptBuilder::new(template, 4096)
        .date(date())
        .build()
        .unwrap()
        .assemble(&[Message::user("Hello")], &[])
        .expect_err("the template fails")
}

/// `err`'s template error, checked to be the library's `CHAT_TEMPLATE` whose message is the
/// template error's.
#[track_caller]
fn template_error(err: &Error) -> &TemplateError {
    assert_eq!(err.kind(), ErrorKind::ChatTemplate, "{err}");
    let template = err.template_error().expect("a template's error");
    assert_eq!(err.to_string(), template.to_string());
    assert!(!err.to_string().contains('\n'), "{err}");
    template
}

/// minijinja's error, as the template error's source.
#[track_caller]
fn engine_error(err: &Error) -> &minijinja::Error {
    err.source()
        .and_then(|source| source.downcast_ref::<minijinja::Error>())
        .expect("minijinja's error as the source")
}

#[test]
fn a_template_that_does_not_compile_is_a_syntax_error_on_its_line() {
    let err = compile("{% for m in messages %}\n{{ m.content }\n{% endfor %}").unwrap_err();
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::Syntax);
    assert_eq!(template.line(), Some(2));
    assert_eq!(template.name(), None);
    assert_eq!(engine_error(&err).kind(), minijinja::ErrorKind::SyntaxError);
    assert!(err.to_string().starts_with("chat template: "), "{err}");
    assert!(err.to_string().ends_with("(line 2)"), "{err}");
}

#[test]
fn a_megabyte_of_source_is_not_a_template() {
    let err = compile(&"x".repeat((1 << 20) + 1)).unwrap_err();
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::NotATemplate);
    assert_eq!(template.line(), None);
    assert!(err.source().is_none());
    assert!(err.to_string().contains("at most 1048576"), "{err}");
}

#[test]
fn raise_exception_is_raised_on_its_line_naming_the_template() {
    let source = "{% for m in messages %}{{ m.content }}{% endfor %}\n\n{{ raise_exception('no system message') }}";
    let err = render_error(source);
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::Raised);
    assert!(!template.kind().is_bound());
    assert_eq!(template.line(), Some(3));
    assert_eq!(template.name(), Some(compile(source).unwrap().name()));
    assert_eq!(engine_error(&err).line(), Some(3));
    assert_eq!(
        err.to_string(),
        "chat template: the template raised: no system message (line 3)"
    );
    // Any other error on this conversation is the template raising too.
    let err = render_error("{{ messages[0].content }}\n{{ 'abc'.index('x') }}");
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::Raised);
    assert_eq!(template.line(), Some(2));
}

#[test]
fn a_loop_without_end_is_out_of_fuel_on_its_line() {
    let err = render_error(
        "{{ messages[0].content }}\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    );
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::OutOfFuel);
    assert!(template.kind().is_bound());
    assert_eq!(template.line(), Some(2));
    assert_eq!(engine_error(&err).kind(), minijinja::ErrorKind::OutOfFuel);
    assert!(err.to_string().contains("out of fuel"), "{err}");
}

#[test]
fn nesting_past_either_bound_is_too_deep() {
    // A value stored 5,000 levels deep: ours, 256 levels.
    let err = render_error(
        "{{ messages[0].content }}\n{% set ns = namespace(x=1) %}{% for i in range(5000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}",
    );
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::TooDeep, "{err}");
    assert!(template.kind().is_bound());
    assert_eq!(template.line(), Some(2));
    assert!(
        err.to_string().contains("nested more than 256 levels"),
        "{err}"
    );
    // A macro calling itself: minijinja's recursion limit.
    let err = render_error(
        "{{ messages[0].content }}\n{% macro f(n) %}{{ f(n) }}{% endmacro %}\n{{ f(1) }}",
    );
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::TooDeep, "{err}");
    assert!(template.line().is_some_and(|line| line >= 2), "{err}");
    assert!(err.to_string().contains("recursion limit"), "{err}");
}

#[test]
fn writing_past_the_output_bound_is_output_too_large() {
    let err = render_error("{{ messages[0].content }}\n{{ 'x' * 5000000 }}");
    let template = template_error(&err);
    assert_eq!(template.kind(), TemplateErrorKind::OutputTooLarge, "{err}");
    assert!(template.kind().is_bound());
    // minijinja reports a failed write once the render has unwound: without its line.
    assert_eq!(template.line(), None);
    assert_eq!(
        engine_error(&err).kind(),
        minijinja::ErrorKind::WriteFailure
    );
    assert!(
        err.to_string().contains("the template wrote more than"),
        "{err}"
    );
}
