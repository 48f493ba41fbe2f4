//! Entry point of the viewer's bundle (`?mode=view`): renders the viewer page only.

use evalpage_web::app::Splits;
use evalpage_web::{state::Mode, view_page::ViewerPage};

fn main() {
    evalpage_web::app::start::<ViewerPage>(Mode::View, Splits::default());
}
