//! Seat tokens and invite codes: the two secrets-or-nearly a room hands out.
//!
//! A seat token is 128 random bits written as 32 lowercase hex digits; only its SHA-256 is kept (in
//! memory and in the database), so a leaked database does not let anyone take a seat. An invite code
//! is short, case-insensitive and avoids look-alike characters, because people read it aloud and type
//! it on phones.

use rand::Rng;
use sha2::{Digest, Sha256};

/// The alphabet of invite codes: digits and lowercase letters without `0 1 i l o`.
const INVITE_ALPHABET: &[u8] = b"23456789abcdefghjkmnpqrstuvwxyz";

/// Length of an invite code: 31^8 ≈ 8.5e11 codes.
pub const INVITE_CODE_LEN: usize = 8;

/// A new seat token (32 hex digits) and its hash.
pub fn new_seat_token() -> (String, [u8; 32]) {
    let bytes: [u8; 16] = rand::rng().random();
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hash = hash_token(&token);
    (token, hash)
}

/// SHA-256 of a token's text.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// A new random invite code of [`INVITE_CODE_LEN`] characters.
pub fn new_invite_code() -> String {
    let mut rng = rand::rng();
    (0..INVITE_CODE_LEN)
        .map(|_| INVITE_ALPHABET[rng.random_range(0..INVITE_ALPHABET.len())] as char)
        .collect()
}

/// Normalizes what a person typed as an invite code (case, surrounding blanks); `None` when it
/// cannot be one.
pub fn normalize_invite_code(text: &str) -> Option<String> {
    let code = text.trim().to_ascii_lowercase();
    (code.len() == INVITE_CODE_LEN && code.bytes().all(|b| INVITE_ALPHABET.contains(&b)))
        .then_some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_token_is_128_bits_of_hex_and_hashes_to_its_hash() {
        let (token, hash) = new_seat_token();
        assert_eq!(token.len(), 32);
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(hash_token(&token), hash);
        assert_ne!(new_seat_token().0, token);
    }

    #[test]
    fn invite_codes_normalize_case_and_refuse_look_alikes() {
        let code = new_invite_code();
        assert_eq!(
            normalize_invite_code(&format!(" {} ", code.to_uppercase())),
            Some(code)
        );
        assert_eq!(normalize_invite_code("abcdefg1"), None);
        assert_eq!(normalize_invite_code("abc"), None);
    }
}
