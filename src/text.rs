//! Unicode classes of the text people write (display names, chat): what draws nothing, and what
//! reorders the text around it. One definition for every entry point, so a name and a chat line
//! are judged by the same table. The tables are Unicode's own, as ICU4X compiles them
//! (`icu_properties`, the Unicode version of its release): DerivedCoreProperties.txt's
//! Default_Ignorable_Code_Point and PropList.txt's Bidi_Control.

use icu_properties::CodePointSetData;
use icu_properties::props::DefaultIgnorableCodePoint;

/// Unicode's Default_Ignorable_Code_Point: characters a renderer draws as nothing when it does
/// not support them, and that most never draw: the soft hyphen U+00AD, U+034F, U+061C, the Hangul
/// fillers (U+115F, U+1160, U+3164, U+FFA0), U+17B4-17B5, the Mongolian selectors U+180B-180F,
/// zero-width spaces, joiners and direction marks U+200B-200F, the embeddings and overrides
/// U+202A-202E, U+2060-206F (word joiner, invisible operators, isolates), the variation selectors
/// U+FE00-FE0F and U+E0100-E01EF, the byte-order mark U+FEFF, U+1BCA0-1BCA3, U+1D173-1D17A and
/// the tags U+E0000-E0FFF.
pub fn is_default_ignorable(c: char) -> bool {
    CodePointSetData::new::<DefaultIgnorableCodePoint>().contains(c)
}

/// A bidirectional embedding, override or isolate (U+202A to U+202E, U+2066 to U+2069): they
/// reverse or reorder the text shown after them (a seat list, the next chat line), so a name
/// holding one is refused rather than cleaned. Default-ignorable, as every Bidi_Control character
/// is (the marks U+200E, U+200F and U+061C too).
pub fn is_bidi_override(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` without its default-ignorable characters, and so without any Bidi_Control character:
/// what is left is what a reader sees.
pub fn without_ignorables(text: &str) -> String {
    text.chars().filter(|&c| !is_default_ignorable(c)).collect()
}

/// Characters that draw nothing: blanks, the default-ignorable ones and the blank Braille pattern
/// U+2800 (not ignorable, but it draws an empty cell).
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace() || c == '\u{2800}' || is_default_ignorable(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_ignorables_are_unicodes_and_nothing_visible_is_one() {
        let ranges = [
            ('\u{00AD}', '\u{00AD}'),
            ('\u{034F}', '\u{034F}'),
            ('\u{061C}', '\u{061C}'),
            ('\u{115F}', '\u{1160}'),
            ('\u{17B4}', '\u{17B5}'),
            ('\u{180B}', '\u{180F}'),
            ('\u{200B}', '\u{200F}'),
            ('\u{202A}', '\u{202E}'),
            ('\u{2060}', '\u{206F}'),
            ('\u{3164}', '\u{3164}'),
            ('\u{FE00}', '\u{FE0F}'),
            ('\u{FEFF}', '\u{FEFF}'),
            ('\u{FFA0}', '\u{FFA0}'),
            ('\u{1BCA0}', '\u{1BCA3}'),
            ('\u{1D173}', '\u{1D17A}'),
            ('\u{E0000}', '\u{E0FFF}'),
        ];
        for (first, last) in ranges {
            for c in first..=last {
                assert!(is_default_ignorable(c) && is_invisible(c), "{c:?}");
            }
        }
        for c in ['a', ' ', 'ក', '់', '👩', '\u{2800}', '\u{0600}', '\u{1D172}'] {
            assert!(!is_default_ignorable(c), "{c:?}");
        }
        assert!(is_invisible(' ') && is_invisible('\u{2800}') && !is_invisible('a'));
        assert_eq!(without_ignorables("\u{202E}\u{200F}"), "");
        assert_eq!(without_ignorables("g\u{00AD}g\u{FE0F}\u{E0041}"), "gg");
    }

    #[test]
    fn every_bidi_control_is_ignorable_and_the_overrides_are_some_of_them() {
        let controls = CodePointSetData::new::<icu_properties::props::BidiControl>();
        let controls: Vec<char> = controls
            .iter_ranges()
            .flatten()
            .filter_map(char::from_u32)
            .collect();
        assert_eq!(controls.len(), 12, "{controls:?}");
        assert!(controls.iter().all(|&c| is_default_ignorable(c)));
        let overrides: Vec<char> = controls
            .into_iter()
            .filter(|&c| is_bidi_override(c))
            .collect();
        assert_eq!(
            overrides,
            [
                '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}',
                '\u{2068}', '\u{2069}'
            ]
        );
    }
}
