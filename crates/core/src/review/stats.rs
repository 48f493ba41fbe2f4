//! Agreement between raters: raw agreement and Cohen's κ (nominal, from
//! `judge::agreement`), quadratic-weighted κ over an ordered scale,
//! Krippendorff's α (nominal and ordinal) for reliability data with missing
//! values, the Wilson score interval of a proportion, and the majority label
//! of several reviewers.
//!
//! Every figure that can be undefined is a `Result<_, Undefined>` whose error
//! says why in a few words; no function returns NaN or an infinity.
//!
//! The formulas are those of the references the parity test
//! (`reference_tests.rs`, fixtures from `tests/reference/agreement/`) checks
//! them against to 1e-9:
//!
//! - quadratic κ (scikit-learn's `cohen_kappa_score(y1, y2, labels=scale,
//!   weights="quadratic")`): with `O` the k × k table of counts (first
//!   rater's scale index × second's), `E[i][j] = row_i · col_j / n` the table
//!   expected by chance from the marginals, and `w(i, j) = (i − j)²` by the
//!   scale index, `κ_w = 1 − Σ w·O / Σ w·E`; undefined when `Σ w·E = 0`
//!   (both raters give the one same rating);
//! - Krippendorff's α (the `krippendorff` package, `value_domain=scale`): per
//!   unit `u` with `m_u ≥ 2` values (units with fewer are left out) and
//!   `n_uc` values `c`, the coincidences `o_ck = Σ_u (n_uc·n_uk − [c = k]·n_uc)
//!   / (m_u − 1)`; `n_c` the pairable values `c`, `n = Σ n_c`, the expected
//!   coincidences `e_ck = (n_c·n_k − [c = k]·n_c) / (n − 1)`; the distance
//!   nominal `δ = [c ≠ k]`, ordinal `δ = (Σ_{g between c and k} n_g −
//!   (n_c + n_k) / 2)²` (g over the scale indices from c to k, both ends
//!   included: the ranks of the pooled values, so a scale value nobody used
//!   adds nothing); `α = 1 − Σ o·δ / Σ e·δ`;
//! - Wilson (statsmodels' `proportion_confint(k, n, alpha=0.05,
//!   method="wilson")`), through the viewer's `chart::wilson` (z =
//!   1.959963984540054, both ends clipped to [0, 1]).

use std::collections::BTreeMap;

use crate::judge::agreement;

/// Why a figure has no value, in a few words ("one class only: κ is
/// undefined"). Shown where the number would be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Undefined(pub &'static str);

const NO_PAIRS: Undefined = Undefined("no pairs: undefined");
const OUTSIDE_SCALE: Undefined = Undefined("a label outside the scale: undefined");
const SCALE_REPEATS: Undefined = Undefined("the scale repeats a value: undefined");

/// A two-sided 95% interval, `lo ≤ hi`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

/// Share of pairs whose two labels are equal; undefined for no pairs.
pub fn raw_agreement<T: PartialEq>(pairs: &[(T, T)]) -> Result<f64, Undefined> {
    agreement::raw_agreement(pairs).ok_or(NO_PAIRS)
}

/// Cohen's κ of two raters over the same items, nominal (every disagreement
/// counts the same): `(p_o − p_e) / (1 − p_e)`. Undefined for no pairs and
/// when both raters give one same label to every item (`p_e = 1`).
pub fn cohen_kappa<T: Ord + Clone>(pairs: &[(T, T)]) -> Result<f64, Undefined> {
    if pairs.is_empty() {
        return Err(NO_PAIRS);
    }
    agreement::cohen_kappa(pairs).ok_or(Undefined("one class only: κ is undefined"))
}

/// An error when `scale` repeats a value.
fn check_scale<T: PartialEq>(scale: &[T]) -> Result<(), Undefined> {
    let repeats = scale
        .iter()
        .enumerate()
        .any(|(i, v)| scale[..i].contains(v));
    if repeats {
        Err(SCALE_REPEATS)
    } else {
        Ok(())
    }
}

/// The place of `v` in `scale`.
fn index_in<T: PartialEq>(scale: &[T], v: &T) -> Result<usize, Undefined> {
    scale.iter().position(|s| s == v).ok_or(OUTSIDE_SCALE)
}

