//! Warren's own JSON: a set with everything it holds (cues, resources with their images,
//! links with their relevance, each point's schedule and, from version 2, its review log), so
//! that exporting and importing gives the same set back, and the same schedule replayed.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde::{Deserialize, Serialize};
use warren_app::api::ResourceKind;
use warren_app::forms::limits;
use warren_app::schedule::{CardState, Rating};

use super::{Builder, ImportError, Preview};
use crate::schedule::{Carried, Logged, Memory};
use crate::store::{FsrsCard, NewResource, PointLog, image_type};

pub const FORMAT: &str = "warren-set";
pub const VERSION: u32 = 2;
/// Reviews one point's log may carry.
const MAX_REVIEWS: usize = 10_000;

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetFile {
    pub format: String,
    pub version: u32,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub guidelines: String,
    pub points: Vec<PointFile>,
    #[serde(default)]
    pub resources: Vec<ResourceFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PointFile {
    pub content: String,
    #[serde(default)]
    pub cue: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
    /// Where its memory stood before `reviews` (a schedule carried in without its reviews).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried: Option<CarriedFile>,
    /// Its review log, oldest first: the schedule is replayed from it (and `carried`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reviews: Vec<ReviewFile>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CarriedFile {
    pub stability: f64,
    pub difficulty: f64,
    pub at: i64,
    /// The reviews and failures it stood for (files before these fields: none known).
    #[serde(default)]
    pub reps: i64,
    #[serde(default)]
    pub lapses: i64,
}

/// One review: `again`, `hard`, `good` or `easy`, at a time in milliseconds since 1970.
#[derive(Serialize, Deserialize)]
pub struct ReviewFile {
    pub rating: String,
    pub at: i64,
}

impl PointFile {
    /// Its log as the store keeps it (`None` when it has neither reviews nor a carried start),
    /// or why it cannot be read.
    fn log(&self) -> Result<Option<PointLog>, String> {
        if self.reviews.is_empty() && self.carried.is_none() {
            return Ok(None);
        }
        if self.reviews.len() > MAX_REVIEWS {
            return Err(format!("it has over {MAX_REVIEWS} reviews"));
        }
        let carried = match &self.carried {
            Some(c)
                if c.stability.is_finite() && c.stability > 0.0 && (1.0..=10.0).contains(&c.difficulty) =>
            {
                Some(Carried {
                    memory: Memory { stability: c.stability, difficulty: c.difficulty },
                    at: c.at,
                    // A memory was carried in, so at least one review made it.
                    reps: c.reps.clamp(1, MAX_REVIEWS as i64),
                    lapses: c.lapses.clamp(0, MAX_REVIEWS as i64),
                })
            }
            Some(_) => return Err("its carried memory is not one Warren wrote".into()),
            None => None,
        };
        let mut reviews = Vec::with_capacity(self.reviews.len());
        for review in &self.reviews {
            let rating = review
                .rating
                .parse::<Rating>()
                .map_err(|_| format!("“{}” is not a rating", review.rating))?;
            if !(0..=MAX_TIME_MS).contains(&review.at) {
                return Err(format!("a review's time ({}) is not a date", review.at));
            }
            reviews.push(Logged { rating, at: review.at });
        }
        reviews.sort_by_key(|r| r.at);
        Ok(Some(PointLog { carried, reviews, due_at: None }))
    }
}

/// The year 9999, in milliseconds: later times are not dates.
const MAX_TIME_MS: i64 = 253_402_300_799_000;

/// A point's FSRS state, as stored.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    pub state: String,
    pub due_at: i64,
    pub stability: f64,
    pub difficulty: f64,
    pub elapsed_days: i64,
    pub scheduled_days: i64,
    pub reps: i64,
    pub lapses: i64,
    #[serde(default)]
    pub last_review_at: Option<i64>,
}

impl From<&FsrsCard> for Schedule {
    fn from(card: &FsrsCard) -> Self {
        Schedule {
            state: card.state.to_string(),
            due_at: card.due_at,
            stability: card.stability,
            difficulty: card.difficulty,
            elapsed_days: card.elapsed_days,
            scheduled_days: card.scheduled_days,
            reps: card.reps,
            lapses: card.lapses,
            last_review_at: card.last_review_at,
        }
    }
}

