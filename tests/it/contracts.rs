//! Prompt contracts: a scripted session through the real prompt builders, against a local
//! server speaking each provider's wire format, with every request each agent receives checked
//! against the rules it must keep.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use warren_app::protocol::ServerMessage;

use crate::common::fake_llm::{FakeLlm, Reply, Wire, anthropic_system, recalls_in};
use crate::common::{TestApp, Ws};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agent {
    Tutor,
    Evaluator,
    Detector,
    Explorer,
    Summariser,
    BranchNote,
    SessionSummariser,
}

/// One request as an agent sent it, whatever the wire format.
#[derive(Clone, Debug)]
struct Sent {
    agent: Agent,
    system: String,
    /// (role, content), in order.
    messages: Vec<(String, String)>,
}

impl Sent {
    fn read(body: &Value) -> Sent {
        let mut messages: Vec<(String, String)> = body["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .map(|m| {
                        let content = m["content"].as_str().unwrap_or_default().to_string();
                        (m["role"].as_str().unwrap_or_default().to_string(), content)
                    })
                    .collect()
            })
            .unwrap_or_default();
        // OpenAI's system prompt is its first message; Anthropic's has its own field.
        let system = match anthropic_system(body) {
            Some(system) => system,
            None if messages.first().is_some_and(|(role, _)| role == "system") => messages.remove(0).1,
            None => String::new(),
        };
        let agent = if system.contains("recall facilitator") {
            Agent::Tutor
        } else if system.contains("You check which recall points") {
            Agent::Evaluator
        } else if system.contains("for tangents") {
            Agent::Detector
        } else if system.contains("exploring a tangent") {
            Agent::Explorer
        } else if system.contains("You keep the record of a recall session") {
            Agent::Summariser
        } else if system.contains("took a side conversation") {
            Agent::BranchNote
        } else if system.contains("You write the record of a recall session") {
            Agent::SessionSummariser
        } else {
            panic!("a request from no known agent: {system}")
        };
        Sent { agent, system, messages }
    }

    /// The learner's latest message, for the judges.
    fn judged(&self) -> String {
        let user = self.messages.last().map(|(_, c)| c.as_str()).unwrap_or_default();
        user.split_once("Latest learner message:\n").map(|(_, m)| m.trim().to_string()).unwrap_or_default()
    }

    fn everything(&self) -> String {
        let mut all = self.system.clone();
        for (_, content) in &self.messages {
            all.push('\n');
            all.push_str(content);
        }
        all
    }
}

/// The evaluator's observation about a message: unique to it, so where it goes can be traced.
fn observation(message: &str) -> String {
    format!("OBSERVED<{message}>")
}

/// Answers as each agent would: the evaluator recalls a point whose whole content the message
/// holds and observes every message; the detector fires on "TANGENT"; the tutor and the
/// explorer say something new each time.
fn answerer() -> impl Fn(&Value) -> Reply + Send + Sync + 'static {
    let count = Arc::new(AtomicUsize::new(0));
    move |body| {
        let sent = Sent::read(body);
        let n = count.fetch_add(1, Ordering::Relaxed);
        let text = match sent.agent {
            Agent::Evaluator => {
                let message = sent.judged();
                let recalled = recalls_in(&sent.system, &message);
                json!({"recalled": recalled, "nearMisses": [], "observation": observation(&message)})
                    .to_string()
            }
            Agent::Detector => {
                let tangent = sent.judged().contains("TANGENT");
                json!({"isRabbithole": tangent, "topic": "why the tides rise", "depth": 1,
                       "relatedToCurrentPoint": false, "relatedRecallPointIds": [],
                       "confidence": if tangent { 0.9 } else { 0.1 }, "reasoning": "scripted"})
                .to_string()
            }
            Agent::Tutor => format!("Tutor question number {n}?"),
            Agent::Explorer => format!("Explorer thought number {n}."),
            Agent::Summariser => format!("Summary number {n}: the learner kept trying."),
            Agent::BranchNote => "NOTE: the learner wondered what pulls the sea.".to_string(),
            Agent::SessionSummariser => json!({
                "overview": format!("Session summary number {n}."),
                "rabbitholes": [{"topic": "why the tides rise", "cameUp": "The moon and the sun."}],
                "hard": ["Scripted hard part."],
                "nextSteps": ["Scripted next step."]
            })
            .to_string(),
        };
        Reply::Said(text)
    }
}

