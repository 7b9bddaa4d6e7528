//! Passwords: the policy (8 to 256 characters, not the username, not one of the most common),
//! and Argon2id hashing with RustCrypto's `argon2` (m = 19456 KiB, t = 2, p = 1: OWASP's first
//! recommendation) on tokio's blocking pool, at most [`Passwords::new`]'s `parallel` at once so a
//! burst of logins cannot take every core or much memory (19 MiB each).
//!
//! Verifying the password of a name that has no account verifies a dummy hash made with the same
//! parameters, so the answer takes the same work whether the account exists or not.

use std::sync::{Arc, OnceLock};

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::Semaphore;

/// Shortest and longest password, in characters.
pub const PASSWORD_LENGTH: std::ops::RangeInclusive<usize> = 8..=256;

/// Argon2's memory cost, in KiB (19 MiB).
pub const MEMORY_KIB: u32 = 19_456;
/// Argon2's passes over memory.
pub const ITERATIONS: u32 = 2;
/// Argon2's lanes.
pub const LANES: u32 = 1;

/// Some of the most common passwords of at least 8 characters (from the lists published after
/// large leaks), compared ignoring case.
const COMMON: &[&str] = &[
    "12345678",
    "123456789",
    "1234567890",
    "11111111",
    "00000000",
    "87654321",
    "12341234",
    "password",
    "password1",
    "password123",
    "passw0rd",
    "qwertyuiop",
    "qwerty123",
    "qwerty12",
    "1q2w3e4r",
    "1qaz2wsx",
    "iloveyou",
    "sunshine",
    "princess",
    "football",
    "baseball",
    "welcome1",
    "abc12345",
    "abcd1234",
    "asdfghjkl",
    "zxcvbnm1",
    "letmein1",
    "trustno1",
    "superman",
    "starwars",
    "whatever",
    "michelle",
    "computer",
    "internet",
    "chess123",
    "khanate1",
];

/// Why a password is refused; the text is the message of `bad_password`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PasswordError {
    /// Shorter than 8 or longer than 256 characters.
    #[error("a password is 8 to 256 characters")]
    Length,
    /// The same as the username, ignoring case.
    #[error("a password may not be the username")]
    IsName,
    /// In the built-in list of the most common passwords.
    #[error("this password is among the most common ones; choose another")]
    Common,
}

/// Checks a new password for the account `name`.
pub fn check_password(name: &str, password: &str) -> Result<(), PasswordError> {
    if !PASSWORD_LENGTH.contains(&password.chars().count()) {
        return Err(PasswordError::Length);
    }
    if password.eq_ignore_ascii_case(name) || password.to_lowercase() == name.to_lowercase() {
        return Err(PasswordError::IsName);
    }
    if COMMON.iter().any(|c| c.eq_ignore_ascii_case(password)) {
        return Err(PasswordError::Common);
    }
    Ok(())
}

/// The hasher every account request shares. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Passwords {
    permits: Arc<Semaphore>,
    dummy: Arc<OnceLock<String>>,
}

fn argon2() -> Argon2<'static> {
    // The parameters are constants Argon2 accepts; a failure would be a programming error.
    let params = Params::new(MEMORY_KIB, ITERATIONS, LANES, None).expect("valid Argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn hash_now(password: &str) -> String {
    argon2()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .expect("Argon2 hashes any password of at most 256 characters")
}

impl Passwords {
    /// A hasher running at most `parallel` hashes at once (0 counts as 1).
    pub fn new(parallel: usize) -> Self {
        Passwords {
            permits: Arc::new(Semaphore::new(parallel.max(1))),
            dummy: Arc::new(OnceLock::new()),
        }
    }

    /// Runs `work` on the blocking pool once a permit is free.
    async fn run<T: Send + 'static>(&self, work: impl FnOnce() -> T + Send + 'static) -> T {
        // The semaphore is never closed.
        let _permit = self.permits.acquire().await.expect("open semaphore");
        tokio::task::spawn_blocking(work)
            .await
            .expect("password hashing does not panic")
    }

    /// The Argon2id PHC string of `password` (`$argon2id$v=19$m=19456,t=2,p=1$...`), with a new
    /// random salt.
    pub async fn hash(&self, password: &str) -> String {
        let password = password.to_owned();
        self.run(move || hash_now(&password)).await
    }

    /// Whether `password` matches `stored`, a PHC string. With `stored` `None` (no such
    /// account, or a deleted one) a dummy hash is verified instead, the same work, and the answer
    /// is `false`. An unreadable stored hash is `false`.
    pub async fn verify(&self, password: &str, stored: Option<&str>) -> bool {
        let password = password.to_owned();
        let (stored, real) = match stored {
            Some(stored) => (stored.to_owned(), true),
            None => (self.dummy_hash().await, false),
        };
        let matches = self
            .run(move || {
                argon2()
                    .verify_password(password.as_bytes(), stored.as_str())
                    .is_ok()
            })
            .await;
        matches && real
    }

    /// The dummy hash, made once (with the same parameters as every real one).
    async fn dummy_hash(&self) -> String {
        if let Some(hash) = self.dummy.get() {
            return hash.clone();
        }
        let hash = self.hash("not the password of anyone").await;
        self.dummy.get_or_init(|| hash).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_refuses_short_long_the_name_and_common_passwords() {
        assert_eq!(check_password("dara", "correct horse"), Ok(()));
        assert_eq!(
            check_password("dara", "seven77"),
            Err(PasswordError::Length)
        );
        assert_eq!(
            check_password("dara", &"x".repeat(257)),
            Err(PasswordError::Length)
        );
        assert_eq!(
            check_password("dara", &"é".repeat(256)),
            Ok(()),
            "characters, not bytes"
        );
        assert_eq!(
            check_password("DaraSok1", "darasok1"),
            Err(PasswordError::IsName)
        );
        assert_eq!(
            check_password("dara", "PASSWORD1"),
            Err(PasswordError::Common)
        );
        assert_eq!(check_password("dara", "Password1!"), Ok(()));
    }

    #[tokio::test]
    async fn a_hash_is_argon2id_with_the_parameters_and_verifies_only_its_password() {
        let passwords = Passwords::new(1);
        let hash = passwords.hash("correct horse").await;
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(passwords.verify("correct horse", Some(&hash)).await);
        assert!(!passwords.verify("correct horsf", Some(&hash)).await);
        assert_ne!(
            passwords.hash("correct horse").await,
            hash,
            "a new salt each time"
        );
        assert!(
            !passwords.verify("correct horse", None).await,
            "the dummy never matches"
        );
        assert!(!passwords.verify("correct horse", Some("not a hash")).await);
    }
}
