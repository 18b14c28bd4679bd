//! The offline evaluator: which points a message recalls or nearly recalls, weighed by
//! `judge/` from the words and, with the sentence model, the meaning.

use serde_json::json;

use crate::llm::brief::{EvaluatorBrief, MessageKind, PointBrief};

use crate::embed::Embedder;
use crate::text::is_dont_know;

pub(super) fn evaluator(brief: &EvaluatorBrief, embedder: Option<&Embedder>) -> serde_json::Value {
    // A question or small talk is no attempt, so it nearly recalls nothing (it may still say a
    // point outright).
    let form = super::kinds::kind_of(&brief.learner_message);
    // What a question says is in its statements: "I heard the ice falls into Saturn. What
    // are the rings made of?" names the rings' point, but says nothing of it.
    // What it says is read with its chat shorthand written out ("lists r mutable").
    let written = written_out(brief);
    let stated = if form == MessageKind::Question { Some(statements(&written)) } else { None };
    let read;
    let brief = match stated.map_or(written, std::borrow::Cow::Owned) {
        std::borrow::Cow::Borrowed(_) => brief,
        std::borrow::Cow::Owned(message) => {
            read = EvaluatorBrief { learner_message: message, ..brief.clone() };
            &read
        }
    };
    let meaning = embedder.and_then(|embedder| meaning(embedder, brief));
    let context = super::judge::Context::new(brief, meaning);
    let tries = form.climbs();
    let mut recalled = Vec::new();
    // The words of the points it recalls.
    let mut recalled_words: Vec<crate::text::Token> = Vec::new();
    // Near misses, each with the point's words the message has.
    let mut near: Vec<(serde_json::Value, Vec<String>)> = Vec::new();
    let question = super::judge::question(brief);
    let said = crate::text::tokens(&brief.learner_message);
    let mut verdicts: Vec<_> = brief.unchecked.iter().map(|point| context.judge(point)).collect();
    // A run-on that turns to another thing ("…every 75 years. oh and the meteor is the flash
    // in the sky and a meteorite the chunk that lands") says each thing in its own part, which
    // the whole, read as one, blurs: a part that recalls a point by itself recalls it, unless
    // the whole rules it out.
    if tries {
        for part in turns(&brief.learner_message) {
            let alone = EvaluatorBrief { learner_message: part, ..brief.clone() };
            let read = embedder.and_then(|embedder| self::meaning(embedder, &alone));
            let context = super::judge::Context::new(&alone, read);
            for (point, verdict) in brief.unchecked.iter().zip(verdicts.iter_mut()) {
                if verdict.recalled || verdict.flags.rule_out() {
                    continue;
                }
                let by_itself = context.judge(point);
                if by_itself.recalled {
                    verdict.recalled = true;
                    verdict.near = false;
                    verdict.score = verdict.score.max(by_itself.score);
                }
            }
        }
    }
    for (point, verdict) in brief.unchecked.iter().zip(verdicts.iter_mut()) {
        // A gap the tutor left in the point ("Stomata are small pores on the … of leaves.")
        // is answered by its words, whatever else the message shares with the point: "on the
        // top surface" is not a recall, "Calvin" for "The … cycle" is.
        if let Some(gap) = question.and_then(|q| cloze_gap(q, &point.content)) {
            // Its word, or another for the same thing ("lumps" for "chunks").
            let synonyms = |a: &str, b: &str| crate::text::kinship::nouns().is_some_and(|n| n.synonyms(a, b));
            let filled = |h: &crate::text::Token| {
                said.iter().any(|t| !t.negated && (t.same_as(h) || synonyms(&t.word, &h.word)))
            };
            // Said against the rest of the point, it is no recall: "reabsorb less water, so
            // it's dilute" fills the gap of "reabsorb more …, producing concentrated urine".
            // Another name put over one the point gives is a wrong detail, as a sibling is.
            let renamed = renames(&point.content, &said);
            verdict.flags.sibling |= renamed;
            let flags = &verdict.flags;
            let against = flags.denied
                || flags.opposed
                || flags.opposite
                || flags.wrong_number
                || flags.swapped
                || renamed;
            verdict.recalled = tries && !against && gap.iter().all(filled);
            verdict.near = !verdict.recalled && (verdict.near || gap.iter().any(filled));
            if verdict.recalled {
                verdict.score = verdict.score.max(GAP_FILLED);
            }
        }
    }
    ride_on_another(&brief.unchecked, &mut verdicts);
    // A story from the learner's life is small talk, not a try, though it has a point's words
    // ("my dad still spells our surname with 'B for bravo'").
    if form == MessageKind::SmallTalk && super::kinds::tells_a_story(&brief.learner_message) {
        for verdict in &mut verdicts {
            verdict.recalled = false;
        }
    }
    for (point, verdict) in brief.unchecked.iter().zip(verdicts) {
        if verdict.recalled {
            recalled_words.extend(crate::text::tokens(&point.content));
            let confidence = (0.5 + verdict.score / 2.0).min(1.0);
            recalled.push(json!({"pointId": point.id, "confidence": (confidence * 100.0).round() / 100.0}));
        } else if verdict.near && tries {
            // The point's words as it writes them ("Caesar", "BC"), not as they were compared.
            let as_written = |word: &String| {
                point
                    .content
                    .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
                    .find(|w| w.eq_ignore_ascii_case(word))
                    .map_or_else(|| word.clone(), str::to_string)
            };
            // What the learner said right: the point's words the message has, not those it
            // took from the question.
            let asked = question.map(crate::text::tokens).unwrap_or_default();
            let own = |word: &&String| {
                crate::text::tokens(word).iter().all(|t| !asked.iter().any(|q| q.same_as(t)))
            };
            // A name is right only as said: the model reads "kerensky" near "Lenin".
            let named_as_said = |word: &&String| {
                !as_written(word).starts_with(char::is_uppercase)
                    || crate::text::tokens(word).iter().all(|t| said.iter().any(|m| m.same_as(t)))
            };
            let close = verdict
                .present
                .iter()
                .filter(own)
                .filter(named_as_said)
                .take(3)
                .map(as_written)
                .collect::<Vec<_>>()
                .join(", ");
            let flags = &verdict.flags;
            let off = if flags.wrong_number {
                Some(format!("a number {}", super::IS_OFF))
            } else if flags.swapped {
                Some(super::WRONG_WAY_ROUND.to_string())
            } else if flags.sibling || flags.another_point || flags.opposite {
                Some(format!("a detail {}", super::IS_OFF))
            } else if flags.unsaid_number {
                Some("its figure is missing".to_string())
            } else {
                None
            };
            let feedback = match (close.is_empty(), off) {
                (true, Some(off)) => format!("Near, but {off}."),
                (false, Some(off)) => format!("Right about {close}, but {off}."),
                (true, None) => "Near, but not it yet.".to_string(),
                (false, None) => format!("On the right track with {close}."),
            };
            near.push((json!({"pointId": point.id, "feedback": feedback}), verdict.present));
        }
    }
    // Recalls that take what came before the message: a point said in two goes (the try
    // before this one, and this one adding the rest: "the ribosomes put them together", then
    // "oh, from the messenger RNA"), or the blanks of its shape filled ("droplets, heavy,
    // fall"). Either needed the tutor's help between.
    if tries {
        let nearly: Vec<&str> = near.iter().filter_map(|(n, _)| n["pointId"].as_str()).collect();
        for id in together(brief, embedder, &nearly).into_iter().chain(filled_gaps(brief)) {
            if recalled.iter().any(|r| r["pointId"].as_str() == Some(id.as_str())) {
                continue;
            }
            near.retain(|(n, _)| n["pointId"].as_str() != Some(id.as_str()));
            if let Some(point) = brief.unchecked.iter().find(|p| p.id == id) {
                recalled_words.extend(crate::text::tokens(&point.content));
            }
            recalled.push(json!({"pointId": id, "confidence": TOGETHER}));
        }
    }
    // "I don't know, something about…" stays a "don't know" (both climb the ladder), but a
    // near miss said before the rest is given up on is an attempt: "some German geographer,
    // can't remember his name" tries first.
    let tried_first = form == MessageKind::DontKnow && {
        let asked = question.map(crate::text::tokens).unwrap_or_default();
        let nearly: Vec<crate::text::Token> = near
            .iter()
            .flat_map(|(_, present)| present.iter().flat_map(|w| crate::text::tokens(w)))
            .collect();
        crate::text::said_before_dont_know(&brief.learner_message).is_some_and(|before| {
            let new: Vec<crate::text::Token> = crate::text::tokens(&before)
                .into_iter()
                .filter(|t| !asked.iter().any(|q| q.same_as(t)))
                .collect();
            // Or an answer of its own comes first, with a near miss, and trails off into what
            // escapes the learner: "the verb stays chi whoever's doing it, wo chi, ta chi… not
            // sure what happens for the past tense though" (not "…I genuinely don't know").
            new.iter().any(|t| nearly.iter().any(|n| n.same_as(t)))
                || (new.len() >= 5 && !near.is_empty() && super::judge::trails_off(&brief.learner_message))
        })
    };
    // A message that says one point whole is about that point: nearness in meaning alone to
    // another is the kinship of neighbouring facts, and words the point it recalls has too
    // ("Caesar", "BC" of the Rubicon's point, for his death's) are there for that point. Neither
    // is a try at the other.
    let own = |word: &String| {
        crate::text::tokens(word).iter().any(|t| !recalled_words.iter().any(|r| r.same_as(t)))
    };
    let near: Vec<serde_json::Value> = near
        .into_iter()
        .filter(|(_, present)| recalled.is_empty() || present.iter().any(own))
        .map(|(n, _)| n)
        .collect();
    let observation = if !recalled.is_empty() {
        "The learner recalled a point in their own words."
    } else if is_dont_know(&brief.learner_message) {
        "The learner does not remember yet; offer a narrower cue."
    } else if !near.is_empty() {
        "The learner is close but has not got the whole point."
    } else {
        ""
    };
    // A message that recalls or nearly recalls something is an attempt, whatever its form.
    let kind = match form {
        _ if !recalled.is_empty() => MessageKind::Attempt,
        MessageKind::DontKnow if near.is_empty() || !tried_first => MessageKind::DontKnow,
        MessageKind::Attempt | MessageKind::Question | MessageKind::SmallTalk if near.is_empty() => form,
        MessageKind::Attempt | MessageKind::DontKnow | MessageKind::Question | MessageKind::SmallTalk => {
            MessageKind::Attempt
        }
    };
    json!({"recalled": recalled, "nearMisses": near, "observation": observation, "messageKind": kind.as_str()})
}

