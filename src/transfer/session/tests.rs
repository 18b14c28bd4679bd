use super::*;

const V1: &str = r#"{"format":"warren-session","version":1,"session":"s1","set":"Rome","status":"completed","started":1000,"ended":5000}
{"id":"a","parent":null,"ts":1000,"kind":"message","role":"assistant","agent":"tutor","content":"Who founded Rome?"}
{"id":"b","parent":"a","ts":2000,"kind":"message","role":"user","content":"Romulus"}
{"id":"c","parent":"b","ts":3000,"kind":"message","role":"assistant","content":"And then?"}
"#;

#[test]
fn version_one_is_migrated() {
    let file = read(V1).unwrap();
    assert_eq!(file.header.version, 4);
    assert_eq!(file.header.session_id, "s1");
    assert_eq!(file.header.set_name, "Rome");
    assert_eq!(file.header.status, SessionStatus::Completed);
    assert_eq!(file.header.updated_at, 5000);
    assert_eq!(file.header.leaf_id.as_deref(), Some("c"), "the leaf is the last entry");
    let speakers: Vec<_> = file.entries.iter().map(|e| e.speaker).collect();
    assert_eq!(speakers, vec![Some(Speaker::Tutor), Some(Speaker::Learner), Some(Speaker::Tutor)]);
    assert_eq!(file.entries[1].parent_id.as_deref(), Some("a"));
    assert_eq!(file.entries[2].timestamp, 3000);
}

const V2: &str = r#"{"type":"header","format":"warren-session","version":2,"sessionId":"s2","setName":"Cell","status":"paused","startedAt":1,"updatedAt":11,"endedAt":null,"activeMs":5,"leafId":"k","points":["Ribosomes make proteins"],"recalled":[{"point":0,"rating":"good","inRabbithole":true,"at":6}]}
{"type":"entry","id":"a","parentId":null,"timestamp":1,"kind":"message","speaker":"tutor","content":"What do you remember?"}
{"type":"entry","id":"b","parentId":"a","timestamp":2,"kind":"message","speaker":"learner","content":"Mitochondria were bacteria?"}
{"type":"entry","id":"c","parentId":"b","timestamp":3,"kind":"mode_change","content":"","data":{"mode":"rabbithole","rabbitholeId":"h1","topic":"where mitochondria came from"}}
{"type":"entry","id":"d","parentId":"c","timestamp":4,"kind":"message","speaker":"explorer","content":"They were free-living once."}
{"type":"entry","id":"e","parentId":"d","timestamp":5,"kind":"message","speaker":"learner","content":"Swallowed whole?"}
{"type":"entry","id":"f","parentId":"e","timestamp":6,"kind":"message","speaker":"explorer","content":"Engulfed, yes."}
{"type":"entry","id":"g","parentId":"b","timestamp":7,"kind":"branch_summary","content":"Explored mitochondria.","data":{"rabbitholeId":"h1","fromLeafId":"f","pointsRecalledDuring":1}}
{"type":"entry","id":"h","parentId":"g","timestamp":8,"kind":"message","speaker":"tutor","content":"Back to it."}
{"type":"entry","id":"i","parentId":"h","timestamp":9,"kind":"message","speaker":"learner","content":"How do ribosomes read?"}
{"type":"entry","id":"j","parentId":"i","timestamp":10,"kind":"mode_change","content":"","data":{"mode":"rabbithole","rabbitholeId":"h2","topic":"how ribosomes read"}}
{"type":"entry","id":"k","parentId":"j","timestamp":11,"kind":"message","speaker":"explorer","content":"Three letters at a time."}
"#;

