//! The viewer's comparison panel: the opened run (base) against a second run
//! opened beside it, or two models of the opened run: per metric the paired
//! cases, both means, the mean paired difference with its 95% bootstrap
//! interval, McNemar's exact p for 0/1 metrics, regressions and
//! improvements; then the cases that regressed or improved, and the cases
//! present in one run only.

use crate::viewer::state::Shared;
use evalpage_core::{fmt_p, CaseDiff, Comparison, Lang};
use yew::prelude::*;

/// Cases listed per list.
const LISTED: usize = 50;

/// Panel props.
#[derive(Properties, PartialEq)]
pub struct ComparePanelProps {
    /// Language.
    pub lang: Lang,
    /// The comparison, or why there is none.
    pub comparison: Shared<Result<Comparison, String>>,
    /// What is compared with what.
    pub title: String,
    /// Close the comparison.
    pub on_close: Callback<()>,
}

fn diffs(title: String, testid: &'static str, list: &[CaseDiff]) -> Html {
    html! {
        <details open={!list.is_empty() && list.len() <= 10}>
            <summary data-testid={testid}>{format!("{title}: {}", list.len())}</summary>
            <ul class="diffs">
                { for list.iter().take(LISTED).map(|d| html!{
                    <li>{format!("{}{} · {}: {:.3} → {:.3}", d.model.as_ref().map(|m| format!("{m} · ")).unwrap_or_default(), d.sample_id, d.metric, d.base, d.new)}</li>
                }) }
                if list.len() > LISTED { <li class="muted">{format!("… {}", list.len() - LISTED)}</li> }
            </ul>
        </details>
    }
}

/// The panel.
#[component]
pub fn ComparePanel(p: &ComparePanelProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let close = p.on_close.reform(|_: MouseEvent| ());
    let body = match &*p.comparison {
        Err(e) => {
            html! { <p class="error" role="alert" data-testid="compare-error">{e.clone()}</p> }
        }
        Ok(c) => html! {
            <>
                <table class="cases" data-testid="compare-table">
                    <thead><tr>
                        <th>{t("指标", "metric")}</th><th>{"n"}</th><th>{t("基线", "base")}</th><th>{t("新", "new")}</th>
                        <th>{"Δ"}</th><th>{format!("{:.0}% CI", 100.0 * (1.0 - c.alpha))}</th><th>{"McNemar p"}</th>
                        <th>{t("退步", "regressed")}</th><th>{t("改进", "improved")}</th>
                    </tr></thead>
                    <tbody>{ for c.rows.iter().map(|r| html!{
                        <tr data-testid="compare-row" data-metric={r.metric.clone()}>
                            <td>{format!("{}{}", r.model.as_ref().map(|m| format!("{m} · ")).unwrap_or_default(), r.metric)}</td>
                            <td class="num">{r.n}</td>
                            <td class="num">{format!("{:.3}", r.base)}</td>
                            <td class="num">{format!("{:.3}", r.new)}</td>
                            <td class="num">{format!("{:+.3}", r.delta)}</td>
                            <td class="num">{r.ci.map(|(lo, hi)| format!("[{lo:+.3}, {hi:+.3}]")).unwrap_or_else(|| "–".into())}</td>
                            <td class="num">{r.mcnemar.as_ref().map(|m| fmt_p(m.p)).unwrap_or_else(|| "–".into())}</td>
                            <td class="num">{r.regressions}</td>
                            <td class="num">{r.improvements}</td>
                        </tr>
                    }) }</tbody>
                </table>
                <p class="muted">{format!("{} {} · {} {}", t("配对自助法重采样", "paired bootstrap resamples"), c.resamples, t("种子", "seed"), c.seed)}</p>
                if c.by_input {
                    <p class="muted" data-testid="compare-by-input">{t("两次运行没有相同的样本 id：用例按输入的哈希配对（显示基线的 id）",
                        "The two runs share no sample id: cases are paired by the hash of their input (base's ids shown)")}</p>
                }
                if let Some(m) = &c.metrics {
                    <p class="muted">{format!("{} {} ↔ {}", t("配对的指标：", "Metrics paired: "), m.base, m.new)}</p>
                }
                { diffs(t("退步的用例", "Cases that regressed").to_string(), "compare-regressions", &c.regressions) }
                { diffs(t("改进的用例", "Cases that improved").to_string(), "compare-improvements", &c.improvements) }
                <p data-testid="compare-one-side">{format!("{}: {} · {}: {}",
                    t("只在基线中", "only in base"), c.only_base.len(), t("只在新运行中", "only in new"), c.only_new.len())}</p>
            </>
        },
    };
    html! {
        <section class="panel" data-testid="compare-panel">
            <h2>{&p.title}<button class="link" onclick={close}>{t("关闭比较", "Close the comparison")}</button></h2>
            {body}
        </section>
    }
}

