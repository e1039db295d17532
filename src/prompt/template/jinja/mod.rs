//! A Hugging Face chat template (the Jinja `chat_template` of a `tokenizer_config.json`),
//! rendered as `transformers`' `apply_chat_template` renders it.
//!
//! The environment is minijinja with what `transformers` gives a template
//! (`utils/chat_template_utils.py`, `_compile_jinja_template`): `trim_blocks` and
//! `lstrip_blocks`, loop controls, `raise_exception`, `strftime_now`, its own `tojson`
//! (`pyjson.rs`), and Python's string methods through `minijinja-contrib`'s pycompat, as Text
//! Generation Inference does (`router/src/infer/chat_template.rs`), with the methods whose
//! meaning differs in Rust replaced by Python's (`python.rs`).
//!
//! Templates come from the internet and are code: each render is bounded in work (minijinja's
//! fuel), in nesting (its recursion limit) and in output bytes, and the parser never sees more
//! than [`MAX_TEMPLATE_BYTES`]. Whatever a template does, a render ends in a prompt or one
//! error.

mod pyjson;
mod python;

use std::fmt::Write as _;
use std::io;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error as JinjaError, ErrorKind, State};

use crate::prompt::ConversationDate;
use python::Side;

/// The largest template source accepted: the largest chat templates on the Hub are about
/// 20 KB; a megabyte of template is not one.
pub(crate) const MAX_TEMPLATE_BYTES: usize = 1 << 20;

/// The most work one render may do, in minijinja's fuel (about one unit per instruction and
/// per 64 bytes of values created): 128 MB of strings at most, and a template that loops for
/// ever runs out in well under a second. Real templates use a few units per message and per
/// 64 bytes of content they join (`tests.rs` measures Qwen 3's).
const FUEL: u64 = 2_000_000;

/// The most bytes a render may write beyond what it was given: the template's own text around
/// the messages. A template that repeats its input without end stops here.
const MAX_EXTRA_OUTPUT_BYTES: usize = 4 << 20;

/// Nesting of calls, loops and conditions (minijinja's default is 500).
const RECURSION_LIMIT: usize = 200;

/// What a render is given.
pub(crate) struct RenderInput<'a> {
    pub(crate) messages: &'a Value,
    pub(crate) documents: Option<&'a Value>,
    /// The tool definitions, as `apply_chat_template(tools=...)` passes them.
    pub(crate) tools: Option<&'a Value>,
    pub(crate) bos_token: Option<&'a str>,
    pub(crate) eos_token: Option<&'a str>,
    pub(crate) date: ConversationDate,
    /// Bytes of text in the messages, documents and tools, to bound the output.
    pub(crate) input_bytes: usize,
}

/// A compiled chat template.
pub(crate) struct JinjaTemplate {
    env: Environment<'static>,
    reads_documents: bool,
}

impl std::fmt::Debug for JinjaTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JinjaTemplate")
            .field("reads_documents", &self.reads_documents)
            .finish_non_exhaustive()
    }
}

const NAME: &str = "chat_template";

impl JinjaTemplate {
    /// Compiles `source`.
    ///
    /// # Errors
    ///
    /// The problem, in words, with the line it is on: a syntax error, or a template over
    /// [`MAX_TEMPLATE_BYTES`].
    pub(crate) fn new(source: &str) -> Result<JinjaTemplate, String> {
        if source.len() > MAX_TEMPLATE_BYTES {
            return Err(format!(
                "the template is {} bytes; at most {MAX_TEMPLATE_BYTES} are accepted",
                source.len()
            ));
        }
        let mut env = Environment::new();
        let syntax = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|e| e.to_string())?;
        env.set_syntax(syntax);
        env.set_fuel(Some(FUEL));
        env.set_recursion_limit(RECURSION_LIMIT);
        env.set_unknown_method_callback(python_method);
        env.set_formatter(|out, _state, value| {
            let mut text = String::new();
            python::write_str(&mut text, value);
            out.write_str(&text).map_err(JinjaError::from)
        });
        env.add_filter("tojson", pyjson::tojson);
        env.add_filter("trim", trim_filter);
        env.add_function("raise_exception", raise_exception);
        env.add_template_owned(NAME, rewrite_generation_tags(source))
            .map_err(|e| describe(&e))?;
        let reads_documents = env
            .get_template(NAME)
            .map_err(|e| describe(&e))?
            .undeclared_variables(false)
            .contains("documents");
        Ok(JinjaTemplate {
            env,
            reads_documents,
        })
    }

    /// Whether the template reads `documents`: a template that does not would drop them
    /// without a word, as `transformers` does (transformers#33421).
    pub(crate) fn reads_documents(&self) -> bool {
        self.reads_documents
    }

    /// Renders with `add_generation_prompt=True`, as `apply_chat_template(..., tokenize=False,
    /// add_generation_prompt=True)` does.
    ///
    /// # Errors
    ///
    /// What the template raised, or why it was stopped (out of fuel, too deep, too long), in
    /// words.
    pub(crate) fn render(&self, input: &RenderInput<'_>) -> Result<String, String> {
        let template = self.env.get_template(NAME).map_err(|e| describe(&e))?;
        let date = input.date;
        let context = minijinja::context! {
            messages => input.messages.clone(),
            documents => input.documents.cloned().unwrap_or(Value::from(())),
            tools => input.tools.cloned().unwrap_or(Value::from(())),
            add_generation_prompt => true,
            bos_token => input.bos_token,
            eos_token => input.eos_token,
            strftime_now => Value::from_function(move |format: &str| date.strftime(format)),
        };
        let limit = input.input_bytes.saturating_add(MAX_EXTRA_OUTPUT_BYTES);
        let mut out = LimitedWriter {
            bytes: Vec::new(),
            limit,
        };
        match template.render_captured_to(context, &mut out) {
            Ok(_) => String::from_utf8(out.bytes)
                .map_err(|_| "the template wrote invalid UTF-8".to_string()),
            Err(e) if out.bytes.len() > limit => {
                Err(format!("the template wrote more than {limit} bytes ({e})"))
            }
            Err(e) => Err(describe(&e)),
        }
    }
}

