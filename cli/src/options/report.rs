//! The assembler that reads back or continues a report: the options given, with the layout
//! the report records in place of theirs. A given option that disagrees with the report is
//! said in one warning line, naming the option and both values; the report's is used, since
//! its text was written in it.

use mentor_context::dialects::Dialect;
use mentor_context::settings::Settings;
use mentor_context::{AssembledContext, Assembler, Encoding, Layout};

use super::BuildArgs;
use crate::input::Input;
use crate::output::{Failure, warning_line};

impl BuildArgs {
    /// The assembler to read or continue `report` (read from `from`) with. A report of an
    /// older version records no layout: the options are used as given, counting with the
    /// report's encoding unless they name a tokenizer.
    pub(crate) fn assembler_for_report(
        &self,
        report: &AssembledContext<'_>,
        from: &Input,
    ) -> Result<Assembler, Failure> {
        let configured = self.configure()?;
        let mut settings = configured.settings;
        let Some(layout) = &report.layout else {
            let named = settings.encoding.is_some()
                || settings.model.is_some()
                || settings.tokenizer_file.is_some();
            return match report.encoding.parse::<Encoding>() {
                Ok(encoding) if !named => {
                    settings.encoding = Some(encoding);
                    settings.assembler().map_err(|err| Failure::library(&err))
                }
                _ => Ok(configured.assembler),
            };
        };
        let differing = differing(&settings, &configured.assembler, report, layout);
        if !differing.is_empty() {
            warning_line(&format!(
                "{}: options that differ from the layout the report was written in are not used: {}",
                from.name(),
                differing.join("; ")
            ));
        }
        settings
            .context_builder()
            .map_err(|err| Failure::library(&err))?
            .layout_of(report)
            .map_err(|err| from.fail_with(&err))?
            .build()
            .map_err(|err| Failure::library(&err))
    }
}

/// Each option given that disagrees with `report`, as `--option given (the report's:
/// value)`.
fn differing(
    settings: &Settings,
    given: &Assembler,
    report: &AssembledContext<'_>,
    layout: &Layout,
) -> Vec<String> {
    let ours = given.layout();
    let mut differing = Vec::new();
    let mut differ = |option: &str, given: String, theirs: String| {
        if given != theirs {
            differing.push(format!("{option} {given} (the report's: {theirs})"));
        }
    };
    let tokenizer = if settings.tokenizer_file.is_some() {
        Some("--tokenizer-file")
    } else if settings.model.is_some() {
        Some("--model")
    } else if settings.encoding.is_some() {
        Some("--encoding")
    } else {
        None
    };
    // A tokenizer the report cannot name (a file's) is the one given.
    if let Some(option) = tokenizer
        && report.encoding.parse::<Encoding>().is_ok()
    {
        differ(
            option,
            given.tokenizer_name().to_string(),
            report.encoding.clone(),
        );
    }
    let dialect =
        |dialect: Option<Dialect>| dialect.map_or("none (text)".to_string(), |d| d.to_string());
    if settings.dialect.is_some() {
        differ(
            "--dialect",
            dialect(settings.dialect),
            dialect(report.dialect),
        );
    }
    if settings.format.is_some() && report.dialect.is_none() {
        differ("--format", ours.format.clone(), layout.format.clone());
    }
    if settings.header.is_some() {
        let quoted = |header: &str| format!("{:?}", header.trim_end());
        differ("--header", quoted(&ours.header), quoted(&layout.header));
    }
    if !settings.hide_metadata_keys.is_empty() {
        let keys = |keys: &[String]| match keys {
            [] => "none".to_string(),
            keys => keys.join(", "),
        };
        differ(
            "--hide-metadata-keys",
            keys(&ours.hidden_keys),
            keys(&layout.hidden_keys),
        );
    }
    if settings.max_head_tokens.is_some() {
        let cap = |cap: Option<usize>| cap.map_or("none".to_string(), |cap| cap.to_string());
        differ(
            "--max-head-tokens",
            cap(ours.max_head_tokens),
            cap(layout.max_head_tokens),
        );
    }
    differing
}
