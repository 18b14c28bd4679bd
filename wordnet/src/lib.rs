//! WordNet's noun hierarchy, read from its `index.noun` and `data.noun`: which nouns are
//! siblings (two kinds of one thing) and which are one thing or a kind of another; and its
//! antonyms ([`antonyms`]: "rise" and "fall"). A crate of
//! its own so that it is built optimised even in debug builds (see the workspace's profiles):
//! every test that starts Warren reads these 20 MB, 0.7 s unoptimised and 0.15 s optimised.

use std::collections::{HashMap, HashSet};
use std::path::Path;

mod opposites;

pub use opposites::antonyms;

/// How many of a word's senses, most frequent first, may make it a sibling: "ash" is a tree
/// as well as a residue, but the 30th sense of "line" is nobody's answer.
const SENSES: usize = 2;

/// How many kinds a sense may have below it and still be a detail: "radius" and "diameter",
/// "Kenya" and "Tanzania" have none or few, and one said for the other is wrong; a "timer" for
/// a "clock" (a dozen kinds) is a loose word for the same thing.
const KINDS: u16 = 4;

/// How deep below the top of the hierarchy a sense is general: "whole" (entity, physical
/// entity, object, whole) is three steps down, and every animal, organ and tool is a kind of it.
const GENERAL_DEPTH: usize = 3;

/// How deep a sense must be for its kinds' kinds to be of one specific thing: "bone" is;
/// "organ" and "artifact" are too general to make their kinds' kinds alike.
const SPECIFIC_DEPTH: usize = 6;

/// WordNet's nouns: each lemma's senses, and each sense's direct hypernyms.
pub struct Nouns {
    /// By lemma (lower case, words joined by "_"), its synsets' offsets, most frequent first.
    senses: HashMap<String, Box<[u32]>>,
    /// By synset offset, its hypernyms (an instance's class too: "Kenya" is an African country).
    hypernyms: HashMap<u32, Box<[u32]>>,
    /// By synset offset, how many synsets it is the hypernym of.
    kinds: HashMap<u32, u16>,
    /// The synsets that are instances (a city, a person), not kinds.
    instances: HashSet<u32>,
    /// The synsets WordNet writes with a capital: proper names ("Kuiper belt", "Yangtze").
    proper: HashSet<u32>,
}

