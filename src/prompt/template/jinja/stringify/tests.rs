use minijinja::syntax::SyntaxConfig;

use super::rewrite_operators;
use crate::prompt::template::jinja::tests::{chat, render};

fn rewrite(source: &str) -> String {
    rewrite_operators(source, SyntaxConfig::default()).unwrap()
}

#[test]
fn operators_become_calls_with_their_operands_whole() {
    assert_eq!(rewrite("{{ a ~ b }}"), "{{ __mentor_concat(a , b) }}");
    assert_eq!(
        rewrite("{{ a ~ b ~ c|upper }}"),
        "{{ __mentor_concat(a , b , c|upper) }}"
    );
    assert_eq!(
        rewrite("{{ (a ~ b) ~ c }}"),
        "{{ __mentor_concat((__mentor_concat(a , b)) , c) }}"
    );
    assert_eq!(
        rewrite("{{ a ~ (b ~ c) }}"),
        "{{ __mentor_concat(a , (__mentor_concat(b , c))) }}"
    );
    assert_eq!(rewrite("{{ x in y }}"), "{{ __mentor_in(x , y) }}");
    assert_eq!(
        rewrite("{{ x not in y }}"),
        "{{ (not __mentor_in(x , y)) }}"
    );
    assert_eq!(
        rewrite("{% if 'a~b' ~ x in ['in'] %}{% endif %}"),
        "{% if __mentor_in(__mentor_concat('a~b' , x) , ['in']) %}{% endif %}"
    );
}

#[test]
fn a_parenthesized_left_operand_of_in_keeps_its_parentheses() {
    assert_eq!(
        rewrite("{{ f(( a ) in b) }}"),
        "{{ f(__mentor_in(( a ) , b)) }}"
    );
    assert_eq!(rewrite("{{ not a in b }}"), "{{ not __mentor_in(a , b) }}");
}

#[test]
fn a_chain_of_comparisons_holding_in_is_refused() {
    let err = rewrite_operators("{{ a < b in c }}", SyntaxConfig::default()).unwrap_err();
    assert!(err.to_string().contains("chain of comparisons"), "{err}");
    // The line is the chain's (kills `line_of` made 0 or 1), and a chain without `in` is
    // left as it is (kills the refusal's guard made `true`).
    let err = rewrite_operators("\n\n{{ a < b in c }}", SyntaxConfig::default()).unwrap_err();
    assert!(err.to_string().contains("(line 3)"), "{err}");
    assert_eq!(rewrite("{{ a < b < c }}"), "{{ a < b < c }}");
}

/// What `in` answers past the strings: nothing is in an undefined value, a macro or a
/// function (`range`, a plain object), as minijinja's own `in` says; and only a string is
/// looked for in a string, as Python says (`1 in 'a1'` is a `TypeError` there). (Kills the
/// deletion of `contains`' arms for `Undefined` and `Plain`.)
#[test]
fn in_answers_for_undefined_values_macros_and_refuses_numbers_in_strings() {
    let source =
        "{% macro m() %}{% endmacro %}{{ 'a' in nothing }}|{{ 'a' in m }}|{{ 'a' in range }}";
    assert_eq!(render(source, &chat()).unwrap(), "False|False|False");
    for needle in ["1", "none", "true"] {
        let err = render(&format!("{{{{ {needle} in 'a1' }}}}"), &chat()).unwrap_err();
        assert!(
            err.contains("'in <string>' requires string as left operand"),
            "{needle}: {err}"
        );
    }
}

/// The filters that take text write a container as Python's `str()` of it and take every
/// other argument as it is: the width of `indent` stays a number. (Kills `as_text`'s `&&`
/// made `||`, and `is_container` made `true`.)
#[test]
fn text_filters_take_their_other_arguments_as_they_are() {
    let out = render("{{ 'a\nb'|indent(2, true) }}|{{ [1, 'x']|upper }}", &chat()).unwrap();
    assert_eq!(out, "  a\n  b|[1, 'X']");
}
