//! `new PromptAssembler(options)`: the command's `prompt` options, in camelCase, into the
//! library's `PromptBuilder`.
//!
//! The prompt's own options are read here; the context's are `new Assembler`'s
//! ([`Options`]), but for those that set the budget or the tokenizer, which a whole prompt's
//! window and chat template decide: they are refused by name, as the command refuses its
//! flags. The template is the library's choice of [`ChatTemplate::named`].

use std::path::Path;

use mentor_context::Error;
use mentor_context::prompt::{
    ChatTemplate, ContextPlacement, ConversationDate, PromptAssembler, PromptBuilder,
};
use mentor_context::tokenizer::TokenCache;

use crate::errors::{ErrorCode, Failure};
use crate::given::Given;
use crate::options::{self, KNOWN, Options};

/// The prompt's own options, as JavaScript spells them (`budget` only to be refused).
const OWN: [&str; 10] = [
    "window",
    "chatTemplate",
    "reserve",
    "tokenizerFile",
    "date",
    "contextIn",
    "historyMaxTokens",
    "trimStep",
    "specialTokensInMessages",
    "budget",
];

/// Every option `new PromptAssembler` knows: its own and `new Assembler`'s.
pub(crate) fn known() -> Vec<&'static str> {
    OWN.iter().chain(KNOWN.iter()).copied().collect()
}

fn refused(message: impl Into<String>) -> Failure {
    Failure::new(ErrorCode::InvalidOption, message)
}

/// The prompt's own options, each read for its type.
#[derive(Debug, Default)]
struct Own {
    window: Option<usize>,
    chat_template: Option<String>,
    reserve: Option<usize>,
    tokenizer_file: Option<String>,
    date: Option<String>,
    context_in: Option<String>,
    history_max_tokens: Option<usize>,
    trim_step: Option<f64>,
    special_tokens_in_messages: bool,
}

/// What `new PromptAssembler(options)` builds: the library's assembler, and whether an
/// unknown property in a result is an error.
pub(crate) struct Built {
    pub(crate) prompts: PromptAssembler,
    pub(crate) strict: bool,
}

/// Reads `entries` (each a known one: `args::options` checked) and builds the assembler;
/// `seal_key` is read from the object itself by the caller.
pub(crate) fn build(
    entries: Vec<(String, Given)>,
    seal_key: Option<Vec<u8>>,
) -> Result<Built, Failure> {
    let mut own = Own::default();
    let mut budget = Given::Nothing;
    let mut context = Vec::new();
    for (name, value) in entries {
        match name.as_str() {
            "window" => own.window = options::count(&name, &value)?,
            "chatTemplate" => own.chat_template = options::text(&name, value)?,
            "reserve" => own.reserve = options::count(&name, &value)?,
            "tokenizerFile" => own.tokenizer_file = options::text(&name, value)?,
            "date" => own.date = options::text(&name, value)?,
            "contextIn" => own.context_in = options::text(&name, value)?,
            "historyMaxTokens" => own.history_max_tokens = options::count(&name, &value)?,
            "trimStep" => {
                own.trim_step = match value {
                    Given::Nothing => None,
                    Given::Number(step) => Some(step),
                    other => {
                        return Err(refused(format!(
                            "trimStep: expected a number, got {}",
                            other.described()
                        )));
                    }
                }
            }
            "specialTokensInMessages" => {
                own.special_tokens_in_messages = options::flag(&name, &value)?;
            }
            "budget" => budget = value,
            _ => context.push((name, value)),
        }
    }
    let mut read = Options::read(&budget, context)?;
    read.seal_key = seal_key;
    // As the command: the options that set the budget or the tokenizer first, by name.
    if let Some((name, why)) = read.not_for_a_whole_prompt() {
        return Err(refused(format!(
            "{name} is not an option of PromptAssembler: {why}"
        )));
    }
    let window = own.window.ok_or_else(|| {
        refused("window: missing; give the model's context window in tokens (prompt and answer)")
    })?;
    let choice = own.chat_template.as_deref().ok_or_else(|| {
        refused(
            "chatTemplate: missing; give 'openai', 'harmony', 'mistral' or the path of a \
             tokenizer_config.json or chat_template.jinja",
        )
    })?;
    let context_options = read.context_options()?;
    let template = ChatTemplate::named(
        choice,
        own.tokenizer_file.as_deref().map(Path::new),
        read.named_encoding()?,
    )
    .map_err(|err| {
        let name = match err {
            Error::TokenizerFile { .. } => "tokenizerFile",
            _ => "chatTemplate",
        };
        Failure::library(&err).at(name)
    })?;
    let date = own
        .date
        .as_deref()
        .map(str::parse::<ConversationDate>)
        .transpose()
        .map_err(|err| Failure::library(&err).at("date"))?;
    let mut builder = PromptBuilder::new(template, window)
        .context(context_options)
        .date(date)
        .history_max_tokens(own.history_max_tokens)
        .special_tokens_in_messages(own.special_tokens_in_messages)
        .cache(read.cache_bytes().map(TokenCache::new));
    if let Some(reserve) = own.reserve {
        builder = builder.reserve(reserve);
    }
    if let Some(placement) = &own.context_in {
        let placement = placement
            .parse::<ContextPlacement>()
            .map_err(|err| Failure::library(&err).at("contextIn"))?;
        builder = builder.context_in(placement);
    }
    if let Some(step) = own.trim_step {
        builder = builder.trim_step(step);
    }
    let prompts = builder.build().map_err(|err| match &err {
        Error::PromptSetting { .. } => match setting_at_fault(&own, &read, &err.to_string()) {
            Some(name) => Failure::library(&err).at(name),
            None => Failure::library(&err),
        },
        _ => Failure::library(&err),
    })?;
    Ok(Built {
        prompts,
        strict: read.strict,
    })
}

/// The option a whole-prompt setting's error is about, as the command tells its flag: the
/// library's message says what is wrong, this says where.
fn setting_at_fault(own: &Own, read: &Options, message: &str) -> Option<&'static str> {
    if read.names_a_dialect() {
        Some("dialect")
    } else if own.trim_step.is_some() && message.contains("trim") {
        Some("trimStep")
    } else if message.contains("documents") {
        Some("contextIn")
    } else if message.contains("reserve") {
        Some("reserve")
    } else {
        None
    }
}
