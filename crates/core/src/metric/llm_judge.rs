//! `llm_judge` (issue 11; spec 003's `llm_judge` metric): a judge model
//! grades the answer. The metric declares what is judged and how; the calls
//! themselves are made by the run (`task_run::engine`, on the judge's own
//! pool) and turned into a score by `judge::flow`; answers read from a file
//! are judged on the same engine (`task_run::file_answers`, `evalpage score
//! --judge`). Scored without a judge (`evalpage score` without `--judge`),
//! every sample is skipped as "not judged".
//!
//! Outcomes: each case is `pass`, `fail`, `tie` (pairwise only) or
//! `unscored` (the verdict could not be read, also after `max_repairs`
//! repairs). The value is the mean over the case's scored repeats (label
//! scales: 1 for a pass label, 0 otherwise; ranges: `(n − lo)/(hi − lo)`;
//! pairwise: 1 win, ½ tie, 0 loss). An unscored case has **no value**: it is
//! left out of the mean, never counted as 0 or 1, and counted in `unscored`.
//! A model call that failed, or an answer without the judged field, is not
//! sent to the judge and is a `fail` (0), as every other metric scores a
//! failed call; a sample without its reference or baseline is skipped, as
//! other metrics skip a missing label.
//!
//! Aggregate components: `pass`, `fail`, `tie`, `unscored` (counts),
//! `unscored_rate` (unscored / judged cases), `judged`; with `samples: N > 1`
//! `repeat_agreement` (share of cases whose scored repeats all gave the same
//! verdict, `judge::agreement::repeat_agreement`) and `mean_spread` (mean of
//! each case's standard deviation over its repeats); pairwise with both
//! orders `flip_rate` (share of answer pairs whose verdict changed when the
//! order was swapped); with `human_label_field` `human_labelled`,
//! `human_agreement` (raw) and `human_kappa` (Cohen's kappa over the
//! outcomes pass / fail / tie of the cases both rated).

use super::ScoreInput;
use super::{
    schema_field, Aggregate, Metric, MetricKey, MetricType, RawMetric, RunKind, SampleScore,
};
use crate::judge::agreement::{cohen_kappa, raw_agreement};
use crate::judge::prompt::{builtin, JudgePrompt, BUILTIN_IDS};
use crate::position::KeyError;
use crate::schema::{Schema, RAW_ANSWER};
use crate::Lang;
use serde_json::Value;
use std::sync::Arc;

/// Registry entry.
pub const TYPE: MetricType = MetricType {
    name: "llm_judge",
    kind: RunKind::Task,
    needs: "A judge model (`--judge` or the page's judge), its prompt, and the fields the prompt reads.",
    description: "A judge model grades the answer (pass / fail / unscored; unscored left out of the mean).",
    description_zh: "由评审模型给回答评分（通过 / 不通过 / 无法评分；无法评分不计入均值）。",
    keys: &[
        MetricKey {
            name: "judge",
            description: "Built-in prompt correctness (default), rubric or pairwise, or a judge prompt file beside the task.",
        },
        MetricKey {
            name: "language",
            description: "zh (default) or en: the language of the built-in prompt.",
        },
        MetricKey {
            name: "criteria",
            description: "Criteria shown to the judge, a list (default: the prompt's own).",
        },
        MetricKey {
            name: "rubric",
            description: "Rubric items, a list (needed by the rubric prompt).",
        },
        MetricKey {
            name: "reference_field",
            description: "Sample field with the reference answer (needed by correctness).",
        },
        MetricKey {
            name: "pred_field",
            description: "The judged answer field (a parse_schema field; default raw_answer).",
        },
        MetricKey {
            name: "samples",
            description: "Judgements per case, 1 (default) to 20; repeats report spread and agreement.",
        },
        MetricKey {
            name: "baseline_field",
            description: "Pairwise: sample field with the answer compared against.",
        },
        MetricKey {
            name: "both_orders",
            description: "Pairwise: judge both orders and report flips (default true).",
        },
        MetricKey {
            name: "human_label_field",
            description: "Sample field with a human verdict (pass/fail/tie, true/false or a scale value) for kappa.",
        },
        MetricKey {
            name: "max_repairs",
            description: "Times an unreadable verdict is asked again, 0 to 5 (default 1).",
        },
    ],
    example: "type: llm_judge\nname: judged_correct\njudge: correctness\nlanguage: en\nreference_field: gt_summary\npred_field: summary\n",
};

