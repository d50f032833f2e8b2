#if canImport(CLibPQ)
    /// How a PostgreSQL store records the deliveries of a burst that were sent and whose end queues
    /// no webhook event (``OutboxFinish/isPlainSend(_:routing:)``): one statement for all of them,
    /// instead of one each. Its text never changes, so each connection prepares it once: the
    /// deliveries come as four arrays, one element per delivery, unnested side by side.
    enum PostgresSentBurst {
        /// The update: parameters the deliveries' ids, their APNs ids, their request counts and
        /// their end times, as array literals of equal length.
        static let statement = """
            UPDATE deliveries AS d SET status = 'sent', apns_id = v.apns_id, reason = NULL, attempts = v.attempts,
                finished_at = v.finished_at, body = ''::bytea, lease_owner = NULL, lease_until = NULL
            FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::bigint[])
                AS v (id, apns_id, attempts, finished_at)
            WHERE d.id = v.id
            """

        /// The four array parameters of ``statement`` for `sent`, every one a sent attempt.
        static func parameters(_ sent: [EndedAttempt]) -> [DatabaseValue] {
            let apnsIDs = sent.map { attempt -> String? in
                if case .sent(let apnsID) = attempt.outcome { apnsID } else { nil }
            }
            return [
                .text(numbers(sent.map(\.delivery.id))), .text(strings(apnsIDs)),
                .text(numbers(sent.map { Int64($0.attempts) })), .text(numbers(sent.map(\.time))),
            ]
        }

        /// An array literal of integers: `{1,-2,3}`.
        private static func numbers(_ values: [Int64]) -> String {
            "{" + values.map(String.init).joined(separator: ",") + "}"
        }

        /// An array literal of strings, each quoted with its backslashes and quotes escaped (an
        /// APNs id is the peer's words), nil as `NULL`.
        private static func strings(_ values: [String?]) -> String {
            let elements = values.map { value -> String in
                guard let value else { return "NULL" }
                var quoted = "\""
                for character in value {
                    if character == "\\" || character == "\"" { quoted.append("\\") }
                    quoted.append(character)
                }
                return quoted + "\""
            }
            return "{" + elements.joined(separator: ",") + "}"
        }
    }
#endif
