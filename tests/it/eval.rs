//! `warren eval`: the judges measured on labelled cases, offline and on the real request path.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use crate::common::fake_llm::{FakeLlm, Reply, Wire};
use warren::eval::{Judge, run};
use warren::llm::NetPolicy;
use warren::llm::openai::OpenAi;

const EVALUATOR_CASES: &str = r#"{"set":"Cells","points":{"p1":"Mitochondria produce ATP.","p2":"Ribosomes make proteins."},"recent":["What powers the cell?"],"message":"the mitochondria produce atp","recalled":["p1"]}
{"set":"Cells","points":{"p1":"Mitochondria produce ATP.","p2":"Ribosomes make proteins."},"message":"no idea, sorry","recalled":[]}
{"set":"Cells","points":{"p1":"Mitochondria produce ATP.","p2":"Ribosomes make proteins."},"message":"ribosomes make proteins and mitochondria produce ATP","recalled":["p1","p2"],"near_miss":[]}
"#;

const DETECTOR_CASES: &str = r#"{"set":"Rome","points":{"p1":"Caesar crossed the Rubicon in 49 BC."},"message":"How did the Romans build such straight roads?","rabbithole":true}
{"set":"Rome","points":{"p1":"Caesar crossed the Rubicon in 49 BC."},"message":"Caesar crossed the Rubicon in 49 BC","rabbithole":false}
"#;

fn warren(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_warren")).args(args).env("WARREN_LLM", "offline").output().unwrap()
}

