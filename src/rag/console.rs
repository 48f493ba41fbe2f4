//! The live `[EVAL]` console.

use crate::state::RunSnapshot;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

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
    html! {
        <section class="panel">
            <h2>{p.lang.pick("控制台", "Console")}</h2>
            <pre class="console" data-testid="console" tabindex="0" role="region" aria-label={p.lang.pick("控制台输出", "Console output")}>
                { for lines.iter().map(|l| html!{ <div>{l.to_string()}</div> }) }
            </pre>
        </section>
    }
}
