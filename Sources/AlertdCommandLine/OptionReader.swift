/// Reads one option, with its value, from a list of words: `--name value`,
/// `--name=value`, `-t value`, `-tvalue` and groups of short flags (`-jq`).
/// The parser uses it for a command's options and for the options a group
/// takes before its subcommand.
struct OptionReader {
    let words: [String]
    /// The next word to read.
    var index: Int
    let options: [CommandOption]

    /// Reads the option at ``index`` and its value into `given`, checking
    /// allowed values, and moves past them. False, without moving, when the
    /// word is not an option of ``options`` (a positional, `--help`, a typo).
    mutating func readOption(into given: inout [String: [String]]) throws(CommandLineError) -> Bool {
        let word = words[index]
        if word.hasPrefix("--"), word != "--" {
            let body = word.dropFirst(2)
            let name = String(body.prefix { $0 != "=" })
            let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            guard let option = options.first(where: { $0.name == name }) else { return false }
            index += 1
            if option.kind == .flag {
                if let inline { throw .unexpectedValue(inline, for: option) }
                given[option.name, default: []].append("")
            } else {
                // Not `inline ?? nextValue(...)`: `??` rethrows untyped errors.
                if let inline {
                    try record(option, inline, into: &given)
                } else {
                    try record(option, try nextValue(for: option), into: &given)
                }
            }
            return true
        }
        guard word.count > 1, word.hasPrefix("-"), !Self.looksLikeValue(word) else { return false }
        // A group of short options: flags, optionally ending in one that
        // takes a value, either attached (`-tDisk`) or as the next word.
        let letters = Array(word.dropFirst())
        guard options.contains(where: { $0.short == letters[0] }) else { return false }
        index += 1
        var position = 0
        while position < letters.count {
            let letter = letters[position]
            position += 1
            guard let option = options.first(where: { $0.short == letter }) else {
                throw .unknownOption("-\(letter)", suggestion: nil)
            }
            if option.kind == .flag {
                given[option.name, default: []].append("")
                continue
            }
            if position < letters.count {
                try record(option, String(letters[position...]), into: &given)
            } else {
                try record(option, try nextValue(for: option), into: &given)
            }
            break
        }
        return true
    }

    /// `-` (stdin) and negative numbers are values; `-x` and `--x` are options.
    static func looksLikeValue(_ word: String) -> Bool {
        guard word.hasPrefix("-"), word != "-" else { return true }
        let second = word.dropFirst().first
        return second.map { $0.isNumber || $0 == "." } ?? true
    }

    /// Whether `word`, following an option that takes a value, is that
    /// value: besides what ``looksLikeValue(_:)`` takes, any word that could
    /// not be an option, such as `--- see log ---` or `-rf was it` (an
    /// option's word has no space, and starts `-` and a letter, or `--` and
    /// a letter). `--message --severity` still misses its value.
    static func isValue(_ word: String) -> Bool {
        if word == "--" { return false }
        if looksLikeValue(word) || word.contains(where: \.isWhitespace) { return true }
        let name = word.hasPrefix("--") ? word.dropFirst(2) : word.dropFirst()
        return !(name.first?.isLetter ?? false)
    }

    private mutating func nextValue(for option: CommandOption) throws(CommandLineError) -> String {
        guard index < words.count else { throw .missingValue(for: option) }
        let next = words[index]
        guard Self.isValue(next) else {
            // `--title --severity x` forgot the title; `--comment -rf` may have meant it.
            let name = next.hasPrefix("--") ? String(next.dropFirst(2).prefix { $0 != "=" }) : nil
            let known = name.map { n in options.contains { $0.name == n } || n == "help" }
                ?? options.contains { $0.short == next.dropFirst().first } || next == "-h" || next == "--"
            throw .missingValue(for: option, before: known ? nil : next)
        }
        index += 1
        return words[index - 1]
    }

    private func record(_ option: CommandOption, _ value: String, into given: inout [String: [String]]) throws(CommandLineError) {
        if !option.allowedValues.isEmpty, !option.allowedValues.contains(value) {
            let list = option.allowedValues.map { "'\($0)'" }.joined(separator: ", ")
            throw .invalidValue(value, for: option, expected: "use one of \(list).")
        }
        given[option.name, default: []].append(value)
    }
}