/// A point recalled only by words another recalled point has too is that point's: "a red one
/// on the port side and a green one on starboard" says the lights' point, and the words
/// "port", "side" and "starboard" make no recall of "Port is the left side…, starboard the
/// right", nor a near miss (words of a recalled point make none).
pub(super) fn ride_on_another(points: &[PointBrief], verdicts: &mut [super::judge::Verdict]) {
    use crate::text::tokens;
    let words: Vec<Vec<crate::text::Token>> = points.iter().map(|p| tokens(&p.content)).collect();
    let within = |present: &[String], of: &[crate::text::Token]| {
        let present: Vec<crate::text::Token> = present.iter().flat_map(|w| tokens(w)).collect();
        !present.is_empty() && present.iter().all(|t| of.iter().any(|o| o.same_as(t)))
    };
    let ridden: Vec<usize> = (0..verdicts.len())
        .filter(|&i| {
            verdicts[i].recalled
                && (0..verdicts.len()).any(|j| {
                    j != i
                        && verdicts[j].recalled
                        && within(&verdicts[i].present, &words[j])
                        && !within(&verdicts[j].present, &words[i])
                })
        })
        .collect();
    for i in ridden {
        verdicts[i].recalled = false;
        verdicts[i].near = false;
    }
}

/// The message as the learner settled on it (`text::settled`), with its chat shorthand written
/// out, but for the short forms the points and the tutor use themselves ("r" of a formula,
/// "def" of Python), and the points' names it gives by their initials spelt out ("fdr" is
/// Franklin D Roosevelt).
fn written_out(brief: &EvaluatorBrief) -> std::borrow::Cow<'_, str> {
    let notes: std::collections::HashSet<String> = brief
        .unchecked
        .iter()
        .map(|p| p.content.as_str())
        .chain(
            brief.recent.iter().filter(|m| m.role == crate::llm::Role::Assistant).map(|m| m.content.as_str()),
        )
        .flat_map(|text| {
            text.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '(' | ')' | '"'))
        })
        .map(|w| w.trim_end_matches(['.', '?', '!']).to_lowercase())
        .collect();
    // What the learner settled on: "calcite, no wait, quartz" answers "quartz".
    let settled = crate::text::settled::settled(&brief.learner_message);
    let expanded = match crate::text::shorthand::expand(&settled, |w| notes.contains(w)) {
        std::borrow::Cow::Borrowed(_) => settled,
        std::borrow::Cow::Owned(expanded) => std::borrow::Cow::Owned(expanded),
    };
    // "in 1894 and two years later" dates what follows to 1896.
    let expanded = match crate::text::dates::resolved(&expanded) {
        std::borrow::Cow::Borrowed(_) => expanded,
        std::borrow::Cow::Owned(dated) => std::borrow::Cow::Owned(dated),
    };
    // "fdr", "ccc": a name of the points' by its initials.
    let names = crate::text::initials::names(brief.unchecked.iter().map(|p| p.content.as_str()));
    match crate::text::initials::spell_out(&expanded, &names, |w| notes.contains(w)) {
        std::borrow::Cow::Borrowed(_) => expanded,
        std::borrow::Cow::Owned(spelt) => std::borrow::Cow::Owned(spelt),
    }
}

