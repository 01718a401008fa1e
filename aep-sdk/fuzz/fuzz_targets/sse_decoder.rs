//! The client's SSE reader on any bytes, cut into chunks at positions taken from the
//! input itself: no panic, and the events of the reference reading of the whole input
//! whatever the cuts. The same bytes, as text, go through the server's writer and back.
#![no_main]

libfuzzer_sys::fuzz_target!(|input: &[u8]| {
    let cuts: Vec<usize> = input
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 5 == 0)
        .map(|(i, b)| i * 3 + usize::from(*b))
        .collect();
    aep_sdk_fuzz::sse_decoding(input, &cuts);
    aep_sdk_fuzz::sse_round_trip(&String::from_utf8_lossy(input), &cuts);
});
