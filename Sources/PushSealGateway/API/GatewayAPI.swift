internal import PushSealCore
internal import PushSealDelivery
internal import PushSealGatewayModel
internal import PushSealGatewayStorage
internal import PushSealPrimitives
internal import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The HTTP API under `/v1` (gateway-v1.md), and the operator's endpoints (`/healthz`, `/readyz`,
/// `/metrics`, `/status`): routes each request to its operation after checking its bearer token's
/// scope, and turns every failure into ``APIError``'s one shape. Every answer is counted by route;
/// with the access log, each is also logged.
final class GatewayAPI: Sendable {
    /// Which listener a request came in on.
    enum Listener: Sendable {
        /// The API's; it also serves the operator's endpoints unless they have their own.
        case api
        /// `metrics_listen`'s: the operator's endpoints only.
        case operations
    }

    /// Bodies over this are refused with 413.
    static let maximumBodyBytes = 65_536

    private let store: any GatewayStore
    private let apps: [AppID: AppServices]
    /// The relay of each app that has one.
    private let relays: [AppID: WebPushRelay]
    /// Whether an app has `receipts`: without one, `/v1/receipts` is 404 alike.
    private let takesReceipts: Bool
    /// Each client address's rate of receipts.
    private let receiptThrottle: ReceiptThrottle
    /// The apps' sealers' agreements, for `/metrics`.
    private let agreements: HPKE.SenderAgreements
    private let metrics: Metrics
    private let log: EventLog
    private let isReady: @Sendable () -> Bool
    private let providerTokens: @Sendable () -> Int
    private let status: StatusReport
    private let operationsApart: Bool
    private let accessLog: AccessLogMode
    private let routing: WebhookRouting
    private let draining = Atomic<Bool>(false)

    /// An API over `store` serving `apps`, whose sealers keep `agreements`; `isReady` says whether APNs credentials work,
    /// `providerTokens` how many provider tokens were made; `status` reports for `/status`;
    /// `operationsApart` keeps `/metrics` off the API's listener; `accessLog` says which requests
    /// are logged; `routing` names the webhook endpoints that hear of a deleted device's deliveries
    /// and of receipts; `http` holds the receipts' rate per client address.
    init(
        store: any GatewayStore, apps: [AppServices], agreements: HPKE.SenderAgreements, metrics: Metrics,
        log: EventLog,
        isReady: @escaping @Sendable () -> Bool, providerTokens: @escaping @Sendable () -> Int, status: StatusReport,
        operationsApart: Bool, accessLog: AccessLogMode, routing: WebhookRouting, http: HTTPLimits = HTTPLimits()
    ) {
        self.apps = Dictionary(uniqueKeysWithValues: apps.map { ($0.id, $0) })
        relays = self.apps.compactMapValues(\.relay)
        takesReceipts = apps.contains { $0.receipts != nil }
        receiptThrottle = ReceiptThrottle(http, metrics: metrics)
        self.agreements = agreements
        self.routing = routing
        self.status = status
        self.operationsApart = operationsApart
        self.accessLog = accessLog
        self.providerTokens = providerTokens
        self.store = store
        self.metrics = metrics
        self.log = log
        self.isReady = isReady
    }

    /// From now on `/readyz` and every API request answer 503: the gateway is stopping.
    func startDraining() { draining.store(true, ordering: .sequentiallyConsistent) }

    /// The response to `request`, which came in on `listener`; counted, and logged with the
    /// access log.
    func respond(_ request: HTTPRequest, on listener: Listener = .api) -> HTTPResponse {
        let clock = ContinuousClock()
        let started = clock.now
        var caller: AccessTokenRecord?
        let endpoint = Endpoint(request.path)
        var response: HTTPResponse
        do {
            response = try route(request, endpoint, on: listener, caller: &caller)
        } catch let error as APIError {
            response = error.response
        } catch {
            log.storeError(error, counting: metrics)
            response = APIError.unavailable(error).response
        }
        if takesReceipts, endpoint?.isReceipts == true {
            response = HTTPResponse(
                status: response.status, headers: response.headers + ReceiptEndpoint.crossOriginHeaders,
                body: response.body)
        }
        let seconds = started.duration(to: clock.now).seconds
        let route = endpoint?.template ?? "other"
        metrics.request(
            method: Self.methodLabel(request.method), route: route, status: response.status, seconds: seconds)
        if accessLog.logs(route: route) {
            var members: [(String, JSONValue)] = [
                ("method", .string(Self.methodLabel(request.method))), ("route", .string(route)),
                ("status", .number(JSONNumber(response.status))),
                ("duration_ms", .number(JSONNumber(Int((seconds * 1_000).rounded())))),
            ]
            if let caller {
                members.append(("token_id", .string(caller.id)))
                members.append(("app", caller.app.map { .string($0.name) } ?? .null))
            }
            log.write("request", members)
        }
        return response
    }

