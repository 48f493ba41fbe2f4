//! Start and Cancel, the status, and a progress bar with done/total and elapsed
//! time. Shared by the RAG check and the task mode (only one is shown at a time,
//! so the test ids are the same).

use crate::state::keys::{KeyPrompt, TargetLine};
use crate::state::run::Stopped;
use crate::state::{RunProgress, RunStatus};
use evalpage_core::run::StopReason;
use evalpage_core::Lang;
use std::rc::Rc;
use yew::prelude::*;

/// Run controls props.
#[derive(Properties, PartialEq)]
pub struct RunControlsProps {
    /// Language.
    pub lang: Lang,
    /// Status.
    pub status: RunStatus,
    /// Progress of the latest run.
    pub progress: Option<RunProgress>,
    /// Why Start is disabled (shown beside it), when it is.
    #[prop_or_default]
    pub blocked: Option<&'static str>,
    /// Why the start failed.
    pub error: Option<Rc<str>>,
    /// Start pressed.
    pub on_start: Callback<()>,
    /// Cancel pressed.
    pub on_cancel: Callback<()>,
    /// Pause (true) or resume (false) pressed.
    pub on_pause: Callback<bool>,
    /// Where the next run's requests go (shown beside Start).
    #[prop_or_default]
    pub target: Option<Rc<TargetLine>>,
    /// A run waiting for the user to confirm where its key goes.
    #[prop_or_default]
    pub key_prompt: Option<Rc<KeyPrompt>>,
    /// The user agreed to send the key to the prompt's origin.
    #[prop_or_default]
    pub on_confirm_key: Callback<()>,
    /// The user declined.
    #[prop_or_default]
    pub on_dismiss_key: Callback<()>,
    /// What the run would send (calls, an upper bound of tokens and cost),
    /// shown beside Start while nothing runs.
    #[prop_or_default]
    pub estimate: Option<AttrValue>,
}

/// The line beside Start: the origin that receives requests and whether a
/// key goes with them, with a warning for plain `http://` to a remote host.
pub(crate) fn target_view(lang: Lang, line: &TargetLine) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let (target, with_key) = match line {
        TargetLine::Endpoint { target, with_key } => (target, with_key),
        TargetLine::Offline => {
            return html! { <span class="muted" data-testid="target-origin">{t("离线演示模型：不发送任何请求", "Offline demo model: no request leaves the page")}</span> };
        }
        TargetLine::InPage => {
            return html! { <span class="muted" data-testid="target-origin">{t("本机模型文件在页面内运行：不发送任何请求", "The model file on this device runs in the page: no request leaves it")}</span> };
        }
    };
    let key = if *with_key {
        t(
            "（附带为该源保存的 API 密钥）",
            "(with the API key saved for this origin)",
        )
    } else {
        t("（不带 API 密钥）", "(without an API key)")
    };
    html! {
        <>
            <span class="target">{t("请求发往 ", "Requests go to ")}<code data-testid="target-origin">{target.origin.clone()}</code>{" "}{key}</span>
            if target.plain_http_remote && *with_key {
                <p class="warning" data-testid="plain-http-warning">{t(
                    "警告：这是非本机的明文 http:// 端点，API 密钥会以未加密形式经过网络。发送前会再次询问。",
                    "Warning: this is a plain http:// endpoint that is not on this machine; the API key would cross the network unencrypted. You will be asked before it is sent.")}</p>
            }
        </>
    }
}

/// The prompt of a run that waits for a click before its key is sent
/// (every mode's: the RAG and task modes' run controls, the retrieval and
/// dialog modes' key field).
pub(crate) fn key_prompt_view(
    lang: Lang,
    prompt: &KeyPrompt,
    on_confirm: &Callback<()>,
    on_dismiss: &Callback<()>,
) -> Html {
    let t = |zh: &'static str, en: &'static str| lang.pick(zh, en);
    let confirm = on_confirm.reform(|_: MouseEvent| ());
    let dismiss = on_dismiss.reform(|_: MouseEvent| ());
    let why = if prompt.plain_http_remote {
        t(
            "API 密钥将以明文 http:// 发送到非本机主机：",
            "The API key would be sent over plain http:// to a host that is not this machine:",
        )
    } else {
        t(
            "此运行会把保存的 API 密钥发送到：",
            "This run would send the saved API key to:",
        )
    };
    html! {
        <div class="warning key-prompt" data-testid="key-prompt" role="alert">
            {why}{" "}<code data-testid="key-prompt-origin">{prompt.origin.clone()}</code>{" "}
            {t("只有点击下面的按钮才会发送。", "Nothing is sent until you click the button.")}
            <button class="primary" data-testid="confirm-key" onclick={confirm}>{t("发送密钥并开始", "Send the key and start")}</button>
            <button data-testid="dismiss-key" onclick={dismiss}>{t("暂不", "Not now")}</button>
        </div>
    }
}

