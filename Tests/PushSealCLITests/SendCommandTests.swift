import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

/// `pushseal send` against the mock APNs: HTTP/2 over TLS, token auth, every answer class.
@Suite("pushseal send against a mock APNs", .serialized)
struct SendCommandTests {
    static func job(_ token: String, _ recipient: String, extra: String = "") -> String {
        #"{"token":"\#(token)","topic":"com.example.shop","to":\#(recipient),"payload":{"aps":{"alert":{"title":"Order","body":"Shipped"}},"event_id":"e-\#(token)"}\#(extra)}"#
    }

    static func token(_ prefix: String, _ index: Int) -> String {
        prefix + String(repeating: "0", count: 60 - String(index).count - prefix.count + 4) + String(index)
    }

    @Test("every response class: sent, unregistered, permanent failures, token refresh, back-off and retries")
    func responseClasses() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let to = try String(contentsOfFile: world.directory.file("device.jwk"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let sealed = try world.encrypt(order).output.trimmingCharacters(in: .newlines)
        let cases: [(token: String, status: String, reason: String?, attempts: Int)] = [
            (Self.token("00aa", 1), "sent", nil, 1),
            (Self.token("0410", 2), "unregistered", "Unregistered", 1),
            (Self.token("0400", 3), "failed", "BadDeviceToken", 1),
            (Self.token("0413", 4), "failed", "PayloadTooLarge", 1),
            (Self.token("4031", 5), "failed", "InvalidProviderToken", 1),
            (Self.token("0403", 6), "sent", nil, 2),
            (Self.token("0429", 7), "sent", nil, 3),
            (Self.token("0500", 8), "sent", nil, 2),
            (Self.token("0503", 9), "sent", nil, 2),
            (Self.token("5003", 10), "failed", "ServiceUnavailable", 4),
        ]
        var input = cases.map { Self.job($0.token, to) }.joined(separator: "\n") + "\n"
        input += #"{"token":"not-hex","topic":"t","to":\#(to),"payload":{"aps":{}}}"# + "\n"
        input += #"{"token":"\#(Self.token("00bb", 12))","topic":"com.example.shop","sealed":\#(sealed)}"# + "\n"
        input += "{broken\n"
        let result = try world.run(mock.sendArguments + ["--sender", "sender.jwk"], input: input)
        #expect(result.status == 1)
        let lines = try result.lines.map { try #require(try JSONParser.parse($0).objectValue) }
        #expect(lines.count == cases.count + 3)
        for (index, expected) in cases.enumerated() {
            let line = lines[index]
            #expect(line["line"] == .number(JSONNumber(index + 1)))
            #expect(line["status"] == .string(expected.status), "\(expected.token)")
            #expect(line["reason"]?.stringValue == expected.reason, "\(expected.token)")
            #expect(line["attempts"] == .number(JSONNumber(expected.attempts)), "\(expected.token)")
            if expected.status != "failed" || expected.reason != nil {
                #expect(line["apns-id"]?.stringValue?.count == 36, "\(expected.token): apns-id recorded")
            }
        }
        #expect(lines[1]["timestamp"] == .number(JSONNumber(1_700_000_000_000)), "410 reports APNs' timestamp")
        #expect(lines[10]["status"] == .string("failed") && lines[10]["attempts"] == .number(JSONNumber(0)))
        #expect(lines[11]["status"] == .string("sent"), "an already sealed payload is sent as it is")
        #expect(lines[12]["status"] == .string("failed") && lines[12]["line"] == .number(JSONNumber(13)))
        #expect(result.errors.contains("13 jobs, 6 sent, 1 unregistered, 6 failed"))

        let requests = mock.requests()
        let tokens = Set(requests.compactMap { $0["jwt"] as? String })
        #expect(tokens.count == 2, "one provider token for everything, replaced once after ExpiredProviderToken")
        let refreshed = requests.filter { ($0["token"] as? String)?.hasPrefix("0403") == true }.compactMap {
            $0["jwt"] as? String
        }
        #expect(refreshed.count == 2 && refreshed[0] != refreshed[1])
        #expect(requests.allSatisfy { ($0["reason"] as? String) != "NotSealed" }, "every body was a sealed payload")
    }

    @Test("a 1,000-job batch with scripted failures gives exactly 1,000 lines, in order, with the right statuses")
    func thousandJobs() throws {
        let world = try CLIWorld()
        let mock = try MockAPNs(in: world.directory)
        defer { mock.stop() }
        let to = try String(contentsOfFile: world.directory.file("device.jwk"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var expected: [String] = []
        var input = ""
        for index in 1...1000 {
            let (prefix, status) =
                switch index {
                case _ where index % 50 == 0: ("0410", "unregistered")
                case _ where index % 77 == 0: ("0400", "failed")
                case _ where index % 91 == 0: ("0503", "sent")
                case _ where index % 97 == 0: ("0429", "sent")
                default: ("00cc", "sent")
                }
            expected.append(status)
            input += Self.job(Self.token(prefix, index), to) + "\n"
        }
        let result = try world.run(
            mock.sendArguments + ["--sender", "sender.jwk", "--concurrency", "32"], input: input)
        #expect(result.status == 1)
        let lines = result.lines
        #expect(lines.count == 1000)
        for (index, line) in lines.enumerated() {
            #expect(line.hasPrefix("{\"line\":\(index + 1),\"status\":\"\(expected[index])\""), "\(line.prefix(80))")
        }
        #expect(
            Set(mock.requests().compactMap { $0["jwt"] as? String }).count == 1, "one provider token for 1,000 jobs")
    }
}
