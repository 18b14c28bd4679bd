//! Markdown: the first heading names the set, text before the first list item describes it,
//! each list item is a point, and an indented line under an item is its cue.
//!
//! ```text
//! # Rivers
//! The great rivers of the world.
//!
//! - The Nile is the longest river.
//!   Which river is the longest?
//! - The Amazon carries the most water.
//! ```

use super::{Builder, ImportError, Preview};

/// The text of a list item's first line, if the line starts one.
fn item(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() >= 2 {
        return None;
    }
    for marker in ["- ", "* ", "+ "] {
        if let Some(rest) = trimmed.strip_prefix(marker) {
            return Some(rest);
        }
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0)
        .then(|| trimmed[digits..].strip_prefix(". ").or_else(|| trimmed[digits..].strip_prefix(") ")))
        .flatten()
}

fn indented(line: &str) -> bool {
    line.starts_with("  ") || line.starts_with('\t')
}

pub fn read(name: &str, text: &str) -> Result<Preview, ImportError> {
    let mut title = None;
    let mut description = Vec::new();
    // Each point: where it starts, its text, its cue lines.
    let mut points: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut stray = Vec::new();
    let mut in_item = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            in_item = false;
            continue;
        }
        if let Some(rest) = item(line) {
            points.push((number, rest.trim().to_string(), Vec::new()));
            in_item = true;
        } else if in_item && indented(line) {
            if let Some((_, _, cue)) = points.last_mut() {
                cue.push(line.trim().to_string());
            }
        } else if let Some(heading) = line.strip_prefix("# ").filter(|_| title.is_none() && points.is_empty())
        {
            title = Some(heading.trim().to_string());
        } else if points.is_empty() && !line.starts_with('#') {
            description.push(line.trim().to_string());
        } else {
            stray.push(number);
        }
    }
    let mut builder = Builder::new(title.as_deref().unwrap_or(name));
    builder.preview.set.description = description.join(" ");
    for (number, content, cue) in points {
        builder.point(&format!("line {number}"), &content, &cue.join(" "), None);
    }
    for number in stray {
        builder.reject(
            &format!("line {number}"),
            "it is not a list item (points are list items; cues are indented under them)",
        );
    }
    let mut preview = builder.finish();
    preview
        .rejected
        .sort_by_key(|r| r.place.trim_start_matches("line ").parse::<usize>().unwrap_or(usize::MAX));
    Ok(preview)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_items_and_indented_cues() {
        let md = "# Rivers\nThe great rivers.\n\n- The Nile is the longest river.\n  Which river is the longest?\n* The Amazon carries the most water.\n1. The Danube crosses ten countries.\n\nA stray paragraph.\n- the nile is the longest river.\n";
        let p = read("file", md).unwrap();
        assert_eq!((p.set.name.as_str(), p.set.description.as_str()), ("Rivers", "The great rivers."));
        let points: Vec<(&str, &str)> =
            p.set.points.iter().map(|p| (p.content.as_str(), p.context.as_str())).collect();
        assert_eq!(
            points,
            [
                ("The Nile is the longest river.", "Which river is the longest?"),
                ("The Amazon carries the most water.", ""),
                ("The Danube crosses ten countries.", ""),
            ]
        );
        let rejected: Vec<String> = p.rejected.iter().map(|r| format!("{}: {}", r.place, r.reason)).collect();
        assert!(rejected[0].starts_with("line 9: it is not a list item"));
        assert_eq!(rejected[1], "line 10: the same point as line 4");
    }
}
