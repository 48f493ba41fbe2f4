//! Entry point of the viewer's bundle (`?mode=view`): renders the viewer page
//! only; other tools' files are opened by code fetched when one is (the split
//! point `import`).

use evalpage_web::app::Splits;
use evalpage_web::effects::import::{self, ImportOpen};
use evalpage_web::{split_point, state::Mode, view_page::ViewerPage};

split_point!(import, import: ImportOpen = import::open_import);

fn main() {
    evalpage_web::app::start::<ViewerPage>(
        Mode::View,
        Splits {
            import: Some(import),
            ..Splits::default()
        },
    );
}
