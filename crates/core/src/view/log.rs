//! The viewer's table of an event log (spec 000, a cut-off last record
//! tolerated): one row per case record.

use super::*;

/// The viewer's table of an event log: one row per `case` record (the last
/// record of a case × model counts), summaries computed from the rows.
pub fn from_log(log: &ReadLog, source: &str) -> ViewData {
    let meta = log.of_type("meta").next();
    let mut metrics: Vec<String> = Vec::new();
    let mut latest: BTreeMap<(Option<String>, String), (usize, &Value)> = BTreeMap::new();
    for (n, r) in log.of_type("case").enumerate() {
        let Some(id) = r.get("case_id").and_then(Value::as_str) else {
            continue;
        };
        let model = r.get("model").and_then(Value::as_str).map(str::to_string);
        let id = answer_id(id, r.get("repeat"));
        if let Some(Value::Object(m)) = r.get("metrics") {
            for k in m.keys() {
                if !metrics.contains(k) {
                    metrics.push(k.clone());
                }
            }
        }
        latest.insert((model, id), (n, r));
    }
    if metrics.is_empty() {
        metrics = ["accuracy", "citation"].map(String::from).to_vec();
    }
    let mut ordered: Vec<(usize, Option<String>, String, &Value)> = latest
        .into_iter()
        .map(|((m, id), (n, r))| (n, m, id, r))
        .collect();
    ordered.sort_by_key(|(n, ..)| *n);
    let run_kind = RunKind::read(&[meta.unwrap_or(&Value::Null)], &metrics);
    // a retrieval log's rows show its report's detail; every other kind's
    // rows their metrics alone
    let retrieval = match run_kind {
        Some(RunKind::Retrieval) => true,
        Some(RunKind::Rag | RunKind::Task | RunKind::Dialog) | None => false,
    };
    let rows: Vec<ViewRow> = ordered
        .into_iter()
        .map(|(_, model, id, r)| {
            let values = metrics
                .iter()
                .map(|m| match r.get("metrics").and_then(|x| x.get(m)) {
                    Some(v) => v.as_f64(),
                    None => match m.as_str() {
                        "accuracy" => r.get("accuracy").and_then(Value::as_bool).map(f64::from),
                        "citation" => r.get("citation").and_then(Value::as_bool).map(f64::from),
                        _ => None,
                    }
                    .map(|v| if v > 0.0 { 1.0 } else { 0.0 }),
                })
                .collect();
            let ok = r
                .get("llm_call_ok")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let error = text_of(r, &["error"]);
            let tags = r
                .get("tags")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .or_else(|| text_of(r, &["bucket"]).map(|b| vec![b]))
                .unwrap_or_default();
            let answer = text_of(r, &["answer", "answer_snippet"]);
            let input = text_of(r, &["query"]);
            let mut details = vec![Detail::None; metrics.len()];
            if retrieval {
                // What the retrieval mode's row shows, as the report's detail.
                if let Some(d) = details.first_mut() {
                    *d = Detail::Value(super::retrieval::log_detail(r, ok));
                }
            }
            ViewRow {
                haystack: haystack(
                    &id,
                    model.as_deref(),
                    &tags,
                    answer.as_deref(),
                    error.as_deref(),
                    input.as_deref(),
                ),
                values,
                tags,
                language: text_of(r, &["language"]),
                length: text_of(r, &["length_bucket"]),
                status: if ok { "ok" } else { "failed" }.into(),
                error,
                latency_ms: r.get("elapsed_ms").and_then(Value::as_f64),
                attempts: r
                    .get("attempts")
                    .and_then(Value::as_u64)
                    .map(|a| a.min(u32::MAX as u64) as u32),
                answer,
                input,
                details,
                id,
                model,
            }
        })
        .collect();
    let mut notes = Vec::new();
    if log.truncated_tail {
        notes.push("the last record was cut off and is ignored".to_string());
    }
    if !log.skipped.is_empty() {
        notes.push(format!(
            "{} unreadable records were skipped",
            log.skipped.len()
        ));
    }
    let mut data = ViewData {
        source: source.to_string(),
        kind: run_kind.map_or("run", RunKind::tag).to_string(),
        look: Look::of(run_kind, &[meta.unwrap_or(&Value::Null)]),
        dataset: meta
            .and_then(|m| text_of(m, &["dataset"]))
            .unwrap_or_default(),
        run_id: meta.and_then(|m| text_of(m, &["run_id"])),
        metrics,
        rows,
        summaries: Vec::new(),
        breakdowns: Vec::new(),
        notes,
        text: std::rc::Rc::from(""),
        devices: Vec::new(),
    };
    data.summaries = summaries_of(&data);
    data
}

/// The kind of a log's run: the one reader's ([`RunKind::read`]) over its
/// `meta` record and its metrics, else `run`.
pub(super) fn log_view(name: &str, bytes: &[u8]) -> Result<ViewData, super::OpenError> {
    let log = crate::events::read(bytes);
    if log.of_type("meta").next().is_none() && log.of_type("case").next().is_none() {
        return Err(super::OpenError::NotAnEventLog {
            name: name.to_string(),
        });
    }
    Ok(from_log(&log, name))
}
