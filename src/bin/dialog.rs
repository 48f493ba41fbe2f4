//! Entry point of the dialog mode's bundle (`?mode=dialog`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::{app::DialogRoot, state::Mode, Splits};

evalpage_web::run_split_point!(evalpage_web::dialog::launch::DialogLaunch);
evalpage_web::zip_split_point!();
evalpage_web::judge_split_point!();

fn main() {
    evalpage_web::start::<DialogRoot>(
        Mode::Dialog,
        Splits {
            run: Some(run_code),
            zipper: Some(zipper),
            judge_prompts: Some(judge_prompts),
            ..Splits::default()
        },
    );
}
