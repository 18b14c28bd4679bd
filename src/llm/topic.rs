//! Rabbit-hole topics and labels. The offline detector turns a learner's question into the
//! phrase a person would write about it: "How did the Roman army organise its legions?"
//! becomes "how the Roman army organised its legions"; "What about the printing press?"
//! becomes "the printing press". Any detector's topic gets a pill label of two to four of its
//! words. Plain word patterns and a list of common verbs, no grammar model: a verb's tense is
//! changed only when the word is known to be a verb; otherwise the question keeps the learner's
//! own words. `evals/topics.jsonl` and `evals/holdout/topics.jsonl` hold the phrases a person
//! would write for sixty-eight tangents; the tests below read both.
//!
//! Long by design: the phrase rules and the word lists they read belong together, and the
//! tests check both against the evaluation files.

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

/// Words that open a clause of their own, after the main one ("… if it is so big").
const SUBORDINATORS: &[&str] =
    &["if", "because", "when", "although", "though", "while", "since", "unless", "whereas", "even"];

/// Words of degree, which follow "is" in a statement ("Saturn is so light").
const DEGREE: &[&str] = &["so", "too", "very", "more", "less", "really", "that", "quite", "such", "much"];

/// Words that close a question after its verb's complement ("why is it hot too"): the verb
/// put back goes before them.
const CLOSING_ADVERBS: &[&str] = &["too", "also", "then", "now", "again", "anyway", "though", "still"];

/// Past tenses that do not end in -ed.
const IRREGULAR: &[(&str, &str)] = &[
    ("arise", "arose"),
    ("be", "was"),
    ("become", "became"),
    ("begin", "began"),
    ("bind", "bound"),
    ("bite", "bit"),
    ("bleed", "bled"),
    ("blow", "blew"),
    ("break", "broke"),
    ("breed", "bred"),
    ("bring", "brought"),
    ("build", "built"),
    ("buy", "bought"),
    ("catch", "caught"),
    ("choose", "chose"),
    ("come", "came"),
    ("cost", "cost"),
    ("cut", "cut"),
    ("dig", "dug"),
    ("do", "did"),
    ("draw", "drew"),
    ("drink", "drank"),
    ("drive", "drove"),
    ("eat", "ate"),
    ("fall", "fell"),
    ("feed", "fed"),
    ("feel", "felt"),
    ("fight", "fought"),
    ("find", "found"),
    ("fly", "flew"),
    ("forget", "forgot"),
    ("forgive", "forgave"),
    ("freeze", "froze"),
    ("get", "got"),
    ("give", "gave"),
    ("go", "went"),
    ("grow", "grew"),
    ("hang", "hung"),
    ("have", "had"),
    ("hear", "heard"),
    ("hide", "hid"),
    ("hit", "hit"),
    ("hold", "held"),
    ("hurt", "hurt"),
    ("keep", "kept"),
    ("know", "knew"),
    ("lay", "laid"),
    ("lead", "led"),
    ("leave", "left"),
    ("let", "let"),
    ("light", "lit"),
    ("lose", "lost"),
    ("make", "made"),
    ("mean", "meant"),
    ("meet", "met"),
    ("overcome", "overcame"),
    ("pay", "paid"),
    ("put", "put"),
    ("read", "read"),
    ("ride", "rode"),
    ("ring", "rang"),
    ("rise", "rose"),
    ("run", "ran"),
    ("say", "said"),
    ("see", "saw"),
    ("seek", "sought"),
    ("sell", "sold"),
    ("send", "sent"),
    ("set", "set"),
    ("shake", "shook"),
    ("shine", "shone"),
    ("shoot", "shot"),
    ("shut", "shut"),
    ("sing", "sang"),
    ("sink", "sank"),
    ("sit", "sat"),
    ("slide", "slid"),
    ("speak", "spoke"),
    ("spend", "spent"),
    ("spin", "spun"),
    ("split", "split"),
    ("spread", "spread"),
    ("stand", "stood"),
    ("steal", "stole"),
    ("stick", "stuck"),
    ("strike", "struck"),
    ("swim", "swam"),
    ("swing", "swung"),
    ("take", "took"),
    ("teach", "taught"),
    ("tear", "tore"),
    ("tell", "told"),
    ("think", "thought"),
    ("throw", "threw"),
    ("undergo", "underwent"),
    ("understand", "understood"),
    ("wake", "woke"),
    ("wear", "wore"),
    ("win", "won"),
    ("withdraw", "withdrew"),
    ("write", "wrote"),
];

