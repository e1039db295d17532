"""The expected values of src/prompt/template/jinja/tests.rs's semantics table, from Python's
jinja2 with transformers' settings (`transformers.utils.chat_template_utils`).

    python jinja_semantics.py OUT_JSON

Each case is a template; OUT_JSON gets, for each, {"template", "python"} with what jinja2
rendered, or {"template", "error"} with the exception's type when it raised. `.ci/run` runs
this with the reference venv and compares with the committed tests/reference/jinja_semantics.json,
so the fixture cannot drift from Python.
"""

import json
import sys

from transformers.utils.chat_template_utils import _compile_jinja_template

MESSAGES = [
    {"role": "user", "content": "  Hi\x1c "},
    {"role": "assistant", "content": "a</think>b"},
]

STRINGS = ["x1y", "hello world", "Hello World", "HELLO", "ǆx", "ß", "Ⅻ", "é", "१२", "²", "a_b", "", " ", "\x1c", "hi\u2028there", "Ab1"]

CASES = []
for s in STRINGS:
    lit = json.dumps(s, ensure_ascii=False).replace("{", "\\u007b")
    for method in ["title()", "istitle()", "swapcase()", "isalpha()", "isalnum()", "isdigit()",
                   "isspace()", "islower()", "isupper()", "upper()", "lower()", "capitalize()",
                   "strip()", "split()", "rsplit(None, 1)", "splitlines()", "zfill(5)",
                   "center(6, '*')", "ljust(4)", "rjust(4)"]:
        CASES.append("{{ %s.%s }}" % (lit, method))
CASES += [
    "{{ (1, 'a') }}|{{ (1,) }}|{{ () }}",
    "{{ [1, 'x', none, true, 1.0, {'a': (2, 3)}] }}", r"{{ ['a\\b', 'c\rd', 'e\tf', '\u001c', '\u00ff\u0085'] }}", "{{ {'a': 1, 'b': none, 'c': [true]} }}",
    "{{ 'a,b,,c'.rsplit(',') }}", "{{ 'a,b,,c'.rsplit(',', 1) }}", "{{ 'a b  c '.rsplit() }}",
    "{{ 'abcb'.index('b') }}", "{{ 'abcb'.rindex('b') }}", "{{ 'abcb'.index('b', 2) }}",
    "{{ 'abc'.index('x') }}", "{{ 'héllo'.index('l') }}",
    "{{ '-42'.zfill(5) }}", "{{ '+7'.zfill(3) }}", "{{ 'abc'.zfill(2) }}",
    "{{ 'ab'.center(5) }}", "{{ 'abc'.center(6) }}", "{{ 'ab'.center(5, 'xy') }}",
    "{{ 'hello world foo bar'|truncate(9) }}", "{{ 'hello world foo bar'|truncate(9, true) }}",
    "{{ 'hello world foo bar'|truncate(14) }}", "{{ 'short'|truncate(3) }}", "{{ 'hello world'|truncate(2) }}",
    "{{ 'hello world foo bar'|truncate(10, false, '!') }}", "{{ 'abcdefghijkl'|truncate(5, leeway=0) }}",
    "{{ 'one, two_three 4'|wordcount }}", "{{ ''|wordcount }}", "{{ 'é-ß'|wordcount }}",
    "{{ ' 42 '|int }}", "{{ '4.7'|int }}", "{{ 'x'|int(7) }}", "{{ '1_000'|int }}", "{{ '1__0'|int }}",
    "{{ '-3'|int }}", "{{ 4.7|int }}", "{{ true|int }}", "{{ none|int }}", "{{ '0x1A'|int(0, 16) }}",
    "{{ [true, none, 1, 'a']|join(',') }}", "{{ 'abc'|join('-') }}", "{{ [1, 2]|join }}",
    "{{ [{'a': 1}, {'a': 2}]|join(', ', attribute='a') }}", "{{ ', '.join(['a', 'b']) }}",
    "{{ true|string }}", "{{ none|string }}", "{{ [1, (2,)]|string }}",
    "{{ '{}-{:>4}-{x}'.format('a', 7, x=true) }}", "{{ '{0}{0}'.format('ab') }}",
    "{{ 'abc'|trim('ac') }}", "{{ '  x '|trim }}", "{{ [1]|trim }}",
    "{{ 'x1y'|title }}", "{{ 'hello-world foo'|title }}",
    "{{ messages[0].content.strip() }}|{{ messages[1].content.split('</think>')[-1] }}",
    "{{ 'a b'.split(' ', 0) }}", "{{ 'a'.split('') }}",
    "{{ 1.5e-5 }} {{ 1e16 }} {{ 0.1 + 0.2 }} {{ -0.0 }}",
    "{{ {'b': 1, 'a': [1.0, none]}|tojson }}", "{{ (1, 2)|tojson }}", "{{ [1]|tojson(indent=70) }}",
    "{{ [1]|tojson(indent=-3) }}",
    "{{ [[1], [2, 3]]|sum(start=[]) }}", "{{ [1, 2.5]|sum }}", "{{ [{'a': [1]}, {'a': [2]}]|sum(attribute='a', start=[0]) }}",
    "{{ [[1], 2]|sum(start=[]) }}", "{{ [1, 2]|sum(start=10) }}",
    "{{ '%s-%d-%5.1f'|format('a', 3, 2.25) }}", "{{ '%(a)s'|format(a=1) }}",
    "{{ 'a\\nb'.splitlines(true) }}", "{{ 'x'.startswith(('a', 'x')) }}",
    # `~`, `in` and the text filters write a container as Python's str() of it.
    "{{ none ~ 'x' ~ 1 ~ true }}", "{{ [1, 'a', none] ~ '' }}", "{{ 'x' ~ {'a': (1,)} }}",
    "{{ 'a' ~ 'b' ~ 'c' }}", "{{ ('a' ~ 'b') ~ ('c' ~ 'd') }}", "{{ 1 + 2 ~ 3 }}",
    "{{ 'b' in 'abc' }}|{{ 'x' not in 'abc' }}|{{ 1 in [1, 2] }}|{{ 'a' in {'a': 1} }}",
    "{{ [1] in 'abc' }}", "{{ 1 in 'a1' }}", "{{ none in 'None' }}", "{{ true in 'True' }}", "{{ ['a']|upper }}", "{{ [1]|replace('1', '2') }}",
    "{{ 'a' is in 'abc' }}",
]


def main(out_path):
    results = []
    for source in CASES:
        try:
            text = _compile_jinja_template(source).render(messages=MESSAGES)
            results.append({"template": source, "python": text})
        except Exception as e:  # noqa: BLE001 - the type is the expected value
            results.append({"template": source, "error": type(e).__name__})
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
