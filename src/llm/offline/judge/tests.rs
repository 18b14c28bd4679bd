//! The judge's rules, each tried both ways: the message it is for, and one it must let pass.
//! Long by design: a test a rule, beside the cases that made it.

use super::reading::*;
use super::swaps::*;
use super::turned::*;
use super::ways::*;
use super::wording::*;
use super::*;

/// The names `names` finds in `content`, read word by word as the model's words are.
fn names_in(content: &str) -> Vec<Vec<&str>> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in content.char_indices().chain(std::iter::once((content.len(), ' '))) {
        match (c.is_alphanumeric() || c == '-', start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push(crate::embed::Word { span: s..i, vector: Vec::<f32>::new().into() });
                start = None;
            }
            (true, Some(_)) | (false, None) => {}
        }
    }
    let mut runs: Vec<Vec<&str>> = Vec::new();
    let mut last = 0;
    for (i, run) in names(content, &words) {
        if run != last {
            runs.push(Vec::new());
            last = run;
        }
        if let Some(current) = runs.last_mut() {
            current.push(&content[words[i].span.clone()]);
        }
    }
    runs
}

#[test]
fn names_are_runs_of_capitalised_words_past_the_first_and_not_numbers_or_acronyms() {
    assert_eq!(
        names_in("The Reign of Terror was led by Robespierre and the Committee of Public Safety."),
        vec![vec!["Reign"], vec!["Terror"], vec!["Robespierre"], vec!["Committee"], vec!["Public", "Safety"]]
    );
    assert_eq!(
        names_in("George Orwell wrote Nineteen Eighty-Four, published in 1949."),
        vec![vec!["Orwell"]],
        "the first word is the sentence's; number words are numbers"
    );
    assert_eq!(names_in("The nucleus stores the cell's DNA."), Vec::<Vec<&str>>::new());
}

fn point(id: &str, content: &str) -> PointBrief {
    PointBrief { id: id.into(), content: content.into(), ..PointBrief::default() }
}

fn points() -> Vec<PointBrief> {
    vec![
        point("m", "Mercury is the planet closest to the Sun."),
        point("j", "Jupiter is the largest planet in the Solar System."),
        point("v", "Venus is the hottest planet because its thick carbon dioxide atmosphere traps heat."),
        point("t", "The Treaty of Versailles was signed in 1919."),
    ]
}

/// WordNet's nouns and antonyms, as `scripts/test` installs them: every judgement here reads
/// siblings and opposites, whichever test runs first.
fn with_wordnet() {
    let dir = std::path::Path::new("data/models/wordnet");
    crate::text::kinship::install(dir).expect("WordNet's nouns, which scripts/test installs");
    crate::text::antonyms::install(dir).expect("WordNet's antonyms, which scripts/test installs");
}

fn judged(message: &str, question: Option<&str>, id: &str) -> Verdict {
    with_wordnet();
    let brief = EvaluatorBrief {
        set_name: "The Solar System".into(),
        review: vec![],
        guidelines: String::new(),
        unchecked: points(),
        learner_message: message.into(),
        mode: crate::llm::brief::EvalMode::Recall,
        recent: question.map(|q| vec![crate::llm::Message::assistant(q)]).unwrap_or_default(),
    };
    let context = Context::new(&brief, None);
    context.judge(brief.unchecked.iter().find(|p| p.id == id).unwrap_or(&brief.unchecked[0]))
}

#[test]
fn a_short_answer_to_the_question_recalls_the_point() {
    assert!(judged("jupiter def the biggest", None, "j").recalled);
    assert!(judged("mercury", Some("Which planet is closest to the Sun?"), "m").recalled);
    assert!(judged("CO2 trapping heat, so Venus", None, "v").recalled);
}

#[test]
fn repeating_the_question_a_wrong_entity_a_wrong_number_or_a_negation_does_not() {
    assert!(
        !judged("the planet closest to the sun", Some("Which planet is closest to the Sun?"), "m").recalled
    );
    assert!(
        !judged("Venus is the planet closest to the Sun.", Some("Which planet is closest to the Sun?"), "m")
            .recalled
    );
    assert!(!judged("The Treaty of Versailles was signed in 1945", None, "t").recalled);
    assert!(!judged("it's not Jupiter that is the largest planet", None, "j").recalled);
    assert!(!judged("is Jupiter the largest planet?", None, "j").recalled);
    assert!(judged("signed in nineteen nineteen, at Versailles", None, "t").recalled);
    // A year off by one is a near miss, not a recall; one from another war is neither.
    let asked = Some("When was the Treaty of Versailles signed?");
    let off_by_one = judged("1918", asked, "t");
    assert!(!off_by_one.recalled && off_by_one.near);
    let other_war = judged("1945", asked, "t");
    assert!(!other_war.recalled && !other_war.near);
}

#[test]
fn a_swapped_pairing_is_no_recall_a_compact_answer_is() {
    let point = "Sound is a longitudinal wave, while light is a transverse wave.";
    assert!(swapped(point, &clause_tokens("sound is a transverse wave, while light is a longitudinal wave")));
    assert!(!swapped(point, &clause_tokens("sound is longitudinal and light is transverse")));
    assert!(!swapped(point, &clause_tokens("longitudinal for sound, transverse for light")));
    // One clause crossed, and the other thing named at the head of another clause.
    let tendons = "Tendons attach muscle to bone, while ligaments connect bone to bone.";
    let crossed = "ligaments hold the muscles onto the bones and tendons hold the bones to each other";
    assert!(swapped(tendons, &clause_tokens(crossed)));
    let right = "tendons hold the muscles onto the bones and ligaments hold the bones to each other";
    assert!(!swapped(tendons, &clause_tokens(right)));
    let xylem = "Xylem carries water up from the roots, while phloem transports sugars around the plant.";
    assert!(swapped(
        xylem,
        &clause_tokens("phloem carries water up from the roots and xylem moves the sugars around")
    ));
    assert!(!swapped(
        xylem,
        &clause_tokens("xylem takes water up from the roots and phloem moves sugars about")
    ));
    // The words that pair can be common ones.
    let charges = "Like charges repel and unlike charges attract.";
    assert!(swapped(charges, &clause_tokens("like charges attract and unlike charges repel")));
    assert!(!swapped(charges, &clause_tokens("charges that are alike push apart, unlike ones attract")));
    let verbs = "\"Ser\" means \"to be\" and \"tener\" means \"to have\".";
    assert!(swapped(verbs, &clause_tokens("ser means to have and tener means to be")));
    // A name between commas names what comes before it: no second thing to swap with.
    let roads = "The Inca road network, the Qhapaq Ñan, stretched about 40,000 km and carried messages by relay runners called chasquis.";
    let said = "they built terraces, roads - incl the qhapaq nan, the like 40k km road thing where chasquis ran msgs in relays";
    assert!(!swapped(roads, &clause_tokens(said)));
    assert_eq!(names_in_apposition("Its capital, Cusco, lay high"), "Its capital  Cusco  lay high");
    assert_eq!(names_in_apposition("salt, sugar, flour"), "salt, sugar, flour");
    assert!(!swapped(verbs, &clause_tokens("ser is to be, tener is to have")));
    // A name in brackets is part of its clause.
    let focus = "The focus (hypocentre) is where an earthquake starts underground; the epicentre is the point on the surface directly above it.";
    assert!(swapped(
        focus,
        &clause_tokens(
            "the epicentre is where the earthquake starts underground, and the focus is the point on the surface above it"
        )
    ));
    assert!(!swapped(
        focus,
        &clause_tokens(
            "the focus is where it starts underground and the epicentre is the point on the surface above it"
        )
    ));
    // One clause joining both halves is an answer in few words, not a swap.
    let octavian = "Octavian took the title Augustus in 27 BC and became the first Roman emperor.";
    assert!(!swapped(octavian, &clause_tokens("Octavian became Augustus in 27 BC, the first emperor")));
    // A clause with a single word of its own pairs nothing.
    let soil = "Soil horizons are layers: topsoil (A) lies above subsoil (B), with weathered parent material (C) below.";
    assert!(!swapped(
        soil,
        &clause_tokens("A is the topsoil at the top, B is subsoil under it, C is the weathered parent rock")
    ));
    // "for" and "with" join no clause's words: each word glossed "for" its meaning pairs nothing.
    let tense = "Indonesian verbs do not change for tense; time is shown with words like \"sudah\" (already) and \"akan\" (will).";
    assert!(!swapped(
        tense,
        &clause_tokens(
            "they never change for past or future, you just throw in sudah for already done or akan for will"
        )
    ));
}

#[test]
fn a_thing_denied_by_name_is_no_recall_a_negated_verb_can_be() {
    let pituitary = "The pituitary gland is called the master gland because it controls many other glands.";
    let denied = judged_on(pituitary, "definitely not the pituitary, that one's tiny");
    assert!(denied.flags.denied && !denied.recalled, "{denied:?}");
    let ring = "Most active volcanoes lie along the Pacific Ring of Fire.";
    assert!(judged_on(ring, "not around the Ring of Fire, I think that's just earthquakes").flags.denied);
    let energy = "Energy cannot be created or destroyed, only transferred or transformed.";
    assert!(!judged_on(energy, "energy can't be made or destroyed, it just changes form").flags.denied);
    // Denied and then said is said.
    let nucleus = "The nucleus stores the cell's DNA.";
    assert!(!judged_on(nucleus, "not the ribosome, the nucleus stores the DNA").flags.denied);
}

#[test]
fn another_unit_in_the_points_place_is_a_wrong_number_the_same_unit_spelt_otherwise_is_not() {
    let plates = "Tectonic plates move a few centimetres per year.";
    let miles = judged_on(plates, "tectonic plates move a few miles per year");
    assert!(miles.flags.wrong_number && !miles.recalled, "{miles:?}");
    assert!(!judged_on(plates, "tectonic plates move a few cm per year").flags.wrong_number);
    let hour = "A lunar eclipse can last about an hour.";
    assert!(judged_on(hour, "a lunar eclipse can last about a minute").flags.wrong_number);
    let parsec = "One parsec is the distance at which the parallax angle is one arcsecond.";
    let degree = judged_on(parsec, "a parsec is the distance where the parallax angle is one degree");
    assert!(!degree.recalled && degree.near, "{degree:?}");
    assert!(judged_on(parsec, "the distance where the parallax angle is one arcsec").recalled);
    let boiling = "Water boils at 100 degrees Celsius at sea level.";
    assert!(judged_on(boiling, "at sea level water boils at 100 degrees").recalled, "plain degrees, warm");
}

#[test]
fn one_clause_with_another_points_own_words_and_none_of_this_ones_says_the_other() {
    with_wordnet();
    let git = [
        "\"git init\" creates a new empty repository in the current folder.",
        "\"git clone\" copies an existing remote repository to your machine.",
    ];
    let judged_git = |message: &str| judged_among(&git, Some("What does git clone do?"), message, 1);
    let init = judged_git("git clone creates a new empty repository in the current folder");
    assert!(init.flags.another_point && !init.recalled, "{init:?}");
    assert!(!judged_git("it copies an existing remote repository onto your machine").flags.another_point);
    assert!(!judged_git("init makes an empty one, and clone copies a remote repository").flags.another_point);
}

#[test]
fn a_way_run_backwards_is_the_opposite() {
    let ionic = "Ionic bonds form when electrons are transferred from a metal to a non-metal.";
    assert!(reverses(ionic, way("electrons go from the non-metal over to the metal").as_ref()));
    assert!(!reverses(
        ionic,
        way("the metal hands electrons over to the non-metal, from metal to non-metal").as_ref()
    ));
    assert!(!reverses(ionic, way("electrons are transferred between the atoms").as_ref()));
    let chloroplasts = "Chloroplasts turn light energy into chemical energy (photosynthesis).";
    let backwards = "The chloroplast turns chemical energy into light energy, by photosynthesis.";
    assert!(reverses(chloroplasts, way(backwards).as_ref()));
    assert!(!reverses(chloroplasts, way("they convert light energy into chemical energy").as_ref()));
    let judged = judged_on(chloroplasts, backwards);
    assert!(judged.flags.opposite && !judged.recalled, "{judged:?}");
    let blood = "The pulmonary artery carries blood from the heart to the lungs.";
    assert!(judged_on(blood, "it carries blood from the lungs into the heart").flags.opposite);
    assert!(!judged_on(blood, "it takes blood from the heart into the lungs").flags.opposite);
}

