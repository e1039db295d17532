//! `inspect` of a whole prompt: where the window went, what is sent (the messages as the
//! report carries them and the prompt text, each string only text), why the history stopped
//! where it did, and the budgets and costs named for what they are.

use serde_json::Value;

use super::html::decode;
use super::pages::{inspect, run_in_root};
use super::{PRICING, TempFile};

const CONVERSATION: &str = "fixtures/prompt/conversation.json";

/// The `prompt --json` report of the whole prompt `args` describe.
fn report(args: &[&str]) -> Value {
    let mut all = vec!["prompt", "--json"];
    all.extend_from_slice(args);
    run_in_root(&all).json()
}

/// The whole-prompt arguments: the pricing results, `conversation`, a window and a template,
/// then `extra`.
fn whole<'a>(
    conversation: &'a str,
    window: &'a str,
    template: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        "fixtures/pricing.json",
        "--conversation",
        conversation,
        "--window",
        window,
        "--reserve",
        "200",
        "--chat-template",
        template,
        "--date",
        "2026-12-03",
    ];
    args.extend_from_slice(extra);
    args
}

/// The inside of the first element of `html` that opens with `open`, up to `close`.
#[track_caller]
fn inside<'h>(html: &'h str, open: &str, close: &str) -> &'h str {
    let at = html.find(open).unwrap_or_else(|| panic!("no {open}")) + open.len();
    let end = html[at..]
        .find(close)
        .unwrap_or_else(|| panic!("no {close} after {open}"));
    &html[at..at + end]
}

/// A string as the page shows it read back: each hidden character shown by its code point
/// put back, the tags dropped, the character references decoded.
fn read_back(shown: &str) -> String {
    let mut text = String::new();
    let mut rest = shown;
    while let Some(at) = rest.find('<') {
        text.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find('>').expect("a tag ends");
        if let Some(cp) = rest[..end].strip_prefix("<span class=\"cc\" data-cp=\"") {
            let cp = &cp[..cp.find('"').unwrap()];
            text.push(char::from_u32(u32::from_str_radix(cp, 16).unwrap()).unwrap());
            rest = &rest[rest.find("</span>").unwrap() + "</span>".len()..];
        } else {
            rest = &rest[end + 1..];
        }
    }
    text.push_str(rest);
    decode(&text)
}

#[test]
fn inspect_draws_where_a_whole_prompt_s_window_went() {
    let args = [
        "fixtures/pricing.json",
        "--conversation",
        "fixtures/prompt/conversation.json",
        "--window",
        "600",
        "--reserve",
        "200",
        "--history-max-tokens",
        "40",
        "--chat-template",
        "openai",
    ];
    let html = decode(&inspect(&args));
    let mut with_json = vec!["prompt", "--json"];
    with_json.extend(args);
    let report = run_in_root(&with_json).json();
    let row = |key: &str, tokens: u64| {
        let at = html
            .find(&format!("<tr data-window-share=\"{key}\">"))
            .unwrap_or_else(|| panic!("a row for {key}"));
        let row = &html[at..at + html[at..].find("</tr>").unwrap()];
        assert!(
            row.contains(&format!("<td class=\"num\">{tokens}</td>")),
            "{key}: {row}"
        );
    };
    for part in ["template", "system", "history", "context", "question"] {
        row(part, report["parts"][part].as_u64().unwrap());
    }
    row("reserve", 200);
    row("free", 600 - 200 - report["tokenCount"].as_u64().unwrap());
    let dropped = report["dropped"].as_array().unwrap();
    assert!(!dropped.is_empty());
    assert_eq!(html.matches("<tr data-dropped=").count(), dropped.len());
    for message in dropped {
        assert!(html.contains(&format!("<tr data-dropped=\"{}\">", message["index"])));
    }
    // The context's own blocks follow, as `inspect` draws any context.
    assert_eq!(
        html.matches("<article class=\"block\"").count(),
        report["context"]["citations"].as_array().unwrap().len()
    );
    // A whole prompt carries its history in the conversation, not in a previous report.
    let page = TempFile::new("page.html", b"");
    let mut previous = vec!["inspect", "--output", page.path(), "--previous", PRICING];
    previous.extend(args);
    run_in_root(&previous).bad(&["--previous", "--conversation"]);
    // The whole prompt's options come together.
    run_in_root(&[
        "inspect",
        "--output",
        page.path(),
        "--window",
        "600",
        PRICING,
    ])
    .bad(&["--conversation"]);
}