/// Common verbs in their base form (with the irregular ones above): a word is changed to the
/// past or third person only when it is known to be a verb.
const VERBS: &[&str] = &[
    "accept",
    "achieve",
    "act",
    "add",
    "affect",
    "agree",
    "allow",
    "appear",
    "apply",
    "argue",
    "arrive",
    "ask",
    "attack",
    "avoid",
    "beat",
    "become",
    "begin",
    "believe",
    "belong",
    "bend",
    "bind",
    "bleed",
    "blow",
    "boil",
    "borrow",
    "breathe",
    "breed",
    "burn",
    "call",
    "care",
    "carry",
    "catch",
    "cause",
    "change",
    "charge",
    "chase",
    "check",
    "choose",
    "claim",
    "clean",
    "climb",
    "close",
    "collapse",
    "collect",
    "combine",
    "compare",
    "compete",
    "complain",
    "connect",
    "consider",
    "contain",
    "continue",
    "control",
    "convert",
    "cook",
    "cool",
    "copy",
    "cost",
    "count",
    "cover",
    "crack",
    "crash",
    "create",
    "cross",
    "cry",
    "cure",
    "dance",
    "deal",
    "decide",
    "declare",
    "decay",
    "defeat",
    "defend",
    "define",
    "depend",
    "describe",
    "design",
    "destroy",
    "detect",
    "develop",
    "die",
    "differ",
    "dig",
    "digest",
    "disappear",
    "discover",
    "dissolve",
    "divide",
    "drink",
    "drop",
    "dry",
    "earn",
    "eat",
    "emerge",
    "end",
    "enter",
    "escape",
    "evolve",
    "exist",
    "expand",
    "expect",
    "explain",
    "explode",
    "express",
    "fail",
    "feed",
    "fight",
    "fill",
    "finish",
    "fit",
    "fix",
    "float",
    "flow",
    "fold",
    "follow",
    "forget",
    "form",
    "freeze",
    "function",
    "gain",
    "gather",
    "glow",
    "govern",
    "grow",
    "guess",
    "handle",
    "hang",
    "happen",
    "harm",
    "hate",
    "hear",
    "heat",
    "help",
    "hide",
    "hit",
    "hunt",
    "hurt",
    "identify",
    "ignore",
    "imagine",
    "improve",
    "include",
    "increase",
    "influence",
    "inherit",
    "invade",
    "invent",
    "involve",
    "join",
    "jump",
    "kill",
    "kiss",
    "land",
    "last",
    "laugh",
    "launch",
    "learn",
    "lie",
    "lift",
    "limit",
    "link",
    "listen",
    "live",
    "look",
    "love",
    "manage",
    "mark",
    "marry",
    "matter",
    "measure",
    "melt",
    "mix",
    "move",
    "name",
    "navigate",
    "need",
    "notice",
    "obey",
    "observe",
    "occur",
    "offer",
    "open",
    "operate",
    "order",
    "organise",
    "organize",
    "own",
    "paint",
    "pass",
    "perform",
    "pick",
    "plan",
    "plant",
    "play",
    "point",
    "pour",
    "power",
    "prefer",
    "prepare",
    "press",
    "prevent",
    "print",
    "produce",
    "protect",
    "prove",
    "provide",
    "publish",
    "pull",
    "pump",
    "purr",
    "push",
    "reach",
    "react",
    "read",
    "recognise",
    "recognize",
    "record",
    "recover",
    "reduce",
    "reflect",
    "refuse",
    "relate",
    "release",
    "rely",
    "remain",
    "remember",
    "remove",
    "repair",
    "repeat",
    "replace",
    "reply",
    "report",
    "represent",
    "require",
    "rescue",
    "resist",
    "respond",
    "rest",
    "return",
    "reveal",
    "ride",
    "ring",
    "rotate",
    "rule",
    "sail",
    "save",
    "scare",
    "search",
    "seem",
    "separate",
    "serve",
    "settle",
    "shape",
    "share",
    "shift",
    "shine",
    "shoot",
    "show",
    "shrink",
    "sign",
    "signal",
    "sing",
    "slow",
    "smell",
    "solve",
    "sound",
    "spin",
    "spread",
    "start",
    "stay",
    "steal",
    "stick",
    "stop",
    "store",
    "study",
    "succeed",
    "suffer",
    "suggest",
    "supply",
    "support",
    "survive",
    "swallow",
    "swim",
    "switch",
    "talk",
    "taste",
    "tend",
    "test",
    "thank",
    "touch",
    "trade",
    "train",
    "translate",
    "transport",
    "travel",
    "treat",
    "trigger",
    "trust",
    "try",
    "turn",
    "understand",
    "unite",
    "use",
    "vary",
    "visit",
    "vote",
    "wait",
    "wake",
    "walk",
    "want",
    "warm",
    "wash",
    "watch",
    "wear",
    "weigh",
    "wonder",
    "work",
    "worry",
];

/// Words that add nothing to a topic ("how did Champollion actually crack the code").
const HEDGES: &[&str] = &["actually", "exactly", "even"];

/// Openings that name the topic after them: "I'm curious about endosymbiosis".
const CURIOUS_ABOUT: &[&str] = &["i'm curious about", "i am curious about", "curious about"];

/// Requests whose topic follows: "can you tell me what mRNA is" → "what mRNA is".
const REQUESTS: &[&[&str]] = &[
    &["can", "you", "tell", "me", "about"],
    &["could", "you", "tell", "me", "about"],
    &["can", "you", "tell", "me"],
    &["could", "you", "tell", "me"],
    &["can", "you", "explain"],
    &["could", "you", "explain"],
    &["i'm", "curious", "about"],
    &["i", "am", "curious", "about"],
    &["curious", "about"],
    &["i'm", "curious"],
];

/// Endings that add nothing to a topic.
/// Asides that open a question and are no part of its topic: "hang on, is…", "sorry, was…".
const ASIDES: &[&[&str]] = &[
    &["hang", "on"],
    &["hold", "on"],
    &["sorry"],
    &["lol"],
    &["haha"],
    &["tbh"],
    &["ooh"],
    &["ah"],
    &["btw"],
    &["quick", "question"],
    &["random", "question"],
    &["side", "question"],
    &["out", "of", "curiosity"],
    &["just", "wondering"],
    &["just", "curious"],
    &["by", "the", "way"],
];

/// Adjectives that say what a subject is ("the war | costly for Rome").
const PREDICATES: &[&str] = &[
    "alive",
    "dead",
    "true",
    "real",
    "big",
    "small",
    "tall",
    "short",
    "hot",
    "cold",
    "old",
    "young",
    "new",
    "good",
    "bad",
    "hard",
    "easy",
    "strong",
    "weak",
    "heavy",
    "fast",
    "slow",
    "rare",
    "common",
    "safe",
    "important",
    "different",
    "same",
    "older",
    "bigger",
    "smaller",
    "larger",
    "faster",
    "slower",
    "better",
    "worse",
    "possible",
    "necessary",
    "sure",
    "able",
    "enough",
    "right",
    "wrong",
    "free",
    "full",
    "empty",
    "natural",
    "normal",
    "legal",
    "illegal",
    "constant",
    "useful",
    "harmful",
    "likely",
    "unlikely",
];

/// Whether a word reads as an adjective by its ending ("visible", "useless", "poisonous").
fn described(word: &str) -> bool {
    let lower = word.to_lowercase();
    lower.len() > 5 && ["ible", "able", "ful", "less", "ous", "ive"].iter().any(|end| lower.ends_with(end))
}

