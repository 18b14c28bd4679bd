//! Years counted from another: "the IOC in 1894 and two years later the first games" dates the
//! games to 1896, the year the notes give. A learner telling a story counts on from the last
//! year they said; without one, "two years later" stays as written.

use std::borrow::Cow;

/// The text with each span of years counted from the year said before it ("two years later",
/// "a decade after", "three years earlier") written as that year ("in 1896", "in 44 BC").
pub fn resolved(text: &str) -> Cow<'_, str> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let bare: Vec<String> =
        words.iter().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
    let refs: Vec<&str> = bare.iter().map(String::as_str).collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut year: Option<i64> = None;
    let mut changed = false;
    let mut i = 0;
    while i < words.len() {
        if let Some((span, used)) = counted_years(&refs[i..])
            && let Some(from) = year
        {
            let said = from + span;
            // The punctuation after the last word stays ("later, they…").
            let last = words[i + used - 1];
            let trailing = &last[last.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..];
            let era = if said < 0 { " BC" } else { "" };
            out.push(format!("in {}{era}{trailing}", said.abs()));
            year = Some(said);
            changed = true;
            i += used;
            continue;
        }
        if let Ok(n) = refs[i].parse::<i64>() {
            // Years before Christ count down, kept here as negative: "49 BC, and five years
            // later" is 44 BC.
            if matches!(refs.get(i + 1), Some(&("bc" | "bce"))) && (1..=5000).contains(&n) {
                year = Some(-n);
            } else if (1000..=2100).contains(&n) {
                year = Some(n);
            }
        }
        out.push(words[i].to_string());
        i += 1;
    }
    if changed { Cow::Owned(out.join(" ")) } else { Cow::Borrowed(text) }
}

/// Years counted at the start of `words`, signed, and how many words said it: "two years
/// later" (+2), "a decade after" (+10), "3 years earlier" (−3).
fn counted_years(words: &[&str]) -> Option<(i64, usize)> {
    let (count, used) = match words {
        ["a" | "one", ..] => (1.0, 1),
        _ => super::numbers::read(words)?,
    };
    let per = match *words.get(used)? {
        "year" | "years" => 1,
        "decade" | "decades" => 10,
        _ => return None,
    };
    let sign = match *words.get(used + 1)? {
        "later" | "after" | "afterwards" => 1,
        "earlier" | "before" => -1,
        _ => return None,
    };
    // "after" joins what comes next ("two years after the war"): counted from that, not from
    // the year before.
    if words.get(used + 1) == Some(&"after") && words.get(used + 2).is_some_and(|w| !w.is_empty()) {
        return None;
    }
    (count.fract() == 0.0 && (1.0..=100.0).contains(&count)).then_some((sign * per * count as i64, used + 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn years_counted_from_the_year_said_before_are_that_year() {
        let games = "coubertin set up the IOC in 1894 and two years later they ran the first games in greece";
        assert_eq!(
            resolved(games),
            "coubertin set up the IOC in 1894 and in 1896 they ran the first games in greece"
        );
        assert_eq!(resolved("it was 1914, and 4 years later, peace"), "it was 1914, and in 1918, peace");
        assert_eq!(
            resolved("founded 1990; a decade earlier it was planned"),
            "founded 1990; in 1980 it was planned"
        );
        assert_eq!(resolved("in 1603 and a year later in 1604"), "in 1603 and in 1604 in 1604");
        assert_eq!(
            resolved("caesar crossed in 49 bc and five years later he was killed"),
            "caesar crossed in 49 bc and in 44 BC he was killed",
            "years before Christ count down"
        );
        assert_eq!(
            resolved("troy fell around 1180 BC. fifty years later"),
            "troy fell around 1180 BC. in 1130 BC"
        );
    }

    #[test]
    fn years_counted_from_nothing_or_from_an_event_stay_as_written() {
        for text in [
            "two years later they ran the first games",
            "in 1894, and two years after the founding they ran the games",
            "in 1894 it was two years old",
            "the war of 1812 lasted three years",
        ] {
            assert_eq!(resolved(text), text);
        }
    }
}
