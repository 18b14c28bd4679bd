//! What the learner's page is sent about the session: the start, an offer, the overlay, a
//! resource shown, and the note a finished rabbit hole leaves.

use warren_app::api::ResourceKind;
use warren_app::protocol::{
    Notice, ProviderInfo, RabbitholeDetected, RabbitholeEntered, SessionCompleteOverlay, SessionEvent,
    SessionMode, SessionStarted, SessionStatus, ShowImage, ShowResource,
};

use crate::store::{RabbitholeRow, Resource};

use super::LiveSession;

pub const OVERLAY_MESSAGE: &str = "You've covered everything.";

impl LiveSession {
    /// A rabbit hole on offer, as the learner is told of it.
    pub fn offer(&self, hole: &RabbitholeRow) -> RabbitholeDetected {
        let trigger = hole.trigger_entry_id.as_deref().and_then(|id| self.tree.get(id));
        RabbitholeDetected {
            rabbithole_event_id: hole.id.clone(),
            topic: hole.topic.clone(),
            label: hole.label.clone(),
            trigger_message_content: trigger.map(|e| e.content.clone()).unwrap_or_default(),
        }
    }

    pub fn overlay(&self, now: i64) -> Option<SessionCompleteOverlay> {
        let showing = self.all_recalled()
            && !self.row.state.overlay_dismissed
            && self.status() == SessionStatus::InProgress
            && self.mode() == SessionMode::Recall;
        showing.then(|| self.overlay_payload(now))
    }

    pub fn overlay_payload(&self, now: i64) -> SessionCompleteOverlay {
        let recalled_with = |help: &dyn Fn(&crate::store::Struggle) -> bool| -> u32 {
            let count = self
                .points
                .iter()
                .filter(|p| self.is_recalled(&p.id) && self.struggles.get(&p.id).is_some_and(help))
                .count();
            count.try_into().unwrap_or(u32::MAX)
        };
        SessionCompleteOverlay {
            message: OVERLAY_MESSAGE.into(),
            recalled_count: self.recalled_count(),
            given_answer: recalled_with(&|s| s.revealed),
            after_hints: recalled_with(&|s| !s.revealed && s.hints > 0),
            total_points: self.total(),
            duration_ms: self.elapsed_ms(now),
        }
    }

    pub fn started_payload(
        &self,
        provider: ProviderInfo,
        notice: Option<Notice>,
        opening_message: String,
        streaming_reply: Option<String>,
        now: i64,
    ) -> SessionStarted {
        let (mut images, mut resources) = (Vec::new(), Vec::new());
        for resource in self.shown.iter().filter_map(|id| self.resources.iter().find(|r| &r.id == id)) {
            match Self::show(resource) {
                Show::Image(image) => images.push(image),
                Show::Resource(excerpt) => resources.push(excerpt),
            }
        }
        SessionStarted {
            session_id: self.id().to_string(),
            recall_set_name: self.title(),
            opening_html: warren_app::markdown_html(&opening_message),
            opening_message,
            total_points: self.total(),
            recalled_count: self.recalled_count(),
            status: self.status(),
            provider,
            mode: self.mode(),
            rabbithole: self.active_rabbithole().map(|r| RabbitholeEntered {
                rabbithole_event_id: r.id.clone(),
                topic: r.topic.clone(),
                label: r.label.clone(),
            }),
            rabbithole_labels: self.explored_labels(),
            pending_rabbithole: self
                .pending_detection()
                .filter(|_| self.status() == SessionStatus::InProgress)
                .map(|r| self.offer(r)),
            overlay: self.overlay(now),
            elapsed_ms: self.elapsed_ms(now),
            streaming_reply,
            last_client_message_id: self.last_client_message_id(),
            images,
            resources,
            notice,
        }
    }

    /// What showing a resource sends: an image with its caption, or an excerpt card.
    pub fn show(resource: &Resource) -> Show {
        match (resource.kind, &resource.url) {
            (ResourceKind::Image, Some(url)) => Show::Image(ShowImage {
                resource_id: resource.id.clone(),
                url: url.clone(),
                caption: Some(resource.title.clone()),
                mime_type: resource.mime_type.clone(),
            }),
            (ResourceKind::Image | ResourceKind::Text, _) => {
                let snippet = snippet(&resource.body);
                let cut = snippet != resource.body.trim();
                Show::Resource(ShowResource {
                    resource_id: resource.id.clone(),
                    title: resource.title.clone(),
                    snippet_html: warren_app::markdown_html(&snippet),
                    snippet,
                    whole_html: if cut { warren_app::markdown_html(&resource.body) } else { String::new() },
                    after_recall: false,
                })
            }
        }
    }
}

/// A resource as the live view shows it.
pub enum Show {
    Image(ShowImage),
    Resource(ShowResource),
}

impl From<Show> for SessionEvent {
    fn from(show: Show) -> Self {
        match show {
            Show::Image(image) => SessionEvent::ShowImage(image),
            Show::Resource(excerpt) => SessionEvent::ShowResource(excerpt),
        }
    }
}

/// About 200 characters of a resource, cut at a word.
fn snippet(body: &str) -> String {
    let body = body.trim();
    if body.chars().count() <= 200 {
        return body.to_string();
    }
    let cut: String = body.chars().take(200).collect();
    match cut.rfind(' ') {
        Some(space) => format!("{}…", &cut[..space]),
        None => format!("{cut}…"),
    }
}

/// What the tutor is told of a finished rabbit hole when the summariser cannot say more: its
/// topic and size.
pub(in crate::engine) fn branch_summary(topic: &str, exchanges: usize, recalled: u32) -> String {
    let mut summary = format!("Explored \"{topic}\" ({exchanges} message{})", plural(exchanges));
    if recalled > 0 {
        summary.push_str(&format!(", recalling {recalled} point{} along the way", plural(recalled as usize)));
    }
    summary.push('.');
    summary
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(body: &str) -> Resource {
        Resource {
            id: "r".into(),
            kind: ResourceKind::Text,
            title: "Notes".into(),
            body: body.into(),
            url: None,
            mime_type: None,
            licence: None,
            points: vec![],
        }
    }

    fn excerpt(resource: &Resource) -> ShowResource {
        match LiveSession::show(resource) {
            Show::Resource(excerpt) => excerpt,
            Show::Image(image) => panic!("a text shown as an image: {image:?}"),
        }
    }

    #[test]
    fn a_long_excerpt_comes_whole_beside_its_opening() {
        let long = "Mitochondria make ATP. ".repeat(20);
        let shown = excerpt(&text(&long));
        assert!(shown.snippet.ends_with('…') && shown.snippet.chars().count() <= 201, "{}", shown.snippet);
        assert_eq!(shown.whole_html.matches("Mitochondria").count(), 20, "{}", shown.whole_html);
        let short = excerpt(&text("  Ribosomes build proteins.  "));
        assert_eq!(short.snippet, "Ribosomes build proteins.");
        assert!(short.whole_html.is_empty(), "nothing left out, nothing more to send");
    }
}
