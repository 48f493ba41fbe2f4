//! The task mode's share link (see `state::share`): the task (a preset's
//! name, or its YAML inline when small), the dataset URL, the models, the
//! endpoint form and the scheduling; never a key.

use crate::state::share::{encode, flags, opt, ShareSpec, INLINE_LIMIT};
use crate::state::ModelSettings;
use crate::task::state::data::LoadedFile;
use crate::task::state::models::TaskRunSettings;
use evalpage_core::Lang;

/// What the task mode's link is made of (read from the task state).
pub struct TaskShare<'a> {
    /// The preset the task started from, if any.
    pub preset: Option<&'a str>,
    /// That preset's YAML.
    pub preset_yaml: Option<&'a str>,
    /// The task YAML as edited.
    pub task_text: &'a str,
    /// The prompt template as edited (blank: none).
    pub template_text: &'a str,
    /// The dataset file, when one was loaded (else the demo data).
    pub file: Option<&'a LoadedFile>,
    /// The dataset URL it was fetched from (`?dataset=`), if it was.
    pub dataset_url: Option<&'a str>,
    /// The mock models ticked.
    pub mocks: Vec<&'a str>,
    /// Endpoint models ticked: (base URL, model id).
    pub endpoints: Vec<(&'a str, &'a str)>,
    /// Registry models ticked (a registry cannot be shared).
    pub registry: Vec<&'a str>,
    /// The endpoint form.
    pub endpoint: &'a ModelSettings,
    /// Scheduling.
    pub settings: TaskRunSettings,
    /// The judge of `llm_judge` metrics.
    pub judge: &'a str,
}

/// The task mode's link: the task (a preset's name, or its YAML inline when
/// small), the dataset URL, the models, the endpoint form and the scheduling.
pub fn task(t: &TaskShare<'_>, lang: Lang) -> ShareSpec {
    let mut s = ShareSpec::default();
    s.push("mode", "task");
    s.push("lang", lang.code());
    if let Some(p) = t.preset {
        s.push("task", p);
    }
    let edited = t.preset_yaml != Some(t.task_text) || !t.template_text.trim().is_empty();
    if edited {
        let size = t.task_text.len() + t.template_text.len();
        if size <= INLINE_LIMIT {
            s.push("task_yaml", encode(t.task_text.as_bytes()));
            if !t.template_text.trim().is_empty() {
                s.push("task_template", encode(t.template_text.as_bytes()));
            }
        } else {
            let kb = size.div_ceil(1024);
            match t.preset {
                Some(p) => s.note(
                    lang,
                    &format!("任务文本（{kb} KB）超过 4 KB，无法放进链接：链接打开预设 {p} 未修改的版本"),
                    &format!("The task ({kb} KB) is over 4 KB and cannot be inlined: the link opens the preset {p} as it ships"),
                ),
                None => s.note(
                    lang,
                    &format!("任务文本（{kb} KB）超过 4 KB，无法放进链接：请把任务文件一并发给对方"),
                    &format!("The task ({kb} KB) is over 4 KB and cannot be inlined: send the task file along"),
                ),
            }
        }
    }
    match (t.file, t.dataset_url) {
        (Some(_), Some(u)) => s.push("dataset", u),
        (Some(f), None) => s.note(
            lang,
            &format!("数据集 {} 是本地文件，无法放进链接：打开链接的人会看到示例数据，需自行加载该文件", f.name),
            &format!("The dataset {} is a local file and cannot be shared: the link opens the demo data, and whoever opens it must load that file themselves", f.name),
        ),
        (None, _) => {}
    }
    s.push("models", t.mocks.join(","));
    for (base, model) in &t.endpoints {
        s.push("endpoint_model", format!("{model} {base}"));
    }
    if !t.registry.is_empty() {
        s.note(
            lang,
            &format!("注册表模型（{}）无法放进链接", t.registry.join(", ")),
            &format!(
                "Registry models ({}) cannot be shared",
                t.registry.join(", ")
            ),
        );
    }
    let e = t.endpoint;
    if !e.base_url.trim().is_empty() {
        s.push("endpoint", e.base_url.trim());
    }
    if !e.model.trim().is_empty() {
        s.push("model", e.model.trim());
    }
    s.push("temperature", opt(e.temperature));
    s.push("max_tokens", opt(e.max_tokens));
    let r = &t.settings;
    s.push("concurrency", r.concurrency.to_string());
    s.push("timeout", r.timeout_s.to_string());
    s.push("attempts", r.max_attempts.to_string());
    s.push("demo_latency", r.mock_latency.to_string());
    flags(&mut s, r.truncated_as_failure, r.keep_going_on_fatal);
    s.push("judge", t.judge);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::share::decode_text;

    #[test]
    fn a_task_is_inlined_when_small_and_named_when_not() {
        let endpoint = ModelSettings::default();
        let mut t = TaskShare {
            preset: Some("event_eval"),
            preset_yaml: Some("name: x\n"),
            task_text: "name: x\n",
            template_text: "",
            file: None,
            dataset_url: None,
            mocks: vec!["mock-a"],
            endpoints: vec![("http://127.0.0.1:1/v1", "m1")],
            registry: vec![],
            endpoint: &endpoint,
            settings: TaskRunSettings::default(),
            judge: "mock-judge",
        };
        let spec = task(&t, Lang::En);
        assert_eq!(spec.get("task"), Some("event_eval"));
        assert_eq!(spec.get("task_yaml"), None, "the preset as it ships");
        assert_eq!(spec.get("endpoint_model"), Some("m1 http://127.0.0.1:1/v1"));
        t.task_text = "name: y\n";
        let spec = task(&t, Lang::En);
        let inlined = decode_text("task_yaml", spec.get("task_yaml").unwrap());
        assert_eq!(inlined.as_deref(), Ok("name: y\n"));
        let big = "#".repeat(INLINE_LIMIT + 1);
        t.task_text = &big;
        let spec = task(&t, Lang::En);
        assert_eq!(spec.get("task_yaml"), None);
        assert!(spec.notes[0].contains("cannot be inlined"));
    }
}
