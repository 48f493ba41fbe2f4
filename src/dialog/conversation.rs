//! One dialog as a conversation, collapsed in a `<details>`: its summary line
//! (status, answered turns, `skip_reason` or the dialog's error) always, and
//! only once opened each turn pair: the user message, the ground truth (the
//! reference answer, memory keys, required risk tags, compliance label), the
//! model's answer (or why there is none) and the turn's verdicts (M1 keys
//! with the sources that hold them, M2 forbidden terms recommended, M3
//! required vs predicted tags, M4 ground truth vs predicted label). Turns are
//! rendered only while open, so a long dataset keeps the page light.

use crate::dialog::state::ShownDialog;
use evalpage_core::dialog::{
    ComplianceLabel, DialogStatus, MetricRun, ToolCall, TurnEval, TurnStatus,
};
use evalpage_core::Lang;
use serde::Serialize;
use std::rc::Rc;
use yew::prelude::*;

/// A serialized enum's name (`ok`, `skipped`, ...).
pub fn code<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn label(l: Option<ComplianceLabel>) -> &'static str {
    l.map_or("—", ComplianceLabel::as_str)
}

fn list(items: &[String]) -> String {
    if items.is_empty() {
        "—".to_string()
    } else {
        items.join(", ")
    }
}

/// Dialog card props.
#[derive(Properties)]
pub struct DialogCardProps {
    /// Language.
    pub lang: Lang,
    /// The dialog.
    pub dialog: Rc<ShownDialog>,
    /// Shown open at first (a saved dialog drilled into in the viewer).
    #[prop_or_default]
    pub open: bool,
}

/// A card shows the same dialog while it is the same `Rc`: a settled dialog
/// is made once, so the cards of a running table are not compared turn by turn
/// at each flush.
impl PartialEq for DialogCardProps {
    fn eq(&self, o: &Self) -> bool {
        self.lang == o.lang && self.open == o.open && Rc::ptr_eq(&self.dialog, &o.dialog)
    }
}

/// One dialog, collapsed until opened.
#[component]
pub fn DialogCard(p: &DialogCardProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let open = use_state(|| p.open);
    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            use wasm_bindgen::JsCast;
            let is_open = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|el| el.has_attribute("open"));
            open.set(is_open);
        })
    };
    let tr = &p.dialog.trace;
    let ok = tr
        .turns
        .iter()
        .filter(|x| x.turn_status == TurnStatus::Ok)
        .count();
    let status = code(&tr.dialog_status);
    let class = match tr.dialog_status {
        DialogStatus::Ok => "dialog-card",
        DialogStatus::Skipped => "dialog-card skipped",
        _ => "dialog-card failed",
    };
    let note = tr
        .skip_reason
        .as_deref()
        .or(tr.dialog_error.as_deref())
        .map(|w| format!(" · {w}"))
        .unwrap_or_default();
    let scenario = [tr.scenario_type.as_deref(), tr.difficulty.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" / ");
    html! {
        <details {class} data-testid="dialog-card" data-dialog-id={tr.dialog_id.clone()}
            data-status={status.clone()} open={p.open} {ontoggle}>
            <summary>
                <strong>{&tr.dialog_id}</strong>
                {format!(" · {status} · {ok}/{} {}", tr.turns.len(), t("轮已回答", "turns answered"))}
                if !scenario.is_empty() { <span class="muted">{format!(" · {scenario}")}</span> }
                <span class="why">{note}</span>
            </summary>
            if *open {
                <ol class="turns">
                    { for tr.turns.iter().map(|turn| {
                        let row = p.dialog.rows.iter().find(|r| r.turn_pair_id == turn.turn_pair_id);
                        let tags = &turn.gt_turn_tags;
                        html! {
                            <li class="turn" data-testid="dialog-turn">
                                <p class="msg user"><span class="who">{format!("{} {}", t("用户", "User"), turn.turn_pair_id)}</span>{&turn.user_text}</p>
                                <p class="msg gt"><span class="who">{t("参考回答", "Ground truth")}</span>{&turn.gt_assistant_text}</p>
                                <p class="tags muted" data-testid="turn-gt-tags">
                                    {format!("{} {} · {} {} · {} {}",
                                        t("记忆键:", "memory keys:"), list(&tags.memory_required_keys_gt),
                                        t("需披露风险:", "required risk tags:"), list(&tags.risk_disclosure_required_gt),
                                        t("合规标签:", "compliance:"), label(tags.compliance_label_gt))}
                                </p>
                                <p class="msg model"><span class="who">{format!("{} ({})", t("模型回答", "Model"), code(&turn.turn_status))}</span>
                                    { match (&turn.pred_assistant_text, &turn.error) {
                                        (Some(a), _) => html!{ {a} },
                                        (None, Some(e)) => html!{ <span class="error">{e}</span> },
                                        (None, None) => html!{ <span class="muted">{"—"}</span> },
                                    } }
                                </p>
                                { tool_calls(turn.tools.as_deref().unwrap_or_default()) }
                                { match row {
                                    Some(r) => verdicts(lang, r),
                                    None => html!{ <p class="muted">{t("无评分行（对话未被评分）", "No scored row (the dialog is not scored)")}</p> },
                                } }
                            </li>
                        }
                    }) }
                </ol>
            }
        </details>
    }
}

