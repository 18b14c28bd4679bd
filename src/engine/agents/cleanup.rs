//! The transcript clean-up agent: puts a spoken answer's misheard terms right from the set's
//! own vocabulary and writes spoken mathematics as `$…$`, never adding content. Its answer is
//! checked: a "correction" that brings in words neither heard nor among the set's terms is not
//! taken, and the words-and-sounds correction stands instead.

use std::collections::HashSet;

use serde::Deserialize;
use warren_app::voice::Correction;

use super::{ask_json, json_object, json_request};
use crate::llm::brief::CleanupBrief;
use crate::llm::{Provider, Purpose, Request, Tier};
use crate::text::vocabulary as terms;

/// New words (not heard, not a term, not mathematics) a clean-up may bring in: a spelling
/// split or joined ("my selenium" → "mycelium"), never a new thought.
const NEW_WORDS: usize = 2;

pub fn request(brief: CleanupBrief) -> Request {
    // The stable part first (what the agent is, the rules, the set's terms), the transcript
    // after: the same set's requests share their opening.
    let mut system = format!(
        "You correct speech-to-text transcripts of a learner's spoken answers in a recall session on \
         \"{}\". The recogniser does not know the subject, so it mishears its terms as common words \
         (\"my selenium\" for \"mycelium\"). Put right only words it misheard: when a word or a few \
         words sound like one of the terms below, write the term. Write spoken mathematics as LaTeX \
         between dollar signs (\"x squared plus one\" becomes \"$x^2 + 1$\"). Never add, remove or \
         reorder what the learner said, never complete or answer it, and never correct their facts: \
         only how their words were written down.\n\nThe set's terms:\n",
        brief.set_name
    );
    system.push_str(&terms::prompt(&brief.terms));
    system.push_str(
        "\n\nAnswer with JSON only, in this shape:\n\
         {\"text\":\"the transcript, corrected\",\"corrections\":[{\"heard\":\"my selenium\",\"meant\":\"mycelium\"}]}",
    );
    let max_tokens = u32::try_from(brief.transcript.len() / 2 + 300).unwrap_or(u32::MAX).min(4000);
    let cache_at = vec![system.len()];
    let user = brief.transcript.clone();
    json_request(system, cache_at, user, max_tokens, Tier::Fast, Purpose::Cleanup(brief))
}

#[derive(Deserialize)]
struct Answer {
    text: String,
    #[serde(default)]
    corrections: Vec<Correction>,
}

/// The corrected transcript and its corrections, if the answer is the expected JSON and adds
/// nothing the learner did not say.
pub fn parse(text: &str, brief: &CleanupBrief) -> Option<(String, Vec<Correction>)> {
    let answer: Answer = serde_json::from_str(json_object(text)?).ok()?;
    let corrected = answer.text.trim().to_string();
    if corrected.is_empty() || corrected.chars().count() > brief.transcript.chars().count() * 2 + 40 {
        return None;
    }
    let known: HashSet<String> =
        words(&brief.transcript).into_iter().chain(brief.terms.iter().flat_map(|t| words(t))).collect();
    let new = words(&without_math(&corrected)).into_iter().filter(|w| !known.contains(w)).count();
    if new > NEW_WORDS {
        return None;
    }
    let corrections = answer
        .corrections
        .into_iter()
        .filter(|c| c.heard != c.meant && !c.meant.trim().is_empty() && corrected.contains(c.meant.trim()))
        .collect();
    Some((corrected, corrections))
}

/// Asks, retries once on a malformed answer, and otherwise corrects by sound and spelling.
pub async fn correct(provider: &dyn Provider, brief: CleanupBrief) -> (String, Vec<Correction>) {
    match ask_json(provider, &request(brief.clone()), "clean-up", |text| parse(text, &brief)).await {
        Ok(Some(done)) => return done,
        Ok(None) => {}
        Err(err) => tracing::warn!("transcript clean-up unavailable: {err}"),
    }
    terms::correct(&brief.transcript, &brief.terms)
}

/// A text's words, lowercase.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// A text without what stands between dollar signs.
fn without_math(text: &str) -> String {
    text.split('$').step_by(2).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brief(transcript: &str) -> CleanupBrief {
        CleanupBrief {
            set_name: "Fungi".into(),
            terms: vec!["mycelium".into(), "hyphae".into()],
            transcript: transcript.into(),
        }
    }

    #[test]
    fn corrections_are_taken_when_they_add_nothing() {
        let b = brief("my selenium is made of high fee and x squared plus one");
        let answer = r#"{"text":"mycelium is made of hyphae and $x^2 + 1$",
            "corrections":[{"heard":"my selenium","meant":"mycelium"},{"heard":"high fee","meant":"hyphae"},
                           {"heard":"nothing","meant":"nowhere"}]}"#;
        let (text, fixes) = parse(answer, &b).expect("taken");
        assert_eq!(text, "mycelium is made of hyphae and $x^2 + 1$");
        assert_eq!(fixes.len(), 2, "a correction not in the text is dropped: {fixes:?}");
    }

    #[test]
    fn an_answer_that_adds_content_or_is_not_json_is_refused() {
        let b = brief("my selenium grows");
        let added = r#"{"text":"mycelium grows underground through soil connecting trees","corrections":[]}"#;
        assert_eq!(parse(added, &b), None);
        assert_eq!(parse("mycelium grows", &b), None);
        assert_eq!(parse(r#"{"text":"  "}"#, &b), None);
    }
}
