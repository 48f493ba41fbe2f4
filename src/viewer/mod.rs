//! The viewer (`?mode=view`): a saved run opened from the user's disk (a
//! `report.json`, an event log `.jsonl` / `.json-seq` even cut off
//! mid-record, a run's zip as the page downloads it, or a run's files picked
//! or dropped together: a dialog run's `dialog_trace.jsonl`,
//! `turn_eval.jsonl`, `metrics_summary.json`, a task run's `report.json`
//! with its `results.jsonl`) or from a URL (`?report=<url>`, `?log=<url>`),
//! with no server: the files are read in the page, nothing is uploaded.
//! Shows the summaries with 95% intervals as SVG bars, the breakdowns, a
//! latency histogram, and every case in a table that renders only the rows
//! in view; full-text search, filters and sort, kept in the URL; a row opens
//! its drill-down (every metric's detail, the answer, the error). Each kind
//! of run is shown as its live mode showed it (`looks`).

mod charts;
mod compare;
mod looks;
mod review;
pub mod state;
mod table;

use crate::archive;
use crate::components::{chosen_files, use_drop_zone_files, DropZone};
use crate::effects::{files, report_slices, url};
use crate::viewer::state::{Shared, ViewerAction, ViewerState};
use charts::Charts;
use compare::{ComparePanel, SideBySide};
use evalpage_core::view::{
    self, manifest_url, read_manifest, Outcome, Query, Slices, Sort, ViewData,
};
use evalpage_core::Lang;
use looks::LookSummary;
use std::rc::Rc;
use table::CaseTable;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The URL parameters the viewer's query owns.
const QUERY_KEYS: [&str; 10] = [
    "q",
    "metric",
    "outcome",
    "tag",
    "language",
    "length",
    "model_filter",
    "status",
    "sort",
    "desc",
];

/// Opens `bytes` (a report, a log, a dialog run's file, or a zip of a run's
/// files).
pub fn open(name: &str, bytes: Vec<u8>) -> Result<ViewData, String> {
    // An Inspect AI `.eval` log is a zip too, read by the import.
    if bytes.starts_with(b"PK\x03\x04") && !view::is_import(name, &bytes) {
        let files: Vec<(String, Vec<u8>)> = archive::unzip(&bytes)
            .map_err(|e| format!("{name}: {e}"))?
            .into_iter()
            .map(|(inner, b)| (format!("{name}/{inner}"), b))
            .collect();
        return view::open_files(name, &files).map_err(|e| e.to_string());
    }
    view::open_files(name, &[(name.to_string(), bytes)]).map_err(|e| e.to_string())
}

/// Another tool's files (`view::is_import`), opened through the importers
/// (fetched the first time: the view bin's split point `import`), then
/// dispatched as `action` makes them (a big file's first samples first, as
/// the opened run, when `first`).
fn import_then(
    state: &UseReducerHandle<ViewerState>,
    label: String,
    files: Vec<(String, Vec<u8>)>,
    fresh: bool,
    first: bool,
    action: fn(Shared<ViewData>, bool) -> ViewerAction,
) {
    let state = state.clone();
    crate::effects::spawn(async move {
        let shown = Rc::new(std::cell::Cell::new(false));
        let look = {
            let (state, shown) = (state.clone(), shown.clone());
            move |d: ViewData| {
                shown.set(true);
                state.dispatch(ViewerAction::Loaded(Shared::new(d), fresh));
            }
        };
        let first: Option<&dyn Fn(ViewData)> = if first { Some(&look) } else { None };
        match crate::effects::import::open(&label, &files, first).await {
            Ok(d) => state.dispatch(action(Shared::new(d), fresh && !shown.get())),
            Err(e) => state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
        }
    });
}

/// Whether every file is another tool's.
fn all_imports(files: &[(String, Vec<u8>)]) -> bool {
    !files.is_empty() && files.iter().all(|(n, b)| view::is_import(n, b))
}

