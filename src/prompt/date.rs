//! The conversation's date: what `strftime_now` gives a chat template and what Harmony writes
//! as "Current date". Pinned by the caller so that the same conversation renders the same
//! bytes on any day (and a prompt cache keeps hitting); today's date in UTC otherwise.

use std::fmt;
use std::str::FromStr;

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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConversationDate {
    year: i32,
    month: u8,
    day: u8,
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl ConversationDate {
    /// The date `year`-`month`-`day`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidDate`] when the day does not exist or the year is outside 1..=9999.
    pub fn new(year: i32, month: u8, day: u8) -> Result<ConversationDate, Error> {
        let valid = (1..=9999).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month);
        if !valid {
            return Err(Error::InvalidDate {
                date: format!("{year:04}-{month:02}-{day:02}"),
            });
        }
        Ok(ConversationDate { year, month, day })
    }

    /// Today, in UTC, by the system clock.
    #[must_use]
    pub fn today() -> ConversationDate {
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let days = i64::try_from(seconds / 86_400).unwrap_or(0);
        let (year, month, day) = civil_from_days(days);
        ConversationDate { year, month, day }
    }

    /// The day of the week, Monday = 0.
    fn weekday(self) -> usize {
        let days = days_from_civil(self.year, self.month, self.day);
        // 1970-01-01 was a Thursday (3).
        usize::try_from((days + 3).rem_euclid(7)).unwrap_or(0)
    }

    /// The day of the year, 1-based.
    fn ordinal(self) -> i64 {
        days_from_civil(self.year, self.month, self.day) - days_from_civil(self.year, 1, 1) + 1
    }

    /// Formats the date as C's `strftime` does in the C locale, at midnight: `%Y %m %d %y %B
    /// %b %h %A %a %j %e %F %D %u %w` and `%H %I %M %S %p` (midnight), `%%`. Any other
    /// directive is written as it is, as glibc does.
    #[must_use]
    pub fn strftime(self, format: &str) -> String {
        let mut out = String::new();
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            let Some(directive) = chars.next() else {
                out.push('%');
                break;
            };
            let month = MONTHS[usize::from(self.month - 1)];
            let weekday = WEEKDAYS[self.weekday()];
            match directive {
                'Y' => out.push_str(&self.year.to_string()),
                'y' => out.push_str(&format!("{:02}", self.year % 100)),
                'm' => out.push_str(&format!("{:02}", self.month)),
                'd' => out.push_str(&format!("{:02}", self.day)),
                'e' => out.push_str(&format!("{:>2}", self.day)),
                'B' => out.push_str(month),
                'b' | 'h' => out.push_str(&month[..3]),
                'A' => out.push_str(weekday),
                'a' => out.push_str(&weekday[..3]),
                'j' => out.push_str(&format!("{:03}", self.ordinal())),
                'u' => out.push_str(&(self.weekday() + 1).to_string()),
                'w' => out.push_str(&((self.weekday() + 1) % 7).to_string()),
                'F' => out.push_str(&self.to_string()),
                'D' => out.push_str(&format!(
                    "{:02}/{:02}/{:02}",
                    self.month,
                    self.day,
                    self.year % 100
                )),
                'H' | 'M' | 'S' => out.push_str("00"),
                'I' => out.push_str("12"),
                'p' => out.push_str("AM"),
                '%' => out.push('%'),
                other => {
                    out.push('%');
                    out.push(other);
                }
            }
        }
        out
    }
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i32, month: u8, day: u8) -> i64 {
    let y = i64::from(year) - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i32, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        i32::try_from(year).unwrap_or(1970),
        u8::try_from(month).unwrap_or(1),
        u8::try_from(day).unwrap_or(1),
    )
}

impl fmt::Display for ConversationDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
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

    #[test]
    fn days_round_trip_and_weekdays_are_right() {
        for days in [-719_468, -1, 0, 1, 10_957, 20_789, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        let date: ConversationDate = "2024-02-29".parse().unwrap();
        assert_eq!(
            date.strftime("%a %j %u %w %e %D %%"),
            "Thu 060 4 4 29 02/29/24 %"
        );
        assert_eq!(
            "2000-01-01"
                .parse::<ConversationDate>()
                .unwrap()
                .strftime("%A"),
            "Saturday"
        );
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
        ] {
            assert!(bad.parse::<ConversationDate>().is_err(), "{bad}");
        }
    }
}
