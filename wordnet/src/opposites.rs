//! WordNet's antonyms of adjectives and adverbs ("soluble" and "insoluble", "single" and
//! "multiple"), read from `index.{adj,adv}` and `data.{adj,adv}`: which word says the opposite
//! of which. Not verbs': their antonyms are everyday senses ("come" and "go", "stay" and
//! "move") that paraphrase as often as they contradict.

use std::collections::{HashMap, HashSet};
use std::path::Path;

/// How many of a word's senses, most frequent first, may give it an antonym: "active" is the
/// opposite of "inactive" and "passive", but not of what its rarer senses oppose.
const SENSES: usize = 2;

/// The parts of speech read, by their files' suffix.
const PARTS: &[&str] = &["adj", "adv"];

/// Each pair of single words WordNet files as antonyms (lower case, the pair's first word
/// first in alphabetical order), from their most frequent senses.
pub fn antonyms(dir: &Path) -> Result<Vec<(String, String)>, String> {
    let read = |file: &str| {
        std::fs::read(dir.join(file))
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .map_err(|e| format!("cannot read {}: {e}", dir.join(file).display()))
    };
    let mut pairs = HashSet::new();
    for part in PARTS {
        let index = read(&format!("index.{part}"))?;
        let data = read(&format!("data.{part}"))?;
        pairs.extend(parse(&index, &data)?);
    }
    if pairs.is_empty() {
        return Err("no antonyms in WordNet's files".into());
    }
    let mut pairs: Vec<(String, String)> = pairs.into_iter().collect();
    pairs.sort();
    Ok(pairs)
}

/// One synset: its words, and its antonym pointers as (source word, target synset, target
/// word), words counted from 1 as WordNet does. Only these direct antonyms: an adjective
/// satellite's borrowed ones ("mean" against "nice" through "unkind") are too loose to rule.
struct Synset {
    words: Vec<String>,
    antonyms: Vec<(usize, u32, usize)>,
}

/// The antonym pairs of one part of speech (lines starting with a space are the licence).
fn parse(index: &str, data: &str) -> Result<HashSet<(String, String)>, String> {
    let offset = |field: &str| field.parse::<u32>().map_err(|_| format!("not a synset offset: {field:?}"));
    let mut synsets = HashMap::new();
    for line in data.lines().filter(|l| !l.starts_with(' ')) {
        // offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt (symbol offset pos st)… | gloss
        let head = line.split('|').next().unwrap_or_default();
        let fields: Vec<&str> = head.split_whitespace().collect();
        let (Some(own), Some(count)) =
            (fields.first(), fields.get(3).and_then(|w| usize::from_str_radix(w, 16).ok()))
        else {
            continue;
        };
        // An adjective's word may carry its position ("galore(ip)").
        let words = (0..count).filter_map(|i| fields.get(4 + 2 * i)).map(|w| lemma(w).to_string()).collect();
        let at = 4 + 2 * count;
        let Some(pointers) = fields.get(at).and_then(|p| p.parse::<usize>().ok()) else { continue };
        let mut antonyms = Vec::new();
        for pointer in fields[at + 1..].chunks(4).take(pointers) {
            if let ["!", target, _, words] = pointer
                && words.len() == 4
                && let (Ok(from), Ok(to)) =
                    (usize::from_str_radix(&words[..2], 16), usize::from_str_radix(&words[2..], 16))
            {
                antonyms.push((from, offset(target)?, to));
            }
        }
        synsets.insert(offset(own)?, Synset { words, antonyms });
    }
    let mut pairs = HashSet::new();
    for line in index.lines().filter(|l| !l.starts_with(' ')) {
        // lemma pos synset_cnt p_cnt [ptr_symbol]… sense_cnt tagsense_cnt offset…
        let fields: Vec<&str> = line.split_whitespace().collect();
        let Some(pointers) = fields.get(3).and_then(|p| p.parse::<usize>().ok()) else { continue };
        let word = fields[0];
        if word.contains('_') {
            continue;
        }
        for sense in fields.iter().skip(6 + pointers).take(SENSES) {
            let Some(synset) = synsets.get(&offset(sense)?) else { continue };
            let Some(at) = synset.words.iter().position(|w| w == word) else { continue };
            for (_, target, to) in synset.antonyms.iter().filter(|(from, _, _)| *from == at + 1) {
                let Some(other) = synsets.get(target).and_then(|s| s.words.get(to - 1)) else { continue };
                if other.contains('_') || other == word {
                    continue;
                }
                let pair =
                    if word < other.as_str() { (word, other.as_str()) } else { (other.as_str(), word) };
                pairs.insert((pair.0.to_string(), pair.1.to_string()));
            }
        }
    }
    Ok(pairs)
}

/// A word as the index writes it: lower case, without an adjective's position marker.
fn lemma(word: &str) -> &str {
    word.split('(').next().unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn antonyms_come_from_a_words_two_most_frequent_senses() {
        let index = "  licence line\n\
            soluble a 3 1 ! 3 0 00000001 00000003 00000004\n\
            insoluble a 1 1 ! 1 0 00000002\n\
            water_soluble a 1 1 ! 1 0 00000006\n";
        let data = "  licence line\n\
            00000001 00 a 01 soluble 0 001 ! 00000002 a 0101 | dissolves\n\
            00000002 00 a 01 insoluble 0 001 ! 00000001 a 0101 | does not dissolve\n\
            00000003 00 a 01 soluble 1 000 | can be solved\n\
            00000004 00 a 01 soluble(p) 2 001 ! 00000005 a 0101 | a rare third sense\n\
            00000005 00 a 01 unsolvable 0 000 | its opposite\n\
            00000006 00 a 01 water_soluble 0 001 ! 00000001 a 0101 | two words\n";
        let pairs = parse(index, data).map_err(|e| e.to_string());
        assert_eq!(pairs, Ok(HashSet::from([("insoluble".to_string(), "soluble".to_string())])));
    }
}