/// Opens a run's files picked or dropped together (one file: as [`load_into`]
/// reads it).
fn load_many(state: &UseReducerHandle<ViewerState>, read: Result<Vec<(String, Vec<u8>)>, String>) {
    let list = match read {
        Ok(mut list) if list.len() == 1 => return load_into(state, Ok(list.remove(0)), true),
        Ok(list) => list,
        Err(e) => return state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
    };
    url::set_params(&QUERY_KEYS, &[]);
    let label = list
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(" + ");
    if all_imports(&list) {
        return import_then(state, label, list, true, true, ViewerAction::Loaded);
    }
    match view::open_files(&label, &list) {
        Ok(data) => state.dispatch(ViewerAction::Loaded(Shared::new(data), true)),
        Err(e) => state.dispatch(ViewerAction::Failed(Rc::from(e.to_string()))),
    }
}

/// The review demo (`docs/guide/review.md`): a judged run of the page's own
/// files (`demo/review/`) opened, with a second reviewer's labels for the
/// review panel.
fn open_review_demo(
    state: &UseReducerHandle<ViewerState>,
    labels: UseStateHandle<Option<Rc<str>>>,
) {
    let state = state.clone();
    state.dispatch(ViewerAction::Loading("demo/review".into()));
    crate::effects::spawn(async move {
        let mut run = Vec::new();
        for name in ["report.json", "results.jsonl"] {
            match files::fetch_url(&format!("demo/review/{name}")).await {
                Ok((_, bytes)) => run.push((name.to_string(), bytes)),
                Err(e) => return state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
            }
        }
        match files::fetch_url("demo/review/labels.demo-reviewer.jsonl").await {
            Ok((_, bytes)) => labels.set(Some(Rc::from(String::from_utf8_lossy(&bytes).as_ref()))),
            Err(e) => return state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
        }
        load_many(&state, Ok(run));
    });
}

/// Reads the files picked or dropped, then opens them.
fn read_picked(state: &UseReducerHandle<ViewerState>, picked: Vec<web_sys::File>) {
    if picked.is_empty() {
        return;
    }
    let names: Vec<String> = picked.iter().map(|f| f.name()).collect();
    state.dispatch(ViewerAction::Loading(names.join(", ")));
    let state = state.clone();
    files::read_all_then(picked, move |read| load_many(&state, read));
}

/// Viewer props.
#[derive(Properties, PartialEq)]
pub struct ViewerAppProps {
    /// Language.
    pub lang: Lang,
    /// The viewer's state (kept by the app for the page load).
    pub state: UseReducerHandle<ViewerState>,
}

fn load_into(state: &UseReducerHandle<ViewerState>, read: files::Read, fresh: bool) {
    let (name, bytes) = match read {
        Ok(r) => r,
        Err(e) => return state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
    };
    if fresh {
        url::set_params(&QUERY_KEYS, &[]);
    }
    if view::is_import(&name, &bytes) {
        return import_then(
            state,
            name.clone(),
            vec![(name, bytes)],
            fresh,
            true,
            ViewerAction::Loaded,
        );
    }
    // A report (not a zip, not a log) is read in slices: the page stays
    // responsive and the first rows show at once.
    let report_like = !bytes.starts_with(b"PK\x03\x04")
        && !name.ends_with(".jsonl")
        && !name.ends_with(".json-seq")
        && bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let bytes = if report_like {
        match String::from_utf8(bytes) {
            Ok(text) => {
                let text: Rc<str> = Rc::from(text);
                match Slices::start(&name, text.clone()) {
                    Some(slices) => return read_slices(state, slices, fresh),
                    None => text.as_bytes().to_vec(),
                }
            }
            Err(e) => e.into_bytes(),
        }
    } else {
        bytes
    };
    match open(&name, bytes) {
        Ok(data) => state.dispatch(ViewerAction::Loaded(Shared::new(data), fresh)),
        Err(e) => state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
    }
}

fn read_slices(state: &UseReducerHandle<ViewerState>, slices: Slices, fresh: bool) {
    let (first, done) = (state.clone(), state.clone());
    // The query is reset once, by the first table shown.
    let shown = Rc::new(std::cell::Cell::new(false));
    let shown_first = shown.clone();
    report_slices::read(
        slices,
        Callback::from(move |mut d: ViewData| {
            d.notes
                .push("reading: the first rows are shown, the rest follow".into());
            shown_first.set(true);
            first.dispatch(ViewerAction::Loaded(Shared::new(d), fresh));
        }),
        Callback::from(move |r: Result<ViewData, String>| match r {
            Ok(d) => done.dispatch(ViewerAction::Loaded(Shared::new(d), fresh && !shown.get())),
            Err(e) => done.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
        }),
    );
}

