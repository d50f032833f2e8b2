/// Values waiting for a moment, the earliest first: a binary min-heap on the due time, equal
/// times in insertion order. Jobs waiting for their retry sit here, thousands at a time when a
/// host is down, so taking the next due one costs O(log n), never a scan.
struct DueQueue<Value> {
    private struct Entry {
        let due: ContinuousClock.Instant
        let order: Int
        let value: Value

        func precedes(_ other: Entry) -> Bool { due < other.due || (due == other.due && order < other.order) }
    }

    private var heap: [Entry] = []
    private var insertions = 0

    /// Whether nothing waits.
    var isEmpty: Bool { heap.isEmpty }

    /// When the earliest value is due.
    var nextDue: ContinuousClock.Instant? { heap.first?.due }

    /// Adds `value`, due at `due`.
    mutating func insert(_ value: Value, due: ContinuousClock.Instant) {
        heap.append(Entry(due: due, order: insertions, value: value))
        insertions += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest value if it is due by `now`.
    mutating func popDue(by now: ContinuousClock.Instant) -> Value? {
        guard let first = heap.first, first.due <= now else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first.value }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count && heap[right].precedes(heap[smallest]) { smallest = right }
            guard smallest != parent else { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return first.value
    }
}