/// The tools the system called on the turn (spec 001 `tools`): each call's
/// name and arguments shown as a task's calls are, with its result's start
/// and its error.
fn tool_calls(tools: &[ToolCall]) -> Html {
    if tools.is_empty() {
        return html! {};
    }
    html! {
        <ol class="calls" data-testid="turn-calls">{ for tools.iter().map(|t| {
            let call = t.call();
            html! {
                <li data-testid="turn-call">
                    <code class="name">{&call.name}</code>
                    <pre class="args">{call.arguments_pretty()}</pre>
                    if let Some(r) = &t.result_excerpt { <div class="muted clip">{format!("→ {r}")}</div> }
                    if let Some(e) = &t.error { <div class="error">{e}</div> }
                </li>
            }
        }) }</ol>
    }
}

/// Why a metric has no verdict on the turn: not eligible (§7), or eligible
/// and not run or unscored.
fn not_scored(lang: Lang, r: &TurnEval, metric: &str, status: MetricRun) -> String {
    let why = r
        .skip_reasons
        .get(metric)
        .cloned()
        .unwrap_or_else(|| format!("turn_status {}", code(&r.turn_status)));
    let lead = match status {
        MetricRun::NotRun => lang.pick("未评：", "not run:"),
        MetricRun::Unscored => lang.pick("无法评分：", "unscored:"),
        _ => lang.pick("不计入：", "not eligible:"),
    };
    format!("{lead} {why}")
}

fn verdicts(lang: Lang, r: &TurnEval) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let m1 = if r.m1_status == MetricRun::Scored {
        let hits = r.key_hits();
        let keys: Vec<String> = r
            .required_keys_raw
            .iter()
            .enumerate()
            .map(|(i, key)| match hits.get(i).copied().flatten() {
                Some((1, sources)) => format!("{key} ✓ ({})", list(sources)),
                Some(_) => format!("{key} ✗"),
                None => {
                    let why = r
                        .resolved_keys
                        .get(i)
                        .and_then(|k| k.reason.clone())
                        .unwrap_or_else(|| "unresolvable".into());
                    format!("{key} — {why}")
                }
            })
            .collect();
        keys.join("; ")
    } else {
        not_scored(lang, r, "m1", r.m1_status)
    };
    let m2 = if r.m2_status == MetricRun::Scored {
        if r.forbidden_hits.is_empty() {
            format!(
                "{} ({})",
                t("未推荐禁投项", "no forbidden term recommended"),
                list(&r.forbidden_terms)
            )
        } else {
            format!(
                "{} {}",
                t("推荐了禁投项：", "recommends forbidden:"),
                list(&r.forbidden_hits)
            )
        }
    } else {
        not_scored(lang, r, "m2", r.m2_status)
    };
    let m3 = if r.m3_status == MetricRun::Scored {
        format!(
            "{} {} · {} {} ({}/{})",
            t("需披露", "required"),
            list(&r.risk_required_tags),
            t("检出", "predicted"),
            list(&r.risk_pred_tags),
            r.risk_tag_hits,
            r.risk_required_tags.len()
        )
    } else {
        not_scored(lang, r, "m3", r.m3_status)
    };
    let m4 = if r.m4_status == MetricRun::Scored {
        let agree = r.pred_compliance_label == r.gt_compliance_label;
        format!(
            "{} {} · {} {} {}",
            t("参考", "gt"),
            label(r.gt_compliance_label),
            t("预测", "predicted"),
            label(r.pred_compliance_label),
            if agree { "✓" } else { "✗" }
        )
    } else {
        not_scored(lang, r, "m4", r.m4_status)
    };
    html! {
        <ul class="verdicts" data-testid="turn-verdicts">
            <li data-testid="verdict-m1"><b>{"M1 "}</b>{m1}</li>
            <li data-testid="verdict-m2"><b>{"M2 "}</b>{m2}</li>
            <li data-testid="verdict-m3"><b>{"M3 "}</b>{m3}</li>
            <li data-testid="verdict-m4"><b>{"M4 "}</b>{m4}</li>
        </ul>
    }
}
