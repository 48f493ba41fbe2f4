//! M2, constraint contradiction: does the answer recommend what the
//! client's constraints forbid?
//!
//! Formula: eligible turns with a contradiction / eligible turns (lower is
//! better). The forbidden terms are the profile's ([`forbidden_terms`]:
//! `constraints_gt` with a negation lead, and `forbidden_assets_gt`); a turn
//! contradicts them when its answer mentions one in a clause without a
//! negation before it ([`forbidden_hits`]); `constraint_contradiction` is 1
//! then.
//!
//! Per turn: eligible (§7) when the turn is `ok` and the profile names a
//! forbidden term; an eligible turn is always scored (the answer is all it
//! needs).
//!
//! Aggregate: `details.contradiction_turns`.

use super::unit::{ratio, Aggregate, TurnInput, TurnMetric};
use crate::dialog::turn_eval::{MetricRun, TurnEval};
use crate::metric::dialog as lines;
use serde_json::{json, Value};

/// M2's unit.
pub const M2: TurnMetric = TurnMetric {
    ty: &lines::M2_CONSTRAINT_CONTRADICTION,
    key: "m2",
    run: |r| (r.eligible_m2, r.m2_status),
    aggregate,
    not_run: "",
};

/// Negations before a forbidden term in a constraint (`不投资股票`).
const CONSTRAINT_LEADS: [&str; 14] = [
    "不投资",
    "不碰",
    "不买",
    "不要",
    "不考虑",
    "不接受",
    "不想",
    "不做",
    "避免",
    "拒绝",
    "排除",
    "禁止",
    "远离",
    "不参与",
];
/// Verbs stripped from the front of a forbidden term.
const TERM_VERBS: [&str; 10] = [
    "推荐", "配置", "购买", "买入", "投资", "任何", "参与", "持有", "涉及", "买",
];
/// Negations in an answer's clause that make a mention not a recommendation.
/// The constraint leads (`拒绝`, `不投资`, ...) count as negations too.
const ANSWER_NEGATIONS: [&str; 12] = [
    "不建议",
    "不推荐",
    "不适合",
    "不宜",
    "不会推荐",
    "不配置",
    "不包括",
    "规避",
    "没有",
    "不含",
    "除了",
    "不构成",
];

/// The forbidden terms of a profile (M2): for each `constraints_gt` item
/// with a negation lead (`不投资`, `避免`, ...), the words after it, with a
/// leading verb (`推荐`, `配置`, ...) removed and cut at punctuation; plus
/// every item of `forbidden_assets_gt` when the profile has that list.
/// Constraints without a lead (`最大回撤不超过10%`) give no term: they are
/// not a lexical check.
pub fn forbidden_terms(profile: &serde_json::Map<String, Value>) -> Vec<String> {
    let list = |k: &str| crate::dialog::dataset::strings_of(profile, k);
    let mut terms = Vec::new();
    for c in list("constraints_gt") {
        let Some((at, lead)) = CONSTRAINT_LEADS
            .iter()
            .filter_map(|l| c.find(l).map(|i| (i, *l)))
            .min_by_key(|(i, _)| *i)
        else {
            continue;
        };
        let mut term = c[at + lead.len()..]
            .split(|ch: char| is_clause_end(ch) || ch == '、')
            .next()
            .unwrap_or("")
            .trim();
        while let Some(rest) = TERM_VERBS.iter().find_map(|v| term.strip_prefix(v)) {
            term = rest.trim();
        }
        if term.chars().count() >= 2 {
            terms.push(term.to_string());
        }
    }
    for t in list("forbidden_assets_gt") {
        let t = t.trim().to_string();
        if !t.is_empty() {
            terms.push(t);
        }
    }
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms
}

fn is_clause_end(c: char) -> bool {
    matches!(
        c,
        '，' | '。' | '；' | '！' | '？' | ',' | '.' | ';' | '!' | '?' | '\n' | '：' | ':'
    )
}

