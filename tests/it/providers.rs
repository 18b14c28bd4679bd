//! The network providers against a local server speaking each wire format.

use std::time::{Duration, Instant};

use crate::common::fake_llm::{CACHED_TOKENS, FakeLlm, INPUT_TOKENS, Reply, Wire};
use futures_util::StreamExt;
use warren::llm::anthropic::Anthropic;
use warren::llm::openai::OpenAi;
use warren::llm::{
    Format, LlmError, Message, NetPolicy, Output, Provider, Purpose, Request, Tier, Tool, Usage,
};

fn quick_policy() -> NetPolicy {
    NetPolicy {
        connect_timeout: Duration::from_secs(2),
        first_byte_timeout: Duration::from_secs(5),
        idle_timeout: Duration::from_secs(5),
        max_retries: 3,
        base_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(2),
    }
}

fn provider(wire: Wire, fake: &FakeLlm) -> Box<dyn Provider> {
    match wire {
        Wire::Anthropic => Box::new(Anthropic::new(
            &fake.base_url(),
            "sk-test".into(),
            "main-model".into(),
            "fast-model".into(),
            quick_policy(),
        )),
        Wire::OpenAi => Box::new(OpenAi::new(
            &fake.base_url(),
            Some("sk-test".into()),
            "main-model".into(),
            "fast-model".into(),
            quick_policy(),
        )),
    }
}

fn request(format: Format, tier: Tier) -> Request {
    Request {
        cache_at: Vec::new(),
        system: "You are terse.".into(),
        messages: vec![Message::user("Hello?")],
        tools: vec![],
        max_tokens: 50,
        temperature: 0.0,
        format,
        tier,
        purpose: Purpose::Probe,
    }
}

/// Every piece of a reply (a tool call written `tool:NAME:INPUT`), or the error that ended it.
async fn collect(p: &dyn Provider, r: &Request) -> (Vec<String>, Option<LlmError>) {
    let mut stream = match p.stream(r).await {
        Ok(s) => s,
        Err(e) => return (vec![], Some(e)),
    };
    let mut pieces = vec![];
    while let Some(item) = stream.next().await {
        match item {
            Ok(Output::Text(piece)) => pieces.push(piece),
            Ok(Output::Tool(call)) => pieces.push(format!("tool:{}:{}", call.name, call.input)),
            // Read by its own test below.
            Ok(Output::Usage(_)) => {}
            Err(e) => return (pieces, Some(e)),
        }
    }
    (pieces, None)
}

const WIRES: [Wire; 2] = [Wire::Anthropic, Wire::OpenAi];

