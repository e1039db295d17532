//! Parsing flag values: counts that say what is wrong with them, and any parser made to name
//! its flag when a value is not UTF-8.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use mentor_context::machinery::{MAX_WORKERS_PER_CORE, max_workers};

use crate::output::escape_os;

/// `parser`, refusing a value that is not UTF-8 by naming the option: clap's own check says
/// only that some argument was not. File names are `PathBuf`s and need no such check.
#[derive(Clone)]
pub(crate) struct Utf8<P>(P);

pub(crate) fn utf8<P: TypedValueParser>(parser: P) -> Utf8<P> {
    Utf8(parser)
}

impl<P: TypedValueParser> TypedValueParser for Utf8<P> {
    type Value = P::Value;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<P::Value, clap::Error> {
        if value.to_str().is_none() {
            let arg = arg.map_or_else(|| "an argument".to_string(), |arg| format!("'{arg}'"));
            let message = format!(
                "invalid value '{}' for {arg}: not valid UTF-8\n",
                escape_os(value)
            );
            return Err(clap::Error::raw(ErrorKind::InvalidUtf8, message).with_cmd(cmd));
        }
        self.0.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        self.0.possible_values()
    }
}

/// Parses a count of tokens or blocks. Clap's own parser would call `-5` an "invalid digit";
/// this says what is wrong with it, in the words the settings of the other front ends use.
pub(crate) fn parse_count(value: &str) -> Result<usize, String> {
    value.parse().map_err(|_| {
        if value.starts_with('-') {
            "negative; expected a whole number, 0 or more".to_string()
        } else if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
            format!("too large; at most {}", usize::MAX)
        } else {
            "expected a whole number, 0 or more".to_string()
        }
    })
}

/// Parses `batch --jobs`: a count of threads, at least one and at most
/// [`max_workers`] (8 per core): more than that only wait, each with a stack.
pub(crate) fn parse_jobs(value: &str) -> Result<usize, String> {
    let max = max_workers();
    match parse_count(value) {
        Ok(0) => Err("expected at least 1".to_string()),
        Ok(n) if n <= max => Ok(n),
        Ok(_) | Err(_) if !value.starts_with('-') && value.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!(
                "too many; at most {max} here ({MAX_WORKERS_PER_CORE} per core)"
            ))
        }
        other => other,
    }
}

/// The most timed runs `bench` takes: each keeps its time (8 bytes), and a million runs of
/// even the smallest request already take seconds.
pub(crate) const MAX_BENCH_ITERATIONS: usize = 1_000_000;

/// Parses `bench --iterations`: a count, but zero runs would have no median to report, and
/// the times of all runs are kept.
pub(crate) fn parse_iterations(value: &str) -> Result<usize, String> {
    match parse_count(value) {
        Ok(0) => Err("expected at least 1".to_string()),
        Ok(n) if n <= MAX_BENCH_ITERATIONS => Ok(n),
        Ok(_) | Err(_) if !value.starts_with('-') && value.bytes().all(|b| b.is_ascii_digit()) => {
            Err(format!("too many; at most {MAX_BENCH_ITERATIONS}"))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_say_what_is_wrong() {
        assert_eq!(parse_count("12"), Ok(12));
        assert!(parse_count("-5").unwrap_err().starts_with("negative"));
        assert_eq!(
            parse_count("99999999999999999999999"),
            Err(format!("too large; at most {}", usize::MAX))
        );
        assert_eq!(parse_count(&usize::MAX.to_string()), Ok(usize::MAX));
        assert!(parse_count("").unwrap_err().contains("whole number"));
        assert!(parse_iterations("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_iterations("1000000"), Ok(MAX_BENCH_ITERATIONS));
        for too_many in [
            "1000001",
            "100000000000",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            assert_eq!(
                parse_iterations(too_many).unwrap_err(),
                "too many; at most 1000000",
                "{too_many}"
            );
        }
        assert!(parse_iterations("-1").unwrap_err().contains("negative"));
        assert!(parse_jobs("0").unwrap_err().contains("at least 1"));
        assert_eq!(parse_jobs("4"), Ok(4));
        let max = max_workers();
        assert_eq!(parse_jobs(&max.to_string()), Ok(max));
        let over = (max + 1).to_string();
        for too_many in [
            over.as_str(),
            "4294967296",
            "18446744073709551615",
            "99999999999999999999",
        ] {
            assert_eq!(
                parse_jobs(too_many).unwrap_err(),
                format!("too many; at most {max} here (8 per core)")
            );
        }
    }
}
