//! `prompt`'s own options: the conversation, the window and the chat template
//! ([`PromptOptions`], which `inspect` takes too), set over the settings of `--settings` and
//! the context's options, which are `assemble`'s ([`BuildArgs`]).

use std::path::PathBuf;

use clap::Args;
use clap::builder::StringValueParser;
use mentor_context::prompt::{ContextPlacement, ConversationDate};
use mentor_context::settings::Settings;

use super::template_options::parse_option;
use crate::options::BuildArgs;
use crate::options::parse::{parse_count, utf8};

// `prompt` needs the conversation, the window and the template; `inspect` takes them to draw
// a whole prompt, and without them draws a context.
#[derive(Debug, Args)]
#[command(mut_arg("conversation", |a| a.required(true)))]
pub(crate) struct PromptArgs {
    #[command(flatten)]
    pub(crate) build: BuildArgs,

    #[command(flatten)]
    pub(crate) options: PromptOptions,

    /// Print one JSON object (prompt, messages, tokenCount, window, reserve, parts, dropped,
    /// context) instead of the prompt text (or, for `openai`, the messages).
    #[arg(long)]
    pub(crate) json: bool,

    /// The JSON array of results; `-` or no FILE reads standard input.
    #[arg(value_name = "RESULTS")]
    pub(crate) file: Option<PathBuf>,
}

/// What a whole prompt takes beyond the context's options: the conversation, and the
/// settings of a whole prompt.
#[derive(Debug, Args)]
pub(crate) struct PromptOptions {
    /// The conversation: an OpenAI-style JSON array of messages ({"role", "content", ...}),
    /// an optional system message first and the user's question last.
    #[arg(long, value_name = "CONV.json")]
    pub(crate) conversation: Option<PathBuf>,

    /// The agent's tool definitions: an OpenAI-style JSON array ([{"type": "function",
    /// "function": {"name", "description", "parameters"}}]), given to a Hugging Face template
    /// as transformers passes them; never dropped, counted in parts.tools.
    #[arg(long, value_name = "TOOLS.json")]
    pub(crate) tools: Option<PathBuf>,

    /// The chat template's options: a JSON object of the variables a Hugging Face template
    /// reads besides the messages and the tools ({"enable_thinking": false}), as
    /// transformers' apply_chat_template(**kwargs) and vLLM's chat_template_kwargs pass them;
    /// counted in parts.template.
    #[arg(long, value_name = "FILE.json")]
    pub(crate) template_options: Option<PathBuf>,

    /// One template option, its value as JSON (enable_thinking=false,
    /// date_string='"26 Jul 2024"'), over --template-options; repeat it for more.
    #[arg(long, value_name = "NAME=JSON", value_parser = utf8(parse_option))]
    pub(crate) template_option: Vec<(String, String)>,

    #[command(flatten)]
    pub(crate) settings: PromptSettings,
}

/// The settings of a whole prompt, as flags (`serve` takes them without a conversation).
#[derive(Debug, Args)]
pub(crate) struct PromptSettings {
    /// The model's context window: the most tokens prompt and answer may take together.
    #[arg(long, value_name = "TOKENS", value_parser = utf8(parse_count), allow_negative_numbers = true)]
    pub(crate) window: Option<usize>,

    /// Tokens of the window kept free for the answer [default: 1024].
    #[arg(long, value_name = "TOKENS", value_parser = utf8(parse_count), allow_negative_numbers = true)]
    pub(crate) reserve: Option<usize>,

    /// The model's chat template: `openai` (OpenAI's counting rule for its chat models, with
    /// --encoding or --model; no prompt text), `harmony` (gpt-oss), `mistral` (Mistral's
    /// instruct format, with a Tekken file as --tokenizer-file), or the PATH of a
    /// tokenizer_config.json or chat_template.jinja (with its tokenizer.json as
    /// --tokenizer-file).
    #[arg(long, value_name = "openai|harmony|mistral|PATH", value_parser = utf8(StringValueParser::new()))]
    pub(crate) chat_template: Option<String>,

    /// The conversation's date, for templates that write one (Harmony, Llama 3.1):
    /// YYYY-MM-DD [default: today, in UTC].
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = utf8(str::parse::<ConversationDate>))]
    pub(crate) date: Option<ConversationDate>,

    /// Where the context goes: `user` (before the question, so that the system message and
    /// the history stay a stable prefix), `system` (after the system message), `documents`
    /// (the template's documents, for templates that read them) or `tool` (the result of the
    /// search tool call the conversation ends with) [default: user].
    #[arg(long, value_name = "WHERE", value_parser = utf8(str::parse::<ContextPlacement>))]
    pub(crate) context_in: Option<ContextPlacement>,

    /// Keep the history within this many tokens [default: half of what the window leaves
    /// after the reserve, the template and the system message].
    #[arg(long, value_name = "TOKENS", value_parser = utf8(parse_count), allow_negative_numbers = true)]
    pub(crate) history_max_tokens: Option<usize>,

    /// When turns must go, drop enough to leave this share of the history's room free, so
    /// that the next turns fit without another trim (0.0 to below 1.0) [default: 0.25].
    #[arg(long, value_name = "SHARE", value_parser = utf8(str::parse::<f64>), allow_negative_numbers = true)]
    pub(crate) trim_step: Option<f64>,

    /// Let the conversation's messages keep the model's control-token strings (retrieved text
    /// is always neutralized).
    #[arg(long)]
    pub(crate) allow_special_tokens_in_messages: bool,
}

impl PromptOptions {
    /// The first of the flags that read a file or a value of their own given (`--tools`,
    /// `--template-options`, `--template-option`), if any.
    pub(crate) fn first_file_given(&self) -> Option<&'static str> {
        [
            (self.tools.is_some(), "--tools"),
            (self.template_options.is_some(), "--template-options"),
            (!self.template_option.is_empty(), "--template-option"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// `settings` with each of these options given over it.
    pub(crate) fn over(&self, settings: Settings) -> Settings {
        self.settings.over(settings)
    }
}

impl PromptSettings {
    /// The first of these flags given, if any: for `inspect`, which draws a whole prompt only
    /// with a conversation.
    pub(crate) fn first_given(&self) -> Option<&'static str> {
        [
            (self.window.is_some(), "--window"),
            (self.reserve.is_some(), "--reserve"),
            (self.chat_template.is_some(), "--chat-template"),
            (self.date.is_some(), "--date"),
            (self.context_in.is_some(), "--context-in"),
            (self.history_max_tokens.is_some(), "--history-max-tokens"),
            (self.trim_step.is_some(), "--trim-step"),
            (
                self.allow_special_tokens_in_messages,
                "--allow-special-tokens-in-messages",
            ),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// `settings` with each of these options given over it.
    pub(crate) fn over(&self, mut settings: Settings) -> Settings {
        let set = &mut settings;
        set.window = self.window.or(set.window);
        set.reserve = self.reserve.or(set.reserve);
        set.chat_template = self.chat_template.clone().or(set.chat_template.take());
        set.date = self.date.or(set.date);
        set.context_in = self.context_in.or(set.context_in);
        set.history_max_tokens = self.history_max_tokens.or(set.history_max_tokens);
        set.trim_step = self.trim_step.or(set.trim_step);
        set.allow_special_tokens_in_messages |= self.allow_special_tokens_in_messages;
        settings
    }
}
