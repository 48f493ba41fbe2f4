//! `evalpage agree RUN LABELS... --out DIR` (issue 43) with the real binary:
//! a judged run of `examples/judge/` (the mock model and judge) measured
//! against two reviewers' label files (one JSONL, one json-seq): the figures
//! the core computes from the same pairs, written to agreement.json,
//! agreement.md and report.md; the κ gate exits 1 and 0 as it should; bad
//! input is said by file, line and field (a cut last line, a reviewer
//! missing, a label off the scale) and the rest is measured; labels of
//! another run exit 2 with their count; the standing labels exported as
//! Langfuse scores and Phoenix annotations (--langfuse, --phoenix) read
//! back to the same figures; `evalpage compare --fail-if-kappa-below` gates
//! on the new run's κ (its agreement.json, else the report's human_kappa);
//! a dialog run (spec 001) is measured per dialog, its verdicts the
//! dialog's own metric values.

mod common;

use common::*;
use evalpage_core::review::{cohen_kappa, krippendorff_alpha, Label, Level};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Output;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/judge")
        .join(name)
}

/// The judged example run with the mock model and judge, into `out`.
fn judged_run(out: &Path) -> Vec<Value> {
    let task = example("judged_qa.yaml").display().to_string();
    let data = example("judged_qa.jsonl").display().to_string();
    let out_s = out.display().to_string();
    assert_ok(&run(&[
        "--task",
        &task,
        "--dataset",
        &data,
        "--mock",
        "--out",
        &out_s,
    ]));
    read_jsonl(&out.join("scores.jsonl"))
}

/// The judge's outcome of each case of `correct`: (case, passed).
fn outcomes(scores: &[Value]) -> Vec<(String, bool)> {
    scores
        .iter()
        .filter(|r| r["metric"] == "correct")
        .filter_map(|r| {
            let o = r["detail"]["outcome"].as_str()?;
            Some((r["sample_id"].as_str()?.to_string(), o == "pass"))
        })
        .collect()
}

fn agree(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("agree").args(args);
    finish(cmd)
}

fn line(case: &str, reviewer: &str, label: bool, t: u64) -> Value {
    json!({"case_id": case, "model": "mock", "metric": "correct", "reviewer": reviewer,
           "label": if label { "pass" } else { "fail" }, "blind": true, "t": t})
}

