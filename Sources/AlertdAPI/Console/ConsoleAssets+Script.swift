extension ConsoleAssets {
    static let script = ""
}
