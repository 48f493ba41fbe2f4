//! The judge of spec 001's judged metrics (issue 11): M3 by a judge (the
//! canonical risk tags an answer discloses), M4 by a judge (its compliance
//! label) and M5 (the explainability rubric items it meets and
//! `judge_score_1_5`). Each is a versioned built-in prompt
//! (`crates/core/judges/dialog_*.yaml`, zh and en) read strictly by
//! `judge::verdict`: a tag list within the canonical set (or within the
//! turn's rubric items), one label of §3.2, a whole number 1–5. An answer
//! that cannot be read is asked again up to `max_repairs` times (default 1)
//! in the same conversation, then stays **unscored**: out of the metric's
//! denominator and counted apart.
//!
//! The judge calls of a turn are a pure function of the answers so far
//! ([`DialogJudge::walk`]), so a dialog run makes them dependent calls of the
//! dialog's job, after the turn's answer, on the judge's own pool
//! (`workers_judge`), and a trace scored offline makes them a run of
//! judge-only jobs ([`JudgeOnlyKind`]).
//!
//! Decisions where the spec is silent:
//! - A turn is judged only for the parts it could be eligible for: risk tags
//!   when `risk_disclosure_required_gt` is not empty, the label when
//!   `compliance_label_gt` is given, rubric items and the score when
//!   `explainability_rubric_gt` is not empty; a turn whose `turn_status` is
//!   not `ok` is not judged. The parts go in that order, one call each (M5
//!   is two calls, one per reply format, so each verdict has one strict
//!   reader).
//! - The judge sees the conversation before the turn, the user's question,
//!   the answer and, for the compliance label, the profile `profile_gt` (a
//!   compliance label depends on suitability); never the ground-truth answer
//!   or tags.
//! - A judge call that fails for good (after the engine's retries) leaves
//!   that part unscored ("the judge call failed") and the dialog goes on;
//!   only a fatal answer (401, 403, 404) or a cancel stops it.
//! - Only canonical tag ids are read as risk tags (not their Chinese names):
//!   the prompt lists the ids, and a reply that is not one of them is not
//!   guessed at.

use super::dataset::{Dialog, TurnPair};
use super::trace::{conversation_text, DialogTrace};
use super::turn_eval::{JudgedPart, Judgements, TurnJudgement};
use super::vocab::{ComplianceLabel, TurnStatus, RISK_TAGS};
use crate::dataset::sample::Sample;
use crate::events::{MetaRecord, Record, SummaryRecord};
use crate::judge::prompt::{code, dialog_builtin, JudgePrompt};
use crate::judge::verdict::{tags_of, Verdict};
use crate::metric::judge_flow::{take, Attempt};
use crate::provider::{Answer, CallError, ChatMessage, ModelSettings};
use crate::run::{Call, JobOutcome, Kind, Pipeline, RunIdentity, RunSettings};
use crate::Lang;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The `finish_reason` of the stand-in answer the engine records for a
/// judge call that failed for good (see `Kind::carry_on`): its text is the
/// error message.
pub const FAILED_CALL: &str = "evalpage_judge_call_failed";

/// One judged part of a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Part {
    /// M3: the risk tags disclosed.
    RiskTags,
    /// M4: the compliance label.
    ComplianceLabel,
    /// M5: the rubric items met.
    RubricHitItems,
    /// M5: `judge_score_1_5`.
    Score1To5,
}

impl Part {
    /// Every part, in call order.
    pub const ALL: [Part; 4] = [
        Part::RiskTags,
        Part::ComplianceLabel,
        Part::RubricHitItems,
        Part::Score1To5,
    ];

    /// The part's key (as in `TurnJudgement` and `judge_raw`).
    pub fn key(self) -> &'static str {
        match self {
            Part::RiskTags => "risk_tags",
            Part::ComplianceLabel => "compliance_label",
            Part::RubricHitItems => "rubric_hit_items",
            Part::Score1To5 => "score_1_5",
        }
    }

    /// The built-in prompt's id.
    pub fn prompt_id(self) -> &'static str {
        match self {
            Part::RiskTags => "dialog_risk_tags",
            Part::ComplianceLabel => "dialog_compliance",
            Part::RubricHitItems => "dialog_rubric_items",
            Part::Score1To5 => "dialog_explain_score",
        }
    }

    fn index(self) -> usize {
        match self {
            Part::RiskTags => 0,
            Part::ComplianceLabel => 1,
            Part::RubricHitItems => 2,
            Part::Score1To5 => 3,
        }
    }
}