/// Says something and returns the rabbit hole offered in reply, if one was.
async fn say(ws: &mut Ws, text: &str) -> Option<(String, String)> {
    ws.say(text).await.into_iter().find_map(|m| match m {
        ServerMessage::RabbitholeDetected(d) => Some((d.rabbithole_event_id, d.topic)),
        _ => None,
    })
}

/// The whole scripted session; returns what every agent was sent, in order, and the points.
async fn scripted_session(wire: Wire) -> (Vec<Sent>, Vec<warren::store::Point>, FakeLlm) {
    let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answerer()))).await;
    let app = TestApp::on_fake(wire, &fake).await;
    let (session, points) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;

    // Exchanges 1 and 2 are quiet whatever is said; the detector first hears exchange 3.
    assert_eq!(say(&mut ws, "TANGENT one: is the moon made of rock?").await, None);
    assert_eq!(say(&mut ws, "TANGENT two: and the sun?").await, None);
    let offer = say(&mut ws, "TANGENT three: why do the tides rise?").await;
    assert!(offer.is_some(), "exchange 3 is heard");
    ws.send(json!({"type": "decline_rabbithole"})).await;
    // Three messages of cooldown, then the detector listens again.
    for text in ["TANGENT cool one", "TANGENT cool two", "TANGENT cool three"] {
        assert_eq!(say(&mut ws, text).await, None, "{text} falls in the cooldown");
    }
    let (hole, topic) =
        say(&mut ws, "TANGENT after the cooldown: what pulls the sea?").await.expect("offered");

    ws.send(json!({"type": "enter_rabbithole", "rabbitholeEventId": hole, "topic": topic})).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("Inside the hole: TANGENT does the moon pull the sea?").await;
    ws.say("Inside the hole, again: and the sun as well?").await;
    ws.send(json!({"type": "exit_rabbithole"})).await;
    ws.until(|m| matches!(m, ServerMessage::RabbitholeExited(_))).await;

    // A point no rung has given away yet (the first two were revealed by now), so it counts.
    let frames = ws.say(&format!("Back on track: {}", points[2].content)).await;
    assert_eq!(crate::common::recalled_ids(&frames), vec![points[2].id.clone()], "{wire:?}");
    ws.say("And after that recall, something else entirely.").await;
    let sent = fake.received().iter().map(|r| Sent::read(&r.body)).collect();
    (sent, points, fake)
}

const WIRES: [Wire; 2] = [Wire::Anthropic, Wire::OpenAi];

#[tokio::test]
async fn every_conversation_starts_with_the_learner_alternates_and_repeats_no_message() {
    for wire in WIRES {
        let (sent, _, _) = scripted_session(wire).await;
        assert!(sent.iter().any(|s| s.agent == Agent::Explorer), "{wire:?}: the explorer was asked");
        for (i, s) in sent.iter().enumerate() {
            let roles: Vec<&str> = s.messages.iter().map(|(r, _)| r.as_str()).collect();
            assert_eq!(
                roles.first(),
                Some(&"user"),
                "{wire:?} request {i} ({:?}) starts with the learner",
                s.agent
            );
            for pair in roles.windows(2) {
                assert_ne!(
                    pair[0], pair[1],
                    "{wire:?} request {i} ({:?}): roles alternate: {roles:?}",
                    s.agent
                );
            }
            let mut seen = std::collections::HashSet::new();
            for message in &s.messages {
                assert!(seen.insert(message), "{wire:?} request {i} ({:?}) repeats {message:?}", s.agent);
            }
        }
    }
}

