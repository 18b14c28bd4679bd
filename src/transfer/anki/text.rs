//! A note's HTML as the text a reader sees: line breaks, paragraphs and list items kept as
//! lines, `sup`/`sub` as Unicode where it has the characters (10⁸, H₂O) and `^(…)`/`_(…)`
//! where it does not, entities decoded, MathJax's `\(…\)` and `\[…\]` as KaTeX's `$…$` and
//! `$$…$$`, and `[sound:…]` taken out (and named, for the preview). Cloze deletions are read
//! one at a time: the cue with that deletion blanked, the content the sentence it completes.

use crate::text::html::html_text;

/// A field's HTML as text, and the sound files it named (which Warren does not play).
pub fn text_of(html: &str) -> (String, Vec<String>) {
    let (text, sounds) = without_sounds(&html_text(html));
    (tidy(&mathjax(&text)), sounds)
}

/// The text without its `[sound:…]` tags, and the files they named.
fn without_sounds(text: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut sounds = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("[sound:") {
        let Some(end) = rest[start..].find(']') else { break };
        out.push_str(&rest[..start]);
        sounds.push(rest[start + 7..start + end].to_string());
        rest = &rest[start + end + 1..];
    }
    out.push_str(rest);
    (out, sounds)
}

/// MathJax's delimiters as KaTeX's: `\(…\)` → `$…$`, `\[…\]` → `$$…$$`.
fn mathjax(text: &str) -> String {
    text.replace("\\(", "$").replace("\\)", "$").replace("\\[", "$$").replace("\\]", "$$")
}

/// Spaces folded within each line, blank lines dropped, the ends trimmed.
fn tidy(text: &str) -> String {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One cloze deletion: the numbers a note's text deletes, in order.
pub fn cloze_numbers(text: &str) -> Vec<u32> {
    let mut numbers = Vec::new();
    for (number, _, _) in deletions(text) {
        if !numbers.contains(&number) {
            numbers.push(number);
        }
    }
    numbers
}

/// Each `{{cN::answer::hint}}` of a text: (N, the answer, the hint), with where it is.
fn deletions(text: &str) -> Vec<(u32, String, Option<String>)> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{c") {
        let inner = &rest[start + 3..];
        let Some(end) = inner.find("}}") else { break };
        let mut parts = inner[..end].splitn(3, "::");
        let number = parts.next().and_then(|n| n.parse().ok());
        if let (Some(number), Some(answer)) = (number, parts.next()) {
            found.push((number, answer.to_string(), parts.next().map(str::to_string)));
        }
        rest = &inner[end + 2..];
    }
    found
}

/// Markers around the deletion being read, private-use characters no note holds.
const OPEN: char = '\u{e000}';
const CLOSE: char = '\u{e001}';

