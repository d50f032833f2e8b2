/// The statements of ``FetchObjectStore`` that a test proves use an index.
package enum FetchObjectStatements {
    /// Deletes a device's objects beyond its newest ones: parameters the app, the device and how
    /// many newest to keep. Found through `fetch_objects_by_device`, so that its cost is the
    /// device's objects, whatever the table's size.
    package static func deleteBeyondNewest(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM fetch_objects WHERE id IN (SELECT id FROM fetch_objects WHERE app = \(p(1)) "
            + "AND device_id = \(p(2)) ORDER BY created_at DESC, id DESC LIMIT \(dialect.noLimit) "
            + "OFFSET \(p(3))) RETURNING id"
    }
}
