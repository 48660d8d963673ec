import Testing
@testable import AlertCore

@Suite struct PlaceholderTests {
    @Test func builds() throws {
        let spec = try AlertSpec.Builder().title("x").build().get()
        #expect(spec.title == "x")
    }
}
