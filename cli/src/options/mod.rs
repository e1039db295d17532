//! The settings of the command: `--settings FILE` and the flags over it, turned into the
//! library's [`Settings`] and checked by it. Every rule between options is the library's, so
//! the command refuses what Python and Node refuse, in the same words, naming the flag.
//!
//! [`parse`] holds the flag values' parsers, [`mod@file`] reads a settings file, [`report`] the
//! assembler that follows a report's layout, [`mod@shown`] the options a page lists.

mod file;
pub(crate) mod parse;
mod report;
mod shown;

pub(crate) use file::{MAX_SETTINGS_BYTES, one_line_toml};
pub(crate) use shown::shown;

use std::path::PathBuf;

use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, StringValueParser, TypedValueParser};
use mentor_context::dialects::Dialect;
use mentor_context::format::BuiltinFormat;
use mentor_context::settings::{Settings, Spelling};
use mentor_context::tokenizer::{Engine, TokenizerKind};
use mentor_context::{Assembler, Duplicates, Encoding, Error, Order, Overflow};

use crate::output::Failure;
use parse::{parse_count, utf8};

/// The budget the command takes when neither a flag, a settings file nor a model window
/// gives one.
pub(crate) const DEFAULT_BUDGET: usize = 4000;

/// The options of the context builder, shared by every subcommand.
#[derive(Debug, Args)]
// The `--format` help shows the XML layout's tags as they are; they are not HTML.
#[allow(rustdoc::invalid_html_tags)]
pub(crate) struct BuildArgs {
    /// Read settings from this JSON or TOML file (TOML when it ends in .toml), under the
    /// names the flags have without their dashes: `max_blocks = 8`, `format = "xml"`. Flags
    /// given override it.
    #[arg(long = "settings", value_name = "FILE")]
    settings_file: Option<PathBuf>,

    /// The most tokens the context may take, header and layout included [default: 4000].
    // Negative numbers are let through to `parse_count`, which names the problem, instead
    // of clap reading `-5` as an unknown option.
    #[arg(long, value_name = "TOKENS", value_parser = utf8(parse_count), allow_negative_numbers = true)]
    budget: Option<usize>,

    /// Count tokens with this encoding: o200k_base (the default), cl100k_base, p50k_base or
    /// r50k_base.
    #[arg(long, value_name = "NAME", value_parser = utf8(parse_encoding))]
    encoding: Option<Encoding>,

    /// Count tokens with the encoding of this OpenAI model (gpt-4o: o200k_base, gpt-4:
    /// cl100k_base, ...). With --reserve-output or --prompt-tokens, the budget is what the
    /// model's context window leaves.
    #[arg(long, value_name = "NAME", value_parser = utf8(StringValueParser::new()))]
    model: Option<String>,

    /// With --model: tokens to keep free for the answer. The budget becomes the model's
    /// context window less this and --prompt-tokens.
    #[arg(long, value_name = "TOKENS", value_parser = utf8(parse_count))]
    reserve_output: Option<usize>,

    /// With --model: tokens the rest of the prompt (system message, question, history)
    /// takes. The budget becomes the model's context window less this and --reserve-output.
    #[arg(long, value_name = "TOKENS", value_parser = utf8(parse_count))]
    prompt_tokens: Option<usize>,

    /// Count with this engine: bpe-openai (the default for o200k_base and cl100k_base) or
    /// tiktoken (the reference, and the default for p50k_base and r50k_base). Both give the
    /// same counts.
    #[arg(long, value_name = "NAME", value_parser = utf8(str::parse::<Engine>))]
    engine: Option<Engine>,

    /// Count tokens with a model's own tokenizer file instead of an OpenAI encoding: a Hugging
    /// Face tokenizer.json (Llama 3, Qwen 3, DeepSeek V3, Gemma 3, ...) or a Mistral
    /// tekken_*.json. Nothing is downloaded. Reports name the tokenizer by family and a hash
    /// of the file (llama3@6835d61b).
    #[arg(long, value_name = "PATH")]
    tokenizer_file: Option<PathBuf>,

    /// What --tokenizer-file is, if not told by its contents (a Tekken file names
    /// default_num_special_tokens near its start; anything else is read as tokenizer.json):
    /// huggingface or tekken.
    #[arg(long, value_name = "KIND", value_parser = utf8(str::parse::<TokenizerKind>))]
    tokenizer_kind: Option<TokenizerKind>,

    /// Block layout: `plain` (numbered `[n] title` heads, fenced content) or `xml`
    /// (<documents><document index="n">...) [default: plain].
    #[arg(long, value_name = "NAME", value_parser = utf8(str::parse::<BuiltinFormat>))]
    format: Option<BuiltinFormat>,

