//! The secrets accounts hand out (session cookies, personal API tokens): 256 random bits from
//! the operating system's generator, written as 64 lowercase hex digits after a prefix, and
//! stored only as their SHA-256, so a leaked database opens nothing. A secret is found by its
//! hash (an index look-up), never by comparing stored secrets, so no comparison leaks timing.

use rand::TryRngCore;
use rand::rngs::OsRng;
use sha2::{Digest, Sha256};

/// A new secret `{prefix}{64 hex digits}` and its SHA-256.
///
/// Panics only if the operating system cannot give random bytes (nothing safe can go on then).
pub fn new_secret(prefix: &str) -> (String, [u8; 32]) {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random generator");
    let mut text = String::with_capacity(prefix.len() + 64);
    text.push_str(prefix);
    for b in bytes {
        text.push_str(&format!("{b:02x}"));
    }
    let hash = hash_secret(&text);
    (text, hash)
}

/// SHA-256 of a secret's text, as stored.
pub fn hash_secret(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_256_bits_of_hex_after_its_prefix_and_hashes_to_its_hash() {
        let (secret, hash) = new_secret("khn_");
        let hex = secret.strip_prefix("khn_").expect("the prefix");
        assert_eq!(hex.len(), 64);
        assert!(
            hex.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_eq!(hash_secret(&secret), hash);
        assert_ne!(new_secret("khn_").0, secret);
    }
}