/// The viewer's state, with the query and any `?report=` / `?log=` from the
/// URL (call once, in the app).
#[hook]
pub fn use_viewer() -> UseReducerHandle<ViewerState> {
    let state = use_reducer(|| ViewerState {
        query: Query::from_params(url::get),
        ..ViewerState::default()
    });
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            if let Some(u) = url::get("report").or_else(|| url::get("log")) {
                state.dispatch(ViewerAction::Loading(u.clone()));
                let state = state.clone();
                files::fetch_then(u, move |read| load_into(&state, read, false));
            }
            if let Some(eval) = url::get("eval") {
                let murl = manifest_url(&eval);
                let state = state.clone();
                files::fetch_then(murl.clone(), move |read| {
                    let m = read.and_then(|(_, bytes)| {
                        read_manifest(&murl, &bytes).map_err(|e| e.to_string())
                    });
                    match m {
                        Ok(m) => state.dispatch(ViewerAction::Manifest(Shared::new((murl, m)))),
                        Err(e) => state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
                    }
                });
            }
        });
    }
    state
}

fn load_other(state: &UseReducerHandle<ViewerState>, read: files::Read) {
    if let Ok((name, bytes)) = read.as_ref() {
        if view::is_import(name, bytes) {
            let Ok((name, bytes)) = read else { return };
            return import_then(
                state,
                name.clone(),
                vec![(name, bytes)],
                false,
                false,
                |d, _| ViewerAction::Other(d),
            );
        }
    }
    match read.and_then(|(name, bytes)| open(&name, bytes)) {
        Ok(data) => state.dispatch(ViewerAction::Other(Shared::new(data))),
        Err(e) => state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
    }
}

/// Opens several runs picked together to compare with the opened one, in the
/// order they were picked (one after the other, so a small file read first
/// does not jump the queue).
fn load_others(
    state: &UseReducerHandle<ViewerState>,
    read: Result<Vec<(String, Vec<u8>)>, String>,
) {
    let list = match read {
        Ok(list) => list,
        Err(e) => return state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
    };
    let state = state.clone();
    crate::effects::spawn(async move {
        for (name, bytes) in list {
            let data = if view::is_import(&name, &bytes) {
                crate::effects::import::open(&name, &[(name.clone(), bytes)], None).await
            } else {
                open(&name, bytes)
            };
            match data {
                Ok(d) => state.dispatch(ViewerAction::Other(Shared::new(d))),
                Err(e) => state.dispatch(ViewerAction::Failed(Rc::from(e.as_str()))),
            }
        }
    });
}

/// The value of a select of the page.
fn select_of(testid: &str) -> Option<String> {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector(&format!("[data-testid={testid}]"))
                .ok()
                .flatten()
        })
        .and_then(|e| e.dyn_into::<web_sys::HtmlSelectElement>().ok())
        .map(|s| s.value())
}

