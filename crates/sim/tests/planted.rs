//! The simulator's power: each bug planted in the core (with the `planted`
//! feature: `bash scripts/sim_planted.sh`) is caught, and how many seeds it
//! took, from ten starting seeds (median and worst), is printed for
//! docs/BENCHMARKS.md. Bugs are switched on one at a time, in one test
//! (the switch is process-wide).
#![cfg(feature = "planted")]

use evalpage_core::{plant, PlantedBug};
use evalpage_sim::run_seed;

/// Seeds from `first` until one breaks an invariant (at most `limit`).
fn seeds_to_catch(first: u64, limit: u64) -> Option<(u64, Vec<String>)> {
    (first..first + limit).find_map(|s| {
        let (_, broken, _, _) = run_seed(s);
        (!broken.is_empty()).then(|| (s - first + 1, broken))
    })
}

#[test]
fn every_planted_bug_is_caught() {
    let mut rows = Vec::new();
    let mut missed = Vec::new();
    for bug in PlantedBug::ALL {
        plant(Some(bug));
        let mut counts = Vec::new();
        let mut example = String::new();
        for start in 0..10 {
            match seeds_to_catch(start * 100_000, 5_000) {
                Some((n, broken)) => {
                    counts.push(n);
                    if example.is_empty() {
                        example = broken[0].clone();
                    }
                }
                None => missed.push(format!("{bug:?} from seed {}", start * 100_000)),
            }
        }
        plant(None);
        counts.sort_unstable();
        let median = counts.get(counts.len() / 2).copied().unwrap_or(0);
        let worst = counts.last().copied().unwrap_or(0);
        rows.push(format!("| {bug:?} | {median} | {worst} | {example} |"));
    }
    println!(
        "| planted bug | seeds to catch (median of 10 starts) | worst | first invariant broken |"
    );
    println!("|---|---|---|---|");
    for r in &rows {
        println!("{r}");
    }
    // with no bug planted, the same seeds pass
    assert!(seeds_to_catch(0, 50).is_none(), "a clean core fails");
    assert!(
        missed.is_empty(),
        "not caught within 5,000 seeds: {missed:?}"
    );
}
