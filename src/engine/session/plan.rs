//! The tutor's plan: which point it asks about, at which rung, with which resources it may
//! show, and what it must not give away.

use warren_app::api::ResourceKind;

use crate::engine::struggle::{self, Struggles};
use crate::engine::turn::TutorPlan;
use crate::llm::brief::{Focus, PointBrief, ResourceBrief, ShowTool, Showable};
use crate::store::{Point, Resource, Speaker};

use super::LiveSession;

impl LiveSession {
    /// A point as the agents read it; in a review, with the name of its set.
    pub fn point_brief(&self, point: &Point) -> PointBrief {
        PointBrief {
            id: point.id.clone(),
            content: point.content.clone(),
            context: point.context.clone(),
            set: self.is_review().then(|| self.set_of(&point.id).map(|s| s.name.clone())).flatten(),
        }
    }

    /// Points the evaluator may check off now (see [`struggle::can_be_credited`]).
    pub fn creditable_briefs(&self) -> Vec<PointBrief> {
        self.pending()
            .into_iter()
            .filter(|p| struggle::can_be_credited(&self.struggles, &p.id))
            .map(|p| self.point_brief(p))
            .collect()
    }

    /// How its open points take turns (see [`struggle::AskOrder`]).
    pub fn ask_order(&self) -> struggle::AskOrder {
        if self.is_review() { struggle::AskOrder::Session } else { struggle::AskOrder::Overdue }
    }

    /// The point under discussion: the first in the asking order.
    pub fn discussed(&self) -> Option<&Point> {
        struggle::ask_order(&self.pending(), &self.struggles, self.ask_order()).first().copied()
    }

    /// The tutor's words so far on the main line: the last of them, which the next reply must
    /// not repeat.
    pub fn last_tutor_reply(&self) -> Option<String> {
        self.main_line()
            .into_iter()
            .rev()
            .find(|e| e.is_message_from(Speaker::Tutor))
            .map(|e| e.content.clone())
    }

    /// What the tutor is about to ask: the pending points in asking order, and the point under
    /// discussion with its rung and notes.
    pub fn plan(&self, focus: Option<&str>, revisit: bool) -> TutorPlan {
        self.plan_as_if(&self.struggles, focus, revisit, &[])
    }

    /// The resources recalling `point_id` shows: those linked to it closely (relevance 0.5 or
    /// more), to reinforce what was retrieved, once every other point of this session they are
    /// as close to is recalled too (or in `also`): a passage behind several points, shown after
    /// the first, would give the others away.
    pub fn unlocked_by<'a>(
        &'a self,
        point_id: &'a str,
        also: &'a [String],
    ) -> impl Iterator<Item = &'a Resource> {
        let close =
            |r: &'a Resource| r.points.iter().filter(|(_, relevance)| *relevance >= 0.5).map(|(p, _)| p);
        let open = move |p: &String| {
            p != point_id
                && !also.contains(p)
                && !self.is_recalled(p)
                && self.points.iter().any(|q| q.id == *p)
        };
        self.resources.iter().filter(move |r| close(r).any(|p| p == point_id) && !close(r).any(open))
    }

    /// The same, for struggles that are not (yet) the session's, as if the points `recalled`
    /// had just been recalled and their resources shown: what the plan will be, for the tutor
    /// that starts before the evaluator answers.
    pub fn plan_as_if(
        &self,
        struggles: &Struggles,
        focus: Option<&str>,
        revisit: bool,
        recalled: &[String],
    ) -> TutorPlan {
        let pending: Vec<&Point> = self.pending().into_iter().filter(|p| !recalled.contains(&p.id)).collect();
        let pending = struggle::ask_order(&pending, struggles, self.ask_order());
        let focus = focus.and_then(|id| self.points.iter().find(|p| p.id == id)).map(|point| {
            let struggle = struggles.get(&point.id).cloned().unwrap_or_default();
            Focus {
                point: self.point_brief(point),
                rung: struggle.rung,
                attempts: struggle.attempts,
                revisit,
                notes: self.notes_for(&point.id),
                close: None,
            }
        });
        // Points the learner has not tried: the tutor's reply must not give them away.
        let untried = pending
            .iter()
            .filter(|p| struggles.get(&p.id).is_none_or(|s| s.attempts == 0 && !s.revealed))
            .map(|p| self.point_brief(p))
            .collect();
        TutorPlan {
            notes: if pending.is_empty() { self.resource_briefs() } else { Vec::new() },
            pending: pending.into_iter().map(|p| self.point_brief(p)).collect(),
            untried,
            focus,
            previous_reply: self.last_tutor_reply(),
            showable: self
                .showable()
                .into_iter()
                .filter(|s| !recalled.iter().any(|p| self.unlocked_by(p, recalled).any(|r| r.id == s.id)))
                .collect(),
            ..TutorPlan::default()
        }
    }

    /// Resources the tutor may still show: those of a kind it can show, not shown yet.
    pub fn showable(&self) -> Vec<Showable> {
        self.resources
            .iter()
            .filter(|r| !self.shown.contains(&r.id))
            // An image with no address has nothing to show.
            .filter(|r| r.kind == ResourceKind::Text || r.url.is_some())
            .map(|r| Showable {
                id: r.id.clone(),
                tool: ShowTool::for_kind(r.kind),
                title: r.title.clone(),
                points: r.points.iter().map(|(p, _)| p.clone()).collect(),
            })
            .collect()
    }

    /// Text resources linked to a point.
    fn notes_for(&self, point_id: &str) -> Vec<ResourceBrief> {
        self.resources
            .iter()
            .filter(|r| r.kind == ResourceKind::Text && r.points.iter().any(|(p, _)| p == point_id))
            .map(|r| ResourceBrief { title: r.title.clone(), body: r.body.clone() })
            .collect()
    }

    pub fn resource_briefs(&self) -> Vec<ResourceBrief> {
        self.resources
            .iter()
            .filter(|r| r.kind == ResourceKind::Text)
            .map(|r| ResourceBrief { title: r.title.clone(), body: r.body.clone() })
            .collect()
    }
}