/// What the opened run and one compared run are paired on: a model of each
/// (when both name models) and a metric of each. Runs of two tools name
/// their models and their verdicts each its own way (promptfoo's `pass`,
/// Inspect's `match`); the cases pair by id, or by their inputs' hash when
/// the ids differ.
fn pair_picker(
    lang: Lang,
    state: &UseReducerHandle<ViewerState>,
    base: &ViewData,
    other: &ViewData,
    pair: &crate::viewer::state::Pair,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let models = |d: &ViewData| -> Vec<String> { d.facets().models.into_iter().collect() };
    let (base_models, other_models) = (models(base), models(other));
    let with_models = !base_models.is_empty() && !other_models.is_empty();
    let pick = |testid: &'static str, options: &[String], selected: Option<&String>| {
        let selected = selected.or(options.first()).cloned().unwrap_or_default();
        html! {
            <select data-testid={testid}>
                { for options.iter().map(|m| html!{ <option value={m.clone()} selected={*m == selected}>{m.clone()}</option> }) }
            </select>
        }
    };
    let go = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            let models = select_of("pair-model-a").zip(select_of("pair-model-b"));
            let metrics = select_of("pair-metric-a").zip(select_of("pair-metric-b"));
            state.dispatch(ViewerAction::Pair(crate::viewer::state::Pair {
                models,
                metrics,
            }));
        })
    };
    html! {
        <p data-testid="pair-picker">
            {t("配对：基线 ", "Pair: base ")}
            if with_models { { pick("pair-model-a", &base_models, pair.models.as_ref().map(|m| &m.0)) } }
            { pick("pair-metric-a", &base.metrics, pair.metrics.as_ref().map(|m| &m.0)) }
            {t(" 与新 ", " with new ")}
            if with_models { { pick("pair-model-b", &other_models, pair.models.as_ref().map(|m| &m.1)) } }
            { pick("pair-metric-b", &other.metrics, pair.metrics.as_ref().map(|m| &m.1)) }
            <button data-testid="compare-pair" onclick={go}>{t("按此配对比较", "Compare on these")}</button>
        </p>
    }
}

/// Two models of the opened run, side by side.
fn models_picker(
    lang: Lang,
    state: &UseReducerHandle<ViewerState>,
    _d: &ViewData,
    facets: &evalpage_core::view::Facets,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let models: Vec<String> = facets.models.iter().cloned().collect();
    if models.len() < 2 {
        return html! {};
    }
    let pick = |testid: &'static str, label: &'static str, selected: &str| {
        html! {
            <label class="inline">{label}
                <select data-testid={testid}>
                    { for models.iter().map(|m| html!{ <option value={m.clone()} selected={m == selected}>{m.clone()}</option> }) }
                </select>
            </label>
        }
    };
    let go = {
        let state = state.clone();
        Callback::from(move |_: MouseEvent| {
            if let (Some(a), Some(b)) = (select_of("compare-model-a"), select_of("compare-model-b"))
            {
                state.dispatch(ViewerAction::Models(a, b));
            }
        })
    };
    html! {
        <p>
            {t("或比较本运行的两个模型：", "Or compare two models of this run: ")}
            { pick("compare-model-a", t("基线 ", "base "), &models[0]) }
            { pick("compare-model-b", t(" 新 ", " new "), &models[1]) }
            <button data-testid="compare-models" onclick={go}>{t("比较模型", "Compare the models")}</button>
        </p>
    }
}

/// A published folder's runs (open one, or compare one with the run
/// opened), datasets and tasks.
fn manifest_list(
    lang: Lang,
    state: &UseReducerHandle<ViewerState>,
    m: &Shared<(String, view::Manifest)>,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let (murl, manifest) = &**m;
    let fetch = |path: &str, compare: bool| {
        let state = state.clone();
        let target = url::resolve(path, murl);
        Callback::from(move |_: MouseEvent| {
            let Some(u) = target.clone() else {
                return state.dispatch(ViewerAction::Failed(Rc::from(
                    "the manifest names a path the page cannot resolve",
                )));
            };
            let state = state.clone();
            if compare {
                files::fetch_then(u, move |read| load_other(&state, read));
            } else {
                state.dispatch(ViewerAction::Loading(u.clone()));
                files::fetch_then(u, move |read| load_into(&state, read, true));
            }
        })
    };
    html! {
        <section class="panel" data-testid="manifest">
            <h2>{manifest.title.clone().unwrap_or_else(|| t("已发布的评测", "Published evaluations").to_string())}</h2>
            <ul class="manifest-runs">
                { for manifest.runs.iter().map(|r| html!{
                    <li data-testid="manifest-run">
                        <strong>{&r.name}</strong>
                        if let Some(d) = &r.description { <span class="muted">{format!(" — {d}")}</span> }
                        {" "}
                        <button data-testid="manifest-open" onclick={fetch(&r.path, false)}>{t("打开", "Open")}</button>
                        <button data-testid="manifest-compare" onclick={fetch(&r.path, true)}>{t("与已打开的比较", "Compare with the open run")}</button>
                    </li>
                }) }
            </ul>
            if !manifest.datasets.is_empty() {
                <h3>{t("数据集", "Datasets")}</h3>
                <ul>{ for manifest.datasets.iter().map(|d| {
                    let abs = url::resolve(&d.path, murl).unwrap_or_default();
                    html!{ <li><a href={format!("?dataset={}", js_sys::encode_uri_component(&abs))}>{&d.name}</a>
                        <span class="muted">{format!(" ({})", t("在 RAG 模式中评测", "evaluate it in the RAG mode"))}</span></li> }
                }) }</ul>
            }
            if !manifest.tasks.is_empty() {
                <h3>{t("任务", "Tasks")}</h3>
                <ul>{ for manifest.tasks.iter().map(|f| html!{
                    <li><a href={url::resolve(&f.path, murl).unwrap_or_default()}>{&f.name}</a></li>
                }) }</ul>
            }
        </section>
    }
}

