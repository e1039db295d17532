//! The conversation's date: what `strftime_now` gives a chat template and what Harmony writes
//! as "Current date". Pinned by the caller so that the same conversation renders the same
//! bytes on any day (and a prompt cache keeps hitting); today's date in UTC otherwise.

use std::fmt;
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

use jiff::civil::{Date, Time};
use jiff::fmt::strtime;
use jiff::tz::Offset;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;

/// A calendar date (proleptic Gregorian), written `YYYY-MM-DD`.
///
/// ```
/// use mentor_context::prompt::ConversationDate;
///
/// let date: ConversationDate = "2026-12-02".parse()?;
/// assert_eq!(date.strftime("%A %d %b %Y"), "Wednesday 02 Dec 2026");
/// assert_eq!(date.to_string(), "2026-12-02");
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConversationDate {
    /// Always in years 1 to 9999.
    date: Date,
}

/// The directives [`ConversationDate::strftime`] writes, each as jiff is asked for it: `%Y`
/// unpadded, as C writes it; every other as it is.
const DIRECTIVES: &[(char, &str)] = &[
    ('Y', "%-Y"),
    ('y', "%y"),
    ('m', "%m"),
    ('d', "%d"),
    ('e', "%e"),
    ('B', "%B"),
    ('b', "%b"),
    ('h', "%h"),
    ('A', "%A"),
    ('a', "%a"),
    ('j', "%j"),
    ('u', "%u"),
    ('w', "%w"),
    ('F', "%F"),
    ('D', "%D"),
    ('H', "%H"),
    ('I', "%I"),
    ('M', "%M"),
    ('S', "%S"),
    ('p', "%p"),
    ('%', "%%"),
];

impl ConversationDate {
    /// The date `year`-`month`-`day`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidDate`] when the day does not exist or the year is outside 1..=9999.
    pub fn new(year: i32, month: u8, day: u8) -> Result<ConversationDate, Error> {
        let invalid = || Error::InvalidDate {
            date: format!("{year:04}-{month:02}-{day:02}"),
        };
        if !(1..=9999).contains(&year) {
            return Err(invalid());
        }
        let (Ok(y), Ok(m), Ok(d)) = (i16::try_from(year), i8::try_from(month), i8::try_from(day))
        else {
            return Err(invalid());
        };
        Date::new(y, m, d)
            .map(|date| ConversationDate { date })
            .map_err(|_| invalid())
    }

    /// Today, in UTC, by the system clock (1970-01-01 for a clock set before it).
    #[must_use]
    pub fn today() -> ConversationDate {
        let now = SystemTime::now().max(UNIX_EPOCH);
        // A clock past what jiff holds (the year 9999) keeps the last day it holds.
        let date = jiff::Timestamp::try_from(now)
            .map_or(Date::MAX, |now| Offset::UTC.to_datetime(now).date());
        ConversationDate { date }
    }

    /// Formats the date as C's `strftime` does in the C locale, at midnight: `%Y %m %d %y %B
    /// %b %h %A %a %j %e %F %D %u %w` and `%H %I %M %S %p` (midnight), `%%`. Any other
    /// directive is written as it is, as glibc does with one it does not know (jiff would
    /// refuse it, or write it as a directive this one does not offer).
    #[must_use]
    pub fn strftime(self, format: &str) -> String {
        let mut asked = String::with_capacity(format.len());
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                asked.push(c);
                continue;
            }
            let Some(directive) = chars.next() else {
                asked.push_str("%%");
                break;
            };
            match DIRECTIVES.iter().find(|&&(known, _)| known == directive) {
                Some((_, jiff)) => asked.push_str(jiff),
                None => {
                    asked.push_str("%%");
                    asked.push(directive);
                }
            }
        }
        let midnight = self.date.to_datetime(Time::midnight());
        // Every directive asked is one jiff writes for any date in years 1 to 9999.
        strtime::format(asked.as_bytes(), midnight).unwrap_or_default()
    }
}

impl fmt::Debug for ConversationDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConversationDate")
            .field("year", &self.date.year())
            .field("month", &self.date.month())
            .field("day", &self.date.day())
            .finish()
    }
}

impl fmt::Display for ConversationDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02}",
            self.date.year(),
            self.date.month(),
            self.date.day()
        )
    }
}