/// The messages as sent, collapsed, as the report's `messages`; the prompt text, collapsed, as
/// the report's `prompt`; every string in them text, never markup, with what a reader would
/// not see shown by its code point. A model sent only messages has no prompt text.
#[test]
fn the_page_shows_the_messages_and_the_prompt_text_sent() {
    let mut chat: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{}/{CONVERSATION}", super::pages::ROOT)).unwrap(),
    )
    .unwrap();
    let hostile = "Is <script>alert(1)</script> & <b>bold</b> \u{202E}reversed</b> billed?";
    let last = chat.len() - 1;
    chat[last]["content"] = Value::from(hostile);
    let conversation = TempFile::new(
        "conversation.json",
        Value::from(chat).to_string().as_bytes(),
    );
    let args = whole(conversation.path(), "4096", "harmony", &[]);
    let html = inspect(&args);
    let report = report(&args);
    assert!(!html.contains("<script>alert") && !html.contains("<b>bold"));

    let messages = inside(
        &html,
        "<details class=\"whole\" data-sent=\"messages\">",
        "</details>",
    );
    assert!(messages.contains(&format!(
        "The messages as sent ({})",
        report["messages"].as_array().unwrap().len()
    )));
    let shown = read_back(inside(messages, "<pre class=\"whole\">", "</pre>"));
    let parsed: Value = serde_json::from_str(&shown).expect("the messages are shown as JSON");
    assert_eq!(parsed, report["messages"]);
    assert!(shown.contains("\u{202E}") && messages.contains("data-cp=\"202E\""));

    let prompt = inside(
        &html,
        "<details class=\"whole\" data-sent=\"prompt\">",
        "</details>",
    );
    let shown = read_back(inside(prompt, "<pre class=\"whole\">", "</pre>"));
    assert_eq!(shown, report["prompt"].as_str().unwrap());
    assert!(shown.contains(hostile));

    // OpenAI's chat models are sent the messages only.
    let args = whole(CONVERSATION, "4096", "openai", &[]);
    let html = inspect(&args);
    assert!(html.contains("data-sent=\"messages\""));
    assert!(!html.contains("data-sent=\"prompt\""));
    assert!(html.contains("there is no prompt text"));
}

