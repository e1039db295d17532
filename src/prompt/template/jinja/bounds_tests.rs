//! The bounds of a render, tested by which bound stops each hostile template (fuel, depth,
//! output, the parser's nesting) and by what real templates use: no clock.

use minijinja::value::Value;

use super::tests::{chat, render};
use super::{JinjaTemplate, RenderInput};
use crate::prompt::ConversationDate;

/// Every hostile template ends in one error, naming the bound it met: fuel, depth, output or
/// the parser's nesting. No clock: what is asserted is which bound stopped it.
#[test]
fn hostile_templates_end_in_one_error_naming_their_bound() {
    let fuel = "out of fuel";
    let deep = "nested more than 256 levels";
    let cases = [
        (
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            fuel,
        ),
        (
            "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}",
            "recursion",
        ),
        (
            "{% set s = 'x' * 1000000 %}{% for i in range(10) %}{{ s }}{% endfor %}",
            "wrote more than",
        ),
        (
            "{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
            fuel,
        ),
        // Issue 44: a lazily repeated list printed, joined, dumped: each byte is paid for.
        ("{% set s = 'x' * 1000000 %}{{ ([s] * 100000) }}", fuel),
        (
            "{% set s = 'x' * 1000000 %}{{ ([s] * 100000)|join('') }}",
            fuel,
        ),
        (
            "{% set s = 'x' * 1000000 %}{{ ''.join([s] * 100000) }}",
            fuel,
        ),
        (
            "{% set s = 'x' * 1000000 %}{{ ([s] * 100000)|tojson }}",
            fuel,
        ),
        ("{{ ([''] * 100000000)|join('') }}", fuel),
        ("{{ 'x'.center(1000000000000) }}", fuel),
        ("{{ 'x'.zfill(1000000000000) }}", fuel),
        ("{{ '{:>1000000000}'.format(1) }}", fuel),
        ("{{ [1]|tojson(indent=100000000000) }}", fuel),
        // minijinja's `sum` copied the list so far every few items, unpaid.
        ("{{ ([[1]] * 10000000)|sum(start=[])|length }}", fuel),
        (
            "{% set s = 'x' * 1000000 %}{{ ('{0}' * 10000).format(s) }}",
            fuel,
        ),
        ("{{ '{}'.format([1]) }}", "only strings, numbers"),
        (
            "{% set s = 'x' * 1000000 %}{{ '%s'|format([s] * 100000) }}",
            "only strings, numbers",
        ),
        ("{{ '%1000000000000d'|format(1) }}", fuel),
        // Issue 44: `~`, `in` and the text filters wrote a container out whole, unpaid.
        ("{{ '' ~ (['x'] * 100000000) }}", fuel),
        ("{{ (['x'] * 100000000)|upper }}", fuel),
        ("{{ 'x' is endingwith(['x'] * 100000000) }}", fuel),
        (
            "{{ (['x'] * 100000000) in 'abc' }}",
            "requires string as left operand",
        ),
        ("{{ 'y' in (['x'] * 100000000) }}", fuel),
        ("{{ 1 < 2 in [True] }}", "chain of comparisons holding `in`"),
        // A namespace holding itself would be infinitely deep, and minijinja's `~` would
        // recurse without end: it is never stored.
        (
            "{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ 'x' ~ ns }}",
            "cannot be stored in a namespace",
        ),
        (
            "{% set ns = namespace(a=1) %}{% set ns.a = [{'b': ns}] %}{{ 'x' ~ ns }}",
            "cannot be stored in a namespace",
        ),
        (
            "{% set ns = namespace(a=1) %}{% set other = namespace(n=ns) %}{% set ns.a = other %}",
            "cannot be stored in a namespace",
        ),
        // 300 levels, printed, dumped, joined, made a string: each meets the depth bound.
        (&nest300("{{ a }}"), deep),
        (
            &nest300("{{ a|tojson }}"),
            "tojson: the value is nested more than 256",
        ),
        (&nest300("{{ [a]|join }}"), deep),
        (&nest300("{{ a|string }}"), deep),
        // Nesting carried across a loop stops at the depth bound.
        (
            "{% set ns = namespace(x=1) %}{% for i in range(1000) %}{% set ns.x = [ns.x] %}{% endfor %}",
            "set: the value is nested more than 256 levels",
        ),
        (
            "{% set ns = namespace(x=1) %}{% for i in range(1000) %}{% set ns.x = {'k': ns.x} %}{% endfor %}",
            "set: the value is nested more than 256 levels",
        ),
        (
            "{{ raise_exception('Conversation roles must alternate') }}",
            "the template raised: Conversation roles must alternate",
        ),
        ("{% for m in messages %}", "unexpected end of input"),
        ("{{ 'a'.split('') }}", "empty separator"),
        ("{{ [1]|pprint }}", "pprint filter is not supported"),
        (&"{{ (".repeat(5000), "recursion limits"),
        (
            &format!(
                "{}x{}",
                "{% if true %}".repeat(2000),
                "{% endif %}".repeat(2000)
            ),
            "recursion limits",
        ),
    ];
    for (source, expected) in cases {
        let err = within_a_hang_limit(source).expect_err(&source[..source.len().min(80)]);
        assert!(
            err.contains(expected),
            "{}: {err}",
            &source[..source.len().min(80)]
        );
        assert!(!err.contains('\n'), "one line: {err}");
    }
    // A filter chain as long as the largest template: the compiler recurses once per link,
    // on a stack sized for it.
    let chain = format!(
        "{{{{ [1]{} }}}}",
        "|list".repeat(super::MAX_TEMPLATE_BYTES / 5 - 4)
    );
    assert!(chain.len() <= super::MAX_TEMPLATE_BYTES);
    let _compiled_or_refused = JinjaTemplate::new(&chain).map(|t| t.reads_documents());
    let huge = "x".repeat(super::MAX_TEMPLATE_BYTES + 1);
    assert!(
        JinjaTemplate::new(&huge)
            .unwrap_err()
            .problem()
            .contains("at most")
    );
}

