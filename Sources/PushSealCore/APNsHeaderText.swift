/// What text may go into an APNs request header, shared by the header checks of
/// `PushSealEncryptor` and the contract's `collapse-id` templates, which are checked when the
/// contract is loaded so that no push of a route can fail on its header later.
public enum APNsHeaderText {
    /// The longest `apns-collapse-id`, in bytes (Apple's limit).
    public static let maximumCollapseIDLength = 64

    /// True when `text` holds a control character: C0, DEL, C1, or a line or paragraph
    /// separator. Such a value could break a header line, or add one.
    public static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
        }
    }
}
