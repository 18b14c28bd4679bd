//! Any text a socket may receive: parsing never panics, a frame it accepts is valid and reads
//! back as itself, and a refusal's `clientMessageId` is one the page could have sent. The
//! browser's reading of server frames is fuzzed on the same input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warren_app::protocol::{ClientMessage, ServerFrame, client_message_id_in, parse_client_message};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(message) = parse_client_message(text) {
        let again = serde_json::to_string(&message).map(|json| parse_client_message(&json));
        assert!(matches!(&again, Ok(Ok(m)) if *m == message), "{message:?} does not read back: {again:?}");
        if let ClientMessage::UserMessage { client_message_id: Some(id), .. } = &message {
            assert_eq!(client_message_id_in(text).as_deref(), Some(id.as_str()));
        }
    }
    if let Some(id) = client_message_id_in(text) {
        assert!(!id.is_empty() && id.chars().count() <= 100);
    }
    let _ = serde_json::from_str::<ServerFrame>(text);
});