/// Auxiliaries that open a yes-no question ("is Pluto a planet", "can octopuses…").
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could", "would", "should",
    "will", "might", "may", "must",
];

/// Words a yes-no question's subject can be on its own ("is there…", "has anyone…").
const PRONOUNS: &[&str] = &[
    "it",
    "there",
    "they",
    "we",
    "you",
    "he",
    "she",
    "anyone",
    "anybody",
    "someone",
    "somebody",
    "anything",
    "something",
    "everyone",
    "everybody",
    "everything",
    "nobody",
    "nothing",
    "people",
];

/// Words that end a noun phrase: small adverbs and prepositions ("the heart | actually…",
/// "viruses | in…"). "Of" is not among them ("the speed of light").
const AFTER_SUBJECT: &[&str] = &[
    "still", "really", "actually", "ever", "always", "just", "even", "also", "already", "usually", "only",
    "never", "once", "so", "too", "very", "in", "on", "at", "by", "for", "from", "with", "into", "as",
    "than", "like", "without", "to", "a", "an", "the", "not", "that", "who", "which",
];

const TAILS: &[&[&str]] = &[&["in", "the", "first", "place"], &["anyway"], &["though"], &["again"]];

fn is_verb(word: &str) -> bool {
    let lower = word.trim_end_matches(',').to_lowercase();
    VERBS.contains(&lower.as_str()) || IRREGULAR.iter().any(|(base, _)| *base == lower)
}

/// Whether `word` (a comma after it aside) is one of `list`.
fn is(word: &str, list: &[&str]) -> bool {
    list.contains(&word.trim_end_matches(',').to_lowercase().as_str())
}

fn asks_yes_or_no(word: &str) -> bool {
    is(word, AUXILIARIES)
}

/// Where the subject of a yes-no question ends, the auxiliary taken off: a pronoun, a name,
/// or a noun phrase up to a verb, a small adverb, a preposition or the last word ("the
/// heart | counted as…", "Pluto | still a planet", "viruses | alive").
fn subject_end(tail: &[&str]) -> Option<usize> {
    let first = tail.first()?;
    if tail.len() < 2 {
        return None;
    }
    if is(first, PRONOUNS) {
        return Some(1);
    }
    let named = |w: &str| w.chars().next().is_some_and(char::is_uppercase) && w != "I";
    if named(first) {
        let run = tail.iter().take_while(|w| named(w) && !w.ends_with(',')).count();
        return Some(run.min(tail.len() - 1));
    }
    let verb_like = |w: &str| {
        let lower = w.to_lowercase();
        is_verb(w)
            || is(w, AUXILIARIES)
            || is(w, &["be", "been", "being"])
            || IRREGULAR.iter().any(|(_, past)| *past == lower)
            || lower.ends_with("ed")
            || lower.ends_with("ing")
    };
    let start = usize::from(is(first, FUNCTION_WORDS) && !is(first, &["of", "to", "in", "on", "at", "by"]));
    let mut end = start + 1;
    if end >= tail.len() {
        // "is that true": the determiner stands alone.
        return Some(start.max(1));
    }
    if start == 1 && named(tail[1]) {
        // "the Great Wall | visible from space".
        let run = tail[1..].iter().take_while(|w| named(w) && !w.ends_with(',')).count();
        return Some((1 + run).min(tail.len() - 1));
    }
    let ends_it = |w: &str| verb_like(w) || is(w, AFTER_SUBJECT) || is(w, PREDICATES) || described(w);
    // The word after "of" is a noun ("the speed of light").
    while end < tail.len() - 1
        && (is(tail[end - 1], &["of"]) || !ends_it(tail[end]))
        && !tail[end - 1].ends_with(',')
    {
        end += 1;
    }
    Some(end)
}

/// Whether a word is plainly a past participle or a verb in -ing ("chosen", "called",
/// "bulging"), as a passive or a progressive has after its "is" or "was".
fn is_participle(word: &str) -> bool {
    const IRREGULAR_PARTICIPLES: &[&str] = &[
        "chosen",
        "taken",
        "given",
        "written",
        "broken",
        "eaten",
        "forgotten",
        "hidden",
        "driven",
        "known",
        "shown",
        "grown",
        "thrown",
        "drawn",
        "seen",
        "beaten",
        "frozen",
        "spoken",
        "stolen",
        "ridden",
        "risen",
        "fallen",
        "shaken",
        "born",
        "worn",
        "torn",
        "done",
        "gone",
        "begun",
        "made",
        "built",
        "held",
        "kept",
        "paid",
        "sold",
        "told",
        "taught",
        "thought",
        "brought",
        "bought",
        "caught",
        "fought",
        "sent",
        "spent",
        "heard",
        "meant",
        "led",
    ];
    let lower = word.trim_end_matches(',').to_lowercase();
    is(&lower, IRREGULAR_PARTICIPLES)
        || (lower.len() >= 5 && lower.ends_with("ed") && !lower.ends_with("eed"))
        || (lower.len() >= 6
            && lower.ends_with("ing")
            && !is(
                &lower,
                &[
                    "something",
                    "nothing",
                    "anything",
                    "everything",
                    "thing",
                    "things",
                    "spring",
                    "string",
                    "during",
                    "ceiling",
                    "morning",
                    "evening",
                    "building",
                    "meaning",
                    "feeling",
                ],
            ))
}

fn past(verb: &str) -> String {
    let lower = verb.to_lowercase();
    if let Some((_, past)) = IRREGULAR.iter().find(|(base, _)| *base == lower) {
        return (*past).to_string();
    }
    if lower.ends_with('e') {
        format!("{verb}d")
    } else if doubles_last(&lower) {
        format!("{verb}{}ed", lower.chars().last().map(String::from).unwrap_or_default())
    } else if let Some(stem) = lower.strip_suffix('y').filter(|s| !s.ends_with(['a', 'e', 'i', 'o', 'u'])) {
        format!("{stem}ied")
    } else {
        format!("{verb}ed")
    }
}

