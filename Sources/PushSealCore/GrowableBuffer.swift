/// A buffer that the JSON writer and parser append to in their hot loops: it skips the
/// uniqueness check and the capacity bookkeeping that each `Array.append` pays, and hands its
/// elements over once, at the end.
struct GrowableBuffer<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// The number of elements appended.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` elements before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// Appends one element.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow(toHold: count + 1) }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Appends `elements`.
    @inline(__always)
    mutating func append(_ elements: UnsafeBufferPointer<Element>) {
        guard let source = elements.baseAddress else { return }
        if count + elements.count > capacity { grow(toHold: count + elements.count) }
        (base + count).initialize(from: source, count: elements.count)
        count += elements.count
    }

    /// The element at `index`, which must be below ``count``.
    subscript(index: Int) -> Element {
        @inline(__always) get { base[index] }
        @inline(__always) set { base[index] = newValue }
    }

    /// Everything appended, as an array.
    func array() -> [Element] {
        [Element](UnsafeBufferPointer(start: base, count: count))
    }

    /// Appends everything appended here to `output`.
    func append(to output: inout [Element]) {
        output.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    private mutating func grow(toHold needed: Int) {
        let grown = max(needed, capacity * 2)
        let moved = UnsafeMutablePointer<Element>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }
}

extension GrowableBuffer<UInt8> {
    /// Appends the UTF-8 of a literal.
    mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 of `string`.
    mutating func append(utf8 string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }
}
