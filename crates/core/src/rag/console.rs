//! The `[EVAL]` console lines and the Notes of spec 002, in Chinese and English.
//! The wording follows the spec's example so its three-case run reads the same.

use super::{CaseResult, Engine};
use crate::dataset::rag::RagCase;
use crate::report::RunMetrics;
use crate::text::truncate_chars;
use crate::Lang;

const ANSWER_CHARS: usize = 60;

/// `[EVAL] 评测开始，总用例数：N`.
pub fn start_line(lang: Lang, total: usize) -> String {
    match lang {
        Lang::Zh => format!("[EVAL] 评测开始，总用例数：{total}"),
        Lang::En => format!("[EVAL] Evaluation started, total cases: {total}"),
    }
}

/// `[EVAL] Q2 - 准确率：√ | 引用率：×（reason）`.
pub fn case_line(lang: Lang, case: &RagCase, r: &CaseResult) -> String {
    let mark = |ok: bool, reason: Option<String>| match (ok, reason, lang) {
        (true, _, _) | (false, None, _) => (if ok { "√" } else { "×" }).to_string(),
        (false, Some(why), Lang::Zh) => format!("×（{why}）"),
        (false, Some(why), Lang::En) => format!("× ({why})"),
    };
    let acc = mark(r.accurate(), accuracy_reason(lang, case, r));
    let cit = mark(r.cited(), citation_reason(lang, case, r));
    match lang {
        Lang::Zh => format!("[EVAL] {} - 准确率：{acc} | 引用率：{cit}", case.id),
        Lang::En => format!("[EVAL] {} - accuracy: {acc} | citation: {cit}", case.id),
    }
}

/// `[EVAL] 评测完成 - 整体准确率：66.7% | 整体引用率：66.7%`.
pub fn finish_line(lang: Lang, m: &RunMetrics, cancelled: bool) -> String {
    let (acc, cit) = (percent(m.accuracy), percent(m.citation_rate));
    match (lang, cancelled) {
        (Lang::Zh, false) => format!("[EVAL] 评测完成 - 整体准确率：{acc} | 整体引用率：{cit}"),
        (Lang::Zh, true) => format!("[EVAL] 评测已取消 - 整体准确率：{acc} | 整体引用率：{cit}"),
        (Lang::En, false) => format!(
            "[EVAL] Evaluation finished - overall accuracy: {acc} | overall citation rate: {cit}"
        ),
        (Lang::En, true) => format!(
            "[EVAL] Evaluation cancelled - overall accuracy: {acc} | overall citation rate: {cit}"
        ),
    }
}

/// A rate as `66.7%`.
pub fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

fn quoted(items: &[String], lang: Lang) -> String {
    let sep = lang.pick("、", ", ");
    items
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(sep)
}

fn call_failed(lang: Lang, r: &CaseResult) -> Option<String> {
    let e = r.error.as_ref()?;
    Some(match lang {
        Lang::Zh => format!("模型调用失败：{}", e.message),
        Lang::En => format!("model call failed: {}", e.message),
    })
}

/// Why accuracy failed, or `None` when it passed.
pub fn accuracy_reason(lang: Lang, _case: &RagCase, r: &CaseResult) -> Option<String> {
    if r.accurate() {
        return None;
    }
    if let Some(failed) = call_failed(lang, r) {
        return Some(failed);
    }
    let answer =
        truncate_chars(r.answer.as_deref().unwrap_or("").trim(), ANSWER_CHARS).replace('\n', " ");
    Some(match lang {
        Lang::Zh => format!("未覆盖任何gold关键点，回答为'{answer}'"),
        Lang::En => format!("no gold keypoint covered, the answer was '{answer}'"),
    })
}

