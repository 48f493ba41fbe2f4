//! The viewer's charts, drawn as SVG by the page: each metric's mean with its
//! 95% interval (`evalpage_core::view::chart`), the breakdowns as bars, and
//! the latency histogram when the run has latencies.

use crate::viewer::state::Shared;
use evalpage_core::view::{bar, histogram, Bar, ViewData};
use evalpage_core::Lang;
use yew::prelude::*;

const W: f64 = 560.0;
const LABEL_W: f64 = 200.0;
const BAR_H: f64 = 18.0;

/// Chart props.
#[derive(Properties, PartialEq)]
pub struct ChartsProps {
    /// Language.
    pub lang: Lang,
    /// The run.
    pub data: Shared<ViewData>,
}

fn bars_svg(testid: &'static str, title: String, bars: &[Bar]) -> Html {
    let h = bars.len() as f64 * (BAR_H + 6.0) + 10.0;
    let x = |v: f64| LABEL_W + v.clamp(0.0, 1.0) * (W - LABEL_W - 60.0);
    html! {
        <figure class="chart">
            <figcaption>{title.clone()}</figcaption>
            <svg data-testid={testid} role="img" aria-label={title} width={W.to_string()} height={h.to_string()}
                viewBox={format!("0 0 {W} {h}")}>
                { for bars.iter().enumerate().map(|(i, b)| {
                    let y = 5.0 + i as f64 * (BAR_H + 6.0);
                    let mid = y + BAR_H / 2.0;
                    html!{
                        <g>
                            <text x="0" y={(mid + 4.0).to_string()} class="label">{format!("{} (n={})", b.label, b.n)}</text>
                            <rect class="bar" x={LABEL_W.to_string()} y={y.to_string()} height={BAR_H.to_string()}
                                width={(x(b.mean) - LABEL_W).max(0.0).to_string()}>
                                <title>{format!("{}: {:.3} [{:.3}, {:.3}]", b.label, b.mean, b.lo, b.hi)}</title>
                            </rect>
                            <line class="ci" x1={x(b.lo).to_string()} x2={x(b.hi).to_string()} y1={mid.to_string()} y2={mid.to_string()} />
                            <line class="ci" x1={x(b.lo).to_string()} x2={x(b.lo).to_string()} y1={(mid - 5.0).to_string()} y2={(mid + 5.0).to_string()} />
                            <line class="ci" x1={x(b.hi).to_string()} x2={x(b.hi).to_string()} y1={(mid - 5.0).to_string()} y2={(mid + 5.0).to_string()} />
                            <text x={(W - 55.0).to_string()} y={(mid + 4.0).to_string()} class="value">{format!("{:.3}", b.mean)}</text>
                        </g>
                    }
                }) }
            </svg>
        </figure>
    }
}

