//! Numbers as a learner writes them: digits ("8,849", "1.6", "1870s"), words ("forty-nine",
//! "three hundred thousand", "one point six"), years said in pairs ("ten sixty-six",
//! "fifteen-oh-eight", "two seventy-three"), ordinals ("fourteenth"), and the units after them,
//! so "about two inches" can be compared with "5 centimetres".
//!
//! Long by design: the words for numbers, their units and the tests that read them aloud are
//! one table of how a figure is said.

use std::collections::HashMap;
use std::sync::LazyLock;

/// Converts an amount in some unit to base units (metres, seconds, kelvin, kilograms, m/s,
/// watts, joules, bytes).
pub type ToBase = fn(f64) -> f64;

/// What a quantity measures, for comparing across units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    Length,
    Time,
    Temperature,
    Mass,
    Speed,
    Power,
    Energy,
    /// Bytes ("64B", "4 KB", "a gigabyte" is no amount).
    Data,
    /// A part of a whole: "75%", "75 percent", "three quarters" (a number between 0 and 1 with
    /// no unit reads as one).
    Share,
    /// An angle, in degrees ("one arcsecond", "90 degrees"). Plain "degrees" may mean a
    /// temperature too, so an angle beside a temperature is compared as a number.
    Angle,
}

/// A number, and its value in base units when a unit followed it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantity {
    pub value: f64,
    pub base: Option<(Dimension, f64)>,
    /// How far past `value` a number written as a span reaches: 9 for a decade ("1880s"), 99
    /// for the hundreds ("1700s"), 0 for one number. A year inside it is near, not the same.
    pub span: f64,
    /// Said as rounded ("about 5,730", "roughly 5700"): a large count within 2 % is the same.
    pub approximate: bool,
    /// The third of a span said ("the mid 1400s", "the early 1940s"): its first and last year.
    pub part: Option<(f64, f64)>,
}

impl Quantity {
    /// The same number (whole numbers under 10,000, such as years, exactly; others within 2%),
    /// or the same amount in other units (within 12%: learners round).
    pub fn matches(&self, other: &Quantity) -> bool {
        if self.rough_year_in(other) || other.rough_year_in(self) {
            return true;
        }
        let close = |a: f64, b: f64, tolerance: f64| (a - b).abs() <= tolerance * a.abs().max(b.abs()) + 1e-9;
        let whole = |n: f64| n.fract() == 0.0 && n.abs() < 10_000.0;
        // "in 49" for 1949: a year said by its last two digits.
        let short_year = |year: f64, short: f64| {
            (1000.0..=2100.0).contains(&year) && (0.0..100.0).contains(&short) && year % 100.0 == short
        };
        // "roughly 5700" for "about 5,730": a count past the years, rounded, not a year.
        let rounded = (self.approximate || other.approximate)
            && [self.value, other.value].iter().all(|n| n.abs() > 2100.0)
            && close(self.value, other.value, 0.02);
        let same = if whole(self.value) && whole(other.value) {
            self.value == other.value
                || short_year(self.value, other.value)
                || short_year(other.value, self.value)
                || rounded
        } else {
            close(self.value, other.value, 0.02)
        };
        match (self.base, other.base) {
            // Shares are said to the percent: "40%" is not 45%, "75%" is three quarters.
            (Some((Dimension::Share, a)), Some((Dimension::Share, b))) => close(a, b, 0.02),
            // A part of a unit ("a fifth of a gram" for 0.2 grams): the numbers decide.
            (Some((Dimension::Share, _)), Some(_)) | (Some(_), Some((Dimension::Share, _))) => same,
            // Temperatures from their zero, not absolute zero: "64 °C" is not "about 54.5 °C",
            // though the two are 3 % apart in kelvin. Within two degrees or 5 % ("350 °F" for
            // 180 °C, as ovens are rounded).
            (Some((Dimension::Temperature, a)), Some((Dimension::Temperature, b))) => {
                let (a, b) = (a - ZERO_CELSIUS, b - ZERO_CELSIUS);
                (a - b).abs() <= (0.05 * a.abs().max(b.abs())).max(2.0)
            }
            // "100 degrees" for 100 °C.
            (Some((Dimension::Angle, _)), Some((Dimension::Temperature, _)))
            | (Some((Dimension::Temperature, _)), Some((Dimension::Angle, _))) => same,
            // Both with units: the amounts decide ("150 million miles" is not 150 million km),
            // loosely across units, which are converted and rounded, and closely in one unit
            // ("109.5 degrees" is not "about 104.5 degrees").
            (Some((d1, a)), Some((d2, b))) => {
                let one_unit =
                    self.value != 0.0 && other.value != 0.0 && close(a / self.value, b / other.value, 1e-6);
                d1 == d2 && close(a, b, if one_unit { 0.03 } else { 0.12 })
            }
            (Some(_), None) | (None, Some(_)) | (None, None) => same,
        }
    }
    /// Whether another number could stand in this one's place: the same kind of amount when
    /// both have units, otherwise within a factor of a hundred ("1453" does not answer for the
    /// "One" of "World War One", "1945" does for "1919").
    pub fn comparable(&self, other: &Quantity) -> bool {
        if let (Some((d1, _)), Some((d2, _))) = (self.base, other.base) {
            // A share beside a measured amount ("a fifth of a gram") is compared as a number.
            let share_of_a_unit = (d1 == Dimension::Share) != (d2 == Dimension::Share);
            let degrees = [d1, d2].contains(&Dimension::Angle) && [d1, d2].contains(&Dimension::Temperature);
            if !share_of_a_unit && !degrees {
                return d1 == d2;
            }
        }
        let (a, b) = (self.value.abs(), other.value.abs());
        a.max(b) <= 100.0 * a.min(b).max(1e-9)
    }

