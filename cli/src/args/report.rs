//! The assembler that reads back or continues a report: the options given, with the layout
//! the report records in place of theirs. A given option that disagrees with the report is
//! said in one warning line, naming the option and both values; the report's is used, since
//! its text was written in it.

use mentor_context::{AssembledContext, Assembler, Encoding, Layout};

use super::{BuildArgs, build};
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
        let given = self.assembler()?;
        let Some(layout) = &report.layout else {
            return self.assembler_for_encoding(&report.encoding);
        };
        let differing = self.differing(&given, report, layout);
        if !differing.is_empty() {
            warning_line(&format!(
                "{}: options that differ from the layout the report was written in are not used: {}",
                from.name(),
                differing.join("; ")
            ));
        }
        let builder = self
            .builder()?
            .layout_of(report)
            .map_err(|err| from.fail(err))?;
        build(&builder)
    }

    /// Each option given that disagrees with `report`, as `--option given (the report's:
    /// value)`.
    fn differing(
        &self,
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
        let tokenizer = if self.tokenizer_file.is_some() {
            Some("--tokenizer-file")
        } else if self.model.is_some() {
            Some("--model")
        } else if self.encoding.is_some() {
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
        let dialect = |dialect: Option<mentor_context::dialects::Dialect>| {
            dialect.map_or("none (text)".to_string(), |d| d.to_string())
        };
        if self.dialect.is_some() {
            differ("--dialect", dialect(self.dialect), dialect(report.dialect));
        }
        if self.format.is_some() && report.dialect.is_none() {
            differ("--format", ours.format.clone(), layout.format.clone());
        }
        if self.header.is_some() {
            let quoted = |header: &str| format!("{:?}", header.trim_end());
            differ("--header", quoted(&ours.header), quoted(&layout.header));
        }
        if !self.hide_metadata_key.is_empty() {
            let keys = |keys: &[String]| match keys {
                [] => "none".to_string(),
                keys => keys.join(", "),
            };
            differ(
                "--hide-metadata-key",
                keys(&ours.hidden_keys),
                keys(&layout.hidden_keys),
            );
        }
        if self.max_head_tokens.is_some() {
            let cap = |cap: Option<usize>| cap.map_or("none".to_string(), |cap| cap.to_string());
            differ(
                "--max-head-tokens",
                cap(ours.max_head_tokens),
                cap(layout.max_head_tokens),
            );
        }
        differing
    }
}