    /// Write a model API's own entries instead of text: anthropic (search_result blocks),
    /// anthropic-documents (document blocks), bedrock (Converse document blocks), cohere
    /// (documents) or mistral (the documents of a tool result). `assemble` prints the
    /// JSON array to put in the request (--json the report); the budget counts the entries'
    /// text as the report's context shows it. `cite` then reads that API's response.
    #[arg(long, value_name = "NAME", value_parser = utf8(str::parse::<Dialect>))]
    pub(crate) dialect: Option<Dialect>,

    /// Put this text before the blocks, counted in the budget.
    #[arg(long, value_name = "TEXT", value_parser = utf8(StringValueParser::new()))]
    header: Option<String>,

    /// Keep this metadata key out of the prompt (it stays on the citations of the --json
    /// report). Repeat for several keys.
    #[arg(long = "hide-metadata-keys", visible_alias = "hide-metadata-key", value_name = "KEY", value_parser = utf8(StringValueParser::new()))]
    hide_metadata_keys: Vec<String>,

    /// Keep each block's head (marker, title, metadata) within this many tokens: the title
    /// and metadata values are shortened, marked with `…`; the citation says so.
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    max_head_tokens: Option<usize>,

    /// What to do with the first result that does not fit in what is left of the budget
    /// [default: truncate].
    #[arg(long, value_name = "POLICY", value_parser = utf8(overflow_parser()), ignore_case = true)]
    overflow: Option<Overflow>,

    /// Which results to leave out as duplicates of a better-ranked one [default:
    /// url-and-content].
    #[arg(long, value_name = "MODE", value_parser = utf8(duplicates_parser()), ignore_case = true, conflicts_with = "keep_duplicates")]
    duplicates: Option<Duplicates>,

    /// The same as --duplicates keep: keep every result, even those with the same source URL
    /// and content as a better-ranked one.
    #[arg(long)]
    keep_duplicates: bool,

    /// The order of the blocks in the context [default: score]. Which results are chosen
    /// follows the score whatever the order; numbers follow the text.
    #[arg(long, value_name = "ORDER", value_parser = utf8(order_parser()), ignore_case = true)]
    order: Option<Order>,

    /// Leave out results scored below this.
    // Hyphen values, not just negative numbers: clap does not take `-inf` or `-1e-3` for
    // numbers, and would read them as unknown options.
    #[arg(long, value_name = "F", allow_hyphen_values = true, value_parser = utf8(str::parse::<f32>))]
    min_score: Option<f32>,

    /// Put at most this many blocks in the context.
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    max_blocks: Option<usize>,

    /// Put at most this many blocks from one source URL in the context; lower-ranked results
    /// from other sources fill the room.
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    max_per_source: Option<usize>,

    /// With --overflow truncate, cut a block only if at least this many tokens of room are
    /// left for its content after its head and frame; otherwise leave it out. A cut block
    /// keeps at least half of the room its content had (not only half of N): its move back
    /// to a word end gives up at most a tenth of what it keeps [default: 32, or the budget
    /// if smaller].
    #[arg(long, value_name = "N", value_parser = utf8(parse_count))]
    min_truncated_tokens: Option<usize>,

    /// Remember token counts in a cache of this many bytes, so that text seen before (a
    /// `batch` run's repeated documents) is not tokenized again.
    #[arg(long, value_name = "BYTES", value_parser = utf8(parse_count))]
    cache_bytes: Option<usize>,

    /// Seal every --json report with an HMAC-SHA256 tag, keyed by the bytes of this file (at
    /// least 16; one trailing newline is not part of the key), and continue with --previous
    /// only reports that carry a matching seal. For reports kept where they could be edited.
    #[arg(long, value_name = "PATH")]
    seal_key_file: Option<PathBuf>,

    /// With --dialect anthropic or anthropic-documents: `assemble` marks the last entry, and
    /// in a follow-up turn the last entry of the earlier turns, with a prompt-cache breakpoint
    /// (`"cache_control": {"type": "ephemeral"}`), so Anthropic's prompt cache keeps hitting.
    #[arg(long)]
    cache_control: bool,

    /// Make unknown properties in the input an error (exit 2) instead of a warning.
    #[arg(long)]
    strict: bool,
}

/// The settings, checked, and the assembler they build.
pub(crate) struct Configured {
    pub(crate) settings: Settings,
    pub(crate) assembler: Assembler,
}

