//! The built-in offline demo model.
//!
//! It answers from the five bundled demo documents with a tiny retriever:
//! the paragraph with the highest character-bigram overlap with the question,
//! followed by a `来源：`/`Sources:` line naming its document. To show every result
//! state on the demo dataset it makes deterministic mistakes chosen by a hash of
//! the question: some answers cite a neighbouring (wrong) document, some answer
//! from a paragraph of another document, some forget the sources line. The same
//! question always gets the same answer, in the browser, in the CLI and from
//! `evalpage mock-server`, which answers with this model.

use crate::provider::{Answer, ChatMessage, Usage};
use crate::rag_rules::accuracy::bigrams;
use crate::text::{fold, has_cjk};

/// The bundled demo documents: (file name, Markdown text).
pub const DOCUMENTS: &[(&str, &str)] = &[
    (
        "01_lightrag_overview.md",
        include_str!("../../../www/demo/01_lightrag_overview.md"),
    ),
    (
        "02_rag_architecture.md",
        include_str!("../../../www/demo/02_rag_architecture.md"),
    ),
    (
        "03_lightrag_improvements.md",
        include_str!("../../../www/demo/03_lightrag_improvements.md"),
    ),
    (
        "04_supported_databases.md",
        include_str!("../../../www/demo/04_supported_databases.md"),
    ),
    (
        "05_evaluation_and_deployment.md",
        include_str!("../../../www/demo/05_evaluation_and_deployment.md"),
    ),
];

/// The bundled demo dataset (the ten questions of spec 002), JSONL.
pub const DATASET: &str = include_str!("../../../www/demo/demo_dataset.jsonl");

/// The bundled retrieval cases (spec 000) over the demo documents, JSONL.
pub const RETRIEVAL_DATASET: &str = include_str!("../../../www/demo/demo_retrieval.jsonl");

/// File name of the demo retrieval cases as shown to users.
pub const RETRIEVAL_DATASET_NAME: &str = "demo_retrieval.jsonl";

/// The bundled spec 001 dialogs (22 Chinese advisory dialogs), JSONL.
pub const DIALOG_DATASET: &str = include_str!("../../../www/demo/demo_dialogs.jsonl");

/// File name of the demo dialogs as shown to users.
pub const DIALOG_DATASET_NAME: &str = "demo_dialogs.jsonl";

/// File name of the demo dataset as shown to users.
pub const DATASET_NAME: &str = "demo_dataset.jsonl";

/// Model name reported for the demo model.
pub const MODEL_NAME: &str = "evalpage-demo";

struct Paragraph {
    doc: usize,
    text: &'static str,
}

fn paragraphs() -> Vec<Paragraph> {
    DOCUMENTS
        .iter()
        .enumerate()
        .flat_map(|(doc, (_, text))| {
            text.split("\n\n")
                .map(str::trim)
                .filter(|p| !p.is_empty() && !p.starts_with('#'))
                .map(move |text| Paragraph { doc, text })
        })
        .collect()
}

/// FNV-1a, 64 bit: a stable hash for choosing mistakes and latencies.
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The demo retriever: the bundled documents' paragraphs ranked by
/// character-bigram overlap with the query (ties keep document order), as the
/// file names of their documents, best first, at most `k`. A document with
/// several matching paragraphs appears once per paragraph, as a chunked index
/// returns chunks; paragraphs with no overlap are not returned. What
/// `evalpage mock-server` answers on its retrieval route and the offline mock
/// of a retrieval run.
pub fn retrieve(query: &str, k: usize) -> Vec<(&'static str, usize)> {
    let q = bigrams(&fold(query));
    let mut ranked: Vec<(usize, &'static str)> = paragraphs()
        .into_iter()
        .map(|p| (bigrams(&fold(p.text)).overlap(&q), DOCUMENTS[p.doc].0))
        .filter(|(overlap, _)| *overlap > 0)
        .collect();
    ranked.sort_by_key(|(overlap, _)| std::cmp::Reverse(*overlap));
    ranked.into_iter().take(k).map(|(o, d)| (d, o)).collect()
}

/// The question the demo model answers: the last user message.
fn question(messages: &[ChatMessage]) -> &str {
    messages
        .iter()
        .rev()
        .find(|m| m.role == "user")
        .map(|m| m.content.as_str())
        .unwrap_or("")
}

/// Answers the conversation deterministically (see the module doc).
pub fn answer(messages: &[ChatMessage]) -> String {
    let q = question(messages);
    let paras = paragraphs();
    let q_grams = bigrams(&fold(q));
    let overlap = |p: &Paragraph| bigrams(&fold(p.text)).overlap(&q_grams);
    let mut ranked: Vec<(usize, &Paragraph)> = paras.iter().map(|p| (overlap(p), p)).collect();
    ranked.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let zh = has_cjk(q);
    let Some((best_score, best)) = ranked.first().map(|(s, p)| (*s, *p)) else {
        return String::new();
    };
    if best_score == 0 {
        return if zh {
            "抱歉，演示文档中没有相关信息。".into()
        } else {
            "Sorry, the demo documents do not cover this.".into()
        };
    }
    let h = fnv1a(&fold(q)) % 10;
    let chosen = match h {
        2 => ranked
            .iter()
            .map(|(_, p)| *p)
            .find(|p| p.doc != best.doc)
            .unwrap_or(best),
        _ => best,
    };
    let cited = match h {
        5 => Some((chosen.doc + 1) % DOCUMENTS.len()),
        8 => None,
        _ => Some(chosen.doc),
    };
    let mut text = chosen.text.to_string();
    if let Some(doc) = cited {
        let label = if zh { "\n\n来源：" } else { "\n\nSources: " };
        text.push_str(label);
        text.push_str(DOCUMENTS[doc].0);
    }
    text
}

/// A deterministic pretend latency in milliseconds (for a lifelike demo in the page).
/// The demo model's whole answer, as the mock endpoint sends it: the text,
/// `finish_reason: "stop"`, and token counts from [`count_tokens`].
pub fn reply(messages: &[ChatMessage]) -> Answer {
    let text = answer(messages);
    let usage = usage(messages, &text, None);
    Answer {
        text,
        reasoning: None,
        finish_reason: Some("stop".into()),
        usage: Some(usage),
        ..Answer::default()
    }
}

/// About four characters per token: the demo model's and the mock endpoint's
/// deterministic token count.
pub fn count_tokens(text: &str) -> u64 {
    text.chars().count().div_ceil(4) as u64
}

/// The counted usage of an answer (and its reasoning) to these messages.
pub fn usage(messages: &[ChatMessage], text: &str, reasoning: Option<&str>) -> Usage {
    let reasoning_tokens = reasoning.map_or(0, count_tokens);
    Usage {
        prompt_tokens: messages.iter().map(|m| count_tokens(&m.content)).sum(),
        completion_tokens: count_tokens(text) + reasoning_tokens,
        reasoning_tokens: Some(reasoning_tokens),
        timings: None,
    }
}

pub fn latency_ms(messages: &[ChatMessage]) -> u64 {
    150 + fnv1a(question(messages)) % 450
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_deterministic_and_cite_a_document() {
        let m = vec![ChatMessage::new("user", "LightRAG支持哪些向量数据库？")];
        assert_eq!(answer(&m), answer(&m));
        assert!(answer(&m).contains(".md") || !answer(&m).contains("来源"));
        let none = vec![ChatMessage::new("user", "zzzz qqqq")];
        assert!(answer(&none).contains("do not cover"));
    }
}