/// The sentence under the window says why the history stopped where it did, with the numbers
/// the library's fitting used, and they are the rule's: a turn's cost is what its dropped
/// messages cost, and the kept and the dropped add up to the whole history's cost.
#[test]
fn the_page_says_why_the_history_stopped_with_the_fit_s_numbers() {
    let sentence = |html: &str| read_back(inside(html, "<p class=\"why\" data-history>", "</p>"));
    let number = |value: &Value| value.as_u64().unwrap();

    // Roomy: every turn kept.
    let args = whole(CONVERSATION, "4096", "openai", &[]);
    let all = report(&args)["history"].clone();
    assert_eq!(all["keptTurns"], all["turns"]);
    assert!(all.get("nextOlderTokens").is_none());
    assert_eq!(
        sentence(&inspect(&args)),
        format!(
            "The whole history is kept: its {} turns cost {} tokens, within its room of {} (half of \
             what the window leaves after the reserve, the template, the tools and the system \
             message, or more where the context left room unused).",
            all["turns"], all["keptTokens"], all["room"]
        )
    );

    // Capped at 50: the newer turn fits, the older would take the history over its room.
    let args = whole(
        CONVERSATION,
        "4096",
        "openai",
        &["--history-max-tokens", "50"],
    );
    let fit = report(&args);
    let h = &fit["history"];
    let (kept, next) = (number(&h["keptTokens"]), number(&h["nextOlderTokens"]));
    assert_eq!((number(&h["room"]), number(&h["trimmedRoom"])), (50, 37));
    assert_eq!((number(&h["keptTurns"]), number(&h["turns"])), (1, 2));
    let dropped: u64 = fit["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| number(&d["tokens"]))
        .sum();
    assert_eq!(next, dropped, "one turn dropped: the next older turn");
    assert_eq!(kept + next, number(&all["keptTokens"]));
    assert!(kept + next > 50);
    assert_eq!(
        sentence(&inspect(&args)),
        format!(
            "The prompt keeps the newest 1 of the history's 2 turns. The history's room is 50 \
             tokens (the --history-max-tokens cap); when the kept turns outgrow it, the oldest go \
             until the rest fit in the room less the trim step (25 % of it): 37 tokens, so that \
             the next turns fit without another trim and the prompt keeps starting with the same \
             text. The kept turns cost {kept}, and the next older turn {next}: with it the \
             history would cost {}, over its room.",
            kept + next
        )
    );

    // Capped at 40 with a step of 30 %: the newer turn alone is over what a trim leaves, so
    // it went in the same trim as the older, though it would fit in the room now.
    let args = whole(
        CONVERSATION,
        "4096",
        "openai",
        &["--history-max-tokens", "40", "--trim-step", "0.3"],
    );
    let h = report(&args)["history"].clone();
    assert_eq!(
        (number(&h["keptTurns"]), number(&h["trimmedRoom"])),
        (0, 28)
    );
    let next = number(&h["nextOlderTokens"]);
    assert!(next <= 40 && next > 28);
    let said = sentence(&inspect(&args));
    assert!(said.contains("(30 % of it): 28 tokens"), "{said}");
    assert!(
        said.ends_with(&format!(
            "The kept turns cost 0, and the next older turn {next}: with it the history would \
             cost {next}, within its room but over the 28 a trim leaves: it went in the last \
             trim, and the history has not outgrown its room since."
        )),
        "{said}"
    );

    // A question so long that the rule's history and no context at all do not fit: turns go
    // beyond the rule's, and the sentence says so.
    let mut chat: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(format!("{}/{CONVERSATION}", super::pages::ROOT)).unwrap(),
    )
    .unwrap();
    let last = chat.len() - 1;
    chat[last]["content"] = Value::from(
        "What does Business cost per seat, and does annual billing change it? "
            .repeat(20)
            .trim_end(),
    );
    let conversation = TempFile::new(
        "conversation.json",
        Value::from(chat).to_string().as_bytes(),
    );
    let args = whole(conversation.path(), "560", "openai", &[]);
    let fit = report(&args);
    assert_eq!(fit["history"]["droppedToFit"], true);
    assert!(number(&fit["history"]["keptTokens"]) <= number(&fit["history"]["trimmedRoom"]));
    let said = sentence(&inspect(&args));
    assert!(
        said.ends_with(
            "the trimming rule would have kept more, but the prompt did not fit the window with \
             no room left for the context, so older turns went until it did."
        ),
        "{said}"
    );
}

/// The context's budget is never called the window's, and what a result left out needs alone
/// says what the number is: the budget that takes it in cut to its head and shortest cut, and
/// the one that takes it whole; each as `assemble` finds it.
#[test]
fn budgets_and_costs_are_named_for_what_they_are() {
    let args = whole(CONVERSATION, "600", "openai", &[]);
    let html = decode(&inspect(&args));
    for name in [
        "<h2>The context's budget</h2>",
        " %) of the context's budget, its share of the window",
        "<th class=\"num\">in at the context's budget of</th>",
        "<th class=\"num\">alone, the context's budget it needs</th>",
        "the context's budget and not the window",
    ] {
        assert!(html.contains(name), "{name}");
    }
    assert!(!html.contains("in at a budget of") && !html.contains("alone needs"));

    // A result left out of the pricing context at 400: the two budgets it names, each the
    // smallest that takes it in (cut, then whole).
    let html = decode(&inspect(&["--budget", "400", "fixtures/pricing.json"]));
    let cell = inside(&html, "<td class=\"num\"><span data-need=\"6\">", "</tr>");
    let cell = inside(cell, "<td class=\"num\">", "</td>");
    let (cut, whole) = cell
        .strip_suffix(" whole")
        .and_then(|rest| rest.split_once(" for its head and the shortest cut; "))
        .unwrap_or_else(|| panic!("{cell}"));
    let (cut, whole): (usize, usize) = (cut.parse().unwrap(), whole.parse().unwrap());
    assert!(cut < whole);
    let results: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(PRICING).unwrap()).unwrap();
    let alone = TempFile::new(
        "alone.json",
        Value::from(vec![results[6].clone()]).to_string().as_bytes(),
    );
    let at = |budget: usize| {
        let report = run_in_root(&[
            "assemble",
            "--json",
            "--budget",
            &budget.to_string(),
            alone.path(),
        ])
        .json();
        report["citations"][0]["truncated"].as_bool()
    };
    assert_eq!(at(cut - 1), None);
    assert_eq!(at(cut), Some(true));
    assert_eq!(at(whole - 1), Some(true));
    assert_eq!(at(whole), Some(false));
}