#[tokio::test]
async fn the_explorer_hears_each_message_once_and_sees_its_branch_the_description_and_notes_not_the_checklist()
 {
    for wire in WIRES {
        let (sent, points, _) = scripted_session(wire).await;
        let explorer: Vec<&Sent> = sent.iter().filter(|s| s.agent == Agent::Explorer).collect();
        assert_eq!(explorer.len(), 3, "{wire:?}: the opening and two answers");
        // The opening: the opt-in, once.
        assert_eq!(explorer[0].messages.len(), 1, "{wire:?}: {:?}", explorer[0].messages);
        assert!(explorer[0].messages[0].1.contains("I'm curious about"));
        // Each answer: the branch so far, ending with the message to answer, each once.
        let last = &explorer[2].messages;
        assert_eq!(last.len(), 5, "{wire:?}: opt-in, opening, message, answer, message: {last:?}");
        assert_eq!(last[4].1, "Inside the hole, again: and the sun as well?");
        assert_eq!(last.iter().filter(|(_, c)| c.starts_with("Inside the hole")).count(), 2);
        for s in &explorer {
            assert!(
                s.system.contains("The main parts of a eukaryotic cell"),
                "{wire:?}: the set's description"
            );
            assert!(s.system.contains("Where mitochondria came from"), "{wire:?}: the learner's notes");
            for p in &points {
                assert!(
                    !s.everything().contains(&p.content),
                    "{wire:?}: the explorer never sees the checklist"
                );
            }
            // Nothing from the main line before the hole.
            assert!(!s.everything().contains("TANGENT one"), "{wire:?}");
        }
    }
}

#[tokio::test]
async fn the_tutor_sees_the_main_line_only_and_an_observation_only_in_the_reply_it_changed() {
    for wire in WIRES {
        let (sent, _, _) = scripted_session(wire).await;
        let tutor: Vec<&Sent> = sent.iter().filter(|s| s.agent == Agent::Tutor).collect();
        // While the learner is in the hole the tutor is not asked at all, and its first
        // request after the return is the one before the hole with only the note and the
        // new message added.
        let entered = sent.iter().position(|s| s.agent == Agent::Explorer).unwrap();
        let noted = sent.iter().position(|s| s.agent == Agent::BranchNote).unwrap();
        assert!(sent[entered..noted].iter().all(|s| s.agent != Agent::Tutor), "{wire:?}");
        let before = sent[..entered].iter().rev().find(|s| s.agent == Agent::Tutor).unwrap();
        let after = sent[noted..].iter().find(|s| s.agent == Agent::Tutor).unwrap();
        assert_eq!(
            after.messages[..before.messages.len()],
            before.messages[..],
            "{wire:?}: the main line as it was"
        );
        let added: Vec<&str> =
            after.messages[before.messages.len()..].iter().map(|(_, c)| c.as_str()).collect();
        assert!(
            added.len() <= 3 && added.iter().any(|c| c.contains("NOTE: the learner wondered")),
            "{wire:?}: {added:?}"
        );
        assert!(added.last().is_some_and(|c| c.contains("Back on track")), "{wire:?}: {added:?}");
        let after_hole: Vec<&&Sent> =
            tutor.iter().filter(|s| s.everything().contains("Back on track")).collect();
        assert!(after_hole.len() >= 2, "{wire:?}");
        for s in &after_hole {
            let all = s.everything();
            assert!(!all.contains("Inside the hole"), "{wire:?}: no learner message from the branch");
            assert!(!all.contains("Explorer thought"), "{wire:?}: no explorer reply");
            assert!(
                all.contains("NOTE: the learner wondered"),
                "{wire:?}: only the summariser's note on the branch"
            );
        }
        // An observation reaches the tutor only in the reply to its own message, once, and
        // always when the evaluator found something there (the scripted evaluator finds a
        // point in the "Back on track" message alone), unless the reply started before the
        // evaluator answered is kept: then the evaluator's observation reaches no one.
        let evaluated: Vec<String> =
            sent.iter().filter(|s| s.agent == Agent::Evaluator).map(Sent::judged).collect();
        assert!(evaluated.len() >= 10, "{wire:?}: {evaluated:?}");
        for message in evaluated.iter().filter(|m| !m.starts_with("Inside the hole")) {
            let holders: Vec<&&Sent> =
                tutor.iter().filter(|s| s.system.contains(&observation(message))).collect();
            let found = message.starts_with("Back on track");
            assert!(holders.len() <= 1, "{wire:?}: the observation on {message:?}");
            if found && holders.is_empty() {
                // The in-process judges found the point first, the tutor started on their
                // verdict, and that reply was kept: it heard their observation instead.
                let replies: Vec<&&Sent> = tutor
                    .iter()
                    .filter(|s| s.messages.last().is_some_and(|(_, c)| c.ends_with(message.as_str())))
                    .collect();
                assert_eq!(replies.len(), 1, "{wire:?}: the early reply, kept, on {message:?}");
                assert!(
                    replies[0].system.contains("The learner recalled a point in their own words."),
                    "{wire:?}: the in-process judges' observation on {message:?}"
                );
            }
            for holder in holders {
                let (role, last) = holder.messages.last().unwrap();
                assert_eq!(role, "user");
                assert!(last.ends_with(message.as_str()), "{wire:?}: in the reply to {message:?}, not later");
                assert!(
                    holder.messages.iter().all(|(_, c)| !c.contains("OBSERVED<")),
                    "{wire:?}: never in the conversation"
                );
            }
        }
        // Inside the hole the evaluator checks silently: no observation reaches anyone.
        for s in sent.iter().filter(|s| s.agent != Agent::Evaluator) {
            assert!(!s.everything().contains("OBSERVED<Inside the hole"), "{wire:?}");
        }
    }
}