/// Which prompt a metric uses.
#[derive(Clone, Debug, PartialEq)]
pub enum PromptRef {
    /// A built-in prompt, resolved.
    Builtin(Box<JudgePrompt>),
    /// A prompt file, as written (the shell reads it; see `judge::flow::setups`).
    File(String),
}

/// A built `llm_judge`.
#[derive(Clone, Debug, PartialEq)]
pub struct LlmJudge {
    /// The prompt.
    pub prompt: PromptRef,
    /// Criteria replacing the prompt's.
    pub criteria: Option<Vec<String>>,
    /// Rubric items.
    pub rubric: Vec<String>,
    /// Reference answer path in the sample.
    pub reference_field: Option<String>,
    /// The judged answer field.
    pub pred_field: String,
    /// Judgements per case.
    pub samples: usize,
    /// Pairwise: the other answer's path in the sample.
    pub baseline_field: Option<String>,
    /// Pairwise: judge both orders.
    pub both_orders: bool,
    /// Human verdict path in the sample.
    pub human_label_field: Option<String>,
    /// Repairs of an unreadable verdict.
    pub max_repairs: usize,
}

/// Most repeats and repairs a metric may ask for.
pub const MAX_SAMPLES: usize = 20;
/// Most repairs.
pub const MAX_REPAIRS: usize = 5;

/// True when a `judge` value names a file rather than a built-in prompt.
pub fn is_file(judge: &str) -> bool {
    let lower = judge.to_ascii_lowercase();
    lower.ends_with(".yaml") || lower.ends_with(".yml")
}

fn whole(
    raw: &RawMetric,
    key: &str,
    default: usize,
    lo: usize,
    hi: usize,
) -> Result<usize, KeyError> {
    match raw.number(key)? {
        None => Ok(default),
        Some(n) if n.fract() == 0.0 && n >= lo as f64 && n <= hi as f64 => Ok(n as usize),
        Some(n) => Err(KeyError::new(
            key,
            format!("expected a whole number from {lo} to {hi}, found {n}"),
        )),
    }
}

pub(super) fn build(raw: &RawMetric, schema: &Schema) -> Result<Arc<dyn Metric>, KeyError> {
    let judge = raw.string("judge")?.unwrap_or("correctness");
    let language = match raw.string("language")? {
        None => None,
        Some(l) => Some(Lang::parse(l).ok_or_else(|| {
            KeyError::new("language", format!("expected `zh` or `en`, found `{l}`"))
        })?),
    };
    let prompt = if is_file(judge) {
        if language.is_some() {
            return Err(KeyError::new(
                "language",
                "applies to the built-in prompts; a judge prompt file gives its own `language`",
            ));
        }
        PromptRef::File(judge.to_string())
    } else {
        let p = builtin(judge, language.unwrap_or_default()).ok_or_else(|| {
            KeyError::new(
                "judge",
                format!(
                    "unknown judge prompt `{judge}`; expected one of {} or a prompt file (`.yaml`)",
                    BUILTIN_IDS.join(", ")
                ),
            )
        })?;
        PromptRef::Builtin(Box::new(p))
    };
    let pred_field = match raw.string("pred_field")? {
        Some(p) => schema_field(schema, "pred_field", p, &[])?,
        None => RAW_ANSWER.to_string(),
    };
    let both_orders = match raw.value("both_orders") {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(KeyError::new(
                "both_orders",
                format!("expected true or false, found {other}"),
            ))
        }
    };
    let m = LlmJudge {
        prompt,
        criteria: raw.strings("criteria")?,
        rubric: raw.strings("rubric")?.unwrap_or_default(),
        reference_field: raw.string("reference_field")?.map(str::to_string),
        pred_field,
        samples: whole(raw, "samples", 1, 1, MAX_SAMPLES)?,
        baseline_field: raw.string("baseline_field")?.map(str::to_string),
        both_orders,
        human_label_field: raw.string("human_label_field")?.map(str::to_string),
        max_repairs: whole(raw, "max_repairs", 1, 0, MAX_REPAIRS)?,
    };
    if let PromptRef::Builtin(p) = &m.prompt {
        m.check_against(p)?;
    }
    Ok(Arc::new(m))
}

