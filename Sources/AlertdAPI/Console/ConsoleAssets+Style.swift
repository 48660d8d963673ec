extension ConsoleAssets {
    static let style = ""
}
