//! `evalpage compare` and `evalpage report` end to end, on runs made by the
//! CLI itself: mock task runs (`run --task event_eval --mock`), answers scored
//! from files (`score`) built so that one drop is significant, the RAG demo
//! run and the offline retrieval demo run.

mod common;

use common::{assert_ok, evalpage, finish, read_json, run, run_demo, texts, Mock, Scratch};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

fn event_dataset() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/tasks/event_eval.jsonl")
}

/// `evalpage run --task event_eval --mock --models MODELS` into `out`.
fn mock_run(models: &str, out: &Path) {
    let mut cmd = evalpage();
    cmd.args(["run", "--task", "event_eval", "--mock", "--models", models])
        .arg("--dataset")
        .arg(event_dataset())
        .arg("--out")
        .arg(out);
    assert_ok(&finish(cmd));
}

fn compare(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("compare").args(args);
    finish(cmd)
}

fn report(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("report").args(args);
    finish(cmd)
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

const SENTIMENTS: [&str; 3] = ["positive", "neutral", "negative"];

/// 60 event_eval samples, and two answer files scored with `evalpage score`:
/// base answers every sample right; new gets the sentiment of the first 12
/// wrong (12 regressions, no improvement: McNemar p = 2/2^12) and names 2 of
/// the 3 keywords on samples 12 to 35.
fn scored_pair(dir: &Scratch) -> (PathBuf, PathBuf) {
    let mut data = String::new();
    let (mut base, mut new) = (String::new(), String::new());
    for i in 0..60 {
        let id = format!("E{i:03}");
        let sentiment = SENTIMENTS[i % 3];
        let keywords = ["alpha", "beta", "gamma"];
        data.push_str(
            &json!({
                "sample_id": id, "ticker": "ACME",
                "news_items": [{"title": format!("ACME news number {i}")}],
                "gt_sentiment": sentiment, "gt_impact_score": 1,
                "gt_keywords": keywords, "tags": ["t"], "language": "en",
            })
            .to_string(),
        );
        data.push('\n');
        let answer = |s: &str, k: &[&str]| {
            let response = json!({"sentiment": s, "impact_score": 1, "keywords": k}).to_string();
            json!({"sample_id": id, "response": response}).to_string() + "\n"
        };
        base.push_str(&answer(sentiment, &keywords));
        let s = if i < 12 {
            SENTIMENTS[(i + 1) % 3]
        } else {
            sentiment
        };
        let k: &[&str] = if (12..36).contains(&i) {
            &keywords[..2]
        } else {
            &keywords
        };
        new.push_str(&answer(s, k));
    }
    let ds = dir.write("events.jsonl", &data);
    let mut outs = Vec::new();
    for (name, answers) in [("base", base), ("new", new)] {
        let responses = dir.write(&format!("{name}.responses.jsonl"), &answers);
        let out = dir.join(name);
        let mut cmd = evalpage();
        cmd.args(["score", "--task", "event_eval", "--dataset", p(&ds)])
            .args(["--responses", p(&responses), "--out", p(&out)]);
        assert_ok(&finish(cmd));
        outs.push(out);
    }
    let new = outs.pop().expect("new");
    let base = outs.pop().expect("base");
    (base, new)
}

#[test]
fn two_mock_runs_compare_as_a_table_with_json_and_exit_0() {
    let dir = Scratch::new("cmp-mock");
    let (a, b, ab) = (dir.join("a"), dir.join("b"), dir.join("ab"));
    mock_run("mock-a", &a);
    mock_run("mock-b", &b);
    mock_run("mock-a,mock-b", &ab);
    let json_out = dir.join("cmp.json");
    let out = compare(&[
        p(&a),
        p(&b.join("report.json")),
        "--fail-if-drop",
        "sentiment_acc=0.1",
        "--json",
        p(&json_out),
    ]);
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(stdout.contains("paired by sample_id"), "{stdout}");
    assert!(
        stdout.contains(
            "metric         n  base    new     delta    95% CI              McNemar p  verdict"
        ),
        "{stdout}"
    );
    // mock-a is right on 7 of 8 sentiments, mock-b on 5: two regressions, no
    // improvement, so McNemar's exact p = 2 · 2^-2 = 0.5.
    assert!(
        stdout.contains("sentiment_acc  8  0.8750  0.6250  -0.2500  [-0.6250, +0.0000]  0.5000     not significant, gate ok"),
        "{stdout}"
    );
    assert!(
        stdout.contains("regressions: 3 case score(s); improvements: 2"),
        "{stdout}"
    );
    assert!(stdout.contains("  sentiment_acc  S002  1 -> 0"), "{stdout}");
    assert!(
        stdout.contains("gate ok   sentiment_acc: drop 0.2500 > allowed 0.1 but not significant: McNemar exact p = 0.5000 ≥ 0.05 (b = 2 regressions, c = 0 improvements)"),
        "{stdout}"
    );
    let doc = read_json(&json_out);
    let rows = &doc["comparison"]["rows"];
    assert_eq!(rows[0]["metric"], "sentiment_acc");
    assert_eq!(rows[0]["mcnemar"], json!({"b": 2, "c": 0, "p": 0.5}));
    assert_eq!(rows[2]["mcnemar"], Value::Null, "keyword is not 0/1");
    assert_eq!(doc["comparison"]["resamples"], 10_000);
    assert_eq!(doc["comparison"]["seed"], 12);
    assert_eq!(doc["gate"][0]["outcome"], "not_significant");
    assert_eq!(
        doc["comparison"]["regressions"].as_array().map(Vec::len),
        Some(3)
    );

    // The same seed gives the same intervals; two models of one run compare
    // like the two runs of one model each.
    let json2 = dir.join("models.json");
    let out = compare(&[p(&ab), "--models", "mock-a,mock-b", "--json", p(&json2)]);
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(
        stdout.contains("model mock-a against model mock-b"),
        "{stdout}"
    );
    assert_eq!(read_json(&json2)["comparison"]["rows"], *rows);

    // Runs of several models pair by model name; with none in common, the
    // output says how to pick one model of each.
    let cd = dir.join("cd");
    mock_run("mock-c,mock-d", &cd);
    let out = compare(&[p(&ab), p(&cd)]);
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(stdout.contains("paired by model and sample_id"), "{stdout}");
    assert!(stdout.contains("mock-a  sentiment_acc  0  -"), "{stdout}");
    assert!(
        stdout.contains(
            "no model is named in both reports: compare one model of each with --models A,B"
        ),
        "{stdout}"
    );
    let out = compare(&[p(&ab), p(&cd), "--models", "mock-b,mock-c"]);
    assert_ok(&out);
    assert!(texts(&out).0.contains("model mock-b against model mock-c"));
}

#[test]
fn a_significant_drop_larger_than_allowed_exits_1_with_the_reason() {
    let dir = Scratch::new("cmp-gate");
    let (base, new) = scored_pair(&dir);
    let json_out = dir.join("gate.json");
    let out = compare(&[
        p(&base),
        p(&new),
        "--fail-if-drop",
        "sentiment_acc=0.05",
        "--fail-if-drop",
        "keyword=0.01",
        "--fail-if-drop",
        "impact=0",
        "--json",
        p(&json_out),
    ]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    // 12 regressions of 60: drop 0.2, p = 2/4096 = 0.000488.
    assert!(
        stdout.contains("gate FAIL sentiment_acc: drop 0.2000 > allowed 0.05 and significant: McNemar exact p = 4.9e-4 < 0.05 (b = 12 regressions, c = 0 improvements)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("gate FAIL keyword: drop 0.0800 > allowed 0.01 and significant: paired 95% bootstrap interval of the change"),
        "{stdout}"
    );
    assert!(stdout.contains("excludes 0"), "{stdout}");
    assert!(
        stdout.contains("gate ok   impact: drop 0.0000 within the allowed 0"),
        "{stdout}"
    );
    assert!(
        stderr.contains("the regression gate failed: 2 rule check(s)"),
        "{stderr}"
    );
    let doc = read_json(&json_out);
    let outcomes: Vec<&str> = doc["gate"]
        .as_array()
        .expect("gate")
        .iter()
        .filter_map(|v| v["outcome"].as_str())
        .collect();
    assert_eq!(outcomes, vec!["fail", "fail", "within"]);

    // Within the allowance (the drop is exactly 0.2), or at a level the
    // evidence does not reach: exit 0.
    assert_ok(&compare(&[
        p(&base),
        p(&new),
        "--fail-if-drop",
        "sentiment_acc=0.2",
    ]));
    let out = compare(&[
        p(&base),
        p(&new),
        "--fail-if-drop",
        "sentiment_acc=0.05",
        "--alpha",
        "0.0001",
    ]);
    assert_ok(&out);
    let (stdout, _) = texts(&out);
    assert!(stdout.contains("99.99% CI"), "{stdout}");
    assert!(
        stdout.contains("but not significant: McNemar exact p = 4.9e-4 ≥ 0.0001"),
        "{stdout}"
    );
}

#[test]
fn several_new_runs_are_each_compared_with_the_base_and_any_failing_run_fails_the_gate() {
    let dir = Scratch::new("cmp-many");
    let (base, new) = scored_pair(&dir);
    let json_out = dir.join("many.json");
    // BASE against itself (no change) and against the dropping run.
    let out = compare(&[
        p(&base),
        p(&base),
        p(&new),
        "--fail-if-drop",
        "sentiment_acc=0.05",
        "--json",
        p(&json_out),
    ]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("2 runs, each compared with the base on its own"),
        "{stdout}"
    );
    let sections: Vec<&str> = stdout.split("\n== new:  ").skip(1).collect();
    assert_eq!(sections.len(), 2, "{stdout}");
    assert!(sections[0].starts_with(p(&base)), "{}", sections[0]);
    assert!(
        sections[0].contains("gate ok   sentiment_acc"),
        "{}",
        sections[0]
    );
    assert!(sections[1].starts_with(p(&new)), "{}", sections[1]);
    assert!(
        sections[1].contains("gate FAIL sentiment_acc"),
        "{}",
        sections[1]
    );
    assert!(stderr.contains("1 rule check(s)"), "{stderr}");
    let doc = read_json(&json_out);
    let runs = doc["comparisons"].as_array().expect("comparisons");
    assert_eq!(runs.len(), 2);
    assert_eq!(
        runs[1]["new"],
        json!(p(&new.join("report.json"))),
        "the report read"
    );
    assert_eq!(runs[1]["gate"][0]["outcome"], json!("fail"));
    assert_eq!(runs[0]["gate"][0]["outcome"], json!("within"));

    // The same drop compared alone gives the same table as its section above.
    let alone = compare(&[p(&base), p(&new), "--fail-if-drop", "sentiment_acc=0.05"]);
    let (alone_out, _) = texts(&alone);
    let table = |t: &str| {
        t.lines()
            .filter(|l| l.starts_with("sentiment_acc") || l.starts_with("keyword"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(table(sections[1]), table(&alone_out));
    assert!(!table(&alone_out).is_empty(), "{alone_out}");

    // A missing NEW among several: exit 2 naming it, nothing compared.
    let missing = dir.join("nope");
    let out = compare(&[p(&base), p(&new), p(&missing)]);
    let (stdout, stderr) = texts(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("nope"), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
}

#[test]
fn bad_input_exits_2_with_the_file_and_what_is_wrong() {
    let dir = Scratch::new("cmp-bad");
    let a = dir.join("a");
    mock_run("mock-a", &a);
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let broken = dir.write("broken.json", "{\n  \"metrics\": {\"cases\": 1,, }\n}");
    let missing = dir.join("missing.json");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec![p(&a), p(&missing)],
            format!("cannot use {}: cannot read it", missing.display()),
        ),
        (
            vec![p(&a), p(&empty)],
            "a directory without a report (looked for report.json, eval_rag_report.json, eval_retrieval_report.json;".into(),
        ),
        (
            vec![p(&a), p(&broken)],
            format!(
                "cannot use {}:2:26: not a saved report.json (spec 003 EvaluationResult with metrics, scores and report): key must be a string",
                broken.display()
            ),
        ),
        (
            vec![p(&a), p(&a), "--fail-if-drop", "accuracy=0.1"],
            "--fail-if-drop accuracy: neither report has a metric \"accuracy\" (base has: sentiment_acc, impact, keyword".into(),
        ),
        (
            vec![p(&a), p(&a), "--fail-if-drop", "sentiment_acc"],
            "is not METRIC=DELTA".into(),
        ),
        (
            vec![p(&a), p(&a), "--fail-if-drop", "sentiment_acc=-1"],
            "DELTA must be a number ≥ 0".into(),
        ),
        (
            vec![p(&a), "--models", "mock-a,mock-z"],
            "the new report has no model \"mock-z\" (it has: mock-a)".into(),
        ),
        (vec![p(&a), p(&a), "--alpha", "1.5"], "between 0 and 1".into()),
    ];
    for (args, want) in cases {
        let out = compare(&args);
        let (stdout, stderr) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{stdout}\n{stderr}");
        assert!(
            stderr.contains(&want),
            "{args:?}: want {want:?} in\n{stderr}"
        );
    }
    let out = report(&[p(&broken), "--format", "md", "--out", p(&dir.join("r"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        texts(&out).1.contains("broken.json:2:26"),
        "{}",
        texts(&out).1
    );
}

/// The `## title` section of a Markdown file, up to the next one.
fn section<'a>(md: &'a str, title: &str) -> &'a str {
    let start = md
        .find(&format!("## {title}\n"))
        .unwrap_or_else(|| panic!("no {title} in\n{md}"));
    let rest = &md[start + 3..];
    let end = rest.find("\n## ").map_or(md.len(), |i| start + 3 + i);
    md[start..end].trim_end()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn report_renders_saved_task_rag_and_retrieval_reports_again() {
    let dir = Scratch::new("cmp-report");
    let task = dir.join("task");
    mock_run("mock-a,mock-b", &task);
    let rag = dir.join("rag");
    assert_ok(&run_demo(&common::demo_dataset(), &rag, &[]));
    let retrieval = dir.join("retrieval");
    let mut cmd = evalpage();
    cmd.args(["run", "--retrieval", "--dataset"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_retrieval.jsonl"))
        .arg("--out")
        .arg(&retrieval);
    assert_ok(&finish(cmd));
    // A RAG check whose calls partly fail: its Notes name the failed calls.
    let mock = Mock::start(&["--fail-rate", "0.5", "--seed", "3"]);
    let failing = dir.join("rag-failing");
    let demo = common::demo_dataset();
    assert_ok(&run(&[
        "--dataset",
        p(&demo),
        "--endpoint",
        &mock.url,
        "--model",
        "evalpage-demo",
        "--max-attempts",
        "1",
        "--lang",
        "en",
        "--out",
        p(&failing),
    ]));
    let failed = read_json(&failing.join("eval_rag_report.json"))["metrics"]["failed_calls"]
        .as_u64()
        .unwrap_or(0);
    assert!((1..10).contains(&failed), "some calls fail: {failed}");
    // Each kind's report under its name (spec 000's for RAG and retrieval).
    for (run, name, lang) in [
        (&task, "report.json", "zh"),
        (&rag, "eval_rag_report.json", "zh"),
        (&failing, "eval_rag_report.json", "en"),
        (&retrieval, "eval_retrieval_report.json", "zh"),
    ] {
        assert!(run.join(name).is_file(), "{name}");
        let again = dir.join(&format!(
            "again-{}",
            run.file_name().and_then(|n| n.to_str()).unwrap_or("x")
        ));
        assert_eq!(
            read_json(&run.join(name))["report"]["experiment"]["report_language"],
            lang,
            "the run records the language of its report.md"
        );
        let kind = match name {
            "report.json" => "task",
            "eval_rag_report.json" => "rag",
            _ => "retrieval",
        };
        assert_eq!(
            read_json(&run.join(name))["report"]["experiment"]["run_config"]["kind"],
            kind,
            "each kind tags its report"
        );
        let log = std::fs::read_to_string(run.join(name.replace(".json", ".events.jsonl")))
            .unwrap_or_default();
        let meta: Value =
            serde_json::from_str(log.lines().next().unwrap_or("{}")).unwrap_or_default();
        assert_eq!(meta["kind"], kind, "and its log's meta record");
        for format in ["csv", "json"] {
            assert_ok(&report(&[p(run), "--format", format, "--out", p(&again)]));
        }
        // `evalpage report DIR` alone prints the run's report.md, in its language.
        let printed = report(&[p(run)]);
        assert_ok(&printed);
        assert_eq!(
            texts(&printed).0,
            read(&run.join("report.md")),
            "{name} on stdout"
        );
        assert!(
            texts(&printed).1.is_empty(),
            "nothing guessed: {}",
            texts(&printed).1
        );
        assert_ok(&report(&[p(run), "--out", p(&again)]));
        // summary.csv and the report come out byte for byte as the run wrote them.
        assert_eq!(
            read(&again.join("summary.csv")),
            read(&run.join("summary.csv"))
        );
        assert_eq!(read(&again.join(name)), read(&run.join(name)));
        // report.md comes out as the run wrote it: every section, the RAG
        // check's per-case table and Notes included.
        assert_eq!(
            read(&again.join("report.md")),
            read(&run.join("report.md")),
            "{name}"
        );
    }
    // A report written before runs recorded their language still renders,
    // in Chinese, and the command says it guessed; --lang chooses.
    let old = dir.join("old-report");
    std::fs::create_dir_all(&old).expect("mkdir");
    let mut written = read_json(&failing.join("eval_rag_report.json"));
    if let Some(e) = written["report"]["experiment"].as_object_mut() {
        e.remove("report_language");
    }
    std::fs::write(old.join("eval_rag_report.json"), written.to_string()).expect("write");
    let guessed = report(&[p(&old)]);
    assert_ok(&guessed);
    let (md, stderr) = texts(&guessed);
    assert!(
        stderr.contains("does not record the language")
            && stderr.contains("rendered in Chinese (zh)"),
        "{stderr}"
    );
    assert!(md.starts_with("# 实验"), "{md}");
    let english = report(&[p(&old), "--lang", "en"]);
    assert_ok(&english);
    assert_eq!(texts(&english).0, read(&failing.join("report.md")));
    // Answers scored from a file, with parse problems and a skipped line:
    // from the folder (report and results.jsonl) the run's report.md, each
    // parse problem listed; from a lone report the counts only, and the
    // command says what it cannot show.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/score");
    let scored = dir.join("scored");
    let mut cmd = evalpage();
    cmd.args(["score", "--task", "event_eval", "--dataset"])
        .arg(data.join("event_dataset.jsonl"))
        .arg("--responses")
        .arg(data.join("event_responses.jsonl"))
        .arg("--out")
        .arg(&scored);
    assert_ok(&finish(cmd));
    let again = dir.join("again-scored");
    let out = report(&[p(&scored), "--format", "md", "--out", p(&again)]);
    assert_ok(&out);
    assert!(!texts(&out).1.contains("cannot show"), "nothing is missing");
    let theirs = read(&scored.join("report.md"));
    assert!(
        section(&theirs, "解析问题").contains("| model | sample_id | problem |"),
        "the run lists its parse problems"
    );
    assert_eq!(read(&again.join("report.md")), theirs);
    let lone = dir.join("lone");
    std::fs::create_dir_all(&lone).expect("mkdir");
    std::fs::copy(scored.join("report.json"), lone.join("report.json")).expect("copy");
    let again = dir.join("again-lone");
    let out = report(&[p(&lone), "--format", "md", "--out", p(&again)]);
    assert_ok(&out);
    let stderr = texts(&out).1;
    assert!(
        stderr.contains("alone cannot show the text of each parse problem")
            && stderr.contains("results.jsonl, which was not given"),
        "{stderr}"
    );
    let mine = read(&again.join("report.md"));
    for line in theirs.lines().filter(|l| l.starts_with("- ")) {
        assert!(mine.contains(line), "{line:?} missing in\n{mine}");
    }
    assert_eq!(
        section(&mine, "跳过的输入行"),
        section(&theirs, "跳过的输入行")
    );
    let counts = |md: &str| {
        section(md, "解析问题")
            .lines()
            .take(6)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(counts(&mine), counts(&theirs));
    assert!(
        mine.contains("每个解析问题的详情在该次运行的 results.jsonl 中。"),
        "{mine}"
    );

    // A results.jsonl that cannot be read is named with its line.
    let broken = dir.join("broken-run");
    std::fs::create_dir_all(&broken).expect("mkdir");
    std::fs::copy(scored.join("report.json"), broken.join("report.json")).expect("copy");
    std::fs::write(broken.join("results.jsonl"), "{\"model\": \"m\"}\n").expect("write");
    let out = report(&[p(&broken), "--format", "md", "--out", p(&dir.join("x"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        texts(&out)
            .1
            .contains("results.jsonl: line 1: `sample_id` missing"),
        "{}",
        texts(&out).1
    );

    // English, from the report.json path itself (results.jsonl beside it).
    let en = dir.join("en");
    assert_ok(&report(&[
        p(&task.join("report.json")),
        "--format",
        "md",
        "--out",
        p(&en),
        "--lang",
        "en",
    ]));
    let md = read(&en.join("report.md"));
    assert!(md.contains("- Task: event_eval v1 (preset)"), "{md}");
    assert!(md.contains("- Models: mock-a, mock-b"), "{md}");
    assert!(md.contains("| mock-b | sentiment_acc | 0.625 |"), "{md}");
}

#[test]
fn spec_003s_own_json_example_renders_with_spec_003s_markdown_structure() {
    // Spec 003 §2's EvaluationResult, as the spec writes it (no evalpage
    // `metrics`, no run): a report of another producer.
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/spec/003_example.json");
    let dir = Scratch::new("spec-003");
    let out = dir.join("md");
    let done = report(&[
        p(&example),
        "--format",
        "md",
        "--out",
        p(&out),
        "--lang",
        "en",
    ]);
    assert_ok(&done);
    let md = read(&out.join("report.md"));
    // §3's structure: its headings in its order, its experiment lines.
    let mut at = 0;
    for heading in [
        "# Experiment\n",
        "- Dataset: toy_support_qa v1 (3 samples)\n",
        "- Backend: openai (model=gpt-4o-mini)\n",
        "- Evaluator config: metrics=[exact_match, keyword_coverage]\n",
        "## Overall Metrics\n",
        "| exact_match | 0.660 | 0.470 | 3 |\n",
        "## Breakdown by language\n",
        "| exact_match | en | 0.000 | 0.000 | 1 |\n",
        "## Error Cases\n",
    ] {
        let found = md[at..].find(heading);
        assert!(found.is_some(), "{heading:?} after byte {at} in\n{md}");
        at += found.unwrap_or(0) + heading.len();
    }
    assert!(
        !texts(&done).1.contains("cannot show"),
        "{}",
        texts(&done).1
    );
    let csv = dir.join("csv");
    assert_ok(&report(&[p(&example), "--format", "csv", "--out", p(&csv)]));
    assert!(read(&csv.join("summary.csv")).contains("\ngpt-4o-mini,3,0.66,0.8,"));
}