fn select_value(e: &Event) -> Option<String> {
    let t = e.target()?;
    if let Some(s) = t.dyn_ref::<web_sys::HtmlSelectElement>() {
        return Some(s.value());
    }
    t.dyn_ref::<web_sys::HtmlInputElement>().map(|i| i.value())
}

/// The viewer.
#[component]
pub fn ViewerApp(p: &ViewerAppProps) -> Html {
    let lang = p.lang;
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let s = &*p.state;
    let on_file = {
        let state = p.state.clone();
        Callback::from(move |e: Event| read_picked(&state, chosen_files(&e)))
    };
    let DropZone {
        class: drop_class,
        ondrop,
        ondragover,
        ondragleave,
    } = {
        let state = p.state.clone();
        use_drop_zone_files(
            Callback::from(move |list: Vec<web_sys::File>| read_picked(&state, list)),
            false,
        )
    };
    let set_query = {
        let state = p.state.clone();
        Callback::from(move |q: Query| {
            url::set_params(&QUERY_KEYS, &q.to_params());
            state.dispatch(ViewerAction::SetQuery(q));
        })
    };
    let on_select = {
        let state = p.state.clone();
        Callback::from(move |i: Option<u32>| state.dispatch(ViewerAction::Select(i)))
    };
    let on_compare_file = {
        let state = p.state.clone();
        Callback::from(move |e: Event| {
            let state = state.clone();
            let picked = chosen_files(&e);
            files::read_all_then(picked, move |read| load_others(&state, read));
        })
    };
    // a blind review hides every automatic verdict: the rest of the run too
    let blind_review = use_state(|| false);
    // the review demo's second reviewer
    let demo_labels = use_state(|| None::<Rc<str>>);
    {
        let (state, labels) = (p.state.clone(), demo_labels.clone());
        use_effect_with((), move |_| {
            if url::get("demo").as_deref() == Some("review") {
                open_review_demo(&state, labels);
            }
        });
    }
    let on_demo = {
        let (state, labels) = (p.state.clone(), demo_labels.clone());
        Callback::from(move |_: MouseEvent| open_review_demo(&state, labels.clone()))
    };
    let on_blind = {
        let b = blind_review.clone();
        Callback::from(move |on: bool| b.set(on))
    };
    let base_name = s.data.as_ref().map_or("", |d| d.source.as_str());
    // One panel per compared run (or the models'), each closed on its own.
    let panels = s.comparisons.iter().enumerate().map(|(i, c)| {
        let title = match (&s.models, s.others.get(i)) {
            (Some((a, b)), _) => format!("{}: {a} → {b}", t("比较模型", "Models compared")),
            (None, Some(o)) => format!("{}: {base_name} → {}", t("比较", "Comparison"), o.source),
            (None, None) => String::new(),
        };
        let on_close = {
            let state = p.state.clone();
            let models = s.models.is_some();
            Callback::from(move |_| {
                state.dispatch(if models {
                    ViewerAction::ClearCompare
                } else {
                    ViewerAction::DropOther(i)
                })
            })
        };
        html! { <ComparePanel {lang} comparison={c.clone()} {title} {on_close} /> }
    });
    html! {
        <div class="viewer-mode">
            <section class="panel">
                <h2>{t("打开已保存的运行", "Open a saved run")}</h2>
                <div class={drop_class} data-testid="viewer-drop" {ondrop} {ondragover} {ondragleave}>
                    <label>{t("report.json、事件日志（.jsonl / .json-seq）、运行的 zip，或一次选择运行的多个文件（对话评测的 dialog_trace.jsonl、turn_eval.jsonl、metrics_summary.json；任务的 report.json 与 results.jsonl）；只在本机读取，也可拖放到此处",
                              "report.json, an event log (.jsonl / .json-seq), a run's zip, or several files of a run at once (a dialog run's dialog_trace.jsonl, turn_eval.jsonl, metrics_summary.json; a task run's report.json with results.jsonl); read on this machine only; or drop them here")}
                        <input type="file" multiple={true} data-testid="open-report" accept=".json,.jsonl,.json-seq,.zip,.eval" onchange={on_file} />
                    </label>
                </div>
                <p>
                    <button data-testid="review-demo" onclick={on_demo}>{t("试试评审：打开一个由模型评判的示例运行（附另一位评审人的标签）", "Try a review: open a judged demo run (with a second reviewer's labels)")}</button>
                </p>
                if let Some(n) = &s.loading { <p class="muted" data-testid="viewer-loading">{format!("{} {n} …", t("正在读取", "Reading"))}</p> }
                if let Some(e) = &s.error { <p class="error" role="alert" data-testid="viewer-error">{e.to_string()}</p> }
            </section>
            if let Some(m) = &s.manifest { { manifest_list(lang, &p.state, m) } }
            if let Some(d) = &s.data {
                <review::Review {lang} data={d.clone()} on_blind={on_blind.clone()} extra={(*demo_labels).clone()} />
            }
            if let (Some(d), false) = (&s.data, *blind_review) {
                <section class="panel" data-testid="compare-inputs">
                    <h2>{t("比较", "Compare")}</h2>
                    <label>{t("与其他运行比较（本次打开的为基线；可选多个文件）", "Compare with other runs (the one opened is the base; pick one file or several)")}
                        <input type="file" multiple=true data-testid="open-compare" accept=".json,.jsonl,.json-seq,.zip,.eval" onchange={on_compare_file} />
                    </label>
                    { models_picker(lang, &p.state, d, &s.facets) }
                    if let [other] = s.others.as_slice() { { pair_picker(lang, &p.state, d, other, &s.pair) } }
                </section>
                if s.others.len() > 1 {
                    <SideBySide {lang} base={base_name.to_string()} runs={s.others.iter().map(|o| o.source.clone()).collect::<Vec<_>>()}
                        comparisons={s.comparisons.clone()} />
                }
                { for panels }
                { run_view(lang, d, s, set_query, on_select) }
            }
        </div>
    }
}

