use super::label::OPENERS;
use super::verbs::{past, third_person};
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
        ("out of curiosity, were the pyramids built by slaves?", "whether the pyramids were built by slaves"),
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
        let file = if std::path::Path::new(file).exists() { file.to_string() } else { format!("../{file}") };
        for (message, phrase) in cases(&file) {
            for topic in [topic_of(&message), phrase] {
                let label = label_of(&topic);
                let words: Vec<&str> = label.split_whitespace().collect();
                assert!((1..=4).contains(&words.len()), "{topic:?} gave {label:?}");
                let lower = topic.to_lowercase();
                assert!(words.iter().all(|w| lower.contains(&w.to_lowercase())), "{topic:?} gave {label:?}");
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
