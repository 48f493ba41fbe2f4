//! A text editor for YAML or JSON with live checks: a textarea, a file input
//! to load the text from disk, and every problem the check found, each with
//! its line. Edits go out at once (`on_input`); the check is asked for once
//! typing has paused (`on_settle`, debounced). Clicking a problem (or Enter on
//! it) selects its line in the textarea.

use crate::components::chosen_file;
use crate::effects::debounce::{Debounce, CHECK_DELAY_MS};
use crate::task::state::check::EditorError;
use evalpage_core::Lang;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Code editor props.
#[derive(Properties, PartialEq)]
pub struct CodeEditorProps {
    /// Language.
    pub lang: Lang,
    /// Test id of the textarea; the file input is `{testid}-file`, the
    /// problems list `{testid}-errors`, the status line `{testid}-status`.
    pub testid: &'static str,
    /// Heading above the editor.
    pub label: AttrValue,
    /// The text.
    pub value: Rc<str>,
    /// Problems of the last check.
    pub errors: Vec<EditorError>,
    /// The text changed since the last check.
    pub pending: bool,
    /// Shown when the text is valid.
    #[prop_or_default]
    pub ok_text: Option<AttrValue>,
    /// Placeholder of an empty editor.
    #[prop_or_default]
    pub placeholder: AttrValue,
    /// File types offered by the file input.
    pub accept: &'static str,
    /// Rows of the textarea.
    pub rows: u32,
    /// No edits while a run is going.
    pub disabled: bool,
    /// Every edit.
    pub on_input: Callback<String>,
    /// Typing paused: check now.
    pub on_settle: Callback<()>,
    /// A file was chosen.
    pub on_file: Callback<web_sys::File>,
}

/// The editor.
#[component]
pub fn CodeEditor(p: &CodeEditorProps) -> Html {
    let area = use_node_ref();
    let debounce = use_mut_ref(Debounce::default);
    let oninput = {
        let (on_input, on_settle) = (p.on_input.clone(), p.on_settle.clone());
        Callback::from(move |e: InputEvent| {
            let Some(t) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlTextAreaElement>().ok())
            else {
                return;
            };
            on_input.emit(t.value());
            let settle = on_settle.clone();
            debounce
                .borrow_mut()
                .call(CHECK_DELAY_MS, move || settle.emit(()));
        })
    };
    let onchange = {
        let cb = p.on_file.clone();
        Callback::from(move |e: Event| {
            if let Some(file) = chosen_file(&e) {
                cb.emit(file);
            }
            // the same file can be chosen again after editing
            if let Some(i) = e
                .target()
                .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
            {
                i.set_value("");
            }
        })
    };
    let status = if p.pending {
        html! { <span class="muted">{p.lang.pick("检查中……", "checking…")}</span> }
    } else if p.errors.is_empty() {
        match &p.ok_text {
            Some(ok) => html! { <span class="ok">{format!("✓ {ok}")}</span> },
            None => html! {},
        }
    } else {
        let n = p.errors.len();
        html! { <span class="bad">{format!("✗ {n} {}", p.lang.pick("个错误", if n == 1 { "error" } else { "errors" }))}</span> }
    };
    html! {
        <div class="code-editor">
            <div class="editor-head">
                <strong id={format!("{}-label", p.testid)}>{p.label.clone()}</strong>
                <input type="file" accept={p.accept} data-testid={format!("{}-file", p.testid)} disabled={p.disabled} {onchange}
                    aria-label={format!("{}{}", p.label, p.lang.pick("：从文件打开", ": open a file"))} />
                <span data-testid={format!("{}-status", p.testid)}>{status}</span>
            </div>
            <textarea ref={area.clone()} class="code" rows={p.rows.to_string()} spellcheck="false"
                data-testid={p.testid} aria-labelledby={format!("{}-label", p.testid)} disabled={p.disabled} value={p.value.to_string()}
                placeholder={p.placeholder.clone()} {oninput} />
            if !p.errors.is_empty() && !p.pending {
                <ul class="editor-errors" data-testid={format!("{}-errors", p.testid)}>
                    { for p.errors.iter().map(|e| error_item(e, &area, &p.value)) }
                </ul>
            }
        </div>
    }
}

fn error_item(e: &EditorError, area: &NodeRef, text: &Rc<str>) -> Html {
    let select = {
        let (area, text, line) = (area.clone(), text.clone(), e.line);
        Callback::from(move |()| {
            if let (Some(line), Some(t)) = (line, area.cast::<HtmlTextAreaElement>()) {
                let (from, to) = line_span(&text, line);
                let _ = t.focus();
                let _ = t.set_selection_range(from, to);
            }
        })
    };
    let onclick = select.reform(|_: MouseEvent| ());
    // A problem with a line is reachable by Tab and selects it with Enter or Space too.
    let onkeydown = Callback::from(move |k: KeyboardEvent| {
        if k.key() == "Enter" || k.key() == " " {
            k.prevent_default();
            select.emit(());
        }
    });
    let tabindex = e.line.map(|_| "0");
    let line = e.line.map(|l| l.to_string()).unwrap_or_default();
    html! { <li data-line={line} {tabindex} {onclick} {onkeydown}>{e.text.clone()}</li> }
}

/// Start and end of 1-based `line` in `text`, in UTF-16 units (what a
/// textarea's selection counts).
pub fn line_span(text: &str, line: usize) -> (u32, u32) {
    let mut start = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        let len = l.encode_utf16().count();
        if i + 1 == line {
            return (start as u32, (start + len) as u32);
        }
        start += len + 1;
    }
    (start as u32, start as u32)
}

#[cfg(test)]
mod tests {
    use super::line_span;

    #[test]
    fn line_spans_count_utf16_units() {
        let text = "a: 1\n名字: 𝄞\nc";
        assert_eq!(line_span(text, 1), (0, 4));
        assert_eq!(line_span(text, 2), (5, 11), "𝄞 is two UTF-16 units");
        assert_eq!(line_span(text, 3), (12, 13));
        assert_eq!(line_span(text, 9), (14, 14));
    }
}
