import Foundation

/// A throwaway certificate authority and a server certificate it issued
/// for 127.0.0.1 and localhost, made with the openssl CLI in a temporary
/// directory (scripts/install-deps.sh --test installs openssl).
struct TestCertificates: Sendable {
    let dir: TemporaryDirectory
    /// The CA's certificate, PEM: what a client trusts.
    var caCertificate: String { dir.path + "/ca.pem" }
    var serverCertificate: String { dir.path + "/server.pem" }
    var serverKey: String { dir.path + "/server.key" }

    /// Makes the CA and the server's key and certificate; `name` shows in their subjects.
    init(name: String = "alertd test") async throws {
        dir = TemporaryDirectory()
        let d = dir.path
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: d + "/server.ext", atomically: true, encoding: .utf8)
        // EC keys: as good for the test and much quicker to make than RSA.
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
             "-subj", "/CN=\(name) CA", "-keyout", d + "/ca.key", "-out", d + "/ca.pem"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1",
             "-keyout", d + "/server.key", "-out", d + "/server.csr"],
            ["x509", "-req", "-in", d + "/server.csr", "-CA", d + "/ca.pem", "-CAkey", d + "/ca.key", "-CAcreateserial",
             "-days", "2", "-extfile", d + "/server.ext", "-out", d + "/server.pem"],
        ]
        for step in steps {
            let r = try await TestBinaries.run("/usr/bin/openssl", step)
            guard r.exitCode == 0 else { throw TestDaemon.Failure("openssl \(step[0]) failed: \(r.stderr)") }
        }
    }
}