#[tokio::test]
async fn the_branch_note_is_written_from_the_rabbit_hole_alone_and_names_no_open_point() {
    for wire in WIRES {
        let (sent, points, _) = scripted_session(wire).await;
        let notes: Vec<&Sent> = sent.iter().filter(|s| s.agent == Agent::BranchNote).collect();
        assert_eq!(notes.len(), 1, "{wire:?}: one note for the one rabbit hole");
        let all = notes[0].everything();
        assert!(all.contains("Topic: why the tides rise"), "{wire:?}: {all}");
        assert!(
            all.contains("Inside the hole, again: and the sun as well?"),
            "{wire:?}: the branch's messages"
        );
        assert!(all.contains("Explorer thought"), "{wire:?}: the explorer's answers");
        assert!(!all.contains("TANGENT one"), "{wire:?}: nothing from the main line");
        for p in &points {
            assert!(
                !all.contains(&p.content),
                "{wire:?}: no point was recalled in the hole, so none is named"
            );
        }
    }
}

#[tokio::test]
async fn the_tutors_system_prompt_is_role_guidelines_and_safety_first_then_this_replys_own() {
    for wire in WIRES {
        let (sent, _, _) = scripted_session(wire).await;
        let tutor: Vec<&Sent> = sent.iter().filter(|s| s.agent == Agent::Tutor).collect();
        assert!(tutor.len() >= 10, "{wire:?}");
        for s in tutor {
            let role = s.system.find("You are a recall facilitator").expect("the role");
            let guidelines = s.system.find("Accept everyday wording").expect("the set's guidelines");
            let safety = s.system.find("## CRITICAL: UI-Handled Content").expect("the safety block");
            assert_eq!(role, 0, "{wire:?}: the role comes first");
            assert!(role < guidelines && guidelines < safety, "{wire:?}: {}", s.system);
            // What changes from reply to reply comes after everything that does not.
            let points = s
                .system
                .find("Points not yet recalled")
                .or_else(|| s.system.find("Every point has been recalled"));
            assert!(points.is_some_and(|p| p > safety), "{wire:?}: {}", s.system);
            if let Some(focus) = s.system.find("Point under discussion") {
                assert!(focus > points.unwrap_or_default(), "{wire:?}: {}", s.system);
            }
            // A session of one set reads as it did before reviews across sets existed.
            assert!(
                !s.system.contains("Today's review") && !s.system.contains("[set \""),
                "{wire:?}: {}",
                s.system
            );
        }
        for s in sent.iter().filter(|s| matches!(s.agent, Agent::Evaluator | Agent::Explorer)) {
            assert!(
                !s.system.contains("Today's review") && !s.system.contains("[set \""),
                "{wire:?}: {}",
                s.system
            );
        }
    }
}

/// Each agent's requests of one session, as the provider received them, in order.
async fn requests_of(wire: Wire) -> Vec<Value> {
    let (_, _, fake) = scripted_session(wire).await;
    fake.received().into_iter().map(|r| r.body).collect()
}