    /// The method as a label: one of HTTP's, or `other` (a client chooses it).
    private static func methodLabel(_ method: String) -> String {
        ["GET", "PUT", "POST", "DELETE", "HEAD", "OPTIONS", "PATCH"].contains(method) ? method : "other"
    }

    /// The resources of the API.
    private enum Endpoint {
        case health, readiness, metrics, pushes, statusPage, statusScript, statusJSON, apiStatus, devices,
            applicationServerKey
        case device(String)
        case deviceTest(String)
        case deviceWebPush(String)
        case webPushEndpoint(String)
        case fetch(String)
        case receipts
        case receipt(String)
        case userDevices(String)
        case push(String)

        /// The endpoint of `path`, if it is one.
        init?(_ path: String) {
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            switch parts.count {
            case 1 where parts[0] == "healthz": self = .health
            case 1 where parts[0] == "readyz": self = .readiness
            case 1 where parts[0] == "metrics": self = .metrics
            case 1 where parts[0] == "status": self = .statusPage
            case 1 where parts[0] == "status.js": self = .statusScript
            case 1 where parts[0] == "status.json": self = .statusJSON
            case 2 where parts[0] == "v1" && parts[1] == "pushes": self = .pushes
            case 2 where parts[0] == "v1" && parts[1] == "status": self = .apiStatus
            case 2 where parts[0] == "v1" && parts[1] == "devices": self = .devices
            case 3 where parts[0] == "v1" && parts[1] == "devices": self = .device(parts[2])
            case 3 where parts[0] == "v1" && parts[1] == "pushes": self = .push(parts[2])
            // A user id holding `/` (sent as %2F, which the server decodes) spans segments: the same
            // route, whose parameter is then refused as no identifier (400), never a 404.
            case 4... where parts[0] == "v1" && parts[1] == "users" && parts.last == "devices":
                self = .userDevices(parts[2..<(parts.count - 1)].joined(separator: "/"))
            case 4 where parts[0] == "v1" && parts[1] == "devices" && parts[3] == "test": self = .deviceTest(parts[2])
            case 4 where parts[0] == "v1" && parts[1] == "devices" && parts[3] == "webpush":
                self = .deviceWebPush(parts[2])
            case 3 where parts[0] == "v1" && parts[1] == "webpush" && parts[2] == "vapid": self = .applicationServerKey
            case 3 where parts[0] == "v1" && parts[1] == "webpush": self = .webPushEndpoint(parts[2])
            case 3 where parts[0] == "v1" && parts[1] == "fetch": self = .fetch(parts[2])
            case 2 where parts[0] == "v1" && parts[1] == "receipts": self = .receipts
            case 3 where parts[0] == "v1" && parts[1] == "receipts": self = .receipt(parts[2])
            default: return nil
            }
        }

        /// The route as metrics and the access log name it: the path with its parameter's name.
        var template: String {
            switch self {
            case .health: "/healthz"
            case .readiness: "/readyz"
            case .metrics: "/metrics"
            case .statusPage: "/status"
            case .statusScript: "/status.js"
            case .statusJSON: "/status.json"
            case .pushes: "/v1/pushes"
            case .apiStatus: "/v1/status"
            case .devices: "/v1/devices"
            case .device: "/v1/devices/{device_id}"
            case .deviceTest: "/v1/devices/{device_id}/test"
            case .deviceWebPush: "/v1/devices/{device_id}/webpush"
            case .webPushEndpoint: "/v1/webpush/{endpoint_id}"
            case .applicationServerKey: "/v1/webpush/vapid"
            case .fetch: "/v1/fetch/{fetch_id}"
            case .receipts: "/v1/receipts"
            case .receipt: "/v1/receipts/{delivery}"
            case .userDevices: "/v1/users/{user}/devices"
            case .push: "/v1/pushes/{push_id}"
            }
        }

