//! The question at each rung of the hint ladder: the point's cue, a nudge towards a word not yet
//! said, the point with its words gapped, and another angle from a linked note.

use warren_app::ladder::Rung;

use super::cue;
use crate::llm::brief::Focus;
use crate::text::content_words;

/// The question for the point under discussion at its rung of the hint ladder; `variant`
/// words it differently (to never say the same sentence twice in a row). `said` is the
/// learner's latest message: a nudge is towards a word neither they nor the question have
/// said, and the gaps leave both in view.
pub(in crate::llm::offline) fn ask(focus: &Focus, set: &str, variant: usize, said: &str) -> String {
    let point = &focus.point;
    let learner: Vec<String> = content_words(said).iter().map(|w| w.to_lowercase()).collect();
    let said = &format!("{said} {}", cue(point, set));
    match focus.rung {
        Rung::Cue if focus.revisit => {
            ["One from earlier, asked fresh:", "Back to one from before:", "Once more, fresh:"][variant % 3]
                .to_string()
                + " "
                + &cue(point, set)
        }
        Rung::Cue => match variant % 3 {
            0 => cue(point, set),
            1 => format!("Again: {}", cue(point, set)),
            _ => format!("Let's stay with this one. {}", cue(point, set)),
        },
        Rung::Angle => angle(focus, variant),
        Rung::Nudge => {
            let words = content_words(&point.content);
            // A word counts as said when the learner used one sharing its first five letters
            // ("mitochondrion" for "Mitochondria").
            let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
            let said: Vec<String> = content_words(said).iter().map(|w| stem(w)).collect();
            let unsaid: Vec<&String> = words.iter().filter(|w| !said.contains(&stem(w))).collect();
            let start = |w: &str| w.to_lowercase().chars().take(2).collect::<String>();
            // A key word is no adverb ("eventually"), nor a figure (its first digit would be
            // most of the answer), and its first letters are none the learner's words begin
            // with: "ev" after "evaporation?" reads as that answer.
            let telling = |w: &&&String| {
                !w.to_lowercase().ends_with("ly")
                    && !w.chars().any(|c| c.is_ascii_digit())
                    && !learner.iter().any(|s| s.starts_with(&start(w)))
            };
            // A name first: what a "which" or "who" question is after ("Jupiter", not
            // "largest" beside the question's "biggest").
            let named =
                |w: &&&String| w.chars().next().is_some_and(char::is_uppercase) && w.chars().count() >= 5;
            let figure = |w: &&&String| w.chars().any(|c| c.is_ascii_digit());
            let number = unsaid.iter().find(figure);
            match unsaid
                .iter()
                .filter(telling)
                .max_by_key(|w| (named(w), w.chars().count()))
                .or_else(|| unsaid.iter().filter(|w| !figure(w)).max_by_key(|w| w.chars().count()))
                .copied()
            {
                // Only a figure is left unsaid: its first digits would be most of it, so the
                // nudge says how long it is.
                None if let Some(number) = number => {
                    let digits = number.chars().filter(char::is_ascii_digit).count();
                    let long = if digits == 1 { "a single digit".to_string() } else { format!("{digits} digits") };
                    [
                        format!("A nudge: what is missing is a number of {long}. Which is it?"),
                        format!("Here is a start: it comes down to a figure of {long}. Which one?"),
                        format!("Think of the number it needs, {long} long. What is it?"),
                    ][variant % 3]
                        .clone()
                }
                Some(word) => {
                    let start: String = word.chars().take(2).collect();
                    [
                        format!("A nudge: one of the key words starts with \"{start}\". What is it?"),
                        format!("Here is a start: a key word begins \"{start}\". Which word is that?"),
                        format!("Think of a word beginning \"{start}\". Where does it lead?"),
                    ][variant % 3]
                        .clone()
                }
                // Every word said ("energy? they step the voltage down…"): a first letter of
                // one would point at a word the learner has; the slip is in how they join.
                None if !words.is_empty() => [
                    "Every word of it is in what you said; one detail is the wrong way round or on the wrong thing. Which?",
                    "You have all its words. Look again at how they fit together: one detail is off.",
                    "The words are right; one detail is not. Which one would you change?",
                ][variant % 3]
                    .to_string(),
                None => format!("A nudge: {}", cue(point, set)),
            }
        }
        Rung::Gaps => {
            let masked = masked(point.content.trim().trim_end_matches('.'), said);
            let (gaps, blanks) = match masked.split_whitespace().filter(|t| t.contains("\\_")).count() {
                1 => ("gap", "blank"),
                _ => ("gaps", "blanks"),
            };
            [
                format!("Part of it: \"{masked}\". What fills the {gaps}?"),
                format!("Fill in the {gaps}: \"{masked}\""),
                format!("Here is its shape: \"{masked}\". What goes in the {blanks}?"),
            ][variant % 3]
                .clone()
        }
        Rung::Answer => {
            let answer = ensure_period(point.content.trim());
            [
                format!("Here it is: {answer} Say it back in your own words."),
                format!("This is the one: {answer} How would you put it yourself?"),
                format!("The answer: {answer} Now say it your way."),
            ][variant % 3]
                .clone()
        }
    }
}

