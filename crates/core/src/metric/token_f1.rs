//! `token_f1` (SQuAD-style token F1): how many words do the answer and the
//! closest acceptable answer share?
//!
//! Normalisation is SQuAD v1.1's `normalize_answer` (`evaluate-v1.1.py`):
//! lowercase (Unicode, as Python's `str.lower`), remove ASCII punctuation
//! (Python's `string.punctuation`, `` !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~ ``),
//! replace the articles `a`, `an`, `the` by a space where they are whole words
//! (the script's `\b(a|an|the)\b`, word characters being Unicode letters and
//! digits as Python counts them), then split on whitespace (Python's
//! `str.split()`). Other punctuation (`“`, `—`, `，`, `。`) is kept, as the
//! script keeps it. Extension: each CJK character (Han, kana, Hangul
//! syllables, see [`is_cjk`]) is a token of its own; they are split out before
//! the articles are removed, so `the中国` reads as `the 中 国` (`中`, `国`).
//! Text without CJK characters gets exactly the script's tokens (checked
//! against it in `tests/squad_agreement.rs`).
//!
//! With `P` the predicted tokens and `G` a gold answer's tokens, as bags:
//! `common = Σ_t min(count_P(t), count_G(t))` (the script's Counter
//! intersection); `F1 = 0` when `common = 0` (so also when both are empty, as
//! in the script); else `precision = common / |P|`, `recall = common / |G|`,
//! `F1 = 2·precision·recall / (precision + recall)`.
//! Exact match: `P = G` as token sequences (the script's
//! `normalize_answer(pred) == normalize_answer(gold)`; two empty texts match).
//!
//! The label is a string or a list of acceptable answers (numbers count as
//! their text); the value is the best F1 over them, as the script's
//! `metric_max_over_ground_truths`, with the best answer (the first of equals),
//! its `precision` and `recall` in the detail and as components, and
//! `exact_match` (1 when any answer matches exactly) as a component. A missing
//! label or an empty list skips the sample; a missing prediction is empty and
//! scores 0. Aggregate: mean ± std of the F1, and the mean of each component.

use super::keyword_coverage::text_of;
use super::rag_accuracy::strings;
use super::reference_rouge::is_cjk;
use super::{
    f1, schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::{Schema, RAW_ANSWER};
use std::collections::HashMap;
use std::sync::Arc;
use unicode_normalization::char::is_combining_mark;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "token_f1",
    kind: RunKind::Task,
    needs: "An answer text and one or more acceptable answers in the sample.",
    description: "SQuAD v1.1 token F1 of the answer against the best of the acceptable answers.",
    description_zh: "答案相对最佳可接受答案的 SQuAD v1.1 词级 F1（中日韩按字）。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The answer field scored (default raw_answer).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the answer, or a list of acceptable answers.",
        },
    ],
    example: "type: token_f1\npred_field: final_answer\nlabel_field: gt_answers\n",
};

/// A built `token_f1`.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenF1 {
    /// Prediction field.
    pub pred_field: String,
    /// Label path holding the answer or acceptable answers.
    pub label_field: String,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.string("pred_field")?.unwrap_or(RAW_ANSWER);
    Ok(Arc::new(TokenF1 {
        pred_field: schema_field(schema, "pred_field", pred, &[])?,
        label_field: raw.required_string("label_field")?.to_string(),
    }))
}

/// The comparison of one prediction with one gold answer.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Overlap {
    /// Shared tokens over predicted tokens (0 when none are shared).
    pub precision: f64,
    /// Shared tokens over gold tokens (0 when none are shared).
    pub recall: f64,
    /// Token F1.
    pub f1: f64,
    /// The normalized texts are equal.
    pub exact: bool,
}

/// True for a word character of Python's `re` (`str.isalnum()` or `_`):
/// Unicode letters and numbers, without the combining marks and enclosed
/// letters (Ⓐ, 🄰) that Rust's `is_alphanumeric` also counts.
fn is_word(c: char) -> bool {
    let enclosed = matches!(
        c as u32,
        0x24B6..=0x24E9 | 0x1F130..=0x1F149 | 0x1F150..=0x1F169 | 0x1F170..=0x1F189
    );
    c == '_' || (c.is_alphanumeric() && !is_combining_mark(c) && !enclosed)
}

