//! Query strings the pages and the server write into links.

/// `text` as a query-string value: unreserved characters as they are, a space as `+`,
/// everything else percent-encoded.
pub fn query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_query_value(text, &mut out);
    out
}

/// [`query_value`], written onto `out`.
pub fn push_query_value(text: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(char::from(byte)),
            b' ' => out.push('+'),
            other => {
                out.push('%');
                out.push(char::from(HEX[usize::from(other >> 4)]));
                out.push(char::from(HEX[usize::from(other & 15)]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn values_are_encoded_for_a_query_string() {
        assert_eq!(super::query_value("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
    }
}
