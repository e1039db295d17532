//! The model's chat template: how a conversation becomes the text (or, for OpenAI's chat
//! models, the request) the model reads, and which strings in it are control tokens.
//!
//! Four kinds, one file each: a Hugging Face Jinja template (`jinja/`, with `hf_config.rs`
//! reading `tokenizer_config.json`), OpenAI's Harmony format for gpt-oss (`harmony.rs`),
//! OpenAI's published counting rule for its chat models (`openai.rs`), and Mistral's instruct
//! format for Tekken files (`mistral.rs`). `files.rs` loads a model's own template from its files,
//! and names the templates as the front ends do.

mod capabilities;
mod files;
mod harmony;
mod harmony_tools;
#[cfg(feature = "huggingface")]
mod hf_config;
pub(crate) mod jinja;
mod mistral;
mod openai;
mod openai_tools;
mod reasoning;
mod rendered;

use std::sync::Arc;

use minijinja::value::Value;

use super::control::ControlTokens;
use super::date::ConversationDate;
use crate::error::{Error, TemplateErrorKind::EngineFailed};
use crate::tokenizer::{Encoding, TekkenTokenizer, TokenCounter};
use capabilities::effort_of;
use jinja::JinjaTemplate;
pub use reasoning::ReasoningEffort;
pub(crate) use rendered::{Piece, Rendered};

/// A model's chat template, with the tokenizer that counts what it writes.
///
/// Load it once and share it: it is `Send + Sync` and cheap to clone.
///
/// ```
/// use mentor_context::Encoding;
/// use mentor_context::prompt::ChatTemplate;
///
/// let gpt_4o = ChatTemplate::openai(Encoding::O200kBase);
/// assert_eq!(gpt_4o.name(), "openai/o200k_base");
/// assert!(!gpt_4o.writes_text()); // the messages are what is sent
/// let gpt_oss = ChatTemplate::harmony();
/// assert!(gpt_oss.writes_text());
/// ```
#[derive(Clone)]
pub struct ChatTemplate {
    inner: Arc<Inner>,
}

struct Inner {
    kind: Kind,
    counter: Arc<dyn TokenCounter>,
    control: ControlTokens,
    name: String,
}

enum Kind {
    Jinja {
        template: Box<JinjaTemplate>,
        bos_token: Option<String>,
        eos_token: Option<String>,
    },
    Harmony(ReasoningEffort),
    OpenAi(Encoding),
    Mistral(mistral::Format),
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate")
            .field("name", &self.inner.name)
            .field("control_tokens", &self.inner.control.tokens().len())
            .finish_non_exhaustive()
    }
}

/// What a template is given: the messages (already neutralized), the documents where the
/// context goes there, the tools where there are some, and the date.
pub(crate) struct TemplateInput<'a> {
    pub(crate) messages: &'a [Value],
    pub(crate) documents: Option<&'a Value>,
    /// The tool definitions (already neutralized), for templates that take them.
    pub(crate) tools: Option<&'a Value>,
    /// The template's options (already neutralized), for templates that read them.
    pub(crate) options: Option<&'a Value>,
    pub(crate) date: ConversationDate,
}

impl ChatTemplate {
    fn new(
        kind: Kind,
        counter: Arc<dyn TokenCounter>,
        control: Vec<String>,
        name: String,
    ) -> Result<Self, Error> {
        let control = ControlTokens::new(control)
            .map_err(|problem| Error::template(EngineFailed, problem))?;
        Ok(ChatTemplate {
            inner: Arc::new(Inner {
                kind,
                counter,
                control,
                name,
            }),
        })
    }

    /// OpenAI's chat models (GPT-4o, GPT-4.1, GPT-4, ...), by OpenAI's published rule (the
    /// OpenAI cookbook, "How to count tokens with tiktoken", `num_tokens_from_messages`): 3
    /// tokens per message, 1 more per `name`, 3 priming the reply, and every string value
    /// encoded with the model's `encoding`. There is no prompt text: the messages are what is
    /// sent. The rule covers string fields only (not images or tool calls). Tools are
    /// counted by the cookbook's `num_tokens_for_tools` for the encodings of the models it
    /// names (`o200k_base`, `cl100k_base`), an estimate the report marks `exact: false`.
    ///
    /// # Panics
    ///
    /// Never: its control tokens are a fixed handful.
    #[must_use]
    pub fn openai(encoding: Encoding) -> ChatTemplate {
        let control = openai::control_tokens(encoding);
        ChatTemplate::new(
            Kind::OpenAi(encoding),
            Arc::new(encoding),
            control,
            format!("openai/{}", encoding.as_str()),
        )
        .expect("a handful of control tokens always builds")
    }

