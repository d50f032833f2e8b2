internal import PushSealCore
internal import PushSealGatewayModel
internal import PushSealGatewayStorage

/// An error answer of the API: one JSON shape for all of them,
/// `{"error": {"code": …, "message": …, "path": "$.payload.aps.alert"}}` (`path` when a member of
/// the request is at fault). Never a stack trace, a secret or a payload's content.
struct APIError: Error, Sendable {
    /// The HTTP status.
    let status: Int
    /// Headers the status calls for (`WWW-Authenticate` with 401, `Allow` with 405).
    var headers: [(name: String, value: String)] = []
    /// A stable code (gateway-v1.md, "Errors").
    let code: String
    /// What is wrong, for people.
    let message: String
    /// The JSON path of the member at fault, if one is.
    let path: String?

    /// The most characters of a message an answer carries, and of a path: whatever of the request
    /// they quote (a member's name, say), an error answer stays small, so that a client cannot
    /// choose answers larger than the sockets' buffers and hold its connection writing them.
    static let maximumMessageCharacters = 1_024
    static let maximumPathCharacters = 256
    /// The most characters of a request's path or header that a message quotes.
    static let maximumQuotedCharacters = 64

    /// The `error` member of the answer: `{"code", "message", "path"}`.
    var json: JSONObject {
        var error = JSONObject([
            ("code", .string(code)), ("message", .string(Self.clipped(message, to: Self.maximumMessageCharacters))),
        ])
        if let path { error["path"] = .string(Self.clipped(path, to: Self.maximumPathCharacters)) }
        return error
    }

    /// The response carrying it.
    var response: HTTPResponse {
        let response = HTTPResponse.json(status, .object(JSONObject([("error", .object(json))])))
        return HTTPResponse(status: status, headers: response.headers + headers, body: response.body)
    }

    /// `text` cut to `maximum` characters, ending in `…` when it was longer.
    static func clipped(_ text: some StringProtocol, to maximum: Int) -> String {
        text.count <= maximum ? String(text) : text.prefix(maximum - 1) + "…"
    }

    /// What a message quotes of the request's own words (its path, a header's value): at most
    /// ``maximumQuotedCharacters``.
    static func quoted(_ text: some StringProtocol) -> String { clipped(text, to: maximumQuotedCharacters) }

    /// 400: a member of the request is wrong.
    static func invalid(_ path: JSONPath, _ message: String) -> APIError {
        APIError(status: 400, code: "invalid-request", message: "\(path) \(message)", path: path.description)
    }

    /// 400: a path parameter is not an id (1 to 128 printable ASCII characters but `/`).
    static func invalidParameter(_ name: String) -> APIError {
        APIError(
            status: 400, code: "invalid-request",
            message: "the path parameter \(name) must be 1 to 128 printable ASCII characters, without '/'", path: nil)
    }

    /// 400: the body is not one JSON object.
    static func notJSON(_ detail: String) -> APIError {
        APIError(status: 400, code: "invalid-json", message: "the body is not a JSON object: \(detail)", path: nil)
    }

    /// 401: no valid bearer token.
    static let unauthorized = APIError(
        status: 401, headers: [("WWW-Authenticate", "Bearer")], code: "unauthorized",
        message: "a valid bearer token is required", path: nil)

    /// 403: a valid token without the scope.
    static func forbidden(_ scope: AccessScope) -> APIError {
        APIError(
            status: 403, code: "forbidden", message: "the token does not have the \(scope.rawValue) scope", path: nil)
    }

    /// 403: a valid token of an app the configuration no longer serves (an operator's token acts
    /// in `default`, which a configuration with `apps` may not have).
    static func appNotServed(_ app: AppID) -> APIError {
        APIError(
            status: 403, code: "app-not-served",
            message: "the token's app \(app) is not in the gateway's configuration", path: nil)
    }

    /// 403: an operator's token, over every app, for an operation on an app's data.
    static let operatorToken = APIError(
        status: 403, code: "operator-token",
        message: "an operator's token spans every app and reads only GET /v1/status: an app's devices and pushes "
            + "need a token of that app (pushseal-gateway token create --app)", path: nil)

    /// 404.
    static func notFound(_ what: String) -> APIError {
        APIError(status: 404, code: "not-found", message: "\(what) does not exist", path: nil)
    }

    /// 405, with the methods that are.
    static func methodNotAllowed(_ method: String, _ path: String, allowed: [String]) -> APIError {
        APIError(
            status: 405, headers: [("Allow", allowed.joined(separator: ", "))], code: "method-not-allowed",
            message: "\(method) is not allowed on \(path) (\(allowed.joined(separator: ", ")))", path: nil)
    }