/// Whether the message puts another name over one the point gives: "kerensky led the
/// bolsheviks in october 1917" fills the gap of "Lenin led the Bolsheviks … in October …", and
/// says the point of someone else. (Each a thing WordNet names, neither a kind of the other.)
fn renames(content: &str, said: &[crate::text::Token]) -> bool {
    let Some(nouns) = crate::text::kinship::nouns() else { return false };
    let point = crate::text::tokens(content);
    let named = |t: &crate::text::Token| t.quantity.is_none() && nouns.names_one(&t.word);
    let strangers: Vec<&crate::text::Token> =
        said.iter().filter(|t| !t.negated && named(t) && !point.iter().any(|k| k.same_as(t))).collect();
    point
        .iter()
        .filter(|k| named(k) && !said.iter().any(|t| t.same_as(k)))
        .any(|k| strangers.iter().any(|t| !nouns.related(&k.word, &t.word)))
}

/// How sure a recall that took what came before the message is (two tries, or gaps filled):
/// the learner needed the tutor's word between.
const TOGETHER: f64 = 0.6;

/// The sentences of a message that do not ask: "I heard the ice falls into Saturn." of
/// "I heard the ice falls into Saturn. What are the rings made of, mostly?". A question asked
/// without its mark is the last sentence ("are the first ten amendments the same as the bill
/// of rights").
fn statements(message: &str) -> String {
    let unmarked = !message.contains('?');
    let mut out = String::new();
    let mut start = 0;
    for (i, c) in message.char_indices() {
        let last = i + c.len_utf8() == message.len();
        if matches!(c, '.' | '!' | '?' | '\n') || last {
            let end = i + c.len_utf8();
            if c != '?' && !(unmarked && message[end..].trim().is_empty()) {
                out.push_str(&message[start..end]);
            }
            start = end;
        }
    }
    out.trim().to_string()
}