impl FromStr for ConversationDate {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || Error::InvalidDate {
            date: s.to_string(),
        };
        let bytes = s.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(invalid());
        }
        let number = |range: std::ops::Range<usize>| -> Result<u32, Error> {
            let part = &s[range];
            if part.bytes().all(|b| b.is_ascii_digit()) {
                part.parse().map_err(|_| invalid())
            } else {
                Err(invalid())
            }
        };
        let year = i32::try_from(number(0..4)?).map_err(|_| invalid())?;
        let month = u8::try_from(number(5..7)?).map_err(|_| invalid())?;
        let day = u8::try_from(number(8..10)?).map_err(|_| invalid())?;
        ConversationDate::new(year, month, day).map_err(|_| invalid())
    }
}

impl Serialize for ConversationDate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ConversationDate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse()
            .map_err(|err: Error| <D::Error as serde::de::Error>::custom(err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The formats of the table below, one column each.
    const FORMATS: [&str; 22] = [
        "%Y",
        "%y",
        "%m",
        "%d",
        "%e",
        "%B",
        "%b",
        "%h",
        "%A",
        "%a",
        "%j",
        "%u",
        "%w",
        "%F",
        "%D",
        "%H:%M:%S",
        "%I %p",
        "%%",
        "%d %b %Y",
        "%B %d, %Y",
        "%Y-%m-%d",
        "%A, %B %d, %Y",
    ];

    /// What Python writes, `datetime.datetime(y, m, d).strftime(format)` (Python 3.11 on
    /// glibc, the venv's), as transformers' `strftime_now` and `tests/reference/
    /// whole_prompt.py` call it: a Sunday, a leap day, the ends of `%y`'s century, the
    /// first and last years.
    #[rustfmt::skip]
    const PYTHON: [(&str, [&str; 22]); 10] = [
        ("2026-12-02", ["2026", "26", "12", "02", " 2", "December", "Dec", "Dec", "Wednesday", "Wed", "336", "3", "3", "2026-12-02", "12/02/26", "00:00:00", "12 AM", "%", "02 Dec 2026", "December 02, 2026", "2026-12-02", "Wednesday, December 02, 2026"]),
        ("2026-12-06", ["2026", "26", "12", "06", " 6", "December", "Dec", "Dec", "Sunday", "Sun", "340", "7", "0", "2026-12-06", "12/06/26", "00:00:00", "12 AM", "%", "06 Dec 2026", "December 06, 2026", "2026-12-06", "Sunday, December 06, 2026"]),
        ("2024-02-29", ["2024", "24", "02", "29", "29", "February", "Feb", "Feb", "Thursday", "Thu", "060", "4", "4", "2024-02-29", "02/29/24", "00:00:00", "12 AM", "%", "29 Feb 2024", "February 29, 2024", "2024-02-29", "Thursday, February 29, 2024"]),
        ("1900-01-01", ["1900", "00", "01", "01", " 1", "January", "Jan", "Jan", "Monday", "Mon", "001", "1", "1", "1900-01-01", "01/01/00", "00:00:00", "12 AM", "%", "01 Jan 1900", "January 01, 1900", "1900-01-01", "Monday, January 01, 1900"]),
        ("2000-01-01", ["2000", "00", "01", "01", " 1", "January", "Jan", "Jan", "Saturday", "Sat", "001", "6", "6", "2000-01-01", "01/01/00", "00:00:00", "12 AM", "%", "01 Jan 2000", "January 01, 2000", "2000-01-01", "Saturday, January 01, 2000"]),
        ("1969-12-31", ["1969", "69", "12", "31", "31", "December", "Dec", "Dec", "Wednesday", "Wed", "365", "3", "3", "1969-12-31", "12/31/69", "00:00:00", "12 AM", "%", "31 Dec 1969", "December 31, 1969", "1969-12-31", "Wednesday, December 31, 1969"]),
        ("2069-07-04", ["2069", "69", "07", "04", " 4", "July", "Jul", "Jul", "Thursday", "Thu", "185", "4", "4", "2069-07-04", "07/04/69", "00:00:00", "12 AM", "%", "04 Jul 2069", "July 04, 2069", "2069-07-04", "Thursday, July 04, 2069"]),
        ("9999-12-31", ["9999", "99", "12", "31", "31", "December", "Dec", "Dec", "Friday", "Fri", "365", "5", "5", "9999-12-31", "12/31/99", "00:00:00", "12 AM", "%", "31 Dec 9999", "December 31, 9999", "9999-12-31", "Friday, December 31, 9999"]),
        ("1000-03-01", ["1000", "00", "03", "01", " 1", "March", "Mar", "Mar", "Saturday", "Sat", "060", "6", "6", "1000-03-01", "03/01/00", "00:00:00", "12 AM", "%", "01 Mar 1000", "March 01, 1000", "1000-03-01", "Saturday, March 01, 1000"]),
        // Before the year 1000, `%F` is the date as `Display` writes it (`0005-03-09`),
        // where glibc writes `5-03-09`: the one column set apart below.
        ("0005-03-09", ["5", "05", "03", "09", " 9", "March", "Mar", "Mar", "Wednesday", "Wed", "068", "3", "3", "0005-03-09", "03/09/05", "00:00:00", "12 AM", "%", "09 Mar 5", "March 09, 5", "5-03-09", "Wednesday, March 09, 5"]),
    ];

    #[test]
    fn strftime_writes_what_python_writes() {
        for (date, expected) in PYTHON {
            let date: ConversationDate = date.parse().unwrap();
            for (format, expected) in FORMATS.iter().zip(expected) {
                assert_eq!(date.strftime(format), expected, "{date} {format}");
            }
        }
    }

    /// A pinned date is its midnight, as transformers' reference pins it.
    #[test]
    fn a_pinned_date_is_at_midnight() {
        let date: ConversationDate = "2026-12-02".parse().unwrap();
        assert_eq!(date.strftime("%H:%M:%S %I %p"), "00:00:00 12 AM");
    }

    /// A directive outside the list is written as given, flags and widths too (glibc's
    /// way with one it does not know; jiff refuses `%E` and would write `%C`, `%T`, `%-d`
    /// and `%Q`), and so is a `%` that ends the format.
    #[test]
    fn other_directives_are_written_as_given() {
        let date: ConversationDate = "2026-12-02".parse().unwrap();
        assert_eq!(
            date.strftime("%Q %-d %C %T %E %5d %:z %.f a%"),
            "%Q %-d %C %T %E %5d %:z %.f a%"
        );
        assert_eq!(date.strftime("%%d"), "%d");
        assert_eq!(date.strftime("%"), "%");
        assert_eq!(date.strftime("é%dé"), "é02é");
    }

    /// Every directive writes something for every day of the years at the edges of what
    /// each one writes (jiff's `%y` is documented for 1969 to 2068 only): none is lost.
    #[test]
    fn every_directive_writes_every_day() {
        let all: String = DIRECTIVES.iter().map(|&(c, _)| format!("%{c}|")).collect();
        for year in [
            1, 4, 99, 100, 999, 1000, 1900, 1968, 1969, 2068, 2069, 2100, 9999,
        ] {
            let mut day = Date::new(year, 1, 1).unwrap();
            while day.year() == year {
                let date = ConversationDate { date: day };
                let written = date.strftime(&all);
                assert_eq!(written.matches('|').count(), DIRECTIVES.len(), "{date}");
                assert!(
                    written
                        .split('|')
                        .take(DIRECTIVES.len())
                        .all(|part| !part.is_empty()),
                    "{date}: {written}"
                );
                let Ok(next) = day.tomorrow() else { break };
                day = next;
            }
        }
    }

    #[test]
    fn today_is_a_date_in_utc() {
        let before = jiff::Timestamp::now();
        let today = ConversationDate::today();
        let after = jiff::Timestamp::now();
        let dates = [before, after].map(|at| Offset::UTC.to_datetime(at).date());
        assert!(dates.contains(&today.date), "{today}");
    }

    #[test]
    fn impossible_dates_are_refused() {
        for bad in [
            "2023-02-29",
            "2026-13-01",
            "2026-00-10",
            "0000-01-01",
            "2026-1-01",
            "2026-01-01x",
            "２０２６-01-01",
            "+2026-01-01",
            "20260101",
            "2026-02-30",
        ] {
            assert!(bad.parse::<ConversationDate>().is_err(), "{bad}");
        }
        for (year, month, day) in [
            (0, 1, 1),
            (10_000, 1, 1),
            (2026, 4, 31),
            (2026, 0, 1),
            (2026, 1, 0),
        ] {
            assert!(
                ConversationDate::new(year, month, day).is_err(),
                "{year}-{month}-{day}"
            );
        }
        assert_eq!(
            ConversationDate::new(2024, 2, 29).unwrap().to_string(),
            "2024-02-29"
        );
        assert_eq!(
            format!("{:?}", ConversationDate::new(2024, 2, 29).unwrap()),
            "ConversationDate { year: 2024, month: 2, day: 29 }"
        );
    }
}
