//! The offline drafter: recall points from a passage of the learner's own material, with no
//! model. It ranks the passage's sentences (and list items and table rows) by how much they
//! state: definitions ("X is Y"), causes, numbers and dates, named terms; keeps the best few
//! in the passage's order; makes each a cue (a definition's subject asked for, or its key
//! term blanked); and quotes each exactly as the source has it. Deterministic: the same
//! passage always gives the same drafts. Near repeats are dropped here by their words, and
//! across passages by meaning (`drafting`).

use serde_json::json;

use crate::llm::brief::DraftBrief;
use crate::text::cues::cue;
use crate::text::tokens;

/// A point for every `WORDS_PER_POINT` words of a passage, at least `MIN_POINTS`, at most
/// `MAX_POINTS` (and never more than it has units worth a point).
const WORDS_PER_POINT: usize = 24;
const MIN_POINTS: usize = 2;
const MAX_POINTS: usize = 12;
/// A unit scoring below this states too little to be a point (a plain statement of a fair
/// length scores 1).
const MIN_SCORE: i32 = 1;
/// A unit scoring this much states a fact of its own (a name, a number, a definition…).
const DENSE: i32 = 3;
/// Words shared (of the smaller) over which two drafts say the same.
const REPEAT: f64 = 0.7;

/// Words that open a sentence without saying anything of its own.
const CONNECTIVES: &[&str] = &[
    "however, ",
    "moreover, ",
    "in addition, ",
    "additionally, ",
    "also, ",
    "furthermore, ",
    "therefore, ",
    "thus, ",
    "as a result, ",
    "in fact, ",
    "for example, ",
    "for instance, ",
    "in short, ",
    "overall, ",
];

/// A piece of the passage that may become a point: its place in the passage and what it says.
#[derive(Clone, Debug, PartialEq)]
struct Unit {
    /// Byte range of its exact words in the passage (the quote).
    span: std::ops::Range<usize>,
    /// The point it would make (the quote, a list item with its lead-in, a table row read out).
    content: String,
    /// A table row's cue, made from its header.
    cue: Option<String>,
    /// A list item or a table row: one fact a line, whatever its words.
    listed: bool,
}

/// The passage's drafts as the drafting agent's JSON: `{"points": [{content, cue, quote}]}`.
pub(super) fn draft(brief: &DraftBrief) -> String {
    let points: Vec<serde_json::Value> = drafts(&brief.passage)
        .into_iter()
        .map(|(content, cue, quote)| json!({ "content": content, "cue": cue, "quote": quote }))
        .collect();
    json!({ "points": points }).to_string()
}

/// The passage's drafts: (content, cue, quote), in the passage's order.
pub fn drafts(passage: &str) -> Vec<(String, String, String)> {
    let units = units(passage);
    // Prose by its words; lists and tables by their lines (half of them: not every line is
    // worth a point).
    let words = passage.split_whitespace().count();
    let lines = units.iter().filter(|u| u.listed).count();
    let mut scored: Vec<(i32, usize)> = units
        .iter()
        .enumerate()
        .map(|(i, u)| (score(&u.content), i))
        .filter(|(s, _)| *s >= MIN_SCORE)
        .collect();
    // Dense notes state a fact a sentence: every sentence that states much is wanted, however
    // few words the passage has.
    let dense = scored.iter().filter(|(s, _)| *s >= DENSE).count();
    let wanted = (words / WORDS_PER_POINT + lines / 2).max(dense).clamp(MIN_POINTS, MAX_POINTS);
    // Best first, earlier first among equals; then back into the passage's order.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut chosen: Vec<usize> = Vec::new();
    for (_, i) in scored {
        if chosen.len() >= wanted {
            break;
        }
        if chosen.iter().any(|&c| repeats(&units[c].content, &units[i].content)) {
            continue;
        }
        chosen.push(i);
    }
    chosen.sort_unstable();
    chosen
        .into_iter()
        .map(|i| {
            let unit = &units[i];
            let cue = unit.cue.clone().unwrap_or_else(|| cue(&unit.content));
            (unit.content.clone(), cue, passage[unit.span.clone()].to_string())
        })
        .collect()
}

/// Whether two drafts say much the same (most of the shorter's words are in the other).
pub fn repeats(a: &str, b: &str) -> bool {
    repeat_of(&stems(a), &stems(b))
}

/// [`repeats`], on texts' [`stems`] (read once when many texts are compared).
pub fn repeat_of(a: &[String], b: &[String]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return false;
    }
    let shared = short.iter().filter(|w| long.contains(w)).count();
    shared as f64 / short.len() as f64 >= REPEAT
}