/// The forbidden terms the answer mentions in a clause with no negation
/// before the mention.
pub fn forbidden_hits(answer: &str, terms: &[String]) -> Vec<String> {
    let lower = answer.to_lowercase();
    terms
        .iter()
        .filter(|term| {
            let t = term.to_lowercase();
            lower.match_indices(&t).any(|(at, _)| {
                let clause_start = lower[..at]
                    .char_indices()
                    .rev()
                    .find(|(_, c)| is_clause_end(*c))
                    .map_or(0, |(i, c)| i + c.len_utf8());
                let before = &lower[clause_start..at];
                !ANSWER_NEGATIONS
                    .iter()
                    .chain(&CONSTRAINT_LEADS)
                    .any(|n| before.contains(n))
            })
        })
        .cloned()
        .collect()
}

pub(super) fn score(t: &TurnInput<'_>, row: &mut TurnEval) -> Option<&'static str> {
    let terms = t.forbidden;
    let hits = if t.ok() {
        forbidden_hits(t.answer, terms)
    } else {
        Vec::new()
    };
    let eligible = t.ok() && !terms.is_empty();
    row.eligible_m2 = eligible;
    row.m2_status = if eligible {
        MetricRun::Scored
    } else {
        MetricRun::NotEligible
    };
    row.constraint_contradiction = u8::from(!hits.is_empty());
    let none = terms.is_empty();
    row.forbidden_terms = terms.to_vec();
    row.forbidden_hits = hits;
    none.then_some("the profile's constraints name no forbidden term")
}

fn aggregate(scored: &[&TurnEval], _rows: &[TurnEval]) -> Aggregate {
    let bad = scored
        .iter()
        .filter(|r| r.constraint_contradiction == 1)
        .count();
    Aggregate {
        value: ratio(bad, scored.len()),
        details: json!({"contradiction_turns": bad}),
        reason: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn m2_finds_recommended_forbidden_terms_but_not_negated_ones() {
        let d = dialog();
        assert_eq!(
            forbidden_terms(&d.profile_gt),
            ["加密货币"],
            "a constraint without a lead gives no term"
        );
        let p = json!({"constraints_gt": ["不要推荐股票，谢谢", "避免高风险产品"], "forbidden_assets_gt": ["期货", "股票"]});
        let p = p.as_object().cloned().unwrap_or_default();
        assert_eq!(forbidden_terms(&p), ["股票", "高风险产品", "期货"]);
        let terms = forbidden_terms(&d.profile_gt);
        assert_eq!(
            forbidden_hits("可以配置一些加密货币。", &terms),
            ["加密货币"]
        );
        assert!(forbidden_hits("不建议您配置加密货币。", &terms).is_empty());
        assert!(forbidden_hits("除了加密货币以外都可以。", &terms).is_empty());
        assert!(forbidden_hits("您的要求是拒绝加密货币。", &terms).is_empty());
        assert!(forbidden_hits("以上不构成加密货币买卖建议。", &terms).is_empty());
        assert_eq!(
            forbidden_hits("不建议股票。但加密货币不错", &terms),
            ["加密货币"],
            "a negation in an earlier clause does not cover a later mention"
        );
        let tr = trace(&d, vec![turn(&d, 0, "买点加密货币吧", TurnStatus::Ok)]);
        let row = score_turn(&d, &d.pairs()[0], &tr, tr.turns.first(), None, RECALL);
        assert!(row.eligible_m2);
        assert_eq!(
            (row.constraint_contradiction, row.forbidden_hits.clone()),
            (1, vec!["加密货币".to_string()])
        );
        let mut plain = d.clone();
        plain.profile_gt.remove("constraints_gt");
        let row = score_turn(
            &plain,
            &plain.pairs()[0],
            &tr,
            tr.turns.first(),
            None,
            RECALL,
        );
        assert!(!row.eligible_m2, "no forbidden term: not eligible");
    }
}
