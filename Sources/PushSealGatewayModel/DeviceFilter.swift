/// Which devices a listing shows.
package enum DeviceFilter: Sendable, Equatable {
    case active, unregistered
}
