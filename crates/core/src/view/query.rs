//! The viewer's query: full-text search, filters and sort over a saved run's
//! rows, and its form in the page URL (`q`, `metric` + `outcome`, `tag`,
//! `language`, `length`, `model_filter`, `status`, `sort`, `desc`; `model`
//! is the RAG page's own parameter), so a filtered view can be shared as a
//! link.

use super::{ViewData, ViewRow};
use std::cmp::Ordering;

/// A metric outcome to filter by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Value of at least 0.5.
    Pass,
    /// Value below 0.5.
    Fail,
    /// No value (skipped, unscored, or the metric does not apply).
    Unscored,
}

impl Outcome {
    /// `pass`, `fail` or `unscored`.
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Unscored => "unscored",
        }
    }

    /// Parses [`Outcome::code`].
    pub fn parse(s: &str) -> Option<Outcome> {
        match s {
            "pass" => Some(Outcome::Pass),
            "fail" => Some(Outcome::Fail),
            "unscored" => Some(Outcome::Unscored),
            _ => None,
        }
    }

    fn holds(self, v: Option<f64>) -> bool {
        match (self, v) {
            (Outcome::Pass, Some(x)) => x >= 0.5,
            (Outcome::Fail, Some(x)) => x < 0.5,
            (Outcome::Unscored, None) => true,
            _ => false,
        }
    }
}

/// The column a table is sorted by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sort {
    /// Case id.
    Id,
    /// Model.
    Model,
    /// Status.
    Status,
    /// Latency.
    Latency,
    /// A metric's value (rows without one last).
    Metric(String),
}

impl Sort {
    /// `id`, `model`, `status`, `latency` or `metric:NAME`.
    pub fn code(&self) -> String {
        match self {
            Sort::Id => "id".into(),
            Sort::Model => "model".into(),
            Sort::Status => "status".into(),
            Sort::Latency => "latency".into(),
            Sort::Metric(m) => format!("metric:{m}"),
        }
    }

    /// Parses [`Sort::code`].
    pub fn parse(s: &str) -> Option<Sort> {
        match s {
            "id" => Some(Sort::Id),
            "model" => Some(Sort::Model),
            "status" => Some(Sort::Status),
            "latency" => Some(Sort::Latency),
            _ => s
                .strip_prefix("metric:")
                .map(|m| Sort::Metric(m.to_string())),
        }
    }
}

/// What the viewer's table shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    /// Text searched in id, model, tags, answer and error (case-insensitive).
    pub search: String,
    /// A metric and the outcome its value must have.
    pub metric: Option<(String, Outcome)>,
    /// Only rows with this tag.
    pub tag: Option<String>,
    /// Only rows in this language.
    pub language: Option<String>,
    /// Only rows of this length bucket.
    pub length: Option<String>,
    /// Only rows of this model.
    pub model: Option<String>,
    /// Only rows with this status (`ok`, `failed`, ...).
    pub status: Option<String>,
    /// Sort column (dataset order when none) and direction.
    pub sort: Option<Sort>,
    /// Descending.
    pub desc: bool,
}

impl Query {
    /// True when the row passes every filter and the search.
    pub fn keeps(&self, data: &ViewData, row: &ViewRow, needle: &str) -> bool {
        let eq = |want: &Option<String>, have: Option<&String>| {
            want.as_ref().is_none_or(|w| have == Some(w))
        };
        (needle.is_empty() || row.haystack.contains(needle))
            && eq(&self.language, row.language.as_ref())
            && eq(&self.length, row.length.as_ref())
            && eq(&self.model, row.model.as_ref())
            && eq(&self.status, Some(&row.status))
            && self.tag.as_ref().is_none_or(|t| row.tags.contains(t))
            && self
                .metric
                .as_ref()
                .is_none_or(|(m, o)| data.metric_index(m).is_some_and(|c| o.holds(row.values[c])))
    }

    /// The rows to show, as indices into `data.rows`, filtered and sorted.
    pub fn apply(&self, data: &ViewData) -> Vec<u32> {
        let needle = self.search.trim().to_lowercase();
        let mut out: Vec<u32> = data
            .rows
            .iter()
            .enumerate()
            .filter(|(_, r)| self.keeps(data, r, &needle))
            .map(|(i, _)| i as u32)
            .collect();
        if let Some(sort) = &self.sort {
            let col = match sort {
                Sort::Metric(m) => data.metric_index(m),
                _ => None,
            };
            let key = |i: &u32| &data.rows[*i as usize];
            out.sort_by(|a, b| {
                let (ra, rb) = (key(a), key(b));
                let o = match sort {
                    Sort::Id => ra.id.cmp(&rb.id),
                    Sort::Model => ra.model.cmp(&rb.model),
                    Sort::Status => ra.status.cmp(&rb.status),
                    Sort::Latency => cmp_opt(ra.latency_ms, rb.latency_ms),
                    Sort::Metric(_) => {
                        col.map_or(Ordering::Equal, |c| cmp_opt(ra.values[c], rb.values[c]))
                    }
                };
                if self.desc {
                    o.reverse()
                } else {
                    o
                }
            });
        }
        out
    }

