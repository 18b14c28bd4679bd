//! A set written out as Warren JSON (everything, images included), CSV (content and cue) or
//! Markdown (the layout the Markdown import reads).

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use warren_app::learner::LearnerId;

use super::Format;
use super::json::{
    CarriedFile, FORMAT, Link, PointFile, ResourceFile, ReviewFile, Schedule, SetFile, VERSION,
};
use crate::store::{Store, StoreError};

/// A file ready to download: its name, media type and bytes.
pub struct Export {
    pub file_name: String,
    pub content_type: &'static str,
    pub bytes: Vec<u8>,
}

/// The learner's set in `format`; `None` when the set is not theirs. Anki packages are read,
/// not written.
pub async fn export(
    store: &Store,
    learner: &LearnerId,
    set_id: &str,
    format: Format,
) -> Result<Option<Export>, StoreError> {
    let Some(set) = store.set(learner, set_id).await? else { return Ok(None) };
    let points = store.points(learner, set_id).await?;
    let stem = file_stem(&set.name);
    let export = match format {
        Format::Json => {
            let mut resources = Vec::new();
            for r in store.resources(learner, set_id).await? {
                let data = store.resource_image(learner, &r.id).await?.map(|(_, bytes)| BASE64.encode(bytes));
                let links = r
                    .points
                    .iter()
                    .filter_map(|(id, relevance)| {
                        points
                            .iter()
                            .position(|p| &p.id == id)
                            .map(|point| Link { point, relevance: *relevance })
                    })
                    .collect();
                resources.push(ResourceFile {
                    url: if data.is_some() { None } else { r.url },
                    data,
                    kind: r.kind.to_string(),
                    title: r.title,
                    body: r.body,
                    licence: r.licence,
                    mime_type: r.mime_type,
                    links,
                });
            }
            let mut logs = store.set_logs(learner, set_id).await?;
            let file = SetFile {
                format: FORMAT.into(),
                version: VERSION,
                name: set.name,
                description: set.description,
                guidelines: set.guidelines,
                points: points
                    .iter()
                    .map(|p| {
                        let log = logs.remove(&p.id).unwrap_or_default();
                        PointFile {
                            content: p.content.clone(),
                            cue: p.context.clone(),
                            schedule: Some(Schedule::from(&p.card)),
                            carried: log.carried.map(|c| CarriedFile {
                                stability: c.memory.stability,
                                difficulty: c.memory.difficulty,
                                at: c.at,
                                reps: c.reps,
                                lapses: c.lapses,
                            }),
                            reviews: log
                                .reviews
                                .iter()
                                .map(|r| ReviewFile { rating: r.rating.to_string(), at: r.at })
                                .collect(),
                        }
                    })
                    .collect(),
                resources,
            };
            let bytes = serde_json::to_vec_pretty(&file).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            Export { file_name: format!("{stem}.json"), content_type: "application/json", bytes }
        }
        Format::Csv => {
            let mut writer = csv::Writer::from_writer(Vec::new());
            let rows = std::iter::once(("content".to_string(), "cue".to_string()))
                .chain(points.iter().map(|p| (p.content.clone(), p.context.clone())));
            for (content, cue) in rows {
                writer
                    .write_record([super::csv::defused(&content), super::csv::defused(&cue)])
                    .map_err(|e| StoreError::Corrupt(e.to_string()))?;
            }
            let bytes = writer.into_inner().map_err(|e| StoreError::Corrupt(e.to_string()))?;
            Export { file_name: format!("{stem}.csv"), content_type: "text/csv; charset=utf-8", bytes }
        }
        Format::Markdown => {
            let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
            let mut text = format!("# {}\n", one_line(&set.name));
            if !set.description.trim().is_empty() {
                text.push_str(&format!("\n{}\n", one_line(&set.description)));
            }
            text.push('\n');
            for p in &points {
                text.push_str(&format!("- {}\n", one_line(&p.content)));
                if !p.context.trim().is_empty() {
                    text.push_str(&format!("  {}\n", one_line(&p.context)));
                }
            }
            Export {
                file_name: format!("{stem}.md"),
                content_type: "text/markdown; charset=utf-8",
                bytes: text.into_bytes(),
            }
        }
        Format::Anki => return Ok(None),
    };
    Ok(Some(export))
}

/// A file name from a set's name: letters, digits and dashes.
fn file_stem(name: &str) -> String {
    let stem: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if stem.is_empty() { "recall-set".into() } else { stem }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_plain() {
        assert_eq!(file_stem("Rome: from republic to empire"), "rome-from-republic-to-empire");
        assert_eq!(file_stem("???"), "recall-set");
    }
}
