use std::time::Instant;

use minijinja::value::Value;

use super::{JinjaTemplate, RenderInput, rewrite_generation_tags};
use crate::prompt::ConversationDate;

fn render(source: &str, messages: &Value) -> Result<String, String> {
    let template = JinjaTemplate::new(source)?;
    template.render(&RenderInput {
        messages,
        documents: None,
        tools: None,
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
    // Each keyword as Python takes it (the outputs are `json.dumps`' for `{"a": [1, 2]}`):
    // `None` is the default, a string indents by itself, separators are used as given.
    for (arguments, python) in [
        ("indent=none", r#"{"a": [1, 2]}"#),
        ("separators=none", r#"{"a": [1, 2]}"#),
        ("indent='\t'", "{\n\t\"a\": [\n\t\t1,\n\t\t2\n\t]\n}"),
        (
            "indent=1, separators=none",
            "{\n \"a\": [\n  1,\n  2\n ]\n}",
        ),
        ("separators=(',', ':')", r#"{"a":[1,2]}"#),
    ] {
        let source = format!("{{{{ {{'a': [1, 2]}} | tojson({arguments}) }}}}");
        assert_eq!(render(&source, &chat()).unwrap(), python, "{arguments}");
    }
    assert!(
        render("{{ nothing | tojson }}", &chat())
            .unwrap_err()
            .contains("not JSON serializable")
    );
}

/// `tojson` called directly, on values a template can hardly write, against what Python's
/// `json.dumps` writes for the same value.
#[test]
fn tojson_writes_what_python_writes_for_numbers_controls_nesting_and_bad_arguments() {
    use minijinja::value::Kwargs;
    let dumps = |value: Value, kwargs: &[(&str, Value)]| {
        super::pyjson::tojson(&value, Kwargs::from_iter(kwargs.iter().cloned()))
            .map(|v| v.as_str().unwrap().to_string())
            .map_err(|e| e.to_string())
    };
    let floats = Value::from(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
    assert_eq!(dumps(floats, &[]).unwrap(), "[NaN, Infinity, -Infinity]");
    // Controls below U+0020 are escaped; the space is not.
    assert_eq!(
        dumps(Value::from("\u{1} \u{1f}"), &[]).unwrap(),
        r#""\u0001 \u001f""#
    );
    let nested = Value::from(vec![Value::from(vec![1])]);
    assert_eq!(
        dumps(nested, &[("indent", Value::from(1))]).unwrap(),
        "[\n [\n  1\n ]\n]"
    );
    // Nesting: 256 levels are written (Python writes about a thousand), 257 refused.
    let deep = |levels: usize| (0..levels).fold(Value::from(1), |v, _| Value::from(vec![v]));
    assert!(dumps(deep(256), &[]).is_ok());
    assert!(
        dumps(deep(257), &[])
            .unwrap_err()
            .contains("nested too deeply")
    );
    for bad in [
        Value::from(vec![Value::from(","), Value::from(1)]),
        Value::from(vec![Value::from(1), Value::from(":")]),
        Value::from(vec![","]),
    ] {
        assert!(
            dumps(Value::from(1), &[("separators", bad.clone())])
                .unwrap_err()
                .contains("separators must be a pair of strings"),
            "{bad}"
        );
    }
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
