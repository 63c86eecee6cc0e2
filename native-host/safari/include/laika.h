/*
 * laika.h: Laika's native host as a C library (liblaika_safari.a, crate laika-safari).
 *
 * Safari hands a web extension's native messages to the containing app's
 * SafariWebExtensionHandler instead of starting a program on stdio. The handler passes each
 * message to laika_request, which answers it as `laika-host native` answers the same
 * native-messaging frame: the same request API (documented at the top of
 * native-host/src/api.rs), the same replies, the same stable error codes.
 *
 * One host (configuration, history, engine, running summaries) and its runtime are started by
 * the first well-formed request and live as long as the process: a summary started by one call
 * (summary.start) is polled by later calls (summary.poll). Data lives in LAIKA_DATA_DIR, else the
 * platform data directory (on macOS, ~/Library/Application Support/org.Laika.laika inside the
 * app extension's sandbox container).
 *
 * Linking: besides the library, the system libraries it needs. On Linux (glibc) these are
 *   -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
 * For any target, the exact list for a build is printed by
 *   cargo rustc -p laika-safari --release [--features embedded] [--target T] --crate-type staticlib -- --print native-static-libs
 */

#ifndef LAIKA_H
#define LAIKA_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Answers one request.
 *
 * request_json: a NUL-terminated UTF-8 JSON request, {"id": <string|number>, "method": "...",
 * "params": {...}}, exactly as the extension sends it over native messaging (without the 4-byte
 * length). Not retained after the call.
 *
 * Returns the reply, a newly allocated NUL-terminated UTF-8 JSON string:
 *   {"id": ..., "result": ...}  or  {"id": ..., "error": {"code": "...", "message": "..."}}
 * Free it with laika_free_string (never with free()). Returns NULL only when the reply's
 * memory cannot be allocated.
 *
 * Malformed input gets an error reply with the stdio host's codes, never a crash:
 *   NM_INVALID_UTF8     the request is not UTF-8
 *   NM_INVALID_JSON     the request is not JSON
 *   NM_INVALID_REQUEST  not an object with a string or number id and a string method, or NULL
 *   NM_FRAME_TOO_LARGE  over 64 MiB
 * and HOST_UNKNOWN_METHOD, HOST_INVALID_PARAMS, HOST_REPLY_TOO_LARGE (a reply over 1 MiB) and
 * the method-specific codes as the stdio host returns them. Two codes are this library's own:
 *   HOST_START_FAILED   the host could not open its data directory or configuration (the next
 *                       request tries again)
 *   HOST_PANIC          a bug in the host; no panic crosses this boundary
 *
 * Thread-safe. Blocks until the reply is ready: most methods answer at once, but `plan` and
 * `tool.result` wait for the model (seconds or more), so call it on a background queue, and
 * concurrently for requests that must not wait for one another.
 */
char *laika_request(const char *request_json);

/* Frees a reply returned by laika_request. NULL is ignored. */
void laika_free_string(char *reply_json);

#ifdef __cplusplus
}
#endif

#endif /* LAIKA_H */
