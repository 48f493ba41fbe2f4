//! M1, memory recall (spec 001 §6): does the memory the system under test
//! recalled for a turn hold what the turn needs?
//!
//! Formula: hit keys / resolvable keys, summed over the scored turns
//! (micro). A key is a hit when its target text (`resolve.rs`) is found in
//! any of the turn's `recall` sources: the short-term window, the long-term
//! items, the profile context (§6's order; `key_hit_sources` says which,
//! `m1_source_hits` counts them per source).
//!
//! Per turn:
//! - eligible (§7 alone): an `ok` turn whose `memory_required_keys_gt` is
//!   not empty;
//! - `not_run` when the turn has no `recall` ([`NO_RECALL`]): M1 measures
//!   what a memory system recalled, and a plain chat model recalls nothing.
//!   Only with [`ScoreOptions::m1_from_conversation`] is the conversation
//!   sent up to the turn taken as its short-term window;
//! - `unscored` when none of its keys resolves ([`NO_RESOLVABLE_KEY`]: §6
//!   keeps unresolvable keys out of the denominator);
//! - else `scored`: `key_hit_flags` holds 1 or 0 for each resolvable key, in
//!   order, aligned with `key_hit_sources`; an unresolvable key has no flag
//!   (`resolved_keys` lists every raw key with its `resolvable`).
//!
//! Aggregate: `details` has `hit_keys`, `resolvable_keys`,
//! `unresolvable_keys` (of the scored turns), `turns_without_recall` (every
//! `not_run` row) and `source_hits`; `reason` says how many eligible turns
//! had no recall whenever there is one, even beside a value.
//!
//! [`ScoreOptions::m1_from_conversation`]: crate::dialog::ScoreOptions::m1_from_conversation

use super::unit::{ratio, Aggregate, TurnInput, TurnMetric};
use crate::dialog::resolve::{resolve, MemorySources, ResolvedKey};
use crate::dialog::trace::{conversation_text, DialogTrace, TurnTrace};
use crate::dialog::turn_eval::{MetricRun, SourceHits, TurnEval};
use crate::metric::dialog as lines;
use serde_json::json;

/// M1's unit.
pub const M1: TurnMetric = TurnMetric {
    ty: &lines::M1_MEMORY_RECALL,
    key: "m1",
    run: |r| (r.eligible_m1, r.m1_status),
    aggregate,
    not_run: NO_RECALL,
};

/// The reason of a turn without a recall trace (M1 not run).
pub const NO_RECALL: &str = "no recall trace: the system under test returned no `recall` for this turn (spec 001 §4.3), and M1 measures what a memory system recalled (the opt-in --m1-from-conversation, or the page's switch, counts the conversation sent)";

/// The reason of an eligible turn none of whose keys resolves (§6: an
/// unresolvable key is not in the denominator, so nothing is left to check).
pub const NO_RESOLVABLE_KEY: &str = "no required key is resolvable (§6)";

/// The M1 sources of a turn: its `recall`; without one, with
/// `from_conversation`, the conversation up to this turn (the earlier turns'
/// user and answer texts and this user text), which is what the run sent;
/// else none (M1 is not measured).
fn sources(
    trace: &DialogTrace,
    turn: &TurnTrace,
    from_conversation: bool,
) -> Option<MemorySources> {
    if let Some(r) = &turn.recall {
        return Some(MemorySources {
            short_term: r.short_term_text(),
            long_term: r.items.iter().map(|i| i.content.clone()).collect(),
            profile: r.profile_context.clone().unwrap_or_default(),
        });
    }
    if !from_conversation {
        return None;
    }
    let mut lines: Vec<(&str, &str)> = Vec::new();
    for t in trace
        .turns
        .iter()
        .take_while(|t| t.turn_pair_id != turn.turn_pair_id)
    {
        lines.push(("user", &t.user_text));
        if let Some(p) = &t.pred_assistant_text {
            lines.push(("assistant", p));
        }
    }
    lines.push(("user", &turn.user_text));
    Some(MemorySources {
        short_term: conversation_text(lines.into_iter()),
        ..MemorySources::default()
    })
}

