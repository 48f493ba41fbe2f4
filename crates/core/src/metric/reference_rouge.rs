//! `reference_rouge` (spec 004 摘要类文本与参考答案相似度): ROUGE-1, ROUGE-2 and
//! ROUGE-L F1 of a predicted text against a reference, as Google's
//! `rouge-score` package computes them (`RougeScorer(use_stemmer=False)`).
//!
//! Tokens: the text is lowercased, every character outside `[a-z0-9]` separates
//! tokens, and tokens are the remaining runs; this is rouge-score's default
//! tokenizer, and gives the same tokens for any text without CJK characters
//! (checked against the package in `tests/rouge_agreement.rs`). rouge-score drops
//! CJK characters entirely (they are not `[a-z0-9]`), so here each Han, kana or
//! Hangul character is a token of its own instead, the usual character-level
//! ROUGE for Chinese. No stemming, no stopword removal.
//!
//! With `ref` the reference tokens and `pred` the predicted ones:
//! - ROUGE-N: `overlap = Σ_g min(count_ref(g), count_pred(g))` over n-grams g;
//!   `precision = overlap / max(#pred n-grams, 1)`, `recall = overlap / max(#ref n-grams, 1)`;
//! - ROUGE-L: `lcs = |LCS(ref, pred)|`, `precision = lcs / |pred|`, `recall = lcs / |ref|`
//!   (all 0 when either is empty);
//! - `F1 = 2·precision·recall / (precision + recall)`, 0 when both are 0.
//!
//! The per-sample value is the F1 of `rouge_type` (`rouge1`, `rouge2` or
//! `rougeL`, default `rougeL`); all three F1s are components. A label that is an
//! array of strings holds several references: each ROUGE type takes its best F1,
//! as rouge-score's `score_multi` does. A missing label skips the sample.

use super::{
    f1, schema_field, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore, ScoreInput,
};
use crate::position::KeyError;
use crate::schema::Schema;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "reference_rouge",
    kind: RunKind::Task,
    needs: "A text field of the answer and a reference text in the sample.",
    description:
        "ROUGE-1/2/L F1 of a text against a reference (rouge-score tokens; CJK by character).",
    description_zh: "文本相对参考答案的 ROUGE-1/2/L F1（rouge-score 分词；中日韩按字）。",
    keys: &[
        MetricKey {
            name: "pred_field",
            description: "The generated text (a str parse_schema field or raw_answer).",
        },
        MetricKey {
            name: "label_field",
            description: "The sample field holding the reference, or a list of references.",
        },
        MetricKey {
            name: "rouge_type",
            description: "`rouge1`, `rouge2` or `rougeL` (default), the per-sample value.",
        },
    ],
    example:
        "type: reference_rouge\npred_field: summary\nlabel_field: gt_summary\nrouge_type: rougeL\n",
};

/// The ROUGE types, as rouge-score names them.
pub const ROUGE_TYPES: [&str; 3] = ["rouge1", "rouge2", "rougeL"];

/// A built `reference_rouge`.
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceRouge {
    /// Prediction field (str or raw_answer).
    pub pred_field: String,
    /// Label path in the sample.
    pub label_field: String,
    /// The ROUGE type whose F1 is the value.
    pub rouge_type: &'static str,
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let pred = raw.required_string("pred_field")?;
    let wanted = raw.string("rouge_type")?.unwrap_or("rougeL");
    let rouge_type = ROUGE_TYPES
        .into_iter()
        .find(|t| *t == wanted)
        .ok_or_else(|| {
            KeyError::new(
                "rouge_type",
                format!(
                    "unknown ROUGE type `{wanted}`; expected one of {}",
                    ROUGE_TYPES.join(", ")
                ),
            )
        })?;
    Ok(Arc::new(ReferenceRouge {
        pred_field: schema_field(schema, "pred_field", pred, &["str"])?,
        label_field: raw.required_string("label_field")?.to_string(),
        rouge_type,
    }))
}

/// Precision, recall and F1 of one ROUGE type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct RougeScore {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub fmeasure: f64,
}

impl RougeScore {
    fn new(precision: f64, recall: f64) -> RougeScore {
        RougeScore {
            precision,
            recall,
            fmeasure: f1(precision, recall),
        }
    }
}

/// ROUGE-1, ROUGE-2 and ROUGE-L of one prediction against one reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Rouge {
    /// ROUGE-1.
    pub rouge1: RougeScore,
    /// ROUGE-2.
    pub rouge2: RougeScore,
    /// ROUGE-L.
    #[serde(rename = "rougeL")]
    pub rouge_l: RougeScore,
}

impl Rouge {
    /// The score of a type by rouge-score name.
    pub fn get(&self, rouge_type: &str) -> RougeScore {
        match rouge_type {
            "rouge1" => self.rouge1,
            "rouge2" => self.rouge2,
            _ => self.rouge_l,
        }
    }
}

/// Scores `prediction` against `reference` (argument order as rouge-score's `score(target, prediction)`).
pub fn rouge(reference: &str, prediction: &str) -> Rouge {
    let (r, p) = (tokenize(reference), tokenize(prediction));
    Rouge {
        rouge1: rouge_n(&r, &p, 1),
        rouge2: rouge_n(&r, &p, 2),
        rouge_l: rouge_l(&r, &p),
    }
}

