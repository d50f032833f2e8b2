#if canImport(CLibPQ)
    /// A column of a PostgreSQL result in the binary format, read as a ``DatabaseValue``: integers
    /// big-endian in 2, 4 or 8 bytes, `bytea` as its bytes (no hex to decode, as text results
    /// needed), text as its UTF-8. The gateway's statements return only the types below; one of
    /// any other type is refused by name rather than read wrongly.
    package enum PostgresBinaryColumn {
        /// A column that cannot be read: of a type the store does not read, or not of its type's size.
        package struct Unreadable: Error, CustomStringConvertible {
            /// What is wrong, naming the column by its position and its type by its OID (`pg_type.oid`).
            package let description: String
        }

        /// The value of `bytes`, a column of type `typeOID` at position `column`.
        package static func value(_ bytes: UnsafeRawBufferPointer, typeOID: UInt32, column: Int32) throws
            -> DatabaseValue
        {
            switch typeOID {
            case 16: return .integer(bytes.first == 1 ? 1 : 0)  // bool
            case 21: return try integer(bytes, as: Int16.self, typeOID: typeOID, column: column)  // int2
            case 23: return try integer(bytes, as: Int32.self, typeOID: typeOID, column: column)  // int4
            case 20: return try integer(bytes, as: Int64.self, typeOID: typeOID, column: column)  // int8
            case 17: return .blob(Array(bytes))  // bytea
            case 25, 1043, 1042, 19, 114, 705:  // text, varchar, char, name, json, unknown: their UTF-8
                return .text(String(decoding: bytes, as: UTF8.self))
            case 2278: return .null  // void: what pg_notify and the advisory locks return
            default:
                throw Unreadable(
                    description:
                        "result column \(column) is of PostgreSQL type \(typeOID), which the gateway does not read")
            }
        }

        private static func integer<Integer: FixedWidthInteger>(
            _ bytes: UnsafeRawBufferPointer, as _: Integer.Type, typeOID: UInt32, column: Int32
        ) throws -> DatabaseValue {
            guard bytes.count == MemoryLayout<Integer>.size else {
                throw Unreadable(
                    description: "result column \(column) (PostgreSQL type \(typeOID)) has \(bytes.count) bytes, "
                        + "not \(MemoryLayout<Integer>.size)")
            }
            return .integer(Int64(Integer(bigEndian: bytes.loadUnaligned(as: Integer.self))))
        }
    }
#endif
