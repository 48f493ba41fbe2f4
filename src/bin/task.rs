//! Entry point of the task mode's bundle (`?mode=task`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_web::{app::TaskRoot, state::Mode, Splits};

evalpage_web::run_split_point!(evalpage_web::task::launch::TaskLaunch);
evalpage_web::zip_split_point!();
evalpage_web::task_code_split_point!();

fn main() {
    evalpage_web::start::<TaskRoot>(
        Mode::Task,
        Splits {
            run: Some(run_code),
            zipper: Some(zipper),
            task_code: Some(task_code),
            ..Splits::default()
        },
    );
}