/// `render(source)`, failing the test if it has not ended after 30 seconds: no bound here is
/// a time, but a template that neither ends nor runs out of fuel is a bug to report, not a
/// test that never finishes.
fn within_a_hang_limit(source: &str) -> Result<String, String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    let owned = source.to_string();
    std::thread::spawn(move || sender.send(render(&owned, &chat())));
    receiver
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("hung: {}", &source[..source.len().min(80)]))
}

/// A list 300 levels deep in `a`, then `then`.
fn nest300(then: &str) -> String {
    let level = format!("{{% set a = {}a{} %}}", "[".repeat(60), "]".repeat(60));
    format!("{{% set a = 1 %}}{}{then}", level.repeat(5))
}

/// The fuel rule: a base, and a share per message and per input byte.
#[test]
fn fuel_grows_with_the_input() {
    use super::bounds::{BASE_FUEL, FUEL_PER_MESSAGE, INPUT_BYTES_PER_FUEL, fuel_for};
    assert_eq!(fuel_for(0, 0), BASE_FUEL);
    assert_eq!(
        fuel_for(10, 4000),
        BASE_FUEL + 10 * FUEL_PER_MESSAGE + 4000 / INPUT_BYTES_PER_FUEL
    );
    assert_eq!(fuel_for(usize::MAX, usize::MAX), u64::MAX);
}

/// The deepest list the fuel lets a template build and still use (`[[...]]` literals, the
/// cheapest level there is, one `set` after another: a namespace cannot carry nesting past
/// 256 levels) is compared, concatenated (minijinja's own recursive `Display`) and dropped on
/// the render's stack; one tenth more than the fuel allows runs out of it.
#[test]
fn the_deepest_value_the_fuel_allows_does_not_overflow_the_stack() {
    let level = format!("{{% set x = {}x{} %}}", "[".repeat(50), "]".repeat(50));
    let build = |sets: usize, then: &str| format!("{{% set x = 1 %}}{}{then}", level.repeat(sets));
    let per_set = fuel_used(&build(101, "")) - fuel_used(&build(1, ""));
    let per_set = usize::try_from(per_set / 100).unwrap();
    let most = usize::try_from(super::bounds::fuel_for(2, 1000)).unwrap() / per_set;
    // Printing and comparing cost about a third of the building, so seven tenths of the
    // fuel is about the deepest value that can still be used (about 85,000 levels).
    let deepest = most * 7 / 10;
    let out = render(&build(deepest, "{{ x == x }}"), &chat()).unwrap();
    assert_eq!(out, "True");
    assert!(
        render(&build(6, "{{ x ~ '' }}"), &chat())
            .unwrap_err()
            .contains("nested more than 256 levels")
    );
    assert!(
        render(&build(most * 11 / 10, ""), &chat())
            .unwrap_err()
            .contains("out of fuel")
    );
}