#[test]
fn an_antonym_in_a_words_place_is_the_opposite_a_paraphrase_with_the_points_own_word_is_not() {
    let salt = "Sodium chloride is soluble in water.";
    let insoluble = judged_on(salt, "sodium chloride is insoluble in water");
    assert!(insoluble.flags.opposite && !insoluble.recalled, "{insoluble:?}");
    assert!(!judged_on(salt, "sodium chloride is soluble in water").flags.opposite);
    let monopoly = "A monopoly is a market with a single seller.";
    assert!(judged_on(monopoly, "a market with multiple sellers").flags.opposite);
    // "quiet" stands for "soft"; "loud" is the point's own word, not an opposite in its place.
    let dynamics = "\"Forte\" means loud and \"piano\" means soft.";
    assert!(!judged_on(dynamics, "forte is loud and piano is quiet").flags.opposite);
    assert!(judged_on(dynamics, "forte means loud and piano means hard").flags.opposite);
    // Verbs, which WordNet's files of antonyms leave out.
    let spiva = "Most actively managed funds underperform their benchmark index over 15 years after fees.";
    let beat = judged_on(spiva, "most of them beat the index over 15 years");
    assert!(beat.flags.opposite && !beat.recalled, "{beat:?}");
    assert!(judged_on(spiva, "most active funds underperform the index over 15 years after fees").recalled);
    let histones = "Histone acetylation loosens chromatin and generally increases gene transcription.";
    assert!(judged_on(histones, "acetylation tightens the chromatin").flags.opposite);
    assert!(!judged_on(histones, "it loosens the chromatin so genes get transcribed more").flags.opposite);
}

#[test]
fn saying_plainly_what_the_point_denies_is_the_opposite_saying_it_denied_is_not() {
    let conservation = "In an isolated system, total momentum never changes.";
    let flipped = judged_on(conservation, "in an isolated system the total momentum always changes");
    assert!(flipped.flags.opposite && !flipped.recalled, "{flipped:?}");
    let kept = judged_on(conservation, "total momentum doesn't change when the system is isolated");
    assert!(!kept.flags.opposite, "{kept:?}");
    let false_friend = "\"Gift\" in German means poison, not a present.";
    assert!(judged_on(false_friend, "a present").flags.opposite);
    assert!(!judged_on(false_friend, "poison, not a present").flags.opposite);
    // Naming a thing the denial is of, not what it denies, affirms nothing.
    let antibiotics =
        "Antibiotics kill bacteria but have no effect on viruses, so they can't cure colds or flu.";
    let reason = "cos a cold's a virus and antibiotics only go after bacteria";
    assert!(!judged_on(antibiotics, reason).flags.opposite);
    assert!(judged_on(antibiotics, "antibiotics cure colds and flu").flags.opposite);
}

#[test]
fn another_points_word_as_its_lone_trace_can_be_a_sibling_said_with_that_point_it_cannot() {
    with_wordnet();
    let air = [
        "The ozone layer in the stratosphere absorbs most ultraviolet radiation.",
        "Weather happens in the troposphere, the lowest layer.",
    ];
    let judged_air = |message: &str| judged_among(&air, None, message, 0);
    assert!(judged_air("the ozone layer, which absorbs ultraviolet, is in the troposphere").flags.sibling);
    assert!(
        !judged_air("the ozone layer absorbs ultraviolet radiation, and weather happens in the troposphere")
            .flags
            .sibling
    );
}

#[test]
fn a_kind_of_a_common_thing_between_the_points_own_words_is_no_recall() {
    let tree = "Yggdrasil is the giant ash tree that connects the nine worlds.";
    let oak = judged_on(tree, "the giant oak tree that links the nine worlds");
    assert!(oak.flags.sibling && !oak.recalled, "{oak:?}");
    let said = judged_on(tree, "it's the giant ash tree linking the nine worlds");
    assert!(!said.flags.sibling, "{said:?}");
    // A name WordNet does not know, and another in its very place.
    let capital = "Tenochtitlan was built on an island in Lake Texcoco.";
    assert!(judged_on(capital, "it was built on an island in lake Titicaca").flags.sibling);
    assert!(!judged_on(capital, "on an island in lake texcoco").flags.sibling);
    assert!(!judged_on(capital, "it was built on an island in the lake").flags.sibling);
    // Elsewhere than in the word's place, a tree is a loose word, not a wrong one.
    assert!(!judged_on(tree, "an oak-like giant: the ash tree that connects the nine worlds").flags.sibling);
    // A name of two words, placed by the words on one side: a basking shark is a mackerel
    // shark, a whale shark a shark of its own.
    let fish = "The whale shark is the largest fish, growing to about 12 metres, and it eats plankton.";
    let shark = |said: &str| judged_among(&[fish], Some("What's the biggest fish in the sea?"), said, 0);
    let basking = shark("the basking shark, gets up to about 12 metres and just eats plankton");
    assert!(basking.flags.sibling && !basking.recalled, "{basking:?}");
    let whale = shark("the whale shark, gets up to about 12 metres and just eats plankton");
    assert!(!whale.flags.sibling && whale.recalled, "{whale:?}");
    let comets = "Most short-period comets come from the Kuiper Belt, beyond Neptune.";
    assert!(judged_on(comets, "the oort cloud, way out beyond neptune").flags.sibling);
    assert!(!judged_on(comets, "the kuiper belt, way out beyond neptune").flags.sibling);
    let dam = "The Three Gorges Dam on China's Yangtze River is the world's largest power station.";
    assert!(judged_on(dam, "three gorges in china, on the yellow river").flags.sibling);
    assert!(!judged_on(dam, "three gorges in china, on the yangtze river").flags.sibling);
}

#[test]
fn a_sibling_in_a_words_place_is_no_recall_a_kind_of_it_or_the_word_is() {
    let terror = "The Reign of Terror was led by Robespierre and the Committee of Public Safety.";
    let danton =
        judged_on(terror, "the Reign of Terror was led by Danton and the Committee of Public Safety");
    assert!(danton.flags.sibling && !danton.recalled, "{danton:?}");
    let circle = "The area of a circle is pi times the radius squared.";
    assert!(judged_on(circle, "the area of a circle is pi times the diameter squared").flags.sibling);
    for said in [
        "the area of a circle is pi times the radius squared",
        "the area is pi r squared, the radius times itself times pi",
    ] {
        assert!(!judged_on(circle, said).flags.sibling, "{said}");
    }
    // A kind of the missing word stands for it: enzymes are proteins.
    let golgi = "The Golgi apparatus modifies and packages proteins.";
    assert!(!judged_on(golgi, "the Golgi apparatus modifies and packages enzymes").flags.sibling);
    // A word of a name of two words is no noun of its own, nor is a preposition.
    let soap =
        "Soap is made by saponification: heating fats or oils with a strong alkali such as sodium hydroxide.";
    let soda = judged_on(soap, "you boil up fat or oil with caustic soda, pretty sure that's it");
    assert!(!soda.flags.sibling, "{soda:?}");
    let polaris = "In the Northern Hemisphere, the angle of Polaris above the horizon is approximately equal to the observer's latitude.";
    let star = judged_on(
        polaris,
        "the north star's height above the horizon in degrees is pretty much your latitude",
    );
    assert!(!star.flags.sibling, "{star:?}");
    let ear =
        "The Eustachian tube connects the middle ear to the back of the throat and equalises air pressure.";
    let behind =
        judged_on(ear, "a little tube from behind the eardrum down to ur throat, it evens out the pressure");
    assert!(!behind.flags.sibling, "{behind:?}");
}

#[test]
fn an_answer_that_breaks_off_is_part_of_a_point_a_pause_is_not() {
    assert!(trails_off("xylem takes water up from the roots, phloem... can't remember"));
    assert!(trails_off("sensorimotor, preoperational, concrete operational and... the last one's gone"));
    assert!(trails_off("aperture, shutter speed and... the third one's on the tip of my tongue"));
    assert!(trails_off("atomicity consistency isolation and um d d something i cant remember the last one"));
    assert!(trails_off("africa for sure but when um i want to say i dont actually remember the date"));
    assert!(trails_off("no idea, I always get the hemispheres mixed up"));
    assert!(!trails_off("the mitochondria... they make ATP through respiration"));
    assert!(!trails_off("the mitochondria make ATP... not sure"));
    // An ellipsis before a lower-case word is a pause: the whole of it asks.
    let asked = asked_sentences("they're where respiration happens... and they make glucose?");
    assert_eq!(asked.len(), 1);
    assert!(asked[0].1);
    let said_then_asked = asked_sentences("It's the mitochondria... Why do they have their own DNA?");
    assert_eq!(said_then_asked.iter().map(|(_, asks)| *asks).collect::<Vec<_>>(), vec![false, true]);
}

/// A message's clauses as words, as the judge reads them.
fn clause_tokens(message: &str) -> Vec<Vec<Token>> {
    clauses(message).iter().map(|c| role_tokens(c)).collect()
}

/// The verdict on one point, with no question and no other point.
fn judged_on(content: &str, message: &str) -> Verdict {
    judged_among(&[content], None, message, 0)
}

/// The verdict on the `which`th of `contents`, after `question` if any.
fn judged_among(contents: &[&str], question: Option<&str>, message: &str, which: usize) -> Verdict {
    with_wordnet();
    let brief = EvaluatorBrief {
        set_name: String::new(),
        review: vec![],
        guidelines: String::new(),
        unchecked: contents.iter().enumerate().map(|(i, c)| point(&format!("p{i}"), c)).collect(),
        learner_message: message.into(),
        mode: crate::llm::brief::EvalMode::Recall,
        recent: question.map(|q| vec![crate::llm::Message::assistant(q)]).unwrap_or_default(),
    };
    Context::new(&brief, None).judge(&brief.unchecked[which])
}

#[test]
fn a_message_that_trails_off_is_part_of_a_point_a_leading_dont_know_is_about_another() {
    assert!(trails_off("the left ventricle? not sure why though"));
    assert!(trails_off("fast, over a hundred a minute, but I don't remember the upper limit"));
    assert!(!trails_off("no idea, but the Hundred Years' War was England against France"));
    assert!(!trails_off("I don't know"));
    // A hedge on what was said is not a gap in it.
    assert!(!trails_off("um the mitochondria make ATP through respiration, I think, not sure tbh"));
    assert!(!trails_off("ribosomes translate mRNA into proteins but I don't know"));
    assert!(trails_off("hiragana's forty-six, I'm not sure about katakana"));
    // A gap in a word of the point the question gave is a gap all the same.
    let kana = "Hiragana and katakana each have 46 basic characters.";
    let asked = "How many basic characters do hiragana and katakana have?";
    let half = judged_among(&[kana], Some(asked), "hiragana has forty-six, I'm not sure about katakana", 0);
    assert!(half.flags.partial && !half.recalled, "{half:?}");
    let partial = judged("Venus, because its atmosphere is thick, but I forget why that matters", None, "v");
    assert!(!partial.recalled && partial.near, "{partial:?}");
    assert!(
        judged(
            "no idea about the others, but Venus: its thick carbon dioxide atmosphere traps heat",
            None,
            "v"
        )
        .recalled
    );
}

#[test]
fn a_short_answer_leaving_its_subject_to_the_question_is_about_the_questions_subject() {
    let legal = [
        "In criminal cases the prosecution must prove guilt beyond reasonable doubt.",
        "Civil cases are decided on the balance of probabilities.",
    ];
    let criminal = Some("What's the standard of proof in a criminal case?");
    let wrong = judged_among(&legal, criminal, "the balance of probabilities", 1);
    assert!(wrong.flags.another_point && !wrong.recalled, "{wrong:?}");
    let civil = Some("And what decides a civil case?");
    let right = judged_among(&legal, civil, "the balance of probabilities", 1);
    assert!(!right.flags.another_point && right.recalled, "{right:?}");
    // The question answered, then this point with its subject named.
    let both = "beyond reasonable doubt, and civil cases go on the balance of probabilities";
    assert!(judged_among(&legal, criminal, both, 1).recalled);

    let painters = [
        "Leonardo da Vinci painted the Mona Lisa and The Last Supper.",
        "Michelangelo painted the Sistine Chapel ceiling and sculpted the statue of David.",
    ];
    let he = "he painted the Mona Lisa and The Last Supper";
    let wrong = judged_among(&painters, Some("What is Michelangelo best known for painting?"), he, 0);
    assert!(wrong.flags.another_point && !wrong.recalled, "{wrong:?}");
    let right = judged_among(&painters, Some("What is Leonardo best known for painting?"), he, 0);
    assert!(!right.flags.another_point && right.recalled, "{right:?}");
}