/// A prompt as the outputs name it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PromptInfo {
    /// Prompt id.
    pub id: String,
    /// Its version.
    pub version: String,
    /// `zh` or `en`.
    pub language: String,
    /// `builtin` or a file.
    pub source: String,
}

/// The judge as `metrics_summary.json` names it (never a key).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgeInfo {
    /// The judge's name (a registry entry, or `mock`).
    pub model: String,
    /// The model id sent.
    pub model_id: String,
    /// Its endpoint, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    /// The prompt of each part, by part key.
    pub prompts: BTreeMap<String, PromptInfo>,
    /// Repairs asked at most per part.
    pub max_repairs: usize,
    /// `workers_judge`.
    pub workers_judge: usize,
    /// The judge's price per million prompt tokens, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_in_per_mtok: Option<f64>,
    /// The judge's price per million completion tokens, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_out_per_mtok: Option<f64>,
}

/// The built-in prompts of the judged parts, in [`Part::ALL`]'s order.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgePrompts(Vec<JudgePrompt>);

/// The built-in judge prompts in `language` (compiled by the Jinja engine).
pub fn prompts(language: Lang) -> JudgePrompts {
    JudgePrompts(
        Part::ALL
            .iter()
            .filter_map(|p| dialog_builtin(p.prompt_id(), language))
            .collect(),
    )
}

/// The judge of a dialog evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct DialogJudge {
    /// The judge model as called (no key).
    pub model: ModelSettings,
    /// Its pool's scheduling (`concurrency` is `workers_judge`).
    pub settings: RunSettings,
    /// Repairs asked at most per part.
    pub max_repairs: usize,
    /// Its price, for the judging cost in `metrics_summary.json`.
    pub price: Option<crate::report::Price>,
    prompts: Vec<JudgePrompt>,
}

/// What the judge of one turn sees.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnContext {
    /// Dialog id.
    pub dialog_id: String,
    /// The user's text of this turn.
    pub question: String,
    /// The answer judged.
    pub answer: String,
    /// The conversation before this turn (`user: ...` / `assistant: ...`).
    pub conversation: String,
    /// `profile_gt` as JSON text.
    pub profile: String,
    /// The turn's parts to judge, in order.
    pub parts: Vec<Part>,
    /// `explainability_rubric_gt`.
    pub rubric: Vec<String>,
}

/// One part's judgement: every attempt and the error that ended it, if one did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PartJudgement {
    /// The part.
    pub part: Part,
    /// Attempts in order (the first and its repairs).
    pub attempts: Vec<Attempt>,
    /// Why the part has no (further) attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PartJudgement {
    fn new(part: Part) -> PartJudgement {
        PartJudgement {
            part,
            attempts: Vec::new(),
            error: None,
        }
    }

    /// The final verdict's value, when it was read.
    pub fn value(&self) -> Option<&str> {
        match self.attempts.last().map(|a| &a.verdict) {
            Some(Verdict::Scored { value, .. }) if self.error.is_none() => Some(value),
            _ => None,
        }
    }
}

/// Where the judge calls of a turn stand.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnProgress {
    /// Finished parts.
    pub done: Vec<PartJudgement>,
    /// The part whose call is due, with its messages.
    pub next: Option<(PartJudgement, Vec<ChatMessage>)>,
    /// Parts after the due one.
    pub rest: Vec<Part>,
    /// Answers consumed.
    pub consumed: usize,
}

impl TurnProgress {
    /// Every part's judgement once the turn's judging ended; `error` is why
    /// the due part got no answer (a cancel, a stop), if one is due.
    pub fn finish(self, error: Option<&str>) -> Vec<PartJudgement> {
        let mut out = self.done;
        if let Some((mut p, _)) = self.next {
            p.error = Some(
                error
                    .unwrap_or("the run ended before this judgement")
                    .into(),
            );
            out.push(p);
        }
        out.extend(self.rest.into_iter().map(|part| PartJudgement {
            error: Some("not judged: the run ended before this judgement".into()),
            ..PartJudgement::new(part)
        }));
        out
    }
}

impl DialogJudge {
    /// The judge with the built-in prompts in `language`.
    pub fn new(model: ModelSettings, settings: RunSettings, language: Lang) -> DialogJudge {
        DialogJudge::with_prompts(model, settings, prompts(language))
    }

