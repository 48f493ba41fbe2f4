//! The viewer's review mode: people label an open run's cases, keyboard
//! first, in their own browser, and see how far the automatic verdicts (a
//! judge's, any metric's) agree with them.
//!
//! The reviewer names themself, picks the metric whose verdict they check
//! and what its labels are (pass/fail, a rating `1-5`, categories `a,b,c`),
//! blind or not (blind is the default: the automatic verdict is never in the
//! page while a blind review runs, the rest of the viewer included), all
//! cases or a seeded sample of N (stratified by verdict when asked). Then
//! case by case: keys give the label (`p`/`f`, a rating's digit, a
//! category's number), `j`/`→` next, `k`/`←` previous, `s` skip; a note
//! may go with it (`n` goes into the note, Escape leaves it). Each label
//! is an append-only event saved in IndexedDB as it is given (a reload
//! keeps it) and downloaded as `labels.jsonl` or
//! `labels.json-seq`; other reviewers' files opened here are merged (a
//! later label of a reviewer replaces their earlier one; the file keeps
//! both). Nothing is sent anywhere. The agreement figures are the core's
//! (`evalpage_core::review::agree`), as `evalpage agree` writes them.

mod agreement;
mod case;
mod keys;
mod session;

use crate::components::chosen_files;
use crate::effects::{download, files, idb, now_ms, storage};
use crate::viewer::state::Shared;
use agreement::agreement_table;
use case::case_view;
use evalpage_core::review::{
    agree, latest, offered_schemes, read_any, read_labels, review_queue, to_jsonl, to_langfuse,
    to_phoenix, view_scores, AgreeOptions, Agreed, Label, LabelEvent, Scheme,
};
use evalpage_core::view::ViewData;
use evalpage_core::Lang;
use keys::{key_action, KeyAction};
use session::{labelled_by, Session};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The sample's seed: the same run and N give every reviewer the same cases.
const QUEUE_SEED: u64 = 43;

/// The review panel's inputs.
#[derive(Properties, PartialEq)]
pub struct ReviewProps {
    /// Language of the page.
    pub lang: Lang,
    /// The run opened.
    pub data: Shared<ViewData>,
    /// A blind review started (`true`) or stopped: the viewer hides every
    /// automatic verdict meanwhile.
    pub on_blind: Callback<bool>,
    /// Labels that come with the run (the review demo's second reviewer),
    /// merged with those this browser keeps.
    #[prop_or_default]
    pub extra: Option<Rc<str>>,
}

/// The metric a review checks first: a judge's (its scores name the judge
/// model), else the run's first.
fn default_metric(d: &ViewData) -> String {
    let judged = (0..d.metrics.len()).find(|&m| {
        d.rows
            .iter()
            .take(20)
            .any(|r| d.detail(r, m).get("judge_model").is_some())
    });
    judged
        .or((!d.metrics.is_empty()).then_some(0))
        .and_then(|m| d.metrics.get(m).cloned())
        .unwrap_or_default()
}

/// The run's key for its labels in IndexedDB.
fn run_key(d: &ViewData) -> String {
    d.run_id
        .clone()
        .unwrap_or_else(|| format!("{}|{}", d.source, d.dataset))
}

/// The rows that have a value of `metric`, and each one's verdict under `scheme`.
fn verdicts(d: &ViewData, metric: &str, scheme: &Scheme) -> Vec<(usize, Option<Label>)> {
    let Some(m) = d.metric_index(metric) else {
        return Vec::new();
    };
    let rows = d
        .rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.values.get(m).copied().flatten().is_some())
        .map(|(i, _)| i);
    // `view_scores` keeps the same rows in the same order
    rows.zip(view_scores(d, metric))
        .map(|(i, s)| (i, scheme.verdict(&s)))
        .collect()
}

/// The agreement of every labelled metric (`scheme` for `metric`, pass/fail for the others).
fn agreement(d: &ViewData, events: &[LabelEvent], metric: &str, scheme: &Scheme) -> Agreed {
    let mut metrics: Vec<&str> = events.iter().map(|e| e.metric.as_str()).collect();
    metrics.sort_unstable();
    metrics.dedup();
    let scores: Vec<_> = metrics.iter().flat_map(|m| view_scores(d, m)).collect();
    let mut opts = AgreeOptions::default();
    opts.schemes.insert(metric.to_string(), scheme.clone());
    agree(&scores, events, &opts)
}

