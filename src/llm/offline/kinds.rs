//! What a learner's message is, when it recalls and nearly recalls nothing: an attempt, "I
//! don't know" (or asking for help), a question to the tutor, or small talk. Only an attempt
//! or "I don't know" climbs a point's hint ladder; a question gets an answer and the same rung
//! again.
//!
//! Long by design: each kind is told by the phrases learners use for it, and the lists of
//! them stand beside the rules that read them.

use crate::llm::brief::MessageKind;

/// Talk about the session, not about any point: it climbs no ladder.
const SESSION_TALK: &[&str] = &[
    "brb",
    "be right back",
    "one sec",
    "one moment",
    "hang on a sec",
    "a break",
    "go faster",
    "bit faster",
    // Said of the session, not of a thing ("they speed up reactions" is an answer).
    "speed this up",
    "speed it up",
    "speed things up",
    "slow it down",
    "slow things down",
    "slow down a bit",
    "speed up a bit",
    "go slower",
    "points left",
    "points are left",
    "how many points",
    "what time is it",
];

/// What starts or makes an aside about the learner's day rather than an answer ("haha hang
/// on, grabbing a coffee", "sorry my cat just walked across the keyboard"); it is small talk
/// when it recalls and nearly recalls nothing.
const AN_ASIDE: &[&str] = &[
    "haha",
    "hahaha",
    "lol",
    "lmao",
    "omg",
    "oops",
    "my cat",
    "my dog",
    "my phone",
    "my wifi",
    "my internet",
    "my kid",
    "my kids",
    "my mum",
    "my mom",
    "a coffee",
    "grabbing",
    "be back",
    "back in a",
    "back in 2",
    "back in two",
    "back in 5",
    "back in five",
    "kettle",
    "doorbell",
    "love this",
    "so fun",
    "more fun",
    "fun set",
    "kind of fun",
    "actually fun",
    "crying rn",
    "breaks my brain",
    "my brain hurts",
    "my head hurts",
    "hurts my brain",
    "hurts my head",
    "brain is fried",
    "brain's fried",
    "this set is",
    "find hardest",
    "blur together",
];

/// What opens a story from the learner's life ("my cousin did the inca trail last summer…"):
/// small talk when its first clause says so (after an answer, "…, my uncle moans about it at
/// tax time" only colours the answer).
const A_STORY: &[&str] = &[
    "my first ever",
    "i once",
    "last summer",
    "when i was a kid",
    "when i was little",
    "as a kid",
    "as a child",
];

/// Whose story it is, after "my" (and "little", "older"…): "my little sister is obsessed…".
const FAMILY: &[&str] = &[
    "gran",
    "grandma",
    "nan",
    "grandad",
    "granddad",
    "grandpa",
    "cousin",
    "uncle",
    "aunt",
    "brother",
    "sister",
    "dad",
    "mum",
    "mom",
    "flatmate",
    "roommate",
    "boyfriend",
    "girlfriend",
    "husband",
    "wife",
    "son",
    "daughter",
];

/// Whether a clause (its words between single spaces) tells of the learner's family.
fn tells_of_family(clause: &str) -> bool {
    let words: Vec<&str> = clause.split_whitespace().collect();
    words.iter().enumerate().filter(|(_, w)| **w == "my").any(|(i, _)| {
        let next = words.get(i + 1).copied().unwrap_or_default();
        let after = if matches!(next, "little" | "big" | "older" | "younger" | "baby" | "step" | "kid") {
            words.get(i + 2).copied().unwrap_or_default()
        } else {
            next
        };
        // "my brother", "my brothers", "my brother's been…".
        let after = after.strip_suffix("'s").unwrap_or(after);
        FAMILY.contains(&after) || FAMILY.iter().any(|f| after.strip_suffix('s') == Some(f))
    })
}

/// The most words an aside runs to.
const ASIDE_WORDS: usize = 24;

/// Whether a first clause (its words between single spaces) opens a story from the learner's
/// life.
fn opens_a_story(first_clause: &str) -> bool {
    A_STORY.iter().any(|p| first_clause.contains(&format!(" {p} "))) || tells_of_family(first_clause)
}

