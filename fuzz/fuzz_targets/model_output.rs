//! Model output parser: any bytes from a model must give a reply or a typed error, never a
//! crash, hang or panic.
#![no_main]

use laika_shared::parse::{parse_model_output, parse_planner_lenient};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse_model_output(&text);
    let _ = parse_planner_lenient(&text);
    let _ = laika_shared::packet::parse_packet(&text);
});
