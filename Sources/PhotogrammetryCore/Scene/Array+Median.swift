extension Array where Element == Double {
    /// The median (the mean of the two middle values for an even count); nil when empty.
    package func median() -> Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
