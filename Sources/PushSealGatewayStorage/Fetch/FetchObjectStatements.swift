/// The statements of ``FetchObjectStore`` that a test proves use an index.
package enum FetchObjectStatements {
    /// Deletes a device's objects of one source beyond its newest ones: parameters the app, the
    /// device, how many newest to keep and the source. Found through `fetch_objects_by_source`,
    /// so that its cost is the device's objects of that source, whatever the table's size.
    package static func deleteBeyondNewest(_ dialect: SQLDialect) -> String {
        let p = dialect.placeholder
        return "DELETE FROM fetch_objects WHERE id IN (SELECT id FROM fetch_objects WHERE app = \(p(1)) "
            + "AND device_id = \(p(2)) AND source = \(p(4)) ORDER BY created_at DESC, id DESC "
            + "LIMIT \(dialect.noLimit) OFFSET \(p(3))) RETURNING id"
    }
}