/// Quadratic-weighted Cohen's κ of two raters over the ordered `scale` (the
/// full rating scale, e.g. 1..=5, lowest first): a disagreement weighs the
/// square of the distance between the two ratings' places in the scale.
/// Undefined for no pairs, a rating outside the scale, a scale that repeats
/// a value, and when both raters give one same rating to every item.
pub fn cohen_kappa_quadratic<T: PartialEq>(
    pairs: &[(T, T)],
    scale: &[T],
) -> Result<f64, Undefined> {
    if pairs.is_empty() {
        return Err(NO_PAIRS);
    }
    check_scale(scale)?;
    let k = scale.len();
    let mut table = vec![0u64; k * k];
    let (mut rows, mut cols) = (vec![0u64; k], vec![0u64; k]);
    for (a, b) in pairs {
        let (i, j) = (index_in(scale, a)?, index_in(scale, b)?);
        table[i * k + j] += 1;
        rows[i] += 1;
        cols[j] += 1;
    }
    let n = pairs.len() as f64;
    let (mut observed, mut expected) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            let w = (i as f64 - j as f64).powi(2);
            observed += w * table[i * k + j] as f64;
            expected += w * (rows[i] as f64 * cols[j] as f64 / n);
        }
    }
    // A sum of non-negative terms, each 0 exactly when its product of counts
    // or its weight is: exact equality is safe.
    if expected == 0.0 {
        return Err(Undefined("one rating only: weighted κ is undefined"));
    }
    Ok(1.0 - observed / expected)
}

/// Level of measurement of Krippendorff's α: which disagreements count and
/// how much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Labels without order: every disagreement counts 1.
    Nominal,
    /// Ratings on an ordered scale: a disagreement counts by how many pooled
    /// values lie between the two ratings.
    Ordinal,
}

/// Krippendorff's α of reliability data: `units[u][r]` is reviewer `r`'s
/// label of unit `u`, `None` when missing (rows may differ in length).
/// `scale` is the value domain (for [`Level::Ordinal`] ordered, lowest
/// first). Units with fewer than 2 labels are left out. Undefined for a
/// scale of fewer than 2 values or that repeats one, a label outside the
/// scale, no unit with 2 labels (no pairable values), and when every
/// pairable label is the same value (expected disagreement 0).
pub fn krippendorff_alpha<T, U>(units: &[U], scale: &[T], level: Level) -> Result<f64, Undefined>
where
    T: PartialEq,
    U: AsRef<[Option<T>]>,
{
    let v = scale.len();
    if v < 2 {
        return Err(Undefined("a scale of one value: α is undefined"));
    }
    check_scale(scale)?;
    let mut o = vec![0.0f64; v * v];
    let mut n_c = vec![0u64; v];
    let mut counts = vec![0u64; v];
    for unit in units {
        counts.iter_mut().for_each(|c| *c = 0);
        let mut m = 0u64;
        for label in unit.as_ref().iter().flatten() {
            counts[index_in(scale, label)?] += 1;
            m += 1;
        }
        if m < 2 {
            continue;
        }
        for c in 0..v {
            n_c[c] += counts[c];
            for k in 0..v {
                let same = if c == k { counts[c] } else { 0 };
                let pairs = counts[c] * counts[k] - same;
                if pairs > 0 {
                    o[c * v + k] += pairs as f64 / (m - 1) as f64;
                }
            }
        }
    }
    let n: u64 = n_c.iter().sum();
    if n < 2 {
        return Err(Undefined(
            "fewer than 2 pairable values (no unit with 2 labels): α is undefined",
        ));
    }
    let delta = |c: usize, k: usize| -> f64 {
        match level {
            Level::Nominal => f64::from(u8::from(c != k)),
            Level::Ordinal => {
                let (a, b) = (c.min(k), c.max(k));
                let between: u64 = n_c[a..=b].iter().sum();
                (between as f64 - (n_c[a] + n_c[b]) as f64 / 2.0).powi(2)
            }
        }
    };
    let (mut observed, mut expected) = (0.0, 0.0);
    for c in 0..v {
        for k in 0..v {
            let d = delta(c, k);
            let same = if c == k { n_c[c] } else { 0 };
            observed += o[c * v + k] * d;
            expected += (n_c[c] * n_c[k] - same) as f64 / (n - 1) as f64 * d;
        }
    }
    // Non-negative terms; a term is positive only for two different values
    // both used, so exact 0 means one value only.
    if expected == 0.0 {
        return Err(Undefined(
            "one value only: expected disagreement is 0, α is undefined",
        ));
    }
    Ok(1.0 - observed / expected)
}

