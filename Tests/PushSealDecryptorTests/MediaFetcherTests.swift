import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@testable import PushSealDecryptor

/// The fetcher against a local HTTPS server with its own certificate, good and misbehaving.
@Suite("Media fetcher", .serialized)
struct MediaFetcherTests {
    /// A served directory of sealed objects, and their descriptors.
    final class Shelf: @unchecked Sendable {
        let directory = TemporaryDirectory()
        let server: MediaServer
        let attachments: String
        var descriptors: [String: MediaDescriptor] = [:]

        init(_ media: [(name: String, type: MediaType, sealedAs: MediaType, length: Int)]) throws {
            try FileManager.default.createDirectory(atPath: directory.file("served"), withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                atPath: directory.file("attachments"), withIntermediateDirectories: true)
            attachments = directory.file("attachments")
            for item in media {
                let (descriptor, object) = try MediaSamples.seal(
                    MediaSamples.media(item.type, length: item.length), as: item.sealedAs)
                try Data(object).write(to: URL(fileURLWithPath: directory.file("served/\(item.name)")))
                descriptors[item.name] = descriptor
            }
            server = try MediaServer(mediaRoot: directory.file("served"), in: directory)
        }

        /// Fetches `name` from `path` (e.g. `files`, `stall`) with `seconds` to go.
        func fetch(_ path: String, _ name: String, seconds: Double = 10) throws -> Result<MediaAttachment, MediaFailure>
        {
            let descriptor = try #require(descriptors[name]).at("\(server.url)/\(path)/\(name)")
            return MediaFetcher(directory: attachments, caFile: server.certificate, allowsLocalDestinations: true)
                .fetch(
                    descriptor, deadline: ContinuousClock.now.advanced(by: .milliseconds(Int(seconds * 1000))))
        }

        /// What is in the attachments folder.
        var left: [String] { (try? FileManager.default.contentsOfDirectory(atPath: attachments)) ?? [] }
    }