    /// The judge with prompts made beforehand by [`prompts`] (the page makes
    /// them behind a wasm-split point: they are what links the Jinja engine).
    pub fn with_prompts(
        model: ModelSettings,
        settings: RunSettings,
        prompts: JudgePrompts,
    ) -> DialogJudge {
        let JudgePrompts(prompts) = prompts;
        DialogJudge {
            model,
            settings,
            max_repairs: 1,
            price: None,
            prompts,
        }
    }

    fn prompt(&self, part: Part) -> Option<&JudgePrompt> {
        self.prompts.get(part.index())
    }

    /// The judge as the outputs name it.
    pub fn info(&self) -> JudgeInfo {
        JudgeInfo {
            model: self.model.name.clone(),
            model_id: self.model.model.clone(),
            endpoint: self.model.base_url.clone(),
            prompts: Part::ALL
                .iter()
                .filter_map(|part| {
                    let p = self.prompt(*part)?;
                    let info = PromptInfo {
                        id: p.id.clone(),
                        version: p.version.clone(),
                        language: code(p.language).into(),
                        source: p.source.clone(),
                    };
                    Some((part.key().to_string(), info))
                })
                .collect(),
            max_repairs: self.max_repairs,
            workers_judge: self.settings.concurrency,
            price_in_per_mtok: self.price.map(|p| p.in_per_mtok),
            price_out_per_mtok: self.price.map(|p| p.out_per_mtok),
        }
    }

    /// The context of a turn: `earlier` are the (user, answer) texts of the
    /// pairs before it.
    pub fn context(
        dialog: &Dialog,
        pair: &TurnPair,
        answer: &str,
        earlier: &[(String, String)],
    ) -> TurnContext {
        let tags = &pair.tags;
        let mut parts = Vec::new();
        if !tags.risk_disclosure_required_gt.is_empty() {
            parts.push(Part::RiskTags);
        }
        if tags.compliance_label_gt.is_some() {
            parts.push(Part::ComplianceLabel);
        }
        if !tags.explainability_rubric_gt.is_empty() {
            parts.extend([Part::RubricHitItems, Part::Score1To5]);
        }
        let lines = earlier
            .iter()
            .flat_map(|(u, a)| [("user", u.as_str()), ("assistant", a.as_str())]);
        TurnContext {
            dialog_id: dialog.dialog_id.clone(),
            question: pair.user_text.clone(),
            answer: answer.to_string(),
            conversation: conversation_text(lines),
            profile: serde_json::to_string_pretty(&dialog.profile_gt).unwrap_or_default(),
            parts,
            rubric: tags.explainability_rubric_gt.clone(),
        }
    }

    /// The first messages of a part's judge call.
    pub fn messages(&self, ctx: &TurnContext, part: Part) -> Result<Vec<ChatMessage>, String> {
        let p = self.scaled(ctx, part)?;
        let mut vars = Map::new();
        vars.insert("question".into(), json!(ctx.question));
        vars.insert("answer".into(), json!(ctx.answer));
        vars.insert("conversation".into(), json!(ctx.conversation));
        vars.insert("profile".into(), json!(ctx.profile));
        vars.insert("criteria".into(), json!(p.criteria));
        vars.insert("rubric".into(), json!(ctx.rubric));
        let names: Vec<Value> = RISK_TAGS
            .iter()
            .map(|(tag, zh)| json!({"tag": tag, "zh": zh}))
            .collect();
        vars.insert("tag_names".into(), Value::Array(names));
        p.render(&Sample::new(ctx.dialog_id.clone(), Map::new()), &vars)
    }

    /// The part's prompt with its tags set (the rubric items of the turn).
    fn scaled(&self, ctx: &TurnContext, part: Part) -> Result<JudgePrompt, String> {
        let p = self
            .prompt(part)
            .ok_or_else(|| format!("no built-in prompt `{}`", part.prompt_id()))?;
        Ok(match part {
            Part::RubricHitItems => p.with_tags(&ctx.rubric),
            _ => p.clone(),
        })
    }

