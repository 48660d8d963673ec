/// Where a connection actually went, as libcurl saw it after connecting.
public struct HTTPConnectTarget: Sendable, Equatable {
    /// The peer's numeric IP address (empty over a Unix socket).
    public var remoteAddress: String
    public var remotePort: Int
    public var localAddress: String
    public var localPort: Int

    public init(remoteAddress: String, remotePort: Int, localAddress: String = "", localPort: Int = 0) {
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localAddress = localAddress
        self.localPort = localPort
    }
}
