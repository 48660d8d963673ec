import AlertdHTTP

/// What the per-client limits count a TCP peer as: its address, and for an
/// IPv6 one its /64 as well. An address alone let a host with a /64 of its
/// own, as IPv6 hosts commonly have, take every slot from new addresses;
/// the /64 alone made every host of a LAN (SLAAC, a node's pods) share one
/// client's allowance.
struct ClientKeys: Hashable, Sendable {
    /// The address, IPv4 as a dotted quad.
    let address: String
    /// The IPv6 address's /64 (``IPAddress/client``); nil for IPv4.
    let network: String?

    /// The keys of a peer's address text; nil when it is not an address.
    init?(peer: String) {
        guard let ip = IPAddress(peer) else { return nil }
        address = ip.description
        network = ip.ipv4 == nil ? ip.client : nil
    }
}
