use serde_json::json;
use warren_app::api::ResourceKind;
use warren_app::learner::LearnerId;
use warren_app::protocol::{SessionMode, SessionStatus};

use super::frames::OVERLAY_MESSAGE;
use super::*;
use crate::engine::agents::explorer::opening_prompt;
use crate::llm::{Message, Role};
use crate::store::{FsrsCard, NewEntry, SessionState};

fn point(id: &str) -> Point {
    Point {
        id: id.into(),
        set_id: "set".into(),
        position: 0,
        content: format!("fact {id}"),
        context: String::new(),
        card: FsrsCard::new(0),
    }
}

fn row(targets: &[&str]) -> SessionRow {
    SessionRow {
        id: "s".into(),
        learner: LearnerId::new("me"),
        set_id: Some("set".into()),
        target_point_ids: targets.iter().map(|t| t.to_string()).collect(),
        leaf_id: None,
        started_at: 0,
        updated_at: 1_000,
        state: SessionState {
            status: SessionStatus::InProgress,
            mode: SessionMode::Recall,
            active_rabbithole_id: None,
            decline_cooldown: 0,
            overlay_dismissed: false,
            active_ms: 0,
            resumed_at: None,
            ended_at: None,
        },
    }
}

fn set() -> RecallSet {
    RecallSet {
        id: "set".into(),
        learner: LearnerId::new("me"),
        name: "Set".into(),
        description: String::new(),
        guidelines: String::new(),
        archived_at: None,
    }
}

fn session(targets: &[&str], points: &[&str]) -> LiveSession {
    LiveSession::from_rows(
        row(targets),
        vec![set()],
        points.iter().map(|p| point(p)).collect(),
        vec![],
        vec![],
        vec![],
        vec![],
        Struggles::new(),
    )
}

/// Appends an entry under the leaf, as the store would.
fn push(s: &mut LiveSession, new: NewEntry, at: i64) -> String {
    let id = format!("e{}", s.tree.len() + 1);
    s.tree.push(Entry {
        id: id.clone(),
        session_id: "s".into(),
        parent_id: s.row.leaf_id.clone(),
        seq: s.tree.len() as i64 + 1,
        created_at: at,
        kind: new.kind,
        speaker: new.speaker,
        content: new.content,
        data: new.data,
        client_message_id: new.client_message_id,
    });
    s.row.leaf_id = Some(id.clone());
    id
}

fn say(s: &mut LiveSession, speaker: Speaker, text: &str, at: i64) -> String {
    push(s, NewEntry::message(speaker, text), at)
}

fn recall(s: &mut LiveSession, point: &str, at: i64, in_rabbithole: bool) {
    s.outcomes.push(OutcomeRow {
        point_id: point.into(),
        rating: warren_app::schedule::Rating::Good,
        confidence: 1.0,
        entry_id: None,
        in_rabbithole,
        recalled_at: at,
    });
}

fn contents(messages: &[Message]) -> Vec<(Role, &str)> {
    messages.iter().map(|m| (m.role, m.content.as_str())).collect()
}

#[test]
fn points_deleted_since_the_start_drop_out_and_the_rest_keep_their_order() {
    let s = session(&["b", "gone", "a"], &["a", "b"]);
    let ids: Vec<&str> = s.points.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["b", "a"]);
    assert_eq!(s.total(), 2);
}

#[test]
fn a_clock_left_running_by_a_crash_counts_up_to_the_last_change() {
    let mut r = row(&["a"]);
    r.state.active_ms = 5_000;
    r.state.resumed_at = Some(400);
    let s = LiveSession::from_rows(
        r,
        vec![set()],
        vec![point("a")],
        vec![],
        vec![],
        vec![],
        vec![],
        Struggles::new(),
    );
    // updated_at is 1_000: 600 ms of the stretch counted, and the clock stopped.
    assert_eq!(s.row.state.active_ms, 5_600);
    assert_eq!(s.row.state.resumed_at, None);
    assert_eq!(s.elapsed_ms(99_999), 5_600);
}

#[test]
fn the_clock_runs_while_resumed_and_folds_when_stopped() {
    let mut s = session(&["a"], &["a"]);
    s.row.state.active_ms = 1_000;
    s.row.state.resumed_at = Some(10_000);
    assert_eq!(s.elapsed_ms(12_500), 3_500);
    // A clock running backwards (another machine's time) adds nothing.
    assert_eq!(s.elapsed_ms(9_000), 1_000);
    s.fold_clock(14_000);
    assert_eq!((s.row.state.active_ms, s.row.state.resumed_at), (5_000, None));
    assert_eq!(s.elapsed_ms(20_000), 5_000);
}