/// The judge's score, at the least, of a gap in the point's cue filled: the learner gave the
/// words left out, unaided.
const GAP_FILLED: f64 = 0.6;

/// The content words of `point` that a gap in the tutor's words leaves out: the cue "Fill
/// the gap: Stomata are small pores on the … of leaves." hides "underside". The words on
/// each side of the gap, to its sentence's ends, must stand in the point around the hidden
/// words (one to eight of them); otherwise None.
pub(super) fn cloze_gap(reply: &str, point: &str) -> Option<Vec<crate::text::Token>> {
    let reply = reply.replace("...", "…");
    let (before, after) = reply.split_once('…')?;
    let norm = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let ends = |w: &str| w.ends_with(['.', '?', '!', ':']);
    let before: Vec<&str> = before.split_whitespace().collect();
    let opens = before.iter().rposition(|w| ends(w)).map_or(0, |i| i + 1);
    let before: Vec<String> = before[opens..].iter().map(|w| norm(w)).filter(|w| !w.is_empty()).collect();
    let mut after_words = Vec::new();
    for word in after.split_whitespace() {
        after_words.push(norm(word));
        if ends(word) {
            break;
        }
    }
    let after: Vec<String> = after_words.into_iter().filter(|w| !w.is_empty()).collect();
    if before.is_empty() && after.is_empty() {
        return None;
    }
    let words: Vec<String> = point.split_whitespace().map(norm).filter(|w| !w.is_empty()).collect();
    let starts = (before.len()..=words.len()).filter(|&k| words[k - before.len()..k] == before[..]);
    let hidden = starts
        .filter_map(|k| {
            let end = if after.is_empty() {
                words.len()
            } else {
                (k + 1..=words.len().saturating_sub(after.len()))
                    .find(|&j| words[j..j + after.len()] == after[..])?
            };
            (end > k && end - k <= 8).then(|| words[k..end].join(" "))
        })
        .next()?;
    let gap = crate::text::tokens(&hidden);
    (!gap.is_empty()).then_some(gap)
}

