//! The case under review: what it asked, the answer, its reference, the
//! label buttons, the note, and the queue of the cases still unlabelled.

use super::keys::{key_of, KeyAction};
use super::session::{labelled_by, Session};
use evalpage_core::review::{Label, LabelEvent};
use evalpage_core::view::ViewData;
use evalpage_core::Lang;
use yew::prelude::*;

/// Names a reference goes by, in a metric's detail or a task's sample.
const REFERENCE_KEYS: [&str; 6] = [
    "reference",
    "expected",
    "expected_answer",
    "gold",
    "ground_truth",
    "label",
];

/// A value shown as text (a string as it is, null as nothing).
fn shown(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Null => None,
        v => Some(v.to_string()),
    }
}

/// What the case asked: the row's input, else (a task run) the prompt's
/// last user message, else its sample's question-like field.
fn input_of(d: &ViewData, row: usize) -> Option<String> {
    let r = d.rows.get(row)?;
    if let Some(i) = &r.input {
        return Some(i.clone());
    }
    let sample = d.task_input(row)?;
    let asked = sample
        .messages
        .as_ref()
        .and_then(|m| m.iter().rev().find(|m| m.role == "user"))
        .map(|m| m.content.clone())
        .filter(|c| !c.trim().is_empty());
    asked.or_else(|| {
        ["question", "query", "input", "prompt"]
            .iter()
            .find_map(|k| shown(sample.fields.get(*k)?))
    })
}

