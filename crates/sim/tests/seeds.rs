//! The simulator as a test: a band of seeds keeps every invariant, a seed
//! replays bit for bit, and the invariants can fail (a broken trace is
//! caught).

use evalpage_sim::{check, run_scenario, run_seed, simulate, Scenario, SimKind};

/// A band of seeds in the test build (unoptimised, about 6 seeds a second);
/// `scripts/test.sh` runs 10,000 more in the release build.
#[test]
fn sixty_seeds_keep_every_invariant() {
    let mut failed = Vec::new();
    for seed in 0..60 {
        let (sc, broken, _, _) = run_seed(seed);
        if !broken.is_empty() {
            failed.push(format!("{}\n  {}", sc.describe(), broken.join("\n  ")));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn a_seed_replays_bit_for_bit_and_scenarios_vary() {
    let sc = Scenario::of(42);
    assert_eq!(simulate(&sc, true).log, simulate(&sc, true).log);
    let kinds: std::collections::BTreeSet<String> = (0..200)
        .map(|s| {
            let sc = Scenario::of(s);
            format!(
                "{} {} {} {}",
                sc.crash_after.is_some(),
                sc.cancel_after.is_some(),
                sc.max_cost.is_some(),
                sc.fault_per_mille
            )
        })
        .collect();
    assert!(kinds.len() >= 12, "scenarios vary: {kinds:?}");
}

#[test]
fn the_invariants_catch_a_lost_a_doubled_and_a_resent_case() {
    for kind in [
        SimKind::Rag,
        SimKind::Task,
        SimKind::Retrieval,
        SimKind::Dialog,
        SimKind::Agent,
    ] {
        invariants_catch(kind);
    }
}

fn invariants_catch(kind: SimKind) {
    // a seed of this kind with a crash and faults
    let seed = (0..).find(|s| {
        let sc = Scenario::of(*s);
        sc.kind == kind
            && sc.crash_after.is_some_and(|k| k > 1)
            && sc.fault_per_mille > 0
            && sc.cases > 3
    });
    let sc = Scenario::of(seed.unwrap_or(0));
    let run = simulate(&sc, true);
    let clean = simulate(&sc, false);
    assert!(check(&sc, &run, &clean, &run).is_empty());
    // a case record dropped from the log: lost
    let mut lost = run.clone();
    let first_case = lost
        .log
        .lines()
        .position(|l| l.contains("\"record_type\":\"case\""));
    lost.log = lost
        .log
        .lines()
        .enumerate()
        .filter(|(i, _)| Some(*i) != first_case)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    assert!(check(&sc, &lost, &clean, &lost)
        .iter()
        .any(|b| b.contains("lost")));
    // a case record written twice: doubled
    let mut doubled = run.clone();
    let line = run
        .log
        .lines()
        .find(|l| l.contains("\"record_type\":\"case\""))
        .unwrap_or_default();
    doubled.log.push_str(&format!("{line}\n"));
    assert!(check(&sc, &doubled, &clean, &doubled)
        .iter()
        .any(|b| b.contains("settled 2 times")));
    // a case settled before the crash sent again
    let mut resent = run.clone();
    resent.settled_before_crash = vec![run.keys[0].clone()];
    resent.resent.insert(0, 1);
    assert!(check(&sc, &resent, &clean, &resent)
        .iter()
        .any(|b| b.contains("sent 1 times after")));
    // a resumed dialog that plays a turn the log had settled
    if kind == SimKind::Dialog {
        let (&job, &left) = run
            .calls_left
            .iter()
            .min()
            .expect("a resumed dialog run knows each dialog's turns left");
        let mut replayed = run.clone();
        replayed.restarted_calls.insert(job, left as u32 + 1);
        assert!(check(&sc, &replayed, &clean, &replayed)
            .iter()
            .any(|b| b.contains("calls after the resume")));
    }
    // another log on a second run: not deterministic
    assert!(check(&sc, &run, &clean, &lost)
        .iter()
        .any(|b| b.contains("another event log")));
}

/// Seed 33 (a spending cap of 0, a crash, a resume) found that a cap already
/// reached at the start still sent the first wave of calls; the core checks
/// the cap before its first send now (the CLI's side: tests/budget.rs). The
/// scenario is the one seed 33 drew before dialogs and agents joined the
/// generator.
#[test]
fn seed_33_a_cap_of_0_sends_no_call() {
    let sc = Scenario {
        seed: 33,
        kind: SimKind::Rag,
        cases: 2,
        models: 1,
        repeats: 1,
        concurrency: 4,
        max_attempts: 2,
        backoff_base_ms: 2_000,
        timeout_ms: 120_000,
        fault_per_mille: 0,
        crash_after: Some(1),
        cancel_after: None,
        max_cost: Some(0.0),
        clock_jump: None,
    };
    let (_, broken, _, _) = run_scenario(sc.clone());
    assert!(broken.is_empty(), "{}: {broken:?}", sc.describe());
    assert_eq!(simulate(&sc, true).calls, 0);
}

/// Seed 1 (a task asked twice per sample of three models, half the calls
/// faulted) found that the report named a repeated case once: its askings'
/// verdicts were one case to `reconcile`, which then disagreed with the log
/// wherever two askings of a sample ended differently. Each asking is now a
/// case row with its `repeat` (the CLI's side: tests/repeats.rs). The
/// scenario as seed 1 drew it.
#[test]
fn seed_1_each_asking_of_a_repeated_case_reconciles() {
    let sc = Scenario {
        seed: 1,
        kind: SimKind::Task,
        cases: 16,
        models: 3,
        repeats: 2,
        concurrency: 6,
        max_attempts: 3,
        backoff_base_ms: 2_000,
        timeout_ms: 60_000,
        fault_per_mille: 500,
        crash_after: None,
        cancel_after: None,
        max_cost: None,
        clock_jump: None,
    };
    assert_eq!(Scenario::of(1), sc, "the generator still draws it");
    let (_, broken, _, _) = run_scenario(sc.clone());
    assert!(broken.is_empty(), "{}: {broken:?}", sc.describe());
}