pub(super) fn score(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let keys = &t.pair.tags.memory_required_keys_gt;
    let resolved: Vec<ResolvedKey> = keys
        .iter()
        .map(|k| resolve(k, &t.dialog.profile_gt, &t.dialog.turns))
        .collect();
    let any_resolvable = resolved.iter().any(|k| k.resolvable);
    let srcs = t
        .turn
        .and_then(|turn| sources(t.trace, turn, t.options.m1_from_conversation));
    let mut source_hits = SourceHits::default();
    let (mut flags, mut held) = (Vec::new(), Vec::new());
    if let (Some(srcs), true) = (&srcs, t.ok()) {
        for target in resolved
            .iter()
            .filter(|k| k.resolvable)
            .filter_map(|k| k.target_text.as_ref())
        {
            let h = srcs.hits(target);
            for s in &h {
                match s.as_str() {
                    "short_term" => source_hits.short_term += 1,
                    "long_term" => source_hits.long_term += 1,
                    _ => source_hits.profile += 1,
                }
            }
            flags.push(u8::from(!h.is_empty()));
            held.push(h);
        }
    }
    // §7 alone: an ok turn with required keys is eligible.
    let eligible = t.ok() && !keys.is_empty();
    row.eligible_m1 = eligible;
    row.m1_status = match (eligible, srcs.is_some(), any_resolvable) {
        (false, _, _) => MetricRun::NotEligible,
        (true, false, _) => MetricRun::NotRun,
        (true, true, false) => MetricRun::Unscored,
        (true, true, true) => MetricRun::Scored,
    };
    row.required_keys_raw = keys.clone();
    row.resolved_keys = resolved;
    row.key_hit_flags = flags;
    row.key_hit_sources = held;
    row.m1_source_hits = source_hits;
    if keys.is_empty() {
        Some("no memory_required_keys_gt")
    } else if srcs.is_none() {
        Some(NO_RECALL)
    } else if !any_resolvable {
        Some(NO_RESOLVABLE_KEY)
    } else {
        None
    }
}

