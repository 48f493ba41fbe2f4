//! Synthetic samples for the scoring-throughput benchmark (issue 3): a task
//! whose metrics cover every type in [`metric::REGISTRY`] that is computed
//! on text (not `llm_judge`, whose score is a judge model's verdict, nor the
//! tool-call types, timed over BFCL's answers instead), deterministic
//! samples with realistic field sizes, model answers for them, and the scoring
//! rounds the native binary (`evalpage-score-bench`) and the Wasm bench
//! (`tests/wasm_bench.rs`) time.
//!
//! Everything is pure and seeded (splitmix64, no OS randomness), so the same
//! `(n, seed)` gives the same samples, answers and checksum on every platform.
//!
//! A sample holds labels for every metric: a few sentences of English or
//! Chinese (alternating) as the ROUGE reference, 5-10 keywords, a sentiment, an
//! impact score, 2-5 evidence ids, RAG keypoints and a document hint. The
//! answer is the JSON object the task's schema reads (sentiment, impact score,
//! confidence, keywords, summary, claims with evidence ids, steps, conclusion,
//! final answer), perturbed against the labels, and wrapped the ways models
//! wrap JSON: bare, in a code fence, or between prose; a few answers miss a
//! field, go out of range, or are not JSON at all.
//!
//! A round ([`score_round`]) reads every answer against the schema, scores
//! every metric of the task, and aggregates each metric per chunk of
//! [`CHUNK`] samples (so memory stays flat at 100,000 samples in the browser;
//! the work is the same as aggregating once). Its checksum, the sum of every
//! value and aggregate mean, keeps the work from being optimized away.

use crate::dataset::sample::Sample;
use crate::metric::{self, SampleScore, ScoreInput};
use crate::task::contract::Task;
use serde_json::{json, Value};

/// Samples aggregated together in a round.
pub const CHUNK: usize = 1000;

/// The schema and ground of the synthetic task; the metrics are appended by
/// [`task_yaml`].
const TASK_HEAD: &str = "name: synthetic_throughput
version: v1
prompt_template: ie_json
default_params:
  response_format:
    type: json_object
  temperature: 0
serialize_fields:
  - text
parse_schema:
  - field: sentiment
    type: enum
    values: [positive, neutral, negative]
    default: neutral
  - field: impact_score
    type: int
    default: 0
    lo: -5
    hi: 5
  - field: confidence
    type: float
    default: 0.5
    lo: 0
    hi: 1
  - field: keywords
    type: list
    default: []
  - field: summary
    type: str
    default: ''
  - field: claims
    type: list_raw
    default: []
  - field: steps
    type: list
    default: []
  - field: conclusion
    type: str
    default: ''
  - field: final_answer
    type: str
    default: ''
metrics:
";

/// The metric entry (YAML list item) exercising one metric type, or `None`
/// for a type this module does not know yet (the unit test catches that).
pub fn metric_entry(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "field_completeness" => "  - type: field_completeness\n",
        "reference_rouge" => {
            "  - type: reference_rouge\n    pred_field: summary\n    label_field: gt_summary\n    rouge_type: rougeL\n"
        }
        "custom_ratio" => {
            "  - type: custom_ratio\n    numerator_field: keywords\n    denominator_field: gt_keywords\n"
        }
        "exact_match" => {
            "  - type: exact_match\n    pred_field: sentiment\n    label_field: gt_sentiment\n"
        }
        "numeric_error" => {
            "  - type: numeric_error\n    pred_field: impact_score\n    label_field: gt_impact_score\n    tolerance: 1\n"
        }
        "list_overlap" => {
            "  - type: list_overlap\n    pred_field: keywords\n    label_field: gt_keywords\n"
        }
        "reasoning_consistency" => "  - type: reasoning_consistency\n",
        "claim_evidence_overlap" => {
            "  - type: claim_evidence_overlap\n    pred_field: claims\n    label_field: gt_evidence\n"
        }
        "keyword_coverage" => {
            "  - type: keyword_coverage\n    pred_field: summary\n    label_field: metadata.keywords\n"
        }
        "rag_accuracy" => {
            "  - type: rag_accuracy\n    pred_field: summary\n    label_field: gold\n    match_mode: fuzzy\n    fuzzy_threshold: 0.6\n"
        }
        "rag_citation" => {
            "  - type: rag_citation\n    pred_field: summary\n    label_field: doc_hint\n"
        }
        "token_f1" => "  - type: token_f1\n    pred_field: summary\n    label_field: gold\n",
        _ => return None,
    })
}

