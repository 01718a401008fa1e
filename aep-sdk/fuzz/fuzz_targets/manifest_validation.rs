//! Any JSON document through the raw manifest rules, the serde parse and the typed
//! rules: no panic, problems name a JSON path, a valid manifest stays valid when written
//! back.
#![no_main]

libfuzzer_sys::fuzz_target!(|document: &[u8]| {
    aep_sdk_fuzz::manifest_validation(document);
});