    /// Not the same, but close enough to be a near miss: the same number in the wrong unit
    /// ("150 million miles" for 150 million km), a year off by one or two ("September 1938")
    /// or inside the decade said ("the 1880s" for 1884), a year with two of its digits swapped ("1831" for 1813), or another amount within a
    /// tenth ("around 50" for 54).
    pub fn is_near(&self, other: &Quantity) -> bool {
        if self.matches(other) {
            return false;
        }
        if self.spans(other.value) || other.spans(self.value) {
            return true;
        }
        let year = |n: f64| n.fract() == 0.0 && (1000.0..=2100.0).contains(&n);
        if year(self.value) && year(other.value) {
            return (self.value - other.value).abs() <= 2.0 || swapped_digits(self.value, other.value);
        }
        self.value == other.value
            || (self.value - other.value).abs() <= 0.1 * self.value.abs().max(other.value.abs())
    }

    /// Whether this is a year said roughly ("around 1450") that falls in the part of a span
    /// `said` names: a decade ("the 1450s") or a third of one or of a century ("the mid
    /// 1400s"). A whole century says no rough year.
    fn rough_year_in(&self, said: &Quantity) -> bool {
        let window = said.part.or((said.span == 9.0).then_some((said.value, said.value + said.span)));
        self.approximate
            && self.base.is_none()
            && said.base.is_none()
            && self.span == 0.0
            && window.is_some_and(|(first, last)| (first..=last).contains(&self.value))
    }

    /// Whether this number, written as a span, takes in a year (or its last two digits): "the
    /// 1880s" takes in 1884 and "85". Near, not the same: the year is the answer.
    pub fn spans(&self, year: f64) -> bool {
        let year = if self.value >= 1000.0 && (0.0..100.0).contains(&year) {
            self.value - self.value % 100.0 + year
        } else {
            year
        };
        self.span > 0.0 && year.fract() == 0.0 && (self.value..=self.value + self.span).contains(&year)
    }
}

/// Whether two whole numbers differ only by two neighbouring digits trading places.
fn swapped_digits(a: f64, b: f64) -> bool {
    let (a, b): (Vec<char>, Vec<char>) =
        (format!("{a:.0}").chars().collect(), format!("{b:.0}").chars().collect());
    let differ: Vec<usize> = (0..a.len().min(b.len())).filter(|i| a[*i] != b[*i]).collect();
    a.len() == b.len()
        && matches!(differ.as_slice(), [i, j] if *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i])
}

/// 0 °C in kelvin, the base temperatures are compared in.
const ZERO_CELSIUS: f64 = 273.15;
/// A year in seconds (365.25 days), the base unit of time.
const YEAR: f64 = 365.25 * 86400.0;

/// Words for numbers, with what they are.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Word {
    /// 0..=9 (also "oh" inside a year).
    Unit(u32),
    /// 10..=19.
    Teen(u32),
    /// 20, 30, … 90.
    Tens(u32),
    Hundred,
    Scale(f64),
    Point,
}