/// The run controls.
#[component]
pub fn RunControls(p: &RunControlsProps) -> Html {
    let t = |zh: &'static str, en: &'static str| p.lang.pick(zh, en);
    let waiting = p.status == RunStatus::Waiting;
    let running = p.status == RunStatus::Running || waiting;
    let run = p.progress.as_ref();
    let (done, total) = run.map_or((0, 0), |r| (r.done, r.total));
    let elapsed = run.map_or(0.0, |r| {
        r.now_ms.saturating_sub(r.started_ms) as f64 / 1000.0
    });
    let pct = if total == 0 {
        0.0
    } else {
        done as f64 * 100.0 / total as f64
    };
    let start = {
        let cb = p.on_start.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let cancel = {
        let cb = p.on_cancel.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let paused = run.is_some_and(|r| r.paused);
    let pause = {
        let cb = p.on_pause.clone();
        Callback::from(move |_: MouseEvent| cb.emit(!paused))
    };
    let save_error = run.and_then(|r| r.save_error.clone());
    let stopped = run.and_then(|r| r.stopped.clone());
    let limit = run
        .filter(|r| r.limit < r.concurrency)
        .map(|r| (r.limit, r.concurrency));
    html! {
        <section class="panel controls">
            <button class="primary" data-testid="start" disabled={running || p.blocked.is_some()} onclick={start}>{t("开始评测", "Start evaluation")}</button>
            <button data-testid="pause" disabled={!running || waiting} onclick={pause}>
                {if paused { t("继续", "Resume") } else { t("暂停", "Pause") }}</button>
            <button data-testid="cancel" disabled={!running} onclick={cancel}>{t("取消", "Cancel")}</button>
            if waiting { <span class="warning" data-testid="waiting-model" role="status">{t(
                "正在等待模型文件加载完成，加载后运行自动开始（“取消”可停止等待）",
                "Waiting for the model file to load: the run starts once it is loaded (Cancel stops waiting)")}</span> }
            if paused { <span class="warning" data-testid="paused">{t("已暂停：进行中的请求会完成，不再发送新请求", "Paused: calls in flight finish, nothing new is sent")}</span> }
            <span class="status">{t("状态：", "Status: ")}<code data-testid="run-status">{p.status.code()}</code></span>
            // Scaled, not resized: its transition needs no layout of the page each frame.
            <div class="progress"><div class="bar" style={format!("transform:scaleX({:.4})", pct / 100.0)}></div></div>
            <span data-testid="progress">{format!("{done}/{total}")}</span>
            <span class="muted" data-testid="elapsed">{format!("{elapsed:.1} s")}</span>
            if let Some((now, max)) = limit {
                <span class="warning" data-testid="rate-limit">{format!("{} {now}/{max}", t("因限流降低并发：", "concurrency lowered after rate limits:"))}</span>
            }
            if let (Some(why), false) = (p.blocked, running) { <span class="muted" data-testid="start-blocked">{why}</span> }
            if let (Some(e), false) = (&p.estimate, running) { <span class="muted" data-testid="estimate">{e.clone()}</span> }
            if let (Some(line), false) = (&p.target, running) { {target_view(p.lang, line)} }
            if let (Some(prompt), false) = (&p.key_prompt, running) { {key_prompt_view(p.lang, prompt, &p.on_confirm_key, &p.on_dismiss_key)} }
            if let Some(e) = &p.error { <p class="error" data-testid="start-error">{e.to_string()}</p> }
            if let Some(Stopped { reason: StopReason::Budget, message: e }) = &stopped {
                <p class="error" data-testid="stopped">{format!("{} {e}. {}",
                    t("运行达到费用上限而停止：", "The run stopped at its cost cap:"),
                    t("提高费用上限，然后用“从下载的事件日志续跑”只发送没有回答的用例。",
                      "Raise the cap, then use \"Resume from a downloaded event log\": only the cases without an answer are sent."))}</p>
            } else if let Some(Stopped { reason: StopReason::EngineStopped, message: e }) = &stopped {
                <p class="error" data-testid="stopped">{format!("{} {e}. {}",
                    t("运行停止：", "The run stopped:"),
                    t("运行已保存：刷新页面，重新选择模型文件，然后点击“继续运行”，只会询问没有回答的用例。",
                      "It is saved: reload the page, pick the model file again and press Resume it: only the cases without an answer are asked."))}</p>
            } else if let Some(Stopped { message: e, .. }) = stopped { <p class="error" data-testid="stopped">{format!("{} {e}. {}",
                t("运行在致命错误处停止：", "The run stopped at a fatal answer:"),
                t("请修正（API 密钥、模型名称或端点地址），然后用“从下载的事件日志续跑”只发送没有回答的用例。",
                  "Fix it (the API key, the model name or the endpoint URL), then use \"Resume from a downloaded event log\": only the cases without an answer are sent."))}</p> }
            if let Some(e) = save_error { <p class="warning" data-testid="save-error">{format!("{} {e}", t("本次运行未能保存到浏览器，刷新页面后无法续跑：", "This run is not being saved in the browser, so it cannot be resumed after a reload:"))}</p> }
        </section>
    }
}