impl LlmJudge {
    /// Checks the keys the prompt needs (and refuses those it cannot use).
    pub fn check_against(&self, p: &JudgePrompt) -> Result<(), KeyError> {
        use crate::judge::prompt::Mode;
        let id = &p.id;
        if matches!(p.scale, crate::judge::verdict::Scale::Tags(_)) {
            return Err(KeyError::new(
                "judge",
                format!("the judge prompt `{id}` answers with a tag list (dialog judging); an llm_judge metric needs `labels` or `range`"),
            ));
        }
        let pairwise = p.mode == Mode::Pairwise;
        match (pairwise, &self.baseline_field) {
            (true, None) => {
                return Err(KeyError::new(
                    "baseline_field",
                    format!("missing: the pairwise prompt `{id}` compares the answer with a baseline; give the sample field that holds it"),
                ))
            }
            (false, Some(_)) => {
                return Err(KeyError::new(
                    "baseline_field",
                    format!("applies to pairwise prompts; `{id}` grades one answer"),
                ))
            }
            _ => {}
        }
        let needs = |var: &str| p.needs.iter().any(|n| n == var);
        if needs("reference") && self.reference_field.is_none() {
            return Err(KeyError::new(
                "reference_field",
                format!("missing: the judge prompt `{id}` compares with a reference answer; give the sample field that holds it"),
            ));
        }
        if needs("rubric") && self.rubric.is_empty() {
            return Err(KeyError::new(
                "rubric",
                format!("missing: the judge prompt `{id}` grades against rubric items; give them as a list"),
            ));
        }
        Ok(())
    }

    /// The built-in prompt, when the metric uses one.
    pub fn builtin_prompt(&self) -> Option<&JudgePrompt> {
        match &self.prompt {
            PromptRef::Builtin(p) => Some(p),
            PromptRef::File(_) => None,
        }
    }
}

/// Why a sample was not judged at all when the run had no judge.
pub const NOT_JUDGED: &str = "not judged: llm_judge needs a judge model (`evalpage run --task ... --judge NAME`, or a judge in the page)";

impl Metric for LlmJudge {
    fn pass_fail(&self) -> bool {
        true
    }

    fn score(&self, _input: &ScoreInput<'_>) -> SampleScore {
        SampleScore::skipped(NOT_JUDGED)
    }

