import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdHTTPServer
@testable import AlertdCommandLine
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI
@testable import AlertdDaemon
@testable import AlertdClient
@testable import AlertdServices

/// Holds `docs/openapi.json` and `docs/API.md` to the router the daemon
/// really builds: a route added without docs, or docs left behind by a
/// removed route, fails here.
@Suite struct OpenAPIDocumentTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // API
        .deletingLastPathComponent()  // AlertCoreTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let operationKeys: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The daemon's router, over an in-memory store.
    static func daemonRouter() -> APIRouter {
        APIFixture.router()
    }

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: packageRoot.appendingPathComponent("docs/openapi.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func paths() throws -> [String: [String: Any]] {
        try #require(try document()["paths"] as? [String: [String: Any]])
    }

    @Test func documentIsOpenAPI31() throws {
        let doc = try Self.document()
        let version = try #require(doc["openapi"] as? String)
        #expect(version.hasPrefix("3.1"))
        let info = try #require(doc["info"] as? [String: Any])
        #expect(info["title"] is String)
        #expect(info["version"] is String)
    }

    @Test func everyRouteIsDocumented() throws {
        let router = Self.daemonRouter()
        #expect(!router.routes.isEmpty)
        let paths = try Self.paths()
        for route in router.routes {
            let item = paths[route.pattern]
            #expect(item != nil, "docs/openapi.json has no path \(route.pattern)")
            #expect(item?[route.method.lowercased()] != nil, "docs/openapi.json does not document \(route.method) \(route.pattern)")
        }
    }

    @Test func everyDocumentedOperationIsARoute() throws {
        let routes = Set(Self.daemonRouter().routes.map { "\($0.method) \($0.pattern)" })
        for (path, item) in try Self.paths() {
            let methods = item.keys.filter { Self.operationKeys.contains($0) }
            #expect(!methods.isEmpty, "\(path) documents no operation")
            for method in methods {
                #expect(routes.contains("\(method.uppercased()) \(path)"), "docs/openapi.json documents \(method.uppercased()) \(path), which the router does not serve")
            }
        }
    }

    /// A route open without the token says so with `"security": []`; every
    /// other one falls under the document's bearer scheme, documents the 401
    /// and the 403 of a token without its scope, and names that scope in
    /// `x-alertd-scope`.
    @Test func documentedSecurityMatchesEachRoutesAccess() throws {
        let paths = try Self.paths()
        for route in Self.daemonRouter().routes {
            let operation = try #require(paths[route.pattern]?[route.method.lowercased()] as? [String: Any])
            let open = (operation["security"] as? [Any])?.isEmpty == true
            let scope = route.access.scope
            #expect(open == (scope == nil), "\(route.method) \(route.pattern) is \(route.access), docs/openapi.json says open: \(open)")
            let responses = operation["responses"] as? [String: Any] ?? [:]
            // Sign-in has a 401 of its own (invalid_token); the router's `unauthorized` is for token routes alone.
            let unauthorized = ((responses["401"] as? [String: Any])?["$ref"] as? String)?.hasSuffix("Unauthorized") == true
            #expect(unauthorized == (scope != nil), "\(route.method) \(route.pattern): 401 unauthorized documented iff it needs the token")
            #expect(operation["x-alertd-scope"] as? String == scope?.rawValue, "\(route.method) \(route.pattern) needs scope \(scope?.rawValue ?? "none")")
            if scope != nil { #expect(responses["403"] != nil, "\(route.method) \(route.pattern): 403 (scope_missing) not documented") }
        }
    }

    @Test func pathParametersAreDeclared() throws {
        for (path, item) in try Self.paths() {
            let names = path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
            for (method, operation) in item where Self.operationKeys.contains(method) {
                let declared = ((item["parameters"] as? [[String: Any]] ?? [])
                    + ((operation as? [String: Any])?["parameters"] as? [[String: Any]] ?? []))
                    .filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String }
                #expect(Set(declared) == Set(names), "\(method.uppercased()) \(path) declares path parameters \(declared)")
            }
        }
    }

    @Test func schemasExistAndReferencesResolve() throws {
        let doc = try Self.document()
        let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        for name in ["AlertSpec", "Alert", "AlertDetail", "Delivery", "SubmissionResult", "BatchResult", "AlertList", "Error", "Health"] {
            #expect(schemas[name] != nil, "components/schemas/\(name) is missing")
        }
        var refs: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let ref = object["$ref"] as? String { refs.append(ref) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(doc)
        #expect(!refs.isEmpty)
        for ref in refs {
            let parts = ref.split(separator: "/").map(String.init)
            #expect(parts.first == "#", "\(ref) is not a local reference")
            var node: Any? = doc
            for part in parts.dropFirst() { node = (node as? [String: Any])?[part] }
            #expect(node != nil, "\(ref) points at nothing")
        }
    }

    /// The codes in the API's error answers, as the sources spell them.
    static func errorCodesInSources() throws -> Set<String> {
        let sources = packageRoot.appendingPathComponent("Sources")
        let files = ["AlertdAPI/APIError.swift", "AlertdAPI/APIRequestBody.swift", "AlertdAPI/APIRouter.swift", "AlertdAPI/Access/APIOriginPolicy.swift", "AlertdAPI/Console/ConsoleAPI.swift",
                     "AlertdAPI/AlertsAPI.swift", "AlertdAPI/DecisionsAPI.swift", "AlertdAPI/EventsAPI.swift",
                     "AlertdAPI/HealthAPI.swift", "AlertdAPI/GroupsAPI.swift", "AlertdHTTP/Wire/HTTPErrorBody+InvalidAlert.swift",
                     "AlertdHTTP/Wire/APIRepresentation.swift", "AlertdHTTPServer/MHDServerCore.swift", "AlertdHTTPServer/RequestFraming.swift",
                     "AlertdStore/StoreError.swift", "AlertdAPI/Alertmanager/AlertmanagerAPI.swift",
                     "AlertdAPI/Alertmanager/AlertmanagerIntake.swift", "AlertdAPI/Alertmanager/AlertmanagerSilencesAPI.swift",
                     "AlertdAPI/Alertmanager/AlertmanagerWebhookAPI.swift", "AlertdAPI/Alertmanager/APIError+Alertmanager.swift",
                     "AlertdAPI/FilterWork.swift"]
        let pattern = try Regex(#"(?:code: |errorResponse\((?:\w+, )?\d+, |Code\(rawValue: )"([a-z_]+)""#)
        var codes: Set<String> = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let code = match.output[1].substring { codes.insert(String(code)) }
            }
        }
        // A matcher's or silence's refusal is answered with the rule's own code.
        return codes.union(SilenceError.Code.allCases.map(\.rawValue))
    }

    /// The first backticked word of each table row in API.md's "Errors" section.
    static func errorCodesInGuide() throws -> Set<String> {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/API.md"), encoding: .utf8)
        var inSection = false
        var codes: Set<String> = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { inSection = line == "## Errors" }
            guard inSection, line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            codes.insert(String(cell))
        }
        return codes
    }

    /// Every `invalid_alert` detail code the sources define is named in
    /// API.md's "Alert fields" section (the validation codes table, or the
    /// prose after it for the ones only alertctl or templates produce).
    @Test func validationCodesInTheSourcesAreInTheGuide() throws {
        let sources = Self.packageRoot.appendingPathComponent("Sources")
        let files = ["AlertModel/AlertSpecError.swift", "AlertdDelivery/Actions/HandlerURLPolicy+Intake.swift"]
        let pattern = try Regex(#"Code\(rawValue: "([a-z_]+)"\)"#)
        var codes: Set<String> = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: pattern) {
                if let code = match.output[1].substring { codes.insert(String(code)) }
            }
        }
        #expect(codes.contains("handler_url_not_allowed"))
        let guide = try String(contentsOf: Self.packageRoot.appendingPathComponent("docs/API.md"), encoding: .utf8)
        let start = try #require(guide.range(of: "\n## Alert fields\n"))
        let rest = guide[start.upperBound...]
        let section = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        let missing = codes.filter { !section.contains("`\($0)`") }
        #expect(missing.isEmpty, "docs/API.md's Alert fields section does not name \(missing.sorted())")
    }

    @Test func errorCodesInTheGuideMatchTheSources() throws {
        let documented = try Self.errorCodesInGuide()
        let emitted = try Self.errorCodesInSources()
        #expect(documented.contains("invalid_alert"))
        #expect(emitted.subtracting(documented).isEmpty, "docs/API.md does not document \(emitted.subtracting(documented).sorted())")
        #expect(documented.subtracting(emitted).isEmpty, "docs/API.md documents codes the API never sends: \(documented.subtracting(emitted).sorted())")
    }
}
