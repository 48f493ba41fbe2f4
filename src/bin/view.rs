//! Entry point of the viewer's bundle (`?mode=view`): renders the viewer page only.

fn main() {
    evalpage_web::start_viewer();
}