#[test]
fn names_in_a_question_are_its_capitalised_words_past_each_sentences_first() {
    let words = |text: &str| proper_names(text).into_iter().map(|t| t.word).collect::<Vec<_>>();
    assert_eq!(words("Good. What is Michelangelo best known for?"), ["michelangelo"]);
    assert_eq!(words("What do GET and POST do? I think I know"), Vec::<String>::new());
}

#[test]
fn an_equation_in_symbols_says_the_quantities_the_point_spells_out() {
    let ohm =
        ["Ohm's law states that voltage equals current multiplied by resistance.", "Like charges repel."];
    let asked = Some("What does Ohm's law say?");
    assert!(judged_among(&ohm, asked, "V = IR", 0).recalled);
    assert!(
        !judged_among(&ohm, asked, "V and I and R", 0).recalled,
        "letters outside an equation name nothing"
    );
}

#[test]
fn another_operation_in_the_points_equation_is_a_wrong_number() {
    let rules = ["For independent events, P(A and B) = P(A) × P(B).", "Probabilities range from 0 to 1."];
    let asked = Some("What's the rule for two independent events both happening?");
    let added =
        judged_among(&rules, asked, "for independent events you add them: P(A and B) = P(A) + P(B)", 0);
    assert!(added.flags.wrong_number && !added.recalled, "{added:?}");
    let multiplied = judged_among(&rules, asked, "for independent events P(A and B) = P(A) * P(B)", 0);
    assert!(!multiplied.flags.wrong_number && multiplied.recalled, "{multiplied:?}");
}

#[test]
fn part_of_a_point_with_the_rest_named_as_forgotten_is_a_near_miss() {
    let gut = [
        "Most nutrient absorption happens in the small intestine, whose villi greatly increase its surface area.",
        "Bile from the liver emulsifies fats.",
    ];
    let asked = Some("Where are most nutrients absorbed, and what makes that organ so good at it?");
    let part = judged_among(&gut, asked, "small intestine. no idea why it's good at it tho", 0);
    assert!(part.flags.partial && part.near && !part.recalled, "{part:?}");
    let nothing = judged_among(&gut, asked, "no idea, sorry", 0);
    assert!(!nothing.near, "{nothing:?}");
    // A word in common with another point does not make it near.
    let colon = ["The large intestine absorbs water from what is left.", gut[0]];
    let other = judged_among(&colon, asked, "small intestine. no idea why it's good at it tho", 0);
    assert!(other.flags.partial && !other.near, "{other:?}");
}

#[test]
fn another_chamber_for_the_points_is_a_sibling_whatever_general_word_the_point_also_lacks() {
    let heart = [
        "The left ventricle has the thickest wall because it pumps blood to the whole body.",
        "Valves stop blood flowing backwards in the heart.",
    ];
    let asked = Some("Which chamber has the thickest wall, and why?");
    // "Whole", a word of the point the message lacks, is a noun too, and everything is a kind
    // of it; that does not make "atrium" another word for it.
    let atrium = judged_among(&heart, asked, "The right atrium, because it receives blood from the body.", 0);
    assert!(atrium.flags.sibling && !atrium.recalled, "{atrium:?}");
    let ventricle =
        judged_among(&heart, asked, "the left ventricle, since it pumps blood round the whole body", 0);
    assert!(!ventricle.flags.sibling, "{ventricle:?}");
}

#[test]
fn a_conversion_run_backwards_is_the_opposite_of_the_point() {
    let equation = "The overall equation of photosynthesis: carbon dioxide + water, using light energy, gives glucose + oxygen.";
    let backwards = judged_on(
        equation,
        "Oxygen and glucose combine to make carbon dioxide and water, which releases energy.",
    );
    assert!(backwards.flags.opposite && !backwards.recalled, "{backwards:?}");
    for forwards in [
        "carbon dioxide and water make glucose and oxygen, using light",
        "CO2 + water -> glucose + oxygen with light energy",
        "it makes glucose and oxygen from carbon dioxide and water",
    ] {
        assert!(!judged_on(equation, forwards).flags.opposite, "{forwards}");
    }
}

#[test]
fn the_doer_and_the_done_to_swapped_is_the_opposite_of_the_point() {
    let actium = "Octavian defeated Antony and Cleopatra at the Battle of Actium in 31 BC.";
    let swapped = judged_on(actium, "Antony beat Octavian and Cleopatra at the Battle of Actium in 31 BC.");
    assert!(swapped.flags.opposite && !swapped.recalled, "{swapped:?}");
    for right in [
        "Octavian beat Antony and Cleopatra at Actium in 31 BC",
        "Antony and Cleopatra were defeated by Octavian at Actium, 31 BC",
        "at Actium in 31 BC Octavian won against Antony and Cleopatra",
    ] {
        let judged = judged_on(actium, right);
        assert!(!judged.flags.opposite && judged.recalled, "{right}: {judged:?}");
    }
    let passive = judged_on(actium, "Octavian was defeated by Antony at Actium in 31 BC");
    assert!(passive.flags.opposite, "{passive:?}");
}

#[test]
fn the_least_said_as_the_most_is_the_opposite() {
    let saturn = "Saturn is the least dense planet; it would float in water.";
    let most = judged_on(saturn, "Saturn is the most dense planet, so it would sink in water.");
    assert!(most.flags.opposite && !most.recalled, "{most:?}");
    assert!(judged_on(saturn, "it would sink in water").flags.opposite);
    let said = judged_on(saturn, "the least dense of the planets, it would float");
    assert!(!said.flags.opposite, "{said:?}");
    assert!(!judged_on(saturn, "it wouldn't sink, it's the least dense").flags.opposite);
}

#[test]
fn a_figure_the_learner_had_to_supply_and_never_says_rules_out_a_recall() {
    let p_value = "A p-value below 0.05 is conventionally treated as statistically significant.";
    let asked = Some("So when do we usually call a result statistically significant?");
    let vague = judged_among(&[p_value], asked, "when the p value is below a small cut-off", 0);
    assert!(vague.flags.unsaid_number && !vague.recalled, "{vague:?}");
    let said = judged_among(&[p_value], asked, "when the p value is below 0.05", 0);
    assert!(!said.flags.unsaid_number && said.recalled, "{said:?}");
    // The same amount in other words, or a figure the question gave, is said.
    let cycle = "A full sleep cycle lasts about 90 minutes.";
    assert!(!judged_on(cycle, "a whole sleep cycle lasts about an hour and a half").flags.unsaid_number);
    let galaxy = "The Milky Way is a barred spiral galaxy about 100,000 light-years across.";
    assert!(!judged_on(galaxy, "a barred spiral about 100k light-years across").flags.unsaid_number);
    // A number word may be no amount at all ("Newton's first law", "to a colder one").
    let heat = "Heat flows spontaneously from a hotter object to a colder one.";
    assert!(!judged_on(heat, "heat goes from hot things to cold things by itself").flags.unsaid_number);
}

#[test]
fn another_figure_of_the_point_in_place_of_the_one_asked_for_is_no_recall() {
    let energy = "Protein provides 4 kilocalories per gram, the same as carbohydrate, while fat provides 9.";
    let asked = Some("How many calories per gram does protein provide?");
    let fats = judged_among(&[energy], asked, "proteins the same as fat isnt it so nine calories a gram", 0);
    assert!(fats.flags.unsaid_number && !fats.recalled, "{fats:?}");
    let right = judged_among(&[energy], asked, "protein gives four calories a gram, fat nine", 0);
    assert!(!right.flags.unsaid_number, "{right:?}");
    // Asked of the whole point, a figure of it said is enough to weigh.
    let whole = Some("What do protein and fat provide?");
    assert!(!judged_among(&[energy], whole, "fat gives nine calories a gram", 0).flags.unsaid_number);
}

#[test]
fn an_opposite_a_clause_of_the_point_says_itself_said_as_it_says_it_turns_nothing_round() {
    let strait = "Cook Strait separates the North Island from the South Island.";
    let said = "the mountains down the south island are the southern alps";
    assert!(!turned_in_a_clause(strait, &[tokens(said)], |_| true, |_| false));
    // Said beside other words, it does.
    let bacteria = "Resistant bacteria survive a course of antibiotics.";
    let turned = "the resistant bacteria die during the course";
    assert!(turned_in_a_clause(bacteria, &[tokens(turned)], |_| true, |_| false));
}

#[test]
fn an_amount_in_the_points_own_unit_is_read_closely() {
    let water = "A water molecule is bent, with an H–O–H angle of about 104.5 degrees, which makes it polar.";
    let asked = Some("What shape is a water molecule?");
    let wrong = judged_among(
        &[water],
        asked,
        "bent like a boomerang, angle's about 109.5 degrees, thats why its polar",
        0,
    );
    assert!(wrong.flags.wrong_number && !wrong.recalled, "{wrong:?}");
    let right =
        judged_among(&[water], asked, "bent, about 104.5 degrees between the bonds, so it's polar", 0);
    assert!(!right.flags.wrong_number && right.recalled, "{right:?}");
    // Across units the amounts are converted and rounded, and compared loosely.
    let sun = "The Sun is about 150 million kilometres from Earth.";
    assert!(!judged_on(sun, "about 93 million miles away").flags.wrong_number);
}

#[test]
fn a_comparison_turned_round_a_prefix_denied_or_a_process_reversed_is_no_recall() {
    let adh = "ADH makes the kidneys reabsorb more water, producing concentrated urine.";
    let less = judged_on(adh, "ADH makes the kidneys reabsorb less water, producing concentrated urine");
    assert!(less.flags.opposite && !less.recalled, "{less:?}");
    assert!(judged_on(adh, "it makes the kidneys reabsorb more water so the urine is concentrated").recalled);
    let auxiliaries =
        "Auxiliaries were non-citizen soldiers who were granted Roman citizenship after 25 years.";
    let citizens =
        judged_on(auxiliaries, "Auxiliaries were Roman citizens granted citizenship after 25 years.");
    assert!(citizens.flags.opposed && !citizens.recalled, "{citizens:?}");
    let right = judged_on(auxiliaries, "non-citizen soldiers who got Roman citizenship after 25 years");
    assert!(!right.flags.opposed && right.recalled, "{right:?}");
    let myopia = "In short-sightedness, or myopia, the image is focused in front of the retina.";
    let behind = judged_on(myopia, "in myopia the image gets focused behind the retina instead of on it");
    assert!(behind.flags.opposite && !behind.recalled, "{behind:?}");
    let hubble = "Hubble found that more distant galaxies are receding faster, so the universe is expanding.";
    let shrinking = judged_on(hubble, "distant galaxies are receding faster, so the universe is shrinking");
    assert!(shrinking.flags.opposite && !shrinking.recalled, "{shrinking:?}");
    let isomers = "Isomers have the same molecular formula but different arrangements of their atoms.";
    let turned = judged_on(isomers, "molecules with the same structure but a different molecular formula");
    assert!(turned.flags.opposite && !turned.recalled, "{turned:?}");
    let said = judged_on(isomers, "same molecular formula, different arrangement of the atoms");
    assert!(!said.flags.opposite && said.recalled, "{said:?}");
}

#[test]
fn a_change_or_a_phrasal_verb_turned_round_is_the_opposite() {
    let enzymes =
        "Enzymes are biological catalysts that speed up reactions by lowering the activation energy.";
    let more = judged_on(enzymes, "they speed up reactions by giving molecules more activation energy");
    assert!(more.flags.opposite && !more.recalled, "{more:?}");
    assert!(!judged_on(enzymes, "catalysts, they lower the activation energy of reactions").flags.opposite);
    // A comparison may be said from either side.
    let protons = "A sodium atom has more protons than a neon atom.";
    assert!(!judged_on(protons, "a neon atom has fewer protons than a sodium atom").flags.opposite);
    let tsunami = "As a tsunami reaches shallow water it slows down and its height grows.";
    let faster = judged_on(tsunami, "it speeds up as it hits the shallow water and its height grows");
    assert!(faster.flags.opposite && !faster.recalled, "{faster:?}");
    assert!(!judged_on(tsunami, "in shallow water it slows down and its height grows").flags.opposite);
    let lens = "A convex (converging) lens bends parallel light rays so they meet at a focal point.";
    let spread = judged_on(lens, "a convex lens bends parallel rays so they diverge from a focal point");
    assert!(spread.flags.opposite && !spread.recalled, "{spread:?}");
}

