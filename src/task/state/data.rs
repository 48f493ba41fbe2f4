//! The dataset of a task run: the file the user loaded (or the built-in demo
//! for the task's format), read by the core in the task's format, with its
//! optional `metadata.json`; and the prompt preview of its first sample.

use evalpage_core::demo;

use evalpage_core::report::DatasetMetadataFile as DatasetMetadata;
use evalpage_core::task::{load_dataset as load, DatasetFormat, TaskDataset};
use evalpage_core::ChatMessage;
use std::rc::Rc;

/// The spec 004 demo samples (event extraction from news items).
pub const EVENT_EVAL_DEMO: &str = include_str!("../../../www/demo/tasks/event_eval.jsonl");
/// The spec 003 demo records (support chats, Chinese and English).
pub const SUPPORT_QA_DEMO: &str = include_str!("../../../www/demo/tasks/support_qa.jsonl");

/// The spec 004 demo news records with `news_title` / `news_body` (the
/// `news_analysis` preset's, read through its `news_json` template).
pub const NEWS_ANALYSIS_DEMO: &str = include_str!("../../../www/demo/tasks/news_analysis.jsonl");

/// BFCL's function-calling demo: eight entries of BFCL v4's `multiple`
/// category (bfcl-eval 2026.3.23, Apache-2.0), each with its possible
/// answers on the line (`ground_truth`), so one file is enough.
pub const BFCL_DEMO: &str = include_str!("../../../www/demo/tasks/BFCL_v4_multiple.json");

/// The built-in demo dataset for a format and the task's prompt template:
/// (file name, JSONL text).
pub fn demo_dataset(format: DatasetFormat, template: Option<&str>) -> (&'static str, &'static str) {
    match format {
        DatasetFormat::Samples if template == Some("news_json") => {
            ("news_analysis.jsonl", NEWS_ANALYSIS_DEMO)
        }
        DatasetFormat::Samples => ("event_eval.jsonl", EVENT_EVAL_DEMO),
        DatasetFormat::TestSamples => ("support_qa.jsonl", SUPPORT_QA_DEMO),
        DatasetFormat::Rag => (demo::DATASET_NAME, demo::DATASET),
        DatasetFormat::Bfcl => ("BFCL_v4_multiple.json", BFCL_DEMO),
    }
}

/// A file the user loaded: its name and bytes (read locally, never uploaded).
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedFile {
    /// File name.
    pub name: String,
    /// Its bytes.
    pub bytes: Rc<[u8]>,
}

/// A `metadata.json` as loaded: its name and the parsed file or why it is unusable.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedMetadata {
    /// File name.
    pub name: String,
    /// The metadata, or the located error.
    pub parsed: Result<DatasetMetadata, String>,
    /// The file's bytes (kept so an interrupted run can be resumed).
    pub bytes: Rc<[u8]>,
}

impl LoadedMetadata {
    /// Parses a loaded `metadata.json`.
    pub fn read(name: &str, bytes: &[u8]) -> LoadedMetadata {
        LoadedMetadata {
            name: name.to_string(),
            parsed: evalpage_core::report::parse_metadata(name, bytes).map_err(|e| e.to_string()),
            bytes: Rc::from(bytes),
        }
    }
}

/// The dataset the run will use, read in `format`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunData {
    /// Samples, skipped lines and the report's dataset block.
    pub data: Rc<TaskDataset>,
    /// The dataset bytes (for the fingerprint).
    pub bytes: Rc<[u8]>,
    /// True for the built-in demo.
    pub is_demo: bool,
    /// The `metadata.json` name, when one was used.
    pub metadata: Option<String>,
}

/// Reads the loaded file (or the demo) in `format`; a metadata file that
/// could not be read is left out (its error is shown beside it).
pub fn read(
    format: DatasetFormat,
    template: Option<&str>,
    file: Option<&LoadedFile>,
    meta: Option<&LoadedMetadata>,
) -> RunData {
    let (name, bytes, is_demo): (&str, Rc<[u8]>, bool) = match file {
        Some(f) => (&f.name, f.bytes.clone(), false),
        None => {
            let (name, text) = demo_dataset(format, template);
            (name, Rc::from(text.as_bytes()), true)
        }
    };
    let usable = meta.and_then(|m| m.parsed.as_ref().ok().map(|p| (m.name.clone(), p)));
    let data = load(name, &bytes, format, usable.as_ref().map(|(_, p)| *p));
    RunData {
        data: Rc::new(data),
        bytes,
        is_demo,
        metadata: usable.map(|(n, _)| n),
    }
}

/// The prompt of the dataset's first sample.
#[derive(Clone, Debug, PartialEq)]
pub enum Preview {
    /// The dataset has no valid sample.
    NoSample,
    /// The rendered messages.
    Messages {
        /// The sample's id.
        sample_id: String,
        /// System (if any) and user message.
        messages: Vec<ChatMessage>,
    },
    /// Rendering failed.
    Failed {
        /// The sample's id.
        sample_id: String,
        /// Why (template, part, field).
        message: String,
    },
}

