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
//! Templates come from the internet and are code. Each render is bounded in every resource,
//! deterministically (`bounds.rs` states the rule): in work and memory by fuel that grows
//! with the conversation, every text our own code builds paid for as it grows; in nesting by
//! minijinja's recursion limit for calls, by a 256-level bound in every recursive path of ours,
//! by `store.rs` for what a namespace carries from one loop iteration to the next, and by a
//! render thread whose stack holds the deepest value the fuel can build; in output bytes by
//! the input's size plus a margin. The parser never sees more than [`MAX_TEMPLATE_BYTES`], and
//! compiles on a stack sized for it. Whatever a template does, a render ends in a prompt or
//! one error naming the bound it met; no input aborts the process.

mod bounds;
mod filters;
mod generation_tags;
mod methods;
pub(crate) mod pyjson;
mod python;
mod repr;
mod store;
mod stringify;
mod strings;

use std::fmt::Write as _;
use std::io;

use minijinja::syntax::SyntaxConfig;
use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error as JinjaError, ErrorKind};

use crate::error::{TemplateError, TemplateErrorKind};
use crate::prompt::ConversationDate;
use generation_tags::rewrite_generation_tags;
use methods::{python_method, raise_exception, string_filter};

/// The largest template source accepted: the largest chat templates on the Hub are about
/// 20 KB; a megabyte of template is not one.
pub(crate) const MAX_TEMPLATE_BYTES: usize = 1 << 20;

/// The most bytes a render may write beyond what it was given: the template's own text around
/// the messages, this much and [`MAX_EXTRA_OUTPUT_BYTES_PER_MESSAGE`] for each message. A
/// template that repeats its input without end stops here.
const MAX_EXTRA_OUTPUT_BYTES: usize = 4 << 20;

/// The framing a template may write around each message: a role header and an end-of-turn
/// token take a few dozen bytes in every template on the Hub.
const MAX_EXTRA_OUTPUT_BYTES_PER_MESSAGE: usize = 256;

/// Nesting of calls, loops and conditions (minijinja's default is 500).
const RECURSION_LIMIT: usize = 200;

/// What a render is given.
pub(crate) struct RenderInput<'a> {
    pub(crate) messages: &'a Value,
    pub(crate) documents: Option<&'a Value>,
    /// The tool definitions, as `apply_chat_template(tools=...)` passes them.
    pub(crate) tools: Option<&'a Value>,
    /// The template's other variables, as `apply_chat_template(**kwargs)` passes them; none
    /// of them is one of the names above (`TemplateOptions` refuses those).
    pub(crate) options: Option<&'a Value>,
    pub(crate) bos_token: Option<&'a str>,
    pub(crate) eos_token: Option<&'a str>,
    pub(crate) date: ConversationDate,
    /// Bytes of text in the messages, documents and tools, to bound the output and size the
    /// fuel.
    pub(crate) input_bytes: usize,
}

