//! The fields of a run's limits (`state::limits::Limits`): the answer
//! policy's two switches and, for a priced model, its prices and the cost
//! cap. Props in, the edited limits out.

use crate::components::field;
use crate::state::limits::Limits;
use evalpage_core::Lang;
use yew::prelude::*;

/// Run limits props.
#[derive(Properties, PartialEq)]
pub struct RunLimitsProps {
    /// Language.
    pub lang: Lang,
    /// The prefix of the fields' test ids (`dialog`: `dialog-max-cost`, ...).
    pub prefix: AttrValue,
    /// The limits as they are.
    pub limits: Limits,
    /// Show the prices and the cap (a model that answers in tokens).
    pub priced: bool,
    /// A run is going.
    pub disabled: bool,
    /// The edited limits.
    pub on_change: Callback<Limits>,
}

/// The run limits' fields.
#[component]
pub fn RunLimits(p: &RunLimitsProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let id = |name: &str| format!("{}-{name}", p.prefix);
    let edit = |f: fn(&mut Limits, String)| {
        let (limits, on_change) = (p.limits.clone(), p.on_change.clone());
        field::on_input(Callback::from(move |v: String| {
            let mut l = limits.clone();
            f(&mut l, v);
            on_change.emit(l);
        }))
    };
    let check = |f: fn(&mut Limits, bool)| {
        let (limits, on_change) = (p.limits.clone(), p.on_change.clone());
        Callback::from(move |e: Event| {
            let on = e
                .target_dyn_into::<web_sys::HtmlInputElement>()
                .is_some_and(|i| i.checked());
            let mut l = limits.clone();
            f(&mut l, on);
            on_change.emit(l);
        })
    };
    let number = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let l = &p.limits;
    let d = p.disabled;
    html! {
        <div class="run-limits">
            if p.priced {
                <div class="grid">
                    <label>{t("输入价格（每百万 token）", "Input price (per M tokens)")}
                        <input data-testid={id("price-in")} type="number" step="0.01" min="0" disabled={d}
                            value={number(l.price_in)} oninput={edit(|l, v| l.price_in = v.parse().ok().filter(|x: &f64| *x >= 0.0))} /></label>
                    <label>{t("输出价格（每百万 token）", "Output price (per M tokens)")}
                        <input data-testid={id("price-out")} type="number" step="0.01" min="0" disabled={d}
                            value={number(l.price_out)} oninput={edit(|l, v| l.price_out = v.parse().ok().filter(|x: &f64| *x >= 0.0))} /></label>
                    <label>{t("费用上限（需填价格）", "Cost cap (needs the prices)")}
                        <input data-testid={id("max-cost")} type="number" step="0.01" min="0" disabled={d}
                            value={number(l.max_cost)} oninput={edit(|l, v| l.max_cost = crate::state::limits::parse_cap(&v))} /></label>
                </div>
                <label class="check"><input type="checkbox" data-testid={id("truncated-as-failure")} checked={l.truncated_as_failure}
                    disabled={d} onchange={check(|l, on| l.truncated_as_failure = on)} />
                    {t("被 max_tokens 截断的回答计为调用失败（默认按原样评分）", "Count an answer cut off at max_tokens as a failed call (by default it is scored as it is)")}</label>
            }
            <label class="check"><input type="checkbox" data-testid={id("keep-going-on-fatal")} checked={l.keep_going_on_fatal}
                disabled={d} onchange={check(|l, on| l.keep_going_on_fatal = on)} />
                {t("遇到 401/403/404 仍继续发送（默认停止运行）", "Keep sending after a 401, 403 or 404 (by default the run stops)")}</label>
        </div>
    }
}
