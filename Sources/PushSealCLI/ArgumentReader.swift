/// Reads `--flag value`, `--flag=value`, switches and positional arguments, strictly: an unknown
/// flag or a missing value is a ``UsageError`` naming it.
struct ArgumentReader {
    private var remaining: [String]
    private let command: String
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var switches: Set<String> = []

    /// Parses `arguments` for `command`, given the flags that take a value and the switches.
    init(_ arguments: [String], command: String, valued: Set<String>, switches allowedSwitches: Set<String>)
        throws(UsageError)
    {
        self.remaining = arguments
        self.command = command
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("--") {
                if !onlyPositionals, argument.hasPrefix("-"), argument != "-" {
                    throw UsageError("\(command): unknown option \(argument) (see pushseal help)")
                }
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if valued.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("\(command): --\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else if allowedSwitches.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(command): --\(name) takes no value") }
                switches.insert(name)
            } else {
                throw UsageError("\(command): unknown option --\(name) (see pushseal help)")
            }
        }
    }

    /// The last value of `--name`, if given.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable `--name`.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `--name`, which is required.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = value(name) else { throw UsageError("\(command): --\(name) is required") }
        return value
    }

    /// The value of `--name` as an integer.
    func integer(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else {
            throw UsageError("\(command): --\(name) must be an integer, not \"\(text)\"")
        }
        return number
    }

    /// The integer value of `--name`, which must lie in `range`; nil when absent. The refusal
    /// reads `--name must be LOW to HIGH UNIT, not VALUE` (`unit` may be empty).
    func integer(_ name: String, in range: ClosedRange<Int>, _ unit: String = "") throws(UsageError) -> Int? {
        guard let number = try integer(name) else { return nil }
        guard range.contains(number) else {
            let bounds = "\(range.lowerBound) to \(range.upperBound)" + (unit.isEmpty ? "" : " \(unit)")
            throw UsageError("\(command): --\(name) must be \(bounds), not \(number)")
        }
        return number
    }

    /// True when the switch `--name` was given.
    func flag(_ name: String) -> Bool { switches.contains(name) }

    /// The single optional `FILE|-` positional; nil means standard input.
    func inputFile() throws(UsageError) -> String? {
        guard positionals.count <= 1 else {
            throw UsageError("\(command): expected at most one input file, got \(positionals.count)")
        }
        guard let file = positionals.first, file != "-" else { return nil }
        return file
    }
}