/// The charts.
#[component]
pub fn Charts(p: &ChartsProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let d = &p.data;
    let binary: Vec<bool> = (0..d.metrics.len())
        .map(|c| {
            d.rows
                .iter()
                .filter_map(|r| r.values[c])
                .all(|v| v == 0.0 || v == 1.0)
        })
        .collect();
    let is_binary = |metric: &str| d.metric_index(metric).is_some_and(|c| binary[c]);
    let overall: Vec<Bar> = d
        .summaries
        .iter()
        .map(|s| bar(s, is_binary(&s.metric)))
        .collect();
    let breakdown: Vec<Bar> = d
        .breakdowns
        .iter()
        .filter(|b| b.dimension == "tag" || b.dimension == "language")
        .take(40)
        .map(|b| Bar {
            label: format!("{} · {}={}", b.metric, b.dimension, b.bucket),
            mean: b.mean,
            lo: b.mean,
            hi: b.mean,
            n: b.sample_count,
        })
        .collect();
    // pass@k / pass^k of a run that asked each sample several times
    let passed: Vec<&evalpage_core::report::MetricSummary> = d
        .summaries
        .iter()
        .filter(|s| s.pass_at_k.is_some())
        .collect();
    let pass_names: Vec<String> = passed
        .iter()
        .flat_map(|s| s.figure_names())
        .filter(|n| n.starts_with("pass"))
        .fold(Vec::new(), |mut acc, n| {
            if !acc.contains(&n) {
                acc.push(n);
            }
            acc
        });
    let latencies: Vec<f64> = d.rows.iter().filter_map(|r| r.latency_ms).collect();
    let hist = histogram(&latencies, 20);
    let max = hist.iter().map(|(_, c)| *c).max().unwrap_or(1).max(1) as f64;
    html! {
        <div class="charts">
            <table class="cases" data-testid="viewer-summaries">
                <thead><tr><th>{t("指标", "metric")}</th><th>{"mean"}</th><th>{"95% CI"}</th><th>{"n"}</th></tr></thead>
                <tbody>{ for overall.iter().map(|b| html!{
                    <tr><td>{&b.label}</td><td class="num">{format!("{:.3}", b.mean)}</td>
                        <td class="num">{format!("[{:.3}, {:.3}]", b.lo, b.hi)}</td><td class="num">{b.n}</td></tr>
                }) }</tbody>
            </table>
            if !passed.is_empty() {
                <table class="cases" data-testid="viewer-pass-k">
                    <caption>{t("每个样本多次询问：pass@k（k 次中至少一次通过）与 pass^k（k 次全部通过）",
                        "Each sample asked several times: pass@k (at least one of k passes) and pass^k (all k pass)")}</caption>
                    <thead><tr><th>{t("指标", "metric")}</th>
                        { for pass_names.iter().map(|n| html!{ <th>{n}</th> }) }</tr></thead>
                    <tbody>{ for passed.iter().map(|s| html!{
                        <tr><td>{ match &s.model { Some(m) => format!("{m} · {}", s.metric), None => s.metric.clone() } }</td>
                            { for pass_names.iter().map(|n| html!{
                                <td class="num">{ s.figure(n).map_or_else(|| "-".to_string(), |v| format!("{v:.3}")) }</td>
                            }) }</tr>
                    }) }</tbody>
                </table>
            }
            { bars_svg("chart-metrics", t("各指标均值与 95% 置信区间", "Mean of each metric with its 95% interval").to_string(), &overall) }
            if !breakdown.is_empty() {
                { bars_svg("chart-breakdowns", t("按标签与语言", "By tag and language").to_string(), &breakdown) }
            }
            if !hist.is_empty() {
                <figure class="chart">
                    <figcaption>{t("延迟分布（毫秒）", "Latency (ms)")}{" · "}
                        <span data-testid="latency-count">{format!("{} / {}", latencies.len(), d.rows.len())}</span>
                        {t(" 个用例有耗时", " cases with a time")}
                        if latencies.len() < d.rows.len() {
                            {t("（报告只记录失败用例的耗时：打开运行的 zip，或同时选择其 results.jsonl，可得每个用例的耗时）",
                                " (the report records the time of failed cases only: open the run's zip, or pick its results.jsonl too, for every case's)")}
                        }
                    </figcaption>
                    <svg data-testid="chart-latency" role="img" aria-label={t("延迟直方图", "Latency histogram")}
                        width={W.to_string()} height="140" viewBox={format!("0 0 {W} 140")}>
                        { for hist.iter().enumerate().map(|(i, (edge, c))| {
                            let bw = W / hist.len() as f64;
                            let h = 110.0 * *c as f64 / max;
                            html!{ <rect class="bar" x={(i as f64 * bw + 1.0).to_string()} y={(115.0 - h).to_string()}
                                width={(bw - 2.0).to_string()} height={h.to_string()}>
                                <title>{format!("≤ {edge:.0} ms: {c}")}</title></rect> }
                        }) }
                        <text x="0" y="135" class="label">{"0"}</text>
                        <text x={(W - 60.0).to_string()} y="135" class="label">{format!("{:.0} ms", hist.last().map_or(0.0, |(e, _)| *e))}</text>
                    </svg>
                </figure>
            }
        </div>
    }
}
