import AlertdPOSIX

extension SocketActivation {
    /// The sockets alertd will serve, as the configuration carries them.
    package var activatedListeners: DaemonConfiguration.ActivatedListeners {
        DaemonConfiguration.ActivatedListeners(unixSocket: descriptor(for: .api), tcp: descriptor(for: .http))
    }
}