#[test]
fn an_opposite_counts_in_this_points_clauses_not_in_anothers() {
    let points = [
        "Electricity bills charge per kilowatt-hour used plus a fixed daily standing charge.",
        "A 2 kW kettle running for 30 minutes uses 1 kWh of energy.",
    ];
    let both = "you pay per kwh you use, plus the standing charge which is fixed every day. \
                and a 2kw kettle running for half an hour uses 1 kwh";
    let kettle = judged_among(&points, None, both, 1);
    assert!(!kettle.flags.opposite && kettle.recalled, "{kettle:?}");
    let circuits = [
        "Current is measured in amperes with an ammeter connected in series.",
        "In a parallel circuit the voltage across each branch is the same.",
    ];
    let parallel = judged_among(&circuits, None, "in amps, with an ammeter connected in parallel", 0);
    assert!(parallel.flags.opposite && !parallel.recalled, "{parallel:?}");
}

#[test]
fn a_conversion_run_backwards_is_read_by_the_words_of_each_end() {
    let liver = "The liver converts toxic ammonia into urea, which the kidneys then excrete.";
    let backwards = judged_on(
        liver,
        "The liver converts the urea into ammonia, which is less toxic, and the kidneys excrete it.",
    );
    assert!(backwards.flags.opposite && !backwards.recalled, "{backwards:?}");
    let right = judged_on(liver, "it turns the toxic ammonia into urea and then the kidneys get rid of it");
    assert!(!right.flags.opposite && right.recalled, "{right:?}");
}

#[test]
fn what_the_point_says_and_what_it_denies_turned_round_is_the_opposite() {
    let postal = "Under the postal rule, an acceptance sent by post takes effect when it is posted, not when received.";
    let round = judged_on(
        postal,
        "Under the postal rule it takes effect when the letter is received, not when it's posted.",
    );
    assert!(round.flags.opposite && !round.recalled, "{round:?}");
    let right =
        judged_on(postal, "an acceptance sent by post takes effect once it's posted, not when it's received");
    assert!(!right.flags.opposite && right.recalled, "{right:?}");
}

#[test]
fn another_kind_named_by_two_words_in_the_place_of_the_points_is_a_sibling() {
    with_wordnet();
    let star = "A red giant is a dying star that has swollen after using up the hydrogen in its core.";
    let dwarf = judged_on(
        star,
        "a white dwarf is a dying star that has swollen after using up the hydrogen in its core",
    );
    assert!(dwarf.flags.sibling && !dwarf.recalled, "{dwarf:?}");
    assert!(
        !judged_on(star, "a red giant is a dying star that swelled up once its core ran out of hydrogen")
            .flags
            .sibling
    );
}

#[test]
fn asked_two_things_a_short_answer_to_one_of_them_is_part_of_the_point() {
    let calvin = ["John Calvin led the Reformation in Geneva and taught predestination."];
    let two = Some("Who was the big reformer in Geneva, and what's he known for teaching?");
    let half = judged_among(&calvin, two, "calvin", 0);
    assert!(half.flags.partial && !half.recalled, "{half:?}");
    let whole = judged_among(&calvin, two, "calvin, he taught predestination", 0);
    assert!(!whole.flags.partial && whole.recalled, "{whole:?}");
    let one = judged_among(&calvin, Some("Who led the Reformation in Geneva?"), "calvin", 0);
    assert!(!one.flags.partial, "{one:?}");
    assert!(asks_two_things("Which organelle makes ATP, and how does it do it?"));
    assert!(!asks_two_things("What happens when the drops grow too heavy?"));
    assert!(!asks_two_things("Right, how so. Which bone is the longest?"));
}

#[test]
fn right_for_left_in_the_clause_asked_about_is_the_opposite() {
    let sides = ["Port is the left side of a boat when facing forward, and starboard is the right."];
    let asked = Some("Which side of the boat is port?");
    let wrong = judged_among(&sides, asked, "the right side when you're looking towards the front", 0);
    assert!(wrong.flags.opposite && !wrong.recalled, "{wrong:?}");
    let right = judged_among(&sides, asked, "the left side when you're looking towards the front", 0);
    assert!(!right.flags.opposite, "{right:?}");
    // "Right" as "correct" is no direction.
    assert!(!turns_direction("the left ventricle pumps blood", "the left ventricle, right?"));
    assert!(!turns_direction("the left ventricle pumps blood", "that's right, the ventricle"));
    assert!(turns_direction("the left ventricle pumps blood", "the right ventricle"));
    // A way from one side to the other names both; "leftwards" is a direction.
    let arabic = "Arabic is written from right to left.";
    assert!(!turns_direction(arabic, "u start on the right hand side and work leftwards"));
    assert!(turns_direction("Keep to the left side.", "you keep rightwards"));
}

#[test]
fn one_points_subject_said_with_anothers_words_is_neither_point() {
    let rivers = [
        "Attrition is when rocks carried by the river knock into each other and become smaller and rounder.",
        "Abrasion is when rocks carried by the river scrape against the bed and banks, wearing them away.",
    ];
    let asked = Some("What's the difference between attrition and abrasion?");
    let crossed = "abrasion is when the rocks bash into each other and get smaller and rounder, attrition is when they scrape along the bed and banks";
    for which in 0..2 {
        let v = judged_among(&rivers, asked, crossed, which);
        assert!(v.flags.swapped && !v.recalled, "{which}: {v:?}");
    }
    let right = "attrition is when the rocks knock into each other and get smaller and rounder, abrasion is when they scrape along the bed and banks";
    for which in 0..2 {
        let v = judged_among(&rivers, asked, right, which);
        assert!(!v.flags.swapped, "{which}: {v:?}");
    }
    // A point's subject's word as the object of another's clause is no subject.
    let beer = [
        "Malting germinates barley so that it develops enzymes that can later turn its starch into sugar.",
        "Mashing steeps crushed malt in hot water so enzymes turn its starches into fermentable sugars.",
    ];
    let mashing = judged_among(
        &beer,
        None,
        "you soak the crushed malt in hot water and the enzymes turn the starch into sugar",
        1,
    );
    assert!(!mashing.flags.swapped, "{mashing:?}");
}

#[test]
fn another_points_word_in_the_very_place_of_this_ones_is_a_wrong_detail() {
    let lobes = [
        "Broca's area, in the left frontal lobe, is involved in producing speech.",
        "The temporal lobe processes hearing and contains the hippocampus.",
    ];
    let asked = Some("What does Broca's area do, and where is it?");
    let wrong = judged_among(&lobes, asked, "it's for producing speech, it's in the left temporal lobe", 0);
    assert!(wrong.flags.sibling && !wrong.recalled, "{wrong:?}");
    let right = judged_among(&lobes, asked, "it's for producing speech, it's in the left frontal lobe", 0);
    assert!(!right.flags.sibling, "{right:?}");
}

#[test]
fn a_clause_turned_round_turns_the_point_round_though_another_clause_has_its_word() {
    let bacteria = [
        "Resistance spreads because resistant bacteria survive a course of antibiotics and pass on their genes.",
        "Antibiotics kill bacteria but have no effect on viruses.",
    ];
    let asked = Some("How does antibiotic resistance spread?");
    let turned = judged_among(
        &bacteria,
        asked,
        "The resistant bacteria die during the course, and the non-resistant ones survive and pass on their genes.",
        0,
    );
    assert!(turned.flags.opposite && !turned.recalled, "{turned:?}");
    let said =
        judged_among(&bacteria, asked, "the resistant ones survive the course and pass their genes on", 0);
    assert!(!said.flags.opposite, "{said:?}");
    // A clause about another point, with its own word, turns nothing round.
    let joins = [
        "An INNER JOIN returns only the rows that have matching values in both tables.",
        "A FULL OUTER JOIN keeps all rows from both tables, matching them up where possible.",
    ];
    let both = judged_among(
        &joins,
        None,
        "inner only keeps the rows that line up on both sides. full outer keeps everything from both tables",
        1,
    );
    assert!(!both.flags.opposite, "{both:?}");
}

#[test]
fn down_for_up_after_the_same_words_is_the_opposite() {
    let grid = "Transformers step the voltage up for transmission to cut the energy lost as heat.";
    let down =
        judged_on(grid, "transformers step the voltage down for transmission so less energy is lost as heat");
    assert!(down.flags.opposite && !down.recalled, "{down:?}");
    let up = judged_on(grid, "they step the voltage up for transmission so less energy is lost as heat");
    assert!(!up.flags.opposite && up.recalled, "{up:?}");
    assert!(!turns_up_or_down(grid, "heat lost adds up, so the voltage goes down the line"));
}

#[test]
fn a_name_the_question_gives_by_one_word_is_given_whole() {
    let bach = [
        "Johann Sebastian Bach wrote the six Brandenburg Concertos.",
        "Antonio Vivaldi composed The Four Seasons.",
    ];
    let asked = "Bach sent a set of six concertos to a margrave in 1721. What do we call them?";
    let v = judged_among(&bach, Some(asked), "the brandenburg ones", 0);
    assert!(v.recalled, "{v:?}");
    let given = named_in_full(&bach, asked);
    let words: Vec<&str> = given.iter().map(|t| t.word.as_str()).collect();
    assert!(words.contains(&"johann") && words.contains(&"sebastian"), "{words:?}");
    assert!(!words.contains(&"brandenburg") && !words.contains(&"vivaldi"), "{words:?}");
}

#[test]
fn a_comparison_of_the_points_two_things_the_other_way_round_is_swapped() {
    let rex = "Tyrannosaurus rex lived closer in time to humans than to Stegosaurus.";
    let turned = judged_on(rex, "Because Stegosaurus lived closer in time to humans than to T. rex.");
    assert!(turned.flags.swapped && !turned.recalled, "{turned:?}");
    assert!(!compared_the_other_way(rex, "T. rex lived closer to us in time than to Stegosaurus"));
    let monsoon = "The monsoon is driven by land heating faster than the ocean, creating low pressure that draws in moist sea air.";
    assert!(compared_the_other_way(
        monsoon,
        "the ocean heats up faster than the land so the air rises over the sea and pulls the wind off the land"
    ));
    assert!(!compared_the_other_way(
        monsoon,
        "the land heats up faster than the sea, so air rises over the land"
    ));
    let waves = "P-waves travel faster than S-waves, so they arrive first.";
    assert!(!compared_the_other_way(waves, "the S-waves are slower than the P-waves"));
}

#[test]
fn what_the_point_denies_is_agreed_with_by_its_opposite_or_its_denial() {
    let offside = "A player cannot be offside in their own half.";
    assert!(
        !judged_on(offside, "no, if ur still on ur side of the halfway line ur automatically onside")
            .flags
            .opposite
    );
    assert!(
        judged_on(
            "A player is offside when nearer the goal line than the ball.",
            "a player is onside when nearer the goal line than the ball"
        )
        .flags
        .opposite
    );
    let nsaid = "Ibuprofen is a non-steroidal anti-inflammatory drug (NSAID).";
    let said = judged_on(nsaid, "ibuprofen's the anti inflammatory one thats not a steroid, an nsaid");
    assert!(!said.flags.denied && said.recalled, "{said:?}");
}

#[test]
fn ordinals_are_no_opposites_an_order_of_growth_in_words_says_its_figure() {
    let urban = "Pope Urban II called the First Crusade at the Council of Clermont in 1095.";
    let said =
        judged_on(urban, "the pope, urban the second, gave a speech at clermont in 1095 that kicked it off");
    assert!(!said.flags.opposite, "{said:?}");
    let hash = "A hash table gives average O(1) lookups by using a hash function to map keys to array slots.";
    let said = judged_on(
        hash,
        "the key goes through a hash function that picks the slot in the array, so on average its constant time",
    );
    assert!(!said.flags.unsaid_number && said.recalled, "{said:?}");
    let linear = judged_on(
        hash,
        "the key goes through a hash function that picks the slot in the array, so its linear time",
    );
    assert!(!linear.recalled, "{linear:?}");
}

#[test]
fn a_word_for_the_same_thing_is_no_sibling_nor_is_a_filler() {
    let smooth = "Smooth muscle in the walls of organs such as the gut contracts involuntarily.";
    let said = judged_on(
        smooth,
        "the ones lining your stomach and intestines and stuff, smooth muscle, they squeeze away by themselves",
    );
    assert!(!said.flags.sibling, "{said:?}");
}

#[test]
fn one_of_a_pair_the_learner_had_to_name_is_half_the_point_an_example_left_out_is_not() {
    let opioids = "Opioids such as codeine and morphine can cause constipation and dependence.";
    let asked = Some("What are the main side effects of opioids like codeine?");
    let one = judged_among(&[opioids], asked, "they bung you right up, constipation", 0);
    assert!(one.flags.partial && !one.recalled && one.near, "{one:?}");
    let both = judged_among(&[opioids], asked, "constipation, and you can get dependent on them", 0);
    assert!(!both.flags.partial, "{both:?}");
    // "morphine" is an example, not half of what was asked.
    let asked = Some("What can opioids cause?");
    assert!(!judged_among(&[opioids], asked, "constipation and dependence", 0).flags.partial);
}

