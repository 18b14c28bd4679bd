//! Password hashing (argon2id) on a few threads of its own, each with its argon2 memory
//! allocated once.
//!
//! Each hash works in 19 MiB. Run on the runtime's blocking pool, a burst of sign-ins ran as
//! many hashes at once as there were threads, and the allocator kept the memory afterwards
//! (a big block freed is not given back under glibc's adaptive thresholds): 200 sign-ups
//! raised the process to 850 MiB, and it stayed there. Here one thread per core does every
//! hash in turn, in 19 MiB of its own that it reuses: the cores stay busy, the memory stays
//! at a few tens of MiB, and the rest wait in the queue (the sign-in throttles bound how long
//! it can grow). The hashing itself is the argon2 crate's; only the memory is ours.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, LazyLock, Mutex};

use std::cell::RefCell;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{self, Output, ParamsString, PasswordHash, PasswordHasher, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::oneshot;
use warren_app::forms::{PasswordProblem, limits};

type Job = Box<dyn FnOnce() + Send>;

/// The hashing threads' queue; they start on first use.
static POOL: LazyLock<Mutex<Sender<Job>>> = LazyLock::new(|| {
    let (tx, rx) = mpsc::channel::<Job>();
    let rx = Arc::new(Mutex::new(rx));
    for i in 0..std::thread::available_parallelism().map_or(2, usize::from) {
        let rx = rx.clone();
        let spawned = std::thread::Builder::new().name(format!("warren-hash-{i}")).spawn(move || work(&rx));
        if let Err(err) = spawned {
            tracing::error!("cannot start a password-hashing thread: {err}");
        }
    }
    Mutex::new(tx)
});

fn work(jobs: &Mutex<Receiver<Job>>) {
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(poisoned) => poisoned.into_inner().recv(),
        };
        match job {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// Runs `f` on a hashing thread; `None` if it could not run.
async fn on_pool<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    POOL.lock().unwrap_or_else(|p| p.into_inner()).send(job).ok()?;
    rx.await.ok()
}

thread_local! {
    /// This hashing thread's argon2 memory, reused by every hash it runs (argon2 writes each
    /// block before it reads it, so what an earlier hash left there does not matter).
    static BLOCKS: RefCell<Vec<Block>> = const { RefCell::new(Vec::new()) };
}

/// `argon`'s output for `password` and `salt`, `len` bytes, in this thread's memory.
fn compute(argon: &Argon2<'_>, password: &[u8], salt: &[u8], len: usize) -> password_hash::Result<Output> {
    BLOCKS.with_borrow_mut(|blocks| {
        let count = argon.params().block_count();
        if blocks.len() < count {
            blocks.resize(count, Block::default());
        }
        Output::init_with(len, |out| {
            argon
                .hash_password_into_with_memory(password, salt, out, &mut blocks[..count])
                .map_err(Into::into)
        })
    })
}

/// What `Argon2::hash_password` returns, computed in this thread's memory.
fn hash_here(password: &[u8], salt: &SaltString) -> password_hash::Result<String> {
    let argon = Argon2::default();
    let salt = salt.as_salt();
    let mut buffer = [0u8; 64];
    let bytes = salt.decode_b64(&mut buffer)?;
    let len = argon.params().output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    let output = compute(&argon, password, bytes, len)?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(argon.params())?,
        salt: Some(salt),
        hash: Some(output),
    };
    Ok(hash.to_string())
}

/// What `Argon2::verify_password` answers, computed in this thread's memory: the stored
/// hash's own algorithm, version and parameters, and a constant-time comparison.
fn verify_here(password: &[u8], stored: &str) -> password_hash::Result<bool> {
    let hash = PasswordHash::new(stored)?;
    let (Some(salt), Some(expected)) = (hash.salt, hash.hash) else { return Ok(false) };
    let algorithm = Algorithm::try_from(hash.algorithm)?;
    let version = hash.version.map(Version::try_from).transpose()?.unwrap_or_default();
    let argon = Argon2::new(algorithm, version, Params::try_from(&hash)?);
    let mut buffer = [0u8; 64];
    let bytes = salt.decode_b64(&mut buffer)?;
    // `Output`'s equality is constant-time.
    Ok(compute(&argon, password, bytes, expected.len())? == expected)
}

/// A PHC-format argon2id hash of `password` with a fresh salt.
pub async fn hash(password: String) -> Option<String> {
    on_pool(move || hash_here(password.as_bytes(), &SaltString::generate(&mut OsRng)).ok()).await.flatten()
}

/// A real hash of nothing anyone knows: unknown usernames are checked against it, so a wrong
/// username takes as long to refuse as a wrong password.
static DECOY_HASH: LazyLock<String> = LazyLock::new(|| {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(uuid::Uuid::now_v7().to_string().as_bytes(), &salt)
        .map(|h| h.to_string())
        .unwrap_or_default()
});