#[test]
fn two_reviewers_files_measured_against_the_judge_with_a_gate() {
    let s = Scratch::new("agree");
    let run_dir = s.join("run");
    let scores = judged_run(&run_dir);
    // the judge's outcome of each case of `correct`
    let judge = outcomes(&scores);
    assert!(judge.len() >= 6, "{judge:?}");
    // ana agrees with the judge except on the first case; bo disagrees on
    // the first two and changes his mind on the second later
    let ana: Vec<(String, bool)> = judge
        .iter()
        .enumerate()
        .map(|(i, (c, p))| (c.clone(), if i == 0 { !p } else { *p }))
        .collect();
    let bo: Vec<(String, bool)> = judge
        .iter()
        .enumerate()
        .map(|(i, (c, p))| (c.clone(), if i < 2 { !p } else { *p }))
        .collect();
    let mut ana_text: String = ana
        .iter()
        .map(|(c, l)| format!("{}\n", line(c, "ana", *l, 1)))
        .collect();
    // bad lines: a reviewer missing, a label off the scale, a cut last line
    ana_text.push_str(r#"{"case_id":"q1","metric":"correct","label":"pass","t":5}"#);
    ana_text.push('\n');
    ana_text.push_str(&format!("{}\n", json!({"case_id": "q2", "model": "mock", "metric": "correct", "reviewer": "cy", "label": 4, "t": 5})));
    ana_text.push_str(r#"{"case_id":"q3","metric":"cor"#);
    let ana_file = s.write("ana.labels.jsonl", &ana_text);
    let mut bo_text: String = bo
        .iter()
        .map(|(c, l)| format!("\u{1e}{}\n", line(c, "bo", *l, 1)))
        .collect();
    bo_text.push_str(&format!("\u{1e}{}\n", line(&bo[1].0, "bo", !bo[1].1, 9)));
    let bo_file = s.write("bo.labels.json-seq", &bo_text);

    let out_dir = s.join("agreement");
    let (run_s, out_s) = (run_dir.display().to_string(), out_dir.display().to_string());
    let (a_s, b_s) = (
        ana_file.display().to_string(),
        bo_file.display().to_string(),
    );
    let out = agree(&[&run_s, &a_s, &b_s, "--out", &out_s]);
    assert_ok(&out);
    let (stdout, stderr) = texts(&out);
    assert!(
        stdout.contains("| correct | mock | pass-fail |"),
        "{stdout}"
    );
    let n = judge.len();
    let said = format!(
        "ana.labels.jsonl line {}, field reviewer: missing (left out)",
        n + 1
    );
    assert!(stderr.contains(&said), "{stderr}");
    let said = format!("ana.labels.jsonl line {}: the line is cut short", n + 3);
    assert!(stderr.contains(&said), "{stderr}");
    assert!(
        stderr.contains(
            "cy's label of q2 (correct): label `4` is not on the metric's scale (pass-fail)"
        ),
        "{stderr}"
    );

    let doc = read_json(&out_dir.join("agreement.json"));
    let rows = doc["metrics"].as_array().expect("metrics");
    assert_eq!(rows.len(), 1, "only `correct` was labelled");
    let a = &rows[0];
    assert_eq!(a["reviewers"], json!(["ana", "bo"]));
    // bo's later label of the second case replaces his first: he agrees there now
    let bo_now: Vec<(String, bool)> = bo
        .iter()
        .enumerate()
        .map(|(i, (c, l))| (c.clone(), if i == 1 { !l } else { *l }))
        .collect();
    // the majority: a tie where ana and bo differ (the first case only)
    assert_eq!(
        a["majority_ties"], 0,
        "ana and bo agree on the first case now? {a}"
    );
    let majority: Vec<(Label, Label)> = judge
        .iter()
        .zip(&ana)
        .zip(&bo_now)
        .filter(|((_, x), y)| x.1 == y.1)
        .map(|(((_, j), x), _)| (lab(*j), lab(x.1)))
        .collect();
    assert_eq!(a["n"], majority.len());
    assert_close(&a["cohen_kappa"], cohen_kappa(&majority).ok());
    let units: Vec<Vec<Option<Label>>> = ana
        .iter()
        .zip(&bo_now)
        .map(|(x, y)| vec![Some(lab(x.1)), Some(lab(y.1))])
        .collect();
    assert_close(
        &a["krippendorff_alpha"],
        krippendorff_alpha(&units, &[Label::Fail, Label::Pass], Level::Nominal).ok(),
    );
    // every key of the issue is written, and each null figure says why
    for k in [
        "metric",
        "model",
        "n",
        "agreement",
        "cohen_kappa",
        "cohen_kappa_quadratic",
        "tpr",
        "tpr_ci95",
        "tnr",
        "tnr_ci95",
        "pass_rate",
        "corrected_pass_rate",
        "corrected_pass_rate_ci95",
        "per_reviewer",
        "krippendorff_alpha",
    ] {
        assert!(a.get(k).is_some(), "`{k}` missing from {a}");
        if a[k].is_null() {
            assert!(
                a["undefined"][k].is_string(),
                "`{k}` null without a reason: {a}"
            );
        }
    }
    assert!(
        a["undefined"]["cohen_kappa_quadratic"]
            .as_str()
            .is_some_and(|w| w.contains("is for ratings")),
        "{a}"
    );
    assert_eq!(a["per_reviewer"].as_array().map(Vec::len), Some(2));
    assert!(
        a["corrected_pass_rate"].is_number() || a["undefined"]["corrected_pass_rate"].is_string()
    );
    assert_eq!(doc["bad_lines"].as_array().map(Vec::len), Some(2));
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.starts_with(
        &std::fs::read_to_string(run_dir.join("report.md")).expect("run's report.md")[..40]
    ));
    assert!(md.contains("## Agreement with people"));

    // the gate: κ below K fails (exit 1), at or above passes
    let kappa = a["cohen_kappa"].as_f64();
    let k = kappa.unwrap_or(0.0);
    let high = format!("{}", (k + 0.05).min(1.0));
    let low = format!("{}", (k - 0.05).max(-1.0));
    let failed = agree(&[
        &run_s,
        &a_s,
        &b_s,
        "--out",
        &out_s,
        "--fail-if-kappa-below",
        &high,
    ]);
    assert_eq!(failed.status.code(), Some(1), "{}", texts(&failed).1);
    assert!(texts(&failed).1.contains("gate failed: correct (mock)"));
    let passed = agree(&[
        &run_s,
        &a_s,
        &b_s,
        "--out",
        &out_s,
        "--fail-if-kappa-below",
        &low,
    ]);
    assert_eq!(
        passed.status.code(),
        if kappa.is_some() { Some(0) } else { Some(1) },
        "{}",
        texts(&passed).1
    );
}

#[test]
fn labels_of_another_run_exit_2_with_their_count() {
    let s = Scratch::new("agree-other");
    let run_dir = s.join("run");
    judged_run(&run_dir);
    let other: String = (0..4)
        .map(|i| format!("{}\n", line(&format!("elsewhere-{i}"), "ana", true, 1)))
        .collect();
    let file = s.write("other.jsonl", &other);
    let out = agree(&[
        &run_dir.display().to_string(),
        &file.display().to_string(),
        "--out",
        &s.join("o").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = texts(&out).1;
    assert!(stderr.contains("4 of 4 labels do not match"), "{stderr}");
    assert!(
        stderr.contains("elsewhere-0 (the run has no case `elsewhere-0` with a `correct` score)"),
        "{stderr}"
    );
    assert!(stderr.contains("no label matches"), "{stderr}");
    let bad = agree(&[
        &run_dir.display().to_string(),
        &file.display().to_string(),
        "--out",
        "x",
        "--scale",
        "correct",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(texts(&bad)
        .1
        .contains("--scale correct: expected METRIC=SCHEME"));
}

#[test]
fn labels_exported_to_langfuse_and_phoenix_read_back_to_the_same_figures() {
    let s = Scratch::new("agree-exchange");
    let run_dir = s.join("run");
    let scores = judged_run(&run_dir);
    let cases = outcomes(&scores);
    assert!(cases.len() >= 4, "{cases:?}");
    // ana: JSONL with a note and a later change of mind; bo: json-seq
    let mut ana: String = cases
        .iter()
        .enumerate()
        .map(|(i, (c, p))| {
            let mut l = line(c, "ana", if i == 0 { !p } else { *p }, 1);
            if i == 1 {
                l["note"] = json!("not sure");
            }
            format!("{l}\n")
        })
        .collect();
    ana.push_str(&format!("{}\n", line(&cases[0].0, "ana", cases[0].1, 7)));
    let bo: String = cases
        .iter()
        .enumerate()
        .map(|(i, (c, p))| format!("\u{1e}{}\n", line(c, "bo", if i < 2 { !p } else { *p }, 2)))
        .collect();
    let ana_file = s.write("ana.jsonl", &ana).display().to_string();
    let bo_file = s.write("bo.json-seq", &bo).display().to_string();
    let run_s = run_dir.display().to_string();
    let lf = s.join("export/langfuse.json");
    let px = s.join("export/phoenix.json");
    let (lf_s, px_s) = (lf.display().to_string(), px.display().to_string());
    let first = s.join("first").display().to_string();
    let out = agree(&[
        &run_s,
        &ana_file,
        &bo_file,
        "--out",
        &first,
        "--langfuse",
        &lf_s,
        "--phoenix",
        &px_s,
    ]);
    assert_ok(&out);
    let want = read_json(&s.join("first/agreement.json"))["metrics"].clone();
    assert!(want.as_array().is_some_and(|m| !m.is_empty()), "{want}");

    // the shapes: ana's first label is her later one; one score per
    // reviewer and case
    let scores = read_json(&lf);
    let scores = scores.as_array().expect("a JSON array");
    assert_eq!(scores.len(), 2 * cases.len());
    let ana_first = scores
        .iter()
        .find(|x| x["metadata"]["reviewer"] == "ana" && x["metadata"]["case_id"] == *cases[0].0)
        .expect("ana's first case");
    assert_eq!(ana_first["traceId"], format!("mock/{}", cases[0].0));
    assert_eq!(ana_first["name"], "correct");
    assert_eq!(ana_first["dataType"], "BOOLEAN");
    assert_eq!(ana_first["value"], if cases[0].1 { 1 } else { 0 });
    assert_eq!(ana_first["metadata"]["t"], 7);
    assert!(scores.iter().any(|x| x["comment"] == "not sure"));
    let annotations = read_json(&px);
    let data = annotations["data"].as_array().expect("{\"data\": [...]}");
    assert_eq!(data.len(), 2 * cases.len());
    assert!(data.iter().all(|a| a["annotator_kind"] == "HUMAN"));
    assert!(data
        .iter()
        .any(|a| a["identifier"] == "bo" && a["span_id"] == format!("mock/{}", cases[1].0)));

    // each export alone gives the same figures as the original files
    for (name, file) in [("langfuse", &lf_s), ("phoenix", &px_s)] {
        let dir = s.join(name).display().to_string();
        let out = agree(&[&run_s, file, "--out", &dir]);
        assert_ok(&out);
        assert!(!texts(&out).1.contains("left out"), "{}", texts(&out).1);
        let got = read_json(&s.join(name).join("agreement.json"));
        assert_eq!(got["metrics"], want, "{name}");
        assert_eq!(got["bad_lines"], json!([]), "{name}");
    }
}

fn compare(args: &[&str]) -> Output {
    let mut cmd = evalpage();
    cmd.arg("compare").args(args);
    finish(cmd)
}

#[test]
fn compare_gates_on_the_new_runs_kappa_from_agreement_json_else_the_report() {
    let s = Scratch::new("agree-compare");
    let run_dir = s.join("run");
    let scores = judged_run(&run_dir);
    let run_s = run_dir.display().to_string();
    let judge = outcomes(&scores);
    assert!(
        judge.iter().any(|c| c.1) && judge.iter().any(|c| !c.1),
        "the mock judge passes some cases and fails others: {judge:?}"
    );

    // 1. no agreement.json yet: the report's human_kappa (the dataset's
    //    human_verdict labels, `human_label_field`)
    let report = read_json(&run_dir.join("report.json"));
    let details = report["report"]["llm_judge_details"]
        .as_array()
        .expect("llm_judge_details");
    let correct = details
        .iter()
        .find(|d| d["metric"] == "correct")
        .expect("the correct judge");
    let human = correct["human_kappa"].as_f64().expect("human_kappa");
    assert!(human < 0.9, "{human}");
    let gate = |k: f64| compare(&[&run_s, &run_s, &format!("--fail-if-kappa-below={k}")]);
    let low = gate(human - 0.05);
    assert_ok(&low);
    let stdout = texts(&low).0;
    assert!(stdout.contains("report.json (human_kappa)"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "gate ok   κ of correct (mock) at least {}",
            human - 0.05
        )),
        "{stdout}"
    );
    let high = gate(human + 0.05);
    assert_eq!(high.status.code(), Some(1), "{}", texts(&high).1);
    let said = format!(
        "gate FAIL correct (mock): κ = {human:.3} against people (n = {}) is below {}",
        correct["human_labelled"],
        human + 0.05
    );
    assert!(texts(&high).0.contains(&said), "{}", texts(&high).0);
    assert!(texts(&high).1.contains("the agreement gate failed"));

    // 2. `evalpage agree ... --out RUNDIR`: agreement.json is read instead;
    //    ana agrees with the judge on every case: κ = 1 there
    let ana: String = judge
        .iter()
        .map(|(c, p)| format!("{}\n", line(c, "ana", *p, 1)))
        .collect();
    let ana_file = s.write("ana.jsonl", &ana).display().to_string();
    assert_ok(&agree(&[&run_s, &ana_file, "--out", &run_s]));
    let passed = gate(0.9);
    assert_ok(&passed);
    let stdout = texts(&passed).0;
    assert!(
        stdout.contains(&format!(
            "κ against people from {}",
            run_dir.join("agreement.json").display()
        )),
        "{stdout}"
    );
    // the json keeps the gate: where κ came from, the rows, what failed
    let cmp_json = s.join("cmp.json");
    let cmp_s = cmp_json.display().to_string();
    assert_ok(&compare(&[
        &run_s,
        &run_s,
        "--fail-if-kappa-below",
        "0.9",
        "--json",
        &cmp_s,
    ]));
    let doc = read_json(&cmp_json);
    assert_eq!(doc["kappa_gate"]["kappa"][0]["metric"], "correct");
    assert_eq!(doc["kappa_gate"]["kappa"][0]["cohen_kappa"], 1.0);
    assert_eq!(doc["kappa_gate"]["failed"], json!([]));

    // 3. only the judge's passes labelled, all pass: κ is undefined (one
    //    class), and the gate does not pass, saying why
    let passes: String = judge
        .iter()
        .filter(|c| c.1)
        .map(|(c, _)| format!("{}\n", line(c, "ana", true, 2)))
        .collect();
    let passes_file = s.write("passes.jsonl", &passes).display().to_string();
    assert_ok(&agree(&[&run_s, &passes_file, "--out", &run_s]));
    let md = std::fs::read_to_string(run_dir.join("report.md")).expect("report.md");
    assert_eq!(
        md.matches("## Agreement with people").count(),
        1,
        "agree into the run's folder twice: its section replaced, not added again"
    );
    let undefined = gate(-1.0);
    assert_eq!(undefined.status.code(), Some(1), "{}", texts(&undefined).1);
    let stdout = texts(&undefined).0;
    assert!(
        stdout.contains("gate FAIL correct (mock): κ against people is undefined ("),
        "{stdout}"
    );

    // 4. a bad agreement.json is named with its field (exit 2)
    std::fs::write(
        run_dir.join("agreement.json"),
        r#"{"metrics": [{"metric": "correct", "n": "eight", "cohen_kappa": 0.5}]}"#,
    )
    .expect("write");
    let bad = gate(0.5);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        texts(&bad)
            .1
            .contains("agreement.json: `metrics[0].n`: missing or not a count"),
        "{}",
        texts(&bad).1
    );

    // 5. a run with no κ at all: exit 2, saying how to get one
    let rag = s.join("rag");
    assert_ok(&run_demo(&demo_dataset(), &rag, &[]));
    let rag_s = rag.display().to_string();
    let none = compare(&[&rag_s, &rag_s, "--fail-if-kappa-below", "0.5"]);
    assert_eq!(none.status.code(), Some(2));
    let stderr = texts(&none).1;
    assert!(
        stderr.contains("has no κ against people to gate on"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("`evalpage agree {rag_s} LABELS... --out {rag_s}`")),
        "{stderr}"
    );
    assert!(texts(&none).0.is_empty(), "nothing printed before exit 2");
}

#[test]
fn a_dialog_run_is_measured_per_dialog_as_the_viewer_reviews_it() {
    let s = Scratch::new("agree-dialog");
    let run_dir = s.join("dialogs");
    let dialogs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/demo/demo_dialogs.jsonl");
    assert_ok(&run(&[
        "--dialogs",
        &dialogs.display().to_string(),
        "--provider",
        "demo",
        "--out",
        &run_dir.display().to_string(),
    ]));
    assert!(
        !run_dir.join("report.json").exists(),
        "a dialog run writes no report"
    );
    // each dialog's M4 from its turn rows: the share of scored turns whose
    // predicted compliance label is the expected one; pass at 0.5 or more
    let mut m4: Vec<(String, usize, usize)> = Vec::new();
    for r in read_jsonl(&run_dir.join("turn_eval.jsonl")) {
        let id = r["dialog_id"].as_str().expect("dialog_id").to_string();
        if m4.last().is_none_or(|d| d.0 != id) {
            m4.push((id, 0, 0));
        }
        if r["m4_status"] == "scored" {
            let d = m4.last_mut().expect("a dialog");
            d.2 += 1;
            if r["pred_compliance_label"] == r["gt_compliance_label"] {
                d.1 += 1;
            }
        }
    }
    let verdicts: Vec<(String, bool)> = m4
        .into_iter()
        .filter(|d| d.2 > 0)
        .map(|(id, agree, of)| (id, agree as f64 / of as f64 >= 0.5))
        .collect();
    assert!(
        verdicts.len() >= 10 && verdicts.iter().any(|v| v.1) && verdicts.iter().any(|v| !v.1),
        "{verdicts:?}"
    );
    // ana labels the first ten dialogs, against the verdict on the first two;
    // and the dialog that was skipped (no turn: nothing to check)
    let ten = &verdicts[..10];
    let mut text: String = ten
        .iter()
        .enumerate()
        .map(|(i, (id, v))| {
            let l = json!({"case_id": id, "metric": "m4_compliance", "reviewer": "ana",
                           "label": if (i < 2) != *v { "pass" } else { "fail" }, "t": 1});
            format!("{l}\n")
        })
        .collect();
    text.push_str(
        &json!({"case_id": "memfin-skip-no-answer", "metric": "m4_compliance",
                "reviewer": "ana", "label": "pass", "t": 1})
        .to_string(),
    );
    let labels = s.write("ana.jsonl", &text).display().to_string();
    let out_dir = s.join("agreement");
    let out = agree(&[
        &run_dir.display().to_string(),
        &labels,
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_ok(&out);
    let stderr = texts(&out).1;
    assert!(
        stderr.contains(
            "memfin-skip-no-answer (the run has no case `memfin-skip-no-answer` with a `m4_compliance` score)"
        ),
        "{stderr}"
    );
    let doc = read_json(&out_dir.join("agreement.json"));
    let row = &doc["metrics"][0];
    assert_eq!(row["metric"], "m4_compliance");
    assert_eq!(row["model"], Value::Null);
    assert_eq!(row["n"], 10);
    let pairs: Vec<(Label, Label)> = ten
        .iter()
        .enumerate()
        .map(|(i, (_, v))| (lab(*v), lab((i < 2) != *v)))
        .collect();
    assert_close(&row["cohen_kappa"], cohen_kappa(&pairs).ok());
    assert_eq!(row["agreement"], 0.8);
    let passes = verdicts.iter().filter(|v| v.1).count() as f64;
    assert_close(&row["pass_rate"], Some(passes / verdicts.len() as f64));
    // a dialog run has no report.md: report.md is the agreement section
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.starts_with("## Agreement with people"), "{md}");
    // the run's turn_eval.jsonl alone names the run too
    let again = agree(&[
        &run_dir.join("turn_eval.jsonl").display().to_string(),
        &labels,
        "--out",
        &s.join("again").display().to_string(),
    ]);
    assert_ok(&again);
    assert_eq!(
        read_json(&s.join("again/agreement.json"))["metrics"],
        doc["metrics"]
    );
    // without turn_eval.jsonl there is no dialog's verdict: said, exit 2
    std::fs::remove_file(run_dir.join("turn_eval.jsonl")).expect("remove");
    let gone = agree(&[
        &run_dir.display().to_string(),
        &labels,
        "--out",
        &s.join("gone").display().to_string(),
    ]);
    assert_eq!(gone.status.code(), Some(2));
    assert!(
        texts(&gone).1.contains("without its turn_eval.jsonl"),
        "{}",
        texts(&gone).1
    );
}

fn lab(pass: bool) -> Label {
    if pass {
        Label::Pass
    } else {
        Label::Fail
    }
}

fn assert_close(v: &Value, want: Option<f64>) {
    match want {
        Some(w) => {
            let got = v.as_f64().unwrap_or(f64::NAN);
            assert!((got - w).abs() < 1e-12, "{got} != {w}");
        }
        None => assert!(v.is_null(), "{v} should be null"),
    }
}
