//! What the language models did for the learner, and what it cost: a table by agent.

use leptos::prelude::*;

use crate::usage::{AgentTokens, Tokens, total};

/// Dollars to the cent, or to a tenth of a cent below a dollar; "no price" when the price
/// list lacks a model.
pub fn cost(cost: Option<f64>) -> String {
    match cost {
        Some(c) if c < 1.0 => format!("${c:.3}"),
        Some(c) => format!("${c:.2}"),
        None => "no price".to_string(),
    }
}

fn count(n: i64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) && c.is_ascii_digit() {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Each agent's calls and tokens, and the total.
#[component]
pub fn UsageTable(lines: Vec<AgentTokens>, test_id: &'static str) -> impl IntoView {
    let total = total(&lines);
    let row = |name: String, t: &Tokens| {
        view! {
            <tr>
                <th scope="row">{name}</th>
                <td>{count(t.calls)}</td>
                <td>{count(t.input)}</td>
                <td>{count(t.cached_input)}</td>
                <td>{count(t.output)}</td>
                <td>{cost(t.cost_usd)}</td>
            </tr>
        }
    };
    view! {
        <table class="usage" data-testid=test_id>
            <thead>
                <tr>
                    <th scope="col">"Agent"</th>
                    <th scope="col">"Calls"</th>
                    <th scope="col">"Input tokens"</th>
                    <th scope="col">"Of them cached"</th>
                    <th scope="col">"Output tokens"</th>
                    <th scope="col">"Cost"</th>
                </tr>
            </thead>
            <tbody>{lines.iter().map(|l| row(l.agent.label().to_string(), &l.tokens)).collect_view()}</tbody>
            <tfoot>{row("Total".to_string(), &total)}</tfoot>
        </table>
    }
}
