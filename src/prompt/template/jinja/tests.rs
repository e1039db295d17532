use minijinja::value::Value;

use super::{JinjaTemplate, RenderInput, rewrite_generation_tags};
use crate::prompt::ConversationDate;

/// `source` rendered on `messages`; its error's problem in words.
pub(super) fn render(source: &str, messages: &Value) -> Result<String, String> {
    render_typed(source, messages).map_err(|err| err.problem().to_string())
}

/// `source` rendered on `messages`.
pub(super) fn render_typed(
    source: &str,
    messages: &Value,
) -> Result<String, crate::error::TemplateError> {
    let template = JinjaTemplate::new(source)?;
    template.render(&RenderInput {
        messages,
        documents: None,
        tools: None,
        options: None,
        bos_token: Some("<s>"),
        eos_token: Some("</s>"),
        date: "2026-12-02".parse::<ConversationDate>().unwrap(),
        input_bytes: 1000,
    })
}

pub(super) fn chat() -> Value {
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
        super::pyjson::tojson(&value, &Kwargs::from_iter(kwargs.iter().cloned()), None)
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
    // Each short escape Python writes, and the backslash itself (`json.dumps`' output).
    assert_eq!(
        dumps(Value::from("a\\b\r\t\u{8}\u{c}\n\""), &[]).unwrap(),
        r#""a\\b\r\t\b\f\n\"""#
    );
    // Empty containers stay on one line under an indent, as `json.dumps(..., indent=2)` writes.
    let empties = Value::from(std::collections::BTreeMap::from([
        ("a", Value::from(Vec::<i32>::new())),
        (
            "b",
            Value::from(std::collections::BTreeMap::<&str, i32>::new()),
        ),
    ]));
    assert_eq!(
        dumps(empties, &[("indent", Value::from(2))]).unwrap(),
        "{\n  \"a\": [],\n  \"b\": {}\n}"
    );
    assert_eq!(
        dumps(
            Value::from(Vec::<i32>::new()),
            &[("indent", Value::from(2))]
        )
        .unwrap(),
        "[]"
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
            .contains("nested more than 256 levels")
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

/// Python's `str` methods and Jinja2's filters where minijinja answers otherwise (issue 44),
/// against what Python's jinja2 renders.
#[test]
fn python_semantics_where_minijinja_differs() {
    for (source, python) in [
        ("{{ 'x1y'.title() }}", "X1Y"),
        // U+001C is whitespace to Python, not to Rust.
        (
            "{{ '\\u001c a \\u001c'.lstrip() }}|{{ '\\u001c a \\u001c'.rstrip() }}",
            "a \u{1c}|\u{1c} a",
        ),
        ("{{ 'Ⅻ'.isalpha() }}", "False"),
        ("{{ (1, 'a') }}|{{ (1,) }}|{{ () }}", "(1, 'a')|(1,)|()"),
        ("{{ 'a b c'.rsplit(None, 1) }}", "['a b', 'c']"),
        (
            "{% set ns = namespace(m=1) %}{% set ns.m = {'a': [messages[0]]} %}{{ ns.m.a[0].role }}",
            "user",
        ),
        ("{{ 'abcb'.index('b') }}{{ 'abcb'.rindex('b') }}", "13"),
        ("{{ '-42'.zfill(5) }}", "-0042"),
        (
            "{{ 'ab'.center(5, '*') }}|{{ 'ab'.ljust(4) }}|{{ 'ab'.rjust(4) }}",
            "**ab*|ab  |  ab",
        ),
        ("{{ 'aBc'.swapcase() }}", "AbC"),
        (
            "{{ 'Hello World'.istitle() }}{{ 'Hello world'.istitle() }}",
            "TrueFalse",
        ),
        ("{{ 'hello world foo bar'|truncate(9) }}", "hello..."),
        ("{{ 'hello world foo bar'|truncate(9, true) }}", "hello ..."),
        ("{{ 'one, two_three 4'|wordcount }}", "3"),
        ("{{ ' 42 '|int }}{{ '4.7'|int }}{{ 'x'|int(7) }}", "4247"),
        ("{{ [true, none, 1]|join(',') }}", "True,None,1"),
        ("{{ true|string }}", "True"),
        (
            "{{ 1|string is string }}{{ (true|string)|length }}",
            "True4",
        ),
        ("{{ '{}-{:>4}-{x}'.format('a', 7, x=true) }}", "a-   7-True"),
    ] {
        assert_eq!(render(source, &chat()).unwrap(), python, "{source}");
    }
    assert!(
        render("{{ 'abc'.index('x') }}", &chat())
            .unwrap_err()
            .contains("substring not found")
    );
}

/// Every case of `tests/reference/jinja_semantics.json` (written by Python's jinja2 with
/// transformers' settings, `tests/reference/jinja_semantics.py`; `.ci/run` checks the file is
/// what the script writes): the same text, or an error where Python raised.
#[test]
fn str_methods_and_filters_answer_as_python_does() {
    let cases: Vec<serde_json::Value> = serde_json::from_str(include_str!(
        "../../../../tests/reference/jinja_semantics.json"
    ))
    .unwrap();
    assert!(cases.len() > 300, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let source = case["template"].as_str().unwrap();
        let ours = render(source, &chat());
        let agrees = match (&ours, case["python"].as_str()) {
            (Ok(text), Some(python)) => text == python,
            (Err(_), None) => true,
            _ => false,
        };
        if !agrees {
            wrong.push(format!("{source}: ours {ours:?}, Python {case}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