impl Nouns {
    /// Reads WordNet's nouns from `dir`, or says why it cannot.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let read = |file: &str| {
            std::fs::read(dir.join(file))
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|e| format!("cannot read {}: {e}", dir.join(file).display()))
        };
        Self::parse(&read("index.noun")?, &read("data.noun")?)
    }

    /// How many lemmas it knows.
    pub fn lemmas(&self) -> usize {
        self.senses.len()
    }

    /// Parses WordNet's `index.noun` and `data.noun` (lines starting with a space are its
    /// licence).
    fn parse(index: &str, data: &str) -> Result<Self, String> {
        let offset =
            |field: &str| field.parse::<u32>().map_err(|_| format!("not a synset offset: {field:?}"));
        let mut senses = HashMap::new();
        for line in index.lines().filter(|l| !l.starts_with(' ')) {
            // lemma pos synset_cnt p_cnt [ptr_symbol]… sense_cnt tagsense_cnt offset…
            let fields: Vec<&str> = line.split_whitespace().collect();
            let Some(pointers) = fields.get(3).and_then(|p| p.parse::<usize>().ok()) else { continue };
            let offsets: Result<Box<[u32]>, String> =
                fields.iter().skip(6 + pointers).map(|f| offset(f)).collect();
            senses.insert(fields[0].to_string(), offsets?);
        }
        let mut hypernyms = HashMap::new();
        let mut instances = HashSet::new();
        let mut proper = HashSet::new();
        for line in data.lines().filter(|l| !l.starts_with(' ')) {
            // offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt (symbol offset pos st)… | gloss
            let head = line.split('|').next().unwrap_or_default();
            let fields: Vec<&str> = head.split_whitespace().collect();
            let (Some(own), Some(words)) =
                (fields.first(), fields.get(3).and_then(|w| usize::from_str_radix(w, 16).ok()))
            else {
                continue;
            };
            let at = 4 + 2 * words;
            let Some(count) = fields.get(at).and_then(|p| p.parse::<usize>().ok()) else { continue };
            let own = offset(own)?;
            if fields.get(4).is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase)) {
                proper.insert(own);
            }
            let mut up = Vec::new();
            for pointer in fields[at + 1..].chunks(4).take(count) {
                if let [symbol, target, "n", _] = pointer
                    && matches!(*symbol, "@" | "@i")
                {
                    up.push(offset(target)?);
                    if *symbol == "@i" {
                        instances.insert(own);
                    }
                }
            }
            hypernyms.insert(own, up.into_boxed_slice());
        }
        if senses.is_empty() || hypernyms.is_empty() {
            return Err("no nouns in WordNet's files".into());
        }
        let mut kinds: HashMap<u32, u16> = HashMap::new();
        for parent in hypernyms.values().flat_map(|h| h.iter()) {
            *kinds.entry(*parent).or_default() += 1;
        }
        Ok(Self { senses, hypernyms, kinds, instances, proper })
    }

    /// Whether `a` and `b` name two kinds of one thing: among their two most frequent senses,
    /// two specific ones (see [`KINDS`]) with a hypernym in common, or two instances whose
    /// classes meet a step up ("Canberra", a national capital, and "Sydney", a city), while no
    /// sense of one is a sense or a kind of the other ("alveolus" and "air sac" are one thing;
    /// "hieroglyph" is a kind of "script").
    pub fn siblings(&self, a: &str, b: &str) -> bool {
        self.stands_in(&[a], b)
    }

    /// Whether `word` stands where one of `missing` should be as its sibling (see
    /// [`Nouns::siblings`]): a sibling of one of them, and one thing with, or a kind of, none
    /// ("enzymes" for a missing "proteins" says it, in other words). Each pair is weighed once.
    pub fn stands_in(&self, missing: &[&str], word: &str) -> bool {
        // A missing class of another missing word ("bone" beside "femur") is what both are
        // kinds of: being one of it says nothing of the thing meant.
        let class_of_another = |m: &&&str| missing.iter().any(|o| o != *m && self.kind_of(o, m));
        if missing.iter().filter(|m| !class_of_another(m)).any(|m| self.related_specifically(m, word)) {
            return false;
        }
        missing.iter().any(|m| self.kin(m, word, KINDS))
    }

    /// Whether `a` and `b` are two words for one thing in one of the two most frequent senses
    /// of each: "lumps" and "chunks", "rock" and "stone"; not "protein" for "haemoglobin", a
    /// kind of it.
    pub fn synonyms(&self, a: &str, b: &str) -> bool {
        let (Some(of_a), Some(of_b)) = (self.senses_of(a), self.senses_of(b)) else { return false };
        of_a.iter().take(SENSES).any(|sa| of_b.iter().take(SENSES).any(|sb| sa == sb))
    }

    /// Whether `word`'s most frequent sense is one named thing, not a kind: "Jupiter",
    /// "Caesar", "Canberra"; not "planet" or "mitochondria".
    pub fn names_one(&self, word: &str) -> bool {
        self.senses_of(word).and_then(|s| s.first()).is_some_and(|first| self.instances.contains(first))
    }

    /// Whether WordNet has `word` as a noun (as written, or its singular).
    pub fn knows(&self, word: &str) -> bool {
        self.senses_of(word).is_some()
    }

    /// Whether `word`, said in the very place of `missing` (between the same words), is
    /// another kind of the same thing, however many kinds that thing has: "the giant oak tree"
    /// for "the giant ash tree". Not when one is the other or a kind of it.
    pub fn replaces(&self, missing: &str, word: &str) -> bool {
        !self.related(missing, word) && (self.kin(missing, word, u16::MAX) || self.cousins(missing, word))
    }

    /// [`Nouns::replaces`] for a name of two words or more, which WordNet places more loosely:
    /// also one a kind of a specific thing and the other a kind of one of its kinds (a "whale
    /// shark" is a shark, a "basking shark" a mackerel shark), or two proper names, neither
    /// the other ("Oort cloud" for "Kuiper belt"). Not for one word: "Yggdrasil", one ash,
    /// and an oak are not two names of one thing.
    pub fn replaces_name(&self, missing: &str, word: &str) -> bool {
        self.replaces(missing, word)
            || (!self.related(missing, word)
                && (self.uncles(missing, word) || (self.proper_name(missing) && self.proper_name(word))))
    }

    /// Whether `word`'s most frequent sense is written with a capital: "Kuiper belt".
    fn proper_name(&self, word: &str) -> bool {
        self.senses_of(word).and_then(|s| s.first()).is_some_and(|first| self.proper.contains(first))
    }

    /// Whether one of `a` and `b` is a kind of a specific thing and the other a kind of one of
    /// its kinds.
    fn uncles(&self, a: &str, b: &str) -> bool {
        let (Some(of_a), Some(of_b)) = (self.senses_of(a), self.senses_of(b)) else { return false };
        let meet = |ours: &[u32], theirs: &[u32]| {
            ours.iter().any(|g| theirs.contains(g) && self.depth(*g) > SPECIFIC_DEPTH)
        };
        of_a.iter().take(SENSES).any(|sa| {
            of_b.iter().take(SENSES).any(|sb| {
                meet(self.parents(*sa), &self.grandparents(*sb))
                    || meet(&self.grandparents(*sa), self.parents(*sb))
            })
        })
    }

    /// Whether `a` and `b` are kinds of two kinds of one specific thing: "femur" (a leg bone)
    /// and "humerus" (an arm bone) are both bones.
    fn cousins(&self, a: &str, b: &str) -> bool {
        let (Some(of_a), Some(of_b)) = (self.senses_of(a), self.senses_of(b)) else { return false };
        of_a.iter().take(SENSES).any(|sa| {
            let above_a = self.grandparents(*sa);
            of_b.iter().take(SENSES).any(|sb| {
                self.grandparents(*sb).iter().any(|g| above_a.contains(g) && self.depth(*g) > SPECIFIC_DEPTH)
            })
        })
    }

    /// Whether two specific senses of `a` and `b` share a hypernym, or two instances' classes
    /// meet a step up (the first half of [`Nouns::siblings`]).
    fn kin(&self, a: &str, b: &str, kinds: u16) -> bool {
        let (Some(of_a), Some(of_b)) = (self.senses_of(a), self.senses_of(b)) else { return false };
        let parents = |s: &u32| self.parents(*s);
        let specific = |s: &&u32| self.kinds.get(*s).copied().unwrap_or(0) <= kinds;
        // An instance's class and that class's own: where two cities, or two people, meet.
        let classes = |s: &u32| -> Vec<u32> {
            let mut out = parents(s).to_vec();
            out.extend(parents(s).iter().flat_map(parents));
            out
        };
        of_a.iter().take(SENSES).filter(specific).any(|sa| {
            of_b.iter().take(SENSES).filter(specific).any(|sb| {
                parents(sa).iter().any(|p| parents(sb).contains(p))
                    || (self.instances.contains(sa)
                        && self.instances.contains(sb)
                        && classes(sa).iter().any(|p| classes(sb).contains(p)))
            })
        })
    }

    /// Whether, in some sense each, `a` and `b` are one thing or one is a kind of the other
    /// ("an enzyme" is a protein, "CO2" is carbon dioxide).
    pub fn related(&self, a: &str, b: &str) -> bool {
        self.related_in(a, b, |_| true)
    }

    /// [`Nouns::related`], weighing only the senses of `a` that `weighed` keeps.
    fn related_in(&self, a: &str, b: &str, weighed: impl Fn(u32) -> bool) -> bool {
        let (Some(of_a), Some(of_b)) = (self.senses_of(a), self.senses_of(b)) else { return false };
        self.senses_related(of_a, of_b, weighed)
    }

    /// Whether a sense of `of_a` that `weighed` keeps is a sense of `of_b`, or a kind of one,
    /// or one of them is a kind of it.
    fn senses_related(&self, of_a: &[u32], of_b: &[u32], weighed: impl Fn(u32) -> bool) -> bool {
        let above_b: Vec<HashSet<u32>> = of_b.iter().map(|s| self.above(*s)).collect();
        of_a.iter().filter(|sa| weighed(**sa)).any(|sa| {
            let above_sa = self.above(*sa);
            of_b.iter()
                .zip(&above_b)
                .any(|(sb, above_sb)| sa == sb || above_sa.contains(sb) || above_sb.contains(sa))
        })
    }

    /// [`Nouns::related`], leaving out the senses of `a` so near the top of the hierarchy that
    /// nearly every thing is a kind of them: "the whole body" does not make "atrium", a kind
    /// of whole, another word for anything the point says.
    fn related_specifically(&self, a: &str, b: &str) -> bool {
        self.related_in(a, b, |sense| self.depth(sense) > GENERAL_DEPTH)
    }

    /// Whether, in some sense each, `a` is a kind of `b`, a sense of `b` not near the top of
    /// the hierarchy ("femur" of "bone", not "femur" of "whole").
    fn kind_of(&self, a: &str, b: &str) -> bool {
        let (Some(of_a), Some(of_b)) = (self.senses_of(a), self.senses_of(b)) else { return false };
        of_a.iter().any(|sa| {
            let above = self.above(*sa);
            of_b.iter().any(|sb| sa != sb && above.contains(sb) && self.depth(*sb) > GENERAL_DEPTH)
        })
    }

    /// A synset's hypernyms.
    fn parents(&self, synset: u32) -> &[u32] {
        self.hypernyms.get(&synset).map(|h| &**h).unwrap_or_default()
    }

    /// Its hypernyms' hypernyms.
    fn grandparents(&self, synset: u32) -> Vec<u32> {
        self.parents(synset).iter().flat_map(|p| self.parents(*p)).copied().collect()
    }

    /// How many steps a synset is below the top of the hierarchy, by its shortest way up.
    fn depth(&self, synset: u32) -> usize {
        let mut level = vec![synset];
        let mut seen = HashSet::new();
        for steps in 0.. {
            let mut up = Vec::new();
            for s in &level {
                let parents = self.hypernyms.get(s).map(|h| &**h).unwrap_or_default();
                if parents.is_empty() {
                    return steps;
                }
                up.extend(parents.iter().filter(|p| seen.insert(**p)));
            }
            if up.is_empty() {
                return steps;
            }
            level = up;
        }
        0
    }

    /// A word's senses as a noun, by its lemma: as written, or with a regular plural ending
    /// taken off ("layers", "churches", "berries").
    fn senses_of(&self, word: &str) -> Option<&[u32]> {
        let word = word.to_lowercase();
        if word.chars().count() < 3 {
            return None;
        }
        if let Some(senses) = self.senses.get(&word) {
            return Some(senses);
        }
        self.singular_senses(&word)
    }

    /// The senses of `word` read as a plural ("letters" as "letter", not as learning).
    fn singular_senses(&self, word: &str) -> Option<&[u32]> {
        const PLURALS: &[(&str, &str)] = &[
            ("ies", "y"),
            ("ches", "ch"),
            ("shes", "sh"),
            ("xes", "x"),
            ("ses", "s"),
            ("men", "man"),
            ("es", ""),
            ("s", ""),
        ];
        PLURALS.iter().find_map(|(ending, base)| {
            let stem = word.strip_suffix(ending)?;
            self.senses.get(&format!("{stem}{base}")).map(|s| &**s)
        })
    }

    /// [`Nouns::related`], reading each plural as written and as the plural of its singular
    /// ("letters", learning or the letters of an alphabet).
    pub fn related_in_any_number(&self, a: &str, b: &str) -> bool {
        let forms = |w: &str| {
            let w = w.to_lowercase();
            let mut out = vec![self.senses.get(&w).map(|s| &**s)];
            out.push(self.singular_senses(&w));
            out.into_iter().flatten().collect::<Vec<&[u32]>>()
        };
        forms(a).iter().any(|of_a| forms(b).iter().any(|of_b| self.senses_related(of_a, of_b, |_| true)))
    }

    /// Every synset above `synset` in the hierarchy.
    fn above(&self, synset: u32) -> HashSet<u32> {
        let mut seen = HashSet::new();
        let mut next = vec![synset];
        while let Some(s) = next.pop() {
            for parent in self.hypernyms.get(&s).map(|h| &**h).unwrap_or_default() {
                if seen.insert(*parent) {
                    next.push(*parent);
                }
            }
        }
        seen
    }
}