/// Whether the past doubles the last consonant: a short word ending consonant, vowel,
/// consonant ("stop", "plan"), or a longer one stressed at its end ("occur", "admit").
fn doubles_last(lower: &str) -> bool {
    const STRESSED_LAST: &[&str] = &[
        "admit", "commit", "compel", "control", "expel", "occur", "permit", "prefer", "refer", "regret",
        "submit", "transfer",
    ];
    let vowel = |c: char| matches!(c, 'a' | 'e' | 'i' | 'o' | 'u');
    let chars: Vec<char> = lower.chars().collect();
    let cvc = match chars[..] {
        [.., a, b, c] => !vowel(a) && vowel(b) && !vowel(c) && !matches!(c, 'w' | 'x' | 'y'),
        _ => false,
    };
    let vowel_groups = chars.windows(2).filter(|w| !vowel(w[0]) && vowel(w[1])).count()
        + usize::from(chars.first().copied().is_some_and(vowel));
    cvc && (vowel_groups == 1 || STRESSED_LAST.contains(&lower))
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

/// Where the verb is in "the Roman army organise its legions" (after the auxiliary): the first
/// known verb after the subject's first word that is not itself followed by a known verb ("the
/// printing press change Europe": "change", not "press"); else, if it is a known verb, the word
/// before the first function word after the subject, or before a closing proper name, or the
/// last word. None when no known verb is there: the learner's own words are then kept.
fn verb_index(words: &[&str]) -> Option<usize> {
    let subject_start = words.iter().position(|w| !is(w, FUNCTION_WORDS)).unwrap_or(0);
    (subject_start + 1..words.len())
        .find(|&i| is_verb(words[i]) && !words.get(i + 1).is_some_and(|next| is_verb(next)))
        .or_else(|| placed_verb(words).filter(|&i| is_verb(words[i])))
}

/// The words after "do", "does" or "did" with their verb carrying the auxiliary's tense ("did
/// the army organise" → "the army organised"); `None` when no known verb is there.
fn without_do(auxiliary: &str, words: &[String]) -> Option<String> {
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let v = verb_index(&refs)?;
    let mut tail = words.to_vec();
    let verb = tail[v].trim_end_matches(',');
    let comma = &tail[v][verb.len()..];
    tail[v] = match auxiliary {
        "did" => past(verb),
        "does" => third_person(verb),
        _ => verb.to_string(),
    } + comma;
    Some(tail.join(" "))
}

/// Where the verb would be by word order alone.
fn placed_verb(words: &[&str]) -> Option<usize> {
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
    // "Speaking of yeast, how does…": the question starts at the clause that asks. A dash
    // or a colon ("random question: why do…") parts clauses as a comma does.
    let sentence = sentence
        .replace('\u{2019}', "'")
        .replace(": ", ", ")
        .replace(" \u{2014} ", ", ")
        .replace(" \u{2013} ", ", ")
        .replace(" - ", ", ");
    let clauses: Vec<&str> = sentence.split(',').collect();
    let asking = clauses.iter().position(|c| {
        let first = c.split_whitespace().next().unwrap_or_default().to_lowercase();
        is(&first, WH) || asks_yes_or_no(&first) || matches!(first.as_str(), "tell" | "i" | "i'm")
    });
    let mut asked: &[&str] = asking.map_or(&clauses[..], |i| &clauses[i..]);
    // "I'm curious about endosymbiosis — how did…": what they are curious about is the topic.
    if let [first, _, ..] = asked
        && CURIOUS_ABOUT.iter().any(|lead| first.trim().to_lowercase().starts_with(lead))
    {
        asked = &asked[..1];
    }
    // "Where did mitochondria come from, endosymbiosis?": a short guess or aside after the
    // question is not part of its topic ("roughly", "really", "the Romans?"). A list goes on.
    if let [head @ .., before, last] = asked
        && head.iter().chain([before]).map(|c| c.split_whitespace().count()).sum::<usize>() >= 4
        && before.split_whitespace().count() >= 3
        && (1..=3).contains(&last.split_whitespace().count())
        && !last.split_whitespace().next().is_some_and(|w| is(w, &["and", "or", "nor"]))
    {
        asked = &asked[..asked.len() - 1];
    }
    let sentence = asked.join(",");
    // A comma after a word stays ("Rome, Athens, or Sparta"); `is` and `is_verb` look past it.
    let mut words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, '?' | '!' | ';' | ':' | '"' | '.')))
        .map(|w| w.trim_start_matches(',').to_string())
        .filter(|w| !w.trim_end_matches(',').is_empty() && !is(w, HEDGES))
        .collect();
    loop {
        if words.first().is_some_and(|w| is(w, FILLERS)) {
            words.remove(0);
        } else if let Some(aside) = ASIDES.iter().find(|aside| {
            words.len() > aside.len() && words.iter().zip(aside.iter()).all(|(w, a)| is(w, &[a]))
        }) {
            words.drain(..aside.len());
        } else {
            break;
        }
    }
    // "random question but are viruses alive": what comes before "but" and a question is an
    // aside.
    if let Some(but) = words.iter().take(5).position(|w| is(w, &["but"]))
        && words.get(but + 1).is_some_and(|w| is(w, WH) || asks_yes_or_no(w))
    {
        words.drain(..=but);
    }
    if let Some(last) = words.last_mut() {
        last.truncate(last.trim_end_matches(',').len());
    }
    for tail in TAILS {
        if words.len() > tail.len() + 2
            && words[words.len() - tail.len()..]
                .iter()
                .zip(tail.iter())
                .all(|(w, t)| w.eq_ignore_ascii_case(t))
        {
            words.truncate(words.len() - tail.len());
        }
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
    if let Some(request) = REQUESTS.iter().find(|r| starts(r)) {
        return topic_of(&rest(request.len()));
    }
    let phrase = if starts(&["what", "about"]) {
        rest(2)
    } else if starts(&["tell", "me", "more", "about"]) {
        rest(4)
    } else if starts(&["tell", "me", "about"]) {
        rest(3)
    } else if starts(&["is", "it", "true", "that"]) {
        rest(4)
    } else if let Some(k) = (lower.len() > 1 && is(&lower[0], &["i", "i've", "i'm"]))
        .then(|| (1..lower.len().min(4)).find(|&k| lower[k].starts_with("wonder")))
        .flatten()
    {
        // "I wonder if…", "I've always wondered why…", "I was wondering how…".
        match lower.get(k + 1).map(String::as_str) {
            Some("if" | "whether") => format!("whether {}", rest(k + 2)),
            Some(_) => topic_of(&rest(k + 1)),
            None => String::new(),
        }
    } else if lower.len() >= 3 && is(&lower[0], WH) && matches!(lower[1].as_str(), "did" | "do" | "does") {
        // "how did the army organise its legions" → "how the army organised its legions"
        match without_do(&lower[1], &words[2..]) {
            Some(tail) => format!("{} {tail}", lower[0]),
            // No verb it knows: the question as asked, not a guess.
            None => format!("{} {} {}", lower[0], lower[1], words[2..].join(" ")),
        }
    } else if let Some(k) = (lower.len() >= 4 && lower[0] == "how")
        .then(|| (2..lower.len().min(5)).find(|&k| matches!(lower[k].as_str(), "did" | "do" | "does")))
        .flatten()
        .filter(|&k| lower[1..k].iter().all(|w| !is_verb(w)))
    {
        // "how long do planetary rings last" → "how long planetary rings last"; "how many
        // moons does Jupiter have" → "how many moons Jupiter has".
        let asked = words[..k].join(" ").to_lowercase();
        match without_do(&lower[k], &words[k + 1..]) {
            Some(tail) => format!("{asked} {tail}"),
            None => format!("{asked} {} {}", lower[k], words[k + 1..].join(" ")),
        }
    } else if lower.len() >= 3 && matches!(lower[0].as_str(), "do" | "does" | "did") {
        // "do other animals have four chambers" → "whether other animals have four chambers"
        match without_do(&lower[0], &words[1..]) {
            Some(tail) => format!("whether {tail}"),
            // "do fish sleep": the verb keeps its form after "do", known or not.
            None if lower[0] == "do" => format!("whether {}", rest(1)),
            None => words.join(" ").to_lowercase(),
        }
    } else if let Some(end) = (lower.len() >= 3 && asks_yes_or_no(&lower[0]))
        .then(|| subject_end(&words[1..].iter().map(String::as_str).collect::<Vec<_>>()))
        .flatten()
    {
        // "is Pluto still a planet" → "whether Pluto is still a planet"; "can octopuses change
        // colour" → "whether octopuses can change colour".
        format!("whether {} {} {}", words[1..=end].join(" "), lower[0], words[end + 1..].join(" "))
    } else if lower.len() >= 3 && is(&lower[0], WH) && (is(&lower[1], MODALS) || is(&lower[1], BE)) {
        // "why was Caesar assassinated" → "why Caesar was assassinated";
        // "how could the Republic last" → "how the Republic could last"
        let tail: Vec<&str> = words[2..].iter().map(String::as_str).collect();
        // A closing "too", "then", "again"… stays at the end, after the verb put back.
        let closing = tail.iter().rev().take_while(|w| is(w, CLOSING_ADVERBS)).count();
        let ends = if closing < tail.len() { tail.len() - closing } else { tail.len() };
        if is(&lower[1], BE) && lower[0] != "what" && tail.len() > 1 && tail[0].eq_ignore_ascii_case("there")
        {
            // "why is there a bulge on the far side too" → "why there is a bulge on the far side too"
            format!("{} there {} {}", lower[0], lower[1], tail[1..].join(" "))
        } else if is(&lower[1], BE) && tail.len() == 1 || lower[0] == "what" && is(&lower[1], BE) {
            // "what was the Senate's role" → "the Senate's role"
            if lower[0] == "what" { rest(2) } else { format!("{} {} {}", lower[0], tail.join(" "), lower[1]) }
        } else {
            // "is" goes back after the subject: before a word of degree ("why Saturn is so
            // light"), else before the main clause's last word ("why the far side is bulging");
            // a clause after "if", "because"… is not the main one.
            let main = tail
                .iter()
                .position(|w| is(w, SUBORDINATORS))
                .filter(|&k| k >= 2)
                .map_or(ends, |k| k.min(ends));
            let degree = tail[..main].iter().position(|w| is(w, DEGREE)).filter(|&k| k >= 1);
            // Or before a participle ("why Canberra was chosen over Sydney").
            let subject_start = tail.iter().position(|w| !is(w, FUNCTION_WORDS)).unwrap_or(0);
            let participle =
                (subject_start + 1..main).find(|&k| is_participle(tail[k])).filter(|_| is(&lower[1], BE));
            let first = match (degree, participle) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // Else before the last word, and the article it has ("why light's speed is a limit").
            let last = |end: usize| {
                let mut k = end.max(1) - 1;
                while k > subject_start + 1 && is(tail[k - 1], &["a", "an", "the"]) {
                    k -= 1;
                }
                k
            };
            let split =
                if is(&lower[1], BE) { Some(first.unwrap_or_else(|| last(main))) } else { verb_index(&tail) };
            match split {
                Some(split) => {
                    format!(
                        "{} {} {} {}",
                        lower[0],
                        tail[..split].join(" "),
                        lower[1],
                        tail[split..].join(" ")
                    )
                }
                None => format!("{} {} {}", lower[0], lower[1], tail.join(" ")),
            }
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

/// Two to four words of a topic for its pill. A short question keeps its question
/// word ("Why cats purr", "What happened to Neanderthals"); a longer topic loses its opening
/// question word, article or auxiliary, then, if it still runs past four words, its articles
/// and small adverbs ("Roman army organised legions"), and is cut where a phrase ends: never on
/// a small joining word, never between a verb and its object ("organised its"), nor inside a
/// run of content words ("the immune" before "system").
pub fn label_of(topic: &str) -> String {
    let words: Vec<&str> = topic
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let asks = |w: &str| is(w, &["how", "why", "who", "when", "where", "what"]);
    let titled = match words.as_slice() {
        // "who invented the telescope": the question word is the subject.
        [wh, verb, ..] if is(wh, &["who", "what"]) && is_verb_form(verb) => {
            Some(if words.len() <= 4 { words.clone() } else { headless(&words) })
        }
        // "how many moons Jupiter has": the amount asked about is the label.
        [how, amount, thing, _, ..] if is(how, &["how"]) && is(amount, &["many", "much"]) => {
            Some(vec![*how, *amount, *thing])
        }
        // "how long planetary rings last": the measure asked, then the subject's head and its
        // verb.
        [how, measure, rest @ ..] if is(how, &["how"]) && is(measure, MEASURES) && !rest.is_empty() => {
            let rest = headless(rest);
            let tail = &rest[rest.len().saturating_sub(2)..];
            Some([&[*how, *measure][..], tail].concat())
        }
        [wh, second, ..] if asks(wh) && !is(second, FUNCTION_WORDS) => Some(words.clone()),
        _ => None,
    }
    .filter(|label| label.len() <= 4);
    let label = titled.unwrap_or_else(|| headline(&words)).join(" ");
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => label,
    }
}

/// What "how" asks the measure of ("how long", "how far").
const MEASURES: &[&str] =
    &["long", "far", "often", "old", "big", "fast", "large", "deep", "hot", "cold", "high", "heavy", "soon"];

/// Articles and possessives, the first words a headline drops.
const DETERMINERS: &[&str] = &["a", "an", "the", "its", "their", "his", "her", "our", "my", "your"];

/// Adverbs a headline drops, and a label never ends on.
const ADVERBS: &[&str] = &[
    "ever",
    "only",
    "always",
    "never",
    "first",
    "really",
    "still",
    "just",
    "often",
    "actually",
    "even",
    "also",
    "already",
    "once",
    "originally",
    "eventually",
    "finally",
    "usually",
    "suddenly",
    "quickly",
];

/// Words that leave a phrase open: no label ends on one.
const OPENERS: &[&str] = &[
    "other", "same", "each", "every", "own", "very", "more", "most", "less", "what", "which", "who", "how",
    "why", "when", "where", "whether", "inside", "outside", "across", "through", "under", "without",
    "within", "between", "during", "around", "against", "about", "like", "than",
];

/// Words a verb can end on ("ended up", "died out").
const PARTICLES: &[&str] = &["up", "down", "out", "off", "away", "back"];

/// The words without articles, small adverbs, and a plural's "need to" before its verb
/// ("plants need to lose water" → "plants lose water").
fn headless<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut kept = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let catenative = is(words[i], CATENATIVES)
            && words.get(i + 1).is_some_and(|w| is(w, &["to"]))
            && words.get(i + 2).is_some_and(|w| is_verb(w));
        if catenative {
            i += 2;
            continue;
        }
        if !is(words[i], DETERMINERS) && !is(words[i], ADVERBS) {
            kept.push(words[i]);
        }
        i += 1;
    }
    kept
}

