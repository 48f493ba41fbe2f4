//! Spec 003 §3: every report.md holds the experiment, the overall metrics, a
//! breakdown (by tag, language or length) and the error cases. The RAG check
//! (demo provider), a retrieval run (the offline retriever) and a task run
//! (the mock model) over their demo data, in both languages: each has the
//! four sections, the breakdown by length among them, in that order.

mod common;

use common::*;
use std::path::{Path, PathBuf};

fn demo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../www/demo")
        .join(name)
}

/// The four sections' titles, in order, in each language.
const SECTIONS: [(&str, [&str; 4]); 2] = [
    (
        "en",
        [
            "# Experiment\n",
            "\n## Overall Metrics\n",
            "\n## Breakdown by length\n",
            "\n## Error Cases\n",
        ],
    ),
    (
        "zh",
        [
            "# 实验\n",
            "\n## 整体指标\n",
            "\n## 按长度分解\n",
            "\n## 错误用例\n",
        ],
    ),
];

fn assert_sections(out: &Path, report: &str, lang: &str, titles: &[&str; 4]) {
    let md = std::fs::read_to_string(out.join(report))
        .unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let mut at = 0;
    for t in titles {
        match md[at..].find(t) {
            Some(i) => at += i + t.len(),
            None => panic!("{lang}: `{}` missing or out of order in:\n{md}", t.trim()),
        }
    }
}

#[test]
fn every_kind_writes_the_four_sections_with_a_breakdown_by_length() {
    let s = Scratch::new("sections");
    let rag = demo("demo_dataset.jsonl");
    let retrieval = demo("demo_retrieval.jsonl");
    // the task's demo samples without tags or language: length is what is left
    let task = s.write(
        "task.jsonl",
        concat!(
            "{\"sample_id\":\"S1\",\"ticker\":\"AAPL\",\"news_items\":[{\"title\":\"Apple beats estimates\"}],\"gt_sentiment\":\"positive\",\"gt_impact_score\":2,\"gt_keywords\":[\"earnings\"]}\n",
            "{\"sample_id\":\"S2\",\"ticker\":\"TSLA\",\"news_items\":[],\"gt_sentiment\":\"neutral\",\"gt_impact_score\":0,\"gt_keywords\":[]}\n",
        ),
    );
    for (lang, titles) in SECTIONS {
        let kinds: [(&str, Vec<&str>, &str); 3] = [
            (
                "rag",
                vec![
                    "--provider",
                    "demo",
                    "--dataset",
                    rag.to_str().unwrap_or_default(),
                ],
                "report.md",
            ),
            (
                "retrieval",
                vec![
                    "--retrieval",
                    "--dataset",
                    retrieval.to_str().unwrap_or_default(),
                ],
                "report.md",
            ),
            (
                "task",
                vec![
                    "--task",
                    "event_eval",
                    "--mock",
                    "--dataset",
                    task.to_str().unwrap_or_default(),
                ],
                "report.md",
            ),
        ];
        for (kind, args, report) in kinds {
            let out = s.join(&format!("{kind}-{lang}"));
            let mut all = args.clone();
            all.extend(["--lang", lang, "--out", out.to_str().unwrap_or_default()]);
            assert_ok(&run(&all));
            assert_sections(&out, report, lang, &titles);
        }
    }
}
