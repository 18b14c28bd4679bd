//! Wording for times and counts. Pure functions of their inputs, so the server's render and
//! the browser's hydration produce the same text.

const MINUTE: i64 = 60_000;
const HOUR: i64 = 60 * MINUTE;
const DAY: i64 = 24 * HOUR;

/// "just now", "5 minutes ago", "3 days ago".
pub fn ago(now: i64, then: i64) -> String {
    let d = (now - then).max(0);
    match d {
        d if d < MINUTE => "just now".into(),
        d if d < HOUR => plural(d / MINUTE, "minute") + " ago",
        d if d < DAY => plural(d / HOUR, "hour") + " ago",
        d => plural(d / DAY, "day") + " ago",
    }
}

/// "due now", "in 5 hours", "in 3 days", to the nearest unit: a point scheduled two days
/// ahead, looked at a minute later, is due "in 2 days", not "in 1 day".
pub fn due(now: i64, at: i64) -> String {
    let d = at - now;
    let nearest = |unit: i64| (d + unit / 2) / unit;
    if d <= 0 {
        "due now".into()
    } else if nearest(MINUTE) < 60 {
        format!("in {}", plural(nearest(MINUTE).max(1), "minute"))
    } else if nearest(HOUR) < 24 {
        format!("in {}", plural(nearest(HOUR), "hour"))
    } else {
        format!("in {}", plural(nearest(DAY), "day"))
    }
}

/// A count with its thousands grouped, as the pages write figures: "231,657".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn plural(n: i64, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {}", plural_form(word)) }
}

/// All of `n` things, as a person says it: "the one point", "both points", "all 5 points".
pub fn all_of(n: i64, word: &str) -> String {
    match n {
        1 => format!("the one {word}"),
        2 => format!("both {}", plural_form(word)),
        n => format!("all {n} {}", plural_form(word)),
    }
}

/// An English noun's regular plural: "tries", "near misses", "boxes", "points", "days".
fn plural_form(word: &str) -> String {
    let vowel_before_y = word.len() >= 2 && word[..word.len() - 1].ends_with(['a', 'e', 'i', 'o', 'u']);
    match word {
        w if w.ends_with('y') && !vowel_before_y => format!("{}ies", &w[..w.len() - 1]),
        w if w.ends_with(['s', 'x', 'z']) || w.ends_with("ch") || w.ends_with("sh") => format!("{w}es"),
        w => format!("{w}s"),
    }
}

/// A length of study: "no time", "under a minute", "25 min", "1 h 5 min".
pub fn span(ms: i64) -> String {
    match ms.max(0) {
        0 => "no time".into(),
        d if d < MINUTE => "under a minute".into(),
        d if d < HOUR => format!("{} min", d / MINUTE),
        d if d % HOUR < MINUTE => format!("{} h", d / HOUR),
        d => format!("{} h {} min", d / HOUR, (d % HOUR) / MINUTE),
    }
}

/// MM:SS, or H:MM:SS past an hour.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_group_their_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(231_657), "231,657");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn plurals_are_english() {
        assert_eq!(plural(3, "try"), "3 tries");
        assert_eq!(plural(2, "near miss"), "2 near misses");
        assert_eq!(plural(2, "day"), "2 days");
        assert_eq!(plural(0, "point"), "0 points");
        assert_eq!(plural(1, "try"), "1 try");
        assert_eq!(plural(2, "box"), "2 boxes");
    }

    #[test]
    fn words() {
        assert_eq!(ago(10 * DAY, 10 * DAY - 30_000), "just now");
        assert_eq!(ago(10 * DAY, 7 * DAY), "3 days ago");
        assert_eq!(due(0, 1), "in 1 minute");
        assert_eq!(due(0, 2 * HOUR), "in 2 hours");
        assert_eq!(due(5, 0), "due now");
        // To the nearest unit: two days ahead, seen a minute later, is still two days.
        assert_eq!(due(MINUTE, 2 * DAY), "in 2 days");
        assert_eq!(due(0, 59 * MINUTE + 40_000), "in 1 hour");
        assert_eq!(due(0, 23 * HOUR + 40 * MINUTE), "in 1 day");
        assert_eq!(due(0, DAY + 11 * HOUR), "in 1 day");
        assert_eq!(clock(65_000), "01:05");
        assert_eq!(clock(3_725_000), "1:02:05");
        assert_eq!(span(0), "no time");
        assert_eq!(span(25 * MINUTE + 10_000), "25 min");
        assert_eq!(span(HOUR + 5 * MINUTE), "1 h 5 min");
        assert_eq!(span(2 * HOUR), "2 h");
    }
}
