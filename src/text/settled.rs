//! What a learner settles on: a claim taken back in the same breath ("calcite, no wait, it's
//! quartz") is no answer, so the words it was said in are dropped before a message is judged.
//! Spoken answers, transcribed, are full of these.

use std::borrow::Cow;

/// Words that take back what came before them in the sentence. Each is the learner's own
/// correction, not a turn of phrase: a lone "I mean" mostly says the same thing again ("the
/// concentration, I mean the level"), and a lone "no" is as often an answer ("no, it can't").
const TAKE_BACK: &[&[&str]] = &[
    &["no", "wait"],
    &["wait", "no"],
    &["no", "hold", "on"],
    &["hold", "on", "no"],
    &["no", "hang", "on"],
    &["hang", "on", "no"],
    &["no", "actually"],
    &["actually", "no"],
    &["no", "sorry"],
    &["sorry", "no"],
    &["no", "i", "mean"],
    &["wait", "i", "mean"],
    &["sorry", "i", "mean"],
    &["scratch", "that"],
    &["or", "rather"],
];

/// Words a correction may open with before it says anything.
const FILLERS: &[&str] =
    &["um", "uh", "er", "erm", "hmm", "like", "hang", "hold", "on", "wait", "sorry", "no", "actually"];

/// Words that open a clause, so that a correction takes back no more than its own.
const CLAUSE_OPENERS: &[&str] =
    &["and", "but", "so", "because", "cause", "cos", "then", "while", "whereas", "although", "though"];

/// What may follow a taking-back phrase and make it something else: "wait, no one knows",
/// "sorry, no idea" (giving up, which is judged whole).
const NOT_AFTER: &[&str] = &["one", "idea", "clue", "longer", "matter", "way", "doubt"];

/// The message without the claims the learner took back: each taking-back phrase drops itself
/// and the words it takes back, back to the latest of where its sentence or clause starts (a
/// comma, "and", "because"…) and where the words put in their place begin again ("over to
/// Europe, no wait, over toward Europe" takes back "over to Europe"). Unchanged (borrowed) when
/// nothing is taken back.
pub fn settled(message: &str) -> Cow<'_, str> {
    let words = words_at(message);
    let mut cuts: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let found = TAKE_BACK.iter().find(|phrase| {
            phrase.len() <= words.len() - i
                && phrase.iter().zip(&words[i..]).all(|(p, (_, w))| *p == w.as_str())
                && words.get(i + phrase.len()).is_none_or(|(_, next)| !NOT_AFTER.contains(&next.as_str()))
        });
        let Some(phrase) = found else {
            i += 1;
            continue;
        };
        let after = i + phrase.len();
        let (last_start, last) = &words[after - 1];
        let end = last_start + last.len();
        // "…whole groups, no wait, that's cluster": the learner names what they described,
        // and takes back only which thing it was asked of ("that's not it" takes it back).
        let next: Vec<&str> = words[after..].iter().take(3).map(|(_, w)| w.as_str()).collect();
        let renamed = match next.as_slice() {
            ["that's" | "thats" | "that’s", word, ..] | ["that", "is", word] => {
                !matches!(*word, "not" | "wrong")
            }
            _ => false,
        };
        if renamed {
            i = after;
            continue;
        }
        let between = |j: usize| &message[words[j - 1].0 + words[j - 1].1.len()..words[j].0];
        // The first word of the correction, past any filler.
        let again = words[after..].iter().map(|(_, w)| w.as_str()).find(|w| !FILLERS.contains(w));
        // The sentence's first word, then each later start of a clause before the phrase.
        let sentence = (0..i).rev().find(|&j| j == 0 || between(j).contains(['.', '!', '?', ';', '\n']));
        if let Some(sentence) = sentence {
            let from = (sentence + 1..i)
                .filter(|&j| {
                    between(j).contains(',')
                        || CLAUSE_OPENERS.contains(&words[j].1.as_str())
                        || again == Some(words[j].1.as_str())
                })
                .max()
                .unwrap_or(sentence);
            cuts.push(words[from].0..end);
        }
        i = after;
    }
    if cuts.is_empty() {
        return Cow::Borrowed(message);
    }
    // What is kept between the cuts, each piece without the commas the cut left at its ends.
    let mut kept = Vec::new();
    let mut from = 0;
    for cut in cuts.iter().map(|c| c.start..c.end).chain(std::iter::once(message.len()..message.len())) {
        let piece = &message[from..cut.start.max(from)];
        let piece = if from == 0 {
            piece
        } else {
            piece.trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, ',' | '.' | '-' | '…' | ':' | '!')
            })
        };
        let piece = piece.trim_end_matches(|c: char| c.is_whitespace() || c == ',');
        if !piece.is_empty() {
            kept.push(piece);
        }
        from = from.max(cut.end);
    }
    // All of it taken back, with nothing said after: keep the message as it was.
    if kept.is_empty() { Cow::Borrowed(message) } else { Cow::Owned(kept.join(" ")) }
}

/// The message's words, lowercased, each with where it starts (apostrophes kept inside).
fn words_at(message: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in message.char_indices().chain(std::iter::once((message.len(), ' '))) {
        let inside = c.is_alphanumeric() || (matches!(c, '\'' | '’') && start.is_some());
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, message[s..i].to_lowercase()));
                start = None;
            }
            (true, Some(_)) | (false, None) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::settled;

    #[test]
    fn a_claim_taken_back_is_dropped_with_its_sentence_so_far() {
        assert_eq!(
            settled("calcite no wait hang on i think its actually quartz thats the one that fizzes"),
            "hang on i think its actually quartz thats the one that fizzes"
        );
        assert_eq!(
            settled("Mitochondria make ATP. Ribosomes make lipids, no wait, proteins"),
            "Mitochondria make ATP. proteins"
        );
        assert_eq!(
            settled("it turns it on no sorry its the opposite it switches it off"),
            "its the opposite it switches it off"
        );
        assert_eq!(settled("two half lives, or rather four or five"), "four or five");
        // Only the clause it is in, or where the correction starts again.
        assert_eq!(
            settled("they're immutable by default and you gotta put mut before no wait after let"),
            "they're immutable by default after let"
        );
        assert_eq!(
            settled("it goes across the atlantic over to like europe no wait over toward europe"),
            "it goes across the atlantic over toward europe"
        );
    }

    #[test]
    fn what_only_sounds_like_taking_back_is_kept() {
        for kept in [
            "wait, no, is that the golgi?",
            "the nucleus, I mean the bit in the middle, holds the DNA",
            "I think it's the golgi, sorry no idea really",
            "wait no one knows that",
            "no, it can't cross the membrane",
            "the golgi, no wait",
            "you pick whole groups, no wait, that's cluster",
        ] {
            assert_eq!(settled(kept), kept, "{kept}");
        }
    }
}
