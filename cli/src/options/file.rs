//! `--settings FILE`: settings in a JSON or TOML file, under the settings' own names
//! (`max_blocks = 8`), as the service's profiles and the bindings' keywords spell them.

use std::path::Path;

use mentor_context::machinery::read_file;
use mentor_context::settings::{Settings, Spelling};

use crate::input::io_problem;
use crate::output::{Failure, escape_os};

/// The most bytes a settings file (or the service's configuration) is read for: a few dozen
/// settings fit in a kilobyte, and a path such as `/dev/zero` must not be read forever.
pub(crate) const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// The settings in the file at `path`: TOML when its name ends in `.toml`, JSON otherwise.
pub(crate) fn read(path: &Path) -> Result<Settings, Failure> {
    let name = escape_os(path.as_os_str());
    let fail = |problem: String| Failure::bad_input(format!("--settings: {name}: {problem}"));
    let bytes = read_file(path, MAX_SETTINGS_BYTES, "a settings file")
        .map_err(|err| fail(format!("cannot read: {}", io_problem(&err))))?;
    let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8".to_string()))?;
    let toml = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("toml"));
    let read = if toml {
        let table: toml::Table = text
            .parse()
            .map_err(|err: toml::de::Error| fail(one_line_toml(&err, &text)))?;
        Settings::deserialize_spelled(toml::Value::Table(dates_as_text(table)), Spelling::Snake)
    } else {
        Settings::from_json(&text, Spelling::Snake)
    };
    read.map_err(|err| Failure::library(&err).at(&format!("--settings: {name}")))
}

/// TOML's own dates (`date = 2026-12-04`, unquoted) as the text settings read.
fn dates_as_text(table: toml::Table) -> toml::Table {
    table
        .into_iter()
        .map(|(key, value)| match value {
            toml::Value::Datetime(date) => (key, toml::Value::String(date.to_string())),
            other => (key, other),
        })
        .collect()
}

/// A TOML error in one line: the line and column where it is, and its message (the crate's
/// own rendering draws the line over several).
pub(crate) fn one_line_toml(err: &toml::de::Error, text: &str) -> String {
    match err.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {}", err.message())
        }
        None => err.message().to_string(),
    }
}