#[test]
fn another_named_person_in_the_very_place_of_the_points_is_a_sibling_the_same_one_is_not() {
    let lenin = "Lenin led the Bolsheviks in seizing power in the October Revolution of 1917.";
    let asked = Some("Who led the October Revolution?");
    let other =
        judged_among(&[lenin], asked, "kerensky led the bolsheviks when they took over in october 1917", 0);
    assert!(other.flags.sibling && !other.recalled, "{other:?}");
    let right =
        judged_among(&[lenin], asked, "lenin led the bolsheviks when they took over in october 1917", 0);
    assert!(!right.flags.sibling && right.recalled, "{right:?}");
}

#[test]
fn the_same_for_more_and_a_copy_made_backwards_are_opposites() {
    let progressive =
        "A progressive tax takes a larger percentage of income from people with higher incomes.";
    let same = "everyone pays the same percentage so the rich end up paying more in total, thats the progressive bit";
    assert!(judged_on(progressive, same).flags.opposite);
    assert!(!judged_on(progressive, "the more you earn the bigger the percentage they take").flags.opposite);
    let hiv =
        "Retroviruses such as HIV use the enzyme reverse transcriptase to copy their RNA genome into DNA.";
    let backwards = "its a retrovirus so it has reverse transcriptase, which turns its DNA into RNA so the cell can use it";
    assert!(judged_on(hiv, backwards).flags.opposite);
    assert!(!judged_on(hiv, "reverse transcriptase turns the virus's RNA into DNA").flags.opposite);
}

#[test]
fn a_point_said_both_ways_round_is_not_said_by_one_way_twice() {
    let reef = "A reef knot is tied right over left, then left over right.";
    assert!(one_way_of_two(reef, "right over left, and then right over left again"));
    assert!(!one_way_of_two(reef, "right over left then left over right"));
    assert!(!one_way_of_two(reef, "right over left, then the other way"));
    let judged = judged_on(reef, "right over left, and then right over left again");
    assert!(judged.flags.swapped && !judged.recalled, "{judged:?}");
}

#[test]
fn a_superlative_given_to_another_of_the_points_things_is_swapped() {
    let islands =
        "Japan's four main islands are Honshu, Hokkaido, Kyushu and Shikoku, and Honshu is the largest.";
    let wrong = "honshu hokkaido kyushu and uh shikoku. hokkaido's the biggest one right, the one up north";
    assert!(crowns_another(islands, wrong));
    assert!(!crowns_another(islands, "honshu hokkaido kyushu and shikoku, honshu's the biggest"));
    assert!(!crowns_another(islands, "honshu hokkaido kyushu shikoku. tokyo is the biggest city"));
    let judged = judged_on(islands, wrong);
    assert!(judged.flags.swapped && !judged.recalled, "{judged:?}");
    assert!(judged_on(islands, "honshu hokkaido kyushu and shikoku, honshu's the biggest").recalled);
}

#[test]
fn a_way_run_from_the_other_end_is_turned() {
    let hindi = "Hindi is written in the Devanagari script, from left to right.";
    assert!(runs_from_the_other_end(hindi, "devanagari, and its right to left same as urdu"));
    assert!(!runs_from_the_other_end(hindi, "devanagari, left to right"));
    assert!(!runs_from_the_other_end(hindi, "devanagari, left-to-right, not right to left like urdu"));
    let asked = Some("Which script is Hindi written in, and which direction does it run?");
    let judged = judged_among(&[hindi], asked, "devanagari, and its right to left same as urdu", 0);
    assert!(judged.flags.opposite && !judged.recalled, "{judged:?}");
}

#[test]
fn a_guess_the_learner_stands_by_asks_nothing() {
    let standing =
        asked_sentences("ethiopia and... liberia? yeah pretty sure those 2, everywhere else got carved up");
    assert!(standing.iter().all(|(_, asks)| !asks), "{standing:?}");
    let asking = asked_sentences("ethiopia and... liberia? not sure about the rest");
    assert!(asking.iter().any(|(_, asks)| *asks), "{asking:?}");
    // A doubt about the detail after the comma alone says the rest.
    let detail = asked_sentences("run dmc doing walk this way w aerosmith, 86?");
    assert!(detail.iter().all(|(_, asks)| !asks), "{detail:?}");
    let asking = asked_sentences("was it run dmc with aerosmith, 86?");
    assert!(asking.iter().any(|(_, asks)| *asks), "{asking:?}");
}

#[test]
fn halves_swapped_by_their_letters_symbols_or_numbers_are_no_recall() {
    let regex = "In regex, * matches zero or more of the preceding item, while + matches one or more.";
    assert!(swapped_marks(
        regex,
        "* matches one or more of the item before it, while + matches zero or more"
    ));
    assert!(!swapped_marks(regex, "* is zero or more of the thing before, + is one or more"));
    let vitamins =
        "Vitamins A, D, E and K are fat-soluble and can be stored in the body; B and C are water-soluble.";
    assert!(swapped_marks(
        vitamins,
        "B and C are fat-soluble so the body can store them, and A, D, E and K are water-soluble."
    ));
    assert!(!swapped_marks(
        vitamins,
        "a d e and k are fat soluble so they get stored, but b and c are water soluble"
    ));
    // Sounds between slashes, and halves joined by a bare "and".
    let voicing = "A sound is voiced when the vocal folds vibrate during it, as in /z/, and voiceless when they \
                   do not, as in /s/.";
    assert!(swapped_marks(voicing, "/z/ is the voiceless one and /s/ is voiced"));
    assert!(!swapped_marks(voicing, "/z/ is the voiced one and /s/ is voiceless"));
}

#[test]
fn a_message_that_opens_on_its_own_points_name_answers_for_no_other() {
    let thinkers = [
        "John Locke argued that people have natural rights to life, liberty and property.",
        "Kant summed up the Enlightenment with the motto 'dare to know', urging people to think for themselves.",
    ];
    let kant = Some("What motto did Kant use for the Enlightenment?");
    let locke = judged_among(
        &thinkers,
        kant,
        "locke! it just came back to me, natural rights, life liberty and property",
        0,
    );
    assert!(!locke.flags.another_point, "{locke:?}");
    // Its subject left to the question, the same things are said of the one asked about.
    let painters = [
        "Leonardo da Vinci painted the Mona Lisa and The Last Supper.",
        "Michelangelo painted the Sistine Chapel ceiling and sculpted the statue of David.",
    ];
    let asked = Some("What is Michelangelo best known for painting?");
    let he = judged_among(&painters, asked, "he painted the Mona Lisa and The Last Supper", 0);
    assert!(he.flags.another_point, "{he:?}");
}

#[test]
fn kin_are_nouns_and_words_used_as_verbs_are_no_sibling_terms() {
    let power = "Statistical power is the probability that a test correctly rejects a false null hypothesis.";
    let said = judged_among(
        &[power],
        Some("What is statistical power?"),
        "the chance you actually pick up a real effect when there genuinely is one",
        0,
    );
    assert!(!said.flags.sibling, "{said:?}");
    assert_eq!(
        super::wording::verbs("you pick up the effect, and it correctly rejects one"),
        ["pick", "rejects"]
    );
}

#[test]
fn a_point_that_says_how_is_half_said_without_the_how() {
    let kepler = "NASA's Kepler space telescope found thousands of exoplanets using the transit method.";
    let asked = Some("What did the Kepler telescope do?");
    let half =
        judged_among(&[kepler], asked, "kepler found loads and loads of planets, thousands i think", 0);
    assert!(half.flags.partial && !half.recalled, "{half:?}");
    let whole = judged_among(
        &[kepler],
        asked,
        "kepler found thousands of planets with the transit method, watching stars dim",
        0,
    );
    assert!(!whole.flags.partial, "{whole:?}");
    // A list of means is said by any of it.
    let maya = "The Maya developed a full writing system using logograms and syllabic glyphs.";
    let glyphs = judged_on(maya, "the maya had a full writing system, glyphs for words and for sounds");
    assert!(!glyphs.flags.partial, "{glyphs:?}");
    let half = judged_on(maya, "the maya developed a full writing system");
    assert!(half.flags.partial && !half.recalled, "{half:?}");
}

#[test]
fn making_what_the_point_makes_things_from_is_the_point_turned_round() {
    let parser = "The parser builds a syntax tree from the tokens according to the language's grammar.";
    let lexer = judged_on(parser, "the parser makes a list of tokens out of the raw source text");
    assert!(lexer.flags.opposite && !lexer.recalled, "{lexer:?}");
    let right = judged_on(parser, "it makes a syntax tree out of the tokens, following the grammar");
    assert!(!right.flags.opposite, "{right:?}");
    // A deal is half said without what was given for it.
    let deal = "Khrushchev agreed to remove the missiles in exchange for a US pledge not to invade Cuba.";
    let half = judged_on(deal, "khrushchev agreed to take the missiles back home");
    assert!(half.flags.partial && !half.recalled, "{half:?}");
}

#[test]
fn a_point_with_a_but_is_half_said_without_what_comes_after_it() {
    let monarchy = "In a constitutional monarchy, the monarch is head of state but political power rests with an elected parliament and government.";
    let asked = Some("In a constitutional monarchy, who holds which role?");
    let half = judged_among(&[monarchy], asked, "the king or queen is the head of state", 0);
    assert!(half.flags.partial && !half.recalled, "{half:?}");
    // A denial after "but" said in other words.
    let zone = "Vygotsky's zone of proximal development is what a child can do with help but not yet alone.";
    let said =
        judged_on(zone, "the stuff a kid can't quite do by themselves yet but can do if someone helps them");
    assert!(!said.flags.partial, "{said:?}");
}

#[test]
fn the_points_other_word_said_for_itself_is_no_opposite_unless_what_the_opposite_goes_with_is_said() {
    let bonds = "When interest rates rise, the prices of existing bonds fall.";
    let asked = Some("What happens to the price of bonds you already hold when interest rates go up?");
    let drop = judged_among(&[bonds], asked, "they drop, cos ur old bond pays less than the new ones", 0);
    assert!(!drop.flags.opposite, "{drop:?}");
    assert!(judged_on(bonds, "when interest rates drop, bond prices fall").flags.opposite);
    let demand = "When price rises, quantity demanded falls.";
    assert!(judged_on(demand, "quantity demanded rises too").flags.opposite);
}

#[test]
fn rising_for_sinking_across_for_along_and_rigid_for_flexible_are_opposites() {
    let deserts =
        "Most hot deserts lie around 30 degrees north and south of the equator, where dry air sinks.";
    assert!(
        judged_on(deserts, "around 30 degrees either side of the equator where the air rises").flags.opposite
    );
    assert!(!judged_on(deserts, "30 degrees north and south, where dry air comes down").flags.opposite);
    let grain = "Paper should be folded parallel to its grain so the pages turn easily and lie flat.";
    assert!(judged_on(grain, "across the grain so the pages lie flat").flags.opposite);
    assert!(!judged_on(grain, "along the grain, so they turn easily and lie flat").flags.opposite);
    let glue = "PVA glue stays flexible when dry, which is why it is used on book spines.";
    assert!(judged_on(glue, "PVA dries rigid so the spine keeps its shape").flags.opposite);
    assert!(!judged_on(glue, "its hard to beat, PVA stays bendy once dry").flags.opposite);
}

#[test]
fn a_denial_moved_to_the_other_thing_is_the_opposite_the_same_without_denial_is_not() {
    let js = "Variables declared with const cannot be reassigned, while let allows reassignment.";
    let moved = judged_on(js, "let can't be reassigned but const can");
    assert!(moved.flags.opposite && !moved.recalled, "{moved:?}");
    assert!(!judged_on(js, "const can't be reassigned but let can").flags.opposite);
    assert!(!judged_on(js, "const is fixed for good, let can change").flags.opposite);
    let b12 = "Pernicious anaemia is an autoimmune condition causing a lack of intrinsic factor, so vitamin B12 cannot be absorbed in the terminal ileum.";
    assert!(
        !judged_on(b12, "autoimmune, no intrinsic factor so B12 cant get absorbed at the end of the small intestine, the ileum")
            .flags
            .opposite
    );
    assert!(
        !judged_on(
            b12,
            "it attacks the intrinsic factor so theres none and B12 cant get soaked up, the ileum"
        )
        .flags
        .opposite
    );
    let division = "Mitosis makes two identical cells, while meiosis makes four that are not identical.";
    assert!(
        !judged_on(division, "mitosis doesn't shuffle genes, meiosis makes four different ones")
            .flags
            .opposite
    );
    assert!(
        judged_on(division, "mitosis cells aren't identical, meiosis makes four identical ones")
            .flags
            .opposite
    );
}

