//! A chat request body through the extractor the chat routes use (`AepJson`): no panic,
//! the same verdict as `serde_json`, a 400 AEP error when refused, stable when written
//! back.
#![no_main]

libfuzzer_sys::fuzz_target!(|body: &[u8]| {
    aep_sdk_fuzz::request_decoding(body);
});
