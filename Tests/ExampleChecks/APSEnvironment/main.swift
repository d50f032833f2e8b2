// Runs examples/ios/App/APSEnvironment.swift's `read(profile:)` on sample provisioning profiles
// (scripts/typecheck-apple.sh compiles the two files together and runs them): a profile is a
// property list in XML inside signed bytes, and what it says about `aps-environment` decides the
// registration's environment. Exits 1, naming the case, when one reads wrong.
import Foundation

/// A profile as Xcode embeds one: the plist between bytes that are not XML (the CMS signature).
func profile(environment: String?) -> Data {
    let entitlement = environment.map { "<key>aps-environment</key><string>\($0)</string>" } ?? ""
    let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>Name</key><string>Shop Development</string>
        <key>Entitlements</key><dict>\(entitlement)<key>application-identifier</key>
        <string>TEAM123456.com.example.shop</string></dict></dict></plist>
        """
    return Data([0x30, 0x82, 0x0f, 0x3c, 0x06, 0x09, 0x2a, 0x86, 0x48]) + Data(plist.utf8)
        + Data([0xa0, 0x82, 0x00, 0xff])
}

let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("aps-environment-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

let cases: [(name: String, content: Data?, expected: APSEnvironment)] = [
    ("a development profile", profile(environment: "development"), .sandbox),
    ("an ad-hoc profile", profile(environment: "production"), .production),
    ("a profile without the entitlement", profile(environment: nil), .production),
    ("bytes that hold no property list", Data("not a profile".utf8), .production),
    ("no profile (the App Store)", nil, .production),
]
var failures = 0
for (index, check) in cases.enumerated() {
    let url = directory.appendingPathComponent("\(index).mobileprovision")
    if let content = check.content { try content.write(to: url) }
    let found = APSEnvironment.read(profile: check.content == nil ? nil : url)
    if found != check.expected {
        print("APSEnvironment.read: \(check.name): \(found), expected \(check.expected)")
        failures += 1
    }
}
if failures > 0 { exit(1) }
print("APSEnvironment.read: \(cases.count) sample profiles read as expected")
