//! Entry point of the viewer's bundle (`?mode=view`): renders the viewer page only.

use evalpage_web::{state::Mode, view_page::ViewerPage, Splits};

fn main() {
    evalpage_web::start::<ViewerPage>(Mode::View, Splits::default());
}
