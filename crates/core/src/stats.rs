//! Descriptive statistics shared by metrics, judges and reports.
//!
//! `std = sqrt(Σ(x - mean)² / n)` (population, as spec 003's example: [1, 1, 0] gives 0.47).

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