/// Saves `events` (numbered from `first`) for run `key`; a failure is said.
fn persist(
    key: String,
    first: usize,
    events: Vec<LabelEvent>,
    error: UseStateHandle<Option<String>>,
) {
    crate::effects::spawn(async move {
        let lines: Vec<(u32, String)> = events
            .iter()
            .enumerate()
            .map(|(i, e)| ((first + i) as u32, to_jsonl(e)))
            .collect();
        let saved = match idb::open().await {
            Ok(db) => idb::labels_add(&db, &key, &lines).await,
            Err(e) => Err(e),
        };
        if let Err(e) = saved {
            error.set(Some(format!(
                "the labels could not be saved in this browser ({e}): download them before leaving"
            )));
        }
    });
}

fn input_value(e: &Event) -> String {
    e.target()
        .and_then(|t| {
            if let Some(i) = t.dyn_ref::<web_sys::HtmlInputElement>() {
                Some(i.value())
            } else if let Some(s) = t.dyn_ref::<web_sys::HtmlSelectElement>() {
                Some(s.value())
            } else {
                t.dyn_ref::<web_sys::HtmlTextAreaElement>()
                    .map(|a| a.value())
            }
        })
        .unwrap_or_default()
}

/// The review panel.
#[component]
pub fn Review(p: &ReviewProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let d = p.data.clone();
    let key = run_key(&d);
    let reviewer = use_state(storage::reviewer);
    let metric = use_state(|| default_metric(&d));
    let scheme_text = use_state(|| "pass-fail".to_string());
    let blind = use_state(|| true);
    let sample = use_state(String::new);
    let stratified = use_state(|| false);
    let session = use_state(|| None::<Session>);
    let events = use_state(|| Rc::new(Vec::<LabelEvent>::new()));
    let note = use_state(String::new);
    let said = use_state(Vec::<String>::new);
    let error = use_state(|| None::<String>);

    // the labels this browser keeps for the run, with those that came with it
    {
        let (events, error) = (events.clone(), error.clone());
        use_effect_with((key.clone(), p.extra.clone()), move |(key, extra)| {
            let (key, extra) = (key.clone(), extra.clone());
            crate::effects::spawn(async move {
                let text = match idb::open().await {
                    Ok(db) => idb::labels_of(&db, &key).await,
                    Err(e) => Err(e),
                };
                let mut all = match text {
                    Ok(text) => read_labels(&text, "labels").events,
                    Err(e) => {
                        error.set(Some(format!("the saved labels could not be read ({e})")));
                        Vec::new()
                    }
                };
                let first = all.len();
                merge(
                    &mut all,
                    extra
                        .map(|x| read_any(&x, "demo labels").events)
                        .unwrap_or_default(),
                );
                if all.len() > first {
                    persist(key, first, all[first..].to_vec(), error);
                }
                events.set(Rc::new(all));
            });
        });
    }

    let scheme = Scheme::parse(&scheme_text);
    let offered = offered_schemes(&d, &metric);
    let start = {
        let (d, reviewer, metric, blind, sample, stratified, session, events) = (
            d.clone(),
            reviewer.clone(),
            metric.clone(),
            blind.clone(),
            sample.clone(),
            stratified.clone(),
            session.clone(),
            events.clone(),
        );
        let (scheme, error, on_blind) = (scheme.clone(), error.clone(), p.on_blind.clone());
        Callback::from(move |_: MouseEvent| {
            let name = reviewer.trim().to_string();
            if name.is_empty() {
                error.set(Some(
                    "type your name first: each label says who gave it".into(),
                ));
                return;
            }
            let scheme = match &scheme {
                Ok(s) => s.clone(),
                Err(e) => {
                    error.set(Some(format!("labels: {e}")));
                    return;
                }
            };
            let n = match sample.trim() {
                "" => None,
                s => match s.parse::<usize>() {
                    Ok(n) if n > 0 => Some(n),
                    _ => {
                        error.set(Some(format!("sample: `{s}` is not a number of cases")));
                        return;
                    }
                },
            };
            let v = verdicts(&d, &metric, &scheme);
            if v.is_empty() {
                error.set(Some(format!("no case has a value of {}", *metric)));
                return;
            }
            let labels: Vec<Option<Label>> = v.iter().map(|(_, l)| l.clone()).collect();
            let queue: Vec<(usize, Option<Label>)> =
                review_queue(&labels, n, *stratified, QUEUE_SEED)
                    .into_iter()
                    .map(|i| v[i].clone())
                    .collect();
            storage::save_reviewer(&name);
            let done = labelled_by(&d, &events, &metric, &name);
            let pos = queue
                .iter()
                .position(|(r, _)| !done.contains(r))
                .unwrap_or(0);
            error.set(None);
            on_blind.emit(*blind);
            session.set(Some(Session {
                metric: (*metric).clone(),
                scheme,
                reviewer: name,
                blind: *blind,
                queue,
                pos,
                shown_at: now_ms(),
            }));
        })
    };

    // one label given (or a move), then the next unlabelled case
    let act = {
        let (d, session, events, note, error, key) = (
            d.clone(),
            session.clone(),
            events.clone(),
            note.clone(),
            error.clone(),
            key.clone(),
        );
        Callback::from(move |a: KeyAction| {
            let Some(s) = (*session).clone() else { return };
            let len = s.queue.len();
            let mut next = s.clone();
            next.shown_at = now_ms();
            match a {
                KeyAction::Next | KeyAction::Skip => next.pos = (s.pos + 1) % len,
                KeyAction::Previous => next.pos = (s.pos + len - 1) % len,
                KeyAction::Go(p) if p < len => next.pos = p,
                KeyAction::Go(_) => return,
                KeyAction::Give(label) => {
                    let Some((row, verdict)) = s
                        .queue
                        .get(s.pos)
                        .and_then(|(i, v)| Some((d.rows.get(*i)?, v.clone())))
                    else {
                        return;
                    };
                    let event = LabelEvent {
                        case_id: row.id.clone(),
                        model: row.model.clone(),
                        metric: s.metric.clone(),
                        reviewer: s.reviewer.clone(),
                        label,
                        note: Some(note.trim().to_string()).filter(|n| !n.is_empty()),
                        blind: s.blind,
                        shown_auto_verdict: if s.blind { None } else { verdict },
                        t: now_ms(),
                        seconds: Some(now_ms().saturating_sub(s.shown_at) as f64 / 1000.0),
                    };
                    let first = events.len();
                    let mut all = (**events).clone();
                    all.push(event.clone());
                    persist(key.clone(), first, vec![event], error.clone());
                    events.set(Rc::new(all.clone()));
                    note.set(String::new());
                    let done = labelled_by(&d, &all, &s.metric, &s.reviewer);
                    next.pos = (1..=len)
                        .map(|k| (s.pos + k) % len)
                        .find(|p| !done.contains(&s.queue[*p].0))
                        .unwrap_or(s.pos);
                }
            }
            session.set(Some(next));
        })
    };

    // the keys, from anywhere in the page but a text field
    {
        let (act, session) = (act.clone(), session.clone());
        use_effect_with((*session).clone(), move |s| {
            let listener = s.as_ref().and_then(|s| {
                let scheme = s.scheme.clone();
                let doc = web_sys::window()?.document()?;
                let page = doc.clone();
                // not passive (gloo's default): `n` must not be typed into the
                // note it opens
                let options = gloo_events::EventListenerOptions::enable_prevent_default();
                Some(gloo_events::EventListener::new_with_options(
                    &doc,
                    "keydown",
                    options,
                    move |e| {
                        let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                            return;
                        };
                        if k.ctrl_key() || k.meta_key() || k.alt_key() {
                            return;
                        }
                        let target = k
                            .target()
                            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok());
                        let typing = target.as_ref().is_some_and(|el| {
                            matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                        });
                        if typing {
                            // Escape leaves the field (the note): the keys label again
                            if let (Some(el), "Escape") = (&target, k.key().as_str()) {
                                let _ = el.blur();
                            }
                            return;
                        }
                        if k.key() == "n" {
                            // the note by keyboard: `n` goes into it, Escape leaves it
                            let note = page
                                .query_selector("[data-testid=review-note]")
                                .ok()
                                .flatten()
                                .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok());
                            if let Some(note) = note {
                                k.prevent_default();
                                let _ = note.focus();
                            }
                            return;
                        }
                        if let Some(a) = key_action(&k.key(), &scheme) {
                            k.prevent_default();
                            act.emit(a);
                        }
                    },
                ))
            });
            let _ = &session;
            move || drop(listener)
        });
    }

    let stop = {
        let (session, on_blind) = (session.clone(), p.on_blind.clone());
        Callback::from(move |_: MouseEvent| {
            session.set(None);
            on_blind.emit(false);
        })
    };
    let open_labels = {
        let (events, said, error, key) = (events.clone(), said.clone(), error.clone(), key.clone());
        Callback::from(move |e: Event| {
            let (events, said, error, key) =
                (events.clone(), said.clone(), error.clone(), key.clone());
            files::read_all_then(chosen_files(&e), move |read| match read {
                Ok(files) => {
                    let mut all = (**events).clone();
                    let first = all.len();
                    let mut problems = Vec::new();
                    for (name, bytes) in files {
                        let f = read_any(&String::from_utf8_lossy(&bytes), &name);
                        problems.extend(f.problems.iter().map(|p| p.to_string()));
                        merge(&mut all, f.events);
                    }
                    let added = all[first..].to_vec();
                    problems.insert(0, format!("{} labels added", added.len()));
                    persist(key, first, added, error);
                    events.set(Rc::new(all));
                    said.set(problems);
                }
                Err(e) => error.set(Some(e)),
            });
        })
    };
    let save = |seq: bool| {
        let (events, error) = (events.clone(), error.clone());
        Callback::from(move |_: MouseEvent| {
            let text: String = events
                .iter()
                .map(|e| {
                    let line = to_jsonl(e);
                    if seq {
                        format!("\u{1e}{line}")
                    } else {
                        line
                    }
                })
                .collect();
            let (name, mime) = if seq {
                ("labels.json-seq", "application/json-seq")
            } else {
                ("labels.jsonl", "application/x-ndjson")
            };
            if let Err(e) = download::save(name, mime, &text) {
                error.set(Some(e));
            }
        })
    };

    // the standing labels in another tool's shape (Langfuse scores, Phoenix annotations)
    let save_as = |phoenix: bool| {
        let (events, error) = (events.clone(), error.clone());
        Callback::from(move |_: MouseEvent| {
            let standing: Vec<&LabelEvent> = latest(events.iter()).into_values().collect();
            let (name, doc) = if phoenix {
                (
                    "phoenix_annotations.json",
                    serde_json::json!({ "data": to_phoenix(&standing) }),
                )
            } else {
                (
                    "langfuse_scores.json",
                    serde_json::Value::from(to_langfuse(&standing)),
                )
            };
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            if let Err(e) = download::save(name, "application/json", &text) {
                error.set(Some(e));
            }
        })
    };
    // recomputed when the labels or what they are measured as change, not
    // on every keystroke of the note
    let measured_as = match (&*session, &scheme) {
        (Some(s), _) => (s.metric.clone(), s.scheme.clone()),
        (None, Ok(sc)) => ((*metric).clone(), sc.clone()),
        (None, Err(_)) => ((*metric).clone(), Scheme::default()),
    };
    let agreed = use_memo(
        ((*events).clone(), measured_as, d.clone()),
        |(events, (metric, scheme), d)| agreement(d, events, metric, scheme),
    );
    let save_agreement = {
        let (agreed, error) = (agreed.clone(), error.clone());
        Callback::from(move |_: MouseEvent| {
            let doc = serde_json::json!({
                "metrics": agreed.metrics,
                "labels": agreed.labels,
                "unmatched": agreed.unmatched,
                "off_scale": agreed.off_scale,
            });
            let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
            if let Err(e) = download::save("agreement.json", "application/json", &text) {
                error.set(Some(e));
            }
        })
    };
    let on = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |e: Event| h.set(input_value(&e)))
    };
    let on_input = |h: &UseStateHandle<String>| {
        let h = h.clone();
        Callback::from(move |e: InputEvent| h.set(input_value(&e)))
    };
    let toggle = |h: &UseStateHandle<bool>| {
        let h = h.clone();
        Callback::from(move |_: Event| h.set(!*h))
    };

    html! {
        <section class="panel" data-testid="review">
            <h2>{t("人工评审", "Review")}</h2>
            if let Some(e) = &*error { <p class="error" role="alert" data-testid="review-error">{e}</p> }
            { match &*session {
                Some(s) => case_view(lang, &d, s, &events, &note, &act, on_input(&note), stop),
                None => html! {
                    <div class="review-setup">
                        <label class="inline">{t("评审人 ", "Your name ")}
                            <input type="text" data-testid="review-reviewer" value={(*reviewer).clone()} oninput={on_input(&reviewer)} />
                        </label>
                        <label class="inline">{t(" 指标 ", " Metric ")}
                            <select data-testid="review-metric" onchange={on(&metric)}>
                                { for d.metrics.iter().map(|m| html!{ <option value={m.clone()} selected={*m == *metric}>{m.clone()}</option> }) }
                            </select>
                        </label>
                        <label class="inline">{t(" 标签 ", " Labels ")}
                            <input type="text" data-testid="review-scheme" value={(*scheme_text).clone()} oninput={on_input(&scheme_text)}
                                title={t("pass-fail、评分 1-5，或类别 a,b,c", "pass-fail, a rating 1-5, or categories a,b,c")} />
                        </label>
                        if offered.len() > 1 {
                            <span class="inline" data-testid="review-scheme-offered">{t(" 任务给出的：", " the task gives: ")}
                                { for offered.iter().map(|o| {
                                    let (h, o2) = (scheme_text.clone(), o.clone());
                                    html!{ <button type="button" class="link" data-testid="review-scheme-offer" data-scheme={o.clone()}
                                        aria-pressed={(*scheme_text == *o).to_string()}
                                        onclick={Callback::from(move |_: MouseEvent| h.set(o2.clone()))}>{o.clone()}</button> }
                                }) }
                            </span>
                        }
                        <label class="inline check">
                            <input type="checkbox" data-testid="review-blind" checked={*blind} onchange={toggle(&blind)} />
                            {t("盲评（不显示自动判定）", "blind (the automatic verdict hidden)")}
                        </label>
                        <label class="inline">{t(" 抽样 N ", " Sample N ")}
                            <input type="number" min="1" data-testid="review-sample" value={(*sample).clone()} oninput={on_input(&sample)}
                                placeholder={t("全部", "all")} />
                        </label>
                        <label class="inline check">
                            <input type="checkbox" data-testid="review-stratified" checked={*stratified} onchange={toggle(&stratified)} />
                            {t("按自动判定分层", "stratified by verdict")}
                        </label>
                        <button data-testid="review-start" onclick={start}>{t("开始评审", "Start reviewing")}</button>
                    </div>
                },
            } }
            <p>
                <label class="inline">{t("加入其他评审人的标签文件 ", "Add reviewers' label files ")}
                    <input type="file" multiple={true} data-testid="review-open-labels" accept=".jsonl,.json-seq,.json" onchange={open_labels} />
                </label>
                {" "}<button data-testid="review-download-jsonl" onclick={save(false)} disabled={events.is_empty()}>{"labels.jsonl"}</button>
                {" "}<button data-testid="review-download-seq" onclick={save(true)} disabled={events.is_empty()}>{"labels.json-seq"}</button>
                {" "}<button data-testid="review-download-langfuse" onclick={save_as(false)} disabled={events.is_empty()}>{"Langfuse"}</button>
                {" "}<button data-testid="review-download-phoenix" onclick={save_as(true)} disabled={events.is_empty()}>{"Phoenix"}</button>
                {" "}<button data-testid="review-download-agreement" onclick={save_agreement} disabled={agreed.metrics.is_empty()}>{"agreement.json"}</button>
            </p>
            { for said.iter().map(|s| html!{ <p class="muted" data-testid="review-said">{s}</p> }) }
            if session.as_ref().is_none_or(|s| !s.blind) { { agreement_table(lang, &agreed) } }
        </section>
    }
}

/// Adds the `events` `all` does not hold yet (a file opened twice adds nothing).
fn merge(all: &mut Vec<LabelEvent>, events: Vec<LabelEvent>) {
    for e in events {
        if !all.contains(&e) {
            all.push(e);
        }
    }
}