#[test]
fn the_command_prints_each_case_and_the_figures_and_fails_below_the_minimum() {
    let dir = tempfile::tempdir().unwrap();
    let evaluator = dir.path().join("evaluator.jsonl");
    let detector = dir.path().join("detector.jsonl");
    std::fs::write(&evaluator, EVALUATOR_CASES).unwrap();
    std::fs::write(&detector, DETECTOR_CASES).unwrap();

    let out = warren(&["eval", "evaluator", evaluator.to_str().unwrap(), "--min-f1", "0.9"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok   line")).count(), 3, "{stdout}");
    assert!(stdout.contains("precision 1.000  recall 1.000  F1 1.000  (tp 3, fp 0, fn 0)"), "{stdout}");
    assert!(stdout.contains("near-miss accuracy") && stdout.contains("latency p50"), "{stdout}");

    // What the formula weighs of each point, with the labels, for refitting it.
    let features = dir.path().join("features.jsonl");
    let out =
        warren(&["eval", "evaluator", evaluator.to_str().unwrap(), "--features", features.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&features)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 6, "two points in each of three cases");
    let labelled: Vec<(u64, &str, bool)> = rows
        .iter()
        .map(|r| {
            (r["line"].as_u64().unwrap(), r["point"].as_str().unwrap(), r["recalled"].as_bool().unwrap())
        })
        .collect();
    assert_eq!(labelled[0], (1, "p1", true));
    assert_eq!(labelled[1], (1, "p2", false));
    assert!(
        rows.iter().all(|r| r["features"]["cover"].is_f64() && r["features"]["flags"]["asks"].is_boolean())
    );

    let out = warren(&["eval", "detector", detector.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(stdout.contains("cases 2  passed 2"), "{stdout}");

    // A case the judge gets wrong pulls F1 under a minimum it cannot reach: the exit says so.
    let wrong = dir.path().join("wrong.jsonl");
    std::fs::write(
        &wrong,
        r#"{"set":"Rome","points":{"p1":"Caesar crossed the Rubicon in 49 BC."},"message":"Caesar crossed the Rubicon in 49 BC","rabbithole":true}"#,
    )
    .unwrap();
    let out = warren(&["eval", "detector", wrong.to_str().unwrap(), "--min-f1", "0.5"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("MISS line   1"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("F1 0.000 is below the minimum 0.500"));

    let out = warren(&["eval", "detector", evaluator.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1 is not a case"));
}

#[test]
fn the_drafter_is_measured_case_by_case_and_fails_below_either_minimum() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("drafter.jsonl");
    let case = serde_json::json!({
        "title": "Organelles",
        "source": "The nucleus is the organelle that holds most of a cell's DNA. Ribosomes build proteins by reading messenger RNA. In 1665, Robert Hooke named the cell after the small rooms of a monastery.",
        "facts": [
            "The nucleus holds most of a cell's DNA.",
            "Ribosomes build proteins by reading messenger RNA.",
            "Robert Hooke named the cell in 1665.",
            "The Golgi apparatus packages proteins for export.",
        ],
    });
    std::fs::write(&cases, format!("{case}\n")).unwrap();
    let path = cases.to_str().unwrap();

    let out = warren(&["eval", "drafter", path, "--min-faithfulness", "0.9"]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    // The case's line and the figures agree: the facts its drafts cover, of the four (one of
    // which the source does not hold), and every draft quoting the source.
    let line = stdout.lines().find(|l| l.starts_with("line   1  Organelles: ")).expect("the case's line");
    let covered: usize = line["line   1  Organelles: ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert!((1..=3).contains(&covered), "{stdout}");
    let coverage = covered as f64 / 4.0;
    assert!(stdout.contains(&format!("coverage {coverage:.3}  ({covered} of 4 facts)")), "{stdout}");
    let faithful = stdout.lines().find(|l| l.starts_with("faithfulness ")).unwrap_or_default();
    assert!(faithful.starts_with("faithfulness 1.000"), "every draft quotes the source: {stdout}");

    // Just above what it reaches, the command fails and says why; just under, it passes.
    let above = format!("{:.3}", coverage + 0.01);
    let out = warren(&["eval", "drafter", path, "--min-coverage", &above]);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("coverage {coverage:.3} is below the minimum {above}")), "{said}");
    let below = format!("{:.3}", coverage - 0.01);
    assert!(warren(&["eval", "drafter", path, "--min-coverage", &below]).status.success());
    let out = warren(&["eval", "drafter", path, "--min-faithfulness", "1.01"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("faithfulness 1.000 is below the minimum 1.010"));
    let out = warren(&["eval", "drafter", dir.path().join("none.jsonl").to_str().unwrap()]);
    assert!(!out.status.success(), "a file that is not there is an error");
}

#[test]
fn message_kinds_read_otherwise_than_labelled_fail_under_their_minimum() {
    // The judges' own cases are gated in scripts/test (`--min-kinds`); here, that the gate bites.
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("kinds.jsonl");
    let case = |message: &str, kind: &str| {
        serde_json::json!({"set": "Cells", "points": {"p1": "Mitochondria produce ATP."},
            "recent": ["What do mitochondria produce?"], "message": message,
            "recalled": [], "near_miss": [], "kind": kind})
    };
    // The second is a question, labelled small talk: one of two read as labelled.
    let lines =
        [case("no idea, sorry", "dont_know"), case("wait, why do they have their own DNA?", "small_talk")];
    std::fs::write(&cases, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let path = cases.to_str().unwrap();
    let out = warren(&["eval", "evaluator", path, "--min-kinds", "0.6"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("message kinds 0.500  (1 of 2)"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("message kinds 0.500 is below the minimum 0.600"));
    assert!(warren(&["eval", "evaluator", path, "--min-kinds", "0.5"]).status.success());
}

#[tokio::test]
async fn a_network_judge_is_measured_through_its_real_requests() {
    // The model recalls p1 in every case: right once, wrong (a false positive) in the second,
    // and it misses p2 in the third.
    let answer = |_: &serde_json::Value| {
        Reply::Said(r#"{"recalled":[{"pointId":"p1","confidence":0.9}],"nearMisses":[]}"#.into())
    };
    let fake = FakeLlm::start_with(Wire::OpenAi, vec![], Some(Arc::new(answer))).await;
    let policy = NetPolicy { max_retries: 0, base_backoff: Duration::from_millis(1), ..NetPolicy::default() };
    let provider = OpenAi::new(&fake.base_url(), None, "m".into(), "fast".into(), policy);
    let mut out = Vec::new();
    let report = run(&provider, Judge::Evaluator, EVALUATOR_CASES, &mut out).await.unwrap();
    let s = report.scores;
    assert_eq!((s.true_positives, s.false_positives, s.false_negatives), (2, 1, 1));
    assert_eq!(report.passed, 1);
    let sent = fake.received();
    assert_eq!(sent.len(), 3, "one request per case");
    assert_eq!(sent[0].body["model"], "fast", "the fast model judges");
    let user = sent[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("Tutor: What powers the cell?") && user.ends_with("the mitochondria produce atp"),
        "{user}"
    );
}
