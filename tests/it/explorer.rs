//! The offline explorer inside a rabbit hole, over the real socket: a question one note
//! answers is answered from that note alone; a question no note covers gets a plain "your
//! notes don't cover that".

use warren_app::protocol::ServerMessage;

use crate::common::{TestApp, reply_of};

#[tokio::test]
async fn the_explorer_answers_from_the_note_that_answers_and_says_when_none_does() {
    let app = TestApp::spawn().await;
    let (session, _) = app.start("The living cell").await;
    let mut ws = app.connect(&session).await;
    ws.until(|m| matches!(m, ServerMessage::AssistantComplete(_))).await;
    // The detector keeps quiet for the first two exchanges.
    ws.say("I don't know").await;
    ws.say("No idea, sorry").await;
    let frames = ws.say("Wait, how did mitochondria end up inside cells in the first place?").await;
    // The topic is the phrase a person would write, on the banner, the pill and the history page.
    let offered = frames.iter().find_map(|m| match m {
        ServerMessage::RabbitholeDetected(d) => Some(d.topic.clone()),
        _ => None,
    });
    assert_eq!(offered.as_deref(), Some("how mitochondria ended up inside cells"), "{frames:?}");
    let opening = reply_of(&ws.enter(&frames).await);

    // The set's two notes: where mitochondria came from, and ATP.
    let set =
        app.store().session(app.owner(), &session).await.unwrap().unwrap().set_id.expect("a set session");
    let notes = app.store().resources(app.owner(), &set).await.unwrap();
    let origins = notes.iter().find(|r| r.title == "Where mitochondria came from").unwrap().body.clone();
    // The sentences a reply quotes, between its framing (a lead-in, a closing question).
    let quoted = |reply: &str| -> Vec<String> {
        warren::text::sentences(reply)
            .into_iter()
            .filter(|s| !s.starts_with("Here is what your notes say") && !s.ends_with('?'))
            .collect()
    };
    let said = quoted(&opening);
    assert!(
        !said.is_empty() && said.iter().all(|s| origins.contains(s)),
        "the opening quotes the note on origins: {opening}"
    );

    let answer = reply_of(&ws.say("What is the evidence for endosymbiosis?").await);
    let said = quoted(&answer);
    assert!(
        !said.is_empty() && said.iter().all(|s| origins.contains(s)),
        "the note on origins answers, alone: {answer}"
    );
    for other in ["phosphate", "ADP", "ATP stores"] {
        assert!(!answer.contains(other), "nothing from the note on ATP: {answer}");
    }
    assert!(answer.contains("their own circular DNA"), "the evidence itself: {answer}");

    // Asked about what a reply already quoted: the notes do say it.
    let again = reply_of(&ws.say("Does it explain why mitochondria have their own DNA?").await);
    assert!(!again.starts_with("Your notes don't cover that."), "{again}");
    assert!(again.contains("own circular DNA"), "{again}");
    // A question that reads far from everything, in words the note has.
    let divide = reply_of(&ws.say("Why do they divide on their own?").await);
    assert!(!divide.starts_with("Your notes don't cover that."), "{divide}");
    assert!(divide.contains("divide on their own"), "{divide}");

    let answer = reply_of(&ws.say("How do volcanoes erupt under the sea?").await);
    assert!(answer.starts_with("Your notes don't cover that."), "{answer}");
    assert!(answer.contains("What do you already know about it?"), "{answer}");
}