/// Side-by-side props.
#[derive(Properties, PartialEq)]
pub struct SideBySideProps {
    /// Language.
    pub lang: Lang,
    /// The base run's name.
    pub base: String,
    /// The compared runs' names, in the order of `comparisons`.
    pub runs: Vec<String>,
    /// Each run against the base.
    pub comparisons: Vec<Shared<Result<Comparison, String>>>,
}

/// Several runs against one base, side by side: per metric (and model) one
/// column per run with its mean and the paired change from the base, marked
/// when significant; the panels below have each comparison whole.
#[component]
pub fn SideBySide(p: &SideBySideProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let mut keys: Vec<(Option<String>, String)> = Vec::new();
    for c in p.comparisons.iter().filter_map(|c| (**c).as_ref().ok()) {
        for r in &c.rows {
            let k = (r.model.clone(), r.metric.clone());
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }
    let cell = |c: &Result<Comparison, String>, (model, metric): &(Option<String>, String)| {
        let Ok(c) = c else {
            return html! { <td class="muted">{t("无法比较", "not comparable")}</td> };
        };
        match c
            .rows
            .iter()
            .find(|r| &r.metric == metric && &r.model == model)
        {
            Some(r) if r.n > 0 => {
                let sig = r.significant(c.alpha);
                html! {
                    <td class="num" data-significant={sig.to_string()}>
                        {format!("{:.3} ({:+.3}{})", r.new, r.delta, if sig { "*" } else { "" })}
                    </td>
                }
            }
            _ => html! { <td class="num muted">{"–"}</td> },
        }
    };
    html! {
        <section class="panel" data-testid="compare-side-by-side">
            <h2>{format!("{} {}", t("并排比较，基线：", "Side by side, base:"), p.base)}</h2>
            <p class="muted">{t(
                "每列：该运行的均值（与基线的配对差），只计两者都有的用例；* 为 95% 水平显著（0/1 指标用 McNemar 精确检验，其余用配对自助法区间）；各运行分别与基线比较，未做多重比较校正。",
                "Each column: the run's mean (paired change from the base), over the cases both have; * significant at 95% (McNemar's exact test for 0/1 metrics, the paired bootstrap interval otherwise); each run is compared with the base on its own, with no correction for the number of comparisons.")}</p>
            <div class="scroll-x" tabindex="0" role="region" aria-label={t("并排比较", "Side by side")}>
                <table class="cases">
                    <thead><tr>
                        <th>{t("指标", "metric")}</th>
                        { for p.runs.iter().map(|r| html!{ <th>{r.clone()}</th> }) }
                    </tr></thead>
                    <tbody>{ for keys.iter().map(|k| html!{
                        <tr data-testid="side-by-side-row" data-metric={k.1.clone()}>
                            <td>{format!("{}{}", k.0.as_ref().map(|m| format!("{m} · ")).unwrap_or_default(), k.1)}</td>
                            { for p.comparisons.iter().map(|c| cell(c, k)) }
                        </tr>
                    }) }</tbody>
                </table>
            </div>
        </section>
    }
}