/// Python's `str` methods, with Python's whitespace; the rest from `minijinja-contrib`.
fn python_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, JinjaError> {
    let Some(s) = value.as_str().filter(|_| value.kind() == ValueKind::String) else {
        return minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args);
    };
    let side = match method {
        "strip" => Some(Side::Both),
        "lstrip" => Some(Side::Start),
        "rstrip" => Some(Side::End),
        _ => None,
    };
    if let Some(side) = side {
        let (chars,): (Option<&str>,) = minijinja::value::from_args(args)?;
        return Ok(Value::from(python::strip(s, chars, side)));
    }
    match method {
        "split" => {
            let (sep, maxsplit): (Option<&str>, Option<i64>) = minijinja::value::from_args(args)?;
            let parts = python::split(s, sep, maxsplit)
                .map_err(|problem| JinjaError::new(ErrorKind::InvalidOperation, problem))?;
            Ok(parts.into_iter().map(Value::from).collect())
        }
        "splitlines" => {
            let (keepends,): (Option<bool>,) = minijinja::value::from_args(args)?;
            Ok(python::splitlines(s, keepends.unwrap_or(false))
                .into_iter()
                .map(Value::from)
                .collect())
        }
        "isspace" => {
            let () = minijinja::value::from_args(args)?;
            Ok(Value::from(
                !s.is_empty() && s.chars().all(python::is_space),
            ))
        }
        _ => minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args),
    }
}

/// Jinja2's `trim` filter: `str.strip(chars)`.
fn trim_filter(value: &Value, chars: Option<&str>) -> Value {
    match value.as_str() {
        Some(s) => Value::from(python::strip(s, chars, Side::Both)),
        None => {
            let mut text = String::new();
            python::write_str(&mut text, value);
            Value::from(python::strip(&text, chars, Side::Both))
        }
    }
}

fn raise_exception(message: &str) -> Result<Value, JinjaError> {
    Err(JinjaError::new(
        ErrorKind::InvalidOperation,
        format!("the template raised: {message}"),
    ))
}

/// `transformers` reads `{% generation %}` ... `{% endgeneration %}` (which marks the
/// assistant's tokens for training) and renders its body unchanged; minijinja does not know the
/// tag, so it becomes an `{% if true %}` block with the same whitespace control.
fn rewrite_generation_tags(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("{%") {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        // After the opening: in `{%}` the `%` of `{%` is no closing.
        let Some(end) = tag[2..].find("%}").map(|end| end + 2) else {
            out.push_str(tag);
            return out;
        };
        let inner = &tag[2..end];
        let (left, body) = inner
            .strip_prefix(['-', '+'])
            .map_or(("", inner), |b| (&inner[..1], b));
        let (body, right) = body
            .strip_suffix(['-', '+'])
            .map_or((body, ""), |b| (b, &body[b.len()..]));
        match body.trim() {
            "generation" => {
                let _ = write!(out, "{{%{left} if true {right}%}}");
            }
            "endgeneration" => {
                let _ = write!(out, "{{%{left} endif {right}%}}");
            }
            _ => out.push_str(&tag[..end + 2]),
        }
        rest = &tag[end + 2..];
    }
    out.push_str(rest);
    out
}

/// minijinja's error in one line: the kind's description or the detail, and the line.
fn describe(err: &JinjaError) -> String {
    let mut text = match err.detail() {
        Some(detail) => detail.to_string(),
        None => err.kind().to_string(),
    };
    if err.kind() == ErrorKind::OutOfFuel {
        text = "the template ran too long (out of fuel)".to_string();
    }
    if let Some(line) = err.line() {
        let _ = write!(text, " (line {line})");
    }
    text
}

/// Collects the output, refusing to grow past `limit`.
struct LimitedWriter {
    bytes: Vec<u8>,
    limit: usize,
}

impl io::Write for LimitedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            self.bytes
                .extend_from_slice(&buf[..self.limit.saturating_sub(self.bytes.len())]);
            self.bytes.push(0);
            return Err(io::Error::other("output limit"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
