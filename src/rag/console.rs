//! The live `[EVAL]` console. A long run shows its first line and its last
//! [`TAIL`] lines (every line is also in the browser's console and in the
//! event log), so a flush never re-renders thousands of lines.

use crate::state::RunSnapshot;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Lines shown at the end of a long run's console.
pub const TAIL: usize = 300;

/// Console props.
#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    /// Language.
    pub lang: Lang,
    /// Latest snapshot.
    pub run: Option<Rc<RunSnapshot>>,
}

/// The console panel.
#[component]
pub fn ConsolePanel(p: &ConsoleProps) -> Html {
    let lines = p
        .run
        .as_ref()
        .map(|r| r.console.clone())
        .unwrap_or_default();
    let hidden = lines.len().saturating_sub(TAIL + 1);
    let tail = &lines[(1 + hidden).min(lines.len())..];
    html! {
        <section class="panel">
            <h2>{p.lang.pick("控制台", "Console")}</h2>
            <pre class="console" data-testid="console" tabindex="0" role="region" aria-label={p.lang.pick("控制台输出", "Console output")}>
                { for lines.first().map(|l| html!{ <div>{l.to_string()}</div> }) }
                if hidden > 0 {
                    <div class="muted" data-testid="console-hidden">{format!("… {hidden} {}", p.lang.pick(
                        "行未显示（浏览器控制台与事件日志中有全部行）",
                        "lines not shown (the browser's console and the event log have them all)"))}</div>
                }
                { for tail.iter().map(|l| html!{ <div>{l.to_string()}</div> }) }
            </pre>
        </section>
    }
}
