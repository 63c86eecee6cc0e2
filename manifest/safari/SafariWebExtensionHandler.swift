// SafariWebExtensionHandler.swift: the Safari extension's native half.
//
// Safari does not start `laika-host` on stdio as Chromium and Firefox do: each message the
// extension sends with `browser.runtime.sendNativeMessage` arrives here, in the containing app's
// extension, and the reply given to `completeRequest` is the message's response. This handler
// hands each message to Laika's native host, linked in as a static library (liblaika_safari.a,
// declared in laika.h through Laika-Bridging-Header.h), which answers it exactly as the stdio
// host answers the same native-messaging request: {"id", "method", "params"} in,
// {"id", "result"} or {"id", "error": {"code", "message"}} out.
//
// The host inside the library lives as long as this extension's process: a summary started by
// one message (summary.start) is polled by the next ones (summary.poll).

import Foundation
import SafariServices

final class SafariWebExtensionHandler: NSObject, NSExtensionRequestHandling {
    /// laika_request blocks until its reply is ready (a planning step waits for the model), and
    /// a slow request must not hold up quick ones (summary polls): so it runs here, concurrently,
    /// never on the thread Safari calls in on.
    private static let queue = DispatchQueue(
        label: "org.laika.safari.native-host", qos: .userInitiated, attributes: .concurrent)

    func beginRequest(with context: NSExtensionContext) {
        let item = context.inputItems.first as? NSExtensionItem
        let message = item?.userInfo?[SFExtensionMessageKey]
        Self.queue.async {
            let response = NSExtensionItem()
            response.userInfo = [SFExtensionMessageKey: Self.answer(message)]
            context.completeRequest(returningItems: [response], completionHandler: nil)
        }
    }

    /// The host's reply to one message, as a JSON object for Safari to hand to the extension.
    private static func answer(_ message: Any?) -> Any {
        guard let reply = Self.request(Self.json(message)) else {
            return Self.errorReply("HOST_OUT_OF_MEMORY", "the host's reply could not be allocated")
        }
        guard let data = reply.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data, options: [])
        else {
            // Not reached: the library always replies with a JSON object.
            return Self.errorReply("HOST_INVALID_REPLY", "the host's reply is not JSON")
        }
        return object
    }

    /// The message as JSON text. A message that is not an object or an array (or holds values
    /// JSON cannot carry) is sent as `null`, which the host answers with NM_INVALID_REQUEST,
    /// as the stdio host answers a request that is not an object.
    private static func json(_ message: Any?) -> String {
        // JSONSerialization raises (it does not throw) on anything isValidJSONObject refuses.
        guard let message = message, JSONSerialization.isValidJSONObject(message),
            let data = try? JSONSerialization.data(withJSONObject: message, options: []),
            let text = String(data: data, encoding: .utf8)
        else {
            return "null"
        }
        return text
    }

    /// Calls the library and frees its reply; nil only if the reply could not be allocated.
    private static func request(_ json: String) -> String? {
        let reply: UnsafeMutablePointer<CChar>? = json.withCString { laika_request($0) }
        guard let reply = reply else {
            return nil
        }
        defer { laika_free_string(reply) }
        return String(cString: reply)
    }

    private static func errorReply(_ code: String, _ message: String) -> [String: Any] {
        return ["id": NSNull(), "error": ["code": code, "message": message]]
    }
}
