// Test cases are generated from the fixture files at compile time (rstest `#[files]`), so a
// change under tests/fixtures must rebuild the test binaries; the rule table and schemas are
// embedded with include_str!, which cargo already tracks.
fn main() {
    println!("cargo::rerun-if-changed=tests/fixtures");
    println!("cargo::rerun-if-changed=build.rs");
}
