//! How far judges can be trusted (issue 11): agreement of a judge with human
//! labels (raw agreement and Cohen's kappa), agreement between repeated
//! judgements of one case, and how often a pairwise verdict flips when the
//! two answers swap places.
//!
//! Cohen's kappa: `κ = (p_o − p_e) / (1 − p_e)`, `p_o` the share of items on
//! which both raters agree, `p_e = Σ_c p₁(c)·p₂(c)` the agreement expected by
//! chance from each rater's label frequencies. Undefined (`None`) for no
//! items, and when `p_e = 1` (both raters always give the same one label).

use std::collections::BTreeMap;

/// Share of pairs whose two labels are equal (`None` for no pairs).
pub fn raw_agreement<T: PartialEq>(pairs: &[(T, T)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let same = pairs.iter().filter(|(a, b)| a == b).count();
    Some(same as f64 / pairs.len() as f64)
}

/// Cohen's kappa of two raters over the same items.
pub fn cohen_kappa<T: Ord + Clone>(pairs: &[(T, T)]) -> Option<f64> {
    let n = pairs.len() as f64;
    let p_o = raw_agreement(pairs)?;
    let mut first: BTreeMap<T, f64> = BTreeMap::new();
    let mut second: BTreeMap<T, f64> = BTreeMap::new();
    for (a, b) in pairs {
        *first.entry(a.clone()).or_default() += 1.0;
        *second.entry(b.clone()).or_default() += 1.0;
    }
    let p_e: f64 = first
        .iter()
        .map(|(label, c)| (c / n) * (second.get(label).copied().unwrap_or(0.0) / n))
        .sum();
    ((1.0 - p_e).abs() > 1e-12).then(|| (p_o - p_e) / (1.0 - p_e))
}

/// Share of cases whose repeated judgements all agree (cases judged once are
/// left out; `None` when no case was judged twice).
pub fn repeat_agreement<T: PartialEq>(repeats: &[Vec<T>]) -> Option<f64> {
    let judged: Vec<&Vec<T>> = repeats.iter().filter(|r| r.len() > 1).collect();
    if judged.is_empty() {
        return None;
    }
    let same = judged
        .iter()
        .filter(|r| r.iter().all(|v| *v == r[0]))
        .count();
    Some(same as f64 / judged.len() as f64)
}

/// A pairwise verdict as given by the judge: it names a position, `A` (the
/// answer shown first) or `B`, or a tie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The answer shown first.
    First,
    /// The answer shown second.
    Second,
    /// Neither.
    Tie,
}

/// Share of pairs whose verdict flips when the order is swapped: with answers
/// (X, Y) shown as (A, B) and then (B, A), a consistent judge picks `First`
/// then `Second` (or `Second` then `First`, or `Tie` twice). `None` for no pairs.
pub fn flip_rate(pairs: &[(Pick, Pick)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let consistent = |p: &(Pick, Pick)| {
        matches!(
            p,
            (Pick::First, Pick::Second) | (Pick::Second, Pick::First) | (Pick::Tie, Pick::Tie)
        )
    };
    let flips = pairs.iter().filter(|p| !consistent(p)).count();
    Some(flips as f64 / pairs.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_of_a_textbook_table() {
        // 50 items: both yes 20, both no 15, rater 1 yes / rater 2 no 5, and 10 the other way.
        let mut pairs = Vec::new();
        pairs.extend(std::iter::repeat_n(("yes", "yes"), 20));
        pairs.extend(std::iter::repeat_n(("no", "no"), 15));
        pairs.extend(std::iter::repeat_n(("yes", "no"), 5));
        pairs.extend(std::iter::repeat_n(("no", "yes"), 10));
        assert_eq!(raw_agreement(&pairs), Some(0.7));
        // p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = (0.7 - 0.5) / 0.5 = 0.4
        let k = cohen_kappa(&pairs).expect("defined");
        assert!((k - 0.4).abs() < 1e-12, "{k}");
    }

    #[test]
    fn undefined_and_perfect_cases() {
        let none: Vec<(u8, u8)> = Vec::new();
        assert_eq!(cohen_kappa(&none), None);
        assert_eq!(
            cohen_kappa(&[(1, 1), (1, 1)]),
            None,
            "one label only: p_e = 1"
        );
        assert_eq!(cohen_kappa(&[(1, 1), (2, 2)]), Some(1.0));
        assert_eq!(
            repeat_agreement(&[vec![1, 1], vec![1, 2], vec![3]]),
            Some(0.5)
        );
        assert_eq!(repeat_agreement(&[vec![1]]), None);
    }

    #[test]
    fn a_judge_that_always_picks_the_first_answer_flips_every_time() {
        let biased = [(Pick::First, Pick::First); 4];
        assert_eq!(flip_rate(&biased), Some(1.0));
        let fair = [
            (Pick::First, Pick::Second),
            (Pick::Tie, Pick::Tie),
            (Pick::Second, Pick::Tie),
        ];
        assert!((flip_rate(&fair).expect("pairs") - 1.0 / 3.0).abs() < 1e-12);
    }
}