#[test]
fn another_code_in_place_of_the_points_is_a_wrong_detail() {
    let junk =
        "Bonds rated below BBB- are called junk or high-yield bonds because of their higher default risk.";
    let aaa = judged_on(junk, "bonds rated below AAA, theyre riskier of defaulting so they pay more");
    assert!(aaa.flags.wrong_number && !aaa.recalled, "{aaa:?}");
    assert!(
        !judged_on(junk, "anything rated under BBB-, they pay more cos they might default")
            .flags
            .wrong_number
    );
    assert!(!judged_on(junk, "BONDS BELOW INVESTMENT GRADE THAT MIGHT DEFAULT").flags.wrong_number);
    // A capital with figures, or one alone inside a sentence, is a code too.
    let copied = "DNA is copied during the S phase of interphase, before division begins.";
    let g2 = judged_on(copied, "in the G2 phase of interphase, before it divides");
    assert!(g2.flags.wrong_number && !g2.recalled, "{g2:?}");
    assert!(!judged_on(copied, "in the s phase of interphase, before it divides").flags.wrong_number);
    let donors = "People with type O negative blood are universal donors of red cells.";
    let ab = judged_on(donors, "AB negative, they're the universal donors");
    assert!(ab.flags.wrong_number && !ab.recalled, "{ab:?}");
    // A capital that opens a sentence, and "I", are words.
    let said = judged_on(donors, "O negative, I think. They're universal donors of red cells");
    assert!(!said.flags.wrong_number && said.recalled, "{said:?}");
    assert!(
        !judged_on(copied, "during interphase. A cell copies its DNA before it divides").flags.wrong_number
    );
}

#[test]
fn the_points_quoted_word_alone_is_its_answer_unless_the_question_gave_it() {
    let take = "Climbers shout \"take\" to ask the belayer to pull the rope tight so they can rest.";
    let asked = Some("What do you shout when you want the belayer to hold you so you can have a rest?");
    let said = judged_among(&[take], asked, "TAKE!", 0);
    assert!(said.recalled && said.says_the_quoted, "{said:?}");
    let given = judged_among(&[take], Some("What does shouting \"take\" ask of the belayer?"), "take", 0);
    assert!(!given.says_the_quoted, "{given:?}");
    assert!(!judged_among(&[take], asked, "take, then lower", 0).says_the_quoted);
}

#[test]
fn denying_what_the_point_also_denies_agrees_with_it() {
    let copyright = "Copyright protects the expression of an idea, not the idea itself.";
    let agreed = judged_on(copyright, "not the idea, just the way you express it");
    assert!(!agreed.flags.opposed && !agreed.flags.denied, "{agreed:?}");
    let denied =
        judged_on("The mitochondria make most of the cell's ATP.", "not the mitochondria, the nucleus");
    assert!(denied.flags.denied || denied.flags.opposed, "{denied:?}");
}

#[test]
fn above_for_below_and_after_for_before_the_same_thing_are_opposites() {
    let solvent = "The solvent level must start below the start line, otherwise the spots would dissolve.";
    let above = judged_on(solvent, "The solvent has to be above the start line so it can soak the spots.");
    assert!(above.flags.opposite && !above.recalled, "{above:?}");
    assert!(
        !judged_on(solvent, "keep the solvent below the pencil line or the spots wash off").flags.opposite
    );
    assert!(!judged_on(solvent, "under the start line, above it the spots dissolve away").flags.opposite);
    let pruning = "Prune roses in late winter, before the buds break.";
    assert!(judged_on(pruning, "late winter, after the buds break").flags.opposite);
    assert!(!judged_on(pruning, "late winter before buds break, after the frosts").flags.opposite);
}

#[test]
fn a_reason_of_the_learners_own_in_place_of_the_points_is_no_recall() {
    let order = "Watercolour is usually painted from light to dark, because the white of the paper serves as \
                 the lightest tone and you can't easily paint light over dark.";
    let own =
        judged_on(order, "light to dark because the dark pigments are the expensive ones so you save them");
    assert!(own.flags.partial && !own.recalled, "{own:?}");
    assert!(
        !judged_on(order, "light to dark, because the paper is your white and light won't cover dark")
            .flags
            .partial
    );
    assert!(!judged_on(order, "from light to dark, you can't paint light on top of dark").flags.partial);
}

#[test]
fn a_list_said_in_another_order_where_order_matters_is_no_recall() {
    let strokes = "The four strokes are intake, compression, power and exhaust, in that order.";
    let q = Some("What are the four strokes, in order?");
    let wrong = judged_among(&[strokes], q, "Intake, power, compression, exhaust.", 0);
    assert!(wrong.flags.swapped && !wrong.recalled, "{wrong:?}");
    let right = judged_among(&[strokes], q, "suck, squeeze, bang, blow: intake compression power exhaust", 0);
    assert!(!right.flags.swapped, "{right:?}");
    let unordered = "The three primary colours of light are red, green and blue.";
    assert!(!judged_on(unordered, "blue, red and green").flags.swapped);
    let rate = "The order of a reaction is the sum of the exponents in its rate law.";
    let q = Some("What is the order of a reaction?");
    assert!(
        !judged_among(&[rate], q, "add up the powers in the rate law, that gives the order", 0).flags.swapped
    );
    let planets = "The inner planets, from the Sun out, are Mercury, Venus, Earth and Mars.";
    let q = Some("Name the inner planets in order from the Sun.");
    assert!(judged_among(&[planets], q, "venus, mercury, earth, mars", 0).flags.swapped);
}

#[test]
fn one_things_number_given_to_another_is_a_swap() {
    let rugby =
        "A conversion after a try is worth two points, while a penalty kick or a drop goal is worth three.";
    let crossed = judged_on(rugby, "A conversion is worth three points and a penalty is worth two.");
    assert!(crossed.flags.swapped && !crossed.recalled, "{crossed:?}");
    assert!(!judged_on(rugby, "conversion two, penalty or drop goal three").flags.swapped);
    assert!(!judged_on(rugby, "2 for a conversion, 3 for a drop goal").flags.swapped);
    // A half that first lists both numbers owns neither.
    let bands = "Wi-Fi mainly uses the 2.4 GHz and 5 GHz bands; 2.4 GHz reaches further through walls, while \
                 5 GHz is faster over short range.";
    let crossed = judged_on(bands, "5 gets thru walls better n goes further, 2.4 is the faster one");
    assert!(crossed.flags.swapped && !crossed.recalled, "{crossed:?}");
    assert!(
        !judged_on(bands, "2.4 gets thru walls better n goes further, 5 is the faster one").flags.swapped
    );
    let teeth = "Adults have 32 permanent teeth, including four wisdom teeth.";
    let own_number = "thirty two if all ur wisdom teeth came through, theres four of those";
    assert!(!judged_on(teeth, own_number).flags.swapped);
    let peal = "A peal is at least 5,000 changes on eight or more bells, or the full extent of 5,040 changes on \
                seven bells.";
    let crossed = judged_on(peal, "5040, which is the full extent on eight bells");
    assert!(crossed.flags.swapped && !crossed.recalled, "{crossed:?}");
    let right = judged_on(peal, "5040, which is the full extent on seven bells");
    assert!(!right.flags.swapped, "{right:?}");
    assert!(!judged_on(peal, "5000 changes on eight bells, or the full 5040 on seven").flags.swapped);
}

#[test]
fn a_long_statement_said_with_a_rising_tone_says_and_a_question_asks() {
    let doping = "Doping silicon with phosphorus adds free electrons, making n-type material, while doping with \
                  boron creates holes, making p-type material.";
    let q = Some("What does doping with phosphorus do, compared with boron?");
    let rising = "hmm not 100% but phosphorus has one more outer electron than silicon so it donates spare \
                  electrons = n-type, and boron has one fewer so you get holes = p-type?";
    assert!(!judged_among(&[doping], q, rising, 0).flags.asks);
    let asking = "does phosphorus give spare electrons for n-type and boron holes for p-type?";
    assert!(judged_among(&[doping], q, asking, 0).flags.asks);
    assert!(judged_among(&[doping], q, "phosphorus n-type, boron p-type, right?", 0).flags.asks);
}

#[test]
fn another_name_under_the_points_title_is_no_recall() {
    let grounds = "The three classic grounds are illegality, irrationality and procedural impropriety, set out \
                   by Lord Diplock in the GCHQ case.";
    let denning = judged_on(
        grounds,
        "lord denning set them out in the GCHQ case: illegality, irrationality and procedural impropriety",
    );
    assert!(denning.flags.sibling && !denning.recalled, "{denning:?}");
    let diplock = judged_on(
        grounds,
        "lord diplock set them out in the GCHQ case: illegality, irrationality and procedural impropriety",
    );
    assert!(!diplock.flags.sibling && diplock.recalled, "{diplock:?}");
    // Without the title there is no name in its place.
    assert!(
        !judged_on(grounds, "illegality, irrationality and procedural impropriety, from GCHQ").flags.sibling
    );
}

#[test]
fn a_hedge_where_the_detail_should_be_is_part_of_the_point() {
    let treated =
        "Hypothyroidism is treated with daily levothyroxine tablets, a synthetic form of the hormone T4.";
    let asked = Some("How is hypothyroidism treated?");
    let hedged = judged_among(&[treated], asked, "daily tablets, some kind of synthetic hormone", 0);
    assert!(hedged.flags.partial && !hedged.recalled, "{hedged:?}");
    let named = judged_among(&[treated], asked, "daily levothyroxine tablets, a synthetic T4 hormone", 0);
    assert!(!named.flags.partial, "{named:?}");
}

#[test]
fn another_named_figure_in_place_of_the_points_is_a_wrong_detail() {
    let made = "Carbon-14 forms in the upper atmosphere when neutrons produced by cosmic rays strike nitrogen-14 atoms.";
    let asked = Some("How is carbon-14 produced in the first place?");
    let wrong = judged_among(&[made], asked, "cosmic ray neutrons hit carbon-12 in the upper atmosphere", 0);
    assert!(wrong.flags.wrong_number && !wrong.recalled, "{wrong:?}");
    let right =
        judged_among(&[made], asked, "cosmic ray neutrons hit nitrogen-14 in the upper atmosphere", 0);
    assert!(!right.flags.wrong_number, "{right:?}");
}

#[test]
fn asked_of_another_points_thing_this_points_words_are_given_to_it() {
    let tour = [
        "The green jersey goes to the leader of the points classification, usually a sprinter who places \
         highly at stage finishes.",
        "The polka-dot jersey, white with red dots, is awarded to the best climber in the King of the Mountains \
         competition.",
    ];
    let asked = Some("What does the green jersey mean?");
    let crossed = judged_among(
        &tour,
        asked,
        "green goes to the best climber, whoever wins the king of the mountains",
        1,
    );
    assert!(crossed.flags.another_point && !crossed.recalled, "{crossed:?}");
    let right =
        judged_among(&tour, asked, "the polka dot one goes to the best climber, king of the mountains", 1);
    assert!(!right.flags.another_point, "{right:?}");
}

#[test]
fn one_of_two_opposites_said_in_place_of_the_other_turns_the_point_round() {
    let stroke = "A stroke in the left hemisphere usually causes weakness on the right side of the body and \
                  often language problems (aphasia).";
    let turned = judged_on(stroke, "A left-hemisphere stroke causes weakness on the left side of the body.");
    assert!(turned.flags.opposite && !turned.recalled, "{turned:?}");
    let right = "A left-hemisphere stroke causes weakness on the right side of the body, with aphasia.";
    assert!(!judged_on(stroke, right).flags.opposite);
    // A pole the point denies leaves the other said as often as the message likes.
    let muscles = "Muscles can only pull, not push, so they work in antagonistic pairs.";
    let pulled = "they can only pull, they cant push, so another one pulls the bone back the other way";
    assert!(!judged_on(muscles, pulled).flags.opposite);
}