        /// Whether the endpoint is the operator's (served on `metrics_listen` when there is one).
        var isOperations: Bool {
            switch self {
            case .health, .readiness, .metrics, .statusPage, .statusScript, .statusJSON: true
            case .pushes, .device, .deviceTest, .deviceWebPush, .webPushEndpoint, .fetch, .userDevices, .push,
                .apiStatus, .devices, .applicationServerKey, .receipts, .receipt:
                false
            }
        }

        /// The path parameter, named as in the OpenAPI document, if the endpoint has one.
        var parameter: (name: String, value: String)? {
            switch self {
            case .health, .readiness, .metrics, .pushes, .statusPage, .statusScript, .statusJSON, .apiStatus,
                .devices, .applicationServerKey, .receipts:
                nil
            case .device(let id), .deviceTest(let id), .deviceWebPush(let id): ("device_id", id)
            case .webPushEndpoint(let id): ("endpoint_id", id)
            case .fetch(let id): ("fetch_id", id)
            case .receipt(let id): ("delivery", id)
            case .userDevices(let user): ("user", user)
            case .push(let id): ("push_id", id)
            }
        }

        /// `/v1/receipts` and `/v1/receipts/{delivery}`, which browsers reach across origins.
        var isReceipts: Bool {
            switch self {
            case .receipts, .receipt: true
            default: false
            }
        }

        /// The methods the endpoint answers, for a 405's `Allow` header.
        var methods: [String] {
            switch self {
            case .health, .readiness, .metrics, .userDevices, .push, .statusPage, .statusScript, .statusJSON,
                .apiStatus, .devices, .applicationServerKey, .fetch:
                ["GET"]
            case .pushes, .deviceTest, .deviceWebPush: ["POST"]
            case .receipts, .receipt: ["POST", "OPTIONS"]
            case .webPushEndpoint: ["POST", "DELETE"]
            case .device: ["GET", "PUT", "DELETE"]
            }
        }
    }