/// The task YAML with one metric per type in `kinds` (unknown types skipped).
pub fn task_yaml_for(kinds: &[&str]) -> String {
    let mut yaml = TASK_HEAD.to_string();
    for entry in kinds.iter().filter_map(|k| metric_entry(k)) {
        yaml.push_str(entry);
    }
    yaml
}

/// The task of [`task_yaml_for`]; `None` when it does not validate (no known
/// type in `kinds`).
pub fn task_for(kinds: &[&str]) -> Option<Task> {
    Task::parse("synthetic.yaml", &task_yaml_for(kinds)).ok()
}

/// The task with every computed metric type.
pub fn task() -> Task {
    task_for(&metric_types()).expect("the synthetic task is valid: its YAML is tested")
}

/// Samples and one model answer per sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SyntheticSet {
    /// The samples, ids `B1`, `B2`, ...
    pub samples: Vec<Sample>,
    /// The raw model answer of each sample (same index).
    pub answers: Vec<String>,
}

/// splitmix64: a small, fast, seedable generator with good statistics.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p_percent` / 100.
    fn chance(&mut self, p_percent: usize) -> bool {
        self.below(100) < p_percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const EN_WORDS: &[&str] = &[
    "the",
    "company",
    "reported",
    "quarterly",
    "revenue",
    "growth",
    "of",
    "percent",
    "driven",
    "by",
    "strong",
    "demand",
    "for",
    "cloud",
    "services",
    "and",
    "new",
    "devices",
    "while",
    "margins",
    "narrowed",
    "because",
    "costs",
    "rose",
    "in",
    "its",
    "hardware",
    "division",
    "analysts",
    "expect",
    "guidance",
    "to",
    "remain",
    "cautious",
    "after",
    "regulators",
    "opened",
    "an",
    "inquiry",
    "into",
    "pricing",
    "practices",
    "across",
    "european",
    "markets",
    "shares",
    "fell",
    "early",
    "trading",
    "but",
    "recovered",
    "later",
    "management",
    "said",
    "buyback",
    "program",
    "would",
    "continue",
    "next",
    "year",
    "supply",
    "chain",
    "constraints",
    "eased",
];

const ZH_WORDS: &[&str] = &[
    "公司",
    "发布",
    "季度",
    "营收",
    "增长",
    "百分之",
    "主要",
    "来自",
    "云服务",
    "需求",
    "强劲",
    "同时",
    "毛利率",
    "下降",
    "成本",
    "上升",
    "硬件",
    "部门",
    "分析师",
    "预计",
    "指引",
    "保持",
    "谨慎",
    "监管",
    "机构",
    "启动",
    "调查",
    "定价",
    "欧洲",
    "市场",
    "股价",
    "早盘",
    "下跌",
    "随后",
    "回升",
    "管理层",
    "表示",
    "回购",
    "计划",
    "继续",
    "明年",
    "供应链",
    "压力",
    "缓解",
];

const KEYWORDS: &[&str] = &[
    "earnings",
    "revenue",
    "cloud",
    "guidance",
    "margins",
    "buyback",
    "regulation",
    "pricing",
    "supply chain",
    "hardware",
    "demand",
    "dividend",
    "merger",
    "lawsuit",
    "ai",
    "chips",
    "营收",
    "云服务",
    "监管",
    "回购",
    "供应链",
    "毛利率",
    "分析师",
    "指引",
    "欧洲市场",
    "股价",
];

const SENTIMENTS: &[&str] = &["positive", "neutral", "negative"];

/// One English or Chinese sentence.
fn sentence(rng: &mut Rng, chinese: bool) -> String {
    if chinese {
        let n = rng.range(8, 15);
        let mut s = String::new();
        for i in 0..n {
            s.push_str(rng.pick(ZH_WORDS));
            if i == n / 2 {
                s.push('，');
            }
        }
        s.push('。');
        s
    } else {
        let n = rng.range(10, 18);
        let words: Vec<&str> = (0..n).map(|_| rng.pick(EN_WORDS)).collect();
        let mut s = words.join(" ");
        if let Some(first) = s.get(..1) {
            s = first.to_uppercase() + &s[1..];
        }
        s.push('.');
        s
    }
}

/// A paraphrase of `text`: about one word in five replaced, words kept as
/// split by spaces (English) or characters (Chinese).
fn paraphrase(rng: &mut Rng, text: &str, chinese: bool) -> String {
    if chinese {
        text.chars()
            .map(|c| {
                if c != '，' && c != '。' && rng.chance(20) {
                    rng.pick(ZH_WORDS).to_string()
                } else {
                    c.to_string()
                }
            })
            .collect()
    } else {
        text.split(' ')
            .map(|w| {
                if rng.chance(20) {
                    rng.pick(EN_WORDS)
                } else {
                    w
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `k` distinct items of `pool` (k <= pool.len()).
fn distinct<'a>(rng: &mut Rng, pool: &[&'a str], k: usize) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::with_capacity(k);
    while out.len() < k {
        let item = rng.pick(pool);
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// One sample and its answer.
fn one(rng: &mut Rng, i: usize) -> (Sample, String) {
    let chinese = i % 2 == 1;
    let sentences: Vec<String> = (0..rng.range(3, 5))
        .map(|_| sentence(rng, chinese))
        .collect();
    let sep = if chinese { "" } else { " " };
    let reference = sentences.join(sep);
    let n_keywords = rng.range(5, 10);
    let keywords = distinct(rng, KEYWORDS, n_keywords);
    let sentiment = rng.pick(SENTIMENTS);
    let impact = rng.range(0, 10) as i64 - 5;
    let evidence: Vec<String> = (0..rng.range(2, 5))
        .map(|_| format!("d{}", rng.below(20)))
        .collect();
    let doc = format!("doc_{}.md", rng.below(8));
    // Keypoints: the first words of two sentences.
    let gold: Vec<String> = sentences
        .iter()
        .take(2)
        .map(|s| {
            if chinese {
                s.chars().take(6).collect()
            } else {
                s.split(' ').take(4).collect::<Vec<_>>().join(" ")
            }
        })
        .collect();
    let fields = json!({
        "sample_id": format!("B{}", i + 1),
        "text": sentences.iter().map(|s| paraphrase(rng, s, chinese)).collect::<Vec<_>>().join(sep),
        "gt_sentiment": sentiment,
        "gt_impact_score": impact,
        "gt_keywords": keywords,
        "gt_summary": reference,
        "gt_evidence": evidence,
        "gold": gold,
        "doc_hint": [doc],
        "metadata": {"language": if chinese { "zh" } else { "en" }, "keywords": keywords},
    });
    let Value::Object(fields) = fields else {
        unreachable!("json! of an object literal is an object")
    };
    let sample = Sample::new(format!("B{}", i + 1), fields);
    (
        sample,
        answer(
            rng, chinese, &sentences, &keywords, sentiment, impact, &evidence, &doc,
        ),
    )
}

/// The model's answer to one sample, perturbed against its labels.
#[allow(clippy::too_many_arguments)]
fn answer(
    rng: &mut Rng,
    chinese: bool,
    sentences: &[String],
    keywords: &[&str],
    sentiment: &str,
    impact: i64,
    evidence: &[String],
    doc: &str,
) -> String {
    if rng.chance(1) {
        return "I am sorry, I cannot analyse this news item.".to_string();
    }
    let sep = if chinese { "" } else { " " };
    let mut summary_parts: Vec<String> = Vec::with_capacity(sentences.len() + 1);
    for s in sentences {
        if rng.chance(85) {
            summary_parts.push(paraphrase(rng, s, chinese));
        }
    }
    let cited = if rng.chance(80) {
        doc.to_string()
    } else {
        format!("doc_{}.md", rng.below(8))
    };
    summary_parts.push(if chinese {
        format!("来源：{cited}")
    } else {
        format!("Source: {cited}.")
    });
    let summary = summary_parts.join(sep);
    let mut kws: Vec<&str> = keywords
        .iter()
        .copied()
        .filter(|_| rng.chance(70))
        .collect();
    let extra = rng.range(0, 3);
    kws.extend(distinct(rng, KEYWORDS, extra));
    let predicted_sentiment = if rng.chance(75) {
        sentiment
    } else {
        rng.pick(SENTIMENTS)
    };
    let predicted_impact = match rng.below(10) {
        0 => impact * 3,
        1..=3 => impact + rng.range(0, 4) as i64 - 2,
        _ => impact,
    };
    let claims: Vec<Value> = (0..rng.range(2, 4))
        .map(|c| {
            let ids: Vec<String> = (0..rng.range(1, 3))
                .map(|_| match evidence.get(rng.below(evidence.len() + 2)) {
                    Some(id) => id.clone(),
                    None => format!("d{}", rng.below(20)),
                })
                .collect();
            json!({"text": sentences[c % sentences.len()], "evidence": ids})
        })
        .collect();
    let total = rng.range(10, 500);
    let steps: Vec<String> = (0..rng.range(3, 5))
        .map(|s| {
            if chinese {
                format!("第{}步：{}", s + 1, sentences[s % sentences.len()])
            } else {
                format!("Step {}: {}", s + 1, sentences[s % sentences.len()])
            }
        })
        .collect();
    let (conclusion, final_answer) = if rng.chance(50) {
        let said = if rng.chance(85) { total } else { total + 1 };
        (
            if chinese {
                format!("综上，受影响的合同共 {total} 份。")
            } else {
                format!("So the number of affected contracts is {total}.")
            },
            said.to_string(),
        )
    } else {
        let said = if rng.chance(85) {
            predicted_sentiment
        } else {
            rng.pick(SENTIMENTS)
        };
        (
            format!("Overall the news is {predicted_sentiment} for the company."),
            said.to_string(),
        )
    };
    let mut obj = json!({
        "sentiment": predicted_sentiment,
        "impact_score": predicted_impact,
        "confidence": rng.below(101) as f64 / 100.0,
        "keywords": kws,
        "summary": summary,
        "claims": claims,
        "steps": steps,
        "conclusion": conclusion,
        "final_answer": final_answer,
    });
    if rng.chance(5) {
        if let Value::Object(m) = &mut obj {
            let keys: Vec<String> = m.keys().cloned().collect();
            m.remove(&keys[rng.below(keys.len())]);
        }
    }
    let body = if rng.chance(50) {
        serde_json::to_string_pretty(&obj)
    } else {
        serde_json::to_string(&obj)
    }
    .expect("a json! value serializes");
    match rng.below(3) {
        0 => body,
        1 => format!("```json\n{body}\n```"),
        _ => format!("Here is my analysis of the news.\n\n{body}\n\nLet me know if you need more."),
    }
}

/// A resumable stream of samples: batches of it concatenate to
/// [`generate`]'s set (the browser bench generates and scores in batches so it
/// never blocks the page for long).
#[derive(Clone, Debug)]
pub struct Generator {
    rng: Rng,
    next: usize,
}

impl Generator {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng(seed),
            next: 0,
        }
    }

    /// The next `n` samples and answers.
    pub fn batch(&mut self, n: usize) -> SyntheticSet {
        let start = self.next;
        self.next += n;
        let (samples, answers) = (start..start + n).map(|i| one(&mut self.rng, i)).unzip();
        SyntheticSet { samples, answers }
    }
}

/// `n` samples and answers from `seed`.
pub fn generate(n: usize, seed: u64) -> SyntheticSet {
    Generator::new(seed).batch(n)
}

/// Reads every answer against the task's schema, scores every metric of the
/// task per sample, and aggregates each metric per [`CHUNK`] samples.
/// Returns the samples scored and the checksum (sum of every value and of
/// every aggregate mean).
pub fn score_round(task: &Task, set: &SyntheticSet) -> (usize, f64) {
    let mut checksum = 0.0;
    let mut scored = 0;
    let mut per_metric: Vec<Vec<SampleScore>> = vec![Vec::with_capacity(CHUNK); task.metrics.len()];
    let pairs = set.samples.iter().zip(&set.answers);
    for (k, (sample, raw)) in pairs.enumerate() {
        let answer = task.parse_answer(raw);
        let input = ScoreInput {
            sample,
            answer: &answer,
        };
        for (m, scores) in task.metrics.iter().zip(per_metric.iter_mut()) {
            let s = m.metric.score(&input);
            checksum += s.value.unwrap_or(0.0);
            scores.push(s);
        }
        scored += 1;
        if (k + 1) % CHUNK == 0 || k + 1 == set.samples.len().min(set.answers.len()) {
            for (m, scores) in task.metrics.iter().zip(per_metric.iter_mut()) {
                checksum += m.metric.aggregate(scores).mean;
                scores.clear();
            }
        }
    }
    (scored, checksum)
}

/// Reads every answer against the task's schema without scoring (the share
/// of a round every metric pays). Returns the answers read and a checksum
/// (parsed fields).
pub fn parse_round(task: &Task, set: &SyntheticSet) -> (usize, f64) {
    let mut parsed = 0.0;
    for raw in &set.answers {
        let answer = task.parse_answer(raw);
        parsed += answer.fields.len() as f64;
    }
    (set.answers.len(), parsed)
}

/// One report line: `native  reference_rouge  100000 samples  0.84 s  119,047 samples/s`.
pub fn report_line(place: &str, label: &str, samples: usize, seconds: f64) -> String {
    let rate = if seconds > 0.0 {
        (samples as f64 / seconds).round() as u64
    } else {
        0
    };
    format!(
        "{place:<7} {label:<24} {samples} samples  {seconds:.2} s  {} samples/s",
        thousands(rate)
    )
}

/// `1234567` -> `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Metric types scored by a judge model's calls, not computed: no round.
pub const JUDGED_TYPES: [&str; 1] = ["llm_judge"];

/// Metric types of agents' answers (function calls, the world's state): the
/// synthetic answers are text, so the call types are timed by
/// `evalpage-toolcall-bench` over the BFCL and trajectory parity fixtures
/// instead (bench/toolcall_throughput.sh), and `final_state` (a walk of two
/// small JSON values per case) is not timed.
pub const CALL_TYPES: [&str; 4] = [
    "tool_call",
    "tool_call_f1",
    "trajectory_match",
    "final_state",
];

/// Every computed task metric type's name (the per-type rounds).
pub fn metric_types() -> Vec<&'static str> {
    metric::of_kind(crate::RunKind::Task)
        .map(|t| t.name)
        .filter(|n| !JUDGED_TYPES.contains(n) && !CALL_TYPES.contains(n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_type_is_covered_and_the_task_is_valid() {
        for name in metric_types() {
            assert!(metric_entry(name).is_some(), "{name} has no entry");
            let task = task_for(&[name]).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(task.metrics.len(), 1);
        }
        assert_eq!(
            task().metrics.len() + JUDGED_TYPES.len() + CALL_TYPES.len(),
            metric::of_kind(crate::RunKind::Task).count()
        );
        assert!(task_for(&["nope"]).is_none());
    }

    #[test]
    fn small_rounds_are_deterministic_and_every_metric_scores() {
        assert_eq!(generate(50, 7), generate(50, 7));
        assert_ne!(generate(5, 7), generate(5, 8));
        let mut g = Generator::new(7);
        let (a, b) = (g.batch(20), g.batch(30));
        let whole = generate(50, 7);
        assert_eq!(
            (&whole.samples[..20], &whole.samples[20..]),
            (&a.samples[..], &b.samples[..])
        );
        assert_eq!(whole.answers[20..], b.answers[..]);
        let a = score_round(&task(), &generate(50, 7));
        assert_eq!(a.0, 50);
        assert_eq!(a, score_round(&task(), &generate(50, 7)));
        let task = task();
        let set = generate(50, 7);
        for m in &task.metrics {
            let values: Vec<f64> = set
                .samples
                .iter()
                .zip(&set.answers)
                .filter_map(|(s, raw)| {
                    let answer = task.parse_answer(raw);
                    m.metric
                        .score(&ScoreInput {
                            sample: s,
                            answer: &answer,
                        })
                        .value
                })
                .collect();
            assert!(!values.is_empty(), "{} produced no value", m.kind);
        }
        // Each per-type round scores every sample; their checksums add up to
        // the all-metrics one (same values, same chunked aggregates).
        let sum: f64 = metric_types()
            .iter()
            .map(|k| score_round(&task_for(&[k]).expect("valid"), &set).1)
            .sum();
        assert!((sum - score_round(&task, &set).1).abs() < 1e-6);
        assert_eq!(parse_round(&task, &set).0, 50);
    }

    #[test]
    fn report_lines_read_well() {
        assert_eq!(
            report_line("native", "reference_rouge", 100_000, 0.84),
            "native  reference_rouge          100000 samples  0.84 s  119,048 samples/s"
        );
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
    }
}
