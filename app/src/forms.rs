//! What learners type into forms: the fields, their limits and the rules they must meet. The
//! pages show the limits and the errors; the server enforces the same rules. Forms are plain
//! HTML posts: a valid one redirects to its result, an invalid one comes back as the same page
//! with what was typed and an error next to each field at fault ([`FormEcho`]).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Longest value of each field, in characters (bytes for files).
pub mod limits {
    pub const SET_NAME: usize = 100;
    pub const DESCRIPTION: usize = 2_000;
    pub const GUIDELINES: usize = 4_000;
    pub const POINT: usize = 2_000;
    pub const CUE: usize = 1_000;
    pub const RESOURCE_TITLE: usize = 200;
    pub const RESOURCE_TEXT: usize = 20_000;
    pub const LICENCE: usize = 200;
    /// An uploaded image.
    pub const IMAGE_BYTES: usize = 5 * 1024 * 1024;
    /// A file to import.
    pub const IMPORT_BYTES: usize = 20 * 1024 * 1024;
    /// An Anki package to import (it carries its images).
    pub const ANKI_BYTES: usize = 100 * 1024 * 1024;
    /// An account archive to import (it holds every set, session and image).
    pub const ARCHIVE_BYTES: usize = 100 * 1024 * 1024;
    /// Points in one set.
    pub const POINTS_PER_SET: usize = 20_000;
    /// Text to draft points from (pasted, or read from a file).
    pub const SOURCE_CHARS: usize = 200_000;
    /// A file to draft points from.
    pub const SOURCE_BYTES: usize = 20 * 1024 * 1024;
    /// A password's length: at least `PASSWORD_MIN`, at most `PASSWORD`.
    pub const PASSWORD_MIN: usize = 10;
    pub const PASSWORD: usize = 200;
    /// A username's length: at least `USERNAME_MIN`, at most `USERNAME`.
    /// A label on a session's entry.
    pub const LABEL: usize = 60;
    /// A message's own id, as the page names it for replies and refusals.
    pub const CLIENT_MESSAGE_ID: usize = 100;
    pub const USERNAME_MIN: usize = 3;
    pub const USERNAME: usize = 32;
}

crate::named_enum! {
    /// Why a new password is refused: the code a refused form carries back in its address,
    /// worded by [`PasswordProblem::message`] for every page that asks for a password.
    pub enum PasswordProblem {
        Short = "short",
        Long = "long",
        /// Among the passwords anyone would guess first.
        Common = "common",
        /// Mostly the username.
        LikeUsername = "like-username",
    }
}

impl PasswordProblem {
    pub fn message(self) -> String {
        match self {
            PasswordProblem::Short => format!("Passwords need at least {} characters.", limits::PASSWORD_MIN),
            PasswordProblem::Long => format!("Passwords can have at most {} characters.", limits::PASSWORD),
            PasswordProblem::Common => {
                "That password is among the first anyone would guess. Choose another: \
                                        a few unrelated words work well."
                    .into()
            }
            PasswordProblem::LikeUsername => "That password is mostly your username. Choose another.".into(),
        }
    }
}

/// What a username may be, worded.
pub fn username_rule() -> String {
    format!("Usernames have {}", username_chars())
}

/// What a username may hold, as the sign-up form says it under the field.
pub fn username_chars() -> String {
    format!(
        "{} to {} characters: letters, digits, dots, dashes or underscores.",
        limits::USERNAME_MIN,
        limits::USERNAME
    )
}

/// Errors by field name, in the order the fields appear.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldErrors(pub Vec<(String, String)>);

impl FieldErrors {
    pub fn add(&mut self, field: &str, message: impl Into<String>) {
        self.0.push((field.to_string(), message.into()));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The error for one field, if any.
    pub fn get(&self, field: &str) -> Option<&str> {
        self.0.iter().find(|(f, _)| f == field).map(|(_, m)| m.as_str())
    }
}

/// Trims a free-text field and checks it against its limit (and, if `required`, that it is
/// there). Control characters are dropped (see [`crate::clean`]).
fn text(errors: &mut FieldErrors, field: &str, value: &str, limit: usize, required: Option<&str>) -> String {
    checked(errors, field, &crate::clean::text(value), limit, required)
}

/// [`text`] for a name or a title, which is one line.
fn line(errors: &mut FieldErrors, field: &str, value: &str, limit: usize, required: Option<&str>) -> String {
    checked(errors, field, &crate::clean::line(value), limit, required)
}

fn checked(
    errors: &mut FieldErrors,
    field: &str,
    value: &str,
    limit: usize,
    required: Option<&str>,
) -> String {
    let value = value.trim();
    let chars = value.chars().count();
    if let Some(what) = required
        && value.is_empty()
    {
        errors.add(field, format!("Give the {what}."));
    } else if chars > limit {
        errors.add(field, format!("At most {limit} characters; this has {chars}."));
    }
    value.to_string()
}

/// A recall set's own fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SetFields {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Extra instructions for the tutor, appended to its prompt before the safety rules.
    #[serde(default)]
    pub guidelines: String,
}

