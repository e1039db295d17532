//! What each endpoint does with a request's body, on a thread of its own: the same work as
//! the command's `assemble --json`, `cite` and `prompt --json`, and the same bytes out (with
//! the command's trailing newline).

use mentor_context::citations::Resolver;
use mentor_context::prompt::{Deadline, Message, PromptAssembler, TemplateOptions, Tools};
use mentor_context::wire::{ParsedResults, UnknownProperties, parse_request};
use mentor_context::{AssembledContext, ErrorKind};
use serde::de::DeserializeOwned;

use super::body::Body;
use super::problem::Problem;
use super::profiles::{Fitting, Profile};
use super::work::timed_out;
use crate::cite::read_back;

/// `POST /v1/{profile}/assemble`: `{"results": [...], "previous": report?, "budget": n?}`, or
/// the bare array of results, into the report (a dialect profile's with its `entries`).
pub(crate) fn assemble(
    name: &str,
    profile: &Profile,
    bytes: &[u8],
    _deadline: &Deadline,
) -> Result<Vec<u8>, Problem> {
    let Fitting::Context(assembler) = &profile.fitting else {
        return Err(elsewhere(name, "fits whole prompts", "prompt"));
    };
    let body = Body::read(bytes, &["results", "previous", "budget"], Some("results"))?;
    let smaller;
    let assembler = match body.part("budget") {
        None => assembler,
        Some(json) => {
            smaller = with_smaller_budget(name, assembler, read(&body, "budget", json)?)?;
            &smaller
        }
    };
    let parsed = results(&body, profile)?;
    let context = match body.part("previous") {
        None => assembler.assemble(&parsed.results),
        Some(previous) => {
            if !assembler.seals() {
                return Err(Problem::bad_request(
                    ErrorKind::InvalidSetting,
                    format!(
                        "previous: profile `{name}` continues no follow-up turns: a report that \
                         has left the service is continued only under a seal; give the profile \
                         a seal_key_file"
                    ),
                ));
            }
            let report: AssembledContext<'static> = read(&body, "previous", previous)?;
            assembler
                .assemble_follow_up(&report, &parsed.results)
                .map_err(|err| Problem::library_in("previous", &err))?
        }
    };
    if assembler.dialect().is_none() {
        return json_line(&context);
    }
    // A dialect's profile: the provider's entries, to put in the request as they are, beside
    // the report (which `/cite` reads the answer against).
    let entries = assembler.entries(&context).map_err(|err| {
        Problem::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            format!("cannot write the report's entries: {err}"),
        )
    })?;
    json_line(&WithEntries {
        report: &context,
        entries,
    })
}

/// A dialect profile's answer: the report's keys, then `entries`.
#[derive(serde::Serialize)]
struct WithEntries<'a, 'r> {
    #[serde(flatten)]
    report: &'a AssembledContext<'r>,
    entries: Vec<mentor_context::dialects::Entry>,
}

/// The profile's assembler at a request's `budget`: a smaller one, or the same; never more
/// than the profile allows.
fn with_smaller_budget(
    name: &str,
    assembler: &mentor_context::Assembler,
    budget: usize,
) -> Result<mentor_context::Assembler, Problem> {
    if budget > assembler.budget() {
        return Err(Problem::bad_request(
            ErrorKind::InvalidArgument,
            format!(
                "budget: {budget} is over profile `{name}`'s budget of {}: a request may ask \
                 for a smaller one, never a larger one",
                assembler.budget()
            ),
        ));
    }
    assembler
        .with_budget(budget)
        .map_err(|err| Problem::library_in("budget", &err))
}

/// `POST /v1/{profile}/cite`: `{"report", "answer", "renumber"?}` for a text report, or
/// `{"report", "response", "renumber"?}` for a dialect's (the response's JSON, or its events
/// or server-sent events as one string), into what `cite` writes.
pub(crate) fn cite(profile: &Profile, bytes: &[u8]) -> Result<Vec<u8>, Problem> {
    let body = Body::read(bytes, &["report", "answer", "response", "renumber"], None)?;
    let report: AssembledContext<'static> = read(&body, "report", body.required("report")?)?;
    let renumber: bool = match body.part("renumber") {
        Some(json) => read(&body, "renumber", json)?,
        None => false,
    };
    let contents;
    let resolver = match Resolver::try_for_context(&report) {
        Ok(resolver) => resolver,
        // A report whose text only this profile's tokenizer reads back (a tokenizer file's,
        // with a head cap), as `cite` reads it with its options; else its quotes go unverified.
        Err(_) => match profile_reader(profile, &report) {
            Some(read) => {
                contents = read;
                Resolver::new(&report.citations)
                    .dialect(report.dialect)
                    .contents(&contents.0)
                    .entries(&contents.1)
            }
            None => Resolver::for_context(&report),
        },
    }
    .renumber(renumber);
    let resolution = match (body.part("answer"), body.part("response"), report.dialect) {
        (Some(answer), None, None) => {
            let answer: String = read(&body, "answer", answer)?;
            resolver.resolve(&answer)
        }
        (None, Some(response), Some(_)) => {
            // A string is the response's text as it came (JSON Lines, server-sent events); an
            // object is its JSON.
            let text = if response.starts_with('"') {
                read::<String>(&body, "response", response)?
            } else {
                response.to_string()
            };
            resolver
                .response(&text)
                .map_err(|err| Problem::library_in("response", &err))?
        }
        (_, _, None) => {
            return Err(Problem::bad_request(
                ErrorKind::InvalidArgument,
                "the report was assembled as text: give the model's `answer`, and no `response`",
            ));
        }
        (_, _, Some(dialect)) => {
            return Err(Problem::bad_request(
                ErrorKind::InvalidArgument,
                format!(
                    "the report was assembled for the {dialect} dialect: give the API's \
                     `response`, and no `answer`"
                ),
            ));
        }
    };
    json_line(&resolution)
}

