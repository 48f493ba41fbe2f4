//! Descriptive statistics shared by metrics, judges and reports.
//!
//! `std = sqrt(Σ(x - mean)² / n)` (population, as spec 003's example: [1, 1, 0] gives 0.47).

/// pass@k of one sample asked `n` times with `c` passes: the chance that at
/// least one of `k` answers drawn without replacement from the `n` passes,
/// by the unbiased estimator `1 − C(n−c, k) / C(n, k)` (Chen et al. 2021).
/// `None` when `k` is 0 or above `n`, or `c` above `n`.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    (k >= 1 && k <= n && c <= n).then(|| 1.0 - ratio_of_choices(n - c, n, k))
}

/// pass^k of one sample asked `n` times with `c` passes: the chance that all
/// of `k` answers drawn without replacement pass, `C(c, k) / C(n, k)`.
/// `None` as for [`pass_at_k`].
pub fn pass_hat_k(n: usize, c: usize, k: usize) -> Option<f64> {
    (k >= 1 && k <= n && c <= n).then(|| ratio_of_choices(c, n, k))
}

/// `C(a, k) / C(n, k)` for `a ≤ n`, as the product `Π (a − i) / (n − i)`
/// over `i < k` (no factorials, no overflow); 0 when `a < k`.
fn ratio_of_choices(a: usize, n: usize, k: usize) -> f64 {
    if a < k {
        return 0.0;
    }
    (0..k).map(|i| (a - i) as f64 / (n - i) as f64).product()
}

/// Mean and population std; (0, 0) for no values.
pub fn mean_std(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[cfg(test)]
mod pass_k_tests {
    use super::*;

    fn choose(n: u64, k: u64) -> f64 {
        if k > n {
            return 0.0;
        }
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }

    #[test]
    fn pass_at_k_and_pass_hat_k_are_the_binomial_formulas() {
        for n in 1..=8usize {
            for c in 0..=n {
                for k in 1..=n {
                    let (nn, cc, kk) = (n as u64, c as u64, k as u64);
                    let at = 1.0 - choose(nn - cc, kk) / choose(nn, kk);
                    let hat = choose(cc, kk) / choose(nn, kk);
                    let got = pass_at_k(n, c, k).expect("k <= n");
                    assert!(
                        (got - at).abs() < 1e-12,
                        "pass@{k} n={n} c={c}: {got} vs {at}"
                    );
                    let got = pass_hat_k(n, c, k).expect("k <= n");
                    assert!(
                        (got - hat).abs() < 1e-12,
                        "pass^{k} n={n} c={c}: {got} vs {hat}"
                    );
                }
            }
        }
    }

    #[test]
    fn known_values_and_edges() {
        // 5 asks, 2 passes: pass@1 = 2/5, pass@3 = 1 - C(3,3)/C(5,3) = 0.9,
        // pass^2 = C(2,2)/C(5,2) = 0.1
        assert_eq!(pass_at_k(5, 2, 1), Some(0.4));
        assert!((pass_at_k(5, 2, 3).unwrap_or(0.0) - 0.9).abs() < 1e-12);
        assert!((pass_hat_k(5, 2, 2).unwrap_or(0.0) - 0.1).abs() < 1e-12);
        assert_eq!(pass_at_k(3, 0, 2), Some(0.0));
        assert_eq!(pass_hat_k(3, 3, 3), Some(1.0));
        assert_eq!(pass_at_k(3, 1, 4), None);
        assert_eq!(pass_at_k(3, 1, 0), None);
    }
}