/// Why citation failed, or `None` when it passed.
pub fn citation_reason(lang: Lang, case: &RagCase, r: &CaseResult) -> Option<String> {
    if r.cited() {
        return None;
    }
    if let Some(failed) = call_failed(lang, r) {
        return Some(failed);
    }
    let v = r.citation.as_ref()?;
    let expected = quoted(&v.expected, lang);
    Some(match (lang, v.wrong.is_empty(), case.doc_hint.is_empty()) {
        (Lang::Zh, _, true) => "用例未提供 doc_hint，无法判定引用".to_string(),
        (Lang::En, _, true) => "the case has no doc_hint, so no citation can be right".to_string(),
        (Lang::Zh, false, _) => format!(
            "引用了错误文档 {}，预期是 {expected}",
            quoted(&v.wrong, lang)
        ),
        (Lang::En, false, _) => format!(
            "cited wrong document {}, expected {expected}",
            quoted(&v.wrong, lang)
        ),
        (Lang::Zh, true, _) => format!("未引用任何文档，预期是 {expected}"),
        (Lang::En, true, _) => format!("no document cited, expected {expected}"),
    })
}

/// Why a case failed: its accuracy reason, then its citation reason (none
/// when it passed), as the page's case table and error summary list them.
pub fn reasons(lang: Lang, case: &RagCase, r: &CaseResult) -> Vec<String> {
    [
        accuracy_reason(lang, case, r),
        citation_reason(lang, case, r),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The Notes block: one numbered line per failing case (accuracy and citation
/// reasons), then the passing cases.
pub fn notes(lang: Lang, engine: &Engine) -> Vec<String> {
    notes_of(lang, &engine.settled())
}

/// The Notes block of these settled cases (a run's, or a saved report's
/// read back by the viewer).
pub fn notes_of(lang: Lang, pairs: &[(&RagCase, &CaseResult)]) -> Vec<String> {
    let mut out = vec!["Notes:".to_string()];
    let mut n = 0;
    for (case, r) in pairs.iter().filter(|(_, r)| !r.passed()) {
        n += 1;
        out.push(format!("{n}. {}: {}", case.id, failing_note(lang, case, r)));
    }
    let passing: Vec<&str> = pairs
        .iter()
        .filter(|(_, r)| r.passed())
        .map(|(c, _)| c.id.as_str())
        .collect();
    if !passing.is_empty() {
        n += 1;
        let ids = passing.join(", ");
        out.push(match lang {
            Lang::Zh => format!("{n}. {ids}: 准确率和引用率均符合预期，回答覆盖gold关键点且引用了正确文档。"),
            Lang::En => format!("{n}. {ids}: accuracy and citation as expected: the answer covers a gold keypoint and cites a correct document."),
        });
    }
    out
}

fn failing_note(lang: Lang, case: &RagCase, r: &CaseResult) -> String {
    if let Some(failed) = call_failed(lang, r) {
        return failed;
    }
    let mut parts = Vec::new();
    if !r.accurate() {
        let answer = truncate_chars(r.answer.as_deref().unwrap_or("").trim(), ANSWER_CHARS)
            .replace('\n', " ");
        let gold = case
            .gold
            .iter()
            .map(|g| format!("'{g}'"))
            .collect::<Vec<_>>()
            .join(lang.pick("或", " or "));
        parts.push(match lang {
            Lang::Zh => format!("未覆盖gold中的任何关键点（预期提及{gold}），回答为'{answer}'"),
            Lang::En => format!(
                "covers none of the gold keypoints (expected {gold}); the answer was '{answer}'"
            ),
        });
    }
    if !r.cited() {
        if let Some(v) = r.citation.as_ref().filter(|v| !v.wrong.is_empty()) {
            let exp = quoted(&v.expected, lang);
            parts.push(match lang {
                Lang::Zh => format!("引用了错误的文档 {}，预期是 {exp}", quoted(&v.wrong, lang)),
                Lang::En => format!(
                    "cited the wrong document {}, expected {exp}",
                    quoted(&v.wrong, lang)
                ),
            });
        } else if let Some(why) = citation_reason(lang, case, r) {
            parts.push(why);
        }
    }
    let sep = lang.pick("；", "; ");
    let end = lang.pick("。", ".");
    format!("{}{end}", parts.join(sep))
}