/// A compiled chat template.
pub(crate) struct JinjaTemplate {
    env: Environment<'static>,
    reads_documents: bool,
    /// The compiled source's length: a bound on how deep the values it writes can nest.
    source_bytes: usize,
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
    /// The problem, with the line it is on: a syntax error ([`TemplateErrorKind::Syntax`]),
    /// or a template over [`MAX_TEMPLATE_BYTES`] ([`TemplateErrorKind::NotATemplate`]: no
    /// chat template is that long).
    pub(crate) fn new(source: &str) -> Result<JinjaTemplate, TemplateError> {
        if source.len() > MAX_TEMPLATE_BYTES {
            return Err(TemplateError::new(
                TemplateErrorKind::NotATemplate,
                format!(
                    "the template is {} bytes; at most {MAX_TEMPLATE_BYTES} are accepted",
                    source.len()
                ),
            ));
        }
        let mut env = Environment::new();
        let syntax = SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|e| TemplateError::engine(TemplateErrorKind::Syntax, e.to_string(), e))?;
        env.set_syntax(syntax.clone());
        // Set per render (`bounds::fuel_for`); this only turns the tracking on.
        env.set_fuel(Some(bounds::BASE_FUEL));
        env.set_recursion_limit(RECURSION_LIMIT);
        env.set_unknown_method_callback(python_method);
        env.set_formatter(|out, state, value| {
            // A string is written as it is (minijinja charges the output); anything else is
            // built by `repr` first, and paid for as it is built.
            if value.kind() == ValueKind::String {
                return out
                    .write_str(value.as_str().unwrap_or_default())
                    .map_err(JinjaError::from);
            }
            let pay = bounds::fuel_of(state);
            let mut text = bounds::Meter::new(Some(&pay));
            repr::write_str(&mut text, value)?;
            out.write_str(&text.finish()?).map_err(JinjaError::from)
        });
        env.add_filter("tojson", pyjson::tojson_filter);
        env.add_filter("trim", filters::trim);
        env.add_filter("join", filters::join);
        env.add_filter("int", filters::int);
        env.add_filter("truncate", filters::truncate);
        env.add_filter("wordcount", filters::wordcount);
        env.add_filter("pprint", filters::pprint);
        env.add_filter("string", string_filter);
        env.add_filter("sum", filters::sum);
        env.add_filter("format", filters::format_filter);
        env.add_function("raise_exception", raise_exception);
        env.add_function(store::STORE, store::store);
        stringify::install(&mut env);
        let source = store::rewrite_namespace_sets(&rewrite_generation_tags(source));
        // The parser and the compiler recurse once per link of a filter chain (`x|f|f|...`),
        // so a template compiles on a stack sized for the longest chain it can hold.
        let compiled = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("chat-template-compile".to_string())
                .stack_size(bounds::compile_stack_for(source.len()))
                .spawn_scoped(scope, || {
                    let source =
                        stringify::rewrite_operators(&source, syntax).map_err(syntax_error)?;
                    let source_bytes = source.len();
                    env.add_template_owned(NAME, source).map_err(syntax_error)?;
                    // `undeclared_variables` parses the source again, as deep.
                    let reads_documents = env
                        .get_template(NAME)
                        .map_err(syntax_error)?
                        .undeclared_variables(false)
                        .contains("documents");
                    Ok::<_, TemplateError>((env, reads_documents, source_bytes))
                })
                .map_err(|e| {
                    TemplateError::new(
                        TemplateErrorKind::EngineFailed,
                        format!("no thread to compile the template on: {e}"),
                    )
                })?
                .join()
                .map_err(|_| {
                    TemplateError::new(
                        TemplateErrorKind::EngineFailed,
                        "the template's compiler panicked",
                    )
                })?
        });
        let (env, reads_documents, source_bytes) = compiled?;
        Ok(JinjaTemplate {
            env,
            reads_documents,
            source_bytes,
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
    /// What the template raised ([`TemplateErrorKind::Raised`]), or the bound that stopped it
    /// ([`TemplateErrorKind::OutOfFuel`], [`TooDeep`](TemplateErrorKind::TooDeep),
    /// [`OutputTooLarge`](TemplateErrorKind::OutputTooLarge)).
    pub(crate) fn render(&self, input: &RenderInput<'_>) -> Result<String, TemplateError> {
        self.render_metered(input).0
    }

    /// [`render`](Self::render), and the fuel it used (when it got far enough to say).
    ///
    /// The render runs on a thread of its own whose stack holds the deepest value the render
    /// can build (by its fuel and by its source, [`bounds::stack_for`]): minijinja compares,
    /// prints and drops values recursively, and a value nested past what the stack holds
    /// would abort the process.
    fn render_metered(
        &self,
        input: &RenderInput<'_>,
    ) -> (Result<String, TemplateError>, Option<u64>) {
        let messages = input.messages.len().unwrap_or(0);
        let fuel = bounds::fuel_for(messages, input.input_bytes);
        let mut env = self.env.clone();
        env.set_fuel(Some(fuel));
        let stack = bounds::stack_for(fuel, self.source_bytes, RECURSION_LIMIT);
        let rendered = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .name("chat-template".to_string())
                .stack_size(stack)
                .spawn_scoped(scope, || render_with(&env, input))
                .map_err(|e| {
                    TemplateError::new(
                        TemplateErrorKind::EngineFailed,
                        format!("no thread to render the template on: {e}"),
                    )
                })
                .and_then(|thread| {
                    thread.join().map_err(|_| {
                        TemplateError::new(
                            TemplateErrorKind::EngineFailed,
                            "the template's render panicked",
                        )
                    })
                })
        });
        match rendered {
            Ok(result) => result,
            Err(problem) => (Err(problem), None),
        }
    }
}

