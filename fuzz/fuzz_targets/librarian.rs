//! Librarian responses: any text a model writes gives a response or a typed error (never a
//! panic or a hang), and a response that parses keeps the protocol's promises.
#![no_main]

use laika_shared::librarian::{OperationKind, PARSE_FAILED, PROTOCOL_INVALID, ParseOptions, parse_response};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else { return };
    let options =
        ParseOptions { strict: flags & 1 != 0, fallback_only: flags & 2 != 0, max_operations: usize::from(flags >> 2) };
    let text = String::from_utf8_lossy(rest);
    match parse_response(&text, &options) {
        Ok(response) => {
            assert!(response.operations.len() <= options.max_operations);
            for op in &response.operations {
                assert!((0.0..=1.0).contains(&op.confidence));
                if options.fallback_only {
                    assert!(matches!(op.kind, OperationKind::CreateNote | OperationKind::RewriteNote));
                }
                assert!(!op.body_markdown.contains('\r'));
            }
        }
        Err(error) => assert!(error.code == PARSE_FAILED || error.code == PROTOCOL_INVALID),
    }
});
