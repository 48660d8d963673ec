/// Word wrapping and column arithmetic for fixed-width text (help texts,
/// terminal frames), measured in terminal cells rather than characters:
/// ``wrap(_:width:)`` for prose, whose spacing does not matter, and
/// ``wrapKeepingSpaces(_:width:)`` for text laid out by whoever wrote it.
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

    /// Splits one line of preformatted text (a command's output, a table)
    /// into lines of at most `width` cells, keeping it as written: runs of
    /// spaces stay, so columns line up, and so does the line's indentation.
    /// A longer line breaks at its last space that fits (the spaces at the
    /// break go) and continues indented like its first line; an indentation
    /// of more than half the width is dropped from a line that must break,
    /// and a word longer than the room is cut. Trailing spaces are dropped:
    /// they cannot be seen.
    package static func wrapKeepingSpaces(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var characters = Array(text)
        while characters.last == " " { characters.removeLast() }
        if displayWidth(String(characters)) <= width { return [String(characters)] }
        var indentation = characters.prefix { $0 == " " }.count
        if indentation > width / 2 {
            characters.removeFirst(indentation)
            indentation = 0
        }
        var lines: [String] = []
        while true {
            var used = 0
            var fit = 0
            for character in characters {
                let w = self.width(of: character)
                if used + w > width { break }
                used += w
                fit += 1
            }
            if fit == characters.count {
                lines.append(String(characters))
                return lines
            }
            // The indentation is no place to break. A space right after
            // what fits is a break as good as one inside it.
            var space = fit
            while space > indentation, characters[space] != " " { space -= 1 }
            var head = max(fit, indentation + 1)
            var tail = head
            if space > indentation {
                head = space
                while characters[head - 1] == " " { head -= 1 }
                tail = space
            }
            // The next line starts at its text, also after a cut word.
            while tail < characters.count, characters[tail] == " " { tail += 1 }
            lines.append(String(characters[..<head]))
            characters = Array(repeating: " ", count: indentation) + characters[tail...]
        }
    }

    /// `text` with each tab replaced by the spaces up to the next tab stop,
    /// every `tabWidth` cells, as a terminal shows it.
    package static func expandingTabs(_ text: String, tabWidth: Int = 8) -> String {
        guard text.contains("\t") else { return text }
        var out = ""
        var column = 0
        for character in text {
            if character == "\t" {
                let spaces = tabWidth - column % tabWidth
                out += String(repeating: " ", count: spaces)
                column += spaces
            } else {
                out.append(character)
                column += width(of: character)
            }
        }
        return out
    }

    /// Pads `text` with spaces to `width` cells.
    /// `rows` as lines of columns two spaces apart, each as wide as its
    /// widest cell in terminal cells (CJK and emoji take two); the last
    /// column is not padded.
    package static func columns(_ rows: [[String]]) -> String {
        guard let count = rows.map(\.count).max(), count > 0 else { return "" }
        let widths = (0..<count - 1).map { column in rows.map { column < $0.count ? displayWidth($0[column]) : 0 }.max() ?? 0 }
        return rows.map { row in
            (zip(row.dropLast(), widths).map { pad($0, to: $1) } + row.suffix(1)).joined(separator: "  ") + "\n"
        }.joined()
    }

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
        // Drawn as emoji by default (🚨, ✅, ⭐) or asked to be (❤️): two
        // cells. A block of code points missed those outside it.
        if scalar.properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x20000...0x3FFFD:
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
