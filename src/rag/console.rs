//! The live `[EVAL]` console: every line of the run, of which only the lines
//! in view are in the DOM (the page's one virtual list,
//! `components::virtual_table::use_window`): one line of fixed height each
//! (a long line scrolls sideways), the space of the others kept by a spacer
//! above and below, so a flush of a long run renders a window of lines, not
//! thousands. Every line is also in the browser's console and the event log.

use crate::components::virtual_table::{use_window, Geometry, Window};
use crate::rag::state::RunSnapshot;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Line height (see `pre.console` in the CSS) and most height of the console, px.
pub const GEOMETRY: Geometry = Geometry {
    row_height: 20,
    view_height: 360,
};

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
    let lines: &[Rc<str>] = p.run.as_deref().map_or(&[], |r| &r.console);
    let total = lines.len() as u32;
    let Window {
        first,
        end,
        onscroll,
    } = use_window(GEOMETRY, total);
    let h = GEOMETRY.row_height;
    let style = format!("max-height:{}px;line-height:{h}px", GEOMETRY.view_height);
    // Spans, not divs: a line is a div.
    let spacer = |lines: u32| {
        html! { <span class="spacer" aria-hidden="true" style={format!("height:{}px", GEOMETRY.height(lines))}></span> }
    };
    html! {
        <section class="panel">
            <h2>{p.lang.pick("控制台", "Console")}</h2>
            <pre class="console" data-testid="console" tabindex="0" role="region" aria-label={p.lang.pick("控制台输出", "Console output")}
                {style} {onscroll}>
                {spacer(first)}
                { for lines.iter().enumerate().take(end as usize).skip(first as usize)
                    .map(|(i, l)| html!{ <div key={i}>{l.to_string()}</div> }) }
                {spacer(total - end)}
            </pre>
        </section>
    }
}