    @Test("an image, a sound and a video are fetched, checked and written as <uuid>.<ext>")
    func good() throws {
        let shelf = try Shelf([
            ("a.psm", .png, .png, 120_000), ("b.psm", .wav, .wav, 70_000), ("c.psm", .mpeg4Video, .mpeg4Video, 400_000),
        ])
        for (name, type, length) in [
            ("a.psm", MediaType.png, 120_000), ("b.psm", .wav, 70_000), ("c.psm", .mpeg4Video, 400_000),
        ] {
            let attachment = try shelf.fetch("files", name).get()
            #expect(attachment.type == type && attachment.length == length)
            #expect(attachment.file.hasSuffix(".\(type.fileExtension)"))
            let written = try Data(contentsOf: URL(fileURLWithPath: attachment.file))
            #expect(Array(written) == MediaSamples.media(type, length: length))
        }
        #expect(shelf.left.count == 3 && shelf.left.allSatisfy { !$0.hasPrefix(".") }, "\(shelf.left)")
        #expect(try shelf.fetch("redirect", "a.psm").get().type == .png, "an https redirect is followed")
        #expect(try shelf.fetch("relative-redirect", "a.psm").get().type == .png, "a relative Location is resolved")
        #expect(try shelf.fetch("interim", "a.psm").get().type == .png, "an interim 100 response is skipped")
        let chunked = try shelf.fetch("chunked", "c.psm").get()
        #expect(
            Array(try Data(contentsOf: URL(fileURLWithPath: chunked.file)))
                == MediaSamples.media(.mpeg4Video, length: 400_000), "a chunked body is decoded")
        let byName = try #require(shelf.descriptors["b.psm"]).at(
            shelf.server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/files/b.psm")
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        #expect(
            try MediaFetcher(
                directory: shelf.attachments, caFile: shelf.server.certificate, allowsLocalDestinations: true
            ).fetch(
                byName, deadline: deadline
            ).get().type == .wav, "a host name is resolved, sent by SNI and matched against the certificate")
    }

    @Test("by default a local destination is refused, by its resolved address, the name's too; nothing is fetched")
    func localDestinations() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 10_000)])
        let descriptor = try #require(shelf.descriptors["a.psm"])
        let fetcher = MediaFetcher(directory: shelf.attachments, caFile: shelf.server.certificate)
        for url in [
            "\(shelf.server.url)/files/a.psm",
            shelf.server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/files/a.psm",
        ] {
            let result = fetcher.fetch(try descriptor.at(url), deadline: ContinuousClock.now.advanced(by: .seconds(10)))
            guard case .failure(let failure) = result else {
                Issue.record("\(url) was fetched")
                continue
            }
            #expect(failure.reason == .localDestination && "\(failure)".contains("127.0.0.1"), "\(failure)")
        }
        #expect(shelf.left.isEmpty)
    }

    @Test("TLS is verified: a certificate outside the trusted set, or for another name, is refused")
    func certificateChecks() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 10_000)])
        let descriptor = try #require(shelf.descriptors["a.psm"])
        let port = try #require(shelf.server.readyValue("wrong_name_port") as? Int)
        let both = try #require(shelf.server.readyValue("both_certificates") as? String)
        func fetch(_ url: String, trusting caFile: String?) throws -> Result<MediaAttachment, MediaFailure> {
            try MediaFetcher(directory: shelf.attachments, caFile: caFile, allowsLocalDestinations: true).fetch(
                descriptor.at(url), deadline: ContinuousClock.now.advanced(by: .seconds(10)))
        }
        for (url, caFile) in [
            ("\(shelf.server.url)/files/a.psm", nil), ("https://127.0.0.1:\(port)/files/a.psm", both),
            ("https://localhost:\(port)/files/a.psm", both),
        ] {
            switch try fetch(url, trusting: caFile) {
            case .success: Issue.record("\(url) trusting \(caFile ?? "the system") was accepted")
            case .failure(let failure):
                #expect(failure.reason == .unreachable && "\(failure)".contains("certificate"), "\(failure)")
            }
        }
        #expect((try? fetch("\(shelf.server.url)/files/a.psm", trusting: both).get()) != nil, "the right name passes")
        #expect(shelf.left.count == 1)
    }

    @Test("every misbehaviour gives its reason, and nothing is left behind")
    func failures() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 200_000), ("png-as-jpeg.psm", .png, .jpeg, 5_000)])
        let cases: [(path: String, name: String, reason: MediaFailure.Reason)] = [
            ("missing", "a.psm", .unreachable), ("redirect-loop", "a.psm", .unreachable),
            ("redirect-http", "a.psm", .insecureURL), ("longer", "a.psm", .tooLarge),
            ("lying-length", "a.psm", .tooLarge), ("short-length", "a.psm", .integrity),
            ("files", "png-as-jpeg.psm", .typeMismatch), ("smuggle", "a.psm", .unreachable),
            ("cut", "a.psm", .unreachable),
            // media-v1: a redirect that breaks the URL rule is media-insecure-url, whatever breaks it.
            ("redirect-bad/userinfo", "a.psm", .insecureURL), ("redirect-bad/short-address", "a.psm", .insecureURL),
            ("redirect-bad/port-zero", "a.psm", .insecureURL),
            ("redirect-bad/underscore-host", "a.psm", .insecureURL),
            ("redirect-bad/long-target", "a.psm", .insecureURL),
        ]
        for item in cases {
            let result = try shelf.fetch(item.path, item.name)
            #expect((try? result.get()) == nil, "\(item.path)")
            if case .failure(let failure) = result {
                #expect(failure.reason == item.reason, "\(item.path): \(failure)")
            }
        }
        let started = ContinuousClock.now
        let stalled = try shelf.fetch("stall", "a.psm", seconds: 1.5)
        #expect(ContinuousClock.now - started < .seconds(5), "the deadline is kept")
        if case .failure(let failure) = stalled {
            #expect(failure.reason == .timeout)
        } else {
            Issue.record("stall succeeded")
        }
        #expect(shelf.left.isEmpty, "left behind: \(shelf.left)")
    }

    @Test("a flipped byte in the served object fails integrity; an http: URL is refused without a request")
    func tamperedAndInsecure() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 150_000)])
        let path = shelf.directory.file("served/a.psm")
        var object = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        for position in [10, 36 + 70_000, object.count - 3] {
            object[position] ^= 0x20
            try Data(object).write(to: URL(fileURLWithPath: path))
            if case .failure(let failure) = try shelf.fetch("files", "a.psm") {
                #expect(failure.reason == .integrity, "byte \(position)")
            } else {
                Issue.record("byte \(position) flipped and fetched")
            }
            object[position] ^= 0x20
        }
        var insecure = try #require(shelf.descriptors["a.psm"]).json
        insecure["url"] = .string("http://127.0.0.1:1/a.psm")
        #expect(throws: MediaFailure(.insecureURL, "")) { try MediaDescriptor(json: insecure) }
        #expect(shelf.left.isEmpty)
    }

    @Test("served with its chunks swapped, or without its final chunk, an object fails integrity")
    func reorderedAndCut() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 150_000)])
        let path = shelf.directory.file("served/a.psm")
        let object = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let sealed = MediaObject.chunkByteCount + MediaObject.tagByteCount
        let first = MediaObject.headerByteCount..<(MediaObject.headerByteCount + sealed)
        let second = first.upperBound..<(first.upperBound + sealed)
        var swapped = object
        swapped.replaceSubrange(first, with: object[second])
        swapped.replaceSubrange(second, with: object[first])
        let withoutFinal = Array(object[..<second.upperBound])
        #expect(withoutFinal.count < object.count, "the sample has a third, final chunk")
        for (name, served) in [("swapped", swapped), ("without its final chunk", withoutFinal)] {
            try Data(served).write(to: URL(fileURLWithPath: path))
            switch try shelf.fetch("files", "a.psm") {
            case .success: Issue.record("an object \(name) was attached")
            case .failure(let failure): #expect(failure.reason == .integrity, "\(name): \(failure)")
            }
        }
        #expect(shelf.left.isEmpty, "left behind: \(shelf.left)")
    }

    @Test("the extension's levels: text with media; text without media on failure; decrypted text when time runs out")
    func sessionLevels() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 100_000)])
        let device = try Device()
        let fetcher = MediaFetcher(
            directory: shelf.attachments, caFile: shelf.server.certificate, allowsLocalDestinations: true)
        let decryptor = Decryptor(keyStore: device.store, ledger: device.store.ledger, media: fetcher)
        func payload(_ path: String) throws -> JSONObject {
            let media = try #require(shelf.descriptors["a.psm"]).at("\(shelf.server.url)/\(path)/a.psm").json
            return try device.seal(
                #"{"aps":{"alert":{"title":"Photo","body":"From Ana"}},"media":\#(JSONWriter.string(.object(media))),"event_id":"e-\#(path)"}"#
            )
        }
        let good = decryptor.open(try payload("files"))
        #expect(good.status == .decrypted && good.attachment?.type == .jpeg && good.mediaFailure == nil)
        let missing = decryptor.open(try payload("missing"))
        #expect(missing.status == .decrypted && missing.notification.title == "Photo")
        #expect(missing.attachment == nil && missing.mediaFailure?.reason == .unreachable)

        let results = Protected<[DecryptionResult]>([])
        let session = ExtensionSession(payload: try payload("stall"), decryptor: decryptor, budget: .seconds(20)) {
            result in results.withLock { $0.append(result) }
        }
        session.didReceive()
        Thread.sleep(forTimeInterval: 1.0)
        session.timeWillExpire()
        ExtensionSessionTests.wait(seconds: 5) { results.withLock { !$0.isEmpty } }
        Thread.sleep(forTimeInterval: 0.3)
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 1)
        #expect(delivered.first?.status == .decrypted, "the decrypted text, not the placeholder")
        #expect(delivered.first?.notification.title == "Photo")
        #expect(delivered.first?.mediaFailure?.reason == .timeout)
        ExtensionSessionTests.wait(seconds: 5) { shelf.left.count == 1 }
        #expect(shelf.left.count == 1, "only the first fetch's attachment is left: \(shelf.left)")
    }

    @Test("races between a finishing download and expiry: one handler call each, and no attachment left unshown")
    func downloadExpiryRaces() throws {
        let shelf = try Shelf([("a.psm", .jpeg, .jpeg, 20_000)])
        let device = try Device()
        let fetcher = MediaFetcher(
            directory: shelf.attachments, caFile: shelf.server.certificate, allowsLocalDestinations: true)
        let decryptor = Decryptor(keyStore: MemoryKeyStore(ring: try device.store.loadKeyRing()), media: fetcher)
        let media = try #require(shelf.descriptors["a.psm"]).at("\(shelf.server.url)/files/a.psm").json
        let payload = try device.seal(
            #"{"aps":{"alert":"Photo"},"media":\#(JSONWriter.string(.object(media)))}"#)
        let sessions = 60
        let delivered = Protected<[[DecryptionResult]]>(Array(repeating: [], count: sessions))
        let expirer = DispatchQueue(label: "expire", attributes: .concurrent)
        let group = DispatchGroup()
        for index in 0..<sessions {
            let session = ExtensionSession(payload: payload, decryptor: decryptor) { result in
                delivered.withLock { $0[index].append(result) }
            }
            group.enter()
            session.didReceive()
            expirer.asyncAfter(deadline: .now() + .milliseconds(index % 30)) {
                session.timeWillExpire()
                group.leave()
            }
        }
        group.wait()
        ExtensionSessionTests.wait(seconds: 20) { delivered.withLock { $0.allSatisfy { !$0.isEmpty } } }
        Thread.sleep(forTimeInterval: 1.0)
        let results = delivered.withLock { $0 }
        #expect(results.allSatisfy { $0.count == 1 }, "handler calls: \(Set(results.map(\.count)))")
        let shown = Set(results.compactMap { $0.first?.attachment?.file.split(separator: "/").last.map(String.init) })
        #expect(
            results.allSatisfy { $0.first?.status == .decrypted || $0.first?.reason == .timeout },
            "decrypted (with or without media), or the placeholder when time ran out before decryption")
        #expect(Set(shelf.left) == shown, "every attachment on disk was delivered; none half-written")
    }
}