#[tokio::test]
async fn streamed_text_arrives_in_order_with_the_right_request() {
    for wire in WIRES {
        let fake = FakeLlm::start(wire, vec![Reply::Text(vec!["Hel", "lo, ", "wor", "ld."])]).await;
        let (pieces, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
        assert_eq!(err, None, "{wire:?}");
        assert_eq!(pieces, vec!["Hel", "lo, ", "wor", "ld."], "{wire:?}");

        let sent = &fake.received()[0];
        assert_eq!(sent.body["stream"], true);
        assert_eq!(sent.body["model"], "main-model");
        match wire {
            Wire::Anthropic => {
                assert_eq!(sent.headers["x-api-key"], "sk-test");
                assert_eq!(sent.headers["anthropic-version"], "2023-06-01");
                assert_eq!(sent.body["system"], "You are terse.");
                assert_eq!(sent.body["messages"][0]["role"], "user");
            }
            Wire::OpenAi => {
                assert_eq!(sent.headers["authorization"], "Bearer sk-test");
                assert_eq!(sent.body["messages"][0]["role"], "system");
                assert_eq!(sent.body["messages"][1]["content"], "Hello?");
            }
        }
    }
}

#[tokio::test]
async fn what_each_request_used_is_read_from_each_wire_format_once_at_the_end() {
    for wire in WIRES {
        let fake = FakeLlm::start(wire, vec![Reply::Text(vec!["One ", "two ", "three."])]).await;
        let mut stream = provider(wire, &fake).stream(&request(Format::Text, Tier::Main)).await.unwrap();
        let mut outputs = Vec::new();
        while let Some(item) = stream.next().await {
            outputs.push(item.unwrap());
        }
        let expected = Usage { input: INPUT_TOKENS, cached_input: CACHED_TOKENS, output: 3 };
        assert_eq!(outputs.last(), Some(&Output::Usage(expected)), "{wire:?}: {outputs:?}");
        assert_eq!(outputs.iter().filter(|o| matches!(o, Output::Usage(_))).count(), 1, "{wire:?}");
        if wire == Wire::OpenAi {
            // OpenAI reports usage only when asked.
            assert_eq!(fake.received()[0].body["stream_options"]["include_usage"], true);
        }
    }
}

#[tokio::test]
async fn streamed_tool_calls_arrive_whole_and_tools_are_sent_in_each_wire_format() {
    for wire in WIRES {
        let reply = Reply::Tool {
            text: vec!["Have a look ", "at this."],
            name: "show_image".into(),
            input: r#"{"resource_id":"r-42"}"#.into(),
        };
        let fake = FakeLlm::start(wire, vec![reply]).await;
        let mut r = request(Format::Text, Tier::Main);
        r.tools = vec![Tool {
            name: "show_image",
            description: "Show an image.",
            input_schema: serde_json::json!({"type": "object", "properties": {"resource_id": {"type": "string"}}}),
        }];
        let (pieces, err) = collect(&*provider(wire, &fake), &r).await;
        assert_eq!(err, None, "{wire:?}");
        assert_eq!(
            pieces,
            vec!["Have a look ", "at this.", r#"tool:show_image:{"resource_id":"r-42"}"#],
            "{wire:?}: the input streams in pieces and comes out whole, once"
        );
        let sent = &fake.received()[0].body;
        match wire {
            Wire::Anthropic => {
                assert_eq!(sent["tools"][0]["name"], "show_image");
                assert_eq!(sent["tools"][0]["input_schema"]["type"], "object");
            }
            Wire::OpenAi => {
                assert_eq!(sent["tools"][0]["type"], "function");
                assert_eq!(sent["tools"][0]["function"]["name"], "show_image");
                assert_eq!(sent["tools"][0]["function"]["parameters"]["type"], "object");
            }
        }
    }
}

#[tokio::test]
async fn a_tool_call_with_malformed_input_is_dropped_and_the_reply_goes_on() {
    for wire in WIRES {
        let reply =
            Reply::Tool { text: vec!["Still here."], name: "show_image".into(), input: "{\"resource".into() };
        let fake = FakeLlm::start(wire, vec![reply]).await;
        let (pieces, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
        assert_eq!((pieces, err), (vec!["Still here.".to_string()], None), "{wire:?}");
        assert!(fake.received()[0].body.get("tools").is_none(), "no tools offered, none sent");
    }
}

#[tokio::test]
async fn structured_requests_use_the_fast_model_and_ask_for_json() {
    for wire in WIRES {
        let fake = FakeLlm::start(wire, vec![Reply::Text(vec!["{\"ok\":", "true}"])]).await;
        let (pieces, _) = collect(&*provider(wire, &fake), &request(Format::Json, Tier::Fast)).await;
        assert_eq!(pieces.concat(), "{\"ok\":true}");
        let sent = &fake.received()[0];
        assert_eq!(sent.body["model"], "fast-model");
        match wire {
            Wire::Anthropic => assert!(sent.body["system"].as_str().unwrap().contains("JSON")),
            Wire::OpenAi => assert_eq!(sent.body["response_format"]["type"], "json_object"),
        }
    }
}

#[tokio::test]
async fn rate_limits_are_retried_after_the_time_the_server_asks_for() {
    for wire in WIRES {
        let fake = FakeLlm::start(
            wire,
            vec![
                Reply::Status {
                    status: 429,
                    headers: vec![("retry-after", "1")],
                    body: r#"{"error":{"type":"rate_limit_error","message":"slow down"}}"#,
                },
                Reply::Text(vec!["fine"]),
            ],
        )
        .await;
        let started = Instant::now();
        let (pieces, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
        assert_eq!((pieces, err), (vec!["fine".to_string()], None), "{wire:?}");
        assert_eq!(fake.received().len(), 2);
        // The server asked for a second; the backoff alone would have been 10 ms.
        assert!(started.elapsed() >= Duration::from_millis(950), "{:?}", started.elapsed());
    }
}

#[tokio::test]
async fn server_errors_then_success_recover() {
    for (wire, status) in [(Wire::Anthropic, 500), (Wire::Anthropic, 529), (Wire::OpenAi, 503)] {
        let fake = FakeLlm::start(
            wire,
            vec![
                Reply::Status { status, headers: vec![], body: r#"{"error":{"message":"try later"}}"# },
                Reply::Text(vec!["recovered"]),
            ],
        )
        .await;
        let (pieces, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
        assert_eq!((pieces, err), (vec!["recovered".to_string()], None), "{wire:?} {status}");
        assert_eq!(fake.received().len(), 2);
    }
}

#[tokio::test]
async fn client_errors_are_not_retried_and_retries_run_out() {
    for wire in WIRES {
        let fake = FakeLlm::start(
            wire,
            vec![Reply::Status {
                status: 401,
                headers: vec![],
                body: r#"{"error":{"message":"invalid x-api-key"}}"#,
            }],
        )
        .await;
        let (_, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
        assert_eq!(err, Some(LlmError::Rejected { status: 401, message: "invalid x-api-key".into() }));
        assert_eq!(fake.received().len(), 1, "a 401 is not retried");

        let always_busy = (0..10)
            .map(|_| Reply::Status { status: 503, headers: vec![], body: r#"{"error":{"message":"busy"}}"# })
            .collect();
        let fake = FakeLlm::start(wire, always_busy).await;
        let (_, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
        assert_eq!(err, Some(LlmError::Exhausted { status: 503, message: "busy".into() }));
        assert_eq!(fake.received().len(), 4, "one try and three retries");
    }
}

#[tokio::test]
async fn a_stream_cut_midway_is_an_interruption_after_the_text_so_far() {
    for wire in WIRES {
        for reply in [
            Reply::EndsEarly(vec!["Half ", "a "]),
            Reply::Breaks(vec!["Half ", "a "]),
            Reply::ErrorEvent(vec!["Half ", "a "]),
        ] {
            let fake = FakeLlm::start(wire, vec![reply.clone()]).await;
            let (pieces, err) = collect(&*provider(wire, &fake), &request(Format::Text, Tier::Main)).await;
            assert_eq!(pieces, vec!["Half ", "a "], "{wire:?} {reply:?}");
            assert!(matches!(err, Some(LlmError::Interrupted(_))), "{wire:?} {reply:?}: {err:?}");
            assert_eq!(fake.received().len(), 1, "text already shown is never retried");
        }
    }
}

#[tokio::test]
async fn an_unreachable_server_is_reported() {
    // Bind and drop: a port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut policy = quick_policy();
    policy.max_retries = 1;
    let p = OpenAi::new(&format!("http://127.0.0.1:{port}/v1"), None, "m".into(), "m".into(), policy);
    let (_, err) = collect(&p, &request(Format::Text, Tier::Main)).await;
    assert!(matches!(err, Some(LlmError::Unreachable(_))), "{err:?}");
    assert!(p.probe().await.is_err());
}