/// Whether a message is a short story from the learner's life, said in passing ("lol my
/// roommate is a dj and will not shut up about turntables"): small talk, whatever words of a
/// point it happens to have.
pub fn tells_a_story(message: &str) -> bool {
    let message = &*crate::text::shorthand::expand(message, |_| false);
    let lower = message.trim().to_lowercase().replace('’', "'");
    let first_clause = crate::text::words_spaced(
        lower.split([',', '.', ';', ':', '!', '?', '—', '–']).next().unwrap_or_default(),
    );
    !message.contains('?') && words_of(&lower).len() <= ASIDE_WORDS && opens_a_story(&first_clause)
}

/// Questions about the tutor itself, not the subject: small talk ("are you a Wimbledon
/// person?", "did you see it? oh wait, you're a chatbot").
const ABOUT_THE_TUTOR: &[&str] = &[
    "are you a",
    "are you into",
    "do you like",
    "do you prefer",
    "do you have a favourite",
    "did you see",
    "did you watch",
    "have you ever",
    "have you seen",
    "you're a chatbot",
    "you're a bot",
    "are you real",
    "are you an",
    "are you human",
    "real person",
    "actual person",
    "you a bot",
    "you an ai",
];

/// The first word (past fillers) of each clause of every sentence that ends with a question
/// mark: "random question: why do mitochondria have their own DNA? is that weird?" asks why,
/// whatever its last question says.
fn question_openings(message: &str) -> Vec<String> {
    let mut openings = Vec::new();
    let mut start = 0;
    for (i, c) in message.char_indices() {
        if !matches!(c, '.' | '!' | '?' | '\n') {
            continue;
        }
        let sentence = &message[start..i];
        start = i + c.len_utf8();
        if c != '?' {
            continue;
        }
        openings.extend(sentence.split([',', ';', ':', '—', '–']).filter_map(|clause| {
            clause
                .to_lowercase()
                .replace('’', "'")
                .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .filter(|w| !w.is_empty())
                .find(|w| !FILLERS.contains(w) && !matches!(*w, "sorry" | "quick" | "q" | "first" | "sec"))
                .map(str::to_string)
        }));
    }
    openings
}

/// The part of a message that asks: from the last clause opening before its last question
/// mark, when it has one ("before that, are T cells and B cells both white blood cells?").
fn asking_clause(message: &str) -> Option<&str> {
    clause_before(message, message.rfind('?')?)
}

/// Whether a question before the last one asks yes or no of a subject: "does the central bank
/// have to buy its own currency? like with what money?" (not "is it…", a guess).
fn asks_yes_no_earlier(message: &str) -> bool {
    let last = message.rfind('?');
    message.match_indices('?').filter(|(at, _)| Some(*at) != last).any(|(at, _)| {
        let Some(clause) = clause_before(message, at) else { return false };
        let words = words_of(clause);
        let mut opening =
            words.iter().map(|w| w.to_lowercase()).skip_while(|w| FILLERS.contains(&w.as_str()));
        let (first, second) = (opening.next().unwrap_or_default(), opening.next().unwrap_or_default());
        matches!(first.as_str(), "are" | "were" | "does" | "do" | "did" | "can" | "could" | "will" | "would")
            && matches!(second.as_str(), "the" | "a" | "an" | "they" | "you" | "we" | "there")
    })
}

/// The clause that ends at `end`, back to the clause opening before it.
fn clause_before(message: &str, end: usize) -> Option<&str> {
    let before = &message[..end];
    let mark =
        before.char_indices().rev().find(|(_, c)| matches!(c, '.' | '!' | '?' | ',' | ';' | ':' | '—' | '–'));
    // A spaced hyphen leads in as a dash does ("before that - is an excess the same as…?").
    let start = mark.map_or(0, |(i, c)| i + c.len_utf8()).max(before.rfind(" - ").map_or(0, |i| i + 3));
    let clause = before[start..].trim();
    // "…, or just one kind of tort?" offers another answer to the question before it.
    if let Some((at, _)) = mark.filter(|_| clause.starts_with("or ")) {
        return clause_before(message, at).or(Some(clause));
    }
    // A short tag ("…, right?", "…, or not?") asks about what came before it.
    (clause.split_whitespace().count() >= 3).then_some(clause)
}

