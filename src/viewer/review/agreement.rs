//! The agreement of people's labels with the automatic verdicts, as the
//! core measures it (`evalpage_core::review::agree`): one row per metric and
//! model, and under it the confusion table, ties, ordinal α, each reviewer
//! and each two reviewers.

use evalpage_core::review::{Agreed, Agreement, Scheme};
use evalpage_core::Lang;
use yew::prelude::*;

fn fmt(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.3}"))
}

fn fmt_ci(v: Option<f64>, ci: Option<[f64; 2]>) -> String {
    match (v, ci) {
        (Some(v), Some([lo, hi])) => format!("{v:.3} [{lo:.3}, {hi:.3}]"),
        (v, _) => fmt(v),
    }
}

/// The agreement of the labels with the verdicts, per metric and model.
pub(super) fn agreement_table(lang: Lang, a: &Agreed) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    if a.metrics.is_empty() {
        return html! { <p class="muted" data-testid="review-agreement-empty">{t("还没有与本次运行匹配的标签。", "No label of this run yet.")}</p> };
    }
    html! {
        <div data-testid="review-agreement">
            <h3>{t("与人工标签的一致性", "Agreement with people")}</h3>
            <table>
                <thead><tr>
                    <th>{t("指标", "metric")}</th><th>{t("模型", "model")}</th><th>{"n"}</th><th>{t("一致率", "agreement")}</th>
                    <th>{"κ"}</th><th>{t("κ（二次加权）", "κ (quadratic)")}</th><th>{"TPR"}</th><th>{"TNR"}</th>
                    <th>{t("通过率", "pass rate")}</th><th>{t("校正后通过率", "corrected pass rate")}</th><th>{t("α（评审人之间）", "α (reviewers)")}</th>
                </tr></thead>
                <tbody>{ for a.metrics.iter().map(|m| {
                    let f = &m.figures;
                    html! {
                        <tr data-testid="agree-row" data-metric={m.metric.clone()}>
                            <td>{&m.metric}</td><td>{m.model.clone().unwrap_or_default()}</td>
                            <td data-testid="agree-n">{f.n}</td>
                            <td data-testid="agree-agreement">{fmt(f.agreement)}</td>
                            <td data-testid="agree-kappa" title={f.undefined.get("cohen_kappa").cloned().unwrap_or_default()}>{fmt_ci(f.cohen_kappa, f.cohen_kappa_ci95)}</td>
                            <td data-testid="agree-kappa-quadratic">{fmt(f.cohen_kappa_quadratic)}</td>
                            <td data-testid="agree-tpr">{fmt_ci(f.tpr, f.tpr_ci95)}</td>
                            <td data-testid="agree-tnr">{fmt_ci(f.tnr, f.tnr_ci95)}</td>
                            <td data-testid="agree-pass-rate">{fmt(m.pass_rate)}</td>
                            <td data-testid="agree-corrected">{fmt_ci(m.corrected_pass_rate, m.corrected_pass_rate_ci95)}</td>
                            <td data-testid="agree-alpha" title={f.undefined.get("krippendorff_alpha").cloned().unwrap_or_default()}>{fmt(m.krippendorff_alpha)}</td>
                        </tr>
                    }
                }) }</tbody>
            </table>
            { for a.metrics.iter().map(|m| agreement_detail(lang, m)) }
            { for a.metrics.iter().flat_map(|m| m.figures.undefined_shown().into_iter().map(move |(k, why)| html!{
                <p class="muted" data-testid="agree-undefined">{format!("{} {k}: {why}", m.metric)}</p>
            })) }
            if !a.unmatched.is_empty() || !a.off_scale.is_empty() {
                <p class="warning" data-testid="agree-left-out">{format!("{} {} · {} {}",
                    a.unmatched.len(), t("个标签不属于本次运行", "labels do not match this run"),
                    a.off_scale.len(), t("个标签不在刻度上", "are off their metric's scale"))}</p>
            }
        </div>
    }
}

