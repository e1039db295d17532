//! The builder's choices checked against the template and made an assembler: what cannot work
//! (a reserve over the window, a placement the template cannot write, tools or options it does
//! not take) is an error here, before any conversation.

use std::sync::Arc;

use super::{Inner, PromptAssembler};
use crate::error::Error;
use crate::prompt::builder_choices::PromptChoices;
use crate::prompt::placement::ContextPlacement;

impl PromptAssembler {
    pub(in crate::prompt) fn new(choices: PromptChoices) -> Result<PromptAssembler, Error> {
        let PromptChoices {
            template,
            window,
            reserve,
            context,
            placement,
            date,
            history_max_tokens,
            trim_step,
            special_tokens_in_messages,
            tools,
            template_options,
            cache,
        } = choices;
        let setting =
            |setting: &'static str, problem: String| Error::PromptSetting { setting, problem };
        if reserve >= window {
            return Err(setting(
                "reserve",
                format!(
                    "the answer's reserve of {reserve} tokens takes the whole window of {window}"
                ),
            ));
        }
        if !(0.0..1.0).contains(&trim_step) {
            return Err(setting(
                "trim_step",
                format!("the trim step must be in 0.0..1.0, not {trim_step}"),
            ));
        }
        if placement == ContextPlacement::Documents && !template.reads_documents() {
            return Err(setting(
                "context_in",
                "the context cannot go to `documents`: this chat template does not read them \
                 (transformers would drop them without a word); put it in the user or system message"
                    .to_string(),
            ));
        }
        if placement == ContextPlacement::Tool && !template.writes_tool_calls() {
            return Err(setting(
                "context_in",
                format!(
                    "the context cannot go to a `tool` result: the {} chat template does not \
                     write tool calls and results yet; put it in the user or system message",
                    template.name()
                ),
            ));
        }
        let given = (tools.clone(), template_options.clone());
        let tools =
            crate::prompt::tools::for_template(tools, &template, special_tokens_in_messages)?;
        let template_options = crate::prompt::template_options::for_template(
            template_options,
            &template,
            special_tokens_in_messages,
        )?;
        let mut context = context
            .tokenizer(template.counter().clone())
            .budget(window - reserve);
        if let Some(cache) = &cache {
            context = context.cache(cache.clone());
        }
        let empty = context.clone().header("").budget(0).build()?;
        let assembler = context.build()?;
        if let Some(dialect) = assembler.dialect() {
            return Err(setting(
                "dialect",
                format!(
                    "a whole prompt cannot be fitted in the {dialect} dialect: {}",
                    dialect_reason(dialect)
                ),
            ));
        }
        Ok(PromptAssembler {
            inner: Arc::new(Inner {
                template,
                window,
                reserve,
                placement,
                date,
                history_max_tokens,
                trim_step,
                special_tokens_in_messages,
                tools,
                template_options,
                given,
                cache,
                assembler,
                empty,
            }),
        })
    }
}

/// Why a dialect's provider cannot have a whole prompt counted here.
fn dialect_reason(dialect: crate::dialects::Dialect) -> &'static str {
    use crate::dialects::Dialect;
    match dialect {
        Dialect::Cohere => {
            "put Command-R's documents through its chat template with the context in `documents` instead"
        }
        Dialect::Mistral => {
            "its tool result is the documents' JSON object, not the text the budget counts; give the context as text in the `tool` result instead, which Mistral's template writes with its tool-call tokens"
        }
        _ => {
            "the provider publishes no tokenizer, so no whole prompt can be exact offline; its context stays exact in the encoding you name"
        }
    }
}
