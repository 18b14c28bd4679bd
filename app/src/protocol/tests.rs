use super::*;

fn one_of_each_client_message() -> Vec<ClientMessage> {
    vec![
        ClientMessage::UserMessage { content: "x".into(), client_message_id: None, via: None },
        ClientMessage::LeaveSession,
        ClientMessage::EnterRabbithole { rabbithole_event_id: "r".into(), topic: "t".into() },
        ClientMessage::ExitRabbithole,
        ClientMessage::DeclineRabbithole,
        ClientMessage::DismissOverlay,
        ClientMessage::Ping,
    ]
}

#[test]
fn every_client_message_round_trips_under_its_listed_type() {
    let all = one_of_each_client_message();
    assert_eq!(all.len(), ClientMessageType::ALL.len());
    for (message, expected) in all.iter().zip(ClientMessageType::ALL.iter().map(|t| t.as_str())) {
        let json = serde_json::to_string(message).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["type"], expected);
        assert_eq!(message.type_name(), expected);
        assert_eq!(&parse_client_message(&json).unwrap(), message);
    }
}

#[test]
fn wire_names_are_snake_case_types_and_camel_case_fields() {
    let m = parse_client_message(r#"{"type":"enter_rabbithole","rabbitholeEventId":"e1","topic":"tides"}"#)
        .unwrap();
    assert_eq!(m, ClientMessage::EnterRabbithole { rabbithole_event_id: "e1".into(), topic: "tides".into() });

    let s = ServerMessage::RabbitholeExited(RabbitholeExited {
        label: "Tides".into(),
        points_recalled_during: 2,
        completion_pending: true,
        tutor_text: String::new(),
        tutor_html: String::new(),
    });
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        serde_json::json!({"type":"rabbithole_exited","label":"Tides","pointsRecalledDuring":2,"completionPending":true})
    );
    let e = ServerMessage::Error(ErrorPayload::new(ErrorCode::UnknownMessageType, "m", true));
    assert_eq!(serde_json::to_value(&e).unwrap()["code"], "UNKNOWN_MESSAGE_TYPE");
    assert!(serde_json::to_value(&e).unwrap().get("clientMessageId").is_none());
    let refused = ServerMessage::Error(ErrorPayload {
        client_message_id: Some("c-1".into()),
        ..ErrorPayload::new(ErrorCode::Busy, "m", true)
    });
    assert_eq!(serde_json::to_value(&refused).unwrap()["clientMessageId"], "c-1");
    let big =
        format!(r#"{{"type":"user_message","content":"{}","clientMessageId":"c-2"}}"#, "a".repeat(20_000));
    assert_eq!(client_message_id_in(&big).as_deref(), Some("c-2"));
    assert_eq!(client_message_id_in("{not json"), None);
    assert_eq!(client_message_id_in(r#"{"clientMessageId":""}"#), None);
}

#[test]
fn bad_frames_get_their_codes() {
    let code = |frame: &str| parse_client_message(frame).unwrap_err().code;
    assert_eq!(code("{not json"), ErrorCode::MalformedJson);
    assert_eq!(code("[1,2]"), ErrorCode::InvalidPayload);
    assert_eq!(code(r#"{"content":"hi"}"#), ErrorCode::InvalidPayload);
    assert_eq!(code(r#"{"type":5}"#), ErrorCode::InvalidPayload);
    assert_eq!(code(r#"{"type":"trigger_eval"}"#), ErrorCode::UnknownMessageType);
    assert_eq!(code(r#"{"type":"end_session"}"#), ErrorCode::UnknownMessageType);
    assert_eq!(code(r#"{"type":"user_message"}"#), ErrorCode::InvalidPayload);
    assert_eq!(code(r#"{"type":"user_message","content":42}"#), ErrorCode::InvalidPayload);
    assert_eq!(code(r#"{"type":"user_message","content":"   "}"#), ErrorCode::InvalidPayload);
    assert_eq!(code(r#"{"type":"enter_rabbithole","topic":"x"}"#), ErrorCode::InvalidPayload);
    assert_eq!(
        code(r#"{"type":"enter_rabbithole","rabbitholeEventId":1,"topic":"x"}"#),
        ErrorCode::InvalidPayload
    );
    let long = format!(r#"{{"type":"user_message","content":"{}"}}"#, "é".repeat(MAX_MESSAGE_CHARS + 1));
    assert_eq!(code(&long), ErrorCode::MessageTooLong);
    let huge = format!(r#"{{"type":"user_message","content":"{}"}}"#, "a".repeat(MAX_FRAME_BYTES));
    assert_eq!(code(&huge), ErrorCode::FrameTooLarge);
}

fn one_of_each_server_message() -> Vec<ServerMessage> {
    let hole =
        RabbitholeEntered { rabbithole_event_id: "r".into(), topic: "tides".into(), label: "Tides".into() };
    vec![
        ServerMessage::SessionStarted(Box::new(SessionStarted {
            session_id: "s".into(),
            recall_set_name: "Set".into(),
            opening_message: "Hello".into(),
            opening_html: "<p>Hello</p>".into(),
            total_points: 3,
            recalled_count: 1,
            status: SessionStatus::InProgress,
            provider: ProviderInfo {
                kind: ProviderKind::Offline,
                model: "m".into(),
                offline: true,
                label: "l".into(),
            },
            mode: SessionMode::Rabbithole,
            rabbithole: Some(hole.clone()),
            rabbithole_labels: vec!["Tides".into()],
            pending_rabbithole: None,
            overlay: None,
            elapsed_ms: 5,
            streaming_reply: Some("par".into()),
            last_client_message_id: Some("c-1".into()),
            images: vec![ShowImage {
                resource_id: "r1".into(),
                url: "/media/r1".into(),
                caption: Some("Diagram".into()),
                mime_type: Some("image/png".into()),
            }],
            resources: vec![],
            notice: None,
        })),
        ServerMessage::AssistantChunk(AssistantChunk { content: "Wh".into() }),
        ServerMessage::AssistantComplete(AssistantComplete {
            full_content: "What?".into(),
            total_chunks: 2,
            html: "<p>What?</p>".into(),
        }),
        ServerMessage::RecallPointRecalled(RecallPointRecalled {
            point_id: "p".into(),
            point_index: 0,
            recalled_count: 1,
            total_points: 3,
        }),
        ServerMessage::RecallPointNearMiss(RecallPointNearMiss {
            point_id: "p".into(),
            feedback: "close".into(),
        }),
        ServerMessage::RabbitholeDetected(RabbitholeDetected {
            rabbithole_event_id: "r".into(),
            topic: "tides".into(),
            label: "Tides".into(),
            trigger_message_content: "Why do the tides rise?".into(),
        }),
        ServerMessage::RabbitholeEntered(hole),
        ServerMessage::RabbitholeExited(RabbitholeExited {
            label: "Tides".into(),
            points_recalled_during: 1,
            completion_pending: false,
            tutor_text: "Which organelle powers the cell?".into(),
            tutor_html: "<p>Which organelle powers the cell?</p>".into(),
        }),
        ServerMessage::SessionCompleteOverlay(SessionCompleteOverlay {
            message: "done".into(),
            recalled_count: 3,
            given_answer: 1,
            after_hints: 1,
            total_points: 3,
            duration_ms: 9,
        }),
        ServerMessage::SessionPaused(SessionPaused {
            session_id: "s".into(),
            recalled_count: 1,
            total_points: 3,
        }),
        ServerMessage::ShowImage(ShowImage {
            resource_id: "i".into(),
            url: "/demo/cell.svg".into(),
            caption: Some("A cell".into()),
            mime_type: None,
        }),
        ServerMessage::ShowResource(ShowResource {
            resource_id: "t".into(),
            title: "T".into(),
            snippet: "x".into(),
            snippet_html: "<p>x</p>".into(),
            whole_html: "<p>x y</p>".into(),
            after_recall: true,
        }),
        ServerMessage::SessionComplete(SessionComplete {
            summary: SessionCompletionSummary {
                session_id: "s".into(),
                recalled_count: 3,
                total_points: 3,
                duration_ms: 9,
                rabbithole_count: 1,
                recalled_point_ids: vec!["p".into()],
            },
        }),
        ServerMessage::Error(ErrorPayload {
            client_message_id: Some("c".into()),
            ..ErrorPayload::new(ErrorCode::Busy, "m", true)
        }),
        ServerMessage::Pong(Pong { timestamp: 7 }),
        ServerMessage::Resumed(Resumed {
            replayed: 2,
            elapsed_ms: 9,
            last_client_message_id: Some("c".into()),
        }),
        ServerMessage::Notice(Notice {
            code: NoticeCode::ModelAllowanceSpent,
            message: "The offline tutor answers until midnight (UTC).".into(),
            until: Some(86_400_000),
        }),
    ]
}

#[test]
fn every_server_message_round_trips_with_its_type_first() {
    let all = one_of_each_server_message();
    assert_eq!(all.len(), FrameType::ALL.len());
    for message in all {
        let json = serde_json::to_string(&message).unwrap();
        let expected = format!("{{\"type\":\"{}\"", message.frame_type());
        assert!(json.starts_with(&expected), "{json}");
        assert_eq!(serde_json::from_str::<ServerMessage>(&json).unwrap(), message, "{json}");
    }
}

#[test]
fn a_refusal_names_the_message_the_frame_would_have_been() {
    // Found by fuzzing: with the key repeated, the refusal used to name nothing.
    let frame = r#"{"type":"user_message","content":"x","clientMessageId":"a","clientMessageId":"b"}"#;
    let Ok(ClientMessage::UserMessage { client_message_id, .. }) = parse_client_message(frame) else {
        panic!("a valid frame")
    };
    assert_eq!(client_message_id.as_deref(), Some("b"));
    assert_eq!(client_message_id_in(frame).as_deref(), Some("b"));
    assert_eq!(client_message_id_in(r#"{"clientMessageId":7}"#), None);
    assert_eq!(client_message_id_in("[]"), None);
}

#[test]
fn every_frame_carries_its_number_wherever_it_stands() {
    for message in one_of_each_server_message() {
        let timestamp = (message.frame_type() != FrameType::Pong).then_some(1_764_000_000_000);
        let frame = ServerFrame { message: message.clone(), seq: Some(1_700_000_000_000_042), timestamp };
        let json = serde_json::to_string(&frame).unwrap();
        assert!(json.starts_with(&format!("{{\"type\":\"{}\"", message.frame_type())), "{json}");
        assert_eq!(serde_json::from_str::<ServerFrame>(&json).unwrap(), frame, "{json}");
        assert_eq!(serde_json::from_str::<ServerMessage>(&json).unwrap(), message, "{json}");
        let unnumbered =
            serde_json::to_string(&ServerFrame { message: message.clone(), seq: None, timestamp: None })
                .unwrap();
        assert!(!unnumbered.contains("\"seq\""), "{unnumbered}");
        assert_eq!(serde_json::from_str::<ServerFrame>(&unnumbered).unwrap().seq, None);
    }
    let early = r#"{"type":"pong","seq":5,"timestamp":1}"#;
    let frame = serde_json::from_str::<ServerFrame>(early).unwrap();
    assert_eq!((frame.seq, frame.message), (Some(5), ServerMessage::Pong(Pong { timestamp: 1 })));
}

#[test]
fn frames_not_led_by_their_type_are_refused() {
    let read = |json: &str| serde_json::from_str::<ServerMessage>(json).unwrap_err().to_string();
    assert!(read(r#"{"timestamp":1,"type":"pong"}"#).contains("first field"));
    assert!(read(r#"{"type":"tea","timestamp":1}"#).contains("not a known FrameType"));
    assert!(read(r#"{"type":"pong"}"#).contains("timestamp"));
    assert!(read("[1]").contains("frame"));
}

#[test]
fn every_event_maps_to_the_expected_frame() {
    let frame =
        |e: SessionEvent| e.into_server_message().map(|m| serde_json::to_value(m).unwrap()["type"].clone());
    assert_eq!(frame(SessionEvent::AssistantStreamingStart), None);
    assert_eq!(
        frame(SessionEvent::AssistantStreamingEnd {
            full_content: "a".into(),
            total_chunks: 1,
            html: "<p>a</p>".into()
        }),
        Some("assistant_complete".into())
    );
    assert_eq!(
        frame(SessionEvent::SessionCompleted(SessionCompletionSummary {
            session_id: "s".into(),
            recalled_count: 1,
            total_points: 1,
            duration_ms: 5,
            rabbithole_count: 0,
            recalled_point_ids: vec!["p".into()],
        })),
        Some("session_complete".into())
    );
    assert_eq!(frame(SessionEvent::UserMessage { content: "x".into() }), None);
}