    /// Walks a turn's judge answers (in call order) through its parts.
    pub fn walk(&self, ctx: &TurnContext, answers: &[Answer]) -> TurnProgress {
        let mut done = Vec::new();
        let mut used = 0;
        let mut parts = ctx.parts.iter().copied();
        while let Some(part) = parts.next() {
            let mut pj = PartJudgement::new(part);
            let (prompt, mut conversation) = match self
                .scaled(ctx, part)
                .and_then(|p| Ok((p, self.messages(ctx, part)?)))
            {
                Ok(x) => x,
                Err(e) => {
                    pj.error = Some(format!("the judge prompt could not be rendered: {e}"));
                    done.push(pj);
                    continue;
                }
            };
            loop {
                let Some(a) = answers.get(used) else {
                    return TurnProgress {
                        done,
                        next: Some((pj, conversation)),
                        rest: parts.collect(),
                        consumed: used,
                    };
                };
                used += 1;
                if a.finish_reason.as_deref() == Some(FAILED_CALL) {
                    pj.error = Some(format!("the judge call failed: {}", a.text));
                    break;
                }
                if !take(
                    &prompt,
                    self.max_repairs,
                    &mut pj.attempts,
                    &mut conversation,
                    a,
                ) {
                    break;
                }
            }
            done.push(pj);
        }
        TurnProgress {
            done,
            next: None,
            rest: Vec::new(),
            consumed: used,
        }
    }

    /// The stand-in answer of a judge call that failed for good.
    pub fn failed_call(error: &CallError) -> Answer {
        Answer {
            text: error.message.clone(),
            finish_reason: Some(FAILED_CALL.into()),
            ..Answer::default()
        }
    }
}

/// The scoring seam's view of a turn's part judgements, with every attempt
/// (raw answer, how its verdict was read, tokens) in `detail`.
pub fn turn_judgement(parts: &[PartJudgement], info: &JudgeInfo) -> TurnJudgement {
    let mut j = TurnJudgement::default();
    for p in parts {
        let raw = p.attempts.last().map(|a| a.raw.clone()).unwrap_or_default();
        let value = p.value();
        let judged = |v| JudgedPart {
            value: v,
            raw: raw.clone(),
            error: p.error.clone(),
        };
        match p.part {
            Part::RiskTags => j.risk_tags = Some(judged(value.and_then(tags_of))),
            Part::RubricHitItems => j.rubric_hit_items = Some(judged(value.and_then(tags_of))),
            Part::ComplianceLabel => {
                j.compliance_label = Some(JudgedPart {
                    value: value.and_then(ComplianceLabel::parse),
                    raw: raw.clone(),
                    error: p.error.clone(),
                })
            }
            Part::Score1To5 => {
                j.score_1_5 = Some(JudgedPart {
                    value: value.and_then(|v| v.parse::<f64>().ok()),
                    raw: raw.clone(),
                    error: p.error.clone(),
                })
            }
        }
        let prompt = info.prompts.get(p.part.key());
        let outcome = match (p.value(), &p.error) {
            (Some(_), _) => "scored",
            (None, Some(_)) => "failed",
            (None, None) => "unscored",
        };
        j.detail.insert(
            p.part.key().to_string(),
            json!({
                "prompt": prompt.map(|x| json!({"id": x.id, "version": x.version, "language": x.language})),
                "judge_model": info.model,
                "outcome": outcome,
                "value": p.value(),
                "attempts": p.attempts,
                "repairs": p.attempts.len().saturating_sub(1),
                "error": p.error,
            }),
        );
    }
    j
}

/// The (user, answer) texts of a trace's turns before `turn_pair_id`.
pub fn earlier_of(trace: &DialogTrace, turn_pair_id: usize) -> Vec<(String, String)> {
    trace
        .turns
        .iter()
        .take_while(|t| t.turn_pair_id != turn_pair_id)
        .map(|t| {
            (
                t.user_text.clone(),
                t.pred_assistant_text.clone().unwrap_or_default(),
            )
        })
        .collect()
}

/// Judging a trace produced elsewhere: one job per answered turn of a valid
/// dialog with something to judge, whose calls are the turn's judge calls
/// on one pool, the judge's. The judgements are read back with
/// [`JudgeOnlyKind::judgements`] and scored with the trace.
#[derive(Debug)]
pub struct JudgeOnlyKind {
    judge: DialogJudge,
    /// The scoring run's identity (its scheduling is the judge's pool).
    run: RunIdentity,
    /// Job -> (dialog id, turn pair id, context).
    jobs: Vec<(String, usize, TurnContext)>,
    parts: Vec<Option<Vec<PartJudgement>>>,
}

