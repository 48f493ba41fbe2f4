//! Entry point of the page: renders the app, nothing else.

fn main() {
    evalpage_web::start();
}