#[test]
fn version_two_gets_its_rabbit_holes_back_from_the_tree() {
    let file = read(V2).unwrap();
    let h = &file.header;
    assert_eq!(h.version, 4);
    assert_eq!((h.mode, h.active_rabbithole_id.as_deref()), (SessionMode::Rabbithole, Some("h2")));
    let holes: Vec<_> = h.rabbitholes.iter().map(|r| (r.id.as_str(), r.status, r.points_recalled)).collect();
    assert_eq!(holes, vec![("h1", RabbitholeStatus::Returned, 1), ("h2", RabbitholeStatus::Entered, 0)]);
    let first = &h.rabbitholes[0];
    assert_eq!(first.topic, "where mitochondria came from");
    assert_eq!(first.branch_from_id.as_deref(), Some("b"));
    assert_eq!((first.created_at, first.updated_at), (3, 7));
    let said: Vec<(&str, &str)> = first
        .conversation
        .as_ref()
        .and_then(Value::as_array)
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    assert_eq!(
        said,
        vec![
            ("user", "I'm curious about where mitochondria came from. Tell me more."),
            ("assistant", "They were free-living once."),
            ("user", "Swallowed whole?"),
            ("assistant", "Engulfed, yes."),
        ]
    );
    assert_eq!(h.rabbitholes[1].conversation, None);
    assert_eq!(h.recalled[0].confidence, 1.0);
    // Back on the main line, the session is in recall mode with no hole open.
    let back = V2.replace(r#""leafId":"k""#, r#""leafId":"h""#);
    let file = read(&back).unwrap();
    assert_eq!((file.header.mode, file.header.active_rabbithole_id), (SessionMode::Recall, None));
}

#[test]
fn references_to_what_the_file_does_not_hold_are_refused() {
    let file = read(V2).unwrap();
    let bad = |change: &dyn Fn(&mut Header)| {
        let mut broken = file.clone();
        change(&mut broken.header);
        read(&write(&broken).unwrap())
    };
    assert!(bad(&|_| {}).is_ok());
    let refused = [
        bad(&|h| h.mode = SessionMode::Recall),
        bad(&|h| h.active_rabbithole_id = Some("h1".into())),
        bad(&|h| h.leaf_id = Some("h".into())),
        bad(&|h| h.rabbitholes[0].branch_from_id = Some("zz".into())),
        bad(&|h| h.rabbitholes[1].id = "h1".into()),
        bad(&|h| h.recalled[0].point = 3),
        bad(&|h| h.recalled[0].entry_id = Some("zz".into())),
    ];
    for (i, result) in refused.into_iter().enumerate() {
        assert!(matches!(result, Err(SessionFileError::BadLine { line: 1, .. })), "case {i}: {result:?}");
    }
}

#[test]
fn the_current_version_round_trips() {
    let file = read(V2).unwrap();
    assert_eq!(read(&write(&file).unwrap()).unwrap(), file);
    let file = read(V1).unwrap();
    let again = read(&write(&file).unwrap()).unwrap();
    assert_eq!(again, file);
}

#[test]
fn broken_files_say_what_is_wrong() {
    assert_eq!(read(""), Err(SessionFileError::Empty));
    assert!(matches!(read("not json"), Err(SessionFileError::NotJson { line: 1, .. })));
    assert_eq!(read(r#"{"format":"other"}"#), Err(SessionFileError::NotASession));
    assert_eq!(read(r#"{"format":"warren-session","version":9}"#), Err(SessionFileError::TooNew(9)));
    let orphan = V1.replace(r#""parent":"a""#, r#""parent":"zz""#);
    assert!(matches!(read(&orphan), Err(SessionFileError::BadLine { line: 3, .. })), "{:?}", read(&orphan));
    let twice = V1.replace(r#""id":"c""#, r#""id":"a""#);
    assert!(matches!(read(&twice), Err(SessionFileError::BadLine { line: 4, .. })));
    let kind = V1.replace(r#""kind":"message","role":"user""#, r#""kind":"dance","role":"user""#);
    assert!(matches!(read(&kind), Err(SessionFileError::BadLine { line: 3, .. })));
    let quoted = V1
        .replace(r#""id":"b""#, r#""id":"b\"><script>""#)
        .replace(r#""parent":"b""#, r#""parent":"b\"><script>""#);
    assert!(matches!(read(&quoted), Err(SessionFileError::BadLine { line: 3, .. })), "{:?}", read(&quoted));
}

#[test]
fn version_three_is_a_session_of_one_set_whose_points_name_it() {
    let file = read(V2).unwrap();
    let h = &file.header;
    assert!(!h.review);
    assert_eq!(h.point_sets, vec!["Cell".to_string()]);
    assert_eq!(h.set_of(0), "Cell");
}

#[test]
fn a_review_names_each_points_set_or_is_refused() {
    let review = V2.replace(r#""version":2,"#, r#""version":4,"review":true,"pointSets":["Cells"],"#);
    let file = read(&review).unwrap();
    assert!(file.header.review);
    assert_eq!(file.header.set_of(0), "Cells");
    assert_eq!(read(&write(&file).unwrap()).unwrap(), file, "a review round-trips");
    let unnamed = review.replace(r#""pointSets":["Cells"],"#, "");
    assert!(matches!(read(&unnamed), Err(SessionFileError::BadLine { line: 1, .. })), "{:?}", read(&unnamed));
}