    fn aggregate(&self, scores: &[SampleScore]) -> Aggregate {
        let mut agg = Aggregate::of(scores);
        agg.components.clear();
        let count = |k: &str| {
            scores
                .iter()
                .filter(|s| s.components.get(k).is_some_and(|v| *v > 0.0))
                .count() as f64
        };
        let (pass, fail, tie, unscored) = (
            count("pass"),
            count("fail"),
            count("tie"),
            count("unscored"),
        );
        let judged = pass + fail + tie + unscored;
        let c = &mut agg.components;
        for (k, v) in [
            ("pass", pass),
            ("fail", fail),
            ("tie", tie),
            ("unscored", unscored),
            ("judged", judged),
        ] {
            c.insert(k.into(), v);
        }
        if judged > 0.0 {
            c.insert("unscored_rate".into(), unscored / judged);
        }
        let with = |k: &str| -> Vec<f64> {
            scores
                .iter()
                .filter_map(|s| s.components.get(k).copied())
                .collect()
        };
        let agree = with("repeats_agree");
        if !agree.is_empty() {
            c.insert(
                "repeat_agreement".into(),
                agree.iter().sum::<f64>() / agree.len() as f64,
            );
        }
        let spread = with("spread");
        if !spread.is_empty() {
            c.insert(
                "mean_spread".into(),
                spread.iter().sum::<f64>() / spread.len() as f64,
            );
        }
        let (pairs, flips) = (
            with("pairs").iter().sum::<f64>(),
            with("flips").iter().sum::<f64>(),
        );
        if pairs > 0.0 {
            c.insert("flip_rate".into(), flips / pairs);
        }
        let rated: Vec<(i64, i64)> = scores
            .iter()
            .filter_map(|s| {
                let h = s.components.get("human_outcome")?;
                let j = s.components.get("judge_outcome")?;
                Some(((h * 2.0).round() as i64, (j * 2.0).round() as i64))
            })
            .collect();
        if !rated.is_empty() {
            c.insert("human_labelled".into(), rated.len() as f64);
            if let Some(a) = raw_agreement(&rated) {
                c.insert("human_agreement".into(), a);
            }
            if let Some(k) = cohen_kappa(&rated) {
                c.insert("human_kappa".into(), k);
            }
        }
        agg
    }

    fn judge(&self) -> Option<&LlmJudge> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;

    fn free() -> Schema {
        Schema::default()
    }

    #[test]
    fn builds_with_defaults_and_checks_what_the_prompt_needs() {
        let m = built("{type: llm_judge, reference_field: gold}", &free());
        let j = m.judge().expect("a judge metric");
        assert_eq!((j.samples, j.max_repairs, j.both_orders), (1, 1, true));
        assert_eq!(j.pred_field, RAW_ANSWER);
        assert_eq!(j.builtin_prompt().map(|p| p.language), Some(Lang::Zh));
        let e = build_error("{type: llm_judge}", &free());
        assert_eq!(e.key, "reference_field");
        let e = build_error("{type: llm_judge, judge: rubric, language: en}", &free());
        assert_eq!(e.key, "rubric");
        let e = build_error("{type: llm_judge, judge: pairwise}", &free());
        assert_eq!(e.key, "baseline_field");
        let e = build_error(
            "{type: llm_judge, judge: nope, reference_field: g}",
            &free(),
        );
        assert!(
            e.message.starts_with("unknown judge prompt `nope`"),
            "{}",
            e.message
        );
        let e = build_error("{type: llm_judge, reference_field: g, samples: 0}", &free());
        assert_eq!(e.key, "samples");
        let e = build_error("{type: llm_judge, judge: j.yaml, language: en}", &free());
        assert_eq!(e.key, "language");
        let f = built("{type: llm_judge, judge: my_judge.yaml}", &free());
        assert_eq!(
            f.judge().map(|j| j.prompt.clone()),
            Some(PromptRef::File("my_judge.yaml".into()))
        );
    }

    #[test]
    fn without_a_judge_run_every_sample_is_skipped_and_unscored_never_counts() {
        let s = score(
            "{type: llm_judge, reference_field: g}",
            &free(),
            json!({"g": "x"}),
            "x",
        );
        assert_eq!(s.value, None);
        assert_eq!(s.detail.get("skipped"), Some(&json!(NOT_JUDGED)));
        let m = built("{type: llm_judge, reference_field: g}", &free());
        let scores = vec![
            SampleScore::new(1.0).with("pass", 1.0),
            SampleScore::new(0.0).with("fail", 1.0),
            SampleScore::skipped("unreadable").with("unscored", 1.0),
            SampleScore::skipped("unreadable").with("unscored", 1.0),
        ];
        let a = m.aggregate(&scores);
        assert_eq!((a.mean, a.sample_count, a.skipped), (0.5, 2, 2));
        assert_eq!(a.components.get("unscored_rate"), Some(&0.5));
        assert_eq!(a.components.get("judged"), Some(&4.0));
    }
}
