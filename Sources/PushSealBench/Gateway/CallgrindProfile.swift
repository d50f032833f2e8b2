/// A callgrind profile as `callgrind_annotate --inclusive=yes` prints it: the program's total
/// instructions, and each function's with everything it called.
///
/// Instructions are not time (an allocation or a cache miss costs more than its count), but they
/// are repeatable where time is not: the same work gives the same count whatever else the
/// machine is doing, so two builds can be told apart by a few percent on a noisy machine.
struct CallgrindProfile {
    /// Every instruction the profile counted.
    let total: Int
    /// Each function as printed (`file:function [object]`), with its inclusive count. A function
    /// can be printed more than once (recursion, thunks); its outermost frame is the largest.
    let functions: [(location: String, instructions: Int)]

    /// The profile in the callgrind output file `path`, read by `callgrind_annotate`; nil when
    /// that fails or prints no total.
    static func read(_ path: String) -> CallgrindProfile? {
        let annotated = ProcessBench.run([
            "callgrind_annotate", "--inclusive=yes", "--auto=no", "--threshold=100", path,
        ])
        guard annotated.status == 0 else { return nil }
        return parse(String(decoding: annotated.output, as: UTF8.self))
    }

    /// The profile in `callgrind_annotate`'s text; nil without its `PROGRAM TOTALS` line.
    static func parse(_ text: String) -> CallgrindProfile? {
        var total: Int?
        var functions: [(location: String, instructions: Int)] = []
        for line in text.split(separator: "\n") {
            // `  923,982,573 (58.69%)  /path/File.swift:symbol [/path/binary]`
            let trimmed = line.drop { $0 == " " }
            guard let space = trimmed.firstIndex(of: " "),
                let count = Int(trimmed[..<space].filter { $0 != "," }),
                let percentEnd = trimmed[space...].firstIndex(of: ")")
            else { continue }
            let location = trimmed[trimmed.index(after: percentEnd)...].drop { $0 == " " }
            if location.hasPrefix("PROGRAM TOTALS") {
                total = count
            } else if !location.hasPrefix("=>") {
                functions.append((String(location), count))
            }
        }
        return total.map { CallgrindProfile(total: $0, functions: functions) }
    }

    /// The largest inclusive count of a function defined in a file whose path ends with `file`
    /// (`Sealing/PushSealer.swift`) and whose symbol contains `symbol` (any symbol when empty):
    /// with one entry point per file, all of that file's work. Nil when no function matches.
    func largest(file: String, symbol: String = "") -> Int? {
        functions.filter { function in
            guard let colon = function.location.firstIndex(of: ":") else { return false }
            return function.location[..<colon].hasSuffix(file)
                && (symbol.isEmpty || function.location[colon...].contains(symbol))
        }.map(\.instructions).max()
    }

    /// The inclusive count of the C function `name` of a library without debug information
    /// (`crypto_scalarmult_curve25519`), or nil.
    func library(function name: String) -> Int? {
        functions.filter { $0.location.hasPrefix("???:\(name) [") }.map(\.instructions).max()
    }
}