/// Another side of the point: the learner's notes on it if there are any, else a question
/// shaped by what the point holds (a date, a name, or a function).
fn angle(focus: &Focus, variant: usize) -> String {
    let point = &focus.point;
    let notes = focus.notes.iter().map(|n| n.title.trim()).filter(|t| !t.is_empty()).collect::<Vec<_>>();
    if let Some(title) = notes.get(variant % notes.len().max(1)) {
        return [
            format!("Think back to your notes, \"{title}\": what do they say that bears on this?"),
            format!("Your notes \"{title}\" touch on it: what do you remember from them?"),
            format!("Come at it through \"{title}\": what fits here?"),
        ][variant % 3]
            .clone();
    }
    let content = point.content.trim();
    // A figure, in digits or words ("about a million nephrons"); not "one" as a word for a thing.
    let has_number = content.chars().any(|c| c.is_ascii_digit())
        || crate::text::tokens(content)
            .iter()
            .any(|t| t.quantity.is_some() && !matches!(t.word.as_str(), "one" | "a" | "an"));
    // A capitalised word after the first one: a person, place or named thing ("Caesar",
    // "ATP"), not a letter of notation ("O(n log n)").
    // "Which planet…?", "Who…?": the answer is a name, whichever word of the point it is.
    let asked = point.question().unwrap_or_default().to_lowercase();
    let first =
        content.split_whitespace().next().unwrap_or_default().trim_matches(|c: char| !c.is_alphanumeric());
    let asks_a_name = asked.starts_with("who ")
        || (asked.starts_with("which ")
            && crate::text::kinship::nouns().is_some_and(|n| n.names_one(&first.to_lowercase())));
    let has_name = content.split_whitespace().skip(1).any(|w| {
        let letters: Vec<char> = w.chars().take_while(|c| c.is_alphabetic()).collect();
        letters.len() >= 2 && letters[0].is_uppercase()
    });
    // "Runoff: water that…": a term and what it means; the term is half the answer.
    let termed = content.split_whitespace().next().is_some_and(|w| w.ends_with(':'));
    let questions: [&str; 3] = if asks_a_name {
        [
            "Think of who or what is named in it. What part do they play?",
            "Start from the names involved: who or what comes to mind?",
            "Which person, place or thing is at the centre of it?",
        ]
    } else if asked.starts_with("why ") {
        [
            "Think of the cause: what makes it so?",
            "Start from what lies behind it: what brings it about?",
            "What would have to be true for it to happen?",
        ]
    } else if has_date(content) {
        [
            "Come at it from the time: when was it, and what happened then?",
            "Think of the date first. What happened around it?",
            "Place it in time: what came before, and what followed?",
        ]
    } else if has_number {
        [
            "Think of the amount in it: how much, or how many, of what?",
            "There is a number in it. What does it measure?",
            "Start from the figure: what is counted or measured?",
        ]
    } else if termed {
        [
            "It has a name of its own: what is it called, and what happens in it?",
            "Start from the word for it. What does that word describe?",
            "Name it first, then say what it covers.",
        ]
    } else if asked.starts_with("where ") {
        [
            "Think of the place: where does it happen, and what is found there?",
            "Start from where it is: which part or place comes to mind?",
            "Picture the route: where does it start, and where does it lead?",
        ]
    } else if has_name {
        [
            "Think of who or what is named in it. What part do they play?",
            "Start from the names involved: who or what comes to mind?",
            "Which person, place or thing is at the centre of it?",
        ]
    } else {
        [
            "Think of what it does, or what it is for, rather than what it is called.",
            "What job does it do? Start from there.",
            "Picture it at work: what happens, and what comes of it?",
        ]
    };
    questions[variant % 3].to_string()
}

/// Whether a text has a date: a year ("1066", "44 BC"), a century, or a month.
fn has_date(text: &str) -> bool {
    const MARKS: &[&str] = &[
        "bc",
        "bce",
        "ad",
        "ce",
        "century",
        "centuries",
        "january",
        "february",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    words.iter().any(|w| {
        MARKS.contains(&w.as_str())
            || (w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1000..=2100).contains(&y)))
    })
}

/// The content with every other content word blanked out, a blank as long as its word; a word
/// the learner has just said (`said`) stays in view, so the gaps ask for what they have not.
/// The blanks are escaped underscores: the reply is Markdown, and bare ones beside punctuation
/// ("in ___, where … (___ red") would open and close emphasis and vanish from the page.
pub(in crate::llm::offline) fn masked(content: &str, said: &str) -> String {
    let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let said: Vec<String> = content_words(said).iter().map(|w| stem(w)).collect();
    let kept = gapped(content, &said);
    // Everything said already (in the wrong order, or wrongly joined): gaps as if nothing was.
    if kept.contains("\\_") { kept } else { gapped(content, &[]) }
}

fn gapped(content: &str, said: &[String]) -> String {
    let stem = |w: &str| w.to_lowercase().chars().take(5).collect::<String>();
    let key: Vec<String> = content_words(content)
        .into_iter()
        .map(|w| w.to_lowercase())
        .filter(|w| !said.contains(&stem(w)))
        .collect();
    let mut hide = false;
    content
        .split_whitespace()
        .map(|token| {
            let word = |c: char| c.is_alphanumeric() || c == '\'' || c == '-';
            let core = token.trim_matches(|c: char| !word(c));
            // A letter alone ("n" of "O(n log n)") or notation ("O(n") is left whole: a blank
            // there reads as a stray bracket, not a gap.
            let notation = core.chars().count() < 2 || core.contains(['(', ')']);
            if core.is_empty() || notation || !key.contains(&core.to_lowercase()) {
                return token.to_string();
            }
            hide = !hide;
            if !hide {
                return token.to_string();
            }
            let (start, end) = token.find(core).map_or((0, token.len()), |at| (at, at + core.len()));
            let blank = "\\_".repeat(core.chars().count().clamp(3, 12));
            format!("{}{blank}{}", &token[..start], &token[end..])
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn ensure_period(text: &str) -> String {
    if text.ends_with(['.', '!', '?']) { text.to_string() } else { format!("{text}.") }
}
