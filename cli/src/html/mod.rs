//! The HTML pages that `inspect` and `batch --report` write: one self-contained file each,
//! its CSS inline and its charts inline SVG, with nothing loaded from anywhere (no script, no
//! font, no image), so it opens offline, attaches to a bug report, and reads the same with
//! scripts off.
//!
//! The pages are minijinja templates that escape every value: whatever comes from the input
//! (titles, URLs, metadata, content, ids, error texts) can only ever be text. The parts:
//! [`text`] (input strings, cut to a size and with invisible characters shown), [`link`]
//! (which URLs may be links), [`chart`] (histograms, drawn by plotters) and [`file`](mod@file)
//! (writing a page so that no reader sees half of one).

pub(crate) mod chart;
mod file;
pub(crate) mod link;
pub(crate) mod text;

use minijinja::value::{Serde, Value};
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use serde::Serialize;

pub(crate) use file::{PageFile, write_page};

use crate::output::Failure;

/// The style of every page, inlined into each.
const STYLE: &str = include_str!("style.css");

/// The macros every page imports: how an input string is shown.
const MACROS: &str = include_str!("macros.html");

/// Renders the page template `source` (called `name` in errors) with `view`.
///
/// # Errors
///
/// A write failure if the template does not render: a bug in a template, never the input's
/// fault, since every value from the input is only text to it.
pub(crate) fn render(
    name: &'static str,
    source: &'static str,
    view: &impl Serialize,
) -> Result<String, Failure> {
    let mut env = Environment::new();
    // Every template escapes, whatever its name: no value reaches a page unescaped unless it
    // is marked safe in Rust (the style and the charts, which this program writes).
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    // A misspelt field in a template is an error here, not an empty spot on a page.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_global("style", Value::from_safe_string(STYLE.to_string()));
    env.add_global("version", env!("CARGO_PKG_VERSION"));
    let problem = |err: minijinja::Error| {
        Failure::write_failed(format!(
            "internal error: the page {name} does not render: {err}"
        ))
    };
    env.add_template("macros.html", MACROS).map_err(problem)?;
    env.add_template(name, source).map_err(problem)?;
    let template = env.get_template(name).map_err(problem)?;
    template.render(Value::from(Serde(view))).map_err(problem)
}