fn run_view(
    lang: Lang,
    d: &Shared<ViewData>,
    s: &ViewerState,
    set_query: Callback<Query>,
    on_select: Callback<Option<u32>>,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let facets = (*s.facets).clone();
    let q = s.query.clone();
    let edit = |f: fn(&mut Query, String)| {
        let (q, cb) = (q.clone(), set_query.clone());
        Callback::from(move |e: Event| {
            if let Some(v) = select_value(&e) {
                let mut next = q.clone();
                f(&mut next, v);
                cb.emit(next);
            }
        })
    };
    let on_search = {
        let (q, cb) = (q.clone(), set_query.clone());
        Callback::from(move |e: InputEvent| {
            let v = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .map(|i| i.value())
                .unwrap_or_default();
            let mut next = q.clone();
            next.search = v;
            cb.emit(next);
        })
    };
    let select = |label: &'static str,
                  testid: &'static str,
                  cur: &Option<String>,
                  values: Vec<String>,
                  cb: Callback<Event>| {
        html! {
            <label class="inline">{label}
                <select data-testid={testid} onchange={cb}>
                    <option value="" selected={cur.is_none()}>{t("全部", "all")}</option>
                    { for values.into_iter().map(|v| html!{ <option value={v.clone()} selected={cur.as_deref() == Some(v.as_str())}>{v.clone()}</option> }) }
                </select>
            </label>
        }
    };
    let metric_outcome = q.metric.as_ref().map(|(m, o)| format!("{m}={}", o.code()));
    let outcome_values: Vec<String> = d
        .metrics
        .iter()
        .flat_map(|m| ["pass", "fail", "unscored"].map(|o| format!("{m}={o}")))
        .collect();
    let sort_values: Vec<String> = ["id", "model", "status", "latency"]
        .into_iter()
        .map(str::to_string)
        .chain(d.metrics.iter().map(|m| format!("metric:{m}")))
        .collect();
    html! {
        <>
            <section class="panel" data-testid="viewer-summary">
                <h2>{format!("{} · {} · {}", d.source, d.kind, d.dataset)}</h2>
                <p class="muted">
                    {format!("{} {}", d.rows.len(), t("行（用例 × 模型）", "rows (case × model)"))}
                    if let Some(id) = &d.run_id { {format!(" · run {id}")} }
                </p>
                { for d.notes.iter().map(|n| html!{ <p class="warning">{n}</p> }) }
                <Charts {lang} data={d.clone()} />
            </section>
            { for d.devices.iter().map(|c| html! {
                <section class="panel" data-testid="device-card">
                    <h2>{format!("{} · {}", t("设备", "Device"), c.model)}</h2>
                    <dl class="device">{ for c.lines.iter().map(|(k, v)| html! {
                        <><dt>{*k}</dt><dd data-testid={format!("device-{}", k.replace([' ', '/'], "-"))}>{v.clone()}</dd></>
                    }) }</dl>
                </section>
            }) }
            <LookSummary {lang} data={d.clone()} />
            <section class="panel">
                <h2>{t("用例", "Cases")}</h2>
                <div class="filters">
                    <label class="inline">{t("搜索 ", "Search ")}
                        <input type="search" data-testid="case-search" value={q.search.clone()} oninput={on_search} />
                    </label>
                    { select(t("指标结果 ", "Metric outcome "), "filter-outcome", &metric_outcome, outcome_values,
                        edit(|q, v| q.metric = v.split_once('=').and_then(|(m, o)| Some((m.to_string(), Outcome::parse(o)?))))) }
                    { select(t(" 标签 ", " Tag "), "filter-tag", &q.tag, facets.tags.into_iter().collect(), edit(|q, v| q.tag = (!v.is_empty()).then_some(v))) }
                    { select(t(" 语言 ", " Language "), "filter-language", &q.language, facets.languages.into_iter().collect(), edit(|q, v| q.language = (!v.is_empty()).then_some(v))) }
                    { select(t(" 长度 ", " Length "), "filter-length", &q.length, facets.lengths.into_iter().collect(), edit(|q, v| q.length = (!v.is_empty()).then_some(v))) }
                    { select(t(" 模型 ", " Model "), "filter-model", &q.model, facets.models.into_iter().collect(), edit(|q, v| q.model = (!v.is_empty()).then_some(v))) }
                    { select(t(" 状态 ", " Status "), "filter-status", &q.status, facets.statuses.into_iter().collect(), edit(|q, v| q.status = (!v.is_empty()).then_some(v))) }
                    { select(t(" 排序 ", " Sort "), "sort-by", &q.sort.as_ref().map(Sort::code), sort_values, edit(|q, v| q.sort = Sort::parse(&v))) }
                    <label class="inline check">
                        <input type="checkbox" data-testid="sort-desc" checked={q.desc}
                            onchange={ { let (q, cb) = (q.clone(), set_query.clone()); Callback::from(move |_: Event| { let mut n = q.clone(); n.desc = !n.desc; cb.emit(n); }) } } />
                        {t("降序", "descending")}
                    </label>
                </div>
                <p data-testid="viewer-count">{format!("{} / {}", s.shown.len(), d.rows.len())}</p>
                <CaseTable {lang} data={d.clone()} shown={s.shown.clone()} selected={s.selected} {on_select} others={s.others.clone()} />
            </section>
        </>
    }
}