#[test]
fn a_hedged_answer_with_a_rising_tone_offers_it_and_slower_for_faster_is_the_opposite() {
    let half_life =
        "Carbon-14 has a half-life of about 5,730 years, decaying back to nitrogen-14 by beta decay.";
    let asked = Some("What's the half-life of carbon-14?");
    let hedged = judged_among(&[half_life], asked, "pretty sure it's roughly 5730 yrs?", 0);
    assert!(!hedged.flags.asks, "{hedged:?}");
    assert!(judged_among(&[half_life], asked, "is it 5730 years?", 0).flags.asks);
    let trailing = judged_among(&[half_life], asked, "5730 i think?", 0);
    assert!(!trailing.flags.asks, "the hedge after the answer offers it too: {trailing:?}");
    // A guess offered after saying so is offered; a don't-know that only describes still asks.
    let fission = "Bacteria reproduce by binary fission, splitting in two.";
    let asked_how = Some("How do bacteria reproduce?");
    let guessed = judged_among(&[fission], asked_how, "no idea tbh... maybe they just split in half?", 0);
    assert!(!guessed.flags.asks, "{guessed:?}");
    let unsure = judged_among(&[fission], asked_how, "no idea tbh, they just split in half??", 0);
    assert!(unsure.flags.asks, "{unsure:?}");
    let dilation =
        "Time dilation means a moving clock is measured to tick more slowly than an identical clock at rest.";
    let faster = judged_on(dilation, "a moving clock ticks faster than an identical one at rest");
    assert!(faster.flags.opposite && !faster.recalled, "{faster:?}");
    assert!(!judged_on(dilation, "a moving clock ticks slower than an identical one at rest").flags.opposite);
    // "Most of" counts; it is no degree against the point's "least".
    let jpeg = "JPEG discards fine high-frequency detail after a discrete cosine transform, because the human \
                eye notices it least.";
    assert!(
        !judged_on(jpeg, "after a discrete cosine transform it bins most of the fine high-frequency detail")
            .flags
            .opposite
    );
    assert!(judged_on(jpeg, "it discards the detail the eye notices most").flags.opposite);
}

#[test]
fn a_date_that_opens_a_point_pairs_nothing_with_its_clause() {
    let dreyfus = "In 1894 Alfred Dreyfus, a Jewish French army captain, was wrongly convicted of passing military secrets to Germany.";
    let said = "he was a jewish officer in the french army and in 1894 they framed him for selling secrets to the germans";
    let clauses_of = |m: &str| clauses(m).iter().map(|c| role_tokens(c)).collect::<Vec<_>>();
    assert!(!swapped(dreyfus, &clauses_of(said)));
    let waves = "Sound is a longitudinal wave, while light is a transverse wave.";
    assert!(swapped(waves, &clauses_of("sound is a transverse wave, while light is a longitudinal wave")));
    let libel = "Libel is defamation in a permanent form such as print or broadcast, while slander is defamation in a transient form like speech.";
    assert!(swapped(
        libel,
        &clauses_of(
            "libel is the spoken kind and slander is when it's written down or published somewhere permanent"
        )
    ));
    assert!(!swapped(libel, &clauses_of("libel is the written kind and slander is spoken")));
    let collectors = "CPython mainly uses reference counting plus a cycle detector, while Java's JVM uses tracing collectors such as G1.";
    assert!(swapped(
        collectors,
        &clauses_of("Python uses mark and sweep, and Java uses reference counting.")
    ));
    assert!(!swapped(
        collectors,
        &clauses_of("python counts references, and java uses tracing collectors like G1")
    ));
}

#[test]
fn a_word_said_with_its_opposite_turns_nothing_round() {
    with_wordnet();
    let steel = "Steel and concrete work well together because they expand by almost the same amount when temperature changes.";
    let both = "their thermal expansion coefficients are nearly identical so they grow and shrink together";
    assert!(!says_the_opposite(steel, &tokens(both), both, &clause_tokens(both)));
    let one = "steel and concrete shrink by the same amount";
    assert!(says_the_opposite(steel, &tokens(one), one, &clause_tokens(one)));
}

#[test]
fn a_share_said_as_so_many_out_of_so_many_is_the_points_fraction() {
    let iceland = "About two-thirds of Iceland's population lives in the capital region around Reykjavík.";
    let question = Some("Where do most Icelanders live?");
    let v =
        judged_among(&[iceland], question, "in and around reykjavik - roughly 2 out of every 3 people", 0);
    assert!(v.present.contains(&"two thirds".to_string()) && !v.flags.wrong_number);
    assert!(
        judged_among(&[iceland], question, "around reykjavik, 1 out of every 3 people", 0).flags.wrong_number
    );
}

#[test]
fn a_claim_without_exception_is_not_a_point_that_keeps_within_bounds() {
    let yerkes = "Performance improves with arousal only up to an optimal level, after which it declines.";
    assert!(overgeneralises(yerkes, "more arousal always means better performance"));
    assert!(!overgeneralises(yerkes, "more arousal helps up to a point, then performance drops"));
    let socrates = "Socrates left no writings; we know his ideas mainly through Plato.";
    assert!(!overgeneralises(
        socrates,
        "we know him through Plato mostly, since Socrates never wrote anything down"
    ));
    let raft = "A log entry is committed once the leader has replicated it to a majority of servers.";
    assert!(overgeneralises(raft, "once the leader has replicated it to every server, all of them"));
    assert!(!overgeneralises(raft, "when most of the servers have it, more than half"));
    assert!(!overgeneralises(raft, "every so often the leader sends it to most of them"));
}

#[test]
fn two_things_told_in_one_frame_and_crossed_are_swapped() {
    let kumadori = "Kumadori is the bold stage make-up of red and blue lines, with red marking heroes and blue marking villains.";
    assert!(judged_on(kumadori, "blue lines mark the heroes and red marks the villains").flags.swapped);
    assert!(!judged_on(kumadori, "red lines mark the heroes and blue marks the villains").flags.swapped);
    assert!(!judged_on(kumadori, "red and blue lines, red for the heroes").flags.swapped);
}

#[test]
fn what_the_point_says_cannot_be_done_said_as_done_turns_it_round() {
    let ulcer = "A Stage 1 pressure ulcer is intact skin with non-blanchable redness.";
    let asked = Some("What defines a Stage 1 pressure ulcer?");
    let wrong = judged_among(
        &[ulcer],
        asked,
        "skin's not broken, just red, and the redness blanches when you press it",
        0,
    );
    assert!(wrong.flags.opposite && !wrong.recalled, "{wrong:?}");
    let right = judged_among(
        &[ulcer],
        asked,
        "intact skin, red, and the redness doesn't blanch when you press it",
        0,
    );
    assert!(!right.flags.opposite, "{right:?}");
}

#[test]
fn a_figure_of_a_name_is_said_by_the_names_code() {
    let fat = "Brown adipose tissue rewarms a hibernator by producing heat through uncoupling protein 1 (UCP1), without shivering.";
    let asked = Some("What makes the heat during an arousal?");
    let said = judged_among(&[fat], asked, "brown fat makes the heat with UCP1, no shivering", 0);
    assert!(!said.flags.unsaid_number, "{said:?}");
    let unsaid =
        judged_among(&[fat], asked, "brown fat makes the heat with an uncoupling protein, no shivering", 0);
    assert!(unsaid.flags.unsaid_number, "{unsaid:?}");
}

#[test]
fn a_figure_in_brackets_is_an_aside_unless_the_question_asks_when() {
    let hobbes = "In Leviathan (1651) Thomas Hobbes described life in the state of nature as \"solitary, poor, nasty, brutish, and short\".";
    let said = "solitary poor nasty brutish and short thats the famous line from hobbes";
    let asked = |q: &str| judged_among(&[hobbes], Some(q), said, 0).flags.unsaid_number;
    assert!(!asked("How did Hobbes describe life in the state of nature?"));
    assert!(asked("When did Hobbes write that life in the state of nature is solitary?"));
}

#[test]
fn a_denial_agreed_with_carries_the_words_in_its_reach() {
    let idler = "An idler gear reverses the output direction but does not change the overall gear ratio.";
    let agreed = judged_on(idler, "the idler flips the output direction, but the ratio doesnt change");
    assert!(!agreed.flags.opposed && !agreed.vetoed);
    assert!(judged_on(idler, "the idler flips the output direction and changes the ratio").flags.opposed);
}

#[test]
fn a_division_turned_upside_down_is_swapped() {
    let density = "Density is mass divided by volume.";
    assert!(judged_on(density, "density is volume divided by mass").flags.swapped);
    assert!(!judged_on(density, "mass over volume").flags.swapped);
    assert!(!judged_on(density, "it's mass/volume, so kg per cubic metre").flags.swapped);
    let gears = "The gear ratio equals the number of teeth on the driven gear divided by the number on the driving gear.";
    assert!(judged_on(gears, "teeth on the driving gear divided by teeth on the driven gear").flags.swapped);
    assert!(!judged_on(gears, "driven gear's teeth over the driving gear's, you count them").flags.swapped);
}

#[test]
fn a_clause_of_another_point_joined_only_by_particles_or_a_real_word_near_a_points_swaps_nothing() {
    with_wordnet();
    let decomposers = "Decomposers break down proteins in dead organisms and wastes into ammonium, a step called \
                       ammonification.";
    let two_answers = "lightning's energy forces the N2 and O2 to join up into nitrogen oxides that rain washes down. \
                       and the rotting stuff, decomposers break dead things into ammonium";
    let roles: Vec<Vec<Token>> = clauses(two_answers).iter().map(|c| role_tokens(c)).collect();
    assert!(!swapped(decomposers, &roles));
    let turned = "wastes break down into decomposers, and proteins in dead organisms into ammonium";
    let roles: Vec<Vec<Token>> = clauses(turned).iter().map(|c| role_tokens(c)).collect();
    assert!(swapped(decomposers, &roles));
    // "washes" is a word of its own, not "wastes" mistyped; "wsstes" is.
    let said = |m: &str| tokens(m).into_iter().next().expect("a word");
    assert!(!said("washes").same_as(&said("wastes")));
    assert!(said("wsstes").same_as(&said("wastes")));
}

#[test]
fn an_opposite_said_of_another_thing_the_point_names_turns_nothing_round() {
    let powders = "Prague Powder #1 is for short cures, while Prague Powder #2 adds sodium nitrate for long dry cures like salami.";
    let both_sides = "number 1 is for quick stuff like bacon, number 2 has nitrate in it as well, so it's for long air-dried things like salami";
    assert!(!judged_on(powders, both_sides).flags.opposite);
    let inflation =
        "Inflation is a general rise in prices over time, which means each unit of money buys less.";
    let paraphrase = "when stuff in general just gets pricier over time so your money sort of shrinks";
    assert!(!judged_on(inflation, paraphrase).flags.opposite);
    // The same word beside the other clause's words is turned round.
    let demand =
        "The law of demand states that as a good's price rises, the quantity demanded falls, all else equal.";
    assert!(judged_on(demand, "as a good's price rises, the quantity demanded rises too").flags.opposite);
    // Half a contrast says nothing of the other half, so nothing tells the opposite apart.
    let shutter = "A fast shutter speed freezes motion, while a slow shutter speed creates motion blur.";
    assert!(!judged_on(shutter, "a fast shutter freezes the action").recalled);
}

#[test]
fn a_code_made_of_the_points_initials_says_its_words() {
    let nixon = "President Nixon ended the convertibility of US dollars into gold for foreign governments in August 1971.";
    let said = "closed the gold window - foreign govts couldnt swap USD for gold anymore. aug 71";
    assert!(!judged_on(nixon, said).flags.wrong_number);
    assert!(judged_on(nixon, "foreign govts couldnt swap GBP for gold anymore. aug 71").flags.wrong_number);
}

#[test]
fn another_points_subject_is_one_of_its_first_words_not_any_of_them() {
    let baking = [
        "Baking soda is a base that needs an acid, such as buttermilk, to release carbon dioxide.",
        "Baking powder contains both an acid and a base, so it only needs moisture and heat to react.",
        "Kneading develops gluten, which gives bread dough its stretchy structure.",
        "The Maillard reaction between sugars and proteins browns crusts and adds flavour.",
        "Yeast makes dough rise by producing carbon dioxide as it ferments sugars.",
    ];
    let said = "working the dough builds up those springy protein strands, the gluten, so it can stretch like elastic and hold its shape";
    let kneading = judged_among(&baking, Some("Why do you knead bread dough?"), said, 2);
    assert!(!kneading.flags.another_point, "{kneading:?}");
    let cell = [
        "Mitochondria make most of the cell's ATP through respiration.",
        "The nucleus holds the cell's DNA.",
    ];
    assert!(judged_among(&cell, None, "the nucleus makes ATP", 0).flags.another_point);
}

