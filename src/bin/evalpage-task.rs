//! Entry point of the task mode's bundle (`?mode=task`), loaded by
//! `www/init.js` when the mode is first opened: renders that mode only.

use evalpage_core::RunKind;
use evalpage_web::app::Splits;
use evalpage_web::components::zip_button::Zipper;
use evalpage_web::effects::local_model::{self, LocalLoad};
use evalpage_web::effects::parquet::{self, ParquetRead};
use evalpage_web::launch::{run_code, AnyRunFns};
use evalpage_web::task::TaskRoot;
use evalpage_web::task::{launch::TaskLaunch, state::code::TaskCode};
use evalpage_web::{archive, split_point, state::Mode};

split_point!(run, run: AnyRunFns = run_code::<TaskLaunch>());
split_point!(zip, zip: Zipper = archive::zip_files);
split_point!(task_code, task_code: TaskCode = TaskCode::HERE);
split_point!(local, local: LocalLoad = local_model::load_boxed);
split_point!(parquet, parquet: ParquetRead = parquet::to_jsonl);

fn main() {
    evalpage_web::app::start::<TaskRoot>(
        Mode::Run(RunKind::Task),
        Splits {
            run: Some(run),
            zip: Some(zip),
            task_code: Some(task_code),
            local: Some(local),
            parquet: Some(parquet),
            ..Splits::default()
        },
    );
}