/// True for a character Python's `str.split()` splits on.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1C}'..='\u{1F}').contains(&c)
}

/// Lowercased, ASCII punctuation removed, CJK characters spaced out.
fn lower_without_punctuation(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.to_lowercase().chars() {
        if is_cjk(c) {
            out.extend([' ', c, ' ']);
        } else if !c.is_ascii_punctuation() {
            out.push(c);
        }
    }
    out
}

/// Replaces each whole-word `a`, `an`, `the` (a maximal run of word
/// characters, which is what `\b(a|an|the)\b` matches) by a space.
fn remove_articles(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word_start = 0;
    for (i, c) in text.char_indices() {
        if !is_word(c) {
            push_word(&mut out, &text[word_start..i]);
            out.push(c);
            word_start = i + c.len_utf8();
        }
    }
    push_word(&mut out, &text[word_start..]);
    out
}

fn push_word(out: &mut String, word: &str) {
    match word {
        "a" | "an" | "the" => out.push(' '),
        _ => out.push_str(word),
    }
}

/// The tokens of `normalize_answer(text).split()`, CJK characters one each.
pub fn tokens(text: &str) -> Vec<String> {
    remove_articles(&lower_without_punctuation(text))
        .split(is_space)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Token precision, recall, F1 and exact match of `pred` against `gold`.
pub fn overlap(pred: &[String], gold: &[String]) -> Overlap {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for t in gold {
        *left.entry(t).or_insert(0) += 1;
    }
    let common = pred
        .iter()
        .filter(|t| match left.get_mut(t.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count();
    let exact = pred == gold;
    if common == 0 {
        return Overlap {
            exact,
            ..Overlap::default()
        };
    }
    let precision = common as f64 / pred.len() as f64;
    let recall = common as f64 / gold.len() as f64;
    Overlap {
        precision,
        recall,
        f1: f1(precision, recall),
        exact,
    }
}

/// The script's `f1_score` and `exact_match_score` of two texts.
pub fn token_f1(prediction: &str, answer: &str) -> Overlap {
    overlap(&tokens(prediction), &tokens(answer))
}

/// The best answer by F1 (the first of equals) with its overlap, and whether
/// any answer matches exactly; `None` without answers.
pub fn best(prediction: &str, answers: &[String]) -> Option<(usize, Overlap, bool)> {
    let pred = tokens(prediction);
    let scored: Vec<Overlap> = answers.iter().map(|a| overlap(&pred, &tokens(a))).collect();
    let exact = scored.iter().any(|o| o.exact);
    let (i, o) = scored
        .into_iter()
        .enumerate()
        .reduce(|b, c| if c.1.f1 > b.1.f1 { c } else { b })?;
    Some((i, o, exact))
}

impl Metric for TokenF1 {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let answers = strings(input.label(&self.label_field));
        let pred = input
            .pred(&self.pred_field)
            .map(text_of)
            .unwrap_or_default();
        let Some((i, o, exact)) = best(&pred, &answers) else {
            return SampleScore::skipped(format!(
                "label `{}` is missing or holds no answer",
                self.label_field
            ));
        };
        SampleScore::new(o.f1)
            .with("precision", o.precision)
            .with("recall", o.recall)
            .with("exact_match", if exact { 1.0 } else { 0.0 })
            .detail("answer", pred)
            .detail("best_label", answers[i].clone())
            .detail("precision", o.precision)
            .detail("recall", o.recall)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn normalizes_like_squad_v1_1() {
        assert_eq!(tokens("The  Cat's, HAT!"), ["cats", "hat"]);
        assert_eq!(
            tokens("an apple, a pear and the other"),
            ["apple", "pear", "and", "other"]
        );
        // Punctuation goes first, so `a-team` is one word.
        assert_eq!(tokens("theory of a-team"), ["theory", "of", "ateam"]);
        assert_eq!(tokens("“Quoted” — text"), ["“quoted”", "—", "text"]);
        assert_eq!(tokens("café à la carte"), ["café", "à", "la", "carte"]);
        assert_eq!(tokens("a\u{301} b\u{1F}c"), ["\u{301}", "b", "c"]);
        assert!(tokens(" the a an ").is_empty());
    }

    #[test]
    fn hand_computed_scores() {
        // 2 of 3 predicted and 2 of 3 gold tokens are shared (y twice).
        let o = token_f1("x y y", "y y z");
        close(o.f1, 2.0 / 3.0);
        let o = token_f1("Denver Broncos won", "the Denver Broncos");
        assert_eq!((o.precision, o.recall, o.exact), (2.0 / 3.0, 1.0, false));
        close(o.f1, 0.8);
        // No shared token, and both empty: F1 0 as in the script; EM of two
        // empty texts is 1.
        assert_eq!(token_f1("cat", "dog"), Overlap::default());
        let o = token_f1("", "The");
        assert_eq!((o.f1, o.exact), (0.0, true));
    }

    #[test]
    fn cjk_characters_are_tokens() {
        assert_eq!(
            tokens("the中国, 东京タワー"),
            ["中", "国", "东", "京", "タ", "ワ", "ー"]
        );
        // 北京大学 vs 北京: 2 shared of 4 predicted, 2 gold.
        let o = token_f1("北京大学", "北京");
        assert_eq!((o.precision, o.recall), (0.5, 1.0));
        close(o.f1, 2.0 / 3.0);
        // Full-width punctuation stays a token, as the script keeps non-ASCII punctuation.
        close(token_f1("北京。", "北京").f1, 0.8);
        // 东 京 tower vs 东 京 塔: 2 of 3 each way.
        close(token_f1("东京 Tower", "东京塔").f1, 2.0 / 3.0);
        // Hangul: 서 울 vs 서 울 시: precision 1, recall 2/3.
        close(token_f1("서울", "서울 시").f1, 0.8);
        assert!(token_f1("すし", "す し").exact);
    }

    #[test]
    fn best_answer_counts_and_is_in_the_detail() {
        let m = "{type: token_f1, label_field: answers}";
        let free = Schema::default();
        let s = score(
            m,
            &free,
            json!({"answers": ["Denver", "the Denver Broncos", "Broncos"]}),
            "Denver Broncos.",
        );
        assert_eq!(s.value, Some(1.0));
        assert_eq!(
            s.detail.get("best_label"),
            Some(&json!("the Denver Broncos"))
        );
        assert_eq!(s.components.get("exact_match"), Some(&1.0));
        let s = score(m, &free, json!({"answers": 1984}), "in 1984");
        assert_eq!(s.components.get("recall"), Some(&1.0));
        close(s.components["precision"], 0.5);
        close(s.value.unwrap_or(f64::NAN), 2.0 / 3.0);
        assert_eq!(score(m, &free, json!({"answers": []}), "x").value, None);
        assert_eq!(score(m, &free, json!({}), "x").value, None);
    }

    #[test]
    fn keys_are_checked() {
        let s = schema("[{field: answer, type: str}]");
        assert_eq!(build_error("{type: token_f1}", &s).key, "label_field");
        let e = build_error("{type: token_f1, label_field: g, tolerance: 1}", &s);
        assert_eq!(
            e.message,
            "`tolerance` does not apply to token_f1 (its keys: pred_field, label_field)"
        );
        let e = build_error("{type: token_f1, pred_field: 3, label_field: g}", &s);
        assert_eq!(
            (e.key.as_str(), e.message.as_str()),
            ("pred_field", "expected a string, found `3`")
        );
        let missing = score(
            "{type: token_f1, pred_field: answer, label_field: g}",
            &s,
            json!({"g": "x"}),
            "not json",
        );
        assert_eq!(missing.value, Some(0.0));
    }
}
