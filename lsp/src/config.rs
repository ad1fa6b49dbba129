//! How the server behaves: the command line, `initializationOptions`, and
//! what the client said it can show.

use std::time::Duration;

use crate::diagnostics::BookLinks;

/// How the server behaves: the command line and `initializationOptions`
/// set it.
#[derive(Clone, Debug)]
pub struct Config {
    /// How long after the last edit a check starts.
    pub debounce: Duration,
    /// Where diagnostic codes link to.
    pub book: Option<BookLinks>,
    /// Answer `othc/panic` by panicking: how the tests show that a panic in a
    /// handler is caught and answered. Off outside tests.
    pub panic_request: bool,
    /// What the client can show (set from `initialize`).
    pub client: crate::client::ClientCaps,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            debounce: Duration::from_millis(10),
            book: BookLinks::local(),
            panic_request: false,
            client: Default::default(),
        }
    }
}