/// Of the points `nearly` recalled by the message, those it recalls read together with the
/// learner's try just before it (the tutor's reply between them): the two said it whole.
fn together(brief: &EvaluatorBrief, embedder: Option<&Embedder>, nearly: &[&str]) -> Vec<String> {
    let [.., before, reply] = brief.recent.as_slice() else { return Vec::new() };
    if nearly.is_empty()
        || before.role != crate::llm::Role::User
        || reply.role != crate::llm::Role::Assistant
        || super::kinds::kind_of(&before.content) != MessageKind::Attempt
    {
        return Vec::new();
    }
    let judged = |brief: &EvaluatorBrief| {
        let meaning = embedder.and_then(|embedder| meaning(embedder, brief));
        let context = super::judge::Context::new(brief, meaning);
        brief.unchecked.iter().map(|p| (p.id.clone(), context.judge(p))).collect::<Vec<_>>()
    };
    // The try before answered the question asked now, not one the tutor has since moved on
    // from: "it turns into vapour and goes up" answered how water leaves the sea, and read
    // with "clouds form when the wind blows dust together" it said condensation's words.
    // Unless the tutor took that try as right and asked on about the point that question was
    // about: "Where does vitamin D come from?", "your skin makes it", "Right. And which
    // mineral does it help you absorb?" asks the rest of "The skin makes vitamin D in
    // sunlight, and vitamin D helps the body absorb calcium".
    let asked_before = match brief.recent.as_slice() {
        [.., asked, _, _] if asked.role == crate::llm::Role::Assistant => Some(asked.content.as_str()),
        _ => None,
    };
    let anew = asked_before.is_some_and(|asked| asks_anew(asked, &reply.content));
    let asked_on = |point: &PointBrief| {
        let about = |asked: &str| {
            let point = crate::text::tokens(&point.content);
            crate::text::tokens(asked).iter().any(|a| !a.is_generic() && point.iter().any(|p| p.same_as(a)))
        };
        takes_as_right(&reply.content) && asked_before.is_some_and(about)
    };
    // The try before was at the same point: it said it, or nearly, after its own question (a
    // point still open after it was not taken as said then, whatever this judge makes of it).
    let earlier = EvaluatorBrief {
        unchecked: brief
            .unchecked
            .iter()
            .filter(|p| nearly.contains(&p.id.as_str()) && (!anew || asked_on(p)))
            .cloned()
            .collect(),
        learner_message: before.content.clone(),
        recent: brief.recent[..brief.recent.len() - 2].to_vec(),
        ..brief.clone()
    };
    let tried: Vec<String> =
        judged(&earlier).into_iter().filter(|(_, v)| v.near || v.recalled).map(|(id, _)| id).collect();
    if tried.is_empty() {
        return Vec::new();
    }
    let joined = EvaluatorBrief {
        unchecked: earlier.unchecked.into_iter().filter(|p| tried.contains(&p.id)).collect(),
        learner_message: format!("{} {}", before.content.trim(), brief.learner_message.trim()),
        ..brief.clone()
    };
    judged(&joined).into_iter().filter(|(_, v)| v.recalled).map(|(id, _)| id).collect()
}