#[tokio::test]
async fn every_agents_stable_prompt_comes_first_byte_for_byte_and_anthropic_caches_it() {
    for wire in WIRES {
        let bodies = requests_of(wire).await;
        let mut stable: std::collections::HashMap<String, Vec<String>> = Default::default();
        for body in &bodies {
            let sent = Sent::read(body);
            let agent = format!("{:?}", sent.agent);
            let blocks = body["system"].as_array().cloned().unwrap_or_default();
            let cached: Vec<&Value> = blocks.iter().filter(|b| b.get("cache_control").is_some()).collect();
            match sent.agent {
                // Each summary is its own prompt: nothing to serve again.
                Agent::Summariser | Agent::BranchNote | Agent::SessionSummariser => {
                    assert!(cached.is_empty(), "{agent}: {body}");
                    continue;
                }
                Agent::Tutor | Agent::Evaluator | Agent::Detector | Agent::Explorer => {}
            }
            match wire {
                Wire::Anthropic => {
                    assert!(
                        !cached.is_empty() && cached.len() <= 4,
                        "{wire:?} {agent}: breakpoints in {body}"
                    );
                    for block in &cached {
                        assert_eq!(block["cache_control"], json!({"type": "ephemeral"}), "{agent}");
                    }
                    // The first cached block: what every request of this agent starts with.
                    stable
                        .entry(agent)
                        .or_default()
                        .push(cached[0]["text"].as_str().unwrap_or_default().to_string());
                }
                Wire::OpenAi => {
                    // No breakpoints to mark: the provider caches the longest prefix it has
                    // seen, so the system message must open with the same bytes every time.
                    stable.entry(agent).or_default().push(sent.system.clone());
                }
            }
        }
        for (agent, prompts) in &stable {
            assert!(prompts.len() >= 2, "{wire:?} {agent}: {} requests", prompts.len());
            let common = prompts.iter().skip(1).fold(prompts[0].as_str(), |common, p| {
                let same = common.bytes().zip(p.bytes()).take_while(|(a, b)| a == b).count();
                &common[..common.floor_char_boundary(same)]
            });
            match wire {
                Wire::Anthropic => {
                    assert!(
                        prompts.iter().all(|p| p == &prompts[0]),
                        "{wire:?} {agent}: the cached block changed"
                    )
                }
                Wire::OpenAi => {
                    // The role and the rules at least, the same to the byte in every request.
                    let stable_part = match agent.as_str() {
                        "Tutor" => "## CRITICAL: UI-Handled Content",
                        "Evaluator" => "Answer with JSON only",
                        "Detector" => "Points:",
                        "Explorer" => "Keep responses concise",
                        _ => "",
                    };
                    assert!(common.contains(stable_part), "{wire:?} {agent}: common prefix {common}");
                }
            }
        }
        assert!(
            stable.contains_key("Tutor") && stable.contains_key("Evaluator"),
            "{wire:?}: {:?}",
            stable.keys()
        );
    }
}

#[tokio::test]
async fn the_evaluator_sees_only_unchecked_points_and_the_detector_keeps_its_quiet_times() {
    for wire in WIRES {
        let (sent, points, _) = scripted_session(wire).await;
        let recalled = &points[2].content;
        let evaluator: Vec<&Sent> = sent.iter().filter(|s| s.agent == Agent::Evaluator).collect();
        let after = evaluator.iter().find(|s| s.judged().starts_with("And after that recall")).unwrap();
        assert!(!after.system.contains(recalled.as_str()), "{wire:?}: a recalled point is not judged again");
        assert!(after.system.contains(&points[3].content), "{wire:?}");
        for s in &evaluator {
            let (_, recent) = s.messages[0].1.split_once("Latest learner message:").unwrap();
            let earlier = s.messages[0].1.trim_end_matches(recent);
            assert!(
                !earlier.contains(&s.judged()),
                "{wire:?}: the latest message is not also in the context"
            );
        }

        let heard: Vec<String> =
            sent.iter().filter(|s| s.agent == Agent::Detector).map(Sent::judged).collect();
        assert_eq!(
            heard,
            vec![
                "TANGENT three: why do the tides rise?".to_string(),
                "TANGENT after the cooldown: what pulls the sea?".to_string(),
                "Back on track: ".to_string() + recalled,
                "And after that recall, something else entirely.".to_string(),
            ],
            "{wire:?}: not in exchanges 1 and 2, not in the cooldown, not inside the hole"
        );
    }
}