/// The stack's other bound, by source: with fuel to spare (a long conversation's), two values
/// 200,000 levels deep, built apart from `[[...]]` literals in 880 KB of source, are compared
/// level by level and dropped on the stack their source, not their fuel, sizes. (Kills the
/// mutant `STACK_PER_FUEL / 3 / 2` of `STACK_PER_LEVEL`: 341 bytes a source byte overflow
/// here; 500 do not.)
#[test]
fn the_deepest_value_the_source_allows_does_not_overflow_the_stack() {
    let level = |name: &str| {
        format!(
            "{{% set {name} = {}{name}{} %}}",
            "[".repeat(50),
            "]".repeat(50)
        )
    };
    let source = format!(
        "{{% set x = 1 %}}{{% set y = 1 %}}{}{}{{{{ x == y }}}}",
        level("x").repeat(4_000),
        level("y").repeat(4_000)
    );
    let template = JinjaTemplate::new(&source).unwrap();
    let messages = chat();
    let input_bytes = 1 << 30;
    let fuel = super::bounds::fuel_for(2, input_bytes);
    let by_fuel = super::bounds::stack_for(fuel, usize::MAX, 0);
    let stack = super::bounds::stack_for(fuel, source.len(), 200);
    assert!(
        stack < by_fuel,
        "the source's bound decides: {stack} of {by_fuel}"
    );
    let out = template.render(&input(&messages, input_bytes));
    assert_eq!(out.unwrap(), "True");
}

/// The premise of the stack's bound by source: a value set in a loop is the iteration's own,
/// so nesting does not grow with the iterations (it grows with the source, or in a namespace,
/// whose stores are held to the depth bound); and a real template's stack stays small however
/// long the conversation.
#[test]
fn nesting_outlives_a_loop_only_through_a_namespace() {
    let out = render(
        "{% set x = 1 %}{% for i in range(5000) %}{% set x = [x] %}{% endfor %}{{ x }}",
        &chat(),
    )
    .unwrap();
    assert_eq!(out, "1");
    let error = render(
        "{% set ns = namespace(x=1) %}{% for i in range(5000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}",
        &chat(),
    )
    .unwrap_err();
    assert!(error.contains("nested more than 256 levels"), "{error}");
    // 20,000 turns of a 5 KB template: its fuel would ask for gigabytes, its source for less
    // than 32 MB.
    let fuel = super::bounds::fuel_for(40_000, 4 << 20);
    let stack = super::bounds::stack_for(fuel, 5_000, 200);
    assert!(stack < 32 << 20, "{stack}");
    assert!(super::bounds::stack_for(fuel, usize::MAX, 200) > 1 << 30);
}

/// `~` of strings and `in` on a string pay for the bytes they make or search, a fuel per 64
/// bytes, as minijinja pays for the strings it makes. (Kills `fuel_for_bytes` made 0 or 1.)
#[test]
fn concatenating_or_searching_strings_pays_by_the_byte() {
    let base = fuel_used("{% set s = 'x' * 64000 %}{% set t = s %}");
    let concat = fuel_used("{% set s = 'x' * 64000 %}{% set t = s ~ s %}");
    let search = fuel_used("{% set s = 'x' * 64000 %}{% set t = 'y' in s %}");
    assert!(concat >= base + 2000, "{concat} against {base}");
    assert!(search >= base + 1000, "{search} against {base}");
}

/// What a template is given here: `messages`, a pinned date, and nothing else.
pub(super) fn input(messages: &Value, input_bytes: usize) -> RenderInput<'_> {
    RenderInput {
        messages,
        documents: None,
        tools: None,
        options: None,
        bos_token: None,
        eos_token: None,
        date: "2026-12-02".parse::<ConversationDate>().unwrap(),
        input_bytes,
    }
}

fn fuel_used(source: &str) -> u64 {
    let template = JinjaTemplate::new(source).unwrap();
    let messages = chat();
    template.render_metered(&input(&messages, 1000)).1.unwrap()
}