/// The words for 0 to 99 that stand alone, with what they are, looked up once for every word
/// of every text the judges read.
static NUMBER_WORDS: LazyLock<HashMap<&'static str, Word>> = LazyLock::new(|| {
    // Each list in order of value, as one line of words; ordinals read as their numbers.
    // What the nth word of a list stands for.
    type Nth = fn(u32) -> Word;
    let lists: [(&str, Nth); 6] = [
        ("zero one two three four five six seven eight nine", Word::Unit),
        ("ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen", |n| {
            Word::Teen(10 + n)
        }),
        ("twenty thirty forty fifty sixty seventy eighty ninety", |n| Word::Tens(20 + 10 * n)),
        // "zeroth" is no number a learner says.
        ("- first second third fourth fifth sixth seventh eighth ninth", Word::Unit),
        (
            "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth",
            |n| Word::Teen(10 + n),
        ),
        ("twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth", |n| {
            Word::Tens(20 + 10 * n)
        }),
    ];
    let mut map = HashMap::new();
    for (list, what) in lists {
        for (n, w) in (0u32..).zip(list.split(' ')) {
            map.insert(w, what(n));
        }
    }
    map.remove("-");
    map
});

fn word(w: &str) -> Option<Word> {
    if let Some(word) = NUMBER_WORDS.get(w) {
        return Some(*word);
    }
    match w {
        "hundred" | "hundredth" => Some(Word::Hundred),
        "thousand" | "thousandth" => Some(Word::Scale(1e3)),
        "million" | "millionth" => Some(Word::Scale(1e6)),
        "billion" => Some(Word::Scale(1e9)),
        "trillion" => Some(Word::Scale(1e12)),
        "point" => Some(Word::Point),
        _ => None,
    }
}

/// The first year of a century named by its ordinal ("18th century" is 1700, as "the
/// seventeen hundreds" and "1700s" are), when `rest`, the words after the number, say
/// "century", directly or after a range's other end ("14th and 15th centuries", "late 19th and
/// early 20th centuries"). Centuries after a number that is no `ordinal` are counted ("five
/// centuries", 500 years).
pub fn century_start(value: f64, ordinal: bool, rest: &[&str]) -> Option<f64> {
    let is_century = |w: &&str| matches!(*w, "century" | "centuries" | "c");
    let names_century = match rest {
        ["centuries", ..] => ordinal,
        [w, ..] if is_century(w) => true,
        [joint, more @ ..] if matches!(*joint, "to" | "and" | "or" | "-") => {
            let more = match more {
                [w, tail @ ..] if matches!(*w, "early" | "mid" | "late") => tail,
                _ => more,
            };
            read(more).is_some_and(|(_, n)| more.get(n).is_some_and(is_century))
        }
        _ => false,
    };
    (names_century && value.fract() == 0.0 && (1.0..=21.0).contains(&value)).then_some((value - 1.0) * 100.0)
}

