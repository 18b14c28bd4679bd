//! The quantities an equation names by their usual symbols: "V = IR" says voltage, current
//! and resistance; "F = ma" force, mass and acceleration. A learner writes the formula where
//! the point spells it out ("voltage equals current multiplied by resistance").

/// Usual symbols, case and all, and the quantities each stands for in school science and
/// maths. A symbol of several (P for power or pressure) says each: the point decides.
const SYMBOLS: &[(char, &[&str])] = &[
    ('A', &["area"]),
    ('a', &["acceleration"]),
    ('d', &["distance"]),
    ('E', &["energy"]),
    ('F', &["force"]),
    ('f', &["frequency"]),
    ('g', &["gravity"]),
    ('h', &["height"]),
    ('I', &["current"]),
    ('m', &["mass"]),
    ('P', &["power", "pressure"]),
    ('p', &["momentum"]),
    ('Q', &["charge"]),
    ('R', &["resistance"]),
    ('r', &["radius"]),
    ('s', &["displacement"]),
    ('T', &["temperature", "period"]),
    ('t', &["time"]),
    ('V', &["voltage", "volume"]),
    ('v', &["velocity", "speed"]),
    ('W', &["work"]),
    ('λ', &["wavelength"]),
    ('ρ', &["density"]),
];

/// A run of letters longer than this is a word ("mass = …"), not a product of symbols ("mc").
const LONGEST_RUN: usize = 3;

/// The quantities named by the symbols of each equation in `text`: a run of formula-like
/// words ("V = IR", "v = f × λ") with "=" in it. "P(A)" is a probability, its event no
/// quantity.
pub fn quantities(text: &str) -> Vec<&'static str> {
    equations(text).iter().flat_map(|e| symbols(e)).collect()
}

/// The equations in `text`, each written without spaces ("V=IR").
fn equations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut equation: Vec<String> = Vec::new();
    let words = text.split_whitespace().map(|w| w.trim_end_matches([',', '.', ';', ':', '?', '!']));
    for word in words.chain(std::iter::once("")) {
        if !word.is_empty() && is_formula_like(word) {
            equation.push(without_functions(word));
            continue;
        }
        if equation.iter().any(|w| w.contains('=')) {
            out.push(equation.concat());
        }
        equation.clear();
    }
    out
}

/// A word of an equation without the names of functions in it: "sin 30° = 1/2" names no
/// displacement, "sin²θ" no displacement, current or "n".
fn without_functions(word: &str) -> String {
    const FUNCTIONS: &[&str] = &["sin", "cos", "tan", "sec", "csc", "cot", "log", "ln", "exp"];
    let mut out = String::new();
    let mut run = String::new();
    for c in word.chars().chain(std::iter::once(' ')) {
        if c.is_alphabetic() {
            run.push(c);
            continue;
        }
        if !FUNCTIONS.contains(&run.as_str()) {
            out.push_str(&run);
        }
        run.clear();
        if c != ' ' {
            out.push(c);
        }
    }
    out
}

/// Whether a word can be part of an equation: no run of letters longer than a few, and not
/// a small word of English ("so", "is").
fn is_formula_like(word: &str) -> bool {
    let mut run = 0;
    for c in word.chars() {
        run = if c.is_alphabetic() { run + 1 } else { 0 };
        if run > LONGEST_RUN {
            return false;
        }
    }
    let lower = word.to_lowercase();
    word.chars().count() == 1 || !(crate::text::is_stopword(&lower) || matches!(lower.as_str(), "so" | "ok"))
}

/// The operations of the equations in `text`, each once, as the signs "+", "−", "×", "÷"
/// ("*" is "×"; "-" and "/" stay unread: they are also "12-24" and "km/h").
pub fn operations(text: &str) -> Vec<char> {
    let mut out = Vec::new();
    for equation in equations(text) {
        for c in equation.chars() {
            let sign = match c {
                '+' => '+',
                '−' => '−',
                '×' | '*' | '·' => '×',
                '÷' => '÷',
                _ => continue,
            };
            if !out.contains(&sign) {
                out.push(sign);
            }
        }
    }
    out
}

/// The quantities an equation's symbols stand for, in order.
fn symbols(equation: &str) -> Vec<&'static str> {
    let chars: Vec<char> = equation.chars().collect();
    let mut out = Vec::new();
    // Letters inside a function's brackets ("P(A and B)") are its arguments.
    let mut depth = 0usize;
    for (i, c) in chars.iter().enumerate() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            _ if chars.get(i + 1) == Some(&'(') => {
                if *c == 'P' {
                    out.push("probability");
                }
            }
            _ => {
                if let Some((_, names)) = SYMBOLS.iter().find(|(symbol, _)| symbol == c) {
                    out.extend(names.iter().copied());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_equations_symbols_name_their_quantities_prose_names_none() {
        assert_eq!(quantities("V = IR"), ["voltage", "volume", "current", "resistance"]);
        assert_eq!(
            quantities("Force equals mass times acceleration, F = ma."),
            ["force", "mass", "acceleration"]
        );
        assert_eq!(
            quantities("v = fλ, so a longer wavelength"),
            ["velocity", "speed", "frequency", "wavelength"]
        );
        assert_eq!(quantities("P(A') = 1 − P(A)"), ["probability", "probability"]);
        assert_eq!(quantities("force = mass x acceleration"), Vec::<&str>::new());
        assert_eq!(quantities("I think it's voltage over current"), Vec::<&str>::new());
        assert_eq!(quantities("so I guess V = I × R, right"), ["voltage", "volume", "current", "resistance"]);
        assert_eq!(quantities("the answer is 2 + 2 = 4"), Vec::<&str>::new());
        // A function's name is no product of symbols.
        assert_eq!(quantities("sin 30° = 1/2"), Vec::<&str>::new());
        assert_eq!(quantities("sin²θ + cos²θ = 1"), Vec::<&str>::new());
    }

    #[test]
    fn an_equations_operations_are_its_signs() {
        assert_eq!(operations("so P(A and B) = P(A) + P(B), I think"), ['+']);
        assert_eq!(operations("F = m * a, and E = mc² + 0"), ['×', '+']);
        assert_eq!(operations("three times a day, 12-24 hours"), Vec::<char>::new());
    }
}
