//! Where a whole prompt's window went: the template's framing, the system message, the kept
//! history, the context, the question, the answer's reserve and what is left free, as shares
//! of the window with their exact token counts; and the history that was dropped.

use mentor_context::prompt::Prompt;
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
}

/// A message of the history left out.
#[derive(Debug, Serialize)]
struct Dropped<'a> {
    index: usize,
    role: Text<'a>,
    tokens: usize,
}

/// The window of `prompt`, fitted through the template named `template`.
pub(super) fn window<'a>(prompt: &'a Prompt<'_>, template: &'a str) -> Window<'a> {
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
        template: Text::field(template),
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
    }
}
