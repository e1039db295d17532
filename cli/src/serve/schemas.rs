//! The request bodies and answers the routes' annotations in `app.rs` name, described from
//! these types (the library's reports, citations and prompts are described by the library).
//! Never built: what the service reads and writes is in `body.rs` and `endpoints.rs`.

use std::collections::BTreeMap;

use mentor_context::{AssembledContext, MentorRagResult};
use serde::{Deserialize, Serialize};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{IntoResponses, ToSchema};

use super::problem::Problem;

/// What every endpoint may answer instead of its result, besides its own 404: a problem
/// document with each status the layers and the body's reading give.
pub(crate) struct Refused;

impl IntoResponses for Refused {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        [
            (400, "Malformed or invalid, or a body cut short"),
            (408, "The body did not arrive within the timeout"),
            (413, "The body is over the limit"),
            (414, "The URI is too long"),
            (415, "Not JSON, encoded, or not UTF-8"),
            (431, "The request's head is too large"),
            (503, "Full, past the timeout (the work stopped), or the chat template could not be run (`ENGINE_FAILED`)"),
        ]
        .into_iter()
        .map(|(status, description)| {
            let problem = ContentBuilder::new()
                .schema(Some(Ref::from_schema_name(Problem::name())))
                .build();
            let response = ResponseBuilder::new()
                .description(description)
                .content("application/problem+json", problem)
                .build();
            (status.to_string(), response.into())
        })
        .collect()
    }
}

/// `POST /v1/{profile}/assemble`'s body: the object, or the bare array of results.
#[derive(Deserialize, ToSchema)]
// Never built: a description of what the body may be.
#[allow(dead_code, clippy::large_enum_variant)]
#[serde(untagged)]
pub(crate) enum AssembleBody {
    /// `{"results": [...], "previous": report?}`.
    Request(AssembleRequest),
    /// The results alone.
    Results(Vec<MentorRagResult>),
}

/// The results, and for a follow-up turn the report of the turn before (keys are read in any
/// letter case: `Results` as well).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct AssembleRequest {
    /// The results, as .NET or JavaScript writes them: property names in any case, a score
    /// as a number or a numeric string, `null` metadata values.
    results: Vec<MentorRagResult>,
    /// The report of the turn before, sealed by this profile's key.
    #[schema(nullable)]
    previous: Option<AssembledContext<'static>>,
    /// A budget for this request: at most the profile's (a larger one is refused).
    #[schema(nullable)]
    budget: Option<usize>,
}

/// `POST /v1/{profile}/assemble`'s answer: the report, as `assemble --json` writes it, and
/// for a dialect profile the provider's entries beside it, as `assemble --dialect` writes
/// them (the report's keys and `entries` in one object, so that it is still a report).
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub(crate) struct AssembleAnswer {
    #[serde(flatten)]
    report: AssembledContext<'static>,
    /// A dialect profile's entries, to put in the provider's request as they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    entries: Option<Vec<serde_json::Value>>,
}

/// A report and what to read against it.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct CiteRequest {
    /// The report the answer was written against.
    report: AssembledContext<'static>,
    /// The model's answer, with `[n]` markers (a text report).
    #[schema(nullable)]
    answer: Option<String>,
    /// The model API's response (a dialect's report): its JSON, or its events (JSON Lines or
    /// server-sent events) as one string.
    #[schema(nullable, value_type = Option<Object>)]
    response: Option<serde_json::Value>,
    /// Also write the answer renumbered 1..k, and each chip's new number.
    #[schema(nullable)]
    renumber: Option<bool>,
}

/// A conversation and the results to fit into it.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct PromptRequest {
    /// OpenAI-style messages (`{"role", "content", ...}`), the user's question last.
    #[schema(value_type = Vec<Object>)]
    conversation: Vec<serde_json::Value>,
    /// The results, as for `assemble`.
    results: Vec<MentorRagResult>,
    /// The agent's tool definitions, an OpenAI-style array (`[{"type": "function",
    /// "function": {"name", "description", "parameters"}}]`), in place of the profile's:
    /// given to a Hugging Face template as `transformers` passes them, counted in
    /// `parts.tools`.
    #[schema(nullable, value_type = Option<Vec<Object>>)]
    tools: Option<Vec<serde_json::Value>>,
    /// The chat template's options, the variables a Hugging Face template reads besides the
    /// messages and the tools (`{"enable_thinking": false}`), as `transformers`'
    /// `apply_chat_template(**kwargs)` and vLLM's `chat_template_kwargs` pass them; over the
    /// profile's, name by name.
    #[schema(nullable, value_type = Option<Object>)]
    template_options: Option<serde_json::Value>,
}

/// `GET /healthz`.
#[derive(Serialize, ToSchema)]
pub(crate) struct Health {
    /// `ok`.
    status: String,
}