/// True for a Han, kana or Hangul character (each is one token).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// rouge-score's tokens, plus one token per CJK character (see the module doc).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if is_cjk(c) {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

/// ROUGE-N with clipped n-gram counts.
pub fn rouge_n(reference: &[String], prediction: &[String], n: usize) -> RougeScore {
    let grams = |t: &[String]| -> HashMap<Vec<String>, usize> {
        let mut m = HashMap::new();
        for g in t.windows(n.max(1)) {
            *m.entry(g.to_vec()).or_insert(0) += 1;
        }
        m
    };
    let (r, p) = (grams(reference), grams(prediction));
    let overlap: usize = r
        .iter()
        .map(|(g, c)| (*c).min(p.get(g).copied().unwrap_or(0)))
        .sum();
    let total = |m: &HashMap<Vec<String>, usize>| m.values().sum::<usize>().max(1) as f64;
    RougeScore::new(overlap as f64 / total(&p), overlap as f64 / total(&r))
}

/// ROUGE-L from the longest common subsequence of tokens.
pub fn rouge_l(reference: &[String], prediction: &[String]) -> RougeScore {
    if reference.is_empty() || prediction.is_empty() {
        return RougeScore::default();
    }
    let mut prev = vec![0usize; prediction.len() + 1];
    for r in reference {
        let mut row = vec![0usize; prediction.len() + 1];
        for (j, p) in prediction.iter().enumerate() {
            row[j + 1] = if r == p {
                prev[j] + 1
            } else {
                row[j].max(prev[j + 1])
            };
        }
        prev = row;
    }
    let lcs = prev[prediction.len()] as f64;
    RougeScore::new(lcs / prediction.len() as f64, lcs / reference.len() as f64)
}

/// The score of type `t` with the highest F1 among several references.
fn best_of(scores: &[Rouge], t: &str) -> RougeScore {
    let better = |a: RougeScore, b: RougeScore| if b.fmeasure > a.fmeasure { b } else { a };
    scores
        .iter()
        .map(|s| s.get(t))
        .fold(RougeScore::default(), better)
}

impl Metric for ReferenceRouge {
    fn score(&self, input: &ScoreInput<'_>) -> SampleScore {
        let references: Vec<&str> = match input.label(&self.label_field) {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if references.is_empty() {
            return SampleScore::skipped(format!(
                "label `{}` is missing or holds no text",
                self.label_field
            ));
        }
        let pred = input
            .pred(&self.pred_field)
            .and_then(Value::as_str)
            .unwrap_or("");
        let scores: Vec<Rouge> = references.iter().map(|r| rouge(r, pred)).collect();
        let best = |t: &str| best_of(&scores, t);
        let mut out = SampleScore::new(best(self.rouge_type).fmeasure);
        for t in ROUGE_TYPES {
            let s = best(t);
            out = out.with(t, s.fmeasure).detail(t, serde_json::json!(s));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

    fn toks(s: &str) -> Vec<String> {
        tokenize(s)
    }

    #[test]
    fn tokenizer_matches_rouge_score_and_splits_cjk() {
        assert_eq!(
            toks("The cat's 2nd-best (café) HAT!"),
            vec!["the", "cat", "s", "2nd", "best", "caf", "hat"]
        );
        assert_eq!(
            toks("检索增强 RAG系统"),
            vec!["检", "索", "增", "强", "rag", "系", "统"]
        );
        assert!(toks("... ——").is_empty());
    }

    #[test]
    fn hand_computed_rouge() {
        // ref: the cat sat on the mat (6), pred: the cat on the mat (5)
        let r = rouge("the cat sat on the mat", "the cat on the mat");
        // unigrams: overlap 5 -> p 5/5, r 5/6, f 10/11
        close(r.rouge1.fmeasure, 10.0 / 11.0);
        // bigrams: ref {the cat, cat sat, sat on, on the, the mat}, pred {the cat, cat on, on the, the mat}: 3
        close(r.rouge2.precision, 3.0 / 4.0);
        close(r.rouge2.recall, 3.0 / 5.0);
        // LCS "the cat on the mat" = 5 -> same as ROUGE-1
        close(r.rouge_l.fmeasure, 10.0 / 11.0);
        assert_eq!(rouge("", "x").rouge_l, RougeScore::default());
        // Chinese by character: 今天天气很好 vs 今天天气不错: LCS 4 of 6 each -> 2/3
        close(
            rouge("今天天气很好", "今天天气不错").rouge_l.fmeasure,
            2.0 / 3.0,
        );
    }

    #[test]
    fn metric_takes_the_chosen_type_and_the_best_reference() {
        let s = schema("[{field: summary, type: str}]");
        let m = "{type: reference_rouge, pred_field: summary, label_field: gt_summary, rouge_type: rouge1}";
        let sc = score(
            m,
            &s,
            json!({"gt_summary": ["dogs run", "the cat sat on the mat"]}),
            r#"{"summary":"the cat on the mat"}"#,
        );
        close(sc.value.unwrap_or(-1.0), 10.0 / 11.0);
        close(sc.components["rouge2"], 2.0 * 0.75 * 0.6 / 1.35);
        assert_eq!(score(m, &s, json!({}), r#"{"summary":"x"}"#).value, None);
        assert_eq!(build_error("{type: reference_rouge, pred_field: summary, label_field: y, rouge_type: rougeLsum}", &s).key, "rouge_type");
    }
}
