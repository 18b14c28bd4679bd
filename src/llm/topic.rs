//! Rabbit-hole topics and labels. The offline detector turns a learner's question into the
//! phrase a person would write about it: "How did the Roman army organise its legions?"
//! becomes "how the Roman army organised its legions"; "What about the printing press?"
//! becomes "the printing press". Any detector's topic gets a pill label of two to four of its
//! words. Plain word patterns, no grammar model: good enough for a label and a banner.

/// Small words that open or join a phrase: never a subject's verb, never a label's end.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "its", "their", "his", "her", "our", "my", "your", "this", "that", "these", "those",
    "of", "to", "in", "on", "at", "by", "for", "from", "with", "into", "over", "after", "before", "and",
    "or", "so", "such", "some", "any", "all", "much", "many",
];

/// Openers with nothing to say: "wait,", "so", "hmm".
const FILLERS: &[&str] = &[
    "wait", "so", "hmm", "oh", "ok", "okay", "but", "and", "also", "actually", "well", "hey", "um", "anyway",
];

const WH: &[&str] = &["how", "why", "when", "where", "what", "who", "which", "whether"];

const MODALS: &[&str] = &["can", "could", "would", "should", "will", "might", "may", "must"];

const BE: &[&str] = &["is", "are", "was", "were"];

/// Past tenses that do not end in -ed.
const IRREGULAR: &[(&str, &str)] = &[
    ("be", "was"),
    ("become", "became"),
    ("begin", "began"),
    ("break", "broke"),
    ("bring", "brought"),
    ("build", "built"),
    ("buy", "bought"),
    ("choose", "chose"),
    ("come", "came"),
    ("cut", "cut"),
    ("do", "did"),
    ("drive", "drove"),
    ("eat", "ate"),
    ("fall", "fell"),
    ("feel", "felt"),
    ("fight", "fought"),
    ("find", "found"),
    ("fly", "flew"),
    ("forget", "forgot"),
    ("get", "got"),
    ("give", "gave"),
    ("go", "went"),
    ("grow", "grew"),
    ("have", "had"),
    ("hold", "held"),
    ("keep", "kept"),
    ("know", "knew"),
    ("lead", "led"),
    ("leave", "left"),
    ("let", "let"),
    ("lose", "lost"),
    ("make", "made"),
    ("mean", "meant"),
    ("meet", "met"),
    ("pay", "paid"),
    ("put", "put"),
    ("rise", "rose"),
    ("run", "ran"),
    ("say", "said"),
    ("see", "saw"),
    ("sell", "sold"),
    ("send", "sent"),
    ("set", "set"),
    ("shake", "shook"),
    ("sink", "sank"),
    ("sit", "sat"),
    ("speak", "spoke"),
    ("spend", "spent"),
    ("split", "split"),
    ("spread", "spread"),
    ("stand", "stood"),
    ("take", "took"),
    ("teach", "taught"),
    ("tell", "told"),
    ("think", "thought"),
    ("understand", "understood"),
    ("win", "won"),
    ("write", "wrote"),
];

fn is(word: &str, list: &[&str]) -> bool {
    list.contains(&word.to_lowercase().as_str())
}

fn past(verb: &str) -> String {
    let lower = verb.to_lowercase();
    if let Some((_, past)) = IRREGULAR.iter().find(|(base, _)| *base == lower) {
        return (*past).to_string();
    }
    if lower.ends_with('e') {
        format!("{verb}d")
    } else if let Some(stem) = lower.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{stem}ied")
    } else {
        format!("{verb}ed")
    }
}

fn third_person(verb: &str) -> String {
    let lower = verb.to_lowercase();
    if lower == "have" {
        "has".into()
    } else if lower.ends_with(['s', 'x', 'z', 'o']) || lower.ends_with("sh") || lower.ends_with("ch") {
        format!("{verb}es")
    } else if let Some(stem) = lower.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{stem}ies")
    } else {
        format!("{verb}s")
    }
}

/// Where the verb is in "the Roman army organise its legions" (after the auxiliary): the word
/// before the first function word that follows the subject, or before a closing proper name,
/// or the last word.
fn verb_index(words: &[&str]) -> Option<usize> {
    if words.len() < 2 {
        return None;
    }
    let subject_start = words.iter().position(|w| !is(w, FUNCTION_WORDS)).unwrap_or(0);
    let after = subject_start + 1;
    if let Some(marker) = (after + 1..words.len()).find(|&i| is(words[i], FUNCTION_WORDS)) {
        return Some(marker - 1);
    }
    let capitalised = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    if capitalised(words[words.len() - 1]) {
        let verb = (after..words.len()).rev().find(|&i| !capitalised(words[i]))?;
        return Some(verb);
    }
    Some(words.len() - 1)
}

/// The question's sentence, without fillers and the question mark.
fn question(message: &str) -> Vec<String> {
    // The first sentence that asks, or the whole message.
    let sentence = message
        .split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .find(|s| s.ends_with('?'))
        .unwrap_or(message.trim())
        .to_string();
    let mut words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '?' | '!' | ',' | ';' | ':' | '"' | '.')).to_string())
        .filter(|w| !w.is_empty())
        .collect();
    while words.first().is_some_and(|w| is(w, FILLERS)) {
        words.remove(0);
    }
    words
}

