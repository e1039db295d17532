//! [`Spelling`]: how a front end spells a setting's one name.

use super::read::field_names;

/// How a caller spells the settings' names. Each setting has one name, `max_blocks`, and one
/// spelling of it per kind of caller; nothing else is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Spelling {
    /// `max_blocks`: Rust, Python's keyword arguments, settings files (JSON, TOML).
    #[default]
    Snake,
    /// `--max-blocks`: the command line.
    Flag,
    /// `maxBlocks`: JavaScript.
    Camel,
}

impl Spelling {
    /// `setting` (as [`Spelling::Snake`] spells it) as this spelling writes it.
    ///
    /// ```
    /// use mentor_context::settings::Spelling;
    ///
    /// assert_eq!(Spelling::Flag.of("max_blocks"), "--max-blocks");
    /// assert_eq!(Spelling::Camel.of("max_blocks"), "maxBlocks");
    /// assert_eq!(Spelling::Snake.of("max_blocks"), "max_blocks");
    /// ```
    #[must_use]
    pub fn of(self, setting: &str) -> String {
        match self {
            Spelling::Snake => setting.to_string(),
            Spelling::Flag => format!("--{}", setting.replace('_', "-")),
            Spelling::Camel => {
                let mut camel = String::with_capacity(setting.len());
                let mut upper = false;
                for c in setting.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        camel.push(c.to_ascii_uppercase());
                        upper = false;
                    } else {
                        camel.push(c);
                    }
                }
                camel
            }
        }
    }

    /// The setting `given` names, as [`Spelling::Snake`] spells it, if it is one spelled this
    /// way: another front end's spelling is not read (`maxBlocks` is not a Python keyword).
    #[must_use]
    pub fn setting(self, given: &str) -> Option<&'static str> {
        field_names()
            .iter()
            .copied()
            .find(|&name| self.of(name) == given)
    }

    /// Every setting's name in this spelling, in [`Settings::names`](super::Settings::names)'
    /// order.
    #[must_use]
    pub fn names(self) -> Vec<String> {
        field_names().iter().map(|name| self.of(name)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_spelling_reads_back_what_it_writes_and_nothing_else() {
        for &name in field_names() {
            for spelling in [Spelling::Snake, Spelling::Flag, Spelling::Camel] {
                assert_eq!(spelling.setting(&spelling.of(name)), Some(name));
            }
            if name.contains('_') {
                assert_eq!(Spelling::Camel.setting(name), None, "{name}");
                assert_eq!(Spelling::Snake.setting(&Spelling::Camel.of(name)), None);
            }
        }
        assert_eq!(Spelling::Flag.setting("max_blocks"), None);
    }
}
