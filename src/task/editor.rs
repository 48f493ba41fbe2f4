//! The task: a preset picker that fills the YAML editor, the editor with live
//! located errors, and, when the task names a template that is not built in,
//! a second editor for the template's YAML.

use crate::task::code_editor::CodeEditor;
use crate::task::state::check::{TaskCheck, TemplateNeed};
use evalpage_core::task::PRESETS;
use evalpage_core::Lang;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// Task editor props.
#[derive(Properties, PartialEq)]
pub struct TaskEditorProps {
    /// Language.
    pub lang: Lang,
    /// The preset last chosen.
    pub preset: Option<&'static str>,
    /// The task YAML.
    pub task_text: Rc<str>,
    /// The template YAML.
    pub template_text: Rc<str>,
    /// The last check.
    pub check: Rc<TaskCheck>,
    /// A text changed since the last check.
    pub pending: bool,
    /// No edits while a run is going.
    pub disabled: bool,
    /// A preset was chosen.
    pub on_preset: Callback<String>,
    /// The task text changed.
    pub on_task: Callback<String>,
    /// The template text changed.
    pub on_template: Callback<String>,
    /// Typing paused: check now.
    pub on_check: Callback<()>,
    /// A task file was chosen.
    pub on_task_file: Callback<web_sys::File>,
    /// A template file was chosen.
    pub on_template_file: Callback<web_sys::File>,
    /// The code that checks the task could not be fetched.
    pub code_failed: bool,
    /// Fetch that code again.
    pub on_retry: Callback<()>,
}

/// The task editor.
#[component]
pub fn TaskEditor(p: &TaskEditorProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let onchange = {
        let cb = p.on_preset.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlSelectElement>().ok())
            {
                if !s.value().is_empty() {
                    cb.emit(s.value());
                }
            }
        })
    };
    let description = p
        .preset
        .and_then(|n| PRESETS.iter().find(|x| x.name == n))
        .map(|x| x.description);
    html! {
        <section class="panel" data-testid="task-panel">
            <h2>{t("任务", "Task")}</h2>
            <label class="inline">{t("预设：", "Preset: ")}
                <select data-testid="task-preset" disabled={p.disabled} {onchange}>
                    if p.preset.is_none() { <option value="" selected=true>{t("（自定义）", "(custom)")}</option> }
                    { for PRESETS.iter().map(|x| html!{
                        <option value={x.name} selected={p.preset == Some(x.name)}>{x.name}</option>
                    }) }
                </select>
                if let Some(d) = description { <span class="muted">{format!(" {d}")}</span> }
            </label>
            <CodeEditor lang={p.lang} testid="task-yaml" label={t("任务 YAML", "Task YAML")}
                value={p.task_text.clone()} errors={p.check.errors.clone()} pending={p.pending}
                ok_text={ok_text(&p.check)} accept=".yaml,.yml,.txt" rows={18} disabled={p.disabled}
                on_input={p.on_task.clone()} on_settle={p.on_check.clone()} on_file={p.on_task_file.clone()} />
            if p.code_failed {
                <p class="error" data-testid="task-code-error">
                    {crate::task::code::not_loaded(p.lang)}{" "}
                    <button data-testid="task-code-retry" onclick={p.on_retry.reform(|_| ())}>{t("重试", "Try again")}</button>
                </p>
            }
            <crate::components::metric_hints::MetricHints lang={p.lang} />
            { template_editor(p) }
        </section>
    }
}

fn template_editor(p: &TaskEditorProps) -> Html {
    let TemplateNeed::External { name, errors } = &p.check.template else {
        return html! {};
    };
    let label = p.lang.pick("提示词模板", "Prompt template");
    let placeholder = format!(
        "name: {name}\nversion: v1\nsystem: You are ...\nuser: |\n  Question: {{{{ question }}}}"
    );
    html! {
        <div class="template-editor" data-testid="template-panel">
            <p class="muted">{format!("{} `{name}` {}", p.lang.pick("任务使用的模板", "The task uses the template"),
                p.lang.pick("不是内置模板：请粘贴或加载它的 YAML（name、version、system、user，Jinja 语法）。",
                    "which is not built in: paste or load its YAML (name, version, system, user; Jinja syntax)."))}</p>
            <CodeEditor lang={p.lang} testid="template-yaml" label={format!("{label}: {name}")}
                value={p.template_text.clone()} errors={errors.clone()} pending={p.pending}
                ok_text={p.check.checked.as_ref().map(|c| AttrValue::from(format!("{} {}", c.info.prompt_name, c.info.prompt_version)))}
                placeholder={placeholder} accept=".yaml,.yml,.txt" rows={10} disabled={p.disabled}
                on_input={p.on_template.clone()} on_settle={p.on_check.clone()} on_file={p.on_template_file.clone()} />
        </div>
    }
}

fn ok_text(check: &TaskCheck) -> Option<AttrValue> {
    let c = check.checked.as_ref()?;
    let metrics: Vec<&str> = c.task.metrics.iter().map(|m| m.name.as_str()).collect();
    Some(AttrValue::from(format!(
        "{} {} · template {} {} ({}) · {} · metrics: {}",
        c.info.name,
        c.info.version,
        c.info.prompt_name,
        c.info.prompt_version,
        c.info.prompt_source,
        c.format.describe(),
        metrics.join(", ")
    )))
}