/// Whether the last word of a number makes it an ordinal: "15th", "fifteenth", "twenty-first".
pub fn is_ordinal(number: &str) -> bool {
    let last = number.rsplit([' ', '-']).next().unwrap_or(number);
    let by_digits = ["st", "nd", "rd", "th"].iter().any(|end| {
        last.strip_suffix(end).is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    by_digits
        || matches!(last, "first" | "second" | "third")
        || (last.ends_with("th") && word(last).is_some())
}

/// A number written in digits: "8,849", "-273.15", "1870s", an ordinal ("14th", "21st");
/// "49bc" is not one.
fn digits(w: &str) -> Option<f64> {
    let ordinal = ["st", "nd", "rd", "th"].iter().find_map(|end| {
        w.strip_suffix(end).filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
    });
    let w = ordinal.unwrap_or(w);
    let w = w.strip_suffix('s').filter(|d| d.len() == 4 || hundreds_of_years(d)).unwrap_or(w);
    // "100k", "300k": thousands, as learners write them.
    let (w, scale) = match w.strip_suffix('k') {
        Some(d) if d.chars().next().is_some_and(|c| c.is_ascii_digit()) => (d, 1e3),
        _ => (w, 1.0),
    };
    let w = w.replace(',', "");
    if w.is_empty() || !w.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    // A fraction: "1/2" is 0.5 ("0.5" says it). Only a proper one: "24/7" is no amount.
    if let Some((top, bottom)) = w.split_once('/') {
        let whole = |d: &str| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit());
        if !whole(top) || !whole(bottom) {
            return None;
        }
        let (top, bottom) = (top.parse::<f64>().ok()?, bottom.parse::<f64>().ok()?);
        return (top > 0.0 && top < bottom).then_some(top / bottom);
    }
    w.parse::<f64>().ok().map(|n| n * scale).filter(|n| n.is_finite())
}

/// Whether three digits before an "s" name the hundreds of a century before the year 1000
/// ("the 900s", the tenth century), not hundreds of things ("100s of them").
fn hundreds_of_years(digits: &str) -> bool {
    digits.len() == 3
        && digits.ends_with("00")
        && digits.chars().all(|c| c.is_ascii_digit())
        && !digits.starts_with('1')
}

/// How far past its value a number written as a span reaches: a decade ("1880s") 9 years, the
/// hundreds ("1700s", "the 900s") 99; any other number 0.
pub fn span(word: &str) -> f64 {
    match word.strip_suffix('s') {
        Some(d) if hundreds_of_years(d) => 99.0,
        Some(d) if d.len() == 4 && d.chars().all(|c| c.is_ascii_digit()) && d.ends_with("00") => 99.0,
        Some(d) if d.len() == 4 && d.chars().all(|c| c.is_ascii_digit()) && d.ends_with('0') => 9.0,
        _ => 0.0,
    }
}

/// Reads a number at the start of `words`; returns it and how many words it took.
pub fn read(words: &[&str]) -> Option<(f64, usize)> {
    let first = *words.first()?;
    let (negative, start) = if matches!(first, "minus" | "negative") { (true, 1) } else { (false, 0) };
    let (mut value, mut used) = if let Some(n) = words.get(start).and_then(|w| digits(w)) {
        (n, start + 1)
    } else if let Some(value) = a_part(&words[start..]) {
        (value, start + 2)
    } else if let Some((value, used)) = one_of_a_unit(words) {
        (value, used)
    } else {
        spelled(&words[start..]).map(|(n, k)| (n, start + k))?
    };
    // "4 and a half billion", "two and a half", "three and a quarter", "two and three quarters".
    if words.get(used) == Some(&"and")
        && value.fract() == 0.0
        && let Some(part) = words.get(used + 1..).and_then(a_part)
    {
        value += part;
        used += 3;
    }
    // "two-thirds", "four fifths": a fraction, as "2/3" is. (Not quarters: "two quarters in a
    // row" are half a year.)
    if let Some(parts) = words.get(used).and_then(|w| denominator(w.strip_suffix('s').unwrap_or(w)))
        && value >= 1.0
        && value < parts
        && value.fract() == 0.0
    {
        value /= parts;
        used += 1;
    }
    // "one in three", "1 in 10", "2 out of every 3": a part, as "a third" and "1/10" are.
    let per = match words.get(used..).unwrap_or_default() {
        ["in", "every", ..] => 2,
        ["in", ..] => 1,
        ["out", "of", "every", ..] => 3,
        ["out", "of", ..] => 2,
        _ => 0,
    };
    if per > 0
        && let Some((whole, n)) = words
            .get(used + per..)
            .and_then(|rest| rest.first().and_then(|w| digits(w)).map(|d| (d, 1)).or_else(|| spelled(rest)))
        && value >= 1.0
        && value < whole
        && whole <= 1000.0
        && value.fract() == 0.0
        && whole.fract() == 0.0
    {
        value /= whole;
        used += per + n;
    }
    // "150 million", "3 thousand"; after a number, as learners shorten them, "66 mil", "4.5 bn".
    let shortened = |w: &str| match w {
        "mil" | "mill" | "mn" => Some(Word::Scale(1e6)),
        "bn" | "bil" => Some(Word::Scale(1e9)),
        _ => None,
    };
    if let Some(Word::Scale(scale)) = words.get(used).and_then(|w| word(w).or_else(|| shortened(w))) {
        value *= scale;
        used += 1;
    }
    Some((if negative { -value } else { value }, used))
}

/// "A quarter", "one third", "three quarters": a part of a whole, as "1/4", "1/3" and "3/4"
/// are. ("Two quarters" in a row are half a year, no amount.)
fn a_part(words: &[&str]) -> Option<f64> {
    // "A third confounding variable" counts things, as "the third" does: a part is "of"
    // something, or more or less, or stands last.
    const AFTER_A_PART: &[&str] =
        &["of", "more", "less", "fewer", "as", "the", "are", "were", "is", "was", "and", "or", "to"];
    if let ["a" | "an", part, next, ..] = words
        && denominator(part).is_some()
        && next.chars().all(char::is_alphabetic)
        && !AFTER_A_PART.contains(next)
    {
        return None;
    }
    let (count, parts) = match words {
        ["a" | "an" | "one", part, ..] => (
            1.0,
            match *part {
                "half" => 2.0,
                "quarter" => 4.0,
                part => denominator(part)?,
            },
        ),
        ["three", "quarters", ..] => (3.0, 4.0),
        _ => return None,
    };
    Some(count / parts)
}

/// The parts a whole is cut into, by the name of one of them: "third" is 3. (Halves and
/// quarters are left to the caller: "two quarters" in a row are half a year, no amount.)
fn denominator(part: &str) -> Option<f64> {
    match part {
        "third" => Some(3.0),
        "fifth" => Some(5.0),
        "sixth" => Some(6.0),
        "eighth" => Some(8.0),
        "tenth" => Some(10.0),
        _ => None,
    }
}

/// "An hour", "a day": one of the unit; "half an hour": half of it. The unit follows.
fn one_of_a_unit(words: &[&str]) -> Option<(f64, usize)> {
    let (value, article) = match words {
        ["half", ..] => (0.5, 1),
        [_, ..] => (1.0, 0),
        [] => return None,
    };
    let unit = words.get(article + 1)?;
    let is_article = matches!(words.get(article).copied(), Some("a" | "an"));
    (is_article && matches!(*unit, "minute" | "hour" | "day")).then_some((value, article + 1))
}

/// A number in words.
fn spelled(words: &[&str]) -> Option<(f64, usize)> {
    // The run of number words ("a" and "and" inside it count when a hundred or more follows or
    // precedes; "oh" inside a year).
    let mut run: Vec<Word> = Vec::new();
    let mut used = 0;
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).and_then(|n| word(n));
        let item = match (*w, word(w)) {
            (_, Some(item)) => item,
            ("a", _) if matches!(next, Some(Word::Hundred | Word::Scale(_))) && run.is_empty() => {
                Word::Unit(1)
            }
            ("and", _) if matches!(run.last(), Some(Word::Hundred | Word::Scale(_))) && next.is_some() => {
                used = i + 1;
                continue;
            }
            ("oh", _) if !run.is_empty() && matches!(next, Some(Word::Unit(_))) => Word::Unit(0),
            // "the seventeen hundreds", a century; "hundreds" alone is no number.
            ("hundreds", _) if !run.is_empty() => Word::Hundred,
            _ => break,
        };
        // After "point" come single digits; a scale ("three point two million") is read by
        // the caller.
        if run.contains(&Word::Point) && !matches!(item, Word::Unit(_)) {
            break;
        }
        run.push(item);
        used = i + 1;
        // An ordinal ends its number: "the first six months" are six.
        if is_ordinal(w) {
            break;
        }
    }
    if run.is_empty() || matches!(run.as_slice(), [Word::Point, ..]) {
        return None;
    }
    let (whole, decimals) = match run.iter().position(|w| *w == Word::Point) {
        Some(at) => (&run[..at], &run[at + 1..]),
        None => (&run[..], &run[..0]),
    };
    let mut value = integer(whole)?;
    let mut scale = 0.1;
    for digit in decimals {
        let Word::Unit(d) = digit else { break };
        value += f64::from(*d) * scale;
        scale /= 10.0;
    }
    Some((value, used))
}

