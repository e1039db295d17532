//! Where a whole prompt's window went: the template's framing, the system message, the kept
//! history, the context, the question, the answer's reserve and what is left free, as shares
//! of the window with their exact token counts; the history that was dropped, and why it
//! stopped there (the library's [`HistoryFit`]); and what is sent: the messages as the JSON
//! report carries them, and the prompt text.

use mentor_context::prompt::{HistoryFit, Prompt};
use serde::Serialize;

use super::budget::{Share, share};
use crate::html::text::Text;

/// The window bar, its table, and the dropped messages.
#[derive(Debug, Serialize)]
pub(super) struct Window<'a> {
    window: usize,
    token_count: usize,
    reserve: usize,
    template: Text<'a>,
    shares: Vec<Share>,
    dropped: Vec<Dropped<'a>>,
    dropped_tokens: usize,
    /// The numbers the history's fitting used.
    history: HistoryFit,
    /// `--history-max-tokens`, where it is set.
    history_cap: Option<usize>,
    /// The share of the room a trim leaves free, in percent, as text.
    trim_step: String,
    /// The messages as sent, as the JSON report writes them (pretty-printed).
    messages: Text<'a>,
    messages_count: usize,
    /// The prompt text (none for OpenAI's chat models, whose messages are what is sent).
    prompt: Option<Text<'a>>,
}

/// What is fitted beside the prompt: what the page says of it besides the report.
pub(super) struct Fitting<'a> {
    /// The template's name.
    pub(super) template: &'a str,
    pub(super) history_cap: Option<usize>,
    pub(super) trim_step: f64,
    /// The report's `messages`, as JSON text.
    pub(super) messages: &'a str,
}

/// The most bytes of the messages' JSON and of the prompt text a page shows: a window's worth
/// of text, even of a million tokens, is under this.
const SENT_BYTES: usize = 8 << 20;

/// A message of the history left out.
#[derive(Debug, Serialize)]
struct Dropped<'a> {
    index: usize,
    role: Text<'a>,
    tokens: usize,
}

/// The window of `prompt`, fitted as `fitting` says.
pub(super) fn window<'a>(prompt: &'a Prompt<'_>, fitting: &Fitting<'a>) -> Window<'a> {
    let parts = &prompt.parts;
    let free = prompt
        .window
        .saturating_sub(prompt.token_count + prompt.reserve);
    let shares = [
        ("template", "template", parts.template),
        ("system", "system", parts.system),
        ("history", "history", parts.history),
        ("context", "context", parts.context),
        ("question", "question", parts.question),
        ("tools", "tools", parts.tools),
        ("reserve", "answer's reserve", prompt.reserve),
        ("free", "free", free),
    ]
    .into_iter()
    // Tools are drawn where there are some: a prompt without them reads as it always has.
    .filter(|&(key, _, tokens)| key != "tools" || tokens > 0)
    .map(|(key, name, tokens)| share(key, name, tokens, prompt.window))
    .collect();
    Window {
        window: prompt.window,
        token_count: prompt.token_count,
        reserve: prompt.reserve,
        template: Text::field(fitting.template),
        shares,
        dropped: prompt
            .dropped
            .iter()
            .map(|d| Dropped {
                index: d.index,
                role: Text::field(&d.role),
                tokens: d.tokens,
            })
            .collect(),
        dropped_tokens: prompt.dropped.iter().map(|d| d.tokens).sum(),
        history: prompt.history,
        history_cap: fitting.history_cap,
        trim_step: step_percent(fitting.trim_step),
        messages: Text::long(fitting.messages, SENT_BYTES),
        messages_count: prompt.messages.len(),
        prompt: prompt
            .prompt
            .as_deref()
            .map(|text| Text::long(text, SENT_BYTES)),
    }
}

/// A trim step (a fraction) in percent, as `--trim-step` gives it: `0.25` is "25".
fn step_percent(step: f64) -> String {
    let text = format!("{:.1}", step * 100.0);
    text.strip_suffix(".0").unwrap_or(&text).to_string()
}
