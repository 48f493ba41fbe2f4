//! `agreement.md`'s section (also appended to `report.md`): the table of
//! [`super::agree`]'s rows and, under each, what the viewer shows under it.

use super::measured::{Agreed, Agreement, Ci, Scheme};

/// `agreement.md`'s section (also appended to `report.md`).
pub fn agreement_markdown(agreed: &Agreed) -> String {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
    let with_ci = |v: Option<f64>, c: Option<Ci>| match (v, c) {
        (Some(v), Some([lo, hi])) => format!("{v:.3} [{lo:.3}, {hi:.3}]"),
        (v, _) => num(v),
    };
    let mut md = String::from("## Agreement with people\n\n");
    md.push_str(&format!(
        "{} labels; each case's label is its reviewers' majority (ties left out). \
         Intervals are 95% (Wilson; the corrected pass rate's by bootstrap).\n\n",
        agreed.labels
    ));
    md.push_str("| metric | model | scheme | n | agreement | κ | κ (quadratic) | TPR | TNR | pass rate | corrected pass rate | α (reviewers) |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for a in &agreed.metrics {
        let f = &a.figures;
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            a.metric,
            a.model.as_deref().unwrap_or("—"),
            a.scheme,
            f.n,
            num(f.agreement),
            num(f.cohen_kappa),
            num(f.cohen_kappa_quadratic),
            with_ci(f.tpr, f.tpr_ci95),
            with_ci(f.tnr, f.tnr_ci95),
            num(a.pass_rate),
            with_ci(a.corrected_pass_rate, a.corrected_pass_rate_ci95),
            num(a.krippendorff_alpha),
        ));
    }
    for a in &agreed.metrics {
        md.push_str(&detail_markdown(a));
    }
    let undefined: Vec<String> = agreed
        .metrics
        .iter()
        .flat_map(|a| {
            a.figures
                .undefined_shown()
                .into_iter()
                .map(move |(k, why)| format!("- {} {k}: {why}", a.metric))
        })
        .collect();
    if !undefined.is_empty() {
        md.push_str("\nUndefined figures:\n\n");
        md.push_str(&undefined.join("\n"));
        md.push('\n');
    }
    if !agreed.unmatched.is_empty() || !agreed.off_scale.is_empty() {
        md.push_str(&format!(
            "\n{} labels did not match the run and {} were off their metric's scale (left out).\n",
            agreed.unmatched.len(),
            agreed.off_scale.len()
        ));
    }
    md
}

/// One metric's figures beyond the table (as the viewer shows them under
/// it): the confusion table, ties, ordinal α, each reviewer, each pair.
fn detail_markdown(a: &Agreement) -> String {
    let num = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.3}"));
    let mut md = format!(
        "\n### {}{} ({})\n\n",
        a.metric,
        a.model
            .as_ref()
            .map(|m| format!(" · {m}"))
            .unwrap_or_default(),
        a.scheme
    );
    md.push_str(&format!(
        "{} cases labelled, {} with an automatic verdict; {} cases where the reviewers tied (left out).",
        a.labelled_cases, a.judged_cases, a.majority_ties
    ));
    if matches!(Scheme::parse(&a.scheme), Ok(Scheme::Rating { .. })) {
        md.push_str(&format!(
            " Krippendorff's α (ordinal): {}.",
            num(a.krippendorff_alpha_ordinal)
        ));
    }
    md.push('\n');
    if let Some(c) = &a.figures.confusion {
        md.push_str("\n| people's label \\ verdict | pass | fail |\n|---|---|---|\n");
        md.push_str(&format!(
            "| pass | {} | {} |\n| fail | {} | {} |\n",
            c.both_pass, c.label_only_pass, c.verdict_only_pass, c.both_fail
        ));
    }
    if !a.per_reviewer.is_empty() {
        md.push_str("\n| reviewer | n | agreement | κ | κ (quadratic) | TPR | TNR |\n|---|---|---|---|---|---|---|\n");
        for r in &a.per_reviewer {
            let f = &r.figures;
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r.reviewer,
                f.n,
                num(f.agreement),
                num(f.cohen_kappa),
                num(f.cohen_kappa_quadratic),
                num(f.tpr),
                num(f.tnr)
            ));
        }
    }
    if !a.reviewer_pairs.is_empty() {
        md.push_str("\n| reviewers | both labelled | κ |\n|---|---|---|\n");
        for p in &a.reviewer_pairs {
            let k = match (p.cohen_kappa, &p.undefined) {
                (Some(k), _) => format!("{k:.3}"),
                (None, Some(w)) => format!("— ({w})"),
                (None, None) => "—".into(),
            };
            md.push_str(&format!("| {} · {} | {} | {k} |\n", p.a, p.b, p.n));
        }
    }
    md
}