    /// gpt-oss, in OpenAI's Harmony format, as vLLM's chat endpoint maps a request to it and
    /// `openai-harmony`'s `render_conversation_for_completion` writes it: a system message with
    /// its defaults (reasoning `medium`) and the conversation's date, the caller's first system
    /// text as the developer message's instructions, followed there by the tools (as
    /// TypeScript types, `namespace functions`); assistant answers on the `final` channel,
    /// tool calls `to=functions.NAME` on `commentary`, tool results from `functions.NAME`, and
    /// `<|start|>assistant` to end. Counted with `o200k_base` and Harmony's control tokens.
    /// [`harmony_with`](Self::harmony_with) sets another reasoning effort.
    #[must_use]
    pub fn harmony() -> ChatTemplate {
        ChatTemplate::harmony_with(ReasoningEffort::default())
    }

    /// gpt-oss as [`harmony`](Self::harmony), its system message saying `effort` as vLLM
    /// writes a request's `reasoning_effort` there (`Reasoning: high`).
    ///
    /// ```
    /// use mentor_context::prompt::{ChatTemplate, ReasoningEffort};
    ///
    /// let thorough = ChatTemplate::harmony_with(ReasoningEffort::High);
    /// assert_eq!(thorough.reasoning_effort(), Some(ReasoningEffort::High));
    /// assert_eq!(ChatTemplate::harmony().reasoning_effort(), Some(ReasoningEffort::Medium));
    /// ```
    ///
    /// # Panics
    ///
    /// Never: its control tokens are a fixed set.
    #[must_use]
    pub fn harmony_with(effort: ReasoningEffort) -> ChatTemplate {
        ChatTemplate::new(
            Kind::Harmony(effort),
            Arc::new(Encoding::O200kBase),
            harmony::control_tokens(),
            "harmony/o200k_harmony".to_string(),
        )
        .expect("Harmony's control tokens always build")
    }

    /// The reasoning effort a Harmony template writes (`None` for other templates).
    #[must_use]
    pub fn reasoning_effort(&self) -> Option<ReasoningEffort> {
        match self.inner.kind {
            Kind::Harmony(effort) => Some(effort),
            _ => None,
        }
    }

    /// Mistral's instruct format for a Tekken file, by the file's tokenizer version, as
    /// `mistral-common`'s `encode_chat_completion` writes it: `[INST]`...`[/INST]` around user
    /// turns, `</s>` after assistant turns; v3 (`mistral-common`'s own `tekken_240718.json`
    /// and `tekken_240911.json`) joins the system messages before the last user message, v7,
    /// v11 and v13 write each in place between `[SYSTEM_PROMPT]` and `[/SYSTEM_PROMPT]`.
    /// System, user, assistant and tool messages with text content; tool calls (`arguments`
    /// as a JSON string or an object), tool results and tool definitions (`[AVAILABLE_TOOLS]`)
    /// as each version writes them. Where `mistral-common` refuses a conversation (a call id
    /// that is not 9 letters or digits before v13, a result without its call, ...), rendering
    /// fails with one line naming the message and the rule.
    ///
    /// # Errors
    ///
    /// [`Error::ChatTemplate`] when the file's version is not v3, v7, v11 or v13 (naming it),
    /// or its special tokens lack one the format writes.
    pub fn mistral(tekken: TekkenTokenizer) -> Result<ChatTemplate, Error> {
        let (format, control) = mistral::format_of(&tekken)?;
        let name = format!("mistral/{}", tekken.name());
        ChatTemplate::new(Kind::Mistral(format), Arc::new(tekken), control, name)
    }

    /// A Jinja chat template (the `chat_template` of a `tokenizer_config.json`), rendered as
    /// `transformers`' `apply_chat_template` renders it, counted by `tokenizer`.
    ///
    /// `control_tokens` are the strings the model's tokenizer reads as single control tokens
    /// (its added tokens); they split the prompt for counting and are neutralized in untrusted
    /// text. `bos_token` and `eos_token` are what the template sees as such (and are control
    /// tokens too).
    ///
    /// # Errors
    ///
    /// [`Error::ChatTemplate`] when the template does not compile, naming the line.
    pub fn jinja(
        source: &str,
        tokenizer: impl TokenCounter + 'static,
        control_tokens: impl IntoIterator<Item = String>,
        bos_token: Option<String>,
        eos_token: Option<String>,
    ) -> Result<ChatTemplate, Error> {
        let template = JinjaTemplate::new(source).map_err(Error::ChatTemplate)?;
        let mut control: Vec<String> = control_tokens.into_iter().collect();
        control.extend(
            bos_token
                .iter()
                .chain(eos_token.iter())
                .filter(|t| !t.is_empty())
                .cloned(),
        );
        let name = format!("jinja/{}", tokenizer.name());
        ChatTemplate::new(
            Kind::Jinja {
                template: Box::new(template),
                bos_token,
                eos_token,
            },
            Arc::new(tokenizer),
            control,
            name,
        )
    }

