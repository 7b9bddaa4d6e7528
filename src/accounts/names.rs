//! Usernames: 2 to 20 characters of `[A-Za-z0-9_-]`, unique ignoring case (the store's
//! `name_key` is the lowercase), shown with the case their owner chose; a few names that would
//! let someone pass for the server or its staff are refused.

/// Shortest and longest username, in characters (ASCII, so bytes).
pub const NAME_LENGTH: std::ops::RangeInclusive<usize> = 2..=20;

/// Names nobody may register, compared ignoring case.
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "anonymous",
    "api",
    "bot",
    "computer",
    "deleted",
    "guest",
    "khanate",
    "mod",
    "moderator",
    "null",
    "operator",
    "root",
    "server",
    "staff",
    "support",
    "system",
];

/// Why a username is refused; the text is the message of `bad_name`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// Shorter than 2 or longer than 20 characters.
    #[error("a username is 2 to 20 characters")]
    Length,
    /// A character other than `A-Z a-z 0-9 _ -`.
    #[error("a username holds only letters A-Z, digits, '_' and '-'")]
    Character,
    /// One of the reserved names.
    #[error("{0:?} is reserved")]
    Reserved(String),
}

/// Checks a username as given (no trimming: what is stored is what was typed).
pub fn check_name(name: &str) -> Result<(), NameError> {
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(NameError::Character);
    }
    if !NAME_LENGTH.contains(&name.len()) {
        return Err(NameError::Length);
    }
    if is_reserved(name) {
        return Err(NameError::Reserved(name.to_owned()));
    }
    Ok(())
}

/// Whether `name` is reserved, ignoring case.
pub fn is_reserved(name: &str) -> bool {
    RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_two_to_twenty_of_the_allowed_characters() {
        for good in ["Do", "dara_99", "Sok-Heng", "a1234567890123456789"] {
            assert_eq!(check_name(good), Ok(()), "{good}");
        }
        assert_eq!(check_name("d"), Err(NameError::Length));
        assert_eq!(check_name("a12345678901234567890"), Err(NameError::Length));
        for bad in ["da ra", "dára", "dara!", "", "x\u{200b}y", "ดารา"] {
            let refused = check_name(bad).unwrap_err();
            assert!(
                matches!(refused, NameError::Character | NameError::Length),
                "{bad}"
            );
        }
    }

    #[test]
    fn reserved_names_are_refused_in_any_case() {
        for name in ["admin", "Khanate", "SYSTEM", "Anonymous", "bot"] {
            assert_eq!(check_name(name), Err(NameError::Reserved(name.into())));
        }
        assert_eq!(check_name("botvinnik"), Ok(()));
    }
}
