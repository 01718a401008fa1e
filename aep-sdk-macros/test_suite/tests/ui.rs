//! Every compile error `#[aep_extension]` emits, with the message the user sees; and
//! expansions that must compile.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
