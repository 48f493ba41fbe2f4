//! The deterministic mock judge: how the mock model (`--mock`, the page's
//! offline model) and `evalpage mock-server` answer a judge request.
//!
//! A judge request is recognised by the reply instruction the core appends
//! to every judge prompt (`prompt::instruction_scale`); anything else is not
//! a judge request (`None`). The verdict and its form are a hash of the
//! request and `nth` (how many times the caller has seen this very request:
//! repeats of one judgement are identical requests, and a real judge at a
//! temperature above 0 does not always answer them alike):
//! - the verdict: a label scale gives its first label (the pass label of the
//!   built-in prompts) about 70% of the time, a range its upper half about
//!   70%; pairwise prompts `A` 45%, `B` 45%, `TIE` 10% (so the order bias the
//!   flip rate measures shows up);
//! - the form: `GRADE: X` after a short reason 50%, a JSON verdict 20%, a
//!   `[[X]]` rating 15%, and an unreadable answer 15% (no grade at all, or a
//!   `downgrade:` line that is no grade line), so repairs are exercised;
//! - a tag-list request (`TAGS: [...]`, dialog judging) gets each tag about
//!   45% of the time, as a `TAGS:` line or a JSON object, unreadable about
//!   20% (a tag outside the list, a list that is no JSON, no list), and
//!   about one repair in four stays unreadable;
//! - a repair request (it starts with the repair message) always gets a
//!   clean `GRADE: X` line.

use super::prompt::{instruction_scale, REPAIR_EN, REPAIR_ZH};
use super::verdict::Scale;
use crate::provider::ChatMessage;

