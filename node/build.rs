//! The link arguments an addon needs (on macOS, to leave Node's symbols undefined).

fn main() {
    napi_build::setup();
}