/// A text's words as the judges compare them.
pub fn stems(text: &str) -> Vec<String> {
    tokens(text).into_iter().map(|t| t.term).collect()
}

/// The passage cut into what may become points: sentences of prose, list items (with the line
/// that leads into the list, when the item alone says little), and table rows.
fn units(passage: &str) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut lead_in: Option<String> = None;
    let mut header: Option<Vec<String>> = None;
    let mut offset = 0;
    for line in passage.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() {
            header = None;
            continue;
        }
        let lead = start + (line.len() - line.trim_start().len());
        if trimmed.starts_with('#') {
            lead_in = Some(trimmed.trim_start_matches('#').trim().to_string());
            continue;
        }
        if trimmed.starts_with('|') {
            let cells: Vec<String> =
                trimmed.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
            if cells.iter().all(|c| c.chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
                continue;
            }
            match &header {
                None => header = Some(cells),
                Some(names) => {
                    if let Some(unit) = table_row(names, &cells, lead..lead + trimmed.len()) {
                        units.push(unit);
                    }
                }
            }
            continue;
        }
        header = None;
        if let Some(item) = list_item(trimmed) {
            let at = lead + (trimmed.len() - item.len());
            let says_little = item.split_whitespace().count() < 6 || !item.ends_with(['.', '!']);
            let content = match (&lead_in, says_little) {
                (Some(lead_in), true) => {
                    format!("{}: {}", lead_in.trim_end_matches(':'), item.trim_end_matches('.'))
                }
                (None, _) | (Some(_), false) => item.to_string(),
            };
            units.push(Unit { span: at..at + item.len(), content, cue: None, listed: true });
            continue;
        }
        for span in sentence_spans(&passage[lead..lead + trimmed.len()]) {
            let span = lead + span.start..lead + span.end;
            let sentence = &passage[span.clone()];
            units.push(Unit { span, content: self_contained(sentence), cue: None, listed: false });
            if sentence.ends_with(':') {
                lead_in = Some(sentence.to_string());
            }
        }
    }
    units
}

/// A list item's words, without its marker ("- ", "* ", "3. ").
fn list_item(line: &str) -> Option<&str> {
    if let Some(rest) =
        line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")).or_else(|| line.strip_prefix("+ "))
    {
        return Some(rest.trim());
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = line.get(digits..)?;
    (digits > 0 && (rest.starts_with(". ") || rest.starts_with(") "))).then(|| rest[2..].trim())
}

/// A table row read out against its header: "Mercury: orbital period 88 days, distance 0.39 AU."
fn table_row(header: &[String], cells: &[String], span: std::ops::Range<usize>) -> Option<Unit> {
    let (first, rest) = cells.split_first()?;
    if first.is_empty() || rest.is_empty() {
        return None;
    }
    let named: Vec<String> = header
        .iter()
        .skip(1)
        .zip(rest)
        .filter(|(_, value)| !value.is_empty())
        .map(|(name, value)| format!("{} {}", name.to_lowercase(), value))
        .collect();
    if named.is_empty() {
        return None;
    }
    let asked: Vec<String> = header.iter().skip(1).map(|h| format!("{}?", h.to_lowercase())).collect();
    Some(Unit {
        span,
        content: format!("{first}: {}.", named.join(", ")),
        cue: Some(format!("{first}: {}", asked.join(" "))),
        listed: true,
    })
}

/// Byte ranges of the sentences of one line: cut after `.`, `!` or `?` followed by a space
/// and a capital, a digit or a quote; not after an abbreviation or an initial ("e.g.", "J.").
fn sentence_spans(line: &str) -> Vec<std::ops::Range<usize>> {
    const ABBREVIATIONS: &[&str] =
        &["e.g.", "i.e.", "etc.", "vs.", "mr.", "mrs.", "dr.", "st.", "no.", "approx.", "ca.", "c."];
    let mut spans = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?' | ':') {
            continue;
        }
        let end = i + c.len_utf8();
        let next = chars.get(k + 1).map(|&(_, n)| n);
        let after = chars.get(k + 2).map(|&(_, n)| n);
        let ends = match next {
            None => true,
            Some(' ') => {
                after.is_some_and(|a| a.is_uppercase() || a.is_ascii_digit() || matches!(a, '"' | '“' | '('))
            }
            Some(_) => false,
        };
        if !ends {
            continue;
        }
        let word = line[start..end].rsplit(' ').next().unwrap_or_default().to_lowercase();
        let initial = word.chars().count() == 2 && word.starts_with(char::is_alphabetic);
        if c == '.' && (ABBREVIATIONS.contains(&word.as_str()) || initial) {
            continue;
        }
        let text = &line[start..end];
        let lead = text.len() - text.trim_start().len();
        if !text.trim().is_empty() {
            spans.push(start + lead..end);
        }
        start = end;
    }
    let text = &line[start..];
    if !text.trim().is_empty() {
        let lead = text.len() - text.trim_start().len();
        spans.push(start + lead..start + lead + text.trim().len());
    }
    spans
}