/// The text with deletion `number` blanked (`[…]`, or `[hint]`) and every other answered,
/// or marked (between [`OPEN`] and [`CLOSE`]) and every other answered.
fn cloze_html(text: &str, number: u32, blank: bool) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{c") {
        out.push_str(&rest[..start]);
        let inner = &rest[start + 3..];
        let Some(end) = inner.find("}}") else {
            out.push_str(&rest[start..]);
            return out;
        };
        let mut parts = inner[..end].splitn(3, "::");
        let this = parts.next().and_then(|n| n.parse::<u32>().ok()) == Some(number);
        let answer = parts.next().unwrap_or_default();
        let hint = parts.next();
        match (this, blank) {
            (true, true) => out.push_str(&format!("[{}]", hint.unwrap_or("…"))),
            (true, false) => {
                out.push(OPEN);
                out.push_str(answer);
                out.push(CLOSE);
            }
            (false, _) => out.push_str(answer),
        }
        rest = &inner[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Deletion `number` of a cloze text: the cue (the text with it blanked) and the content (each
/// sentence of the text it completes).
pub fn cloze(text: &str, number: u32) -> (String, String) {
    let (cue, _) = text_of(&cloze_html(text, number, true));
    let (marked, _) = text_of(&cloze_html(text, number, false));
    // Every sentence from the one the deletion opens in to the one it closes in.
    let mut content = Vec::new();
    let mut inside = false;
    for sentence in sentences(&marked) {
        let opens = sentence.contains(OPEN);
        if inside || opens || sentence.contains(CLOSE) {
            content.push(sentence.replace([OPEN, CLOSE], "").trim().to_string());
        }
        inside = match (sentence.rfind(OPEN), sentence.rfind(CLOSE)) {
            (Some(open), Some(close)) => open > close,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => inside,
        };
    }
    (cue, content.join(" "))
}

/// A text cut after each `.`, `;`, `!`, `?` or line break.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if matches!(c, '.' | ';' | '!' | '?' | '\n') {
            let mut end = i + c.len_utf8();
            // A deletion's closing mark right after ("…three.}}") stays with its sentence.
            while text[end..].starts_with(CLOSE) {
                end += CLOSE.len_utf8();
            }
            // A full stop inside a number (3.14) ends nothing.
            let next = text[end..].chars().next();
            if c == '.' && next.is_some_and(|n| !n.is_whitespace()) {
                continue;
            }
            out.push(&text[start..end]);
            start = end;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(html: &str) -> String {
        text_of(html).0
    }

    #[test]
    fn fields_read_as_a_reader_sees_them() {
        assert_eq!(text("Mito<b>chondria</b>&nbsp;make <i>ATP</i>"), "Mitochondria make ATP");
        assert_eq!(text("<div>a</div><div>b &amp; c</div>"), "a\nb & c");
        assert_eq!(text("1 &lt; 2<br>3 &gt; 2"), "1 < 2\n3 > 2");
        assert_eq!(
            text("<ol><li>prophase</li><li>metaphase</li></ol>after"),
            "1. prophase\n2. metaphase\nafter"
        );
        assert_eq!(text("<ul><li>a</li><li>b</li></ul>"), "- a\n- b");
    }

    #[test]
    fn raised_and_lowered_text_is_unicode_where_it_can_be() {
        assert_eq!(text("3×10<sup>8</sup> m/s"), "3×10⁸ m/s");
        assert_eq!(text("H<sub>2</sub>O and x<sup>-1</sup>"), "H₂O and x⁻¹");
        assert_eq!(
            text("e<sup>iπ</sup> and a<sub>y</sub> and 2<sup>word</sup>"),
            "e^(iπ) and a_y and 2^(word)"
        );
    }

    #[test]
    fn mathjax_becomes_katex_and_sounds_are_named() {
        assert_eq!(text(r"\(A = \pi r^2\) and \[E = mc^2\]"), r"$A = \pi r^2$ and $$E = mc^2$$");
        assert_eq!(text_of("[sound:beat.mp3] a lub-dub"), ("a lub-dub".into(), vec!["beat.mp3".to_string()]));
    }

    #[test]
    fn each_deletion_is_a_cue_with_a_gap_and_the_sentence_it_completes() {
        let note =
            "The {{c1::nucleus}} stores DNA; the {{c2::Golgi apparatus::an organelle}} packages proteins.";
        assert_eq!(cloze_numbers(note), vec![1, 2]);
        assert_eq!(
            cloze(note, 1),
            (
                "The […] stores DNA; the Golgi apparatus packages proteins.".to_string(),
                "The nucleus stores DNA;".to_string()
            )
        );
        assert_eq!(
            cloze(note, 2),
            (
                "The nucleus stores DNA; the [an organelle] packages proteins.".to_string(),
                "the Golgi apparatus packages proteins.".to_string()
            )
        );
        assert_eq!(cloze_numbers("{{c2::a}} {{c1::b}} {{c2::c}}"), vec![2, 1]);
        assert_eq!(cloze("Pi is {{c1::3.14}} or so.", 1).1, "Pi is 3.14 or so.");
        // A deletion over three sentences keeps the middle one.
        assert_eq!(cloze("Before. {{c1::One. Two. Three.}} After.", 1).1, "One. Two. Three.");
        // Two deletions of one sentence: the same content, each its own cue.
        let capital = "{{c1::Paris}} is the capital of {{c2::France}}.";
        assert_eq!(
            cloze(capital, 1),
            ("[…] is the capital of France.".into(), "Paris is the capital of France.".into())
        );
        assert_eq!(
            cloze(capital, 2),
            ("Paris is the capital of […].".into(), "Paris is the capital of France.".into())
        );
    }
}