    private func route(
        _ request: HTTPRequest, _ endpoint: Endpoint?, on listener: Listener, caller: inout AccessTokenRecord?
    ) throws -> HTTPResponse {
        if listener == .operations {
            // The operator's listener serves nothing else, and takes no token.
            guard let endpoint, endpoint.isOperations else { throw APIError.notFound(APIError.quoted(request.path)) }
        }
        let isOperations = endpoint?.isOperations == true
        // On the API's listener: the probes always; /metrics unless it has a listener of its
        // own; the status page never (its data is /v1/status there, behind the read scope).
        if listener == .api, isOperations,
            endpoint?.template == "/status" || endpoint?.template == "/status.json"
                || (operationsApart && endpoint?.template == "/metrics")
        {
            throw APIError.notFound(APIError.quoted(request.path))
        }
        if draining.load(ordering: .sequentiallyConsistent), !isOperations { throw APIError.draining }
        // Under /v1 the token comes first: without a valid one the answer is 401 whatever the
        // path or method, so that nothing about the API is learnt without a token.
        // A Web Push sender posts with no token: the endpoint's id is the capability (RFC 8030).
        // A device fetches with the capability its push carried, in place of a token.
        let takesNoToken: Bool =
            switch (endpoint, request.method) {
            case (.webPushEndpoint?, "POST"), (.fetch?, "GET"), (.receipts?, "POST"), (.receipt?, "POST"),
                (.receipts?, "OPTIONS"), (.receipt?, "OPTIONS"):
                true
            default: false
            }
        let token = Self.isUnderV1(request.path) && !takesNoToken ? try authenticate(request) : nil
        caller = token
        // The app the request acts in is its token's, and its token's app's limits apply. An
        // operator's token (over every app) acts in none: it reads the gateway's status alone.
        let services = token?.app.flatMap { apps[$0] }
        if let token { try services?.limiter.spend(1, of: .requests, token: token.id) }
        func authorize(_ scope: AccessScope) throws -> AppServices {
            guard let token, token.allows(scope) else { throw APIError.forbidden(scope) }
            guard let app = token.app else { throw APIError.operatorToken }
            guard let services else { throw APIError.appNotServed(app) }
            return services
        }
        guard let endpoint else { throw APIError.notFound(APIError.quoted(request.path)) }
        if let (name, value) = endpoint.parameter, !RequestReader.isIdentifier(value) {
            throw APIError.invalidParameter(name)
        }
        switch (request.method, endpoint) {
        case ("GET", .health): return .json(200, .object(JSONObject([("status", .string("ok"))])))
        case ("GET", .readiness):
            if draining.load(ordering: .sequentiallyConsistent) {
                return .json(503, .object(JSONObject([("status", .string("draining"))])))
            }
            // The database must answer, and its last write must have passed: a full, broken or
            // frozen disk still answers `SELECT 1` from its cache.
            let health = store.writeHealth
            let ready = isReady() && store.isReachable() && health.isWritable
            var answer = JSONObject([("status", .string(ready ? "ready" : "not-ready"))])
            if let problem = health.problem { answer["database"] = .string(problem) }
            return .json(ready ? 200 : 503, .object(answer))
        case ("GET", .metrics):
            return .text(
                200,
                metrics.exposition(
                    try? store.statistics(), providerTokens: providerTokens(),
                    agreements: agreements, storeWritable: store.writeHealth.isWritable,
                    store: store.metrics, now: GatewayClock.milliseconds()),
                contentType: "text/plain; version=0.0.4")
        case ("GET", .statusPage):
            return HTTPResponse(status: 200, headers: StatusPage.headers, body: Array(StatusPage.html.utf8))
        case ("GET", .statusScript):
            return HTTPResponse(status: 200, headers: StatusPage.scriptHeaders, body: Array(StatusPage.script.utf8))
        case ("GET", .statusJSON):
            return .json(200, try status.json(now: GatewayClock.milliseconds()))
        case ("GET", .devices):
            let app = try authorize(.read).id
            let listing = try DeviceListing(query: request.query)
            return .json(200, listing.json(try store.devices(listing.query, in: app, limit: listing.limit + 1)))
        case ("GET", .apiStatus):
            // An app's token reads its app's status; an operator's, the gateway's.
            guard let token, token.allows(.read) else { throw APIError.forbidden(.read) }
            let app = try token.app.map { _ in try authorize(.read).id }
            return .json(200, try status.json(now: GatewayClock.milliseconds(), in: app))
        case ("GET", .applicationServerKey):
            guard let key = try authorize(.read).webPush?.applicationServerKey else {
                throw APIError.notFound("a VAPID key (the configuration has no webpush)")
            }
            return .json(200, .object(JSONObject([("application_server_key", .string(key))])))
        case ("PUT", .device(let id)):
            return try putDevice(id, request, services: try authorize(.devices))
        case ("GET", .device(let id)):
            let app = try authorize(.read).id
            guard let device = try store.device(id: id, in: app) else { throw APIError.notFound("device \(id)") }
            return .json(200, DeviceRegistration.json(device))
        case ("DELETE", .device(let id)):
            let app = try authorize(.devices).id
            guard try store.deleteDevice(id: id, in: app, at: GatewayClock.milliseconds(), routing: routing) else {
                throw APIError.notFound("device \(id)")
            }
            log.write("device-deleted", [("app", .string(app.name)), ("device", .string(id))])
            return HTTPResponse(status: 204, headers: [], body: [])
        case ("GET", .userDevices(let user)):
            let app = try authorize(.read).id
            let listing = try DeviceListing(query: request.query, user: user)
            return .json(200, listing.json(try store.devices(listing.query, in: app, limit: listing.limit + 1)))
        case ("POST", .pushes):
            return try postPush(request, services: try authorize(.pushes), token: token?.id ?? "")
        case ("POST", .deviceTest(let id)):
            return try testPush(id, services: try authorize(.pushes), token: token?.id ?? "")
        case ("POST", .deviceWebPush(let id)):
            let services = try authorize(.devices)
            return try Self.relayOrRefusal(services).register(deviceID: id, in: services.id, body: try body(request))
        case ("POST", .webPushEndpoint(let id)):
            return try WebPushRelay.receive(
                id: id, request, relays: relays, store: store, metrics: metrics)
        case ("GET", .fetch(let id)):
            return try FetchedContent.serve(id: id, request, store: store, metrics: metrics)
        case ("OPTIONS", .receipt), ("OPTIONS", .receipts):
            guard takesReceipts else { throw APIError.notFound("a delivery with receipts") }
            return ReceiptEndpoint.preflight
        case ("POST", .receipt), ("POST", .receipts):
            // Without an app that has receipts, there is nothing here, as for an unknown delivery.
            guard takesReceipts else { throw APIError.notFound("a delivery with receipts") }
            let spend = { (count: Int) throws(APIError) in try self.receiptThrottle.spend(count, for: request) }
            if case .receipt(let delivery) = endpoint {
                return try ReceiptEndpoint.receive(
                    delivery: delivery, try body(request), bearer: request.bearer, spend: spend, store: store,
                    routing: routing, metrics: metrics)
            }
            return try ReceiptEndpoint.receiveBatch(
                try body(request), spend: spend, store: store, routing: routing, metrics: metrics)
        case ("DELETE", .webPushEndpoint(let id)):
            let services = try authorize(.devices)
            return try Self.relayOrRefusal(services).remove(id: id, in: services.id)
        case ("GET", .push(let id)):
            let app = try authorize(.read).id
            let page = try DeliveryPage(query: request.query)
            guard let push = try store.push(id: id, in: app, after: page.after, limit: page.limit + 1) else {
                throw APIError.notFound("push \(id)")
            }
            return .json(200, page.json(push))
        default:
            throw APIError.methodNotAllowed(
                APIError.quoted(request.method), APIError.quoted(request.path), allowed: endpoint.methods)
        }
    }

