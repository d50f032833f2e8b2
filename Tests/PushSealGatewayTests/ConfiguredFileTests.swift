import Dispatch
import Foundation
import PushSealGatewayModel
import PushSealGatewayStorage
import PushSealTestSupport
import Synchronization
import Testing

@testable import PushSealGateway

/// The files the gateway's configuration names: read only when they are regular files reached
/// without a link, and, for secrets, only when no one but the owner may read them.
@Suite("pushseal-gateway configured files")
struct ConfiguredFileTests {
    /// The message of the error `read` throws, or nil when it reads.
    static func refusal(_ read: () throws(GatewayError) -> [UInt8]) -> String? {
        do {
            _ = try read()
            return nil
        } catch {
            return error.description
        }
    }

    @Test(
        "a secret is read at mode 0600, or 0640 and 0440 when root owns it; refused when its group may write, others may read, or a user's group may read"
    )
    func modes() throws {
        let directory = TemporaryDirectory()
        let path = try directory.write("key.p8", "secret")
        #expect(chmod(path, 0o600) == 0)
        #expect(try ConfiguredFile.secret(path) == Array("secret".utf8))
        if getuid() == 0 {
            // As a Kubernetes Secret is mounted with fsGroup: root's, readable by the pod's group.
            for mode: mode_t in [0o640, 0o440] {
                #expect(chmod(path, mode) == 0)
                #expect(try ConfiguredFile.secret(path) == Array("secret".utf8), "mode \(String(mode, radix: 8))")
            }
            for mode: mode_t in [0o660, 0o644, 0o604] {
                #expect(chmod(path, mode) == 0)
                let message = Self.refusal { () throws(GatewayError) in try ConfiguredFile.secret(path) }
                #expect(message?.contains("mode \(String(mode, radix: 8))") == true, "\(message ?? "read")")
            }
            #expect(chown(path, 4_242, 4_242) == 0)
        }
        #expect(chmod(path, 0o640) == 0)
        let message = Self.refusal { () throws(GatewayError) in try ConfiguredFile.secret(path) }
        #expect(message?.contains("chmod 600") == true && message?.contains("mode 640") == true, "\(message ?? "read")")
        #expect(try ConfiguredFile.contents(path) == Array("secret".utf8))
    }

    @Test("a link, a directory or a missing file is refused, naming the path")
    func notRegularFiles() throws {
        let directory = TemporaryDirectory()
        let target = try directory.write("key.p8", "secret")
        #expect(chmod(target, 0o600) == 0)
        #expect(symlink(target, directory.file("link.p8")) == 0)
        #expect(mkdir(directory.file("folder"), 0o700) == 0)
        for (name, expected) in [
            ("link.p8", "cannot be read"), ("folder", "is not a regular file"), ("gone", "cannot be read"),
        ] {
            let path = directory.file(name)
            let message = Self.refusal { () throws(GatewayError) in try ConfiguredFile.secret(path) }
            #expect(message?.hasPrefix("\(path) \(expected)") == true, "\(name): \(message ?? "read")")
        }
    }

    @Test("a FIFO is refused at once: opening it does not wait for a writer")
    func fifo() throws {
        let directory = TemporaryDirectory()
        let path = directory.file("key.p8")
        #expect(mkfifo(path, 0o600) == 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<String?>(nil)
        DispatchQueue.global().async {
            outcome.withLock { $0 = Self.refusal { () throws(GatewayError) in try ConfiguredFile.secret(path) } }
            finished.signal()
        }
        if finished.wait(timeout: .now() + 2) == .timedOut {
            Issue.record("the read of a FIFO was still waiting for a writer after 2 s")
            // Opening the other end lets the blocked read go on, so that the test can end.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            finished.wait()
            if writer >= 0 { close(writer) }
        }
        let message = outcome.withLock { $0 }
        #expect(message == "\(path) is not a regular file", "\(message ?? "read")")
    }
}