impl BuildArgs {
    /// The settings of the file, with each flag given over it, spelled as flags in errors.
    pub(crate) fn settings(&self) -> Result<Settings, Failure> {
        let mut settings = match &self.settings_file {
            Some(path) => file::read(path)?,
            None => Settings::default(),
        };
        let set = &mut settings;
        set_some(&mut set.budget, self.budget);
        set_some(&mut set.encoding, self.encoding);
        set_some(&mut set.model, self.model.clone());
        set_some(&mut set.reserve_output, self.reserve_output);
        set_some(&mut set.prompt_tokens, self.prompt_tokens);
        set_some(&mut set.engine, self.engine);
        set_some(&mut set.tokenizer_file, self.tokenizer_file.clone());
        set_some(&mut set.tokenizer_kind, self.tokenizer_kind);
        set_some(&mut set.format, self.format);
        set_some(&mut set.dialect, self.dialect);
        set_some(&mut set.header, self.header.clone());
        if !self.hide_metadata_keys.is_empty() {
            set.hide_metadata_keys.clone_from(&self.hide_metadata_keys);
        }
        set_some(&mut set.max_head_tokens, self.max_head_tokens);
        set_some(&mut set.overflow, self.overflow);
        set_some(
            &mut set.duplicates,
            self.duplicates
                .or(self.keep_duplicates.then_some(Duplicates::Keep)),
        );
        set_some(&mut set.order, self.order);
        set_some(&mut set.min_score, self.min_score);
        set_some(&mut set.max_blocks, self.max_blocks);
        set_some(&mut set.max_per_source, self.max_per_source);
        set_some(&mut set.min_truncated_tokens, self.min_truncated_tokens);
        set_some(&mut set.cache_bytes, self.cache_bytes);
        set_some(&mut set.seal_key_file, self.seal_key_file.clone());
        set.cache_control |= self.cache_control;
        set.strict |= self.strict;
        Ok(settings.spelled(Spelling::Flag))
    }

    /// The settings for a context alone, with the command's default budget where nothing
    /// sets one, and the assembler they build.
    pub(crate) fn configure(&self) -> Result<Configured, Failure> {
        Configured::new(self.settings()?)
    }
}

impl Configured {
    /// `settings` for a context alone, with the command's default budget where nothing sets
    /// one, checked into their assembler.
    pub(crate) fn new(mut settings: Settings) -> Result<Configured, Failure> {
        if settings.budget.is_none()
            && settings.reserve_output.is_none()
            && settings.prompt_tokens.is_none()
        {
            settings.budget = Some(DEFAULT_BUDGET);
        }
        let assembler = settings.assembler().map_err(|err| Failure::library(&err))?;
        Ok(Configured {
            settings,
            assembler,
        })
    }
}

/// Sets `field` to `value` when the flag was given.
fn set_some<T>(field: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *field = value;
    }
}

/// Parses `--encoding`; a model's name is pointed to `--model`, the option that takes it.
fn parse_encoding(name: &str) -> Result<Encoding, String> {
    name.parse::<Encoding>().map_err(|err| match err {
        Error::ModelNamedAsEncoding { encoding, .. } => format!(
            "`{name}` is a model, not an encoding: use --model {name} (or --encoding {encoding})"
        ),
        other => other.to_string(),
    })
}

/// The `--order` parser: the orders listed with their help, then parsed by the library.
fn order_parser() -> impl TypedValueParser<Value = Order> {
    PossibleValuesParser::new([
        PossibleValue::new("score").help("Best score first"),
        PossibleValue::new("as-given").help("The order of the input (already reranked)"),
        PossibleValue::new("edges")
            .help("Best at the start and the end, weakest in the middle (lost in the middle)"),
    ])
    .try_map(|name| name.parse::<Order>())
}

/// The `--duplicates` parser: the modes listed with their help, then parsed by the library.
fn duplicates_parser() -> impl TypedValueParser<Value = Duplicates> {
    PossibleValuesParser::new([
        PossibleValue::new("url-and-content")
            .help("Same source URL and same content as a better-ranked result"),
        PossibleValue::new("content")
            .help("Same content, whatever the URL (mirrors, syndicated pages)"),
        PossibleValue::new("keep").help("Keep every result"),
    ])
    .try_map(|name| name.parse::<Duplicates>())
}

/// The `--overflow` parser: the policies listed with their help (so `--help` explains each
/// and a bad value gets clap's list of possible ones), then parsed by the library.
fn overflow_parser() -> impl TypedValueParser<Value = Overflow> {
    PossibleValuesParser::new([
        PossibleValue::new("truncate")
            .help("Cut its content to fill the budget, mark it truncated, and stop"),
        PossibleValue::new("stop").help("Leave it and every lower-ranked result out"),
        PossibleValue::new("skip").help("Leave it out and keep trying lower-ranked results"),
    ])
    .try_map(|name| name.parse::<Overflow>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_is_a_library_name() {
        for (parser, all) in [
            (
                overflow_parser()
                    .possible_values()
                    .unwrap()
                    .collect::<Vec<_>>(),
                Overflow::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            ),
            (
                order_parser().possible_values().unwrap().collect(),
                Order::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>(),
            ),
            (
                duplicates_parser().possible_values().unwrap().collect(),
                Duplicates::ALL
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>(),
            ),
        ] {
            let listed: Vec<&str> = parser.iter().map(PossibleValue::get_name).collect();
            assert_eq!(listed, all);
        }
    }
}