/// `POST /v1/{profile}/prompt`: `{"conversation": [...], "results": [...], "tools": [...]?,
/// "template_options": {...}?}` into the whole prompt.
pub(crate) fn prompt(
    name: &str,
    profile: &Profile,
    bytes: &[u8],
    deadline: &Deadline,
) -> Result<Vec<u8>, Problem> {
    let Fitting::Prompt(prompts) = &profile.fitting else {
        return Err(elsewhere(name, "fits a context alone", "assemble"));
    };
    let body = Body::read(
        bytes,
        &["conversation", "results", "tools", "template_options"],
        None,
    )?;
    let conversation: Vec<Message> = read(&body, "conversation", body.required("conversation")?)?;
    let parsed = results(&body, profile)?;
    let own = request_prompts(&body, prompts)?;
    let prompt = own
        .as_ref()
        .unwrap_or(prompts)
        .assemble_until(&conversation, &parsed.results, deadline)
        .map_err(|err| match err.kind() {
            ErrorKind::DeadlinePassed => timed_out(),
            ErrorKind::InvalidConversation => Problem::library_in("conversation", &err),
            _ => Problem::library(&err),
        })?;
    json_line(&prompt)
}

/// The profile's assembler with the request's tools (in place of the profile's) and template
/// options (over the profile's, name by name: `PromptAssembler::with_request`); `None` when
/// the request gives neither.
fn request_prompts(
    body: &Body<'_>,
    prompts: &PromptAssembler,
) -> Result<Option<PromptAssembler>, Problem> {
    let tools = body
        .part("tools")
        .map(str::parse::<Tools>)
        .transpose()
        .map_err(|err| body.problem_in("tools", &err))?;
    let options = body
        .part("template_options")
        .map(str::parse::<TemplateOptions>)
        .transpose()
        .map_err(|err| body.problem_in("template_options", &err))?;
    if tools.is_none() && options.is_none() {
        return Ok(None);
    }
    prompts
        .with_request(tools, options)
        .map(Some)
        .map_err(|err| match err.setting_at_fault() {
            Some(setting) => Problem::library_in(setting, &err),
            None => Problem::library(&err),
        })
}

/// The results of `body`, by the wire rules (an unknown property refused under `strict`).
fn results(body: &Body<'_>, profile: &Profile) -> Result<ParsedResults, Problem> {
    let unknown = if profile.settings.strict {
        UnknownProperties::Reject
    } else {
        UnknownProperties::Report
    };
    parse_request(body.required("results")?, unknown)
        .map_err(|err| body.problem_in("results", &err))
}

/// The part `name` of `body`, `json`, read as a `T`.
fn read<T: DeserializeOwned>(body: &Body<'_>, name: &str, json: &str) -> Result<T, Problem> {
    serde_json::from_str(json)
        .map_err(|err| body.problem_in(name, &mentor_context::Error::from(err)))
}

/// The contents and entries of `report`, read back by the profile's settings in the layout it
/// records.
fn profile_reader(
    profile: &Profile,
    report: &AssembledContext<'_>,
) -> Option<(Vec<String>, Vec<mentor_context::dialects::Entry>)> {
    let assembler = profile
        .settings
        .context_builder()
        .and_then(|builder| builder.layout_of(report))
        .and_then(|builder| builder.build())
        .ok()?;
    read_back(&assembler, report).ok()
}

/// A 404: this profile has no such endpoint; `other` is the one that fits.
fn elsewhere(name: &str, what: &str, other: &str) -> Problem {
    Problem::new(
        axum::http::StatusCode::NOT_FOUND,
        "NOT_FOUND",
        format!("profile `{name}` {what}: POST /v1/{name}/{other}"),
    )
}

/// `value` as the command writes it: one line of JSON and a newline.
fn json_line(value: &impl serde::Serialize) -> Result<Vec<u8>, Problem> {
    let mut bytes = serde_json::to_vec(value).map_err(|err| {
        Problem::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            format!("cannot write JSON: {err}"),
        )
    })?;
    bytes.push(b'\n');
    Ok(bytes)
}