impl SetFields {
    /// The fields trimmed, or what is wrong with them.
    pub fn check(&self) -> Result<SetFields, FieldErrors> {
        let mut errors = FieldErrors::default();
        let checked = SetFields {
            name: line(&mut errors, "name", &self.name, limits::SET_NAME, Some("set a name")),
            description: text(&mut errors, "description", &self.description, limits::DESCRIPTION, None),
            guidelines: text(&mut errors, "guidelines", &self.guidelines, limits::GUIDELINES, None),
        };
        if errors.is_empty() { Ok(checked) } else { Err(errors) }
    }
}

/// A recall point's fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PointFields {
    /// The fact to recall.
    pub content: String,
    /// A cue that asks about it without giving it away; the evaluator sees it too.
    #[serde(default)]
    pub context: String,
    /// A ticked "reset its schedule" box (editing only).
    #[serde(default)]
    pub reset_schedule: Option<String>,
}

impl PointFields {
    pub fn check(&self) -> Result<PointFields, FieldErrors> {
        let mut errors = FieldErrors::default();
        let checked = PointFields {
            content: text(&mut errors, "content", &self.content, limits::POINT, Some("point to recall")),
            context: text(&mut errors, "context", &self.context, limits::CUE, None),
            reset_schedule: self.reset_schedule.clone(),
        };
        if errors.is_empty() { Ok(checked) } else { Err(errors) }
    }

    pub fn resets_schedule(&self) -> bool {
        self.reset_schedule.is_some()
    }
}

/// A text excerpt's fields (an image comes as a file beside them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceFields {
    pub title: String,
    /// The excerpt (Markdown), for text resources.
    #[serde(default)]
    pub body: String,
    /// Where an image comes from, and its terms.
    #[serde(default)]
    pub licence: String,
    /// Ids of the points it supports.
    #[serde(default)]
    pub points: Vec<String>,
}

impl ResourceFields {
    /// Checks a text excerpt (`image` false) or an image's caption and licence.
    pub fn check(&self, image: bool) -> Result<ResourceFields, FieldErrors> {
        let mut errors = FieldErrors::default();
        let title = line(&mut errors, "title", &self.title, limits::RESOURCE_TITLE, Some("title"));
        let body = if image {
            String::new()
        } else {
            text(&mut errors, "body", &self.body, limits::RESOURCE_TEXT, Some("excerpt"))
        };
        let licence = line(&mut errors, "licence", &self.licence, limits::LICENCE, None);
        let checked = ResourceFields { title, body, licence, points: self.points.clone() };
        if errors.is_empty() { Ok(checked) } else { Err(errors) }
    }
}

/// A form sent back because something in it was wrong: which form, what was typed, and what
/// is wrong. The server provides it when it renders the page again; fields read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FormEcho {
    /// The form's name, so that only the form that was sent shows its errors.
    pub form: String,
    pub values: HashMap<String, String>,
    pub errors: FieldErrors,
    /// An error about the whole form, not one field.
    pub message: Option<String>,
}

impl FormEcho {
    /// The echo for `form`, if the page is being shown again after sending it.
    pub fn of(form: &str) -> Option<FormEcho> {
        leptos::prelude::use_context::<FormEcho>().filter(|echo| echo.form == form)
    }

    /// What was typed into `field`, or `fallback` when the form was not sent back.
    pub fn value(echo: &Option<FormEcho>, field: &str, fallback: &str) -> String {
        echo.as_ref().and_then(|e| e.values.get(field).cloned()).unwrap_or_else(|| fallback.to_string())
    }

    pub fn error(echo: &Option<FormEcho>, field: &str) -> Option<String> {
        echo.as_ref().and_then(|e| e.errors.get(field).map(str::to_string))
    }

    /// Whether `field` has the form's first error: the page opens on it (the form may be far
    /// down a long page).
    pub fn first_error(echo: &Option<FormEcho>, field: &str) -> bool {
        echo.as_ref().and_then(|e| e.errors.0.first()).is_some_and(|(f, _)| f == field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_fields_are_trimmed_and_limited() {
        let ok = SetFields { name: "  Anatomy ".into(), ..SetFields::default() }.check().unwrap();
        assert_eq!(ok.name, "Anatomy");
        let errors = SetFields {
            name: " ".into(),
            description: "x".repeat(limits::DESCRIPTION + 1),
            guidelines: String::new(),
        }
        .check()
        .unwrap_err();
        assert_eq!(errors.get("name"), Some("Give the set a name."));
        assert!(errors.get("description").is_some_and(|m| m.contains("At most 2000")));
        assert!(errors.get("guidelines").is_none());
    }

    #[test]
    fn points_need_content_and_resources_a_title() {
        assert!(PointFields::default().check().unwrap_err().get("content").is_some());
        let image = ResourceFields { title: "A cell".into(), ..ResourceFields::default() };
        assert!(image.check(true).is_ok());
        assert!(image.check(false).unwrap_err().get("body").is_some(), "an excerpt needs its text");
    }
}
