//! The two interface languages: Chinese (the spec's own) and English.

use serde::{Deserialize, Serialize};

/// A user-facing language for console lines, notes and reasons.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Simplified Chinese, as in spec 002's console example.
    #[default]
    Zh,
    /// English.
    En,
}

impl Lang {
    /// Parses `zh` / `en` (also `zh-CN`, `en-US`, case-insensitive); anything else is `None`.
    pub fn parse(s: &str) -> Option<Lang> {
        let lower = s.trim().to_ascii_lowercase();
        if lower == "zh" || lower.starts_with("zh-") {
            Some(Lang::Zh)
        } else if lower == "en" || lower.starts_with("en-") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The short code, `zh` or `en`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }

    /// Picks the Chinese or English text.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Zh => zh,
            Lang::En => en,
        }
    }
}

/// A text in both languages, for names a core item declares once and both
/// shells show (a kind's title, what its unit is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// Chinese.
    pub zh: &'static str,
    /// English.
    pub en: &'static str,
}

impl Words {
    /// The text in `lang`.
    pub fn get(self, lang: Lang) -> &'static str {
        lang.pick(self.zh, self.en)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_codes() {
        assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::parse("EN"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
    }
}