/// Where a learner turns to another thing within a sentence.
const TURNS: &[&str] =
    &[" oh and ", " and also ", " also ", " btw ", " unrelated but ", " random but ", "; "];

/// The parts of a message of two or more (its sentences, split again where the learner turns
/// to another thing), each of four content words or more; none for a message of one part.
pub(super) fn turns(message: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for sentence in crate::text::sentences(message) {
        // Lowered byte for byte, so its places are the sentence's.
        let lower = sentence.to_ascii_lowercase();
        let mut cuts: Vec<usize> =
            TURNS.iter().flat_map(|turn| lower.match_indices(turn).map(|(at, _)| at)).collect();
        cuts.sort_unstable();
        let mut start = 0;
        for cut in cuts.into_iter().chain(std::iter::once(sentence.len())) {
            if cut > start {
                parts.push(sentence[start..cut].trim().to_string());
            }
            start = cut.max(start);
        }
    }
    if parts.len() < 2 {
        return Vec::new();
    }
    parts.retain(|part| crate::text::tokens(part).len() >= 4);
    parts
}

/// Whether the tutor's reply opens by taking the learner's try as right ("Right.", "Yes, and…").
fn takes_as_right(reply: &str) -> bool {
    let lower = reply.trim_start().to_lowercase();
    let first = lower.split(|c: char| !c.is_alphanumeric() && c != '\'').next().unwrap_or("");
    ["right", "yes", "yep", "good", "exactly", "correct", "great"].contains(&first)
        || lower.starts_with("that's right")
        || lower.starts_with("spot on")
}

/// Whether the tutor's reply puts a new question, not the one asked before the learner's try
/// (`asked`): a question of three or more words, a third of them or more not in that one
/// ("Right. How do clouds form from water vapour?" after "What happens to water when the sun
/// heats it?"). A question said again, or a short prompt ("What else belongs with it?"), is
/// none.
fn asks_anew(asked: &str, reply: &str) -> bool {
    let asked = crate::text::terms(asked);
    crate::text::sentences(reply).iter().filter(|s| s.trim_end().ends_with('?')).any(|question| {
        let terms = crate::text::terms(question);
        terms.len() >= 3 && terms.iter().filter(|t| asked.contains(t)).count() * 3 < terms.len() * 2
    })
}

