extension ConsoleAssets {
    static let page = ""
}