    /// The app's relay, or 422 when its configuration has no `relay`.
    private static func relayOrRefusal(_ services: AppServices) throws(APIError) -> WebPushRelay {
        guard let relay = services.relay else {
            throw APIError.unprocessable(
                nil, "the app has no relay configuration: the gateway serves it no Web Push endpoint")
        }
        return relay
    }

    /// Whether `path` is the API's (`/v1` or below it), where every request needs a token.
    private static func isUnderV1(_ path: String) -> Bool { path == "/v1" || path.hasPrefix("/v1/") }

    /// How often a token's last use is written: at most once a minute per token.
    static let lastUseResolution: Int64 = 60_000

    /// The record of the request's bearer token; 401 without a valid one (unknown, revoked,
    /// expired, or a secret that does not match). Its last use is recorded, to the minute.
    private func authenticate(_ request: HTTPRequest) throws -> AccessTokenRecord {
        let now = GatewayClock.milliseconds()
        guard let header = request.header("authorization"), header.hasPrefix("Bearer "),
            let (id, secret) = AccessTokens.parse(String(header.dropFirst(7))),
            let record = try store.accessToken(id: id), AccessTokens.matches(secret, record), record.isValid(at: now)
        else { throw APIError.unauthorized }
        if now - (record.lastUsedAt ?? 0) >= Self.lastUseResolution {
            // Bookkeeping: a failure here must not refuse the request.
            try? store.touchAccessToken(id: id, at: now)
        }
        return record
    }

    /// The request's JSON object body, after the size and content-type checks.
    private func body(_ request: HTTPRequest) throws -> JSONObject {
        guard !request.bodyTooLarge else { throw APIError.bodyTooLarge(Self.maximumBodyBytes) }
        guard JSONContentType.matches(request.header("content-type")) else { throw APIError.notJSONContent }
        return try RequestReader.object(request.body)
    }