#[tokio::test]
async fn the_summariser_condenses_the_older_main_line_and_the_tutor_reads_its_summary_first() {
    for wire in WIRES {
        let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answerer()))).await;
        let app = TestApp::on_fake_with(wire, &fake, |c| c.context_tokens = 400).await;
        let (session, points) = app.start("The living cell").await;
        let mut ws = app.connect(&session).await;
        ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
        let mut n = 0;
        while !fake.received().iter().any(|r| Sent::read(&r.body).agent == Agent::Summariser) {
            n += 1;
            assert!(n < 40, "{wire:?}: no compaction after {n} messages");
            ws.say(&format!(
                "Message {n} from the learner, thinking aloud about the question at some length."
            ))
            .await;
        }
        // The summary is written by the actor once it arrives and no turn is under way: wait
        // for it to be stored before the next message, whose reply must read it.
        for _ in 0..200 {
            let entries = app.store().entries(app.owner(), &session).await.unwrap();
            if entries.iter().any(|e| e.kind == warren::store::EntryKind::Compaction) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        ws.say("The message after the compaction.").await;

        let sent: Vec<Sent> = fake.received().iter().map(|r| Sent::read(&r.body)).collect();
        let at = sent.iter().position(|s| s.agent == Agent::Summariser).unwrap();
        let summariser = &sent[at];
        assert!(summariser.system.contains("\"The living cell\""), "{wire:?}: the set's name");
        assert!(summariser.system.contains("at most 150 words"), "{wire:?}");
        assert_eq!(summariser.messages.len(), 1, "{wire:?}: one message with the conversation");
        let (role, body) = &summariser.messages[0];
        assert_eq!(role, "user");
        assert!(body.contains("Conversation to summarise:\nTutor: "), "{wire:?}: {body}");
        assert!(body.contains("Learner: Message 1 from the learner"), "{wire:?}: the oldest messages");
        assert!(!body.contains(&format!("Message {n} from")), "{wire:?}: not the newest");
        for p in &points {
            assert!(!summariser.everything().contains(&p.content), "{wire:?}: never the checklist");
        }
        let summary_number = sent.iter().take(at).count();
        // The tutor's next request reads the summary first, then the kept conversation.
        let tutor = sent.iter().rev().find(|s| s.agent == Agent::Tutor).unwrap();
        let (role, first) = &tutor.messages[0];
        assert_eq!(role, "user", "{wire:?}");
        assert!(
            first.starts_with(&format!(
                "(Earlier in this session, in summary: Summary number {summary_number}: the learner kept trying.)"
            )),
            "{wire:?}: {first}"
        );
        assert!(!tutor.everything().contains("Message 1 from"), "{wire:?}: the condensed part is gone");
        assert!(tutor.everything().contains("The message after the compaction."), "{wire:?}");
    }
}