#[test]
fn the_overlay_shows_once_everything_is_recalled_until_dismissed() {
    let mut s = session(&["a", "b"], &["a", "b"]);
    recall(&mut s, "a", 1, false);
    assert!(s.overlay(0).is_none(), "one point still open");
    // b is said back only after its answer was given.
    s.struggles.insert("b".into(), crate::store::Struggle { revealed: true, ..Default::default() });
    recall(&mut s, "b", 2, false);
    let overlay = s.overlay(0).expect("everything recalled");
    assert_eq!((overlay.recalled_count, overlay.given_answer, overlay.total_points), (2, 1, 2));
    assert_eq!(overlay.after_hints, 0, "an answer given is not a hint");
    s.struggles.insert("a".into(), crate::store::Struggle { hints: 1, ..Default::default() });
    assert_eq!(s.overlay(0).map(|o| o.after_hints), Some(1), "a recalled after a hint");
    assert_eq!(overlay.message, OVERLAY_MESSAGE);
    s.row.state.mode = SessionMode::Rabbithole;
    assert!(s.overlay(0).is_none(), "it waits for the rabbit hole's end");
    s.row.state.mode = SessionMode::Recall;
    s.row.state.overlay_dismissed = true;
    assert!(s.overlay(0).is_none(), "dismissed");
    // A recall of a point outside the session changes nothing.
    let mut t = session(&["a"], &["a"]);
    recall(&mut t, "elsewhere", 1, false);
    assert_eq!(t.recalled_count(), 0);
    assert!(t.overlay(0).is_none());
}

#[test]
fn the_tutor_sees_the_main_line_with_a_branch_summary_and_never_the_branch() {
    let mut s = session(&["a"], &["a"]);
    say(&mut s, Speaker::Tutor, "What do you remember?", 1);
    say(&mut s, Speaker::Learner, "Tides?", 2);
    let branch_from = s.row.leaf_id.clone();
    s.rabbitholes.push(RabbitholeRow {
        id: "r".into(),
        session_id: "s".into(),
        topic: "tides".into(),
        label: "Tides".into(),
        status: RabbitholeStatus::Entered,
        trigger_entry_id: branch_from.clone(),
        branch_from_id: branch_from.clone(),
        conversation: None,
        detection: None,
        points_recalled: 0,
        created_at: 2,
        updated_at: 2,
    });
    s.row.state.mode = SessionMode::Rabbithole;
    s.row.state.active_rabbithole_id = Some("r".into());
    push(&mut s, NewEntry::note(EntryKind::ModeChange, "", serde_json::json!({})), 3);
    say(&mut s, Speaker::Explorer, "The moon pulls the sea.", 4);
    say(&mut s, Speaker::Learner, "And the sun?", 5);
    recall(&mut s, "a", 5, true);

    // Inside: the tutor's context stops where the branch began.
    assert_eq!(
        contents(&s.tutor_context()),
        [(Role::Assistant, "What do you remember?"), (Role::User, "Tides?")]
    );
    assert_eq!(s.learner_messages_in_recall(), 1);
    assert_eq!(s.recalled_in_rabbithole(), 1);
    // The explorer sees the opt-in, then its own branch; the learner's latest message once.
    let explorer = s.explorer_history();
    assert_eq!(explorer[0].content, opening_prompt("tides"));
    assert_eq!(
        contents(&explorer[1..]),
        [(Role::Assistant, "The moon pulls the sea."), (Role::User, "And the sun?")]
    );
    // The judges see recent messages without the latest learner one.
    assert_eq!(s.judge_context().last().map(|m| m.content.as_str()), Some("The moon pulls the sea."));
    assert_eq!(s.unanswered_message().map(|e| e.content.as_str()), Some("And the sun?"));

    // Back on the main line: the summary hangs from where the branch began.
    s.row.leaf_id = branch_from;
    s.row.state.mode = SessionMode::Recall;
    s.row.state.active_rabbithole_id = None;
    push(&mut s, NewEntry::note(EntryKind::BranchSummary, "Explored tides.", serde_json::json!({})), 6);
    assert_eq!(
        contents(&s.tutor_context()),
        [
            (Role::Assistant, "What do you remember?"),
            (Role::User, "Tides?"),
            (Role::User, "(Side note: Explored tides.)"),
        ]
    );
    assert_eq!(s.current_agent_text(), "What do you remember?");
    assert!(s.unanswered_message().is_none());
}

