//! A session's tree written as HTML for its history page and its one-file export: one line
//! (the path to the chosen leaf) in full, and every other branch hanging from the entry it
//! left from, in a `<details>`, with the filter and the search applied. Each entry is visited
//! once and written straight into one string (every text escaped), so a page of 10,000
//! entries costs milliseconds, not the time of as many views.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use warren_app::api::{EntryFilter, TranscriptQuery};
use warren_app::protocol::InputVia;
use warren_app::tree::{EntryKind, Speaker};
use warren_app::url::{push_query_value, query_value};
use warren_app::{escape, write_html};

use crate::store::{Entry, Tree};

/// Where entry links point.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// The history page: query strings it reads on the server.
    Page,
    /// The exported file: fragments its own script reads.
    File,
}

/// What the page shows: the shown line's leaf, its HTML, and entries shown / in all.
pub struct Written {
    pub leaf_id: String,
    pub html: String,
    pub shown: u32,
    pub total: u32,
}

/// The points each learner message earned, by entry id: the evidence shown beside it.
pub type Recalls = HashMap<String, Vec<RecallMark>>;

/// A point a message was credited with recalling.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallMark {
    pub point_id: String,
    pub content: String,
    /// The learner said it was not a recall: its review left the log.
    pub disputed: bool,
}

pub fn write(
    tree: &Tree,
    session_id: &str,
    session_leaf: Option<&str>,
    query: &TranscriptQuery,
    links: Links,
    recalls: &Recalls,
) -> Written {
    let terms: Vec<String> =
        warren_app::clean::line(&query.q).split_whitespace().map(str::to_lowercase).collect();
    let chosen = query
        .leaf_id
        .as_deref()
        .and_then(|id| tree.get(id))
        .filter(|e| !is_annotation(e))
        .map(|e| e.id.as_str())
        .or(session_leaf);
    let target_path = tree.path_ids(query.target_id.as_deref());
    let mut writer = Writer {
        tree,
        session_id,
        query,
        terms,
        links,
        session_leaf,
        target_path,
        recalls,
        shown: 0,
        out: String::new(),
    };
    // A leaf in the middle of a line shows the line to its end.
    let leaf = chosen.map(|id| writer.line_end(id));
    let path = tree.path(leaf);
    let on_path: HashSet<&str> = path.iter().map(|e| e.id.as_str()).collect();
    let leaf_id = leaf.unwrap_or_default().to_string();
    for entry in &path {
        let branches: Vec<&Entry> =
            writer.children(&entry.id).filter(|child| !on_path.contains(child.id.as_str())).collect();
        writer.entry(entry, &leaf_id);
        for child in branches {
            writer.branch(child);
        }
    }
    let total = tree.entries.iter().filter(|e| e.kind != EntryKind::Label).count();
    Written { leaf_id, html: writer.out, shown: count(writer.shown), total: count(total) }
}

struct Writer<'a> {
    tree: &'a Tree,
    session_id: &'a str,
    query: &'a TranscriptQuery,
    terms: Vec<String>,
    links: Links,
    session_leaf: Option<&'a str>,
    /// The entries from the root to the highlighted one: the branches to open.
    target_path: HashSet<&'a str>,
    recalls: &'a Recalls,
    shown: usize,
    out: String,
}

impl<'a> Writer<'a> {
    /// Children that are part of the conversation (labels and summaries hang off the leaf,
    /// but are not).
    fn children(&self, id: &str) -> impl Iterator<Item = &'a Entry> + use<'a> {
        self.tree.children(id).filter(|e| !is_annotation(e))
    }