impl JudgeOnlyKind {
    /// The judge-only jobs of `traces` (matched to `dialogs` by id).
    pub fn new(
        judge: DialogJudge,
        run_id: &str,
        started_at_ms: u64,
        dialogs: &[Dialog],
        traces: &[DialogTrace],
    ) -> JudgeOnlyKind {
        let mut jobs = Vec::new();
        for t in traces.iter().filter(|t| t.valid_dialog) {
            let Some(d) = dialogs
                .iter()
                .find(|d| d.dialog_id == t.dialog_id && d.skip_reason().is_none())
            else {
                continue;
            };
            for p in d.pairs() {
                let Some(turn) = t.turns.iter().find(|x| x.turn_pair_id == p.turn_pair_id) else {
                    continue;
                };
                let (TurnStatus::Ok, Some(answer)) = (turn.turn_status, &turn.pred_assistant_text)
                else {
                    continue;
                };
                let ctx = DialogJudge::context(d, p, answer, &earlier_of(t, p.turn_pair_id));
                if !ctx.parts.is_empty() {
                    jobs.push((d.dialog_id.clone(), p.turn_pair_id, ctx));
                }
            }
        }
        JudgeOnlyKind {
            parts: vec![None; jobs.len()],
            run: RunIdentity {
                run_id: run_id.to_string(),
                tool: "evalpage".into(),
                started_at_ms,
                settings: judge.settings,
                ..RunIdentity::default()
            },
            judge,
            jobs,
        }
    }

    /// The judge.
    pub fn judge(&self) -> &DialogJudge {
        &self.judge
    }

    /// The verdicts of the settled jobs, by dialog and turn.
    pub fn judgements(&self) -> Judgements {
        let info = self.judge.info();
        let mut out = Judgements::new();
        for ((dialog, pair, _), parts) in self.jobs.iter().zip(&self.parts) {
            if let Some(parts) = parts {
                out.entry(dialog.clone())
                    .or_default()
                    .insert(*pair, turn_judgement(parts, &info));
            }
        }
        out
    }
}

impl Kind for JudgeOnlyKind {
    type Record = Record;

    fn identity(&self) -> &RunIdentity {
        &self.run
    }

    fn jobs(&self) -> usize {
        self.jobs.len()
    }

    fn pools(&self) -> Vec<RunSettings> {
        vec![self.judge.settings]
    }

    fn call(&self, job: usize, answers: &[Answer]) -> Result<Option<Call>, CallError> {
        let Some((_, _, ctx)) = self.jobs.get(job) else {
            return Ok(None);
        };
        Ok(self
            .judge
            .walk(ctx, answers)
            .next
            .map(|(_, m)| Call::chat(0, m)))
    }

    fn carry_on(&self, job: usize, answers: &[Answer], error: &CallError) -> Option<Answer> {
        let _ = (job, answers);
        Some(DialogJudge::failed_call(error))
    }

    fn settle(&mut self, job: usize, outcome: JobOutcome, _now_ms: u64) -> Vec<Record> {
        let Some((_, _, ctx)) = self.jobs.get(job) else {
            return Vec::new();
        };
        let error = outcome.error.as_ref().map(|e| e.message.clone());
        let parts = self
            .judge
            .walk(ctx, &outcome.answers)
            .finish(error.as_deref());
        self.parts[job] = Some(parts);
        Vec::new()
    }

    fn restored(&self, _job: usize, _now_ms: u64) -> Option<Record> {
        None
    }

    fn meta(&self, now_ms: u64) -> Record {
        Record::Meta(MetaRecord {
            model: Some(self.judge.model.name.clone()),
            endpoint: self.judge.model.base_url.clone(),
            ..MetaRecord::of(None, &self.run, "", "judge", self.jobs.len(), now_ms)
        })
    }

    fn summary(&self, cancelled: bool, now_ms: u64) -> Record {
        let metrics = crate::events::SummaryMetrics {
            cases_total: self.parts.iter().flatten().count(),
            ..crate::events::SummaryMetrics::default()
        };
        Record::Summary(SummaryRecord::of(&self.run, metrics, cancelled, now_ms))
    }

    fn mock_answer(&self, _job: usize, messages: &[ChatMessage]) -> Answer {
        Answer::from(crate::judge::mock::reply(messages, 0).unwrap_or_default())
    }
}

/// A trace's judging: the one [`Pipeline`] over [`JudgeOnlyKind`].
pub type JudgeOnlyEngine = Pipeline<JudgeOnlyKind>;