#[test]
fn the_plan_asks_the_discussed_point_at_its_rung_and_hides_what_cannot_be_credited() {
    let mut s = session(&["a", "b"], &["a", "b"]);
    s.points[1].card.due_at = -5; // b is more overdue
    for p in &mut s.points {
        p.card.reps = 1; // reviewed before: new points go in the set's order
    }
    s.resources.push(Resource {
        id: "r".into(),
        kind: ResourceKind::Text,
        title: "Notes on b".into(),
        body: "b is for bees.".into(),
        url: None,
        mime_type: None,
        licence: None,
        points: vec![("b".into(), 1.0)],
    });
    s.struggles.insert(
        "b".into(),
        crate::store::Struggle { attempts: 2, rung: warren_app::ladder::Rung::Nudge, ..Default::default() },
    );
    assert_eq!(s.discussed().map(|p| p.id.as_str()), Some("b"));
    say(&mut s, Speaker::Tutor, "A nudge.", 1);
    let plan = s.plan(Some("b"), false);
    let focus = plan.focus.expect("a focus");
    assert_eq!(
        (focus.point.id.as_str(), focus.rung, focus.attempts),
        ("b", warren_app::ladder::Rung::Nudge, 2)
    );
    assert_eq!(focus.notes.len(), 1);
    assert_eq!(plan.pending.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["b", "a"]);
    assert_eq!(plan.previous_reply.as_deref(), Some("A nudge."));
    // At the answer rung, saying it back earns no credit.
    if let Some(b) = s.struggles.get_mut("b") {
        b.rung = warren_app::ladder::Rung::Answer;
    }
    assert_eq!(s.creditable_briefs().iter().map(|p| p.id.as_str()).collect::<Vec<_>>(), ["a"]);
}

#[test]
fn a_resource_behind_several_points_is_unlocked_only_when_all_of_them_are_recalled() {
    let mut s = session(&["a", "b", "c"], &["a", "b", "c"]);
    let resource = |id: &str, points: &[(&str, f64)]| Resource {
        id: id.into(),
        kind: ResourceKind::Text,
        title: id.into(),
        body: "The passage the points were drafted from.".into(),
        url: None,
        mime_type: None,
        licence: None,
        points: points.iter().map(|(p, r)| (p.to_string(), *r)).collect(),
    };
    // "passage" supports a and b closely, c loosely; "own" only a; "elsewhere" a and a point
    // of another session.
    s.resources.push(resource("passage", &[("a", 1.0), ("b", 0.8), ("c", 0.2)]));
    s.resources.push(resource("own", &[("a", 1.0)]));
    s.resources.push(resource("elsewhere", &[("a", 1.0), ("z", 1.0)]));
    let unlocked = |s: &LiveSession, p: &str, also: &[String]| -> Vec<String> {
        s.unlocked_by(p, also).map(|r| r.id.clone()).collect()
    };
    recall(&mut s, "a", 1, false);
    assert_eq!(unlocked(&s, "a", &[]), ["own", "elsewhere"], "b is still to be recalled");
    assert_eq!(unlocked(&s, "a", &["b".into()]), ["passage", "own", "elsewhere"]);
    recall(&mut s, "b", 2, false);
    assert_eq!(unlocked(&s, "b", &[]), ["passage"], "the loosely linked c does not hold it back");
}

#[test]
fn a_long_main_line_is_planned_for_compaction_and_read_through_its_summary() {
    let mut s = session(&["a"], &["a"]);
    say(&mut s, Speaker::Tutor, "What do you remember?", 0);
    for i in 1..60 {
        say(&mut s, Speaker::Learner, &format!("answer {i} with a few more words in it"), i);
        say(&mut s, Speaker::Tutor, &format!("question {i}, asked in a few more words"), i);
    }
    let budget = 400;
    let before = tokens(&s.tutor_context());
    assert!(before > budget);
    let plan = s.compaction_plan(budget).expect("over three quarters of the budget");
    assert_eq!(plan.tokens_before, before);
    assert!(plan.previous.is_none());
    let kept = s.tree.get(&plan.first_kept_id).expect("on the path").clone();
    assert!(kept.is_message_from(Speaker::Learner), "the kept part starts with the learner");
    assert_eq!(plan.messages.first().map(|m| m.content.as_str()), Some("What do you remember?"));

    push(
        &mut s,
        NewEntry::note(
            EntryKind::Compaction,
            "They tried hard.",
            json!({"firstKeptEntryId": plan.first_kept_id}),
        ),
        100,
    );
    let context = s.tutor_context();
    assert_eq!(context[0].content, "(Earlier in this session, in summary: They tried hard.)");
    assert_eq!(context[1].content, kept.content);
    assert_eq!(context.last().map(|m| m.content.as_str()), Some("question 59, asked in a few more words"));
    let after = tokens(&context);
    assert!(after <= budget / 2, "{after} tokens after compaction");
    assert!(s.compaction_plan(budget).is_none(), "nothing more to condense yet");

    // The next compaction folds this one's summary in.
    for i in 60..90 {
        say(&mut s, Speaker::Learner, &format!("answer {i} with a few more words in it"), i);
        say(&mut s, Speaker::Tutor, &format!("question {i}, asked in a few more words"), i);
    }
    let plan = s.compaction_plan(budget).expect("over budget again");
    assert_eq!(plan.previous.as_deref(), Some("They tried hard."));
    assert_eq!(plan.messages[0].content, kept.content, "it condenses from the last kept entry on");
}