/// Renders the first sample's prompt with the task's template.
pub fn preview(task: &super::check::CheckedTask, data: &TaskDataset) -> Preview {
    let Some(first) = data.samples.first() else {
        return Preview::NoSample;
    };
    let sample_id = first.sample.id.clone();
    match task
        .template
        .render(&first.sample, &task.task.serialize_fields)
    {
        Ok(p) => Preview::Messages {
            sample_id,
            messages: p.messages,
        },
        Err(e) => Preview::Failed {
            sample_id,
            message: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::{check_task, TaskSource};
    use super::*;
    use evalpage_core::task::PRESETS;

    fn checked(yaml: &str) -> Rc<super::super::check::CheckedTask> {
        check_task(&TaskSource {
            task_file: "t.yaml",
            task_text: yaml,
            preset_yaml: None,
            template_file: "p.yaml",
            template_text: "",
        })
        .checked
        .expect("valid")
    }

    #[test]
    fn every_preset_has_a_demo_that_reads_cleanly_and_previews() {
        for p in PRESETS {
            let task = checked(p.yaml);
            let run = read(task.format, Some(&task.task.prompt_template), None, None);
            assert!(run.is_demo);
            assert!(run.data.samples.len() >= 8, "{}", p.name);
            assert!(
                run.data.errors.is_empty(),
                "{}: {:?}",
                p.name,
                run.data.errors
            );
            let Preview::Messages { messages, .. } = preview(&task, &run.data) else {
                panic!("{} previews", p.name)
            };
            assert_eq!(messages.last().map(|m| m.role.as_str()), Some("user"));
        }
        let task = checked(PRESETS[0].yaml);
        let run = read(task.format, Some(&task.task.prompt_template), None, None);
        let Preview::Messages {
            sample_id,
            messages,
        } = preview(&task, &run.data)
        else {
            panic!("previews")
        };
        assert_eq!(sample_id, "S001");
        assert!(messages[1].content.contains("Ticker: AAPL"));
    }

    #[test]
    fn support_demo_mixes_languages_and_has_keywords() {
        let task = checked(PRESETS[1].yaml);
        let run = read(task.format, Some(&task.task.prompt_template), None, None);
        let langs: Vec<&str> = run
            .data
            .samples
            .iter()
            .filter_map(|s| s.language.as_deref())
            .collect();
        assert!(langs.contains(&"zh") && langs.contains(&"en"));
        assert!(run
            .data
            .samples
            .iter()
            .all(|s| s.sample.get("metadata.keywords").is_some()));
    }

    #[test]
    fn a_loaded_file_with_a_bad_line_keeps_the_rest_and_metadata_is_used() {
        let task = checked(PRESETS[0].yaml);
        let text = "{\"sample_id\":\"a\",\"ticker\":\"X\",\"news_items\":[]}\nnot json\n";
        let file = LoadedFile {
            name: "mine.jsonl".into(),
            bytes: Rc::from(text.as_bytes()),
        };
        let meta = LoadedMetadata::read(
            "metadata.json",
            br#"{"dataset_id": "mine", "version": "3"}"#,
        );
        let run = read(task.format, None, Some(&file), Some(&meta));
        assert!(!run.is_demo);
        assert_eq!(run.data.samples.len(), 1);
        assert_eq!(run.data.errors[0].line, 2);
        assert!(run.data.errors[0].to_string().starts_with("mine.jsonl:2:"));
        assert_eq!(run.metadata.as_deref(), Some("metadata.json"));
        assert_eq!(run.data.metadata.version, "3");
        let bad = LoadedMetadata::read("metadata.json", b"{");
        assert!(bad.parsed.is_err());
        assert_eq!(
            read(task.format, None, Some(&file), Some(&bad)).metadata,
            None
        );
        let empty = LoadedFile {
            name: "e.jsonl".into(),
            bytes: Rc::from(&b""[..]),
        };
        let run = read(task.format, None, Some(&empty), None);
        assert_eq!(preview(&task, &run.data), Preview::NoSample);
    }
}

/// The dataset as the user chose it, and as read: one concern of
/// [`super::TaskState`] (read in the checked task's format, so `TaskState`
/// reads it).
#[derive(Clone, Debug, PartialEq)]
pub struct DataInputs {
    /// The file the user loaded (`None`: the demo for the task's format).
    pub file: Option<Rc<LoadedFile>>,
    /// The URL `file` was fetched from (`?dataset=`); `None` for a local file.
    pub dataset_url: Option<Rc<str>>,
    /// The `metadata.json` the user loaded.
    pub metadata: Option<Rc<LoadedMetadata>>,
    /// The dataset as read in the task's format.
    pub run_data: Rc<RunData>,
    /// Why a file could not be read.
    pub load_error: Option<Rc<str>>,
}

impl Default for DataInputs {
    /// The demo of the samples format.
    fn default() -> Self {
        DataInputs {
            file: None,
            dataset_url: None,
            metadata: None,
            run_data: Rc::new(read(DatasetFormat::Samples, None, None, None)),
            load_error: None,
        }
    }
}

impl DataInputs {
    /// Reads the dataset again in `format` (for the task's `template`).
    pub fn reload(&mut self, format: DatasetFormat, template: Option<&str>) {
        self.run_data = Rc::new(read(
            format,
            template,
            self.file.as_deref(),
            self.metadata.as_deref(),
        ));
    }

    /// A file was loaded (from `url`, for `?dataset=`), not read yet.
    pub fn set_file(&mut self, file: Rc<LoadedFile>, url: Option<Rc<str>>) {
        self.file = Some(file);
        self.dataset_url = url;
        self.load_error = None;
    }

    /// Back to the built-in demo, without metadata, not read yet.
    pub fn use_demo(&mut self) {
        self.file = None;
        self.dataset_url = None;
        self.metadata = None;
        self.load_error = None;
    }
}