    /// The end of the line through `id`, following the newest child at each step.
    fn line_end(&self, id: &'a str) -> &'a str {
        let mut end = id;
        let mut steps = 0;
        while let Some(next) = self.children(end).last() {
            end = next.id.as_str();
            steps += 1;
            // Bounded by the entry count, so a corrupt cycle cannot loop forever.
            if steps > self.tree.len() {
                break;
            }
        }
        end
    }

    /// The points a message earned, each (on the history page) with "Not a recall" to dispute
    /// it, and those the learner disputed.
    fn recall_marks(&mut self, entry_id: &str, marks: &[RecallMark]) {
        let (disputed, recalled): (Vec<&RecallMark>, Vec<&RecallMark>) =
            marks.iter().partition(|m| m.disputed);
        if !recalled.is_empty() {
            self.out.push_str("<div class=\"recalled\" data-testid=\"recalled\">Recalled: ");
            for (i, mark) in recalled.iter().enumerate() {
                if i > 0 {
                    self.out.push_str("; ");
                }
                self.out.push_str("<span class=\"recall-mark\">");
                escape(&mark.content, &mut self.out);
                if self.links == Links::Page {
                    let _ = write!(
                        self.out,
                        "<form method=\"post\" action=\"/history/{}/disputes\" class=\"dispute\">\
                         <input type=\"hidden\" name=\"point_id\" value=\"{}\">\
                         <input type=\"hidden\" name=\"entry_id\" value=\"{}\">\
                         <button type=\"submit\" class=\"link-button\" data-testid=\"dispute\">Not a recall</button></form>",
                        query_value(self.session_id),
                        attr(&mark.point_id),
                        attr(entry_id),
                    );
                }
                self.out.push_str("</span>");
            }
            self.out.push_str("</div>");
        }
        if !disputed.is_empty() {
            self.out.push_str("<p class=\"disputed\" data-testid=\"disputed\">Not a recall, you said: ");
            for (i, mark) in disputed.iter().enumerate() {
                if i > 0 {
                    self.out.push_str("; ");
                }
                self.out.push_str("<s>");
                escape(&mark.content, &mut self.out);
                self.out.push_str("</s>");
            }
            self.out.push_str("</p>");
        }
    }

    /// A side branch from `start` to the end of its line, each entry's other children hanging
    /// from it in turn; nothing at all when no entry in it passes the filter.
    fn branch(&mut self, start: &'a Entry) {
        let leaf_id = self.line_end(&start.id).to_string();
        let (title, summary) = self.describe(start);
        let mark = self.out.len();
        let shown_before = self.shown;
        let _ = write!(self.out, "<li class=\"side-branch\" data-testid=\"side-branch\"><details");
        let open_at = self.out.len();
        self.out.push_str("><summary><strong>");
        escape(&title, &mut self.out);
        self.out.push_str("</strong>");
        if let Some(summary) = summary {
            self.out.push_str(" <span class=\"branch-summary\">");
            escape(&summary, &mut self.out);
            self.out.push_str("</span>");
        }
        self.out.push_str("</summary><ol class=\"entries\">");
        let mut at = Some(start);
        // The highlighted entry is in this branch when the branch's start is on its path.
        let holds_target = self.target_path.contains(start.id.as_str());
        while let Some(entry) = at {
            let mut children: Vec<&Entry> = self.children(&entry.id).collect();
            at = children.pop();
            self.entry(entry, &leaf_id);
            for child in children {
                self.branch(child);
            }
        }
        if self.shown == shown_before {
            self.out.truncate(mark);
            return;
        }
        self.out.push_str("</ol>");
        let href = self.link(&leaf_id, None, None);
        let _ = write!(
            self.out,
            "<a href=\"{href}\" class=\"open-line\">Read this part on its own</a></details></li>"
        );
        // Open when it holds the entry linked to, or what a filter or a search picked out.
        if holds_target || !self.terms.is_empty() || self.query.filter != EntryFilter::Default {
            self.out.insert_str(open_at, " open");
        }
    }

    /// A branch's title and, for a rabbit hole that ended, the summary written on the main line
    /// when the main line does not show it already (a filter may leave it out there).
    fn describe(&self, start: &Entry) -> (String, Option<String>) {
        let field = |e: &Entry, key: &str| -> Option<String> {
            e.data.as_ref().and_then(|d| d.get(key)).and_then(|v| v.as_str()).map(str::to_string)
        };
        let other = || ("A side conversation".to_string(), None);
        match start.kind {
            EntryKind::ModeChange => {
                let Some(hole) = field(start, "rabbitholeId") else { return other() };
                let summary = start.parent_id.as_deref().and_then(|parent| {
                    self.children(parent)
                        .find(|e| {
                            e.kind == EntryKind::BranchSummary
                                && field(e, "rabbitholeId").as_deref() == Some(&hole)
                        })
                        .filter(|e| !self.passes(e, self.tree.label(&e.id)))
                        .map(|e| e.content.clone())
                });
                let topic = field(start, "topic").unwrap_or_else(|| "a side question".into());
                (format!("Rabbit hole: {topic}"), summary)
            }
            EntryKind::Message
            | EntryKind::BranchSummary
            | EntryKind::Compaction
            | EntryKind::Label
            | EntryKind::Summary
            | EntryKind::Custom => other(),
        }
    }

    /// A link to an entry (or a line) as this kind of output reads it. The session's own line
    /// needs no `leafId`.
    fn link(&self, leaf_id: &str, target: Option<&str>, edit: Option<&str>) -> String {
        let mut href = String::from(match self.links {
            Links::Page => "?",
            Links::File => "#",
        });
        let pair = |key: &str, value: &str, href: &mut String| {
            if href.len() > 1 {
                href.push_str("&amp;");
            }
            href.push_str(key);
            href.push('=');
            push_query_value(value, href);
        };
        if Some(leaf_id) != self.session_leaf || self.links == Links::File {
            pair("leafId", leaf_id, &mut href);
        }
        if let Some(target) = target {
            pair("targetId", target, &mut href);
        }
        if let Some(edit) = edit {
            if self.query.filter != EntryFilter::Default {
                pair("filter", self.query.filter.as_str(), &mut href);
            }
            if !self.query.q.is_empty() {
                pair("q", &self.query.q, &mut href);
            }
            pair("edit", edit, &mut href);
        }
        if self.links == Links::Page
            && let Some(anchor) = target.or(edit)
        {
            href.push_str("#entry-");
            push_query_value(anchor, &mut href);
        }
        href
    }

    fn entry(&mut self, entry: &Entry, leaf_id: &str) {
        let label = self.tree.label(&entry.id);
        if !self.passes(entry, label) {
            return;
        }
        self.shown += 1;
        let target = self.query.target_id.as_deref() == Some(entry.id.as_str());
        let out = &mut self.out;
        let _ = write!(out, "<li id=\"entry-{}\" class=\"entry kind-{}", attr(&entry.id), entry.kind);
        if let Some(speaker) = entry.speaker {
            let _ = write!(out, " speaker-{speaker}");
        }
        if target {
            out.push_str(" target");
        }
        out.push('"');
        if self.links == Links::File {
            // The file's own script filters by kind, and shows one line by walking up parents.
            let _ = write!(out, " data-kind=\"{}\"", entry.kind);
            if let Some(parent) = &entry.parent_id {
                let _ = write!(out, " data-parent=\"{}\"", attr(parent));
            }
        }
        if label.is_some() {
            out.push_str(" data-labelled=\"\"");
        }
        out.push_str("><div class=\"entry-head\">");
        let who = entry.speaker.map(|speaker| match speaker {
            Speaker::Learner => "You",
            Speaker::Tutor => "Tutor",
            Speaker::Explorer => "Explorer",
        });
        if let Some(who) = who {
            let _ = write!(out, "<span class=\"speaker\">{who}</span>");
        }
        let spoken = entry.data.as_ref().and_then(|d| d.get("via")).and_then(|v| v.as_str())
            == Some(InputVia::Voice.as_str());
        if spoken {
            out.push_str("<span class=\"pill spoken\" data-testid=\"spoken\">by voice</span>");
        }
        if let Some(label) = label {
            out.push_str("<span class=\"pill label\" data-testid=\"entry-label\">");
            escape(label, out);
            out.push_str("</span>");
        }
        let href = self.link(leaf_id, Some(&entry.id), None);
        let _ = write!(self.out, "<a class=\"copy-link\" href=\"{href}\">Link</a>");
        if self.links == Links::Page {
            let href = self.link(leaf_id, None, Some(&entry.id));
            let _ = write!(self.out, "<a class=\"label-link\" href=\"{href}\">Label</a>");
        }
        self.out.push_str("</div>");
        match entry.kind {
            EntryKind::Message => {
                write_html(&entry.content, &mut self.out);
                if let Some(marks) = self.recalls.get(&entry.id) {
                    self.recall_marks(&entry.id, marks);
                }
            }
            EntryKind::ModeChange => self.out.push_str("<p class=\"note\">Went down a rabbit hole.</p>"),
            EntryKind::Compaction => {
                self.out
                    .push_str("<p class=\"note\">The older part of the session, condensed for the tutor: ");
                escape(&entry.content, &mut self.out);
                self.out.push_str("</p>");
            }
            EntryKind::Summary => {
                // Folded: the newest is also shown in full above the tree. A search opens it.
                let open = if self.terms.is_empty() { "" } else { " open" };
                let _ = write!(
                    self.out,
                    "<details class=\"summary-entry\"{open}><summary class=\"note\">Summary written when the \
                     session was left here</summary>"
                );
                write_html(&entry.content, &mut self.out);
                self.out.push_str("</details>");
            }
            EntryKind::BranchSummary | EntryKind::Label | EntryKind::Custom => {
                self.out.push_str("<p class=\"note\">");
                escape(&entry.content, &mut self.out);
                self.out.push_str("</p>");
            }
        }
        if self.links == Links::Page && self.query.edit.as_deref() == Some(entry.id.as_str()) {
            self.label_form(entry, label);
        }
        self.out.push_str("</li>");
        // The summaries written when the session was left at this entry follow it.
        let tree = self.tree;
        for summary in tree.children(&entry.id).filter(|e| e.kind == EntryKind::Summary) {
            self.entry(summary, leaf_id);
        }
    }

    /// The form that sets or removes an entry's label: a plain post that comes back here.
    fn label_form(&mut self, entry: &Entry, label: Option<&str>) {
        let out = &mut self.out;
        let session = query_value(self.session_id);
        let mut back = format!("/history/{session}");
        let mut pairs = Vec::new();
        if let Some(leaf) = &self.query.leaf_id {
            pairs.push(format!("leafId={}", query_value(leaf)));
        }
        if self.query.filter != EntryFilter::Default {
            pairs.push(format!("filter={}", self.query.filter));
        }
        if !self.query.q.is_empty() {
            pairs.push(format!("q={}", query_value(&self.query.q)));
        }
        if !pairs.is_empty() {
            back = format!("{back}?{}", pairs.join("&"));
        }
        let _ = write!(
            out,
            "<form method=\"post\" action=\"/history/{session}/label\" class=\"label-form\" data-testid=\"label-form\">\
             <input type=\"hidden\" name=\"target\" value=\"{}\"><input type=\"hidden\" name=\"back\" value=\"{}\">\
             <input name=\"label\" maxlength=\"{}\" aria-label=\"Label\" placeholder=\"e.g. revisit\" value=\"",
            attr(&entry.id),
            attr(&back),
            warren_app::forms::limits::LABEL
        );
        escape(label.unwrap_or_default(), out);
        out.push_str("\" autofocus><button type=\"submit\" class=\"button\">Save label</button>");
        if label.is_some() {
            out.push_str(
                "<button type=\"submit\" name=\"clear\" value=\"1\" class=\"button quiet\">Remove</button>",
            );
        }
        out.push_str("</form>");
    }

    fn passes(&self, entry: &Entry, label: Option<&str>) -> bool {
        let kind = match self.query.filter {
            EntryFilter::Default => {
                matches!(entry.kind, EntryKind::Message | EntryKind::BranchSummary | EntryKind::Summary)
            }
            EntryFilter::Learner => entry.is_message_from(Speaker::Learner),
            EntryFilter::Labelled => label.is_some(),
            EntryFilter::All => entry.kind != EntryKind::Label,
        };
        kind && (self.terms.is_empty() || {
            let text = format!("{} {}", entry.content, label.unwrap_or_default()).to_lowercase();
            self.terms.iter().all(|term| text.contains(term.as_str()))
        })
    }
}

/// Entries that hang off the leaf without being part of the conversation.
fn is_annotation(entry: &Entry) -> bool {
    matches!(entry.kind, EntryKind::Label | EntryKind::Summary)
}

/// An attribute value, escaped.
fn attr(text: &str) -> String {
    let mut out = String::new();
    escape(text, &mut out);
    out
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
