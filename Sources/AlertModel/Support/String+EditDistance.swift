extension String {
    /// The optimal-string-alignment distance: insertions, deletions,
    /// substitutions and swaps of neighbours each cost 1, so the common typo
    /// `titel` is one step from `title`.
    package func editDistance(to other: String) -> Int {
        let a = Array(self), b = Array(other)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }

    /// The candidate closest to this string, if it is close enough to be a
    /// plausible typo; ties go to the earlier candidate.
    package func closest(in candidates: [String]) -> String? {
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(to: candidate)
            if distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        guard let best else { return nil }
        // Far-off words would make silly suggestions; allow about a third of the word to differ.
        let allowed = Swift.max(2, Swift.min(count, best.name.count) / 3)
        return best.distance <= allowed && best.distance < count ? best.name : nil
    }
}
