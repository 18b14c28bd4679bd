//! Orders of growth, as a learner writes or says them: "O(log n)", "Θ(n²)", "n log n",
//! "linear time", "quadratic". Two texts that name different orders disagree on a fact as
//! surely as two different numbers do ("O(n)" for binary search's O(log n)).

/// An order of growth, from slowest to fastest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Order {
    Constant,
    Logarithmic,
    Linear,
    Linearithmic,
    Quadratic,
    Cubic,
    Exponential,
    Factorial,
}

/// The orders of growth `text` names: in notation (O, Θ, Ω, "big O of") or in words next to
/// "time", "space", "grows" or "cost" ("linear time", "grows quadratically").
pub fn orders(text: &str) -> Vec<Order> {
    let lower = text.to_lowercase().replace(['θ', 'ω', 'Θ', 'Ω'], "o");
    let mut found = Vec::new();
    // Notation: "o(" up to its closing bracket.
    let mut rest = lower.as_str();
    while let Some(at) = rest.find("o(") {
        let opens_word = rest[..at].chars().last().is_none_or(|c| !c.is_alphanumeric());
        let inner = &rest[at + 2..];
        let Some(close) = inner.find(')').map(|c| c + usize::from(inner[..c].contains('('))) else { break };
        let close = close.min(inner.len());
        if opens_word {
            found.extend(inside(&inner[..close]));
        }
        rest = &inner[close..];
    }
    // "big o of n log n", "order n squared", spoken.
    for lead in ["big o of ", "o of ", "order of "] {
        let mut rest = lower.as_str();
        while let Some(at) = rest.find(lead) {
            let opens_word = rest[..at].chars().last().is_none_or(|c| !c.is_alphanumeric());
            let after = &rest[at + lead.len()..];
            let phrase: String = after.split([',', '.', ';', '?', '!']).next().unwrap_or_default().into();
            if opens_word {
                found.extend(inside(&phrase.split_whitespace().take(3).collect::<Vec<_>>().join(" ")));
            }
            rest = after;
        }
    }
    // Words: only beside what grows, so "linear perspective" is no order.
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    const GROWS: &[&str] =
        &["time", "space", "grows", "growth", "cost", "costs", "runtime", "complexity", "scales"];
    for (i, w) in words.iter().enumerate() {
        let order = match *w {
            "constant" => Order::Constant,
            "logarithmic" | "logarithmically" => Order::Logarithmic,
            "linear" | "linearly" => Order::Linear,
            "linearithmic" => Order::Linearithmic,
            "quadratic" | "quadratically" => Order::Quadratic,
            "cubic" => Order::Cubic,
            "exponential" | "exponentially" => Order::Exponential,
            "factorial" => Order::Factorial,
            _ => continue,
        };
        let near = words[i.saturating_sub(3)..(i + 3).min(words.len())].iter().any(|n| GROWS.contains(n));
        if near {
            found.push(order);
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The order inside "O(…)" or after "O of": "log n", "n log n", "n^2", "n²", "n squared", "1".
fn inside(expression: &str) -> Option<Order> {
    let e: String = expression
        .replace("squared", "^2")
        .replace("cubed", "^3")
        .replace('²', "^2")
        .replace('³', "^3")
        .replace("log2", "log")
        .replace("lg", "log")
        .replace(['(', ')', '*', '·', ' '], "");
    Some(match e.as_str() {
        "1" | "one" | "constant" => Order::Constant,
        "logn" => Order::Logarithmic,
        "n" => Order::Linear,
        "nlogn" => Order::Linearithmic,
        "n^2" | "nn" => Order::Quadratic,
        "n^3" => Order::Cubic,
        "2^n" => Order::Exponential,
        "n!" => Order::Factorial,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::{Order::*, orders};

    #[test]
    fn orders_are_read_in_notation_and_in_words() {
        assert_eq!(orders("Binary search runs in O(log n) time."), vec![Logarithmic]);
        assert_eq!(orders("so the cost grows linearly, O(n)."), vec![Linear]);
        assert_eq!(orders("merge sort is O(n log n) in every case"), vec![Linearithmic]);
        assert_eq!(orders("bubble sort is Θ(n²), quadratic time"), vec![Quadratic]);
        assert_eq!(orders("it's big O of n squared"), vec![Quadratic]);
        assert_eq!(orders("lookup takes constant time, O(1)"), vec![Constant]);
        assert_eq!(orders("O(log(n))"), vec![Logarithmic]);
        assert_eq!(orders("linear perspective uses a vanishing point"), vec![]);
        assert_eq!(orders("a ratio(n) of two"), vec![]);
    }
}