/// One render in `env`.
fn render_with(
    env: &Environment<'_>,
    input: &RenderInput<'_>,
) -> (Result<String, TemplateError>, Option<u64>) {
    let template = match env.get_template(NAME) {
        Ok(template) => template,
        Err(e) => return (Err(syntax_error(e)), None),
    };
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
    // One flat map, not minijinja's merged context (`..options`), whose every lookup would
    // try two maps: a render of 40,000 turns reads variables millions of times.
    let context = match input.options {
        None => context,
        Some(options) => {
            let entries = |map: &Value| -> Vec<(Value, Value)> {
                let keys = map.try_iter().into_iter().flatten();
                keys.map(|key| (key.clone(), map.get_item(&key).unwrap_or_default()))
                    .collect()
            };
            Value::from_pairs(entries(options).into_iter().chain(entries(&context)))
        }
    };
    let framing = input
        .messages
        .len()
        .unwrap_or(0)
        .saturating_mul(MAX_EXTRA_OUTPUT_BYTES_PER_MESSAGE);
    let limit = input
        .input_bytes
        .saturating_add(MAX_EXTRA_OUTPUT_BYTES)
        .saturating_add(framing);
    let mut out = LimitedWriter {
        bytes: Vec::new(),
        limit,
    };
    match template.render_captured_to(context, &mut out) {
        Ok(captured) => {
            let used = captured.state().fuel_levels().map(|(used, _)| used);
            // minijinja writes only `str`s, so this is the engine's fault if ever.
            let text = String::from_utf8(out.bytes).map_err(|_| {
                TemplateError::new(
                    TemplateErrorKind::EngineFailed,
                    "the template wrote invalid UTF-8",
                )
            });
            (text, used)
        }
        Err(e) if out.bytes.len() > limit => (
            Err(TemplateError::engine(
                TemplateErrorKind::OutputTooLarge,
                format!("the template wrote more than {limit} bytes ({e})"),
                e,
            )),
            None,
        ),
        Err(e) => (Err(render_error(e)), None),
    }
}

/// A compile error: the template's syntax, said in one line.
fn syntax_error(err: JinjaError) -> TemplateError {
    TemplateError::engine(TemplateErrorKind::Syntax, describe(&err), err)
}

/// A render's error: the bound it met, or what the template raised on this conversation.
fn render_error(err: JinjaError) -> TemplateError {
    let kind = if caused_by(&err, |e| e.kind() == ErrorKind::OutOfFuel) {
        TemplateErrorKind::OutOfFuel
    } else if caused_by(&err, bounds::is_too_deep) {
        TemplateErrorKind::TooDeep
    } else {
        TemplateErrorKind::Raised
    };
    TemplateError::engine(kind, describe(&err), err)
}

/// Whether `err`, or a minijinja error it was caused by (an include's, a block's), is one
/// `is` holds for.
fn caused_by(err: &JinjaError, is: impl Fn(&JinjaError) -> bool) -> bool {
    let mut next: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(err) = next {
        if err.downcast_ref::<JinjaError>().is_some_and(&is) {
            return true;
        }
        next = err.source();
    }
    false
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
mod bounds_tests;
#[cfg(test)]
mod output_tests;
#[cfg(test)]
mod tests;
