//! Properties of `tool_call_f1` on random call lists (proptest): the score is
//! in [0, 1]; permuting either list changes nothing; empty against empty is
//! 1, empty against non-empty is 0; a list against itself is 1; and the
//! optimal matching is never beaten by the greedy one the peers use.

use evalpage_core::{tool_call_f1, ArgsMode, Call};
use proptest::prelude::*;

fn call() -> impl Strategy<Value = Call> {
    // few names and values, so lists share calls often
    (0..3u8, 0..3u8, 0..4u8).prop_map(|(n, a, b)| {
        let args = match b {
            0 => format!("{{\"x\": {a}}}"),
            1 => format!("{{\"x\": {a}, \"y\": \"v\"}}"),
            2 => format!("{{\"x\": {a}.0}}"),
            _ => "{\"x\": ".to_string(), // not JSON
        };
        Call::new(&format!("f{n}"), &args)
    })
}

fn mode() -> impl Strategy<Value = ArgsMode> {
    prop_oneof![
        Just(ArgsMode::Exact),
        Just(ArgsMode::Ignore),
        Just(ArgsMode::Subset),
        Just(ArgsMode::Superset)
    ]
}

/// The lists and a random permutation of each (as a sequence of swaps).
fn lists() -> impl Strategy<Value = (Vec<Call>, Vec<Call>, Vec<usize>, Vec<usize>)> {
    (
        prop::collection::vec(call(), 0..7),
        prop::collection::vec(call(), 0..7),
    )
        .prop_flat_map(|(e, m)| {
            let (ne, nm) = (e.len(), m.len());
            (
                Just(e),
                Just(m),
                Just((0..ne).collect::<Vec<_>>()).prop_shuffle(),
                Just((0..nm).collect::<Vec<_>>()).prop_shuffle(),
            )
        })
}

fn permuted(calls: &[Call], order: &[usize]) -> Vec<Call> {
    order.iter().map(|&i| calls[i].clone()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn in_range_and_order_free((e, m, pe, pm) in lists(), mode in mode()) {
        let f = tool_call_f1(&e, &m, mode);
        prop_assert!((0.0..=1.0).contains(&f.f1), "{f:?}");
        prop_assert!((0.0..=1.0).contains(&f.precision) && (0.0..=1.0).contains(&f.recall));
        prop_assert!(f.matched <= e.len().min(m.len()));
        let g = tool_call_f1(&permuted(&e, &pe), &permuted(&m, &pm), mode);
        prop_assert_eq!(f, g);
        match (e.is_empty(), m.is_empty()) {
            (true, true) => prop_assert_eq!(f.f1, 1.0),
            (true, false) | (false, true) => prop_assert_eq!(f.f1, 0.0),
            _ => {}
        }
    }

    #[test]
    fn a_list_against_itself_is_one((e, _, _, _) in lists(), mode in mode()) {
        prop_assert_eq!(tool_call_f1(&e, &e, mode).f1, 1.0);
    }

    #[test]
    fn never_below_a_greedy_matching((e, m, _, _) in lists(), mode in mode()) {
        let f = tool_call_f1(&e, &m, mode);
        // greedy: each expected call takes the first free made call that matches it
        let mut taken = vec![false; m.len()];
        let mut greedy = 0;
        for x in &e {
            for (j, y) in m.iter().enumerate() {
                let one = tool_call_f1(std::slice::from_ref(x), std::slice::from_ref(y), mode);
                if !taken[j] && one.matched == 1 {
                    taken[j] = true;
                    greedy += 1;
                    break;
                }
            }
        }
        prop_assert!(f.matched >= greedy);
    }
}
