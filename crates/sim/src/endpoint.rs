//! The simulated endpoint: the kind's mock model's answers as an
//! OpenAI-compatible server sends them, and what they cost.

use crate::kinds::Simulated;
use crate::scenario::PRICE;
use evalpage_core::run::Pipeline;
use evalpage_core::{Answer, CallOutcome};
use serde_json::json;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// The simulated endpoint's answer and its body: the kind's mock model's
/// (what `--mock` answers: the demo model for the RAG check), a pure function
/// of the pool, the job's sample (`name`, its key in the log: see
/// `Simulated::key`) and the messages, kept per those three so
/// the transport costs next to nothing and the time measured is the core's.
/// Kept by a hash of part of the key, each entry's key compared in full on
/// a hit.
pub(crate) fn mock_reply<K: Simulated>(
    engine: &Pipeline<K>,
    (job, name): (usize, &str),
    pool: usize,
    json: bool,
    messages: &[evalpage_core::ChatMessage],
) -> Rc<(Answer, String)>
where
    K::Record: serde::Serialize,
{
    type Entry = (
        usize,
        bool,
        String,
        Vec<evalpage_core::ChatMessage>,
        Rc<(Answer, String)>,
    );
    thread_local! {
        static SEEN: std::cell::RefCell<(usize, HashMap<u64, Vec<Entry>>)> =
            std::cell::RefCell::new((0, HashMap::new()));
    }
    // the hash takes the last message and the count alone (a job's calls
    // differ there); a hit is checked against the whole key
    let mut h = std::hash::DefaultHasher::new();
    (pool, json, &name, messages.len(), messages.last()).hash(&mut h);
    let hash = h.finish();
    SEEN.with(|seen| {
        let (count, seen) = &mut *seen.borrow_mut();
        let same = |e: &&Entry| e.0 == pool && e.1 == json && e.2 == name && e.3 == messages;
        if let Some(e) = seen.get(&hash).and_then(|list| list.iter().find(same)) {
            return e.4.clone();
        }
        if *count > 10_000 {
            seen.clear();
            *count = 0;
        }
        let a = engine.kind().mock_answer(job, messages);
        let body = if json {
            a.text.clone()
        } else {
            completion(&a, assistant_message(&a), finish_reason(&a))
        };
        let reply = Rc::new((a, body));
        *count += 1;
        seen.entry(hash).or_default().push((
            pool,
            json,
            name.to_string(),
            messages.to_vec(),
            reply.clone(),
        ));
        reply
    })
}

/// The mock's answer as a chat completion's message: its text, and its tool
/// calls in OpenAI's form when it made any (an agent's step).
fn assistant_message(a: &Answer) -> serde_json::Value {
    match a.calls.as_deref() {
        Some(calls) if !calls.is_empty() => {
            let calls: Vec<serde_json::Value> = calls
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    json!({
                        "id": c.id.clone().unwrap_or_else(|| format!("call_{i}")),
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    })
                })
                .collect();
            json!({"role": "assistant", "content": a.text, "tool_calls": calls})
        }
        _ => json!({"role": "assistant", "content": a.text}),
    }
}

fn finish_reason(a: &Answer) -> &'static str {
    match a.calls.as_deref() {
        Some(calls) if !calls.is_empty() => "tool_calls",
        _ => "stop",
    }
}

/// What an outcome's usage costs at [`PRICE`] (the core's formula).
pub(crate) fn cost(outcome: &CallOutcome) -> f64 {
    let usage = match outcome {
        CallOutcome::Answer(a) => a.usage.as_ref(),
        CallOutcome::Failed(e) => e.usage.as_deref(),
    };
    usage.map_or(0.0, |u| {
        u.prompt_tokens as f64 * PRICE.in_per_mtok / 1e6
            + u.completion_tokens as f64 * PRICE.out_per_mtok / 1e6
    })
}

/// A chat completion's body: `message`, `finish_reason` and the answer's usage.
pub(crate) fn completion(a: &Answer, message: serde_json::Value, finish: &str) -> String {
    let (p, c) = a
        .usage
        .as_ref()
        .map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    json!({
        "id": "sim",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c},
    })
    .to_string()
}