/// Verbs whose "to" and verb after them carry the meaning, in the plural's form.
const CATENATIVES: &[&str] = &["need", "have", "want", "seem", "tend", "manage", "try"];

/// The words of a headline label, as `label_of` says.
fn headline<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let skippable = |w: &str| is(w, WH) || is(w, FUNCTION_WORDS) || is(w, BE) || is(w, MODALS);
    let mut start = words.iter().position(|w| !skippable(w)).unwrap_or(0);
    // "what made the Renaissance start": the verb of a question word that was the subject.
    if start == 1 && is(words[0], &["who", "what"]) && is_verb_form(words[1]) {
        let after = (start + 1..words.len()).find(|&i| !skippable(words[i]) && !is(words[i], OPENERS));
        start = after.unwrap_or(start);
    }
    let rest = &words[start..];
    if rest.len() <= 4 {
        return trimmed(rest);
    }
    let dropped = headless(rest);
    if dropped.len() <= 4 {
        return trimmed(&dropped);
    }
    // The longest cut at a phrase's end, from the words as written or without their articles,
    // whichever keeps more; on a tie, the one followed by a small word rather than by what
    // may only look like a verb ("a lub-dub | sound"), else as written.
    let cut = |words: &[&'a str]| {
        (2..=4).rev().find(|&n| ends_phrase(words, n - 1)).map(|n| {
            let next = words.get(n).copied().unwrap_or_default();
            let open = !next.is_empty()
                && ![FUNCTION_WORDS, OPENERS, PARTICLES, CLOSING_ADVERBS].iter().any(|list| is(next, list));
            (words[..n].to_vec(), open)
        })
    };
    let best = match (cut(rest), cut(&dropped)) {
        (Some((a, a_open)), Some((b, b_open)))
            if b.len() > a.len() || b.len() == a.len() && a_open && !b_open =>
        {
            Some(b)
        }
        (Some((a, _)), _) => Some(a),
        (None, b) => b.map(|(b, _)| b),
    };
    // Two words say little: a longer phrase further on, opening on a noun, says more ("other
    // animals have four chambers too" → "Animals have four chambers").
    let opens = |w: &str| !skippable(w) && !is(w, OPENERS) && !is(w, ADVERBS) && !is_verb_form(w);
    let later = || {
        (1..rest.len()).filter(|&s| opens(rest[s])).find_map(|s| {
            (3..=4)
                .rev()
                .find(|&n| s + n <= rest.len() && ends_phrase(rest, s + n - 1))
                .map(|n| rest[s..s + n].to_vec())
        })
    };
    match best {
        Some(best) if best.len() >= 3 => best,
        best => later().or(best).unwrap_or_else(|| trimmed(rest)),
    }
}

