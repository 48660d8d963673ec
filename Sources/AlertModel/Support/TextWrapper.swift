/// Word wrapping and column arithmetic for fixed-width text (help texts,
/// terminal frames), measured in terminal cells rather than characters.
package enum TextWrapper {
    /// Splits one paragraph into lines of at most `width` cells, breaking at
    /// spaces; a word longer than a line (a URL, say) is cut into pieces.
    package static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            var wordWidth = displayWidth(word)
            if lineWidth > 0, lineWidth + 1 + wordWidth <= width {
                line += " " + word
                lineWidth += 1 + wordWidth
                continue
            }
            if lineWidth > 0 { lines.append(line) }
            while wordWidth > width {
                let (head, tail) = split(word, atWidth: width)
                lines.append(head)
                word = tail
                wordWidth = displayWidth(word)
            }
            line = word
            lineWidth = wordWidth
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
    }

    /// Pads `text` with spaces to `width` cells.
    package static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - displayWidth(text)))
    }

    /// How many terminal cells `text` takes: East Asian wide characters and
    /// emoji take two, everything else one. An approximation of `wcwidth`,
    /// enough to keep frames straight for the text alerts carry.
    package static func displayWidth(_ text: String) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    private static func width(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }  // emoji presentation
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    private static func split(_ word: String, atWidth width: Int) -> (String, String) {
        var head = ""
        var used = 0
        var index = word.startIndex
        while index < word.endIndex {
            let w = self.width(of: word[index])
            if used + w > width, used > 0 { break }
            head.append(word[index])
            used += w
            index = word.index(after: index)
        }
        return (head, String(word[index...]))
    }
}