/// The points whose gaps the message fills: the tutor's last words gave a point's shape with
/// blanks (`when ___ in clouds grow ___ enough they ___ …`), and the message gives
/// each blank's word, in order ("droplets, heavy, fall"), as the point has it or a word the
/// judges take for it (a synonym, a typo). One wrong word and the shape counts for nothing:
/// the judges then read the message as they would any other.
pub(super) fn filled_gaps(brief: &EvaluatorBrief) -> Vec<String> {
    use crate::text::{Token, tokens};
    let Some(reply) = brief.recent.last().filter(|m| m.role == crate::llm::Role::Assistant) else {
        return Vec::new();
    };
    let shape = reply.content.replace("\\_", "_");
    if !shape.contains("___") {
        return Vec::new();
    }
    // Words compared without what stands around them (the shape is quoted, then a full stop).
    let unquoted = |w: &str| {
        if w.contains("___") {
            w.to_string()
        } else {
            w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
        }
    };
    let shape: Vec<String> = shape.split_whitespace().map(unquoted).collect();
    let message = brief.learner_message.as_str();
    // The words given, one a blank: split where the learner split them, or word by word.
    let split: Vec<Vec<Token>> = message
        .split([',', ';', '/', '\n'])
        .flat_map(|part| part.split(" and "))
        .map(tokens)
        .filter(|t| !t.is_empty())
        .collect();
    let one_by_one: Vec<Vec<Token>> = tokens(message).into_iter().map(|t| vec![t]).collect();
    brief
        .unchecked
        .iter()
        .filter(|point| {
            let words: Vec<String> = point.content.split_whitespace().map(unquoted).collect();
            // Where the shape stands in the tutor's words: every word the point's, or a blank.
            let Some(at) = (0..=shape.len().saturating_sub(words.len())).find(|&at| {
                words.len() <= shape.len()
                    && words.iter().zip(&shape[at..]).all(|(w, s)| w == s || s.contains("___"))
            }) else {
                return false;
            };
            let hidden: Vec<Vec<Token>> =
                words.iter().zip(&shape[at..]).filter(|(w, s)| *w != *s).map(|(w, _)| tokens(w)).collect();
            let fits = |fills: &[Vec<Token>]| {
                fills.len() == hidden.len()
                    && fills
                        .iter()
                        .zip(&hidden)
                        .all(|(fill, word)| fill.iter().any(|f| word.iter().any(|h| f.same_as(h))))
            };
            !hidden.is_empty() && (fits(&split) || fits(&one_by_one))
        })
        .map(|point| point.id.clone())
        .collect()
}

/// What the sentence model reads of the message, the tutor's question and each point (points
/// and questions come from its cache after their first turn). The message is read once, after
/// its question: "ten sixty-six" says little alone, much after "When was the Battle of
/// Hastings?", and its words are read in that context. None for a message with no content
/// word, where words alone decide, or if the model fails (said in the log).
pub(super) fn meaning(embedder: &Embedder, brief: &EvaluatorBrief) -> Option<super::judge::Meaning> {
    if crate::text::tokens(&brief.learner_message).is_empty() {
        return None;
    }
    let question = super::judge::question(brief);
    let answered = match question {
        Some(question) => format!("{question}\n{}", brief.learner_message),
        None => brief.learner_message.clone(),
    };
    let mut texts = vec![answered.as_str()];
    texts.extend(question);
    texts.extend(brief.unchecked.iter().map(|p| p.content.as_str()));
    let parts: Vec<Vec<String>> = brief.unchecked.iter().map(|p| super::judge::parts(&p.content)).collect();
    texts.extend(parts.iter().flatten().map(String::as_str));
    let readings = match embedder.read(&texts) {
        Ok(readings) => readings,
        Err(err) => {
            tracing::warn!(error = %err, "the evaluator judges this message by words alone");
            return None;
        }
    };
    let mut readings = readings.into_iter();
    let whole = readings.next()?;
    let message = whole.tail(answered.len() - brief.learner_message.len());
    let answered = question.map(|_| whole.sentence);
    let question = if question.is_some() { readings.next() } else { None };
    let points = brief.unchecked.iter().map(|p| p.id.clone()).zip(readings.by_ref()).collect();
    let parts = brief
        .unchecked
        .iter()
        .zip(&parts)
        .map(|(p, texts)| (p.id.clone(), readings.by_ref().take(texts.len()).collect()))
        .collect();
    Some(super::judge::Meaning { message, question, answered, points, parts })
}
