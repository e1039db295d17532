use minijinja::syntax::SyntaxConfig;

use super::rewrite_operators;

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
}
