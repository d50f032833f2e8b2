/// Figures as the bench's table prints them.
package enum DecimalText {
    /// `value` rounded to `decimals` places (half away from zero), as text: `-0.05` to one place
    /// is `-0.1`, `1234.5` to none is `1235`.
    package static func text(_ value: Double, decimals: Int = 0) -> String {
        let scaled = Int((abs(value) * pow10(decimals)).rounded())
        var digits = String(scaled)
        if decimals > 0 {
            while digits.count <= decimals { digits = "0" + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals))
        }
        return value < 0 && scaled != 0 ? "-" + digits : digits
    }

    private static func pow10(_ exponent: Int) -> Double {
        (0..<max(0, exponent)).reduce(1) { product, _ in product * 10 }
    }
}
