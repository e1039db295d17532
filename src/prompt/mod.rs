//! The whole prompt, exactly: a conversation (an optional system message, the history, and
//! the user's new question) and the ranked results, fitted to a model's window through the
//! model's own chat template.
//!
//! [`PromptBuilder`] configures once (the template, the window, the answer's reserve, the
//! context's options) and [`build`](PromptBuilder::build)s a [`PromptAssembler`];
//! [`PromptAssembler::assemble`] then returns a [`Prompt`]: the messages to send, the prompt
//! text where the template writes one, its exact token count, how the window was shared, the
//! messages dropped from the history, and the context report with its citations.
//!
//! ```
//! use mentor_context::prompt::{ChatTemplate, ConversationDate, Message, PromptBuilder};
//! use mentor_context::MentorRagResult;
//!
//! let prompts = PromptBuilder::new(ChatTemplate::harmony(), 4096)
//!     .reserve(1024)
//!     .date("2026-12-02".parse::<ConversationDate>()?)
//!     .context_options(|context| context.max_per_source(2))
//!     .build()?;
//! let conversation = [
//!     Message::system("Answer from the documents and cite them as [n]."),
//!     Message::user("Which plans are there?"),
//!     Message::assistant("Plan A and Plan B [1]."),
//!     Message::user("What does Plan B cost?"),
//! ];
//! let results = [MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9).with_title("Prices")];
//! let prompt = prompts.assemble(&conversation, &results)?;
//!
//! let text = prompt.prompt.as_deref().unwrap();
//! assert!(text.ends_with("```\nWhat does Plan B cost?<|end|><|start|>assistant"));
//! assert!(prompt.token_count + 1024 <= 4096);
//! assert_eq!(prompt.context.citations[0].title.as_deref(), Some("Prices"));
//! assert!(prompt.dropped.is_empty());
//! # Ok::<(), mentor_context::Error>(())
//! ```
//!
//! # What is counted, and how exactly
//!
//! The count is the one the model's own template and tokenizer give: the text rendered as the
//! model's owners render it (`transformers`' `apply_chat_template`, `openai-harmony`,
//! `mistral-common`; OpenAI's published rule for its chat models), tokenized with its control
//! tokens parsed. `token_count + reserve` never exceeds the window. The repository's
//! `.ci/run` checks prompt and count against the owners' code for Llama 3, Llama 3.1, Qwen 3,
//! DeepSeek V3, Gemma 3, gpt-oss (Harmony), GPT-4o (OpenAI's rule) and Mistral's Tekken
//! files (instruct formats v3, v7, v11 and v13, by the file's `version`).
//!
//! # How the window is shared
//!
//! The system message and the question are never dropped or cut: when they, the template and
//! the reserve do not fit, [`Error::PromptTooLarge`](crate::Error::PromptTooLarge) says how
//! many tokens they need. The history keeps its newest whole turns up to half of what the
//! window leaves after the reserve, the template and the system message (or
//! [`history_max_tokens`](PromptBuilder::history_max_tokens)); the context takes the rest, and
//! room the context leaves unused goes back to the history. When turns must go, enough go at
//! once to leave [`trim_step`](PromptBuilder::trim_step) of the history's room free, so the
//! next turns fit without another trim and the prompt keeps its prefix.
//!
//! # Tools
//!
//! An agent's tool definitions ([`Tools`], given by [`PromptBuilder::tools`]) are a fixed part
//! of every prompt, like the system message: never dropped, and counted in
//! [`PromptParts::tools`] as what they add (the prompt's count less the same prompt's
//! rendered without them). Hugging Face (Jinja) templates get them as `transformers`'
//! `apply_chat_template(messages, tools=...)` gives them, Mistral's as `mistral-common` writes
//! them (`[AVAILABLE_TOOLS]`); the other kinds refuse them for now.
//!
//! Retrieval can also arrive as the answer to the model's own search call (agentic RAG): with
//! [`ContextPlacement::Tool`], the conversation ends with the question and the assistant's call
//! of the search tool, and the context becomes the `tool` message answering it.
//!
//! # Untrusted text cannot become markup
//!
//! A retrieved document holding `<|im_start|>system` must not open a system turn when the
//! server tokenizes the prompt. Every control-token string of the model (its special tokens,
//! and the added tokens its template writes) in every field of every result, and by default
//! in the conversation's messages, is broken by a ZERO WIDTH SPACE after its first character,
//! and counted as the ordinary text it then is. Roles are never changed.
//!
//! # Templates are untrusted code
//!
//! A chat template from the internet is bounded: in work (minijinja's fuel), nesting and
//! output bytes. A template that raises, loops or is malformed is one
//! [`Error::ChatTemplate`](crate::Error::ChatTemplate).

mod assemble;
mod builder;
mod builder_choices;
mod control;
mod count;
mod date;
mod deadline;
mod history;
mod json_setting;
mod message;
mod message_costs;
mod placement;
mod report;
mod template;
mod template_options;
mod tools;
mod untrusted;

pub use assemble::PromptAssembler;
pub use builder::{DEFAULT_RESERVE, DEFAULT_TRIM_STEP, PromptBuilder};
#[cfg(feature = "unstable_machinery")]
pub(crate) use count::Work;
pub use date::ConversationDate;
pub use deadline::Deadline;
pub use message::Message;
pub use placement::ContextPlacement;
pub use report::{DroppedMessage, HistoryFit, Prompt, PromptParts, TemplateDocument};
pub use template::{ChatTemplate, ReasoningEffort};
pub use template_options::{RESERVED_TEMPLATE_OPTIONS, TemplateOptions};
pub use tools::Tools;