fn aggregate(scored: &[&TurnEval], rows: &[TurnEval]) -> Aggregate {
    let without_recall = rows
        .iter()
        .filter(|r| r.m1_status == MetricRun::NotRun)
        .count();
    let hit: usize = scored
        .iter()
        .map(|r| {
            r.key_hit_flags
                .iter()
                .map(|f| usize::from(*f))
                .sum::<usize>()
        })
        .sum();
    let resolvable: usize = scored.iter().map(|r| r.key_hit_flags.len()).sum();
    let unresolvable: usize = scored
        .iter()
        .map(|r| r.resolved_keys.iter().filter(|k| !k.resolvable).count())
        .sum();
    let src = |f: fn(&TurnEval) -> usize| -> usize { scored.iter().map(|r| f(r)).sum() };
    let details = json!({
        "hit_keys": hit, "resolvable_keys": resolvable, "unresolvable_keys": unresolvable,
        "turns_without_recall": without_recall,
        "source_hits": {"short_term": src(|r| r.m1_source_hits.short_term),
                        "long_term": src(|r| r.m1_source_hits.long_term),
                        "profile": src(|r| r.m1_source_hits.profile)},
    });
    Aggregate {
        value: ratio(hit, resolvable),
        details,
        reason: (without_recall > 0)
            .then(|| format!("{without_recall} eligible turn(s) had no recall trace: {NO_RECALL}")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::dialog::trace::{Recall, RecallItem};

    #[test]
    fn m1_resolves_every_raw_key_and_searches_the_three_sources() {
        let d = dialog();
        let mut t0 = turn(&d, 0, "好的", TurnStatus::Ok);
        t0.recall = Some(Recall {
            short_term_context: Some("user: 别的话题".into()),
            items: vec![RecallItem {
                content: "用户: 我的风险偏好是稳健".into(),
                ..RecallItem::default()
            }],
            profile_context: Some("风险等级：稳健".into()),
            ..Recall::default()
        });
        let tr = trace(&d, vec![t0]);
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert_eq!(row.required_keys_raw.len(), 3);
        assert_eq!(
            row.resolved_keys.len(),
            3,
            "one entry per raw key, in order"
        );
        let res: Vec<bool> = row.resolved_keys.iter().map(|k| k.resolvable).collect();
        assert_eq!(res, [true, false, true]);
        assert_eq!(row.key_hit_flags, [1, 1], "one integer per resolvable key");
        assert_eq!(
            row.key_hit_sources,
            [
                vec!["long_term".to_string(), "profile".into()],
                vec!["long_term".into()]
            ]
        );
        let hits = row.key_hits();
        assert_eq!(hits.len(), 3);
        assert_eq!(hits[1], None, "the unresolvable key has no flag");
        assert_eq!(
            hits[2].map(|(f, s)| (f, s.to_vec())),
            Some((1, vec!["long_term".to_string()]))
        );
        assert_eq!(
            row.m1_source_hits,
            SourceHits {
                short_term: 0,
                long_term: 2,
                profile: 1
            }
        );
        assert!(row.eligible_m1);
        assert_eq!(row.m1_status, MetricRun::Scored);
    }

    #[test]
    fn m1_without_a_recall_trace_is_not_measured_unless_asked_to_search_the_conversation() {
        let d = dialog();
        let tr = trace(&d, vec![turn(&d, 0, "您是稳健型", TurnStatus::Ok)]);
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert!(row.eligible_m1, "§7 alone decides eligibility");
        assert_eq!(row.m1_status, MetricRun::NotRun, "no recall: M1 not run");
        assert!(row.key_hit_flags.is_empty());
        assert_eq!(
            row.skip_reasons.get("m1").map(String::as_str),
            Some(NO_RECALL)
        );
        let s = summarize("r", "m", Counters::default(), std::slice::from_ref(&row));
        let m1 = &s.metrics["m1_memory_recall"];
        assert_eq!((m1.status.as_str(), m1.value), ("not_run", None));
        assert_eq!(
            (m1.eligible_count, m1.not_run_count, m1.skipped_count),
            (1, 1, 0)
        );
        assert_eq!(m1.details["turns_without_recall"], 1);
        assert!(m1
            .reason
            .as_deref()
            .is_some_and(|r| r.starts_with("1 eligible turn(s) had no recall")));
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, CONVERSATION);
        assert!(row.eligible_m1);
        assert_eq!(
            row.key_hit_flags,
            [1, 1],
            "the user said 稳健 in this turn's request"
        );
    }

    #[test]
    fn m1_from_the_conversation_and_a_turn_whose_keys_do_not_resolve_is_unscored() {
        let d = dialog();
        let tr = trace(
            &d,
            vec![
                turn(&d, 0, "您是稳健型", TurnStatus::Ok),
                turn(&d, 1, "可以看看债券基金", TurnStatus::Ok),
                turn(&d, 2, "再看看", TurnStatus::Ok),
            ],
        );
        let rows = score_dialog(&d, &tr, None, CONVERSATION);
        assert_eq!(rows.len(), 3);
        // turn 1: no recall -> the conversation: user says 稳健, history 1 is there
        assert_eq!(rows[0].key_hit_flags, [1, 1]);
        assert_eq!(rows[0].key_hit_sources[0], ["short_term"]);
        // turn 2: its only key is unresolvable -> eligible (§7), unscored, out of the denominator
        assert!(rows[1].eligible_m1);
        assert_eq!(rows[1].m1_status, MetricRun::Unscored);
        assert!(rows[1].key_hit_flags.is_empty());
        assert_eq!(
            rows[1].skip_reasons.get("m1").map(String::as_str),
            Some(NO_RESOLVABLE_KEY)
        );
        // turn 3: 3年 was never said
        assert_eq!(rows[2].key_hit_flags, [0]);
        assert!(rows[2].eligible_m1);
    }
}
