/// A column or parameter value, in either database: SQL's four kinds that the gateway stores.
package enum DatabaseValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    /// The integer, if this is one.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The text, if this is text.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is a blob.
    package var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}
