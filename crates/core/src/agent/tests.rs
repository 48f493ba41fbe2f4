use super::scripted::{answer, ScriptedResult};
use super::*;
use serde_json::json;

fn script() -> Vec<ScriptedResult> {
    Scripts::read_list(
        &json!([
            {"name": "get_balance", "arguments": {"account": "A1"}, "result": {"balance": 120}},
            {"name": "get_balance", "result": "no such account", "is_error": true},
            {"name": "transfer", "arguments": {"from": "A1", "amount": 50}, "result": "ok"}
        ]),
        "scripted",
    )
    .unwrap()
}

fn spec(max_steps: u32, faults: Option<Faults>) -> AgentSpec {
    AgentSpec {
        max_steps,
        env: Environment::Scripted(Scripts::Inline(Arc::new(script()))),
        faults,
    }
}

fn calls(list: &[(&str, &str)]) -> Answer {
    Answer {
        calls: Some(list.iter().map(|(n, a)| Call::new(n, a)).collect()),
        ..Answer::default()
    }
}

fn offered() -> Vec<String> {
    vec!["get_balance".into(), "transfer".into()]
}

fn run(spec: &AgentSpec, answers: &[Answer]) -> Progress {
    let s = script();
    replay(spec, "case-1#0", &offered(), answers, |c| answer(&s, c))
}