    /// A short name: the kind of template and the tokenizer's name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Whether the template writes a prompt text (all but OpenAI's rule, whose messages are
    /// what is sent).
    #[must_use]
    pub fn writes_text(&self) -> bool {
        !matches!(self.inner.kind, Kind::OpenAi(_))
    }

    /// Whether the template is a Hugging Face (Jinja) one: its messages are `transformers`'
    /// dicts, a tool result with the function's `name` as its docs show one.
    pub(crate) fn is_jinja(&self) -> bool {
        matches!(self.inner.kind, Kind::Jinja { .. })
    }

    /// Whether the template reads `documents` (Command-R's and Granite's do).
    #[must_use]
    pub fn reads_documents(&self) -> bool {
        match &self.inner.kind {
            Kind::Jinja { template, .. } => template.reads_documents(),
            _ => false,
        }
    }

    /// The control tokens: what splits the prompt, and what is neutralized.
    #[must_use]
    pub fn control_tokens(&self) -> &[String] {
        self.inner.control.tokens()
    }

    pub(crate) fn control(&self) -> &ControlTokens {
        &self.inner.control
    }

    pub(crate) fn counter(&self) -> &Arc<dyn TokenCounter> {
        &self.inner.counter
    }

    /// Renders `input`.
    ///
    /// # Errors
    ///
    /// [`Error::ChatTemplate`] with what the template raised or why it stopped, or
    /// [`Error::Conversation`] when a message has a shape this kind of template cannot write.
    pub(crate) fn render(&self, input: &TemplateInput<'_>) -> Result<Rendered, Error> {
        let control = &self.inner.control;
        match &self.inner.kind {
            Kind::Jinja {
                template,
                bos_token,
                eos_token,
            } => {
                let messages = Value::from(input.messages.to_vec());
                let input_bytes = input.messages.iter().map(value_bytes).sum::<usize>()
                    + input.documents.map_or(0, value_bytes)
                    + input.tools.map_or(0, value_bytes)
                    + input.options.map_or(0, value_bytes);
                let text = template
                    .render(&jinja::RenderInput {
                        messages: &messages,
                        documents: input.documents,
                        tools: input.tools,
                        options: input.options,
                        bos_token: bos_token.as_deref(),
                        eos_token: eos_token.as_deref(),
                        date: input.date,
                        input_bytes,
                    })
                    .map_err(|err| self.naming(Error::ChatTemplate(err)))?;
                Ok(Rendered::split(text, control))
            }
            Kind::Harmony(effort) => {
                let effort = match input.options.map(effort_of) {
                    Some(Err(problem)) => return Err(Error::Conversation { problem }),
                    Some(Ok(Some(given))) => given,
                    _ => *effort,
                };
                Ok(Rendered::split(
                    harmony::render(
                        input.messages,
                        &harmony::Given {
                            tools: input.tools,
                            date: input.date,
                            effort,
                        },
                    )?,
                    control,
                ))
            }
            // `PromptAssembler::new` refuses options for these templates first; this keeps a
            // render from dropping them without a word whatever calls it.
            _ if input
                .options
                .is_some_and(|options| options.len() != Some(0)) =>
            {
                Err(Error::Conversation {
                    problem: format!(
                        "the {} template reads no template options: only Hugging Face (Jinja) \
                         chat templates do",
                        self.inner.name
                    ),
                })
            }
            Kind::Mistral(format) => Ok(Rendered::split(
                mistral::render(input.messages, input.tools, *format, control)
                    .map_err(|err| self.naming(err))?,
                control,
            )),
            _ if !self.takes_tools() && input.tools.is_some_and(|tools| tools.len() != Some(0)) => {
                Err(Error::Conversation {
                    problem: format!("the {} template does not take tools yet", self.inner.name),
                })
            }
            Kind::OpenAi(encoding) => openai::render(
                input.messages,
                input
                    .tools
                    .and_then(|tools| Some((tools, openai_tools::constants(*encoding)?))),
            ),
        }
    }

    /// `err`, a chat template's error, naming this template.
    fn naming(&self, err: Error) -> Error {
        match err {
            Error::ChatTemplate(err) => Error::ChatTemplate(err.named(&self.inner.name)),
            other => other,
        }
    }
}

/// Bytes of text in a value: a bound for what a template may write around it.
fn value_bytes(value: &Value) -> usize {
    if let Some(text) = value.as_str() {
        return text.len();
    }
    match value.try_iter() {
        Ok(items) => items
            .map(|item| {
                let inner = value.get_item(&item).ok().filter(|v| !v.is_undefined());
                value_bytes(&item) + inner.as_ref().map_or(0, value_bytes)
            })
            .sum(),
        Err(_) => 16,
    }
}