/// A sentence without the connective that ties it to the one before ("However, …").
fn self_contained(sentence: &str) -> String {
    let lower = sentence.to_lowercase();
    let mut text = sentence;
    if let Some(connective) = CONNECTIVES.iter().find(|c| lower.starts_with(*c)) {
        text = &sentence[connective.len()..];
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// How much a sentence states.
fn score(sentence: &str) -> i32 {
    let lower = format!(" {} ", sentence.to_lowercase());
    let words = sentence.split_whitespace().count();
    let mut score = 0;
    const DEFINES: &[&str] = &[
        " is a ",
        " is an ",
        " is the ",
        " are the ",
        " are a ",
        " refers to ",
        " is called ",
        " are called ",
        " known as ",
        " means ",
        " defined as ",
        " consists of ",
        " is made of ",
    ];
    const CAUSES: &[&str] = &[
        " because ",
        " causes ",
        " caused by ",
        " leads to ",
        " results in ",
        " due to ",
        " produces ",
        " allows ",
        " prevents ",
        " so that ",
    ];
    if DEFINES.iter().any(|d| lower.contains(d)) {
        score += 3;
    }
    if CAUSES.iter().any(|c| lower.contains(c)) {
        score += 2;
    }
    if tokens(sentence).iter().any(|t| t.quantity.is_some()) || sentence.chars().any(|c| c.is_ascii_digit()) {
        score += 2;
    }
    // Names ("Robert Hooke") and abbreviations ("ATP", "mRNA") name what a point is about.
    let names = sentence
        .split_whitespace()
        .skip(1)
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| {
            let named = w.chars().next().is_some_and(char::is_uppercase) && w.chars().any(char::is_lowercase);
            let abbreviation = w.chars().filter(|c| c.is_uppercase()).count() >= 2;
            named || abbreviation
        })
        .count();
    score += i32::try_from(names.min(3)).unwrap_or(3);
    if lower.contains(" is ")
        || lower.contains(" are ")
        || lower.contains(" was ")
        || lower.contains(" were ")
    {
        score += 1;
    }
    // Too short to say anything, or too long to recall as one thing; a statement of a fair
    // length says something.
    match words {
        0..=4 => score -= 4,
        5..=7 => {}
        8..=35 => score += 1,
        36..=50 => score -= 1,
        _ => score -= 3,
    }
    let first = lower.split_whitespace().next().unwrap_or_default();
    // Not self-contained: it leans on the sentence before.
    if matches!(first, "it" | "this" | "these" | "they" | "he" | "she" | "its" | "their" | "such" | "that") {
        score -= 3;
    }
    if sentence.ends_with('?') || lower.contains(" i ") || lower.contains(" we ") || lower.contains(" you ") {
        score -= 4;
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROSE: &str = "The mitochondrion is the organelle that makes most of a cell's ATP. \
        It has two membranes. However, ribosomes build proteins by reading messenger RNA. \
        In 1665, Robert Hooke named the cell after the small rooms of a monastery. \
        We will look at this again later.";

    #[test]
    fn dense_notes_give_a_point_for_each_fact_however_short() {
        let notes = "The French Revolution began in 1789. On 14 July 1789 a crowd stormed the Bastille, a \
            royal fortress and prison in Paris. In August the National Assembly adopted the Declaration of the \
            Rights of Man and of the Citizen. King Louis XVI was executed by guillotine in January 1793. During \
            the Reign of Terror, led by Maximilien Robespierre, thousands of suspected enemies were executed. \
            The Revolution ended when Napoleon Bonaparte seized power in a coup in November 1799.";
        let got = drafts(notes);
        assert_eq!(got.len(), 6, "one a sentence: {got:#?}");
    }

    #[test]
    fn prose_gives_its_informative_sentences_quoted_exactly_with_cues() {
        let got = drafts(PROSE);
        // The sentences that state most; not the one leaning on the sentence before, nor the
        // remark to the reader.
        assert_eq!(got.len(), 2, "{got:#?}");
        assert!(
            got.iter().all(|(c, _, _)| !c.contains("two membranes") && !c.contains("look at")),
            "{got:#?}"
        );
        for (_, _, quote) in &got {
            assert!(PROSE.contains(quote.as_str()), "{quote}");
        }
        assert_eq!(got[0].0, "The mitochondrion is the organelle that makes most of a cell's ATP.");
        assert_eq!(got[0].1, "What is the mitochondrion?");
        let everything = drafts(&format!("{PROSE} {PROSE}").replace("We will", "You will"));
        assert!(everything.iter().all(|(c, _, _)| !c.contains("look at this again")), "{everything:#?}");
    }

    #[test]
    fn cues_blank_the_key_term_and_connectives_go() {
        let hooke = "In 1665, Robert Hooke named the cell after the small rooms of a monastery.";
        assert_eq!(
            cue(hooke),
            "Fill the gap: In …, Robert Hooke named the cell after the small rooms of a monastery."
        );
        assert_eq!(
            cue("Ribosomes build proteins by reading messenger RNA."),
            "Fill the gap: Ribosomes build proteins by reading … RNA."
        );
        assert_eq!(self_contained("However, ribosomes build proteins."), "Ribosomes build proteins.");
        assert_eq!(
            cue("Oxygen is transported around the body by haemoglobin."),
            "Fill the gap: Oxygen is transported around the body by …."
        );
        assert_eq!(cue("Photosynthesis is the process plants use to make sugar."), "What is photosynthesis?");
        assert_eq!(cue("Rome is the capital of Italy."), "What is Rome?");
        // Not the verb after the subject, nor a small word.
        assert_eq!(
            cue("Evaporation happens when the sun heats water in oceans and lakes."),
            "Fill the gap: Evaporation happens when the sun heats water in … and lakes."
        );
        assert_eq!(
            cue("The nucleus stores the cell's DNA."),
            "Fill the gap: The nucleus stores the cell's …."
        );
        assert_eq!(
            cue("Mars looks red because its surface is rich in iron oxide."),
            "Fill the gap: Mars looks red because its surface is rich in iron …."
        );
        assert_eq!(
            cue("The immune system has two main branches."),
            "Fill the gap: The immune system has … main branches."
        );
        assert_eq!(cue("Mitochondria produce ATP."), "Fill the gap: Mitochondria produce ….");
        // Not a word the sentence says again, which would fill its own gap.
        let again = cue("After an infection, memory cells remember the infection and respond faster.");
        assert!(again.contains("After an infection,") && again.contains("the infection"), "{again}");
    }

    #[test]
    fn lists_and_tables_become_points_that_quote_their_lines() {
        let md = "# Planets\n\nThe inner planets are rocky:\n\n- Mercury\n- Venus is the hottest planet in the solar system.\n\n\
                  | Planet | Orbital period | Moons |\n|---|---|---|\n| Mercury | 88 days | 0 |\n| Mars | 687 days | 2 |\n";
        let all = units(md);
        let contents: Vec<&str> = all.iter().map(|u| u.content.as_str()).collect();
        assert!(contents.contains(&"The inner planets are rocky: Mercury"), "{contents:?}");
        assert!(contents.contains(&"Venus is the hottest planet in the solar system."), "{contents:?}");
        assert!(contents.contains(&"Mars: orbital period 687 days, moons 2."), "{contents:?}");
        for unit in &all {
            let quote = &md[unit.span.clone()];
            assert!(!quote.starts_with("- ") && !quote.trim().is_empty(), "{quote:?}");
        }
        let mars = all.iter().find(|u| u.content.starts_with("Mars")).unwrap();
        assert_eq!(&md[mars.span.clone()], "| Mars | 687 days | 2 |");
        assert_eq!(mars.cue.as_deref(), Some("Mars: orbital period? moons?"));
    }

    #[test]
    fn sentences_are_not_cut_at_abbreviations_or_initials() {
        let line = "J. S. Bach wrote fugues, e.g. the Art of Fugue. It has 3.5 hours of music. Done.";
        let spans: Vec<&str> = sentence_spans(line).into_iter().map(|s| &line[s]).collect();
        assert_eq!(
            spans,
            ["J. S. Bach wrote fugues, e.g. the Art of Fugue.", "It has 3.5 hours of music.", "Done."]
        );
        assert!(repeats("Ribosomes make proteins.", "The ribosomes make all the proteins of a cell."));
        assert!(!repeats("Ribosomes make proteins.", "Lysosomes digest waste."));
    }
}