/// The topic of a learner's question, as a phrase.
pub fn topic_of(message: &str) -> String {
    let words = question(message);
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let rest = |from: usize| words.get(from..).map(|w| w.join(" ")).unwrap_or_default();
    let starts =
        |pattern: &[&str]| lower.len() > pattern.len() && lower.iter().zip(pattern).all(|(w, p)| w == p);
    let phrase = if starts(&["what", "about"]) {
        rest(2)
    } else if starts(&["tell", "me", "more", "about"]) {
        rest(4)
    } else if starts(&["tell", "me", "about"]) {
        rest(3)
    } else if starts(&["is", "it", "true", "that"]) {
        rest(4)
    } else if starts(&["i", "wonder"]) {
        match lower.get(2).map(String::as_str) {
            Some("if" | "whether") => format!("whether {}", rest(3)),
            Some(_) => rest(2),
            None => String::new(),
        }
    } else if lower.len() >= 3 && is(&lower[0], WH) && matches!(lower[1].as_str(), "did" | "do" | "does") {
        // "how did the army organise its legions" → "how the army organised its legions"
        let mut tail: Vec<String> = words[2..].to_vec();
        let refs: Vec<&str> = tail.iter().map(String::as_str).collect();
        if let Some(v) = verb_index(&refs) {
            tail[v] = match lower[1].as_str() {
                "did" => past(&tail[v]),
                "does" => third_person(&tail[v]),
                _ => tail[v].clone(),
            };
        }
        format!("{} {}", lower[0], tail.join(" "))
    } else if lower.len() >= 3 && is(&lower[0], WH) && (is(&lower[1], MODALS) || is(&lower[1], BE)) {
        // "why was Caesar assassinated" → "why Caesar was assassinated";
        // "how could the Republic last" → "how the Republic could last"
        let tail: Vec<&str> = words[2..].iter().map(String::as_str).collect();
        if is(&lower[1], BE) && tail.len() == 1 || lower[0] == "what" && is(&lower[1], BE) {
            // "what was the Senate's role" → "the Senate's role"
            if lower[0] == "what" { rest(2) } else { format!("{} {} {}", lower[0], tail.join(" "), lower[1]) }
        } else {
            let split =
                if is(&lower[1], BE) { tail.len() - 1 } else { verb_index(&tail).unwrap_or(tail.len() - 1) };
            format!("{} {} {} {}", lower[0], tail[..split].join(" "), lower[1], tail[split..].join(" "))
        }
    } else {
        // Anything else: the question itself, as a phrase.
        let mut phrase = words.join(" ");
        if let Some(first) = words.first().filter(|w| !w.chars().skip(1).any(char::is_uppercase) && *w != "I")
        {
            phrase = first.to_lowercase() + &phrase[first.len()..];
        }
        phrase
    };
    let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
    // A banner, not an essay.
    match phrase.char_indices().nth(80) {
        Some((cut, _)) => {
            phrase[..cut].rsplit_once(' ').map_or(phrase[..cut].to_string(), |(head, _)| head.into())
        }
        None => phrase,
    }
}

/// Two to four words of a topic for pills and banners: without the opening question word,
/// article or auxiliary, and not ending on a small joining word.
pub fn label_of(topic: &str) -> String {
    let words: Vec<&str> = topic
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let skippable = |w: &str| is(w, WH) || is(w, FUNCTION_WORDS) || is(w, BE) || is(w, MODALS);
    let start = words.iter().position(|w| !skippable(w)).unwrap_or(0);
    let mut label: Vec<&str> = words[start..].iter().take(4).copied().collect();
    while label.len() > 2 && label.last().is_some_and(|w| is(w, FUNCTION_WORDS)) {
        label.pop();
    }
    let label = label.join(" ");
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => label,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_become_phrases_a_person_would_write() {
        let cases = [
            ("How did the Roman army organise its legions?", "how the Roman army organised its legions"),
            ("Why did Caesar cross the Rubicon?", "why Caesar crossed the Rubicon"),
            ("Wait, how did the printing press change Europe?", "how the printing press changed Europe"),
            ("How does photosynthesis work?", "how photosynthesis works"),
            ("Why do cells divide?", "why cells divide"),
            ("What about the printing press?", "the printing press"),
            ("I wonder how tides work on other planets", "how tides work on other planets"),
            ("I wonder if Augustus ever went to Britain", "whether Augustus ever went to Britain"),
            ("Why was Caesar assassinated?", "why Caesar was assassinated"),
            ("How could the Republic last so long?", "how the Republic could last so long"),
            ("What was the Senate's role?", "the Senate's role"),
            ("Tell me about the Gracchi brothers", "the Gracchi brothers"),
            ("Hmm, what if Pompey had won?", "what if Pompey had won"),
        ];
        for (question, phrase) in cases {
            assert_eq!(topic_of(question), phrase, "{question}");
        }
    }

    #[test]
    fn labels_are_two_to_four_words_of_the_topic() {
        assert_eq!(label_of("how the Roman army organised its legions"), "Roman army organised");
        assert_eq!(label_of("the printing press"), "Printing press");
        assert_eq!(label_of("the history of the printing press in Europe"), "History of the printing");
        assert_eq!(label_of("why Caesar crossed the Rubicon"), "Caesar crossed the Rubicon");
        assert_eq!(label_of("tides"), "Tides");
        assert_eq!(label_of("  "), "");
    }

    #[test]
    fn verbs_change_tense_as_they_should() {
        assert_eq!(past("organise"), "organised");
        assert_eq!(past("carry"), "carried");
        assert_eq!(past("go"), "went");
        assert_eq!(third_person("push"), "pushes");
        assert_eq!(third_person("fly"), "flies");
    }
}
