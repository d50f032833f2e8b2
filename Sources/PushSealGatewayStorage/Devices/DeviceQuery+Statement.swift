package import PushSealGatewayModel

extension DeviceQuery {
    /// This query over `app`'s devices in SQL, for either store (`placeholder(n)`), and its
    /// parameters; at most `limit` rows.
    package func statement(in app: AppID, limit: Int, placeholder: (Int) -> String) -> (String, [DatabaseValue]) {
        var values: [DatabaseValue] = []
        func next(_ value: DatabaseValue) -> String {
            values.append(value)
            return placeholder(values.count)
        }
        var conditions = ["app = \(next(.text(app.name)))"]
        switch state {
        case .active?: conditions.append("unregistered_at IS NULL")
        case .unregistered?: conditions.append("unregistered_at IS NOT NULL")
        case nil: break
        }
        if let user { conditions.append("user_id = \(next(.text(user)))") }
        if let since { conditions.append("unregistered_at >= \(next(.integer(since)))") }
        if let afterID {
            if let time = afterUnregisteredAt {
                let marked = next(.integer(time))
                let id = next(.text(afterID))
                conditions.append("(unregistered_at > \(marked) OR (unregistered_at = \(marked) AND id > \(id)))")
            } else {
                conditions.append("id > \(next(.text(afterID)))")
            }
        }
        let order = state == .unregistered ? "unregistered_at, id" : "id"
        let filter = " WHERE " + conditions.joined(separator: " AND ")
        return ("\(Device.selectColumns)\(filter) ORDER BY \(order) LIMIT \(next(.integer(Int64(limit))))", values)
    }
}