/// Asking for help with the point is saying "I don't know" (the next rung is the help).
const HELP: &[&str] = &[
    "hint",
    "clue",
    "skip",
    "i give up",
    "i'll give up",
    "giving up",
    "tell me the answer",
    "just tell me",
    "blank",
    "can't define",
    "bit stuck",
    "really stuck",
    "totally stuck",
    "so stuck",
    "am stuck",
    "stuck here",
    "stuck on this",
    "stuck on it",
    "blanking",
];

/// Words that say nothing on their own.
const SMALL_TALK: &[&str] = &[
    "ok", "okay", "k", "sure", "cool", "nice", "lol", "haha", "hi", "hello", "hey", "yes", "no", "hmm",
    "right", "thanks", "thank", "you", "cheers", "so", "much",
];

/// A sound of thinking, however long it is drawn out ("umm", "uhhh", "errm", "hmmm"): no try.
fn hesitates(word: &str) -> bool {
    let mut sound = String::new();
    for c in word.chars() {
        if !sound.ends_with(c) {
            sound.push(c);
        }
    }
    matches!(sound.as_str(), "um" | "uh" | "uhm" | "hm" | "erm" | "er" | "ah" | "eh")
}

/// What a message is, when it recalled and nearly recalled nothing: "I don't know" (or asking
/// for help), a question to the tutor, small talk, or an attempt (the rest, guesses included:
/// "is it the ribosome?" and "is that the one with three flaps?" offer an answer).
pub fn kind_of(message: &str) -> MessageKind {
    // Read as meant: "do u mean…" asks as "do you mean…" does.
    let message = &*crate::text::shorthand::expand(message, |_| false);
    let lower = format!(" {} ", message.trim().to_lowercase().replace('’', "'"));
    let words = words_of(&lower);
    // Whole words: "a blanket of snow" asks for no help, nor do "legs stuck together".
    let spaced = format!(" {} ", words.join(" "));
    let first_clause = crate::text::words_spaced(
        lower.split([',', '.', ';', ':', '!', '?', '—', '–']).next().unwrap_or_default(),
    );
    // "remind me?" asks for the answer; "remind me what a codon is?" asks about something.
    let reminded =
        [" remind me ", " remind me please ", " remind me pls "].iter().any(|end| spaced.ends_with(end));
    let asks_help = reminded
        || HELP.iter().any(|p| spaced.contains(&format!(" {p} ")) || spaced.contains(&format!(" {p}s ")));
    if crate::text::is_dont_know(message) || asks_help {
        return MessageKind::DontKnow;
    }
    if words.is_empty()
        || words.iter().all(|w| SMALL_TALK.contains(w) || hesitates(w))
        || SESSION_TALK.iter().any(|p| lower.contains(&format!(" {p}")))
        // An aside is short: a long message with a "lol" in it says more than that.
        || (!message.contains('?')
            && words.len() <= ASIDE_WORDS
            // Whole words, punctuation aside: "…making beats haha, my first ever track…".
            && (AN_ASIDE.iter().any(|p| spaced.contains(&format!(" {p} ")))
                || opens_a_story(&first_clause)))
        || ABOUT_THE_TUTOR.iter().any(|p| lower.contains(&format!(" {p} ")))
    {
        return MessageKind::SmallTalk;
    }
    // A question after a lead-in ("before that, are T cells…", "quick q first, is a string…")
    // opens where its clause does.
    let asking: Vec<String> = asking_clause(message)
        .map(|c| {
            c.to_lowercase()
                .replace('’', "'")
                .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let opening: Vec<&str> = match asking.first() {
        Some(_) => asking.iter().map(String::as_str).skip_while(|w| FILLERS.contains(w)).collect(),
        None => after_a_lead_in(&lower)
            .unwrap_or_else(|| words.clone())
            .into_iter()
            .skip_while(|w| FILLERS.contains(w))
            .collect(),
    };
    let first = opening.first().copied().unwrap_or_default();
    let second = opening.get(1).copied().unwrap_or_default();
    let third = opening.get(2).copied().unwrap_or_default();
    // "I've always wondered why…": asking without a question mark.
    let wondering =
        ["i wonder", "i've always wondered", "i always wondered", "i'd love to know", "i want to know"]
            .iter()
            .any(|p| lower.contains(p));
    let asks = message.contains('?');
    let is_wh_opening =
        |w: &str| is_wh(w) || matches!(w, "what's" | "whats" | "why's" | "how's" | "who's" | "where's");
    // "sorry what's HEAD again, is that a command?": a clause of the question opens with a wh-word.
    let wh = is_wh_opening(first) || question_openings(message).iter().any(|w| is_wh_opening(w));
    // "Is it the ribosome?", "is that the rule where…?", "the one with three flaps?", "…, right?".
    // "is that the same thing as the variance?" asks how two things stand, not which is meant.
    let compares = [" same ", " different", " difference "].iter().any(|w| lower.contains(w));
    let doubts = [
        "is it true",
        "is it actually true",
        "is it really true",
        "is that true",
        "a myth",
        "or is that just",
        "or is it just",
    ]
    .iter()
    .any(|p| lower.contains(p));
    // "is it safe to look at a lunar one" asks whether, not which.
    let whether = matches!(
        third,
        "safe" | "ok" | "okay" | "fine" | "possible" | "normal" | "bad" | "dangerous" | "worth"
    );
    // "is that why everyone says hoover" asks for the reason behind something, offering none.
    let explains = matches!(third, "why" | "how" | "because" | "where" | "when");
    let guess = (matches!(first, "is" | "was" | "isn't") && matches!(second, "it" | "that"))
        && !doubts
        && !compares
        && !whether
        && !explains
        || lower.contains(" the one ")
        || lower.contains(" the ones ")
        || lower.trim_end().ends_with("right?");
    // "wasnt that one kind of discredited later?": a denied verb opens a question too, before
    // its subject (not "isn't it the ribosome?", a guess, nor "doesn't need oxygen?").
    let denied_yes_no = NEGATED_YES_NO.contains(&first)
        && matches!(second, "it" | "that" | "this" | "there" | "they" | "he" | "she")
        && !matches!(third, "the" | "a" | "an");
    let yes_no = YES_NO.contains(&first) || denied_yes_no;
    // "is a join the same as a UNION? they both combine tables, right?" asks, whatever follows.
    let asks_how_they_compare =
        compares && question_openings(message).iter().any(|w| YES_NO.contains(&w.as_str()));
    // Spoken, without its question mark: "are the first ten amendments the same thing as the
    // bill of rights", "is hydraulic action the same as abrasion". (Not "is the one with…", nor
    // an answer that leaves its subject out: "has four chambers".)
    // So is "hang on, is the heart counted as a muscle or an organ" (not "is it…", a guess),
    // and "sorry what is a swatch exactly, the pattern keeps going on about it".
    let determiner = |w: &str| matches!(w, "the" | "a" | "an");
    // Not an answer that opens on a symbol ("=== is the strict one").
    let opens_on_a_word =
        message.split_whitespace().next().is_some_and(|w| w.chars().next().is_some_and(char::is_alphabetic));
    // A subject after the verb: a pronoun or article, or a plural ("can sinkholes happen
    // anywhere"; the verb after "can" never ends so: "can pass", "can focus").
    let a_subject = |w: &str| {
        matches!(w, "the" | "a" | "an" | "they" | "you" | "it" | "these" | "those" | "we" | "there")
            // "does every letter have that line", "do all birds fly".
            || matches!(w, "every" | "each" | "all" | "any" | "some" | "most")
            || w.len() > 3 && w.ends_with('s') && !["ss", "us", "is"].iter().any(|end| w.ends_with(end))
    };
    let unmarked = matches!(first, "are" | "were" | "does" | "do" | "did" | "can" | "could" | "will" | "would")
        && a_subject(second)
        && opening.len() >= 5
        || matches!(first, "is" | "was")
            && determiner(second)
            && opening.len() >= 6
            && opens_on_a_word
            && !guess
        || (matches!(first, "what's" | "whats") && determiner(second)
            || first == "what" && matches!(second, "is" | "are") && determiner(third))
            && opening.len() >= 5
        // "wait why did nasser even want the canal": a wh-word and the verb put before its
        // subject ask, mark or no mark (not "which is why…", nor "what is needed is…"); so does
        // a denied verb ("why wouldnt you just bid lower").
        || matches!(first, "why" | "how" | "where" | "when" | "who")
            && (YES_NO.contains(&second) || NEGATED_YES_NO.contains(&second))
            && opening.len() >= 5
        // "why's it even called a reef knot": the verb in the wh-word.
        || matches!(first, "why's" | "how's" | "where's" | "who's")
            && a_subject(second)
            && opening.len() >= 5
        // "how many faces are actually on the bayon": an amount asked, its verb soon after.
        || first == "how"
            && matches!(second, "many" | "much" | "long" | "far" | "often" | "old" | "big")
            && opening.iter().skip(2).take(2).any(|w| YES_NO.contains(w))
            && opening.len() >= 5
        || matches!(first, "is" | "was") && matches!(second, "it" | "that") && explains && opening.len() >= 5
        || first == "what" && matches!(second, "does" | "do" | "did") && opening.len() >= 5
        || matches!(first, "is" | "was") && second == "it" && whether && opening.len() >= 5
        || yes_no && compares
        // "does that mean overpaying early saves more": asks what follows from it.
        || matches!(first, "does" | "did" | "would") && matches!(second, "that" | "this") && third == "mean"
        // "would fossilised poo count as a trace fossil or a body fossil": asks which of two.
        || matches!(first, "would" | "could" | "does" | "do" | "did" | "should")
            && !matches!(second, "be" | "have")
            && opening.len() >= 5
            && lower.contains(" or ")
        // "was it connected to gospel at all": whether, not which.
        || yes_no && lower.contains(" at all ") && opening.len() >= 5
        // "was nasa around before sputnik or did it only come after": asks which of two.
        || yes_no
            && !guess
            && opening.len() >= 5
            && [" or is that ", " or is it ", " or did ", " or was ", " or does ", " or do "]
                .iter()
                .any(|p| lower.contains(p));
    // "is locrian the one nobody writes in? why is that": a guess, then the reason asked for.
    let asks_why_after =
        ["why is that", "why's that", "whys that", "how come", "why though", "why tho", "how so"]
            .iter()
            .any(|tail| spaced.trim_end().ends_with(&format!(" {tail}")))
            && words.len() > 3;
    if (asks && (wh || (yes_no && !guess) || asks_how_they_compare || asks_yes_no_earlier(message)))
        || (!asks && unmarked)
        || wondering
        || asks_why_after
    {
        return MessageKind::Question;
    }
    MessageKind::Attempt
}

/// Words of a clause that only says a question is coming ("wait before i answer, is a…").
const LEAD_IN: &[&str] =
    &["before", "i", "answer", "answering", "that", "quick", "q", "question", "first", "random"];

/// Phrases that lead into a question when spoken, with no mark after them.
const SPOKEN_LEADS: &[&[&str]] =
    &[&["before", "that"], &["before", "i", "answer"], &["quick", "question"], &["random", "question"]];

/// The words after a first clause that only leads in ("wait before i answer, is a semitone
/// the same thing as a half step"), where a question without its mark opens.
fn after_a_lead_in(lower: &str) -> Option<Vec<&str>> {
    // Spoken, with no mark after it: "wait before that is volume of distribution an actual
    // volume…" (in the present: "before that was the republic" answers).
    let words = words_of(lower);
    let spoken = words.iter().position(|w| !FILLERS.contains(w)).and_then(|at| {
        let rest = &words[at..];
        let lead = SPOKEN_LEADS.iter().find(|lead| rest.starts_with(lead))?;
        let after = &rest[lead.len()..];
        after
            .first()
            .is_some_and(|w| matches!(*w, "is" | "are" | "does" | "do" | "can"))
            .then(|| after.to_vec())
    });
    if spoken.is_some() {
        return spoken;
    }
    // "before i answer - does it matter…": a spaced hyphen leads in as a dash does.
    let cut = lower.find([',', ':', '—', '–']).into_iter().chain(lower.find(" - ")).min()?;
    let (lead, rest) = lower.split_at(cut);
    let lead = words_of(lead);
    let leads = lead.iter().any(|w| LEAD_IN.contains(w))
        && lead.iter().all(|w| LEAD_IN.contains(w) || FILLERS.contains(w));
    leads.then(|| words_of(rest))
}

/// A text's words, apostrophes kept.
fn words_of(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect()
}

/// Words that open a yes-or-no question.
pub(super) const YES_NO: &[&str] =
    &["is", "was", "are", "were", "does", "do", "did", "can", "could", "has", "have", "will", "would"];

/// A word that opens a yes-or-no question, denied.
const NEGATED_YES_NO: &[&str] = &[
    "isn't", "isnt", "wasn't", "wasnt", "aren't", "arent", "weren't", "werent", "doesn't", "doesnt",
    "didn't", "didnt", "hasn't", "hasnt", "haven't", "havent", "couldn't", "couldnt", "wouldn't", "wouldnt",
];

/// Words that lead into a message without saying anything.
pub(super) const FILLERS: &[&str] =
    &["wait", "hmm", "hm", "so", "um", "uh", "ok", "okay", "oh", "hang", "hold", "on", "and", "but", "sorry"];

pub(super) fn is_wh(word: &str) -> bool {
    matches!(word, "what" | "which" | "who" | "whose" | "where" | "when" | "why" | "how")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_dont_knows_and_small_talk_are_told_from_attempts() {
        for (message, kind) in [
            (
                "Why did the Romans hate the idea of a king so much? I've always wondered.",
                MessageKind::Question,
            ),
            ("what do you mean by wall?", MessageKind::Question),
            (
                "before I answer, random question: why do mitochondria have their own DNA? is that weird?",
                MessageKind::Question,
            ),
            ("Can you explain what ATP is?", MessageKind::Question),
            ("Hmm, how does that even work?", MessageKind::Question),
            ("I've always wondered how they measured it", MessageKind::Question),
            ("no idea, sorry", MessageKind::DontKnow),
            ("I don't remember", MessageKind::DontKnow),
            ("ok", MessageKind::SmallTalk),
            ("brb, getting coffee", MessageKind::SmallTalk),
            ("can we go a bit faster?", MessageKind::SmallTalk),
            ("can we slow things down a little", MessageKind::SmallTalk),
            ("they speed up reactions by giving the molecules energy", MessageKind::Attempt),
            ("can I get a hint for this one?", MessageKind::DontKnow),
            ("wait, is that the rule where the verb goes at the end?", MessageKind::Attempt),
            ("is the clove hitch the one for joining two ends?", MessageKind::Attempt),
            ("is it the ribosome?", MessageKind::Attempt),
            ("Is it true that Napoleon was short?", MessageKind::Question),
            ("Do other animals have four chambers too?", MessageKind::Question),
            ("the left ventricle, right?", MessageKind::Attempt),
            ("the mitochondria make energy", MessageKind::Attempt),
            ("before that, are T cells and B cells both white blood cells?", MessageKind::Question),
            ("quick q first — is a string mutable in python?", MessageKind::Question),
            ("wait before i answer, is a semitone the same thing as a half step", MessageKind::Question),
            ("first, the capo raises every string", MessageKind::Attempt),
            ("sorry my cat just walked across the keyboard", MessageKind::SmallTalk),
            ("haha hang on, grabbing a coffee", MessageKind::SmallTalk),
            ("umm", MessageKind::SmallTalk),
            ("hang on, was nasa around before sputnik or did it only come after", MessageKind::Question),
            ("wait was it actually 100 years or is that just a nickname", MessageKind::Question),
            ("do u mean efficiency like how much of the light turns into power", MessageKind::Question),
            ("is it the ribosome or the lysosome", MessageKind::Attempt),
            ("ok this set is way more interesting than i expected ngl", MessageKind::SmallTalk),
            ("i literally knew this yesterday... nope, gone", MessageKind::DontKnow),
            ("i'm a bit stuck on this one", MessageKind::DontKnow),
            ("any hints?", MessageKind::DontKnow),
            ("the barb gets stuck in your skin", MessageKind::Attempt),
            ("a blanket of cold air", MessageKind::Attempt),
            ("uhhh hmmm", MessageKind::SmallTalk),
            ("errm", MessageKind::SmallTalk),
            ("sorry what's HEAD again, is that a command?", MessageKind::Question),
            ("idk", MessageKind::DontKnow),
            ("Jupiter, I think", MessageKind::Attempt),
            ("It isn't that heavier things fall faster, I know that much.", MessageKind::Attempt),
            ("the telescope, thanks to Galileo", MessageKind::Attempt),
            ("thanks so much", MessageKind::SmallTalk),
            ("its when you give up a pawn early on to get your pieces out", MessageKind::Attempt),
            ("ok I give up", MessageKind::DontKnow),
            ("hold on, is that the same thing as the variance or is it different?", MessageKind::Question),
            (
                "wait before that is volume of distribution like an actual volume or is it kind of a made up number",
                MessageKind::Question,
            ),
            ("before that was the republic, run by two consuls", MessageKind::Attempt),
            (
                "before that - is an excess the same thing as a deductible or are they different?",
                MessageKind::Question,
            ),
            ("is negligence the same thing as a tort, or just one kind of tort?", MessageKind::Question),
            ("is it a tort — or a crime?", MessageKind::Attempt),
            ("hang on, is the heart actually counted as a muscle or an organ", MessageKind::Question),
            ("sorry what is a swatch exactly, the pattern keeps going on about it", MessageKind::Question),
            ("=== is the strict one, it checks the type too", MessageKind::Attempt),
            (
                "does the central bank literally have to buy its own currency to defend the peg? like with what money?",
                MessageKind::Question,
            ),
            (
                "I tried tempering once for christmas presents and somehow got chocolate on the ceiling. the ceiling. still no idea what I did wrong",
                MessageKind::Attempt,
            ),
            ("remind me?", MessageKind::DontKnow),
            ("can you remind me what a codon is?", MessageKind::Question),
            (
                "my little sister is obsessed with the egyptian gods rn, she drew me as a cat goddess",
                MessageKind::SmallTalk,
            ),
            (
                "my brother's been unemployed since march so this topic is a bit close to home tbh",
                MessageKind::SmallTalk,
            ),
            ("i sang in a church choir as a kid, we did a bit of chant at christmas", MessageKind::SmallTalk),
            (
                "does that mean overpaying in the first few years saves you way more then",
                MessageKind::Question,
            ),
            ("would fossilised poo count as a trace fossil or a body fossil", MessageKind::Question),
            ("could be either the liver or the pancreas", MessageKind::Attempt),
            (
                "my cousin did the inca trail last summer and got altitude sickness so bad she threw up next to a llama",
                MessageKind::SmallTalk,
            ),
            (
                "the 808 is literally why I got into making beats haha, my first ever track was just 808 cowbell spam",
                MessageKind::SmallTalk,
            ),
            (
                "it's one of those things accountants do to make the numbers come out different, my uncle moans about it",
                MessageKind::Attempt,
            ),
            ("is the answer the nucleus", MessageKind::Attempt),
            ("HbA1c... nope, that one's completely gone, sorry", MessageKind::DontKnow),
            ("space stuff always breaks my brain tbh", MessageKind::SmallTalk),
            (
                "hang on, is a join basically the same as a UNION? they both combine tables right?",
                MessageKind::Question,
            ),
            ("is it actually true they die if they stop swimming? or is that a myth", MessageKind::Question),
            (
                "i know how to use .then() but honestly couldn't tell you what one actually is",
                MessageKind::DontKnow,
            ),
            ("ugh I literally read this last night and it's gone", MessageKind::DontKnow),
            (
                "are you a wimbledon person or more french open? I'm obsessed with clay",
                MessageKind::SmallTalk,
            ),
            ("the moon was huge last night, did you see it?", MessageKind::SmallTalk),
            ("do you mean the red one?", MessageKind::Question),
            ("are the first ten amendments the same thing as the bill of rights", MessageKind::Question),
            (
                "is hydraulic action the same as abrasion or is abrasion the one with the rocks",
                MessageKind::Question,
            ),
            ("has four chambers, two atria and two ventricles", MessageKind::Attempt),
            ("is the one with the rocks scraping the bed", MessageKind::Attempt),
            ("was that when people used banknotes as wallpaper? or is that a myth", MessageKind::Question),
            (
                "wait why did nasser even want the canal, wasn't egypt already getting money from it",
                MessageKind::Question,
            ),
            ("how does printing money actually make prices go up though", MessageKind::Question),
            ("which is why you build up from light to dark", MessageKind::Attempt),
            ("how it works is the enzyme lowers the activation energy", MessageKind::Attempt),
            ("when it is still warm, with vinegar sugar and salt", MessageKind::Attempt),
            ("it's on the tip of my tongue but no", MessageKind::DontKnow),
            (
                "so is it safe to look at a lunar one w/o the special glasses, unlike a solar one",
                MessageKind::Question,
            ),
            (
                "ok so i was watching a video last night lol, anyway the point was france backed the protestant side \
                 against the habsburgs because it was about power by then, not religion",
                MessageKind::Attempt,
            ),
            ("i can't recall that one", MessageKind::DontKnow),
            ("hang on, kettle's just boiled, back in 2", MessageKind::SmallTalk),
            ("random but are you an actual person typing these or an AI", MessageKind::SmallTalk),
            ("why's it even called a reef knot is it a sailing thing", MessageKind::Question),
            ("how many faces are actually on the bayon", MessageKind::Question),
            ("how many chambers it has, four", MessageKind::Attempt),
            ("can sinkholes happen anywhere or only where theres limestone under", MessageKind::Question),
            ("can pass through the membrane on their own", MessageKind::Attempt),
            ("can focus light onto the retina", MessageKind::Attempt),
            ("hang on is that why everyone in the uk says hoover for any vacuum", MessageKind::Question),
            ("is that why the sky is blue?", MessageKind::Question),
            ("is that the one where the sky looks blue?", MessageKind::Attempt),
            ("wait is locrian the one nobody actually writes songs in? why is that", MessageKind::Question),
            ("the locrian, nobody writes in it, how come", MessageKind::Question),
            ("the locrian one, because its fifth is diminished", MessageKind::Attempt),
            ("ugh my brain is fried. what time is it", MessageKind::SmallTalk),
            (
                "before i answer - does it matter if its a lake vs the sea, like is fresh water different",
                MessageKind::Question,
            ),
            ("was it connected to gospel at all or totally separate", MessageKind::Question),
            (
                "wasnt that one kind of discredited later? i read the guards were coached",
                MessageKind::Question,
            ),
            ("isn't it the ribosome?", MessageKind::Attempt),
            ("doesn't need oxygen?", MessageKind::Attempt),
            ("wait does every letter have that line or just some of them", MessageKind::Question),
            ("hold on is a crc the same kind of thing as a hash like sha256", MessageKind::Question),
            ("wait but why wouldnt you just bid lower to save money", MessageKind::Question),
            ("nope, got nothing on this one", MessageKind::DontKnow),
            ("the peasants got nothing from the reforms", MessageKind::Attempt),
        ] {
            assert_eq!(kind_of(message), kind, "{message}");
        }
    }
}