/// The whole part: "three hundred thousand", or two pairs said as a year ("nineteen forty-five").
fn integer(run: &[Word]) -> Option<f64> {
    let plain = run.iter().all(|w| matches!(w, Word::Unit(_) | Word::Teen(_) | Word::Tens(_)));
    if plain {
        let pairs = pairs(run);
        return match pairs.as_slice() {
            [one] => Some(f64::from(*one)),
            // "ten sixty-six", "two seventy-three", "fifteen oh eight".
            [high, low] => Some(f64::from(high * 100 + low)),
            _ => pairs.first().map(|n| f64::from(*n)),
        };
    }
    let (mut total, mut current) = (0.0, 0.0);
    for w in run {
        match *w {
            Word::Unit(n) | Word::Teen(n) | Word::Tens(n) => current += f64::from(n),
            Word::Hundred => current = current.max(1.0) * 100.0,
            Word::Scale(scale) => {
                total += current.max(1.0) * scale;
                current = 0.0;
            }
            Word::Point => break,
        }
    }
    Some(total + current)
}

/// Numbers below a hundred in a run: "forty nine" is one, "nineteen forty five" two.
fn pairs(run: &[Word]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < run.len() {
        match (run[i], run.get(i + 1)) {
            (Word::Tens(t), Some(Word::Unit(u))) if *u > 0 => {
                out.push(t + u);
                i += 2;
            }
            // "oh eight" after a pair: 08.
            (Word::Unit(0), Some(Word::Unit(u))) if !out.is_empty() => {
                out.push(*u);
                i += 2;
            }
            (Word::Unit(n) | Word::Teen(n) | Word::Tens(n), _) => {
                out.push(n);
                i += 1;
            }
            (Word::Hundred | Word::Scale(_) | Word::Point, _) => break,
        }
    }
    out
}