/// Whether `password` matches `stored`; with no stored hash, the decoy is checked (and it
/// never matches).
pub async fn verify(password: String, stored: Option<String>) -> bool {
    let known = stored.is_some();
    on_pool(move || {
        let stored = stored.unwrap_or_else(|| DECOY_HASH.clone());
        verify_here(password.as_bytes(), &stored).unwrap_or(false) && known
    })
    .await
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    use argon2::PasswordVerifier;

    #[tokio::test]
    async fn hashes_verify_and_decoys_never_do() {
        let stored = hash("correct horse battery".into()).await.unwrap();
        assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{stored}");
        assert!(verify("correct horse battery".into(), Some(stored.clone())).await);
        assert!(!verify("wrong".into(), Some(stored)).await);
        assert!(!verify("anything".into(), None).await);
    }

    #[tokio::test]
    async fn the_same_hashes_as_the_crates_own_calls_with_memory_reused() {
        // Ours verify with the crate's verifier, and the crate's with ours, many times over
        // (the same threads' memory reused each time).
        for i in 0..6 {
            let password = format!("password number {i}");
            let ours = hash(password.clone()).await.unwrap();
            let parsed = PasswordHash::new(&ours).unwrap();
            assert!(Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok());
            let salt = SaltString::generate(&mut OsRng);
            let theirs = Argon2::default().hash_password(password.as_bytes(), &salt).unwrap().to_string();
            assert!(verify(password.clone(), Some(theirs.clone())).await);
            assert!(!verify(format!("{password}!"), Some(theirs)).await);
            // The same salt gives the same string both ways.
            assert_eq!(
                hash_here(password.as_bytes(), &salt).unwrap(),
                Argon2::default().hash_password(password.as_bytes(), &salt).unwrap().to_string()
            );
        }
        assert!(!verify("x".into(), Some("not a hash".into())).await);
    }
}

/// Why a new password is refused, if it is (the pages word it next to the field).
pub fn weakness(password: &str, username: &str) -> Option<PasswordProblem> {
    let length = password.chars().count();
    if length < limits::PASSWORD_MIN {
        return Some(PasswordProblem::Short);
    }
    // Argon2 takes any length, but the request carrying it should stay small.
    if length > limits::PASSWORD {
        return Some(PasswordProblem::Long);
    }
    // Letters and digits only, lower-cased: "Password-123" is "password123".
    let plain: String =
        password.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    // The username with a little around it ("ada.lovelace.1815" for ada.lovelace) is the
    // first thing anyone tries; a long password that happens to contain it is fine.
    let name: String =
        username.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
    if name.chars().count() >= 3 && plain.contains(&name) && plain.replace(&name, "").chars().count() < 6 {
        return Some(PasswordProblem::LikeUsername);
    }
    let common = COMMON.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#'));
    if common.clone().any(|c| c == plain) || one_run(&plain) {
        return Some(PasswordProblem::Common);
    }
    None
}

/// Passwords leaked and reused everywhere (see the file's header).
const COMMON: &str = include_str!("common_passwords.txt");

/// One character over and over, or a run up or down a keyboard row or the alphabet or
/// digits ("aaaaaaaaaa", "9876543210", "abcdefghijk"): guessed before any list is tried.
fn one_run(plain: &str) -> bool {
    let chars: Vec<char> = plain.chars().collect();
    if chars.len() < 2 {
        return !chars.is_empty();
    }
    let steps: Vec<i64> =
        chars.windows(2).map(|w| i64::from(u32::from(w[1])) - i64::from(u32::from(w[0]))).collect();
    let same = |s: i64| steps.iter().all(|&step| step == s);
    same(0) || same(1) || same(-1)
}

#[cfg(test)]
mod rules {
    use super::{PasswordProblem, weakness};

    #[test]
    fn common_and_guessable_passwords_are_refused_with_a_reason() {
        assert_eq!(weakness("short", "ada"), Some(PasswordProblem::Short));
        assert_eq!(weakness(&"x".repeat(201), "ada"), Some(PasswordProblem::Long));
        assert_eq!(weakness("Password-123", "ada"), Some(PasswordProblem::Common));
        assert_eq!(weakness("QWERTYUIOP", "ada"), Some(PasswordProblem::Common));
        assert_eq!(weakness("aaaaaaaaaaaa", "ada"), Some(PasswordProblem::Common));
        assert_eq!(weakness("9876543210", "ada"), Some(PasswordProblem::Common));
        assert_eq!(weakness("ada.lovelace.1815", "ada.lovelace"), Some(PasswordProblem::LikeUsername));
        assert_eq!(weakness("correct horse battery", "ada"), None);
        assert_eq!(weakness("canadian maple syrup", "ada"), None, "a name inside a long password is fine");
    }
}