#[test]
fn calls_are_answered_in_order_and_the_text_answer_ends_the_case() {
    let answers = [
        calls(&[
            ("get_balance", r#"{"account": "A1"}"#),
            ("transfer", r#"{"from": "A1", "amount": 50.0, "note": "x"}"#),
        ]),
        Answer::from("done".to_string()),
    ];
    let p = run(&spec(5, None), &answers[..1]);
    assert_eq!(p.end, None);
    let mut next = vec![ChatMessage::new("user", "pay")];
    next.extend(p.trajectory.iter().cloned());
    let roles: Vec<&str> = next.iter().map(|m| m.role.as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool"]);
    assert_eq!(next[2].content, r#"{"balance":120}"#);
    assert_eq!(next[2].tool_call_id.as_deref(), Some("call_0_0"));
    assert_eq!(
        next[3].content, "ok",
        "arguments matched as a subset, 50 == 50.0"
    );
    let p = run(&spec(5, None), &answers);
    assert_eq!(p.end, Some(AgentEnd::Answered));
    assert_eq!(p.model_answers(), 2);
    assert_eq!(p.trajectory.last().unwrap().content, "done");
}

#[test]
fn the_last_allowed_call_still_calling_tools_ends_at_the_step_limit_unexecuted() {
    let answers = [
        calls(&[("get_balance", r#"{"account": "A1"}"#)]),
        calls(&[("get_balance", r#"{"account": "A1"}"#)]),
    ];
    let p = run(&spec(2, None), &answers);
    assert_eq!(p.end, Some(AgentEnd::StepLimit));
    assert_eq!(p.steps[0].tools.len(), 1);
    assert!(
        p.steps[1].tools.is_empty(),
        "the last calls are not executed"
    );
    assert_eq!(p.trajectory.len(), 3);
    let r = AgentRecord::of(&p, &[10, 20]).unwrap();
    assert_eq!((r.model_calls, r.tool_calls), (2, 1));
    assert_eq!(r.steps[1].latency_ms, Some(20));
}

#[test]
fn unknown_tools_bad_arguments_and_unscripted_calls_are_told_and_the_case_goes_on() {
    let answers = [calls(&[
        ("delete_all", "{}"),
        ("transfer", "{from: A1"),
        ("transfer", "[1]"),
        ("transfer", r#"{"from": "B2", "amount": 1}"#),
        ("get_balance", r#"{"account": "Z"}"#),
    ])];
    let p = run(&spec(5, None), &answers);
    assert_eq!(p.end, None);
    let t: Vec<&ToolStep> = p.steps.iter().flat_map(|s| &s.tools).collect();
    assert!(
        t[0].content.contains("no tool named \"delete_all\""),
        "{}",
        t[0].content
    );
    assert!(t[1]
        .problem
        .as_deref()
        .unwrap()
        .starts_with("the arguments are not JSON"));
    assert!(t[2]
        .problem
        .as_deref()
        .unwrap()
        .contains("not a JSON object"));
    assert!(t[3].content.contains("no scripted result for transfer"));
    assert!(t[3].problem.is_none() && t[3].is_error);
    assert_eq!(
        t[4].content, "no such account",
        "the catch-all result, an error"
    );
    assert!(t[4].is_error);
    assert_eq!(t.iter().filter(|t| t.problem.is_some()).count(), 3);
}

#[test]
fn faults_are_a_function_of_seed_case_step_and_call_only() {
    let f = Faults {
        seed: 7,
        rate: 0.5,
        kinds: vec![FaultKind::Error, FaultKind::Timeout, FaultKind::Malformed],
    };
    let draws: Vec<Option<FaultKind>> = (0..400).map(|i| f.at("c", i / 4, i % 4)).collect();
    let again: Vec<Option<FaultKind>> = (0..400).rev().map(|i| f.at("c", i / 4, i % 4)).collect();
    assert_eq!(draws, again.into_iter().rev().collect::<Vec<_>>());
    let n = draws.iter().filter(|d| d.is_some()).count();
    assert!((150..250).contains(&n), "about half faulted: {n}");
    for k in [FaultKind::Error, FaultKind::Timeout, FaultKind::Malformed] {
        assert!(draws.contains(&Some(k)), "{k:?} drawn");
    }
    assert_ne!(
        draws,
        (0..400)
            .map(|i| f.at("d", i / 4, i % 4))
            .collect::<Vec<_>>(),
        "another case, other faults"
    );
    let none = Faults {
        rate: 0.0,
        ..f.clone()
    };
    assert!((0..100).all(|i| none.at("c", i, 0).is_none()));
    let all = Faults { rate: 1.0, ..f };
    assert!((0..100).all(|i| all.at("c", i, 0).is_some()));
}

#[test]
fn a_faulted_call_is_marked_and_its_answer_changed() {
    let f = Faults {
        seed: 1,
        rate: 1.0,
        kinds: vec![FaultKind::Malformed],
    };
    let p = run(
        &spec(5, Some(f)),
        &[calls(&[("get_balance", r#"{"account": "A1"}"#)])],
    );
    let t = &p.steps[0].tools[0];
    assert_eq!(t.fault, Some(FaultKind::Malformed));
    assert_eq!(t.content, r#"{"balan"#);
    assert!(serde_json::from_str::<serde_json::Value>(&t.content).is_err());
}

fn mcp_spec(faults: Option<Faults>) -> AgentSpec {
    AgentSpec {
        max_steps: 5,
        env: Environment::Mcp(mcp::McpServer::Url("http://127.0.0.1:1/mcp".into())),
        faults,
    }
}

fn server(v: serde_json::Value) -> Answer {
    Answer::from(v.to_string())
}

fn bank_tools() -> Answer {
    server(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "get_balance", "inputSchema": {"type": "object", "properties": {"account": {"type": "string"}}}},
        {"name": "transfer", "inputSchema": {"type": "object"}}]}}))
}

fn mcp_walk(spec: &AgentSpec, answers: &[Answer]) -> Result<Walk, String> {
    let prompt = [ChatMessage::new("user", "pay")];
    let w = walk(
        spec,
        "case-1#0",
        &prompt,
        Env::Mcp { wants_state: true },
        answers,
    );
    match w.failed {
        Some(why) => Err(why),
        None => Ok(w),
    }
}

#[test]
fn an_mcp_case_lists_tools_sends_each_call_and_reads_the_world_at_the_end() {
    let spec = mcp_spec(None);
    let w = mcp_walk(&spec, &[]).unwrap();
    assert_eq!(w.next, Some(Next::Server(mcp::list_tools(1))));
    let mut answers = vec![bank_tools()];
    let w = mcp_walk(&spec, &answers).unwrap();
    let Some(Next::Model(m)) = &w.next else {
        panic!("the model next: {:?}", w.next)
    };
    assert_eq!(m.len(), 1);
    assert_eq!(w.offered, ["get_balance", "transfer"]);
    assert_eq!(
        w.listed.as_ref().unwrap()[0]["function"]["parameters"]["properties"]["account"]["type"],
        "string"
    );
    // two calls and one the environment does not have: two requests, in order
    answers.push(calls(&[
        ("get_balance", r#"{"account": "A1"}"#),
        ("fly", "{}"),
        ("transfer", r#"{"from": "A1", "amount": 5}"#),
    ]));
    let w = mcp_walk(&spec, &answers).unwrap();
    assert_eq!(
        w.next,
        Some(Next::Server(mcp::call_tool(
            2,
            "get_balance",
            json!({"account": "A1"})
        )))
    );
    assert!(w.step_end.is_empty(), "the step is not complete");
    answers.push(server(mcp::answered(r#"{"balance": 950}"#, false)));
    let w = mcp_walk(&spec, &answers).unwrap();
    assert_eq!(
        w.next,
        Some(Next::Server(mcp::call_tool(
            3,
            "transfer",
            json!({"from": "A1", "amount": 5})
        )))
    );
    answers.push(server(
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "bad amount"}}),
    ));
    let w = mcp_walk(&spec, &answers).unwrap();
    assert!(matches!(w.next, Some(Next::Model(_))));
    assert_eq!((w.model_at.clone(), w.step_end.clone()), (vec![1], vec![3]));
    let t = &w.progress.steps[0].tools;
    assert_eq!(t[0].content, r#"{"balance": 950}"#);
    assert!(t[1]
        .problem
        .as_deref()
        .unwrap()
        .contains("no tool named \"fly\""));
    assert_eq!(
        (t[2].content.as_str(), t[2].is_error),
        ("error: error -32602: bad amount", true),
        "a refused call is the tool's error: the agent copes"
    );
    answers.push(Answer::from("Done.".to_string()));
    let w = mcp_walk(&spec, &answers).unwrap();
    assert_eq!(w.progress.end, Some(AgentEnd::Answered));
    assert_eq!(w.next, Some(Next::Server(mcp::read_state(4))));
    answers.push(server(mcp::stated(&json!({"accounts": {"A1": 945}}))));
    answers.push(Answer::from("a judge's verdict".to_string()));
    let w = mcp_walk(&spec, &answers).unwrap();
    assert_eq!(w.next, None);
    assert_eq!(w.state, Some(json!({"accounts": {"A1": 945}})));
    assert_eq!(w.read, 6, "the judge's answer is not the loop's");
    assert_eq!(w.model_at, vec![1, 4]);
}

#[test]
fn an_mcp_server_out_of_protocol_fails_the_case_and_a_failed_tool_is_not_sent() {
    let bad = server(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        {"name": "pay", "inputSchema": {"type": "array"}}]}}));
    let e = mcp_walk(&mcp_spec(None), &[bad]).unwrap_err();
    assert!(
        e.contains("tools/list is out of protocol: tool \"pay\" has an invalid inputSchema"),
        "{e}"
    );
    let e = mcp_walk(&mcp_spec(None), &[Answer::from("<html>".to_string())]).unwrap_err();
    assert!(e.contains("not JSON"), "{e}");
    // every call faulted as failed: nothing is sent, the model is asked again
    let f = Faults {
        seed: 1,
        rate: 1.0,
        kinds: vec![FaultKind::Error],
    };
    let answers = [
        bank_tools(),
        calls(&[("get_balance", r#"{"account": "A1"}"#)]),
    ];
    let w = mcp_walk(&mcp_spec(Some(f)), &answers).unwrap();
    assert!(matches!(w.next, Some(Next::Model(_))), "{:?}", w.next);
    assert_eq!(w.progress.steps[0].tools[0].fault, Some(FaultKind::Error));
    // a state that is not JSON
    let e = mcp_walk(
        &mcp_spec(None),
        &[
            bank_tools(),
            Answer::from("ok".to_string()),
            server(mcp::answered("x", false)),
        ],
    )
    .unwrap_err();
    assert!(e.contains("state could not be read for final_state"), "{e}");
    // the walk that failed keeps what it read before: the loop that ended
    let answers = [
        bank_tools(),
        calls(&[("get_balance", r#"{"account": "A1"}"#)]),
        server(mcp::answered(r#"{"balance": 950}"#, false)),
        Answer::from("A1 holds 950.".to_string()),
        Answer::from("<html>".to_string()),
    ];
    let prompt = [ChatMessage::new("user", "pay")];
    let env = Env::Mcp { wants_state: true };
    let w = walk(&mcp_spec(None), "case-1#0", &prompt, env, &answers);
    assert!(w.failed.as_deref().is_some_and(|e| e.contains("not JSON")));
    assert_eq!((w.next, w.read), (None, 5));
    assert_eq!(w.progress.end, Some(AgentEnd::Answered));
    assert_eq!(w.progress.trajectory.len(), 3);
    assert_eq!(w.progress.steps[0].tools[0].content, r#"{"balance": 950}"#);
    assert_eq!(w.state, None);
}