/// Today's review over the demo sets, scripted: a rabbit hole taken from a point of one set,
/// a recall, then leaving (so the session's summary is asked for). Returns what every agent
/// was sent, the points in the order asked, and the name of the first one's set (the point in
/// play when the rabbit hole opens).
async fn scripted_review(wire: Wire) -> (Vec<Sent>, Vec<warren::store::Point>, String) {
    let fake = FakeLlm::start_with(wire, vec![], Some(Arc::new(answerer()))).await;
    let app = TestApp::on_fake(wire, &fake).await;
    let row = app.engine.start_review(app.owner(), 0).await.unwrap();
    let all = app.store().session_points(app.owner(), &row.id).await.unwrap();
    let points: Vec<warren::store::Point> =
        row.target_point_ids.iter().filter_map(|id| all.iter().find(|p| &p.id == id).cloned()).collect();
    let first_set = app.store().set(app.owner(), &points[0].set_id).await.unwrap().expect("its set").name;
    let mut ws = app.connect(&row.id).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    assert_eq!(say(&mut ws, "TANGENT one: is the moon made of rock?").await, None);
    assert_eq!(say(&mut ws, "TANGENT two: and the sun?").await, None);
    let (hole, topic) = say(&mut ws, "TANGENT three: why do the tides rise?").await.expect("offered");
    ws.send(json!({"type": "enter_rabbithole", "rabbitholeEventId": hole, "topic": topic})).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    ws.say("Inside the hole: TANGENT does the moon pull the sea?").await;
    ws.send(json!({"type": "exit_rabbithole"})).await;
    ws.until(|m| matches!(m, ServerMessage::RabbitholeExited(_))).await;
    let frames = ws.say(&format!("Back on track: {}", points[0].content)).await;
    assert_eq!(crate::common::recalled_ids(&frames), vec![points[0].id.clone()], "{wire:?}");
    ws.say("And after that recall, something else entirely.").await;
    ws.send(json!({"type": "leave_session"})).await;
    ws.until(|m| matches!(m, ServerMessage::SessionPaused(_))).await;
    // The summary is written in the background.
    for _ in 0..100 {
        if fake.received().iter().any(|r| Sent::read(&r.body).agent == Agent::SessionSummariser) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let sent = fake.received().iter().map(|r| Sent::read(&r.body)).collect();
    (sent, points, first_set)
}

#[tokio::test]
async fn a_review_across_sets_keeps_every_contract_and_names_each_points_set() {
    const SETS: [(&str, &str); 3] = [
        ("The living cell", "Accept everyday wording"),
        ("Rome: from republic to empire", "Dates within a year or two"),
        ("Searching and sorting", "Big-O notation can be said in words"),
    ];
    for wire in WIRES {
        let (sent, points, first_set) = scripted_review(wire).await;
        for (i, s) in sent.iter().enumerate() {
            let roles: Vec<&str> = s.messages.iter().map(|(r, _)| r.as_str()).collect();
            assert_eq!(roles.first(), Some(&"user"), "{wire:?} request {i} ({:?})", s.agent);
            assert!(roles.windows(2).all(|p| p[0] != p[1]), "{wire:?} request {i}: {roles:?}");
        }
        let tutor: Vec<&Sent> = sent.iter().filter(|s| s.agent == Agent::Tutor).collect();
        assert!(tutor.len() >= 5, "{wire:?}");
        for s in &tutor {
            assert_eq!(s.system.find("You are a recall facilitator"), Some(0), "{wire:?}");
            assert!(s.system.contains("Today's review, across the learner's recall sets"), "{wire:?}");
            for (name, _) in SETS {
                assert!(
                    s.system.contains(&format!("- \"{name}\": ")),
                    "{wire:?}: {name} listed with its description"
                );
            }
            // One set's guidelines at most, that of the point under discussion.
            let shown: Vec<&str> = SETS.iter().map(|(_, g)| *g).filter(|g| s.system.contains(g)).collect();
            assert!(shown.len() <= 1, "{wire:?}: {shown:?} in {}", s.system);
            if let Some(g) = shown.first() {
                let discussed = s.system.split("Point under discussion: \"").nth(1).unwrap_or_default();
                let (set, _) = SETS.iter().find(|(_, guide)| guide == g).unwrap();
                let point = points
                    .iter()
                    .find(|p| discussed.starts_with(p.content.trim()))
                    .expect("a point under discussion");
                let line = s
                    .system
                    .lines()
                    .find(|l| l.contains(point.content.trim()) && l.contains("[set "))
                    .unwrap();
                assert!(line.contains(&format!("[set \"{set}\"]")), "{wire:?}: {line} under {g}");
                // A review's guidelines change with the point: after what stays the same.
                assert!(s.system.find(g) > s.system.find("## CRITICAL: UI-Handled Content"), "{wire:?}");
            }
        }
        for s in sent.iter().filter(|s| s.agent == Agent::Evaluator) {
            let lines: Vec<&str> = s.system.lines().filter(|l| l.starts_with("- id \"")).collect();
            assert!(!lines.is_empty() && lines.iter().all(|l| l.contains("[set \"")), "{wire:?}: {lines:?}");
        }
        // The explorer is told the set of the point under discussion: its name and description.
        let explorer = sent.iter().find(|s| s.agent == Agent::Explorer).expect("the explorer");
        let told: Vec<&str> = SETS.iter().map(|(n, _)| *n).filter(|n| explorer.system.contains(n)).collect();
        assert_eq!(
            told,
            [first_set.as_str()],
            "{wire:?}: one set, that of the point in play: {}",
            explorer.system
        );
        let summary = sent.iter().find(|s| s.agent == Agent::SessionSummariser).expect("the session summary");
        for (name, _) in SETS {
            assert!(summary.system.contains(name), "{wire:?}: {name} in {}", summary.system);
        }
    }
}
