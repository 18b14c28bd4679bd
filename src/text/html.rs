//! HTML as the text a reader sees: line breaks, paragraphs, list items and table rows as
//! lines, `sup`/`sub` as Unicode where it has the characters (10⁸, H₂O) and `^(…)`/`_(…)`
//! where it does not, entities decoded, and what a page does not show (scripts, styles, its
//! head) left out. Read by the Anki importer (a note's fields) and by drafting (a web page).

/// Where a tag puts the text around it.
enum Script {
    Normal,
    Super,
    Sub,
}

/// HTML as the text a reader sees, entities decoded; each block (paragraph, list item, line
/// break, table row) starts a line; what scripts, styles and a document's head hold is left out.
pub fn html_text(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut script = Script::Normal;
    let mut raised = String::new();
    // Each open list: its next number, or `None` for bullets.
    let mut lists: Vec<Option<u32>> = Vec::new();
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        push(&mut out, &mut raised, &script, &rest[..open]);
        let Some(close) = rest[open..].find('>') else {
            push(&mut out, &mut raised, &script, &rest[open..]);
            rest = "";
            break;
        };
        let tag = &rest[open + 1..open + close];
        rest = &rest[open + close + 1..];
        let closing = tag.starts_with('/');
        let name = tag.trim_start_matches('/').split(|c: char| c.is_whitespace() || c == '/').next();
        let name = name.unwrap_or_default().to_ascii_lowercase();
        // What a page does not show: skipped to its closing tag.
        if !closing && matches!(name.as_str(), "script" | "style" | "head" | "template" | "noscript") {
            let end = format!("</{name}");
            rest = match rest.to_ascii_lowercase().find(&end) {
                Some(at) => rest[at..].find('>').map_or("", |gt| &rest[at + gt + 1..]),
                None => "",
            };
            continue;
        }
        match (name.as_str(), closing) {
            ("br", _) | ("div" | "p" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6", _) => out.push('\n'),
            ("td" | "th", false) => out.push(' '),
            ("ol", false) => lists.push(Some(1)),
            ("ul", false) => lists.push(None),
            ("ol" | "ul", true) => {
                lists.pop();
                out.push('\n');
            }
            ("li", false) => {
                out.push('\n');
                match lists.last_mut() {
                    Some(Some(n)) => {
                        out.push_str(&format!("{n}. "));
                        *n += 1;
                    }
                    Some(None) | None => out.push_str("- "),
                }
            }
            ("sup", false) => script = Script::Super,
            ("sub", false) => script = Script::Sub,
            ("sup" | "sub", true) => {
                raise(&mut out, &raised, &script);
                raised.clear();
                script = Script::Normal;
            }
            _ => {}
        }
    }
    push(&mut out, &mut raised, &script, rest);
    raise(&mut out, &raised, &script);
    html_escape::decode_html_entities(&out).replace('\u{a0}', " ")
}

fn push(out: &mut String, raised: &mut String, script: &Script, text: &str) {
    match script {
        Script::Normal => out.push_str(text),
        Script::Super | Script::Sub => raised.push_str(text),
    }
}

/// Writes raised or lowered text: in Unicode's super- or subscript characters when each has
/// one, otherwise as `^(…)` or `_(…)` (`^x` for one character).
fn raise(out: &mut String, text: &str, script: &Script) {
    let text = html_escape::decode_html_entities(text);
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    let (map, mark): (fn(char) -> Option<char>, char) = match script {
        Script::Normal => {
            out.push_str(text);
            return;
        }
        Script::Super => (superscript, '^'),
        Script::Sub => (subscript, '_'),
    };
    match text.chars().map(map).collect::<Option<String>>() {
        Some(unicode) => out.push_str(&unicode),
        None if text.chars().count() == 1 => {
            out.push(mark);
            out.push_str(text);
        }
        None => {
            out.push(mark);
            out.push('(');
            out.push_str(text);
            out.push(')');
        }
    }
}

fn superscript(c: char) -> Option<char> {
    Some(match c {
        '0' => '⁰',
        '1' => '¹',
        '2' => '²',
        '3' => '³',
        '4' => '⁴',
        '5' => '⁵',
        '6' => '⁶',
        '7' => '⁷',
        '8' => '⁸',
        '9' => '⁹',
        '+' => '⁺',
        '-' | '−' => '⁻',
        '=' => '⁼',
        '(' => '⁽',
        ')' => '⁾',
        'n' => 'ⁿ',
        'i' => 'ⁱ',
        _ => return None,
    })
}

fn subscript(c: char) -> Option<char> {
    Some(match c {
        '0' => '₀',
        '1' => '₁',
        '2' => '₂',
        '3' => '₃',
        '4' => '₄',
        '5' => '₅',
        '6' => '₆',
        '7' => '₇',
        '8' => '₈',
        '9' => '₉',
        '+' => '₊',
        '-' | '−' => '₋',
        '=' => '₌',
        '(' => '₍',
        ')' => '₎',
        'a' => 'ₐ',
        'e' => 'ₑ',
        'o' => 'ₒ',
        'x' => 'ₓ',
        'h' => 'ₕ',
        'k' => 'ₖ',
        'l' => 'ₗ',
        'm' => 'ₘ',
        'n' => 'ₙ',
        'p' => 'ₚ',
        's' => 'ₛ',
        't' => 'ₜ',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_its_visible_text() {
        let page = "<html><head><title>T</title><style>p{}</style></head><body><script>var x = '<p>';</script>\
                    <h1>Cells</h1><p>Water is H<sub>2</sub>O &amp; light is 3&times;10<sup>8</sup> m/s.</p>\
                    <ul><li>one</li><li>two</li></ul></body></html>";
        let text = html_text(page);
        assert!(!text.contains("var x") && !text.contains("p{}") && !text.contains('T'), "{text}");
        let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert_eq!(lines, ["Cells", "Water is H₂O & light is 3×10⁸ m/s.", "- one", "- two"]);
    }
}
