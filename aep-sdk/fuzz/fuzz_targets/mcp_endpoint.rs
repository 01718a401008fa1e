//! `base URL \n endpoint` through parse_base_url, check_endpoint and
//! resolve_mcp_endpoint: no panic; what resolves is HTTP(S) without credentials, and a
//! relative endpoint stays under the base URL.
#![no_main]

libfuzzer_sys::fuzz_target!(|input: &[u8]| {
    let text = String::from_utf8_lossy(input);
    let (base, endpoint) = text.split_once('\n').unwrap_or((&text, ""));
    aep_sdk_fuzz::endpoint_resolution(base, endpoint);
    aep_sdk_fuzz::endpoint_resolution("http://h:1/base", endpoint);
});
