use std::time::Instant;

use minijinja::value::Value;

use super::{JinjaTemplate, RenderInput, rewrite_generation_tags};
use crate::prompt::ConversationDate;

fn render(source: &str, messages: &Value) -> Result<String, String> {
    let template = JinjaTemplate::new(source)?;
    template.render(&RenderInput {
        messages,
        documents: None,
        bos_token: Some("<s>"),
        eos_token: Some("</s>"),
        date: "2026-12-02".parse::<ConversationDate>().unwrap(),
        input_bytes: 1000,
    })
}

fn chat() -> Value {
    Value::from(vec![
        Value::from_pairs([
            ("role", Value::from("user")),
            ("content", Value::from("  Hi\u{1c} ")),
        ]),
        Value::from_pairs([
            ("role", Value::from("assistant")),
            ("content", Value::from("a</think>b")),
        ]),
    ])
}

#[test]
fn whitespace_control_and_python_methods_are_transformers() {
    // trim_blocks and lstrip_blocks: the block lines leave no whitespace.
    let source = "{% for m in messages %}\n    {% if m.role == 'user' %}\n[{{ m.content | trim }}]\n    {% endif %}\n{% endfor %}";
    assert_eq!(render(source, &chat()).unwrap(), "[Hi]\n");
    let source = "{{ messages[1].content.split('</think>')[-1] }}|{{ messages[0].content.strip() }}|{{ 'a b  c'.split() }}|{{ messages[::-1][0].role }}";
    assert_eq!(
        render(source, &chat()).unwrap(),
        "b|Hi|['a', 'b', 'c']|assistant"
    );
    let source =
        "{{ true }} {{ none }} {{ 1.0 }} {{ [1, 'x'] }} {{ {'a': 1} }} {{ undefined_name }}.";
    assert_eq!(
        render(source, &chat()).unwrap(),
        "True None 1.0 [1, 'x'] {'a': 1} ."
    );
    let source = "{{ bos_token }}{{ strftime_now('%d %b %Y') }}{{ eos_token }}{% if add_generation_prompt %}!{% endif %}";
    assert_eq!(render(source, &chat()).unwrap(), "<s>02 Dec 2026</s>!");
    let source = "{% for m in messages %}{% if loop.first %}{% continue %}{% endif %}{{ m.role }}{% break %}{% endfor %}";
    assert_eq!(render(source, &chat()).unwrap(), "assistant");
}

#[test]
fn tojson_is_pythons_json_dumps() {
    let source = "{{ {'b': 1, 'a': [1.0, 1e16, none, true, 'é<\"\\n'], 'c': {}} | tojson }}";
    assert_eq!(
        render(source, &chat()).unwrap(),
        r#"{"b": 1, "a": [1.0, 1e+16, null, true, "é<\"\n"], "c": {}}"#
    );
    let source = "{{ {'b': [1, 2], 'a': 'x'} | tojson(indent=2, sort_keys=true) }}";
    assert_eq!(
        render(source, &chat()).unwrap(),
        "{\n  \"a\": \"x\",\n  \"b\": [\n    1,\n    2\n  ]\n}"
    );
    let source = "{{ ['é'] | tojson(ensure_ascii=true, separators=(',', ':')) }}";
    assert_eq!(render(source, &chat()).unwrap(), r#"["\u00e9"]"#);
    assert!(
        render("{{ nothing | tojson }}", &chat())
            .unwrap_err()
            .contains("not JSON serializable")
    );
}

#[test]
fn generation_tags_render_their_body() {
    assert_eq!(
        rewrite_generation_tags("a{%- generation -%} b {% endgeneration %}c{% if x %}"),
        "a{%- if true -%} b {% endif %}c{% if x %}"
    );
    assert_eq!(
        render("{% generation %}x{% endgeneration %}", &chat()).unwrap(),
        "x"
    );
}

/// Found by `fuzz/fuzz_targets/chat_template.rs`: the `%}` of `{%}` overlaps its `{%`, and
/// slicing between them panicked.
#[test]
fn a_tag_opened_and_closed_by_one_percent_sign_is_no_panic() {
    assert_eq!(
        rewrite_generation_tags("{%}x{% endfor %}"),
        "{%}x{% endfor %}"
    );
    assert!(render("{%}x{% endfor %}", &chat()).is_err());
}

/// Every hostile template ends in an error within two seconds.
#[test]
fn hostile_templates_end_in_one_error_quickly() {
    let cases = [
        (
            "{% for i in range(100000000) %}{% for j in range(100000000) %}x{% endfor %}{% endfor %}",
            "",
        ),
        ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", ""),
        (
            "{% set s = 'x' * 1000 %}{% for i in range(10000000) %}{{ s }}{% endfor %}",
            "",
        ),
        (
            "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
            "",
        ),
        (
            "{{ raise_exception('Conversation roles must alternate') }}",
            "the template raised: Conversation roles must alternate",
        ),
        ("{% for m in messages %}", ""),
        ("{{ 'a'.split('') }}", "empty separator"),
        (&"{{ (".repeat(5000), ""),
        (
            &format!(
                "{}x{}",
                "{% if true %}".repeat(2000),
                "{% endif %}".repeat(2000)
            ),
            "",
        ),
    ];
    for (source, expected) in cases {
        let started = Instant::now();
        let err = render(source, &chat()).expect_err(&source[..source.len().min(80)]);
        assert!(
            started.elapsed().as_secs() < 2,
            "{} took {:?}",
            &source[..source.len().min(80)],
            started.elapsed()
        );
        assert!(err.contains(expected), "{err}");
        assert!(!err.contains('\n'), "one line: {err}");
    }
    let huge = "x".repeat(super::MAX_TEMPLATE_BYTES + 1);
    assert!(JinjaTemplate::new(&huge).unwrap_err().contains("at most"));
}
