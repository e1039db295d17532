//! The service's configuration: `[server]` limits and `[profiles.NAME]` settings, each
//! profile the library's `Settings` under their one name, checked into its assembler once at
//! start. Without `--config`, the command line's settings make one profile, `default`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mentor_context::Assembler;
use mentor_context::prompt::PromptAssembler;
use mentor_context::settings::{Settings, Spelling};
use serde::Deserialize;

use crate::output::{Failure, escape_os};

/// What one profile fits: a context to a budget, or a whole prompt to a window.
pub(crate) enum Fitting {
    Context(Assembler),
    Prompt(PromptAssembler),
}

/// A profile, checked.
pub(crate) struct Profile {
    pub(crate) settings: Settings,
    pub(crate) fitting: Fitting,
}

impl Profile {
    /// `settings` checked into their assembler: a whole prompt's when they name a window or
    /// a chat template, else a context's (with the command's default budget where nothing
    /// sets one).
    pub(crate) fn new(settings: Settings) -> Result<Profile, mentor_context::Error> {
        let fitting = if settings.is_whole_prompt() {
            Fitting::Prompt(settings.prompt_assembler()?)
        } else {
            Fitting::Context(settings.assembler()?)
        };
        Ok(Profile { settings, fitting })
    }
}

/// The limits of the service.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The most bytes a request body may have.
    pub(crate) body_bytes: usize,
    /// The most requests in flight; one more is answered 503 at once.
    pub(crate) concurrency: usize,
    /// How long a request may take before it is answered 503.
    pub(crate) timeout: Duration,
    /// How long a connection may take to send a whole request head before it is closed.
    pub(crate) header_timeout: Duration,
}

impl Limits {
    /// How long a stop waits for the connections in flight: a request's head, then its work.
    pub(crate) fn drain(&self) -> Duration {
        self.header_timeout.saturating_add(self.timeout)
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            body_bytes: 16 << 20,
            concurrency: 256,
            timeout: Duration::from_secs(10),
            header_timeout: Duration::from_secs(10),
        }
    }
}

/// The service's configuration: where it listens, its limits, its profiles by name.
pub(crate) struct Config {
    pub(crate) listen: Option<String>,
    pub(crate) limits: Limits,
    pub(crate) profiles: BTreeMap<String, Profile>,
}

/// `[server]` of a configuration file.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ServerSection {
    listen: Option<String>,
    body_limit: Option<usize>,
    concurrency: Option<usize>,
    timeout_seconds: Option<f64>,
    header_timeout_seconds: Option<f64>,
}

/// A configuration file: `[server]` and `[profiles.NAME]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    server: ServerSection,
    profiles: BTreeMap<String, toml::Value>,
}

impl Config {
    /// The configuration in the TOML file at `path`; every profile checked.
    pub(crate) fn read(path: &Path) -> Result<Config, Failure> {
        let name = escape_os(path.as_os_str());
        let fail = |problem: String| Failure::bad_input(format!("{name}: {problem}"));
        let bytes = mentor_context::machinery::read_file(
            path,
            crate::options::MAX_SETTINGS_BYTES,
            "a service's configuration",
        )
        .map_err(|err| fail(format!("cannot read: {}", crate::input::io_problem(&err))))?;
        let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8".to_string()))?;
        let file: File = toml::from_str(&text)
            .map_err(|err| fail(crate::options::one_line_toml(&err, &text)))?;
        if file.profiles.is_empty() {
            return Err(fail(
                "no [profiles.NAME] table: a service needs at least one".to_string(),
            ));
        }
        let server = file.server;
        let mut limits = Limits::default();
        if let Some(bytes) = server.body_limit {
            limits.body_bytes = bytes;
        }
        if let Some(concurrency) = server.concurrency {
            if concurrency == 0 {
                return Err(fail("server.concurrency: expected at least 1".to_string()));
            }
            limits.concurrency = concurrency;
        }
        let duration = |key: &str, seconds: f64| {
            Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|timeout| !timeout.is_zero())
                .ok_or_else(|| {
                    fail(format!(
                        "server.{key}: {seconds}; expected a number above 0"
                    ))
                })
        };
        if let Some(seconds) = server.timeout_seconds {
            limits.timeout = duration("timeout_seconds", seconds)?;
        }
        if let Some(seconds) = server.header_timeout_seconds {
            limits.header_timeout = duration("header_timeout_seconds", seconds)?;
        }
        let mut profiles = BTreeMap::new();
        for (profile, value) in file.profiles {
            let at = |err: &mentor_context::Error| {
                Failure::library(err).at(&format!("{name}: profiles.{profile}"))
            };
            check_name(&profile)
                .map_err(|problem| fail(format!("profiles.{profile}: {problem}")))?;
            let settings =
                Settings::deserialize_spelled(value, Spelling::Snake).map_err(|err| at(&err))?;
            let checked = Profile::new(with_default_budget(settings)).map_err(|err| at(&err))?;
            profiles.insert(profile, checked);
        }
        Ok(Config {
            listen: server.listen,
            limits,
            profiles,
        })
    }

    /// One profile, `default`, of the command line's settings.
    pub(crate) fn of_settings(settings: Settings) -> Result<Config, Failure> {
        let profile =
            Profile::new(with_default_budget(settings)).map_err(|err| Failure::library(&err))?;
        Ok(Config {
            listen: None,
            limits: Limits::default(),
            profiles: BTreeMap::from([("default".to_string(), profile)]),
        })
    }
}

/// A context profile without a budget (or a model window) takes the command's default.
fn with_default_budget(mut settings: Settings) -> Settings {
    if !settings.is_whole_prompt()
        && settings.budget.is_none()
        && settings.reserve_output.is_none()
        && settings.prompt_tokens.is_none()
    {
        settings.budget = Some(crate::options::DEFAULT_BUDGET);
    }
    settings
}

/// A profile's name stands in a URL's path: letters, digits, `-` and `_` only.
fn check_name(name: &str) -> Result<(), String> {
    if !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Ok(())
    } else {
        Err("a profile's name is letters, digits, `-` and `_` (it stands in the URL)".to_string())
    }
}
