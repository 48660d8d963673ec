/// What the shell completion scripts read from a command tree.
extension CommandConfiguration {
    /// Every command under this one, itself first, each with its
    /// space-separated path from `path`, this command's.
    func commandTree(path: String) -> [(path: String, configuration: CommandConfiguration)] {
        var result = [(path: path, configuration: self)]
        for sub in subcommands {
            result += sub.configuration.commandTree(path: path + " " + sub.configuration.name)
        }
        return result
    }

    /// The command's name as a shell function name may hold it: letters
    /// and digits kept, anything else `_`.
    var shellIdentifier: String {
        String(name.map { (c: Character) -> Character in c.isLetter || c.isNumber ? c : "_" })
    }

    /// `--title`, `-t`, … for every option that takes a value: the words
    /// after which the next is that value, not a command or an argument.
    var valueOptionSpellings: [String] {
        options.filter { $0.kind != .flag }.flatMap { option in
            ["--\(option.name)"] + (option.short.map { ["-\($0)"] } ?? [])
        }
    }
}