impl Schedule {
    fn card(self) -> Option<FsrsCard> {
        let state = self.state.parse::<CardState>().ok()?;
        let sane =
            self.stability.is_finite() && self.difficulty.is_finite() && self.reps >= 0 && self.lapses >= 0;
        sane.then_some(FsrsCard {
            state,
            due_at: self.due_at,
            stability: self.stability,
            difficulty: self.difficulty,
            elapsed_days: self.elapsed_days,
            scheduled_days: self.scheduled_days,
            reps: self.reps,
            lapses: self.lapses,
            last_review_at: self.last_review_at,
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFile {
    /// `text` or `image`.
    pub kind: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// An uploaded image, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// An image served by this site (`/demo/…`), for images that are not uploaded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default)]
    pub links: Vec<Link>,
}

/// A resource's link to a point: the point's index in `points`, and how much it supports it.
#[derive(Serialize, Deserialize)]
pub struct Link {
    pub point: usize,
    #[serde(default = "full")]
    pub relevance: f64,
}

fn full() -> f64 {
    1.0
}

pub fn read(text: &str) -> Result<Preview, ImportError> {
    let file: SetFile = serde_json::from_str(text).map_err(|e| ImportError::BadJson(e.to_string()))?;
    if file.format != FORMAT {
        return Err(ImportError::BadJson(format!("its format is “{}”, not “{FORMAT}”", file.format)));
    }
    if file.version > VERSION {
        return Err(ImportError::BadJson(format!(
            "it is version {} of the format, from a newer Warren; this one reads up to version {VERSION}",
            file.version
        )));
    }
    let mut builder = Builder::new(&file.name);
    builder.preview.set.description = file.description.chars().take(limits::DESCRIPTION).collect();
    builder.preview.set.guidelines = file.guidelines.chars().take(limits::GUIDELINES).collect();
    // Where each point of the file landed (`None`: left out).
    let mut landed = Vec::with_capacity(file.points.len());
    for (i, point) in file.points.into_iter().enumerate() {
        let place = format!("point {}", i + 1);
        let log = point.log();
        let card = match point.schedule.map(Schedule::card) {
            Some(None) => {
                builder.reject(&place, "its schedule is not one Warren wrote");
                landed.push(None);
                continue;
            }
            Some(card) => card,
            None => None,
        };
        let log = match log {
            Ok(log) => log,
            Err(why) => {
                builder.reject(&place, why);
                landed.push(None);
                continue;
            }
        };
        let index = builder.point(&place, &point.content, &point.cue, card);
        if let Some(i) = index {
            builder.preview.set.points[i].log = log;
        }
        landed.push(index);
    }
    for (i, resource) in file.resources.into_iter().enumerate() {
        let place = format!("resource {}", i + 1);
        match resource_of(resource, &landed) {
            Ok(resource) => builder.resource(resource),
            Err(why) => builder.reject(&place, why),
        }
    }
    Ok(builder.finish())
}

fn resource_of(file: ResourceFile, landed: &[Option<usize>]) -> Result<NewResource, String> {
    if file.title.trim().is_empty() || file.title.chars().count() > limits::RESOURCE_TITLE {
        return Err(format!("its title must have 1 to {} characters", limits::RESOURCE_TITLE));
    }
    let points = file
        .links
        .iter()
        .filter_map(|l| landed.get(l.point).copied().flatten().map(|p| (p, l.relevance.clamp(0.0, 1.0))))
        .collect();
    let kind: ResourceKind = file
        .kind
        .parse()
        .map_err(|_| format!("“{}” is not a kind of resource (text or image)", file.kind))?;
    let mut resource =
        NewResource { kind, title: file.title, licence: file.licence, points, ..NewResource::default() };
    match (kind, file.data, file.url) {
        (ResourceKind::Text, _, _) => {
            if file.body.chars().count() > limits::RESOURCE_TEXT {
                return Err(format!("its text is over {} characters", limits::RESOURCE_TEXT));
            }
            resource.body = file.body;
        }
        (ResourceKind::Image, Some(data), _) => {
            let bytes =
                BASE64.decode(data.as_bytes()).map_err(|_| "its image data is not base64".to_string())?;
            if bytes.len() > limits::IMAGE_BYTES {
                return Err("its image is over 5 MB".into());
            }
            let mime = image_type(&bytes).ok_or("its image is not a PNG, JPEG, WebP or GIF")?;
            resource.mime_type = Some(mime.to_string());
            resource.image = Some(bytes);
        }
        // Images this site serves itself (the demo sets'); nothing from elsewhere.
        (ResourceKind::Image, None, Some(url)) if url.starts_with('/') && !url.starts_with("//") => {
            resource.url = Some(url);
            resource.mime_type = file.mime_type;
        }
        (ResourceKind::Image, _, _) => {
            return Err("an image needs its data, or an address on this site".into());
        }
    }
    Ok(resource)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_that_are_not_warren_json_are_refused_in_one_sentence() {
        assert!(matches!(read("{"), Err(ImportError::BadJson(_))));
        let other = r#"{"format":"something","version":1,"name":"x","points":[]}"#;
        assert!(read(other).unwrap_err().to_string().contains("not “warren-set”"));
        let newer = r#"{"format":"warren-set","version":99,"name":"x","points":[]}"#;
        assert!(read(newer).unwrap_err().to_string().contains("newer Warren"));
    }

    #[test]
    fn bad_schedules_and_resources_are_left_out_with_their_place() {
        let file = r#"{"format":"warren-set","version":1,"name":"S","points":[
            {"content":"a"},
            {"content":"b","schedule":{"state":"weird","dueAt":0,"stability":1,"difficulty":1,"elapsedDays":0,"scheduledDays":0,"reps":0,"lapses":0}}],
            "resources":[{"kind":"image","title":"x","url":"https://tracker.example/p.gif"},
                         {"kind":"text","title":"t","body":"b","links":[{"point":0},{"point":1},{"point":9}]}]}"#;
        let p = read(file).unwrap();
        let rejected: Vec<String> = p.rejected.iter().map(|r| format!("{}: {}", r.place, r.reason)).collect();
        assert_eq!(
            rejected,
            [
                "point 2: its schedule is not one Warren wrote",
                "resource 1: an image needs its data, or an address on this site"
            ]
        );
        assert_eq!(p.set.resources[0].points, vec![(0, 1.0)], "links follow the points that landed");
    }
}
