/// The release of this package: one version for the libraries, `pushseal` and `pushseal-gateway`,
/// the one place it is written. A release is the git tag of the same name (`1.4.0`, without a
/// `v`), which Xcode and SwiftPM resolve; CHANGELOG.md's first entry names it, and a test holds
/// the two together (CONTRIBUTING.md, "Releasing").
public enum PushSealRelease {
    /// The version, Semantic Versioning 2.0.0.
    public static let version = "1.4.0"
}
