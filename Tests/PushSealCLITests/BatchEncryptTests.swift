import Foundation
import PushSealCore
import PushSealTestSupport
import Testing

@Suite("pushseal encrypt --json-lines")
struct BatchEncryptTests {
    /// 10,000 lines with bad ones sprinkled in: every line accounted for, in order, with one and with two workers.
    @Test("10,000 lines with bad lines sprinkled in", arguments: [1, 2])
    func tenThousandLines(jobs: Int) throws {
        let world = try CLIWorld()
        let to = try String(contentsOfFile: world.directory.file("device.jwk"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var input = ""
        var expectedErrors: [Int: String] = [:]
        var lineNumber = 0
        var nonBlank = 0
        for index in 0..<10_000 {
            lineNumber += 1
            switch index % 97 {
            case 13:
                input += "this is not json\n"
                expectedErrors[lineNumber] = "not JSON"
            case 29:
                input += #"{"to":\#(to),"payload":{"aps":{"badge":-3}}}"# + "\n"
                expectedErrors[lineNumber] = "$.aps.badge"
            case 41:
                input += #"{"payload":{"aps":{"alert":"no recipient"}}}"# + "\n"
                expectedErrors[lineNumber] = "\"to\""
            case 53:
                input += "\n"
                continue
            case 67:
                input += #"{"to":{"kty":"OKP","crv":"X25519","x":"AAAA"},"payload":{"aps":{}}}"# + "\n"
                expectedErrors[lineNumber] = "\"x\""
            default:
                input +=
                    #"{"to":\#(to),"payload":{"aps":{"alert":"line \#(lineNumber)"},"n":\#(lineNumber)},"topic":"com.example"}"#
                    + "\n"
            }
            nonBlank += 1
        }
        let result = try world.run(
            ["encrypt", "--json-lines", "--apns-request", "--jobs", "\(jobs)", "--sender", "sender.jwk"], input: input)
        #expect(result.status == 1)
        #expect(result.errors.contains("\(nonBlank) lines"))
        let outputs = result.lines
        #expect(outputs.count == nonBlank)

        var inputLines = input.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { !$0.element.isEmpty }.map { $0.offset + 1 }
        inputLines = Array(inputLines.prefix(outputs.count))
        var decryptBatch = ""
        var sampled: [Int] = []
        for (output, number) in zip(outputs, inputLines) {
            if let expected = expectedErrors[number] {
                #expect(output.hasPrefix("{\"line\":\(number),\"error\":"), "line \(number): \(output.prefix(80))")
                #expect(output.contains(expected.replacingOccurrences(of: "\"", with: "\\\"")), "line \(number)")
            } else {
                #expect(output.hasPrefix("{\"headers\":"), "line \(number)")
                if number % 500 == 1 {
                    sampled.append(number)
                    let request = try #require(try JSONParser.parse(output).objectValue)
                    decryptBatch += JSONWriter.string(try #require(request["payload"])) + "\n"
                }
            }
        }
        let opened = try world.run(["decrypt", "--store", "store", "--json-lines"], input: decryptBatch)
        #expect(opened.status == 0)
        #expect(opened.lines.count == sampled.count && sampled.count > 10)
        for (line, number) in zip(opened.lines, sampled) {
            #expect(line.contains("\"alert\":\"line \(number)\""), "the output of line \(number) seals line \(number)")
        }
    }
}