#[test]
fn another_colour_for_a_thing_of_the_point_is_a_wrong_detail() {
    let bechamel = "Béchamel is milk thickened with a white roux.";
    let brown = judged_on(bechamel, "milk thickened with a brown roux");
    assert!(brown.flags.sibling && !brown.recalled, "{brown:?}");
    assert!(judged_on(bechamel, "milk thickened with a white roux").recalled);
    // A shade of the point's colour says it.
    let light = "Blue light travels furthest through sea water, so most bioluminescence is blue.";
    assert!(
        !judged_on(light, "bluish light goes furthest through the water, red light is absorbed")
            .flags
            .sibling
    );
}

#[test]
fn a_word_the_question_names_with_its_opposite_is_no_turn() {
    let points = [
        "Cook Strait separates the North Island from the South Island.",
        "The Southern Alps run the length of the South Island.",
    ];
    let message = "cook strait. the southern alps run down the south island";
    let both = judged_among(&points, Some("What separates the North and South Islands?"), message, 0);
    assert!(!both.flags.opposite && both.recalled, "{:?}", both.flags);
    let one = judged_among(&points, Some("What does Cook Strait do?"), message, 0);
    assert!(one.flags.opposite, "the north asked of nowhere, the south said in its place");
}

#[test]
fn a_number_that_makes_a_compound_is_a_kind_not_a_count() {
    assert_eq!(
        numbered_compounds("A flat plate shows a three-dimensional image, one-way."),
        vec![("three".to_string(), "dimensional".to_string()), ("one".to_string(), "way".to_string())]
    );
    assert!(numbered_compounds("about two-thirds of it").is_empty(), "a fraction is a number");
    assert!(numbered_compounds("two hands, a two-handed grip").is_empty(), "said alone too, it is a count");
    let hologram = "A hologram records light so that a flat plate shows a three-dimensional image.";
    let depth = judged_on(
        hologram,
        "one laser beam is split and the flat plate ends up showing an image with real depth",
    );
    assert!(!depth.flags.wrong_number, "{:?}", depth.flags);
    let flat = judged_on(hologram, "it records light so the flat plate shows a two-dimensional image");
    assert!(flat.flags.wrong_number && !flat.recalled);
}

#[test]
fn one_of_a_pair_counts_nothing() {
    let velcro = "Velcro's hooks on one strip catch the loops on the other.";
    let hooks = judged_on(velcro, "say 3 hooks on a strip catch 4 loops on its partner, 12 grips in all");
    assert!(!hooks.flags.wrong_number, "{:?}", hooks.flags);
    let unicycle =
        judged_on("A unicycle has one wheel and no handlebars.", "it has 2 wheels and no handlebars");
    assert!(unicycle.flags.wrong_number && !unicycle.recalled);
}

#[test]
fn a_threshold_crossed_from_the_other_side_is_the_opposite() {
    let mark = "The pass mark is the score above which a student passes the exam.";
    assert!(crosses_the_threshold(mark, "it's 40, and if your score comes out lower than that you pass"));
    assert!(!crosses_the_threshold(mark, "it's 40, and if your score is higher than that you pass"));
    assert!(!crosses_the_threshold(mark, "it's 40, more or less"), "no comparison said");
    let flags = judged_on(mark, "the score where if you get less than it you pass the exam").flags;
    assert!(flags.opposite);
}

#[test]
fn the_word_without_the_meaning_a_point_gives_it_is_no_recall() {
    let danke = "'Danke schön' means 'thank you very much' in German.";
    assert_eq!(quoted_meaning(danke), Some("thank you very much"));
    assert_eq!(quoted_meaning("The word \"kind\" means \u{201c}child\u{201d} in German."), Some("child"));
    let goodbye = judged_on(danke, "danke schön is the polite German way to say goodbye");
    assert!(goodbye.flags.partial && !goodbye.recalled);
    let thanks = judged_on(danke, "danke schön is German for thank you very much");
    assert!(!thanks.flags.partial, "{:?}", thanks.flags);
    let asked =
        judged_among(&[danke], Some("How do you say 'thank you very much' in German?"), "danke schön", 0);
    assert!(!asked.flags.partial, "the meaning was the question's");
}

#[test]
fn while_it_happens_is_another_time_than_before_it_happens() {
    let seeds = "Pea seeds are soaked overnight before they are sown.";
    assert!(judged_on(seeds, "you soak pea seeds overnight while they are sown").flags.opposite);
    assert!(!judged_on(seeds, "pea seeds get soaked overnight before they are sown").flags.opposite);
    let both = judged_on(seeds, "pea seeds are soaked overnight before they are sown, while bulbs go in dry");
    assert!(!both.flags.opposite, "a while that contrasts places no time");
}

#[test]
fn steps_told_first_then_are_in_order() {
    let bread = "When you make bread by hand, you knead the dough first, then let it rise, then bake it.";
    assert!(judged_on(bread, "you let the dough rise first, then knead it, then bake it").flags.swapped);
    assert!(!judged_on(bread, "knead the dough first, then let it rise, then bake it").flags.swapped);
    // What comes before the steps is in no order: "bread" may be named last.
    let loaf = judged_on(bread, "knead the dough, let it rise, then bake it, and you have bread by hand");
    assert!(!loaf.flags.swapped, "{:?}", loaf.flags);
}

#[test]
fn a_share_the_question_asks_for_is_said_or_the_point_is_not_recalled() {
    let plague =
        "The Black Death reached England in 1348 and killed about a third to half of the population.";
    let how_deadly = Some("When did the Black Death reach England, and how deadly was it?");
    let vague = judged_among(&[plague], how_deadly, "1348, and it killed loads of people", 0);
    assert!(vague.flags.unsaid_number && !vague.recalled, "{vague:?}");
    let said = judged_among(&[plague], how_deadly, "1348, and it killed about a third of people", 0);
    assert!(!said.flags.unsaid_number, "{said:?}");
    // Asked only when, the share is not what the learner had to supply.
    let when = judged_among(
        &[plague],
        Some("When did the Black Death reach England?"),
        "1348, and it killed loads of people",
        0,
    );
    assert!(!when.flags.unsaid_number, "{when:?}");
}

#[test]
fn another_place_for_the_one_a_point_names_is_wrong_though_it_is_a_kind_of_the_names_other_words() {
    let jeffreys = "Alec Jeffreys developed DNA fingerprinting at the University of Leicester in 1984.";
    let asked = Some("Who developed DNA fingerprinting, and where?");
    let elsewhere = judged_among(&[jeffreys], asked, "alec jeffreys, at cambridge in 1984", 0);
    assert!(elsewhere.flags.sibling && !elsewhere.recalled, "{elsewhere:?}");
    let there = judged_among(&[jeffreys], asked, "alec jeffreys, at leicester in 1984", 0);
    assert!(!there.flags.sibling && there.recalled, "{there:?}");
}

#[test]
fn a_word_said_of_its_own_thing_in_a_clause_alone_joins_nothing_when_it_comes_again() {
    let fleet = "The English fleet was commanded by Lord Howard of Effingham, with Francis Drake as his vice-admiral.";
    let put_right =
        "drake. well, no, drake was second in command, the actual lord admiral was howard, of effingham";
    assert!(!swapped(fleet, &clause_tokens(put_right)));
    let crossed = "the fleet was commanded by francis drake, with lord howard as his vice-admiral";
    assert!(swapped(fleet, &clause_tokens(crossed)));
}

#[test]
fn clauses_that_follow_from_one_another_are_not_a_pairing_to_swap() {
    let quartz = "Quartz has a Mohs hardness of 7, so it scratches ordinary glass, which is about 5.5.";
    let said = "its hardness like how well it resists being scratched one is talc ten is diamond and um quartz is like seven which is why it can scratch glass cause glass is about five and a half";
    assert!(!swapped(quartz, &clause_tokens(said)));
    // Told side by side, the same words crossed are a swap.
    let side_by_side = "Quartz has a Mohs hardness of 7, while diamond scratches ordinary glass.";
    let crossed = "quartz scratches glass, while diamond has a mohs hardness of 7";
    assert!(swapped(side_by_side, &clause_tokens(crossed)));
}

#[test]
fn a_word_any_clause_has_crosses_nothing() {
    let butterfly = "Butterfly uses a simultaneous arm recovery and a dolphin kick with both legs together.";
    let said = "butterfly is both arms coming over at the same time plus that dolphin kick with your legs stuck together";
    assert!(!swapped(butterfly, &clause_tokens(said)));
}

#[test]
fn a_year_that_dates_a_thing_in_passing_need_not_be_said_unless_asked() {
    let fresnel = "The Fresnel lens, developed by Augustin-Jean Fresnel in the 1820s, uses concentric rings of prisms to focus light while being far thinner and lighter than a solid lens.";
    let said = "instead of one massive thick lens u get rings of little prisms, so its way thinner n lighter but still focuses the beam";
    let asked = |q: &str| judged_among(&[fresnel], Some(q), said, 0).flags.unsaid_number;
    assert!(!asked("What made the Fresnel lens such a big deal?"));
    assert!(asked("When was the Fresnel lens developed, and how does it work?"));
    // A year the point's own clause is about is no aside.
    let pact = "The Warsaw Pact, the Soviet-led military alliance, was founded in 1955.";
    let said = "the soviet-led military alliance, basically the east's answer to nato";
    assert!(judged_among(&[pact], Some("What was the Warsaw Pact?"), said, 0).flags.unsaid_number);
}

#[test]
fn one_side_of_a_contrast_is_half_the_point() {
    let sheets = "The balance sheet shows a company's position at one point in time, while the income \
                  statement covers a period.";
    let asked = Some("How do the balance sheet and the income statement differ?");
    let one = judged_among(
        &[sheets],
        asked,
        "the balance sheet is like a snapshot of the company at one moment",
        0,
    );
    assert!(one.flags.partial && !one.recalled, "{one:?}");
    let both = "the balance sheet is a snapshot at one moment, the income statement covers a whole period";
    assert!(!judged_among(&[sheets], asked, both, 0).flags.partial);
    // Set against something, the other side is said in the learner's own words.
    let against = "the balance sheet is a snapshot at one moment, instead of adding up the whole year";
    assert!(!judged_among(&[sheets], asked, against, 0).flags.partial);
}

#[test]
fn a_span_of_years_after_a_name_dates_it_in_passing_and_its_decade_is_not_wrong() {
    let berlin = "The Berlin Conference of 1884-85, hosted by Bismarck, set the rules for European powers claiming African territory.";
    let said = "european leaders met in berlin w bismarck hosting, mid 1880s, and basically agreed the ground rules for who could grab which bits of africa";
    let asked = |q: &str| judged_among(&[berlin], Some(q), said, 0);
    let what = asked("What happened at the Berlin Conference?");
    assert!(!what.flags.wrong_number && !what.flags.unsaid_number, "{:?}", what.flags);
    let when = asked("When was the Berlin Conference?");
    assert!(!when.flags.wrong_number && when.flags.unsaid_number, "{:?}", when.flags);
    let other = judged_among(
        &[berlin],
        Some("When was the Berlin Conference?"),
        "in the 1890s, bismarck hosted it",
        0,
    );
    assert!(other.flags.wrong_number, "{:?}", other.flags);
}

#[test]
fn a_name_said_by_its_second_word_names_the_points_subject() {
    let points = [
        "The Quit India movement was launched in 1942.",
        "Jawaharlal Nehru was independent India's first prime minister.",
    ];
    let said = "quit india was 42, gandhi basically telling the brits to get out. then once they were independent nehru became the first PM";
    let asked = Some("Tell me what you remember about the 1940s.");
    let nehru = judged_among(&points, asked, said, 1);
    assert!(!nehru.flags.another_point, "{:?}", nehru.flags);
    let other = "quit india was 42. then once they were independent gandhi became the first PM";
    assert!(judged_among(&points, asked, other, 1).flags.another_point);
    // Two capitalised words apart are no name: "ATP" does not name the mitochondria.
    let cell = [
        "Mitochondria produce most of the cell's ATP through cellular respiration.",
        "The nucleus stores the cell's DNA and controls gene expression.",
    ];
    assert!(judged_among(&cell, None, "the nucleus makes ATP", 0).flags.another_point);
}

#[test]
fn a_period_counted_from_another_moment_is_a_swap() {
    let patent = "A patent generally lasts 20 years from the filing date of the application.";
    let granted = judged_on(patent, "20 years from when it's granted");
    assert!(granted.flags.swapped && !granted.recalled, "{granted:?}");
    assert!(!counts_from_another_start(patent, "20 yrs counted from when u applied, then anyone can copy"));
    assert!(!counts_from_another_start(patent, "20 years from the filing date"));
}