/// A reference shown beside the answer: the first metric detail that names
/// one, else (a task run) the sample's reference field or its first `gt_*`.
fn reference(d: &ViewData, row: usize) -> Option<String> {
    let r = d.rows.get(row)?;
    let in_detail = (0..d.metrics.len()).find_map(|m| {
        let detail = d.detail(r, m);
        REFERENCE_KEYS.iter().find_map(|k| shown(detail.get(*k)?))
    });
    in_detail.or_else(|| {
        let fields = &d.task_input(row)?.fields;
        REFERENCE_KEYS
            .iter()
            .find_map(|k| shown(fields.get(*k)?))
            .or_else(|| {
                fields
                    .iter()
                    .find(|(k, _)| k.starts_with("gt_"))
                    .and_then(|(_, v)| shown(v))
            })
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) fn case_view(
    lang: Lang,
    d: &ViewData,
    s: &Session,
    events: &[LabelEvent],
    note: &str,
    act: &Callback<KeyAction>,
    on_note: Callback<InputEvent>,
    stop: Callback<MouseEvent>,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let done = labelled_by(d, events, &s.metric, &s.reviewer);
    let labelled = s.queue.iter().filter(|(r, _)| done.contains(r)).count();
    let mine: Vec<&LabelEvent> = events
        .iter()
        .filter(|e| e.reviewer == s.reviewer && e.metric == s.metric)
        .collect();
    let seconds: Vec<f64> = mine.iter().filter_map(|e| e.seconds).collect();
    let mean = (!seconds.is_empty()).then(|| seconds.iter().sum::<f64>() / seconds.len() as f64);
    let (row_i, shown_verdict) = s.queue.get(s.pos).cloned().unwrap_or((0, None));
    let row = d.rows.get(row_i);
    let given = row.and_then(|r| {
        mine.iter()
            .rev()
            .find(|e| e.case_id == r.id && e.model == r.model)
            .map(|e| e.label.clone())
    });
    let verdict = shown_verdict.filter(|_| !s.blind);
    let button = |l: Label| {
        let act = act.clone();
        let hint = key_of(&l, &s.scheme);
        let text = if hint.is_empty() {
            l.to_string()
        } else {
            format!("{l} ({hint})")
        };
        let testid = format!("review-label-{l}");
        html! { <button data-testid={testid} onclick={Callback::from(move |_| act.emit(KeyAction::Give(l.clone())))}>{text}</button> }
    };
    let go = |a: KeyAction| {
        let act = act.clone();
        Callback::from(move |_: MouseEvent| act.emit(a.clone()))
    };
    html! {
        <div class="review-case" data-testid="review-case">
            <p data-testid="review-progress">
                {format!("{labelled} / {} {}", s.queue.len(), t("已标注", "labelled"))}
                {format!(" · {} {} · {}", t("评审人", "reviewer"), s.reviewer, s.metric)}
                if s.blind { {format!(" · {}", t("盲评", "blind"))} }
                if let Some(m) = mean { <span data-testid="review-time">{format!(" · {m:.1} s {}", t("每例", "per case"))}</span> }
            </p>
            if labelled == s.queue.len() { <p class="ok" data-testid="review-done">{t("全部已标注。", "Every case is labelled.")}</p> }
            if let Some(r) = row {
                <h3 data-testid="review-case-id">{format!("{} {}{}", t("用例", "Case"), r.id, r.model.as_ref().map(|m| format!(" · {m}")).unwrap_or_default())}</h3>
                if let Some(i) = input_of(d, row_i) { <div><strong>{t("输入", "Input")}</strong><pre data-testid="review-input">{i}</pre></div> }
                <div><strong>{t("回答", "Answer")}</strong><pre data-testid="review-answer">{r.answer.clone().unwrap_or_default()}</pre></div>
                if let Some(rf) = reference(d, row_i) { <div><strong>{t("参考", "Reference")}</strong><pre data-testid="review-reference">{rf}</pre></div> }
                if let Some(v) = &verdict { <p data-testid="review-verdict">{format!("{}: {v}", t("自动判定", "Automatic verdict"))}</p> }
                if let Some(g) = &given { <p class="muted" data-testid="review-given">{format!("{}: {g}", t("你的标签", "Your label"))}</p> }
            }
            <p class="review-labels">{ for s.scheme.scale().into_iter().map(button) }</p>
            { queue_list(lang, d, s, &done, act) }
            <label>{t("备注（可选；n 进入，Esc 离开）", "Note (optional; n goes in, Esc leaves)")}
                <textarea data-testid="review-note" value={note.to_string()} oninput={on_note} rows="2" />
            </label>
            <p>
                <button data-testid="review-previous" onclick={go(KeyAction::Previous)}>{t("上一个 (k)", "Previous (k)")}</button>
                {" "}<button data-testid="review-skip" onclick={go(KeyAction::Skip)}>{t("跳过 (s)", "Skip (s)")}</button>
                {" "}<button data-testid="review-next" onclick={go(KeyAction::Next)}>{t("下一个 (j)", "Next (j)")}</button>
                {" "}<button data-testid="review-stop" onclick={stop}>{t("结束评审", "Stop reviewing")}</button>
            </p>
        </div>
    }
}

/// How many of the cases still unlabelled the queue lists by name.
const QUEUE_SHOWN: usize = 30;

/// The cases of the queue still unlabelled, in order from the one shown,
/// each a button that goes to it.
fn queue_list(
    lang: Lang,
    d: &ViewData,
    s: &Session,
    done: &[usize],
    act: &Callback<KeyAction>,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let len = s.queue.len();
    let left: Vec<usize> = (0..len)
        .map(|k| (s.pos + k) % len)
        .filter(|p| !done.contains(&s.queue[*p].0))
        .collect();
    if left.is_empty() {
        return html! {};
    }
    let more = left.len().saturating_sub(QUEUE_SHOWN);
    html! {
        <details class="review-queue" data-testid="review-queue">
            <summary>{format!("{} {}", left.len(), t("例待标注", "cases still unlabelled"))}</summary>
            <p>{ for left.iter().take(QUEUE_SHOWN).map(|p| {
                let row = d.rows.get(s.queue[*p].0);
                let name = row.map(|r| match &r.model {
                    Some(m) => format!("{} · {m}", r.id),
                    None => r.id.clone(),
                }).unwrap_or_default();
                let (act, p) = (act.clone(), *p);
                html!{ <button type="button" class="link" data-testid="review-queue-case" aria-current={(p == s.pos).then_some("true")}
                    onclick={Callback::from(move |_: MouseEvent| act.emit(KeyAction::Go(p)))}>{name}</button> }
            }) }
            if more > 0 { <span class="muted">{format!(" {} {more}", t("以及另外", "and"))}{t(" 例", " more")}</span> }
            </p>
        </details>
    }
}