    private func putDevice(_ id: String, _ request: HTTPRequest, services: AppServices) throws -> HTTPResponse {
        let device = try DeviceRegistration.device(
            id: id, in: services.id, body: try body(request), topics: services.topics, sealer: services.sealer,
            webPush: services.webPush,
            at: GatewayClock.milliseconds())
        let created = try store.putDevice(device)
        let address: (String, JSONValue) =
            switch device.channel {
            case .apns(let token, _, _, _): ("token", EventLog.tokenPrefix(token))
            case .webPush(let endpoint, _, _): ("push_service", EventLog.endpointOrigin(endpoint))
            }
        log.write(
            created ? "device-registered" : "device-updated",
            [("app", .string(services.id.name)), ("device", .string(id)), address])
        return .json(created ? 201 : 200, DeviceRegistration.json(device))
    }

    private func postPush(_ request: HTTPRequest, services: AppServices, token: String) throws -> HTTPResponse {
        let requestBody = try body(request)
        let accepted = try services.pushes.accept(
            try PushRequest(requestBody), in: services.id, requestBody: requestBody, token: token)
        var answer = JSONObject([
            ("id", .string(accepted.id)), ("deliveries", .number(JSONNumber(accepted.deliveries))),
        ])
        if accepted.repeated { answer["repeated"] = .bool(true) }
        if accepted.truncated > 0 { answer["truncated"] = .number(JSONNumber(accepted.truncated)) }
        if accepted.fetched > 0 { answer["fetched"] = .number(JSONNumber(accepted.fetched)) }
        return .json(202, .object(answer))
    }

    /// How long `POST /v1/devices/{id}/test` waits for the delivery's outcome before it answers
    /// that the delivery is still queued.
    static let testPushWait = Duration.seconds(5)

    /// `POST /v1/devices/{id}/test`: a sealed test notification to one device, answered with its
    /// delivery once it ended (200), or still queued after ``testPushWait`` (202).
    private func testPush(_ id: String, services: AppServices, token: String) throws -> HTTPResponse {
        let (app, testNotification) = (services.id, services.testNotification)
        guard let device = try store.device(id: id, in: app) else { throw APIError.notFound("device \(id)") }
        guard device.unregisteredAt == nil else {
            throw APIError.unprocessable(nil, "device \(id) is unregistered: register it again before testing it")
        }
        let body = JSONObject([
            ("to", .object(JSONObject([("devices", .array([.string(id)]))]))),
            (
                "payload",
                .object(
                    JSONObject([
                        (
                            "aps",
                            .object(
                                JSONObject([
                                    (
                                        "alert",
                                        .object(
                                            JSONObject([
                                                ("title", .string(testNotification.title)),
                                                ("body", .string(testNotification.body)),
                                            ]))
                                    )
                                ]))
                        ),
                        ("pushseal_test", .bool(true)),
                    ]))
            ),
        ])
        let pushID = try services.pushes.accept(try PushRequest(body), in: app, requestBody: body, token: token).id
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: Self.testPushWait)
        var delivery = try store.push(id: pushID, in: app)?.deliveries.first
        while delivery?.status == .queued, clock.now < deadline {
            usleep(100_000)
            delivery = try store.push(id: pushID, in: app)?.deliveries.first
        }
        var answer = JSONObject([("id", .string(pushID))])
        if let delivery { answer["delivery"] = Self.json(delivery) }
        return .json(delivery?.status == .queued ? 202 : 200, .object(answer))
    }

    /// A delivery as `GET /v1/pushes/{id}` shows it.
    static func json(_ delivery: DeliveryState) -> JSONValue {
        var object = JSONObject([
            ("device", .string(delivery.deviceID)), ("status", .string(delivery.status.rawValue)),
            ("attempts", .number(JSONNumber(delivery.attempts))),
        ])
        if let apnsID = delivery.apnsID { object["apns_id"] = .string(apnsID) }
        if let reason = delivery.reason { object["reason"] = .string(reason) }
        // Only a delivery that carries receipts has an id and a display (gateway-v1.md, "Receipts").
        if let receiptID = delivery.receiptID {
            object["id"] = .string(receiptID)
            object["display"] =
                delivery.display.map { display in
                    var record = JSONObject([("outcome", .string(display.outcome))])
                    if let reason = display.reason { record["reason"] = .string(reason) }
                    record["at"] = .number(JSONNumber(Int(display.at)))
                    return .object(record)
                } ?? .null
        }
        return .object(object)
    }
}
