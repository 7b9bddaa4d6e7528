//! Unicode classes of the text people write (display names, chat): what draws nothing, and what
//! reorders the text around it. One definition for every entry point, so a name and a chat line
//! are judged by the same table.

/// Bidirectional embeddings and overrides (U+202A to U+202E) and isolates (U+2066 to U+2069): they
/// reverse or reorder the text shown after them (a seat list, the next chat line).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The bidirectional marks: left-to-right (U+200E), right-to-left (U+200F) and the Arabic letter
/// mark (U+061C). Invisible, and they change how the neutral characters beside them are ordered.
pub fn is_bidi_mark(c: char) -> bool {
    matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters that draw nothing: blanks, zero-width spaces and joiners, direction marks, the word
/// joiner and invisible operators, the byte-order mark, the soft hyphen, Hangul fillers and the
/// blank Braille pattern. Fine inside text (an emoji sequence is joined by U+200D; Khmer marks
/// word breaks with U+200B), not alone.
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FEFF}'
                | '\u{FFA0}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_and_controls_are_invisible_but_only_overrides_and_isolates_are_controls() {
        for c in ['\u{200E}', '\u{200F}', '\u{061C}'] {
            assert!(
                is_bidi_mark(c) && is_invisible(c) && !is_bidi_control(c),
                "{c:?}"
            );
        }
        for c in ['\u{202A}', '\u{202E}', '\u{2066}', '\u{2069}'] {
            assert!(is_bidi_control(c) && !is_bidi_mark(c), "{c:?}");
        }
        assert!(is_invisible('\u{200D}') && !is_bidi_mark('\u{200D}'));
        assert!(!is_invisible('a') && !is_invisible('ក'));
    }
}
