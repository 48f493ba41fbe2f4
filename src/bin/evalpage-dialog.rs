//! Entry point of the dialog mode's bundle (`?mode=dialog`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_core::RunKind;
use evalpage_web::app::Splits;
use evalpage_web::components::zip_button::Zipper;
use evalpage_web::dialog::DialogRoot;
use evalpage_web::dialog::{judges::PromptMaker, launch::DialogLaunch};
use evalpage_web::effects::local_model::{self, LocalLoad};
use evalpage_web::launch::{run_code, AnyRunFns};
use evalpage_web::{archive, split_point, state::Mode};

split_point!(run, run: AnyRunFns = run_code::<DialogLaunch>());
split_point!(zip, zip: Zipper = archive::zip_files);
split_point!(judges, judges: PromptMaker = evalpage_core::dialog::judge_prompts);
split_point!(local, local: LocalLoad = local_model::load_boxed);

fn main() {
    evalpage_web::app::start::<DialogRoot>(
        Mode::Run(RunKind::Dialog),
        Splits {
            run: Some(run),
            zip: Some(zip),
            judges: Some(judges),
            local: Some(local),
            ..Splits::default()
        },
    );
}
