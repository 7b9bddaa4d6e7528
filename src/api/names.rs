//! Display names, checked at the API boundary: one function for every way a name comes in (a
//! create or join body, a spectator's `hello`), so a room never holds a name another entry point
//! would have refused.
//!
//! A name is refused rather than silently changed, so its owner sees why: the name people see is
//! the one they typed, trimmed.

use crate::text::{is_bidi_override, is_invisible, without_ignorables};

/// The longest display name, in characters (Unicode scalar values, not bytes).
pub const MAX_NAME_CHARS: usize = 32;

/// Why a name was refused; its text is the message sent to the client.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Over [`MAX_NAME_CHARS`] characters once trimmed.
    #[error("a name is at most {MAX_NAME_CHARS} characters")]
    TooLong,
    /// Only blanks and invisible characters (zero-width spaces, joiners, ...).
    #[error("a name needs at least one visible character")]
    Invisible,
    /// A control character, or a bidirectional override or isolate, which could reverse the text
    /// shown after the name (a seat list, a chat line).
    #[error("a name cannot hold the character U+{code:04X}", code = *.0 as u32)]
    Forbidden(char),
}

/// A display name as the room keeps it: `None` stays `None` (no name); anything else must hold no
/// control character and no bidirectional override or isolate, loses its default-ignorable
/// characters (zero-width ones, direction marks, variation selectors, ...: they draw nothing, so
/// the name people see is still the one typed), is trimmed, and must then be 1 to
/// [`MAX_NAME_CHARS`] characters with a visible one.
pub fn clean_name(name: Option<String>) -> Result<Option<String>, NameError> {
    let Some(name) = name else { return Ok(None) };
    if let Some(c) = name
        .chars()
        .find(|&c| c.is_control() || is_bidi_override(c))
    {
        return Err(NameError::Forbidden(c));
    }
    let name = without_ignorables(&name);
    let name = name.trim();
    if name.chars().all(is_invisible) {
        return Err(NameError::Invisible);
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(NameError::TooLong);
    }
    Ok(Some(name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(name: &str) -> Result<Option<String>, NameError> {
        clean_name(Some(name.to_owned()))
    }

    #[test]
    fn names_are_trimmed_and_kept_as_typed() {
        assert_eq!(clean_name(None), Ok(None));
        assert_eq!(clean(" Sok\u{3000}"), Ok(Some("Sok".into())));
        assert_eq!(clean("ដារ៉ា"), Ok(Some("ដារ៉ា".into())));
        // Default-ignorable characters draw nothing: they go, the name people see stays.
        assert_eq!(clean("👩\u{200D}👧"), Ok(Some("👩👧".into())));
        assert_eq!(
            clean("\u{200F}Da\u{E0041}ra\u{FE0F}"),
            Ok(Some("Dara".into()))
        );
        assert_eq!(clean(&"ញ".repeat(32)), Ok(Some("ញ".repeat(32))));
    }

    #[test]
    fn overrides_isolates_and_controls_are_refused_wherever_they_are() {
        for c in [
            '\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}', '\n', '\u{7}', '\u{9B}',
        ] {
            assert_eq!(clean(&format!("Da{c}ra")), Err(NameError::Forbidden(c)));
            assert_eq!(clean(&format!("Dara{c}")), Err(NameError::Forbidden(c)));
        }
        assert_eq!(
            clean("\u{202E}\u{200F}"),
            Err(NameError::Forbidden('\u{202E}'))
        );
        assert_eq!(
            NameError::Forbidden('\u{202E}').to_string(),
            "a name cannot hold the character U+202E"
        );
    }

    #[test]
    fn blank_and_invisible_names_are_refused() {
        for name in [
            "",
            "   ",
            "\u{200B}",
            "\u{200B}\u{200D}\u{FEFF}",
            " \u{2060} ",
            "\u{3164}",
            "\u{200F}\u{200E}",
            "\u{E0041}\u{17B4}\u{1BCA0}",
        ] {
            assert_eq!(clean(name), Err(NameError::Invisible), "{name:?}");
        }
    }

    #[test]
    fn length_counts_characters_not_bytes() {
        assert_eq!(clean(&"ញ".repeat(33)), Err(NameError::TooLong));
        assert_eq!(
            clean(&format!("  {}  ", "a".repeat(32))),
            Ok(Some("a".repeat(32)))
        );
    }
}
