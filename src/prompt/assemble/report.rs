//! Step 5, the report: the prompt fitted, how its count splits between the parts (the tools'
//! share by one more render, without them), the messages dropped, and the numbers the
//! history's rule used.

use super::Inner;
use super::candidate::{count, render};
use super::costs::Costs;
use super::fit::Fitted;
use super::read::Conversation;
use crate::error::Error;
use crate::prompt::ConversationDate;
use crate::prompt::count::Counting;
use crate::prompt::history;
use crate::prompt::report::{DroppedMessage, HistoryFit, Prompt, PromptParts};

/// The prompt `fitted` is, reported.
pub(super) fn prompt<'c>(
    inner: &Inner,
    chat: &Conversation,
    costs: &Costs,
    fitted: Fitted<'c>,
    date: ConversationDate,
    counting: &mut Counting<'_>,
) -> Result<Prompt<'c>, Error> {
    let Fitted {
        candidate,
        room,
        first,
        by_rule,
    } = fitted;
    let total = candidate.total;
    let kept_from = candidate.kept_from;
    let history = HistoryFit {
        room,
        trimmed_room: history::trimmed_target(room, inner.trim_step),
        turns: costs.turns.len(),
        kept_turns: costs.turns.len() - first,
        kept_tokens: costs.kept(first),
        next_older_tokens: first.checked_sub(1).map(|newest| costs.turns[newest]),
        dropped_to_fit: first > by_rule,
    };
    let mut history_tokens = 0;
    for index in chat.turn_messages(kept_from..chat.history.end) {
        history_tokens += counting.text(chat.text(index))?;
    }
    let dropped = chat
        .turn_messages(chat.history.start..kept_from)
        .map(|index| DroppedMessage {
            index,
            role: chat.messages[index].role().to_string(),
            tokens: costs.messages[index],
        })
        .collect();
    let context_tokens = match &candidate.documents {
        Some(documents) => {
            let mut tokens = 0;
            for document in documents {
                tokens += counting.text(&document.title)? + counting.text(&document.text)?;
            }
            tokens
        }
        None => candidate.context.token_count,
    };
    let counted = costs.system + history_tokens + context_tokens + costs.question;
    // What the tools add: the count less the count of the same prompt rendered without them.
    let tools_tokens = if inner.tools.is_none() {
        0
    } else {
        let plain = render(
            inner,
            &candidate.messages,
            candidate.documents.as_deref(),
            false,
            date,
            counting,
        )?;
        let without = count(inner, &plain, &candidate.context, counting)?;
        total.saturating_sub(without)
    };
    let tools_tokens = tools_tokens.min(total.saturating_sub(counted));
    let parts = PromptParts {
        template: total.saturating_sub(counted + tools_tokens),
        tools: tools_tokens,
        system: costs.system,
        history: history_tokens,
        context: context_tokens,
        question: costs.question,
    };
    Ok(Prompt {
        prompt: candidate.rendered.text,
        messages: candidate.messages,
        documents: candidate.documents,
        token_count: total,
        exact: inner.template.counts_tools_exactly()
            || inner
                .tools
                .as_ref()
                .is_none_or(|tools| tools.len() == Some(0)),
        window: inner.window,
        reserve: inner.reserve,
        parts,
        dropped,
        history,
        context: candidate.context,
    })
}
