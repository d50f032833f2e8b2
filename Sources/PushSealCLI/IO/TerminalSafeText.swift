/// Text made safe to print on a support engineer's terminal: every character that could move the
/// cursor, start an escape sequence, break a line or reorder what is shown is written as
/// `\u{XX}` instead.
///
/// Diagnostics quote what a payload, a key file or a server sent, which an attacker controls: an
/// ESC (or a C1 CSI, U+009B) would start an ANSI sequence, U+2028 would break the line, and a
/// bidirectional override would show the text in another order than it is.
enum TerminalSafeText {
    /// `text` with every C0 control, DEL, C1 control, line or paragraph separator, and
    /// bidirectional mark, embedding, override or isolate escaped.
    static func escaping(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                escaped.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        default: false
        }
    }
}