/// The open models' own templates (from `MENTOR_TOKENIZER_DATA`, as `.ci/run` sets it) on
/// conversations of 2 to 20,000 turns, short and long: each uses at most a third of the fuel
/// the rule gives it, so the trimming of a long history, not the fuel, decides. (Measured:
/// about 60 fuel a turn against the rule's 400, and a sixteenth to a twelfth of a fuel a byte
/// against its quarter.)
#[test]
fn real_templates_use_a_small_share_of_their_fuel() {
    let Some(dir) = std::env::var_os("MENTOR_TOKENIZER_DATA") else {
        eprintln!("skipped: MENTOR_TOKENIZER_DATA is not set");
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    for model in ["qwen3", "gemma3", "deepseek_v3", "llama3_1"] {
        let config = dir.join(model).join("tokenizer_config.json");
        let config: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
        let template = JinjaTemplate::new(config["chat_template"].as_str().unwrap()).unwrap();
        for (turns, words) in [(2, 3), (200, 3), (20_000, 3), (20, 20_000)] {
            let messages: Vec<Value> = (0..turns)
                .map(|i| {
                    let role = if i % 2 == 0 { "user" } else { "assistant" };
                    let content = format!("Turn {i}: {}", "plan costs ".repeat(words));
                    Value::from_pairs([
                        ("role", Value::from(role)),
                        ("content", Value::from(content)),
                    ])
                })
                .collect();
            let input_bytes: usize = messages
                .iter()
                .map(|m| m.get_attr("content").unwrap().as_str().unwrap().len() + 9)
                .sum();
            let messages = Value::from(messages);
            let (text, used) = template.render_metered(&RenderInput {
                bos_token: Some("<s>"),
                eos_token: Some("</s>"),
                ..input(&messages, input_bytes)
            });
            text.unwrap_or_else(|e| panic!("{model}, {turns} turns: {e}"));
            let used = used.unwrap();
            let fuel = super::bounds::fuel_for(turns, input_bytes);
            eprintln!("{model}: {turns} turns of {words} words: {used} of {fuel} fuel");
            assert!(used * 3 <= fuel, "{model}, {turns} turns: {used} of {fuel}");
        }
    }
}

/// A dict printed is as deep as its values and its keys: the deepest value a namespace may
/// hold (256 levels), put one level down as a dict's value or as its key, is refused by
/// `repr`'s own bound. (Kills `depth + 1` made `depth * 1` for a dict's keys and values.)
#[test]
fn a_dict_one_level_deeper_than_a_namespace_holds_is_refused_when_printed() {
    for (wrap, show) in [
        ("{'a': ns.x}", "{{ {'b': ns.x} }}"),
        ("(ns.x,)", "{{ {ns.x: 1} }}"),
    ] {
        let store = format!(
            "{{% set ns = namespace(x=1) %}}{{% for i in range(256) %}}{{% set ns.x = {wrap} %}}{{% endfor %}}"
        );
        assert!(render(&format!("{store}stored"), &chat()).is_ok(), "{wrap}");
        let error = render(&format!("{store}{show}"), &chat()).unwrap_err();
        assert!(
            error.contains("repr: the value is nested more than 256 levels deep"),
            "{show}: {error}"
        );
    }
}

/// What a template reads decides whether documents may be given to it, and `Debug` says so.
#[test]
fn a_template_says_whether_it_reads_documents() {
    for (source, reads) in [
        ("{% for d in documents %}{{ d.text }}{% endfor %}", true),
        ("{{ messages[0].content }}", false),
    ] {
        let template = JinjaTemplate::new(source).unwrap();
        assert_eq!(template.reads_documents(), reads, "{source}");
        assert_eq!(
            format!("{template:?}"),
            format!("JinjaTemplate {{ reads_documents: {reads}, .. }}")
        );
    }
}

/// Widths are paid for by the byte they may write, a quarter of a fuel each, as every text we
/// build is: 100,000 characters of padding, of a format's width or of `tojson`'s indent fit
/// in the base fuel. (Kills the payment made bytes times four.)
#[test]
fn widths_pay_by_the_byte_they_may_write() {
    for source in [
        "{{ '{:>100000}'.format('x')|length }}",
        "{{ 'x'.center(100000)|length }}",
    ] {
        assert_eq!(render(source, &chat()).as_deref(), Ok("100000"), "{source}");
    }
    // Python: `len(json.dumps({'a': 1}, indent=100000))`.
    assert_eq!(
        render("{{ {'a': 1}|tojson(indent=100000)|length }}", &chat()).as_deref(),
        Ok("100010")
    );
}