    /// The query as URL parameters (empty ones left out).
    pub fn to_params(&self) -> Vec<(&'static str, String)> {
        let mut p = Vec::new();
        if !self.search.trim().is_empty() {
            p.push(("q", self.search.trim().to_string()));
        }
        if let Some((m, o)) = &self.metric {
            p.push(("metric", m.clone()));
            p.push(("outcome", o.code().to_string()));
        }
        for (k, v) in [
            ("tag", &self.tag),
            ("language", &self.language),
            ("length", &self.length),
            ("model_filter", &self.model),
            ("status", &self.status),
        ] {
            if let Some(v) = v {
                p.push((k, v.clone()));
            }
        }
        if let Some(s) = &self.sort {
            p.push(("sort", s.code()));
            if self.desc {
                p.push(("desc", "1".into()));
            }
        }
        p
    }

    /// A query from URL parameters (`get(name)`); unknown values are ignored.
    pub fn from_params(get: impl Fn(&str) -> Option<String>) -> Query {
        let opt = |k: &str| get(k).filter(|v| !v.is_empty());
        Query {
            search: get("q").unwrap_or_default(),
            metric: opt("metric").zip(opt("outcome").and_then(|o| Outcome::parse(&o))),
            tag: opt("tag"),
            language: opt("language"),
            length: opt("length"),
            model: opt("model_filter"),
            status: opt("status"),
            sort: opt("sort").and_then(|s| Sort::parse(&s)),
            desc: get("desc").as_deref() == Some("1"),
        }
    }
}

/// Known values first, in order; missing ones last.
fn cmp_opt(a: Option<f64>, b: Option<f64>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, v: Option<f64>, tag: &str, status: &str, latency: f64) -> ViewRow {
        ViewRow {
            id: id.into(),
            model: Some(if id < "c" { "m1" } else { "m2" }.into()),
            values: vec![v],
            tags: vec![tag.into()],
            language: Some("zh".into()),
            length: Some("short".into()),
            status: status.into(),
            error: None,
            latency_ms: Some(latency),
            attempts: None,
            answer: None,
            input: None,
            details: vec![super::super::Detail::None],
            haystack: format!("{id}\n{tag}\n"),
        }
    }

    fn data() -> ViewData {
        ViewData {
            metrics: vec!["acc".into()],
            rows: vec![
                row("a", Some(1.0), "faq", "ok", 30.0),
                row("b", Some(0.0), "faq", "ok", 10.0),
                row("c", None, "ops", "failed", 20.0),
                row("d", Some(0.75), "ops", "ok", 5.0),
            ],
            ..ViewData::default()
        }
    }

    #[test]
    fn filters_search_and_sort() {
        let d = data();
        let q = |f: &dyn Fn(&mut Query)| {
            let mut q = Query::default();
            f(&mut q);
            q.apply(&d)
        };
        assert_eq!(q(&|_| {}), vec![0, 1, 2, 3]);
        assert_eq!(
            q(&|q| q.metric = Some(("acc".into(), Outcome::Pass))),
            vec![0, 3]
        );
        assert_eq!(
            q(&|q| q.metric = Some(("acc".into(), Outcome::Fail))),
            vec![1]
        );
        assert_eq!(
            q(&|q| q.metric = Some(("acc".into(), Outcome::Unscored))),
            vec![2]
        );
        assert_eq!(q(&|q| q.tag = Some("ops".into())), vec![2, 3]);
        assert_eq!(q(&|q| q.status = Some("failed".into())), vec![2]);
        assert_eq!(q(&|q| q.model = Some("m1".into())), vec![0, 1]);
        assert_eq!(q(&|q| q.search = " OPS ".into()), vec![2, 3]);
        assert_eq!(q(&|q| q.sort = Some(Sort::Latency)), vec![3, 1, 2, 0]);
        assert_eq!(
            q(&|q| {
                q.sort = Some(Sort::Metric("acc".into()));
                q.desc = true;
            }),
            vec![2, 0, 3, 1],
            "descending puts the unscored row first, as the reversed order does"
        );
        assert!(q(&|q| q.metric = Some(("nope".into(), Outcome::Pass))).is_empty());
    }

    #[test]
    fn the_query_round_trips_through_url_parameters() {
        let q = Query {
            search: "nan".into(),
            metric: Some(("acc".into(), Outcome::Fail)),
            tag: Some("faq".into()),
            model: Some("m1".into()),
            sort: Some(Sort::Metric("acc".into())),
            desc: true,
            ..Query::default()
        };
        let params = q.to_params();
        let back =
            Query::from_params(|k| params.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone()));
        assert_eq!(back, q);
        assert_eq!(Query::from_params(|_| None), Query::default());
        let junk = Query::from_params(|k| Some(format!("{k}?")));
        assert_eq!(junk.sort, None, "an unknown sort is ignored");
        assert_eq!(
            junk.metric, None,
            "an unknown outcome drops the metric filter"
        );
    }
}
