//! The κ gate (`--fail-if-kappa-below K`) of `evalpage agree` and
//! `evalpage compare`: one rule over rows of κ against people, whichever
//! way they were measured: by [`super::agree`] (a run's verdicts against
//! label files, `agreement.json`), or by a judge checked against the
//! dataset's own human labels (`human_label_field`: the report's
//! `llm_judge_details[].human_kappa`).
//!
//! A row whose κ is undefined (`null`) does not pass: a gate that cannot be
//! checked is not passed.

use super::measured::Agreed;
use crate::report::LlmJudgeDetail;
use serde_json::Value;

/// One metric's (and model's) κ against people, as the gate reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct KappaRow {
    /// The metric.
    pub metric: String,
    /// The model, when the run names one.
    pub model: Option<String>,
    /// Cases with both a verdict and a person's label.
    pub n: usize,
    /// Cohen's κ; `None` when undefined.
    pub kappa: Option<f64>,
    /// Why κ is undefined, when it is.
    pub why: Option<String>,
}

impl KappaRow {
    fn name(&self) -> String {
        match &self.model {
            Some(m) => format!("{} ({m})", self.metric),
            None => self.metric.clone(),
        }
    }
}

/// The rows of `agreed` ([`super::agree`]'s figures).
pub fn kappa_rows(agreed: &Agreed) -> Vec<KappaRow> {
    agreed
        .metrics
        .iter()
        .map(|a| KappaRow {
            metric: a.metric.clone(),
            model: a.model.clone(),
            n: a.figures.n,
            kappa: a.figures.cohen_kappa,
            why: a.figures.undefined.get("cohen_kappa").cloned(),
        })
        .collect()
}

/// The rows of a saved `agreement.json` (what `evalpage agree` writes):
/// each of `metrics[]`'s `metric`, `model`, `n`, `cohen_kappa` and
/// `undefined.cohen_kappa`. An error names the field (`metrics[2].n`).
pub fn kappa_rows_of_agreement(doc: &Value) -> Result<Vec<KappaRow>, String> {
    let rows = doc
        .get("metrics")
        .and_then(Value::as_array)
        .ok_or("`metrics`: missing or not an array (not an agreement.json of `evalpage agree`)")?;
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let field = |name: &str| format!("`metrics[{i}].{name}`");
            let metric = r
                .get("metric")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{}: missing or not a string", field("metric")))?;
            let model = match r.get("model") {
                None | Some(Value::Null) => None,
                Some(Value::String(m)) => Some(m.clone()),
                Some(_) => return Err(format!("{}: not a string or null", field("model"))),
            };
            let n = r
                .get("n")
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("{}: missing or not a count", field("n")))?;
            let kappa = match r.get("cohen_kappa") {
                Some(Value::Null) => None,
                Some(v) => Some(v.as_f64().filter(|k| (-1.0..=1.0).contains(k)).ok_or_else(
                    || format!("{}: not a number from -1 to 1", field("cohen_kappa")),
                )?),
                None => return Err(format!("{}: missing", field("cohen_kappa"))),
            };
            let why = r
                .get("undefined")
                .and_then(|u| u.get("cohen_kappa"))
                .and_then(Value::as_str)
                .map(str::to_string);
            Ok(KappaRow {
                metric: metric.to_string(),
                model,
                n: n as usize,
                kappa,
                why,
            })
        })
        .collect()
}

/// The rows of a report's judged metrics that were checked against the
/// dataset's human labels (`human_label_field`): those with at least one
/// human-labelled case. A metric without human labels has no row.
pub fn kappa_rows_of_judges(details: &[LlmJudgeDetail]) -> Vec<KappaRow> {
    details
        .iter()
        .filter(|d| d.human_labelled > 0 || d.human_kappa.is_some())
        .map(|d| KappaRow {
            metric: d.metric.clone(),
            model: d.model.clone(),
            n: d.human_labelled,
            kappa: d.human_kappa,
            why: d.human_kappa.is_none().then(|| {
                "the judge and the human labels each use a single, identical class (chance agreement is 1)"
                    .to_string()
            }),
        })
        .collect()
}

