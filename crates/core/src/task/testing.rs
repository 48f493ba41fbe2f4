//! A small scored event_eval run shared by the unit tests of this module.

use super::data::{load, DatasetFormat, TaskDataset};
use super::report::{AnswerSource, ReportInput, TaskInfo};
use super::responses;
use super::score::{score, Scored};
use crate::dataset::LineError;
use crate::task::contract::{preset, Task};

/// Two tagged samples; `m1` answers both, `m2` only `S1`.
pub struct Fixture {
    pub task: Task,
    /// Each sample's prompt rendered by the preset's template.
    pub prompts: Vec<Result<Vec<crate::provider::ChatMessage>, String>>,
    pub info: TaskInfo,
    pub data: TaskDataset,
    pub scored: Scored,
    pub errors: Vec<LineError>,
    pub source: AnswerSource,
}

impl Fixture {
    /// `results.jsonl` of this fixture, with each sample's rendered prompt.
    pub fn results_jsonl(&self) -> String {
        super::results::render(
            &self.data,
            &self.info,
            &self.source,
            &self.scored.models,
            &self.prompts,
        )
    }

    /// The report input over this fixture.
    pub fn input(&self) -> ReportInput<'_> {
        ReportInput {
            task: &self.task,
            info: &self.info,
            data: &self.data,
            source: &self.source,
            scored: &self.scored,
            line_errors: &self.errors,
            times: None,
        }
    }
}

const DATA: &str = concat!(
    "{\"sample_id\":\"S1\",\"tags\":[\"tech\"],\"news_items\":[],\"gt_sentiment\":\"positive\",\"gt_impact_score\":2,\"gt_keywords\":[\"ai\",\"chips\"]}\n",
    "{\"sample_id\":\"S2\",\"tags\":[\"bank\"],\"news_items\":[],\"gt_sentiment\":\"negative\",\"gt_impact_score\":-3,\"gt_keywords\":[\"loss\"]}\n",
);

const RESPONSES: &str = concat!(
    "{\"sample_id\":\"S1\",\"model\":\"m1\",\"response\":\"{\\\"sentiment\\\":\\\"positive\\\",\\\"impact_score\\\":2,\\\"keywords\\\":[\\\"ai\\\"]}\"}\n",
    "{\"sample_id\":\"S2\",\"model\":\"m1\",\"response\":\"not json\"}\n",
    "{\"sample_id\":\"S1\",\"model\":\"m2\",\"response\":\"{\\\"sentiment\\\":\\\"neutral\\\",\\\"impact_score\\\":1,\\\"keywords\\\":[\\\"ai\\\",\\\"chips\\\"]}\"}\n",
);

/// Builds the fixture.
pub fn fixture() -> Fixture {
    let task = preset("event_eval").expect("preset");
    let template = crate::task::contract::builtin_template("ie_json").expect("template");
    let mut data = load("d.jsonl", DATA.as_bytes(), DatasetFormat::Samples, None);
    // as every shell does once it has the template (the breakdown by length)
    super::prompts::measure_lengths(&task, &template, &mut data.samples);
    let resp = responses::parse("r.jsonl", RESPONSES.as_bytes());
    let scored = score(&task, &data, &resp);
    let info = TaskInfo {
        name: task.name.clone(),
        version: task.version.clone(),
        source: "preset".into(),
        prompt_name: "ie_json".into(),
        prompt_version: "v1".into(),
        prompt_source: "builtin".into(),
    };
    let prompts = super::prompts::render_prompts(&task, &template, &data.samples);
    Fixture {
        task,
        prompts,
        info,
        data,
        scored,
        errors: Vec::new(),
        source: AnswerSource::Score {
            responses: "r.jsonl".into(),
        },
    }
}