/// The Wilson score 95% interval of `k` successes in `n` trials. Undefined
/// for `n = 0` and for `k > n`.
pub fn wilson(k: u64, n: u64) -> Result<Interval, Undefined> {
    if n == 0 {
        return Err(Undefined("no cases: the interval is undefined"));
    }
    if k > n {
        return Err(Undefined("more successes than cases: undefined"));
    }
    let (lo, hi) = crate::view::chart::wilson(k as f64, n as f64);
    Ok(Interval { lo, hi })
}

/// The label most of `labels` give (several reviewers' labels of one case).
/// `None` for no labels and for a tie between the most frequent labels (the
/// caller counts those cases).
pub fn majority<T: Ord + Clone>(labels: &[T]) -> Option<T> {
    let mut counts: BTreeMap<&T, usize> = BTreeMap::new();
    for l in labels {
        *counts.entry(l).or_default() += 1;
    }
    let top = counts.values().copied().max()?;
    let mut leaders = counts.into_iter().filter(|(_, c)| *c == top);
    let (first, _) = leaders.next()?;
    leaders.next().is_none().then(|| first.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: Result<f64, Undefined>, want: f64) {
        let got = got.expect("defined");
        assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    }

    fn table(cells: &[((u32, u32), usize)]) -> Vec<(u32, u32)> {
        cells
            .iter()
            .flat_map(|(pair, n)| std::iter::repeat_n(*pair, *n))
            .collect()
    }

    #[test]
    fn nominal_kappa_of_a_textbook_table() {
        // Wikipedia's "Cohen's kappa" example: 50 proposals, both yes 20,
        // both no 15, A yes / B no 5, A no / B yes 10: p_o = 0.7, p_e = 0.5,
        // κ = 0.4.
        let pairs = table(&[((1, 1), 20), ((0, 0), 15), ((1, 0), 5), ((0, 1), 10)]);
        close(raw_agreement(&pairs), 0.7);
        close(cohen_kappa(&pairs), 0.4);
        assert_eq!(
            cohen_kappa(&[(1, 1), (1, 1)]),
            Err(Undefined("one class only: κ is undefined"))
        );
        assert_eq!(cohen_kappa::<u8>(&[]), Err(NO_PAIRS));
        assert_eq!(raw_agreement::<u8>(&[]), Err(NO_PAIRS));
    }

    #[test]
    fn quadratic_kappa_by_hand() {
        // Scale 1..=3, 4 items: (1,1) (2,3) (3,3) (1,2).
        // Rows (first rater) 2,1,1; columns 1,1,2; n = 4.
        // Observed Σw·O = w(2,3) + w(1,2) = 1 + 1 = 2.
        // Expected E = row·col/4: Σ w·E = [1·(2·1) + 4·(2·2) + 1·(1·1) + 1·(1·2)
        //   + 4·(1·1) + 1·(1·1)] / 4 = (2 + 16 + 1 + 2 + 4 + 1) / 4 = 6.5.
        // κ_w = 1 − 2 / 6.5 = 9/13.
        let pairs = [(1, 1), (2, 3), (3, 3), (1, 2)];
        close(cohen_kappa_quadratic(&pairs, &[1, 2, 3]), 9.0 / 13.0);
        // An unused end of the scale moves the indices by the same amount:
        // the same κ_w over 0..=3.
        close(cohen_kappa_quadratic(&pairs, &[0, 1, 2, 3]), 9.0 / 13.0);
        // Binary: quadratic κ is nominal κ.
        let pairs = table(&[((1, 1), 20), ((0, 0), 15), ((1, 0), 5), ((0, 1), 10)]);
        close(cohen_kappa_quadratic(&pairs, &[0, 1]), 0.4);
        // f64 ratings work too.
        close(
            cohen_kappa_quadratic(&[(1.0, 2.0), (2.0, 1.0)], &[1.0, 2.0]),
            -1.0,
        );
        assert!(cohen_kappa_quadratic(&[(3, 3), (3, 3)], &[1, 2, 3, 4, 5]).is_err());
        assert_eq!(
            cohen_kappa_quadratic(&[(1, 6)], &[1, 2, 3, 4, 5]),
            Err(OUTSIDE_SCALE)
        );
        assert_eq!(
            cohen_kappa_quadratic(&[(1, 2)], &[1, 2, 1]),
            Err(SCALE_REPEATS)
        );
        // Opposite constant raters: defined, κ_w = 0.
        close(
            cohen_kappa_quadratic(&[(1, 5), (1, 5)], &[1, 2, 3, 4, 5]),
            0.0,
        );
    }

    #[test]
    fn alpha_of_krippendorff_s_worked_example() {
        // Krippendorff (2011), "Computing Krippendorff's alpha-reliability",
        // the example with missing data (4 observers × 12 units; rows here
        // are units): nominal α = 0.743, ordinal α = 0.815 (as quoted by
        // the `krippendorff` package's doctest).
        let observers: [[Option<u32>; 12]; 4] = [
            [
                Some(1),
                Some(2),
                Some(3),
                Some(3),
                Some(2),
                Some(1),
                Some(4),
                Some(1),
                Some(2),
                None,
                None,
                None,
            ],
            [
                Some(1),
                Some(2),
                Some(3),
                Some(3),
                Some(2),
                Some(2),
                Some(4),
                Some(1),
                Some(2),
                Some(5),
                None,
                Some(3),
            ],
            [
                None,
                Some(3),
                Some(3),
                Some(3),
                Some(2),
                Some(3),
                Some(4),
                Some(2),
                Some(2),
                Some(5),
                Some(1),
                None,
            ],
            [
                Some(1),
                Some(2),
                Some(3),
                Some(3),
                Some(2),
                Some(4),
                Some(4),
                Some(1),
                Some(2),
                Some(5),
                Some(1),
                None,
            ],
        ];
        let units: Vec<Vec<Option<u32>>> = (0..12)
            .map(|u| observers.iter().map(|o| o[u]).collect())
            .collect();
        let scale = [1, 2, 3, 4, 5];
        let nominal = krippendorff_alpha(&units, &scale, Level::Nominal).expect("defined");
        assert!((nominal - 0.743).abs() < 5e-4, "{nominal}");
        let ordinal = krippendorff_alpha(&units, &scale, Level::Ordinal).expect("defined");
        assert!((ordinal - 0.815).abs() < 5e-4, "{ordinal}");
    }

    #[test]
    fn alpha_by_hand_and_undefined() {
        // Two units, two reviewers: (a, a) and (a, b). o_aa = 2, o_ab = o_ba = 1;
        // n_a = 3, n_b = 1, n = 4; e_ab = e_ba = 3/3 = 1; α = 1 − 2/2 = 0.
        let units = [[Some('a'), Some('a')], [Some('a'), Some('b')]];
        close(krippendorff_alpha(&units, &['a', 'b'], Level::Nominal), 0.0);
        // A unit with one label adds nothing.
        let more = [
            vec![Some('a'), Some('a')],
            vec![Some('a'), Some('b')],
            vec![Some('b'), None],
        ];
        close(krippendorff_alpha(&more, &['a', 'b'], Level::Nominal), 0.0);
        // All agree on two values: α = 1.
        let agree = [[Some(1), Some(1)], [Some(2), Some(2)]];
        close(krippendorff_alpha(&agree, &[1, 2, 3], Level::Ordinal), 1.0);
        let same = [[Some(2), Some(2)], [Some(2), Some(2)]];
        assert!(krippendorff_alpha(&same, &[1, 2, 3], Level::Nominal).is_err());
        let apart = [[Some(1), None], [None, Some(2)]];
        assert!(krippendorff_alpha(&apart, &[1, 2], Level::Nominal).is_err());
        assert!(krippendorff_alpha::<u8, [Option<u8>; 2]>(&[], &[1, 2], Level::Nominal).is_err());
        assert!(krippendorff_alpha(&agree, &[1], Level::Nominal).is_err());
        assert_eq!(
            krippendorff_alpha(&agree, &[1, 3], Level::Nominal),
            Err(OUTSIDE_SCALE)
        );
    }

    #[test]
    fn wilson_reference_values() {
        // statsmodels proportion_confint(8, 10, method="wilson").
        let i = wilson(8, 10).expect("defined");
        assert!((i.lo - 0.490_162_471_536_641_83).abs() < 1e-12, "{i:?}");
        assert!((i.hi - 0.943_317_848_545_624_7).abs() < 1e-12, "{i:?}");
        let i = wilson(0, 5).expect("defined");
        assert_eq!(i.lo, 0.0);
        assert!((i.hi - 0.434_482_464_783_173_17).abs() < 1e-12, "{i:?}");
        assert!(wilson(0, 0).is_err());
        assert!(wilson(3, 2).is_err());
    }

    #[test]
    fn majority_and_ties() {
        assert_eq!(majority(&[true, true, false]), Some(true));
        assert_eq!(majority(&[3, 1, 3, 2]), Some(3));
        assert_eq!(majority(&[true, false]), None);
        assert_eq!(majority(&[1, 2, 2, 1, 3]), None);
        assert_eq!(majority::<u8>(&[]), None);
        assert_eq!(majority(&["pass"]), Some("pass"));
    }
}