/// Each row whose κ is below `k` or undefined, said (`correct (m): κ =
/// 0.412 against people (n = 30) is below 0.6`). Empty: the gate passes.
pub fn kappa_gate(rows: &[KappaRow], k: f64) -> Vec<String> {
    rows.iter()
        .filter_map(|r| match r.kappa {
            Some(kappa) if kappa >= k => None,
            Some(kappa) => Some(format!(
                "{}: κ = {kappa:.3} against people (n = {}) is below {k}",
                r.name(),
                r.n
            )),
            None => Some(format!(
                "{}: κ against people is undefined ({}), so it is not at least {k}",
                r.name(),
                r.why.as_deref().unwrap_or("no case")
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(metric: &str, model: Option<&str>, kappa: Option<f64>) -> KappaRow {
        KappaRow {
            metric: metric.into(),
            model: model.map(str::to_string),
            n: 12,
            kappa,
            why: kappa.is_none().then(|| "one class only".to_string()),
        }
    }

    #[test]
    fn below_or_undefined_fails_and_at_or_above_passes() {
        let rows = [
            row("correct", Some("m"), Some(0.6)),
            row("tone", None, Some(0.59)),
            row("style", Some("m"), None),
        ];
        let failed = kappa_gate(&rows, 0.6);
        assert_eq!(
            failed,
            vec![
                "tone: κ = 0.590 against people (n = 12) is below 0.6".to_string(),
                "style (m): κ against people is undefined (one class only), so it is not at least 0.6"
                    .to_string(),
            ]
        );
        assert!(kappa_gate(&rows[..1], 0.6).is_empty(), "κ = K passes");
        assert!(kappa_gate(&[], 0.6).is_empty());
    }

    #[test]
    fn agreement_json_rows_are_read_and_a_bad_field_is_named() {
        let doc = json!({"metrics": [
            {"metric": "correct", "model": "m", "n": 30, "cohen_kappa": 0.41},
            {"metric": "tone", "model": null, "n": 8, "cohen_kappa": null,
             "undefined": {"cohen_kappa": "one class only"}},
        ]});
        let rows = kappa_rows_of_agreement(&doc).expect("rows");
        assert_eq!(rows[0], {
            let mut r = row("correct", Some("m"), Some(0.41));
            r.n = 30;
            r
        });
        assert_eq!(rows[1].kappa, None);
        assert_eq!(rows[1].why.as_deref(), Some("one class only"));
        let bad = json!({"metrics": [{"metric": "x", "n": 3, "cohen_kappa": "high"}]});
        assert_eq!(
            kappa_rows_of_agreement(&bad).err().as_deref(),
            Some("`metrics[0].cohen_kappa`: not a number from -1 to 1")
        );
        let bad = json!({"metrics": [{"metric": "x", "cohen_kappa": 0.2}]});
        assert_eq!(
            kappa_rows_of_agreement(&bad).err().as_deref(),
            Some("`metrics[0].n`: missing or not a count")
        );
        assert!(kappa_rows_of_agreement(&json!([])).is_err());
    }

    #[test]
    fn judges_without_human_labels_have_no_row() {
        let judged = |labelled: usize, kappa: Option<f64>| LlmJudgeDetail {
            metric: "correct".into(),
            model: Some("m".into()),
            human_labelled: labelled,
            human_kappa: kappa,
            ..LlmJudgeDetail::default()
        };
        let rows = kappa_rows_of_judges(&[judged(0, None), judged(5, Some(0.2)), judged(4, None)]);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].n, rows[0].kappa), (5, Some(0.2)));
        assert_eq!(rows[1].kappa, None);
        assert!(rows[1].why.as_deref().is_some_and(|w| w.contains("single")));
    }
}
