//! What each kind of template takes besides the messages: tool definitions, tool calls and
//! results, template options.

use minijinja::value::Value;

use super::{ChatTemplate, Kind, ReasoningEffort, mistral, openai_tools};
use crate::error::Error;

impl ChatTemplate {
    /// Whether the template takes tool definitions: Hugging Face (Jinja) templates do (those
    /// that ignore `tools` as `transformers` would), Harmony (gpt-oss), Mistral's
    /// (`[AVAILABLE_TOOLS]`, as `mistral-common` writes it), and OpenAI's rule for the models
    /// the cookbook's `num_tokens_for_tools` names (`o200k_base`: gpt-4o and gpt-4o-mini;
    /// `cl100k_base`: gpt-4 and gpt-3.5-turbo), as an estimate
    /// ([`counts_tools_exactly`](Self::counts_tools_exactly)).
    #[must_use]
    pub fn takes_tools(&self) -> bool {
        self.why_no_tools().is_none()
    }

    /// Whether the count of tool definitions is exact: for all but OpenAI's chat models, whose
    /// tools are counted by the cookbook's `num_tokens_for_tools`, an estimate that reads only
    /// names, descriptions, top-level properties' types and enums (nested objects, array items
    /// and `anyOf` count nothing).
    #[must_use]
    pub fn counts_tools_exactly(&self) -> bool {
        !matches!(self.inner.kind, Kind::OpenAi(_))
    }

    /// Whether the template writes assistant tool calls and `tool` results (what retrieval as a
    /// tool result needs): Hugging Face templates, Harmony and Mistral's do; OpenAI's rule
    /// counts definitions only.
    pub(crate) fn writes_tool_calls(&self) -> bool {
        matches!(
            self.inner.kind,
            Kind::Jinja { .. } | Kind::Harmony(_) | Kind::Mistral(_)
        )
    }

    /// Why the template refuses the template options named `names`, in words; `None` where it
    /// reads them all. A Hugging Face template reads any; gpt-oss reads `reasoning_effort`
    /// (`low`, `medium`, `high`), as its own Jinja template reads that keyword of
    /// `apply_chat_template` and vLLM its request field; the others read none.
    pub(crate) fn refuses_template_options(&self, options: &Value) -> Option<String> {
        let names: Vec<String> = options
            .try_iter()
            .into_iter()
            .flatten()
            .map(|key| key.as_str().unwrap_or_default().to_string())
            .collect();
        match &self.inner.kind {
            Kind::Jinja { .. } => None,
            Kind::Harmony(_) => names.iter().find_map(|name| {
                if name != REASONING_EFFORT {
                    return Some(format!(
                        "the {} chat template reads one template option, `{REASONING_EFFORT}`, \
                         not `{name}`",
                        self.inner.name
                    ));
                }
                effort_of(options).err()
            }),
            _ => Some(format!(
                "the {} chat template reads no template options (given: {}): only Hugging Face \
                 (Jinja) templates and gpt-oss (`{REASONING_EFFORT}`) do",
                self.inner.name,
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Checks tool definitions against what the model's owners take beyond their shape
    /// (Mistral's function names and descriptions), so that bad ones are refused when the
    /// assembler is built.
    pub(crate) fn check_tools(&self, tools: &Value) -> Result<(), Error> {
        match &self.inner.kind {
            Kind::Mistral(_) => mistral::check_tools(tools),
            _ => Ok(()),
        }
    }

    /// Why the template takes no tools, in words; `None` where it takes them.
    pub(crate) fn why_no_tools(&self) -> Option<String> {
        match &self.inner.kind {
            Kind::Jinja { .. } | Kind::Harmony(_) | Kind::Mistral(_) => None,
            Kind::OpenAi(encoding) if openai_tools::constants(*encoding).is_some() => None,
            Kind::OpenAi(encoding) => Some(format!(
                "OpenAI's rule for tools (the cookbook's `num_tokens_for_tools`) names gpt-4o and \
                 gpt-4o-mini (o200k_base), gpt-4 and gpt-3.5-turbo (cl100k_base), not models \
                 counted with {encoding}"
            )),
        }
    }
}

/// The template option gpt-oss reads.
const REASONING_EFFORT: &str = "reasoning_effort";

/// The `reasoning_effort` template option, if given.
pub(super) fn effort_of(options: &Value) -> Result<Option<ReasoningEffort>, String> {
    let Ok(value) = options.get_attr(REASONING_EFFORT) else {
        return Ok(None);
    };
    if value.is_undefined() {
        return Ok(None);
    }
    value
        .as_str()
        .and_then(|name| name.parse().ok())
        .map(Some)
        .ok_or_else(|| format!("`{REASONING_EFFORT}` is low, medium or high, not {value}"))
}