/// The first four words, less any that would leave the label open at its end.
fn trimmed<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let open = |w: &&str| is(w, FUNCTION_WORDS) || is(w, OPENERS);
    let mut label: Vec<&str> = words.iter().take(4).copied().collect();
    while label.len() > 2 && label.last().is_some_and(|w| open(w) || is(w, AUXILIARIES)) {
        label.pop();
    }
    // "DNA is | in every cell": without its auxiliary the phrase closes ("DNA in every cell").
    let plain: Vec<&str> = words.iter().copied().filter(|w| !is(w, AUXILIARIES)).collect();
    if label.last().is_some_and(|w| is(w, AUXILIARIES))
        && plain.len() + 1 == words.len()
        && (2..=4).contains(&plain.len())
        && !plain.last().is_some_and(open)
    {
        return plain;
    }
    label
}

/// Whether a phrase can end at `words[i]`: see `label_of`.
fn ends_phrase(words: &[&str], i: usize) -> bool {
    let word = words[i];
    let verb = is_verb_form(word);
    let particle = is(word, PARTICLES) && i > 0 && is_verb_form(words[i - 1]);
    if is(word, FUNCTION_WORDS) || is(word, OPENERS) || is(word, ADVERBS) || is(word, PARTICLES) && !particle
    {
        return false;
    }
    let Some(next) = words.get(i + 1) else { return true };
    // "DNA is | in every cell": an auxiliary leaves its phrase open.
    if is(word, AUXILIARIES) {
        return false;
    }
    if word.ends_with(',') || is(next, CLOSING_ADVERBS) {
        true
    } else if is(next, &["to"]) {
        // "need to lose" is open, "went to Britain" is not.
        !(verb && words.get(i + 2).is_some_and(|w| is_verb(w)))
    } else if is(next, FUNCTION_WORDS) || is(next, OPENERS) || is(next, PARTICLES) {
        !(verb && is(next, DETERMINERS))
    } else {
        // A subject before its verb: "the small island like Britain | could rule"; but "the
        // printing press" is one noun.
        !verb && !word.ends_with("ing") && (is_verb_form(next) || is(next, MODALS) || is(next, BE))
    }
}