/// The unit at the start of `words`, if one: its dimension, how to convert to base units, and
/// how many words it took.
pub fn unit(words: &[&str]) -> Option<(Dimension, ToBase, usize)> {
    let first = *words.first()?;
    // "degrees celsius", "degrees fahrenheit"; plain "degrees" is an angle (or a temperature).
    if matches!(first, "degree" | "degrees" | "deg") {
        return unit(&words[1..])
            .filter(|(d, _, _)| *d == Dimension::Temperature)
            .map(|(d, f, n)| (d, f, n + 1))
            .or(Some((Dimension::Angle, |x| x, 1)));
    }
    let length: Option<ToBase> = match first {
        "km" | "kilometre" | "kilometres" | "kilometer" | "kilometers" => Some(|x| x * 1000.0),
        "m" | "metre" | "metres" | "meter" | "meters" => Some(|x| x),
        "cm" | "centimetre" | "centimetres" | "centimeter" | "centimeters" => Some(|x| x * 0.01),
        "mm" | "millimetre" | "millimetres" | "millimeter" | "millimeters" => Some(|x| x * 0.001),
        "mile" | "miles" | "mi" => Some(|x| x * 1609.34),
        "foot" | "feet" | "ft" => Some(|x| x * 0.3048),
        "inch" | "inches" | "in" => Some(|x| x * 0.0254),
        _ => None,
    };
    if let Some(to_base) = length {
        // "km/h", "km per hour", "miles an hour": a speed, in metres per second.
        let is_hour = |w: &&str| matches!(*w, "h" | "hr" | "hour");
        let hour = match &words[1..] {
            [h, ..] if is_hour(h) => Some(2),
            [per, h, ..] if matches!(*per, "per" | "an" | "a") && is_hour(h) => Some(3),
            _ => None,
        };
        return Some(match hour {
            Some(used) => {
                (Dimension::Speed, if to_base(1.0) > 1000.0 { |x| x * 0.44704 } else { |x| x / 3.6 }, used)
            }
            None => (Dimension::Length, to_base, 1),
        });
    }
    let (dimension, to_base): (Dimension, ToBase) = match first {
        "s" | "sec" | "secs" | "second" | "seconds" => (Dimension::Time, |x| x),
        "min" | "mins" | "minute" | "minutes" => (Dimension::Time, |x| x * 60.0),
        "h" | "hr" | "hrs" | "hour" | "hours" => (Dimension::Time, |x| x * 3600.0),
        "day" | "days" => (Dimension::Time, |x| x * 86400.0),
        "week" | "weeks" | "wk" | "wks" => (Dimension::Time, |x| x * 7.0 * 86400.0),
        "month" | "months" => (Dimension::Time, |x| x * YEAR / 12.0),
        "year" | "years" | "yr" | "yrs" => (Dimension::Time, |x| x * YEAR),
        "decade" | "decades" => (Dimension::Time, |x| x * 10.0 * YEAR),
        "century" | "centuries" => (Dimension::Time, |x| x * 100.0 * YEAR),
        "millennium" | "millennia" => (Dimension::Time, |x| x * 1000.0 * YEAR),
        "c" | "celsius" | "centigrade" => (Dimension::Temperature, |x| x + ZERO_CELSIUS),
        "f" | "fahrenheit" => (Dimension::Temperature, |x| (x - 32.0) * 5.0 / 9.0 + ZERO_CELSIUS),
        "k" | "kelvin" | "kelvins" => (Dimension::Temperature, |x| x),
        "kg" | "kilogram" | "kilograms" | "kilo" | "kilos" => (Dimension::Mass, |x| x),
        "g" | "gram" | "grams" => (Dimension::Mass, |x| x * 0.001),
        "lb" | "lbs" | "pound" | "pounds" => (Dimension::Mass, |x| x * 0.4536),
        "mph" => (Dimension::Speed, |x| x * 0.44704),
        "kph" | "kmh" => (Dimension::Speed, |x| x / 3.6),
        "w" | "watt" | "watts" => (Dimension::Power, |x| x),
        "kw" | "kilowatt" | "kilowatts" => (Dimension::Power, |x| x * 1e3),
        "j" | "joule" | "joules" => (Dimension::Energy, |x| x),
        "kj" | "kilojoule" | "kilojoules" => (Dimension::Energy, |x| x * 1e3),
        "kwh" => (Dimension::Energy, |x| x * 3.6e6),
        // Learners take a kilobyte as 1,000 bytes or 1,024: the 12 % tolerance holds both.
        "b" | "byte" | "bytes" => (Dimension::Data, |x| x),
        "kb" | "kilobyte" | "kilobytes" => (Dimension::Data, |x| x * 1e3),
        "mb" | "megabyte" | "megabytes" => (Dimension::Data, |x| x * 1e6),
        "gb" | "gigabyte" | "gigabytes" => (Dimension::Data, |x| x * 1e9),
        "tb" | "terabyte" | "terabytes" => (Dimension::Data, |x| x * 1e12),
        "%" | "percent" => (Dimension::Share, |x| x / 100.0),
        "arcminute" | "arcminutes" | "arcmin" => (Dimension::Angle, |x| x / 60.0),
        "arcsecond" | "arcseconds" | "arcsec" => (Dimension::Angle, |x| x / 3600.0),
        "radian" | "radians" | "rad" => (Dimension::Angle, |x| x.to_degrees()),
        "per" if words.get(1) == Some(&"cent") => return Some((Dimension::Share, |x| x / 100.0, 2)),
        _ => return None,
    };
    Some((dimension, to_base, 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn number(text: &str) -> Option<f64> {
        let words: Vec<&str> = text.split([' ', '-']).collect();
        read(&words).map(|(n, _)| n)
    }

    #[test]
    fn a_part_of_a_whole_is_one_amount_however_it_is_said() {
        let third = 1.0 / 3.0;
        for said in [
            "1/3",
            "a third",
            "one third",
            "one in three",
            "1 in 3",
            "a third of them",
            "a third more",
            "1 out of 3",
            "one in every three",
        ] {
            assert_eq!(number(said), Some(third), "{said}");
        }
        for said in ["a third confounding variable", "a fifth element"] {
            assert_ne!(number(said), Some(third), "{said}");
        }
        assert_eq!(number("two-thirds"), Some(2.0 / 3.0));
        assert_eq!(number("2 out of every 3"), Some(2.0 / 3.0));
        assert_eq!(number("three quarters"), Some(0.75));
        assert_eq!(number("an eighth"), Some(0.125));
        assert_eq!(number("1/2"), Some(0.5));
        // Not a proper part: "24/7", "two quarters" in a row, "2 in 1990".
        assert_eq!(number("24/7"), None);
        assert_eq!(number("two quarters"), Some(2.0));
        assert_eq!(number("2 in 1990"), Some(2.0));
    }

    #[test]
    fn numbers_in_words_and_digits() {
        assert_eq!(number("forty-nine"), Some(49.0));
        assert_eq!(number("three hundred thousand"), Some(300_000.0));
        assert_eq!(number("300k"), Some(300_000.0));
        assert_eq!(number("4 and a half billion"), Some(4.5e9));
        assert_eq!(number("two and a half"), Some(2.5));
        assert_eq!(number("three and a quarter"), Some(3.25));
        assert_eq!(number("two and three quarters"), Some(2.75));
        assert_eq!(number("one and a third"), Some(1.0 + 1.0 / 3.0));
        assert_eq!(number("an hour"), Some(1.0));
        assert_eq!(number("half an hour"), Some(0.5));
        assert_eq!(number("a second"), None);
        assert_eq!(number("a while"), None);
        assert_eq!(number("a hundred and five"), Some(105.0));
        assert_eq!(number("one point six"), Some(1.6));
        assert_eq!(number("ten sixty-six"), Some(1066.0));
        assert_eq!(number("nineteen forty-five"), Some(1945.0));
        assert_eq!(number("fifteen oh eight"), Some(1508.0));
        assert_eq!(
            number("minus two seventy-three point one five").map(|n| (n * 100.0).round()),
            Some(-27315.0)
        );
        assert_eq!(number("fourteenth"), Some(14.0));
        assert_eq!(number("14th"), Some(14.0));
        assert_eq!(number("21st"), Some(21.0));
        assert_eq!(number("3rd"), Some(3.0));
        assert_eq!(number("5th-century"), Some(5.0));
        assert_eq!(century_start(18.0, true, &["century"]), Some(1700.0));
        assert_eq!(number("seventeen hundreds"), Some(1700.0));
        assert_eq!(number("hundreds"), None);
        assert_eq!(century_start(14.0, true, &["and", "15th", "centuries"]), Some(1300.0));
        assert_eq!(century_start(19.0, true, &["and", "early", "20th", "centuries"]), Some(1800.0));
        assert_eq!(century_start(14.0, true, &["july"]), None);
        assert_eq!(century_start(1700.0, true, &["century"]), None);
        assert_eq!(century_start(15.0, true, &["centuries"]), Some(1400.0));
        assert_eq!(century_start(5.0, false, &["centuries"]), None, "five centuries are 500 years");
        assert!(
            is_ordinal("15th")
                && is_ordinal("fifteenth")
                && is_ordinal("twenty-first")
                && !is_ordinal("five")
        );
        assert_eq!(number("8,849"), Some(8849.0));
        assert_eq!(number("150 million"), Some(150e6));
        assert_eq!(number("three point two million").map(|n| n.round()), Some(3.2e6));
        assert_eq!(number("1870s"), Some(1870.0));
        assert_eq!((number("900s"), span("900s")), (Some(900.0), 99.0));
        assert_eq!((number("100s"), span("100s")), (None, 0.0));
        assert_eq!(number("sixty and a hundred"), Some(60.0));
        assert_eq!(number("nothing here"), None);
    }

    #[test]
    fn a_year_off_by_a_little_or_with_two_digits_swapped_is_near() {
        let year = |value: f64| Quantity { value, base: None, span: 0.0, approximate: false, part: None };
        assert!(year(1831.0).is_near(&year(1813.0)));
        assert!(year(1812.0).is_near(&year(1813.0)));
        assert!(!year(1913.0).is_near(&year(1813.0)));
        assert!(!year(1318.0).is_near(&year(1813.0)), "digits apart trading places are another year");
        assert!(!year(1813.0).is_near(&year(1813.0)), "the same year is no miss");
    }

    #[test]
    fn a_large_count_said_as_rounded_is_the_same_a_year_is_not() {
        let count = |value: f64, approximate: bool| Quantity {
            value,
            base: None,
            span: 0.0,
            approximate,
            part: None,
        };
        assert!(count(5700.0, true).matches(&count(5730.0, false)));
        assert!(count(5730.0, true).matches(&count(5700.0, true)));
        assert!(!count(5700.0, false).matches(&count(5730.0, false)), "unrounded counts are said exactly");
        assert!(!count(6000.0, true).matches(&count(5730.0, true)), "rounded further is another count");
        assert!(!count(1066.0, true).matches(&count(1070.0, true)), "a year is said exactly");
    }

    #[test]
    fn amounts_compare_across_units() {
        let q = |value: f64, unit_words: &str| {
            let words: Vec<&str> = unit_words.split(' ').collect();
            let base = unit(&words).map(|(d, f, _)| (d, f(value)));
            Quantity { value, base, span: 0.0, approximate: false, part: None }
        };
        assert!(q(2.0, "inches").matches(&q(5.0, "centimetres")));
        assert!(q(200.0, "fahrenheit").matches(&q(93.0, "°c".trim_start_matches('°'))));
        assert!(q(480.0, "seconds").matches(&q(8.0, "minutes")));
        assert!(q(8.9, "km").matches(&q(8849.0, "metres")));
        assert!(q(70.0, "mph").matches(&q(112.0, "km per hour")));
        assert!(q(1000.0, "watts").matches(&q(1.0, "kw")));
        assert!(q(1.0, "kwh").matches(&q(3600.0, "kj")));
        assert!(!q(90.0, "degrees").matches(&q(100.0, "degrees celsius")));
        assert!(q(100.0, "degrees").matches(&q(100.0, "degrees celsius")), "plain degrees, warm");
        assert!(!q(1.0, "degree").matches(&q(1.0, "arcsecond")));
        assert!(q(1.0, "degree").is_near(&q(1.0, "arcsecond")), "the same number in another unit");
        assert!(q(3600.0, "arcseconds").matches(&q(1.0, "degree")));
        assert!(q(std::f64::consts::PI, "radians").matches(&q(180.0, "degrees")));
        assert!(q(350.0, "fahrenheit").matches(&q(180.0, "celsius")), "ovens are rounded");
        assert!(!q(64.0, "celsius").matches(&q(54.5, "celsius")), "from 0 °C, not absolute zero");
        assert!(!q(1945.0, "").matches(&q(1919.0, "")));
        assert!(q(1945.0, "").comparable(&q(1919.0, "")));
        assert!(!q(1453.0, "").comparable(&q(1.0, "")));
        assert!(q(150.0, "miles").comparable(&q(150.0, "km")));
        assert!(!q(5.0, "minutes").comparable(&q(5.0, "km")));
    }
}