/// FNV-1a then splitmix64's finaliser (as the task mock model does).
fn hash(text: &str) -> u64 {
    let mut z = crate::demo::fnv1a(text);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The mock judge as a model that is called: identical requests of one job
/// are the repeats of one judgement (`samples: N`, or a retried call), and
/// the n-th of them gets the n-th draw, so repeats can differ as a real
/// judge's do. The CLI's `--judge mock` and the page's mock judges count this
/// way, so they give the same verdicts.
#[derive(Clone, Debug, Default)]
pub struct MockJudge {
    seen: std::collections::HashMap<(usize, u64), u64>,
}

impl MockJudge {
    /// The answer to this request of `job` (empty when it is no judge
    /// request), with token counts as the demo model counts them.
    pub fn answer(&mut self, job: usize, messages: &[ChatMessage]) -> crate::provider::Answer {
        let all: String = messages.iter().map(|m| m.content.as_str()).collect();
        let n = self
            .seen
            .entry((job, crate::demo::fnv1a(&all)))
            .or_insert(0);
        let nth = *n;
        *n += 1;
        let text = reply(messages, nth).unwrap_or_default();
        crate::provider::Answer {
            usage: Some(crate::demo::usage(messages, &text, None)),
            ..crate::provider::Answer::from(text)
        }
    }
}

/// The mock judge's answer to a request, or `None` when it is no judge request.
pub fn reply(messages: &[ChatMessage], nth: u64) -> Option<String> {
    let last = messages.iter().rev().find(|m| m.role == "user")?;
    let scale = instruction_scale(&last.content)?;
    let all: String = messages.iter().map(|m| m.content.as_str()).collect();
    let h = hash(&format!("{all}\u{1f}{nth}"));
    let verdict = choose(&scale, h % 100);
    let repair = last.content.starts_with(REPAIR_EN) || last.content.starts_with(REPAIR_ZH);
    if let Scale::Tags(tags) = &scale {
        return Some(tag_reply(tags, h, repair));
    }
    if repair {
        return Some(format!("GRADE: {verdict}"));
    }
    let form = (h >> 16) % 100;
    Some(match form {
        0..=49 => {
            format!("The answer was compared with what the question asks for.\nGRADE: {verdict}")
        }
        50..=69 => {
            format!("{{\"verdict\": \"{verdict}\", \"reason\": \"checked against the criteria\"}}")
        }
        70..=84 => format!("Weighing the criteria, my rating is [[{verdict}]]."),
        85..=92 => "The answer addresses the question, but I cannot settle on a grade.".to_string(),
        _ => format!("downgrade: {verdict} would be too harsh here."),
    })
}

/// A tag-list answer: each tag about 45% of the time, as a `TAGS:` line 55%, a JSON
/// object 25%, and unreadable 20% (a tag outside the list, a list that is
/// no JSON, or no list); a repair gets a clean `TAGS:` line, except about one
/// in four that stays unreadable (so some verdicts end unscored).
fn tag_reply(tags: &[String], h: u64, repair: bool) -> String {
    let picked: Vec<&String> = tags
        .iter()
        .enumerate()
        .filter(|(i, _)| hash(&format!("{h}\u{1f}{i}")) % 100 < 45)
        .map(|(_, t)| t)
        .collect();
    let list = serde_json::to_string(&picked).unwrap_or_else(|_| "[]".into());
    if repair {
        return match (h >> 8) % 4 {
            0 => "I still cannot list them.".to_string(),
            _ => format!("TAGS: {list}"),
        };
    }
    match (h >> 16) % 100 {
        0..=54 => format!("The answer was checked against each tag.\nTAGS: {list}"),
        55..=79 => format!("{{\"tags\": {list}, \"reason\": \"checked against the criteria\"}}"),
        80..=86 => "TAGS: [\"something_else\"]".to_string(),
        87..=93 => format!(
            "TAGS: {}",
            picked
                .iter()
                .map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "The answer discusses some of these points, but I cannot list them.".to_string(),
    }
}

fn choose(scale: &Scale, roll: u64) -> String {
    match scale {
        Scale::Labels(labels)
            if labels.iter().any(|l| l == "A") && labels.iter().any(|l| l == "B") =>
        {
            let tie = labels.iter().any(|l| l == "TIE");
            match roll {
                0..=44 => "A".into(),
                45..=89 => "B".into(),
                _ if tie => "TIE".into(),
                _ => "A".into(),
            }
        }
        Scale::Labels(labels) => {
            if roll < 70 || labels.len() < 2 {
                labels[0].clone()
            } else {
                let rest = &labels[1..];
                rest[(roll as usize) % rest.len()].clone()
            }
        }
        Scale::Tags(tags) => tags.first().cloned().unwrap_or_default(),
        Scale::Range { lo, hi } => {
            let span = (hi - lo + 1) as u64;
            let mid = lo + (hi - lo) / 2;
            let upper = (hi - mid) as u64;
            if roll < 70 && upper > 0 {
                (mid + 1 + (roll % upper) as i64).to_string()
            } else {
                (lo + (roll % span) as i64).to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::prompt::{builtin, BUILTIN_IDS};
    use crate::judge::verdict::{read, Verdict};
    use crate::Lang;

    #[test]
    fn answers_only_judge_requests_in_varied_forms_some_unreadable() {
        assert_eq!(reply(&[ChatMessage::new("user", "What is 2+2?")], 0), None);
        for id in BUILTIN_IDS {
            let p = builtin(id, Lang::En).expect("builtin");
            let (mut scored, mut unscored) = (0, 0);
            let mut values = std::collections::BTreeSet::new();
            for i in 0..200 {
                let m = [ChatMessage::new(
                    "user",
                    format!("case {i}\n\n{}", p.instruction()),
                )];
                let a = reply(&m, 0).expect("a judge request");
                match read(&a, &p.scale) {
                    Verdict::Scored { value, .. } => {
                        scored += 1;
                        values.insert(value);
                    }
                    Verdict::Unscored { .. } => unscored += 1,
                }
                let again = [ChatMessage::new("user", p.repair("no grade"))];
                let fixed = reply(&again, 0).expect("a repair is a judge request");
                assert!(
                    matches!(read(&fixed, &p.scale), Verdict::Scored { .. }),
                    "{fixed}"
                );
            }
            assert!(unscored > 10 && scored > 150, "{id}: {scored} / {unscored}");
            assert!(values.len() >= 2, "{id}: {values:?}");
        }
    }

    #[test]
    fn tag_lists_are_answered_within_the_list_some_unreadable_some_repairs_too() {
        use crate::judge::prompt::{dialog_builtin, DIALOG_IDS};
        for id in DIALOG_IDS {
            let p = dialog_builtin(id, Lang::Zh)
                .expect("builtin")
                .with_tags(&["信息依据".to_string(), "边界声明".to_string()]);
            let (mut first, mut repaired, mut tags) = (0, 0, 0);
            for i in 0..200 {
                let m = [ChatMessage::new(
                    "user",
                    format!("回答 {i}\n\n{}", p.instruction()),
                )];
                let a = reply(&m, 0).expect("a judge request");
                first += usize::from(matches!(read(&a, &p.scale), Verdict::Scored { .. }));
                let again = [
                    m[0].clone(),
                    ChatMessage::new("assistant", a.clone()),
                    ChatMessage::new("user", p.repair("x")),
                ];
                let fixed = reply(&again, 0).expect("a repair is a judge request");
                if let Verdict::Scored { value, .. } = read(&fixed, &p.scale) {
                    repaired += 1;
                    tags += usize::from(value.contains('['));
                }
            }
            assert!((120..190).contains(&first), "{id}: {first}");
            assert!(repaired >= 130, "{id}: {repaired}");
            let is_tags = matches!(p.scale, Scale::Tags(_));
            assert_eq!(tags > 0, is_tags, "{id}");
            if is_tags {
                assert!(repaired < 195, "{id}: some repairs stay unreadable");
            }
        }
    }
}