/// A known verb in any tense: "organise", "organises", "organised", "went".
fn is_verb_form(word: &str) -> bool {
    let lower = word.trim_end_matches(',').to_lowercase();
    is_verb(&lower)
        || IRREGULAR.iter().any(|(base, past)| *past == lower || third_person(base) == lower)
        || VERBS.iter().any(|base| past(base) == lower || third_person(base) == lower)
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
            ("Why is there a bulge on the far side too?", "why there is a bulge on the far side too"),
            // A yes-no question asks whether; its auxiliary goes back after the subject.
            ("oh wait, is Pluto still a planet?", "whether Pluto is still a planet"),
            ("Is the appendix actually useless?", "whether the appendix is useless"),
            ("Was the Great Wall visible from space?", "whether the Great Wall was visible from space"),
            (
                "so was the speed of light constant back then?",
                "whether the speed of light was constant back then",
            ),
            (
                "Has anyone ever climbed Everest without oxygen?",
                "whether anyone has ever climbed Everest without oxygen",
            ),
            (
                "hmm, could a human survive on Mars without a suit?",
                "whether a human could survive on Mars without a suit",
            ),
            (
                "Are there any animals that don't need oxygen?",
                "whether there are any animals that don't need oxygen",
            ),
            // Asides before the question are no part of it.
            (
                "hang on, is the heart actually counted as a muscle or an organ",
                "whether the heart is counted as a muscle or an organ",
            ),
            ("random question but are viruses alive?", "whether viruses are alive"),
            ("lol ok but do fish sleep?", "whether fish sleep"),
            (
                "out of curiosity, were the pyramids built by slaves?",
                "whether the pyramids were built by slaves",
            ),
            ("tbh I always wondered why flamingos are pink", "why flamingos are pink"),
            ("I've always wondered, why is the sky blue?", "why the sky is blue"),
            ("Why is the far side bulging too?", "why the far side is bulging too"),
            ("Why is Saturn so light if it is so big?", "why Saturn is so light if it is so big"),
            ("Why is ice less dense than water?", "why ice is less dense than water"),
            ("Why is the sky blue?", "why the sky is blue"),
            ("why was canberra chosen over sydney?", "why canberra was chosen over sydney"),
            (
                "why are mitochondria called the powerhouse of the cell",
                "why mitochondria are called the powerhouse of the cell",
            ),
            ("why was the wall so heavily defended", "why the wall was so heavily defended"),
            ("why is the speed of light a limit", "why the speed of light is a limit"),
            ("how long do planetary rings last?", "how long planetary rings last"),
            ("How many moons does Jupiter have?", "how many moons Jupiter has"),
            ("How much water did the Romans use each day?", "how much water the Romans used each day"),
            (
                "Where did mitochondria originally come from, endosymbiosis?",
                "where mitochondria originally came from",
            ),
            ("Why did the Romans hate kings so much, really?", "why the Romans hated kings so much"),
            ("What about Rome, Athens, or Sparta?", "Rome, Athens, or Sparta"),
            ("What about Rome, Athens, Sparta?", "Rome, Athens, Sparta"),
            ("Can you tell me what messenger RNA is?", "what messenger RNA is"),
            ("Could you tell me about the Gracchi brothers?", "the Gracchi brothers"),
            (
                "I\u{2019}m curious about endosymbiosis \u{2014} how did bacteria get swallowed and survive?",
                "endosymbiosis",
            ),
            ("I'm curious how tides work on other planets", "how tides work on other planets"),
            (
                "before I answer, random question: why do mitochondria have their own DNA? is that weird?",
                "why mitochondria have their own DNA",
            ),
        ];
        for (question, phrase) in cases {
            assert_eq!(topic_of(question), phrase, "{question}");
        }
        // A list's last item is not a trailing guess.
        let listed = topic_of("How did Caesar, Pompey and Crassus rule Rome?");
        assert_eq!(listed, "how Caesar, Pompey and Crassus ruled Rome");
        assert_eq!(topic_of("Why did they fight, and who won?"), "why they fought, and who won");
    }

    /// The tangents of a topic case file: (message, the phrase a person would write).
    fn cases(file: &str) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let case: serde_json::Value =
                    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
                (
                    case["message"].as_str().unwrap_or_default().into(),
                    case["topic"].as_str().unwrap_or_default().into(),
                )
            })
            .collect()
    }

    /// A word of a topic that is not in the message, other than a tense change of a verb.
    fn invented(message: &str, topic: &str) -> Option<String> {
        let said: Vec<String> = message
            .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
            .map(str::to_lowercase)
            .filter(|w| !w.is_empty())
            .collect();
        topic.split_whitespace().map(str::to_lowercase).find(|word| {
            let tensed = |w: &String| past(w) == *word || third_person(w) == *word;
            !said.contains(word) && !said.iter().any(tensed) && word != "whether"
        })
    }

    #[test]
    fn tangents_become_the_phrases_a_person_would_write_and_no_word_is_made_up() {
        for file in ["../evals/topics.jsonl", "../evals/holdout/topics.jsonl"].map(|f| {
            // Unit tests run in the crate's folder; the case files are at the workspace's root.
            if std::path::Path::new(f.trim_start_matches("../")).exists() {
                f.trim_start_matches("../")
            } else {
                f
            }
        }) {
            let cases = cases(file);
            assert!(cases.len() >= 30, "{file}");
            let mut same = 0;
            for (message, phrase) in &cases {
                let topic = topic_of(message);
                assert_eq!(invented(message, &topic), None, "{file}: {message:?} gave {topic:?}");
                assert_eq!(invented(message, phrase), None, "{file}: the case's own phrase {phrase:?}");
                let label = label_of(&topic);
                assert!((1..=4).contains(&label.split_whitespace().count()), "{label:?}");
                if topic != *phrase {
                    eprintln!("{file}: {message:?} gave {topic:?}, the case has {phrase:?}");
                }
                same += usize::from(topic == *phrase);
            }
            eprintln!("{file}: {same} of {} topics as the case writes them", cases.len());
            // Every development case is met; the held-out ones (never tuned on) nearly all.
            let needed = if file.contains("holdout") { cases.len() * 8 / 10 } else { cases.len() };
            assert!(same >= needed, "{file}: {same} of {} phrases as a person would write them", cases.len());
        }
    }

    #[test]
    fn labels_are_two_to_four_words_of_the_topic() {
        let cases = [
            ("how the Roman army organised its legions", "Roman army organised legions"),
            ("the printing press", "Printing press"),
            ("the history of the printing press in Europe", "History of printing press"),
            ("why Caesar crossed the Rubicon", "Caesar crossed the Rubicon"),
            ("tides", "Tides"),
            ("why there is a bulge on the far side too", "There is a bulge"),
            ("  ", ""),
            // A short question keeps its question word.
            ("why cats purr", "Why cats purr"),
            ("who invented the telescope", "Who invented the telescope"),
            ("what happened to the Neanderthals", "What happened to Neanderthals"),
            // Not cut between a verb and what it takes, nor inside a noun phrase.
            ("how vaccines train the immune system", "Vaccines train immune system"),
            ("why plants need to lose water through their leaves", "Plants lose water"),
            ("whether Augustus ever went to Britain", "Augustus went to Britain"),
            ("whether other animals have four chambers too", "Animals have four chambers"),
            ("what happened to the library of Alexandria", "Library of Alexandria"),
            ("how a small island like Britain could rule so much of the world", "Small island like Britain"),
            ("why the Aztec empire fell so quickly", "Aztec empire fell"),
            ("why the heart makes a lub-dub sound when it beats", "Heart makes lub-dub sound"),
            // A verb's third person is not taken for a plural noun's.
            ("why leaves change colour in autumn", "Leaves change colour"),
            // "How" with what it asks the measure or amount of.
            ("how long planetary rings last", "How long rings last"),
            ("how many moons Jupiter has", "How many moons"),
            ("how far the Moon is", "How far Moon is"),
            // Never left on an auxiliary.
            ("whether DNA is in every cell", "DNA in every cell"),
        ];
        for (topic, label) in cases {
            assert_eq!(label_of(topic), label, "{topic}");
        }
    }

    #[test]
    fn no_label_is_left_open_at_its_end() {
        for file in ["evals/topics.jsonl", "evals/holdout/topics.jsonl"] {
            let file =
                if std::path::Path::new(file).exists() { file.to_string() } else { format!("../{file}") };
            for (message, phrase) in cases(&file) {
                for topic in [topic_of(&message), phrase] {
                    let label = label_of(&topic);
                    let words: Vec<&str> = label.split_whitespace().collect();
                    assert!((1..=4).contains(&words.len()), "{topic:?} gave {label:?}");
                    let lower = topic.to_lowercase();
                    assert!(
                        words.iter().all(|w| lower.contains(&w.to_lowercase())),
                        "{topic:?} gave {label:?}"
                    );
                    let last = words.last().copied().unwrap_or_default();
                    let open = is(last, FUNCTION_WORDS) || is(last, OPENERS);
                    assert!(!open, "{topic:?} gave {label:?}");
                }
            }
        }
    }

    #[test]
    fn verbs_change_tense_as_they_should() {
        assert_eq!(past("organise"), "organised");
        assert_eq!(past("carry"), "carried");
        assert_eq!(past("go"), "went");
        assert_eq!(past("stop"), "stopped");
        assert_eq!(past("occur"), "occurred");
        assert_eq!(past("visit"), "visited");
        assert_eq!(past("fix"), "fixed");
        assert_eq!(third_person("push"), "pushes");
        assert_eq!(third_person("fly"), "flies");
    }
}
