import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Testing

/// The lifetime of content kept to fetch, on SQLite and PostgreSQL alike, with the time given:
/// served to its capability alone until it expires, a minute more once fetched, ended by the
/// fifth wrong capability, and deleted by the sweep once expired or past its app's retention.
@Suite("pushseal-gateway store: fetch objects")
struct FetchObjectStoreTests {
    static let capability: [UInt8] = Array(repeating: 1, count: 32)
    static let wrong: [UInt8] = Array(repeating: 2, count: 32)

    static func object(
        _ id: String, app: AppID = .default, device: String = "phone", source: String = FetchObject.appSource,
        createdAt: Int64 = 1_000, expiresAt: Int64
    ) -> FetchObject {
        FetchObject(
            id: id, app: app, deviceID: device, source: source, capabilityHash: capability, body: Array(id.utf8),
            createdAt: createdAt, expiresAt: expiresAt)
    }

    @Test(
        "served to its capability until it expires; a fetch leaves it a minute; the sweep deletes it after",
        arguments: GatewayBackend.allCases)
    func lifetime(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        try store.addFetchObject(Self.object("kept", expiresAt: 1_000_000))
        try store.addFetchObject(Self.object("unfetched", expiresAt: 50_000))
        #expect(try store.fetchObjectBody(id: "kept", capabilityHash: Self.wrong, at: 2_000) == nil)
        #expect(try store.fetchObjectBody(id: "kept", capabilityHash: Self.capability, at: 2_000) == Array("kept".utf8))
        #expect(
            try store.fetchObjectBody(id: "kept", capabilityHash: Self.capability, at: 61_999) == Array("kept".utf8),
            "within the minute after the first fetch")
        #expect(
            try store.fetchObjectBody(id: "kept", capabilityHash: Self.capability, at: 62_000) == nil,
            "a second fetch does not extend the grace")
        #expect(try store.fetchObjectBody(id: "unfetched", capabilityHash: Self.capability, at: 50_000) == nil)
        #expect(try store.fetchObjectBody(id: "none", capabilityHash: Self.capability, at: 2_000) == nil)
        #expect(try store.deleteExpiredFetchObjects(in: .default, before: 49_999, limit: 10) == 0)
        #expect(try store.deleteExpiredFetchObjects(in: .default, before: 62_001, limit: 10) == 2)
    }

    @Test(
        "the fifth wrong capability ends an object; an app's sweep deletes its own alone, past its retention too",
        arguments: GatewayBackend.allCases)
    func refusalsAndApps(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let other = try #require(AppID("other"))
        try store.addFetchObject(Self.object("guessed", expiresAt: 1_000_000))
        try store.addFetchObject(Self.object("theirs", app: other, createdAt: 500, expiresAt: 1_000_000))
        for _ in 0..<4 {
            #expect(try store.fetchObjectBody(id: "guessed", capabilityHash: Self.wrong, at: 2_000) == nil)
        }
        #expect(
            try store.fetchObjectBody(id: "guessed", capabilityHash: Self.capability, at: 2_000) != nil,
            "four wrong capabilities leave it")
        #expect(try store.fetchObjectBody(id: "guessed", capabilityHash: Self.wrong, at: 2_000) == nil)
        #expect(
            try store.fetchObjectBody(id: "guessed", capabilityHash: Self.capability, at: 2_000) == nil,
            "the fifth ended it")
        #expect(try store.deleteExpiredFetchObjects(in: other, before: 3_000, limit: 10) == 0)
        #expect(try store.deleteExpiredFetchObjects(in: .default, before: 3_000, limit: 10) == 1)
        #expect(try store.deleteFetchObjects(in: .default, storedBefore: 1_000, limit: 10) == 0)
        #expect(try store.deleteFetchObjects(in: other, storedBefore: 1_000, limit: 10) == 1, "stored before retention")
    }

    @Test(
        "a device keeps its newest 100 objects: the 101st deletes the oldest, another device's and app's stay",
        arguments: GatewayBackend.allCases)
    func perDevice(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        let other = try #require(AppID("other"))
        try store.addFetchObject(Self.object("tablet-0", device: "tablet", createdAt: 1, expiresAt: 1_000_000))
        try store.addFetchObject(Self.object("theirs-0", app: other, createdAt: 1, expiresAt: 1_000_000))
        for index in 0..<FetchObject.perDeviceLimit {
            #expect(
                try store.addFetchObject(
                    Self.object("phone-\(index)", createdAt: Int64(10 + index), expiresAt: 1_000_000))
                    == 0)
        }
        #expect(try store.addFetchObject(Self.object("phone-new", createdAt: 500, expiresAt: 1_000_000)) == 1)
        #expect(try store.fetchObjectBody(id: "phone-0", capabilityHash: Self.capability, at: 600) == nil, "the oldest")
        #expect(try store.fetchObjectBody(id: "phone-1", capabilityHash: Self.capability, at: 600) != nil)
        #expect(try store.fetchObjectBody(id: "phone-new", capabilityHash: Self.capability, at: 600) != nil)
        #expect(try store.fetchObjectBody(id: "tablet-0", capabilityHash: Self.capability, at: 600) != nil)
        #expect(try store.fetchObjectBody(id: "theirs-0", capabilityHash: Self.capability, at: 600) != nil)

        _ = try store.putDevice(GatewayStoreTests.device("tablet", registeredAt: 1))
        #expect(try store.deleteDevice(id: "tablet", in: .default, at: 700, routing: .none))
        #expect(
            try store.fetchObjectBody(id: "tablet-0", capabilityHash: Self.capability, at: 800) == nil,
            "a deleted device's content goes with it")
        #expect(try store.fetchObjectBody(id: "phone-new", capabilityHash: Self.capability, at: 800) != nil)
    }

    @Test(
        "each source keeps its own newest 100: a relay sender's flood evicts only its own, never the app's content nor another sender's",
        arguments: GatewayBackend.allCases)
    func perSource(_ backend: GatewayBackend) throws {
        let directory = TemporaryDirectory()
        let store = try GatewayStoreTests.store(backend, in: directory)
        try store.addFetchObject(Self.object("app-0", createdAt: 1, expiresAt: 1_000_000))
        try store.addFetchObject(
            Self.object("other-sender-0", source: "endpoint-b", createdAt: 2, expiresAt: 1_000_000))
        var evicted = 0
        for index in 0..<(FetchObject.perDeviceLimit + 5) {
            evicted += try store.addFetchObject(
                Self.object("flood-\(index)", source: "endpoint-a", createdAt: Int64(10 + index), expiresAt: 1_000_000))
        }
        #expect(evicted == 5, "the flood evicts its own oldest: \(evicted)")
        for id in ["app-0", "other-sender-0", "flood-5", "flood-104"] {
            #expect(try store.fetchObjectBody(id: id, capabilityHash: Self.capability, at: 600) != nil, "\(id)")
        }
        #expect(try store.fetchObjectBody(id: "flood-4", capabilityHash: Self.capability, at: 600) == nil)
    }
}
