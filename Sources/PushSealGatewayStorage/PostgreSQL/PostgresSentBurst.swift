package import PushSealGatewayModel

#if canImport(CLibPQ)
    /// How a PostgreSQL store records the deliveries of a burst that were sent and whose end queues
    /// no webhook event (`OutboxTransition.isPlainSend(routing:in:)`): one statement for all of them,
    /// instead of one each. Its text never changes, so each connection prepares it once: the
    /// deliveries come as four arrays, one element per delivery, unnested side by side.
    package enum PostgresSentBurst {
        /// The update: parameters the deliveries' ids, their APNs ids, their request counts and
        /// their end times, as array literals of equal length.
        package static let statement = """
            UPDATE deliveries AS d SET status = 'sent', apns_id = v.apns_id, reason = NULL, attempts = v.attempts,
                finished_at = v.finished_at, body = ''::bytea, lease_owner = NULL, lease_until = NULL
            FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::bigint[])
                AS v (id, apns_id, attempts, finished_at)
            WHERE d.id = v.id
            """

        /// The four array parameters of ``statement`` for `sent`, every one a sent attempt.
        package static func parameters(_ sent: [EndedAttempt]) -> [DatabaseValue] {
            let apnsIDs = sent.map { attempt -> String? in
                if case .sent(let apnsID) = attempt.outcome { apnsID } else { nil }
            }
            return [
                .text(numbers(sent.map(\.delivery.id))), .text(strings(apnsIDs)),
                .text(numbers(sent.map { Int64($0.attempts) })), .text(numbers(sent.map(\.time))),
            ]
        }

        /// An array literal of integers: `{1,-2,3}`.
        package static func numbers(_ values: [Int64]) -> String {
            "{" + values.map(String.init).joined(separator: ",") + "}"
        }

        /// An array literal of strings, each quoted with its backslashes and quotes escaped (an
        /// APNs id is the peer's words), nil as `NULL`. Written byte by byte: both escaped
        /// characters are ASCII, which no other character's UTF-8 contains.
        private static func strings(_ values: [String?]) -> String {
            var literal: [UInt8] = [UInt8(ascii: "{")]
            for (index, value) in values.enumerated() {
                if index > 0 { literal.append(UInt8(ascii: ",")) }
                guard let value else {
                    literal.append(contentsOf: "NULL".utf8)
                    continue
                }
                literal.append(UInt8(ascii: "\""))
                for byte in value.utf8 {
                    if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { literal.append(UInt8(ascii: "\\")) }
                    literal.append(byte)
                }
                literal.append(UInt8(ascii: "\""))
            }
            literal.append(UInt8(ascii: "}"))
            return String(decoding: literal, as: UTF8.self)
        }
    }
#endif