    /// 413.
    static func bodyTooLarge(_ limit: Int) -> APIError {
        APIError(status: 413, code: "body-too-large", message: "the body is over \(limit) bytes", path: nil)
    }

    /// 415.
    static let notJSONContent = APIError(
        status: 415, code: "unsupported-media-type", message: "the body must be sent as application/json", path: nil)

    /// 422: the request is well formed, but cannot be done (no sender key for a device's suite, a
    /// payload that does not fit once sealed).
    static func unprocessable(_ path: JSONPath?, _ message: String) -> APIError {
        APIError(
            status: 422, code: "unprocessable", message: path.map { "\($0) \(message)" } ?? message,
            path: path?.description)
    }

    /// 422: the push's audience resolves to more devices than one push may reach.
    static func tooManyDeliveries(_ count: Int, limit: Int) -> APIError {
        APIError(
            status: 422, code: "too-many-deliveries",
            message:
                "the push would make \(count) deliveries; one push may make at most \(limit) (max_deliveries_per_push)",
            path: JSONPath.root.member("to").description)
    }

    /// 429: the token, relay endpoint or client address went over its rate of `limit`; it may try
    /// again after `retryAfter` seconds.
    static func rateLimited(_ limit: RateLimit, retryAfter: Int) -> APIError {
        let message =
            switch limit {
            case .messages:
                "the endpoint is over its rate of messages (messages_per_second); retry after \(retryAfter) s"
            case .receipts:
                "the client address is over its rate of receipts (http.receipts_per_second); retry after \(retryAfter) s"
            case .requests, .deliveries:
                "the token is over its \(limit.rawValue) limit (\(limit.rawValue)_per_second); retry after \(retryAfter) s"
            }
        return APIError(
            status: 429, headers: [("Retry-After", "\(retryAfter)")], code: "rate-limited", message: message, path: nil)
    }

    /// 422: one push would make more deliveries than a token's burst allows at all.
    static func overBurst(_ count: Int, burst: Int) -> APIError {
        APIError(
            status: 422, code: "too-many-deliveries",
            message:
                "the push would make \(count) deliveries; a token may make at most \(burst) at once (deliveries_burst)",
            path: JSONPath.root.member("to").description)
    }

    /// What a Web Push endpoint answers a sender (gateway-v1.md, "Web Push in"): 400, 401, 403,
    /// 404, 410, 413 or 429, with the code of the status and `message`.
    static func webPush(_ status: Int, _ message: String) -> APIError {
        let code =
            switch status {
            case 401: "unauthorized"
            case 403: "forbidden"
            case 404: "not-found"
            case 410: "gone"
            case 413: "body-too-large"
            case 429: "rate-limited"
            default: "invalid-request"
            }
        return APIError(status: status, code: code, message: message, path: nil)
    }

    /// 400: the query parameter `name` is wrong.
    static func invalidQuery(_ name: String, _ detail: String) -> APIError {
        APIError(
            status: 400, code: "invalid-request", message: "query parameter \(name) \(detail)", path: nil)
    }

    /// 409: the idempotency key was used before with a different request.
    static func idempotencyConflict(_ key: String, earlier: String) -> APIError {
        APIError(
            status: 409, code: "idempotency-conflict",
            message:
                "idempotency_key \(JSONWriter.string(.string(key))) was used by push \(earlier) with a different request; "
                + "use a new key for a new push",
            path: JSONPath.root.member("idempotency_key").description)
    }

    /// 503: the database cannot be used, for the cause `error` gives (gateway-v1.md, "Storage
    /// faults"); retry later, or, when a commit did not end in time, with the same idempotency
    /// key, since the write may still be stored.
    static func unavailable(_ error: any Error) -> APIError {
        let cause = storeFailureCause(error)
        let advice =
            isOutcomeUnknownStoreFailure(error)
            ? ", and what was written may still be stored: retry with the same idempotency_key"
            : "; retry later"
        return APIError(
            status: 503, headers: [("Retry-After", "1")], code: "unavailable",
            message: "\(cause == .other ? StoreFailureCause.unreachable.explanation : cause.explanation)\(advice)",
            path: nil)
    }

    /// 503: the gateway is stopping (after SIGTERM); another instance takes the request.
    static let draining = APIError(
        status: 503, headers: [("Retry-After", "1"), ("Connection", "close")], code: "unavailable",
        message: "the gateway is stopping; send the request to another instance, or retry", path: nil)
}