/// One metric's agreement beyond the table: the confusion table, ties,
/// ordinal α, each reviewer alone and each two reviewers.
fn agreement_detail(lang: Lang, m: &Agreement) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let why = |f: &evalpage_core::review::Figures, k: &str| {
        f.undefined.get(k).cloned().unwrap_or_default()
    };
    let title = match &m.model {
        Some(model) => format!("{} · {model}", m.metric),
        None => m.metric.clone(),
    };
    html! {
        <details class="agree-detail" open={true} data-testid="agree-detail" data-metric={m.metric.clone()}>
            <summary>{format!("{title} · {} · {} {}", m.scheme, m.reviewers.len(), t("位评审人", "reviewers"))}</summary>
            if let Some(c) = &m.figures.confusion {
                <table class="confusion" data-testid="agree-confusion">
                    <caption>{t("人工标签（多数）× 自动判定", "People's label (majority) × automatic verdict")}</caption>
                    <thead><tr><th></th><th scope="col">{t("判定通过", "verdict pass")}</th><th scope="col">{t("判定不通过", "verdict fail")}</th></tr></thead>
                    <tbody>
                        <tr><th scope="row">{t("人工通过", "people pass")}</th>
                            <td data-testid="confusion-both-pass">{c.both_pass}</td><td data-testid="confusion-label-only-pass">{c.label_only_pass}</td></tr>
                        <tr><th scope="row">{t("人工不通过", "people fail")}</th>
                            <td data-testid="confusion-verdict-only-pass">{c.verdict_only_pass}</td><td data-testid="confusion-both-fail">{c.both_fail}</td></tr>
                    </tbody>
                </table>
            }
            <p class="muted">
                <span data-testid="agree-ties">{format!("{} {}", m.majority_ties, t("例评审人打平（不计入）", "cases where the reviewers tied (left out)"))}</span>
                {format!(" · {} {} · {} {}", m.labelled_cases, t("例有标签", "cases labelled"), m.judged_cases, t("例有自动判定", "with an automatic verdict"))}
                if matches!(Scheme::parse(&m.scheme), Ok(Scheme::Rating { .. })) {
                    <span data-testid="agree-alpha-ordinal" title={why(&m.figures, "krippendorff_alpha_ordinal")}>{format!(" · α ({}) {}", t("有序", "ordinal"), fmt(m.krippendorff_alpha_ordinal))}</span>
                }
            </p>
            if !m.per_reviewer.is_empty() {
                <table data-testid="agree-reviewers">
                    <caption>{t("每位评审人对自动判定", "Each reviewer against the automatic verdict")}</caption>
                    <thead><tr><th>{t("评审人", "reviewer")}</th><th>{"n"}</th><th>{t("一致率", "agreement")}</th><th>{"κ"}</th>
                        <th>{t("κ（二次加权）", "κ (quadratic)")}</th><th>{"TPR"}</th><th>{"TNR"}</th></tr></thead>
                    <tbody>{ for m.per_reviewer.iter().map(|r| { let f = &r.figures; html!{
                        <tr data-testid="agree-reviewer" data-reviewer={r.reviewer.clone()}>
                            <td>{&r.reviewer}</td><td data-testid="agree-reviewer-n">{f.n}</td><td>{fmt(f.agreement)}</td>
                            <td data-testid="agree-reviewer-kappa" title={why(f, "cohen_kappa")}>{fmt_ci(f.cohen_kappa, f.cohen_kappa_ci95)}</td>
                            <td>{fmt(f.cohen_kappa_quadratic)}</td><td>{fmt_ci(f.tpr, f.tpr_ci95)}</td><td>{fmt_ci(f.tnr, f.tnr_ci95)}</td>
                        </tr>
                    } }) }</tbody>
                </table>
            }
            if !m.reviewer_pairs.is_empty() {
                <table data-testid="agree-pairs">
                    <caption>{t("评审人两两之间的 κ", "κ between each two reviewers")}</caption>
                    <thead><tr><th>{t("评审人", "reviewers")}</th><th>{t("共同标注", "both labelled")}</th><th>{"κ"}</th></tr></thead>
                    <tbody>{ for m.reviewer_pairs.iter().map(|p| html!{
                        <tr data-testid="agree-pair">
                            <td>{format!("{} · {}", p.a, p.b)}</td><td data-testid="agree-pair-n">{p.n}</td>
                            <td data-testid="agree-pair-kappa">{match (p.cohen_kappa, &p.undefined) {
                                (Some(k), _) => format!("{k:.3}"),
                                (None, Some(w)) => format!("— ({w})"),
                                (None, None) => "—".into(),
                            }}</td>
                        </tr>
                    }) }</tbody>
                </table>
            }
        </details>
    }
}
