import Foundation
import Testing
@testable import AlertModel
@testable import AlertdPOSIX
@testable import AlertdHTTP
@testable import AlertdStore
@testable import AlertdDelivery
@testable import AlertdAPI

@Suite struct TerminalPresenterTests {
    @Test func rendersAFullAlert() {
        #expect(TerminalRenderer.render(Fixtures.diskFull, context: Fixtures.delivery, width: 80, colour: false) == """
            ╭─ [CRITICAL] ─────────────────────────────────────────────────────────────────╮
            │ Disk full                                                                    │
            │                                                                              │
            │ /var at 97% on db1. Writes will start failing when it reaches 100%, so       │
            │ expand the volume or clean up old logs.                                      │
            │                                                                              │
            │ Runbook: https://ops.example/runbooks/disk-full-on-database-hosts            │
            │                                                                              │
            │ env=prod  host=db1  team=storage                                             │
            │                                                                              │
            │ ▸ Expand   alertctl confirm 01972b3c-8a00-7123-8456-0123456789ab             │
            │ ▸ Ignore   alertctl cancel 01972b3c-8a00-7123-8456-0123456789ab              │
            ├──────────────────────────────────────────────────────────────────────────────┤
            │ id       01972b3c-8a00-7123-8456-0123456789ab                                │
            │ created  2025-06-01 12:00:00 UTC                                             │
            │ expires  2025-06-01 12:30:00 UTC                                             │
            │ dedup    disk-full:db1                                                       │
            ╰──────────────────────────────────────────────────────────────────────────────╯

            """)
    }

    @Test func rendersLinksNarrow() {
        let context = DeliveryContext(
            deliveryID: "d", actionLinks: [.confirm: "https://alertd.example/a/01972b3c/confirm?sig=abcdef0123456789"])
        #expect(TerminalRenderer.render(Fixtures.diskFull, context: context, width: 50, colour: false) == """
            ╭─ [CRITICAL] ───────────────────────────────────╮
            │ Disk full                                      │
            │                                                │
            │ /var at 97% on db1. Writes will start failing  │
            │ when it reaches 100%, so expand the volume or  │
            │ clean up old logs.                             │
            │                                                │
            │ Runbook:                                       │
            │ https://ops.example/runbooks/disk-full-on-data │
            │ base-hosts                                     │
            │                                                │
            │ env=prod  host=db1  team=storage               │
            │                                                │
            │ ▸ Expand                                       │
            │     https://alertd.example/a/01972b3c/confirm? │
            │     sig=abcdef0123456789                       │
            │ ▸ Ignore                                       │
            │     alertctl cancel                            │
            │     01972b3c-8a00-7123-8456-0123456789ab       │
            ├────────────────────────────────────────────────┤
            │ id       01972b3c-8a00-7123-8456-0123456789ab  │
            │ created  2025-06-01 12:00:00 UTC               │
            │ expires  2025-06-01 12:30:00 UTC               │
            │ dedup    disk-full:db1                         │
            ╰────────────────────────────────────────────────╯

            """)
    }

    @Test func rendersWithColour() {
        let e = "\u{1B}["
        let expected = [
            "\(e)36m╭─\(e)0m \(e)1;36m[INFO]\(e)0m \(e)36m─────────────────────────────╮\(e)0m",
            "\(e)36m│\(e)0m \(e)1mBackup finished\(e)0m                      \(e)36m│\(e)0m",
            "\(e)36m├──────────────────────────────────────┤\(e)0m",
            "\(e)36m│\(e)0m \(e)2mid       \(e)0m01972b3c-8a00-7123-8456-012 \(e)36m│\(e)0m",
            "\(e)36m│\(e)0m \(e)2m         \(e)0m3456789ab                   \(e)36m│\(e)0m",
            "\(e)36m│\(e)0m \(e)2mcreated  \(e)0m2025-06-01 12:00:00 UTC     \(e)36m│\(e)0m",
            "\(e)36m╰──────────────────────────────────────╯\(e)0m",
        ].map { $0 + "\n" }.joined()
        #expect(TerminalRenderer.render(Fixtures.minimal, context: Fixtures.delivery, width: 40, colour: true) == expected)
        #expect(!TerminalRenderer.render(Fixtures.minimal, context: Fixtures.delivery, width: 40, colour: false).contains("\u{1B}"))
    }

    @Test(arguments: [10, 24, 37, 61, 80, 132])
    func everyLineIsAsWideAsTheFrame(_ width: Int) throws {
        let spec = try AlertSpec.Builder()
            .title("ディスクがいっぱいです on db1 🔥 — a title long enough to wrap over lines")
            .message("tab\tseparated\r\nand a word that is far too long to fit: \(String(repeating: "x", count: 150))")
            .labels(["emoji": "🔥🔥", "note": "spaces in value"])
            .confirm("Go", handler: "https://a.example/go")
            .build().get()
        let alert = Alert(id: Fixtures.id, spec: spec, createdAt: Fixtures.created)
        let lines = TerminalRenderer.render(alert, context: Fixtures.delivery, width: width, colour: false)
            .split(separator: "\n").map(String.init)
        let expected = max(width, TerminalRenderer.minimumWidth)
        for line in lines {
            #expect(TextWrapper.displayWidth(line) == expected, "\(line)")
            #expect(!line.contains("\t") && !line.contains("\r"))
        }
    }

    /// `df -h | alertctl send --message -`: the columns survive; a line
    /// too long for the frame wraps at a space and keeps its indentation.
    @Test func keepsTheMessagesSpacing() throws {
        let df = """
            Filesystem      Size  Used Avail Use% Mounted on
            /dev/sda1        20G   15G  4.2G  79% /
            tmpfs           3.9G     0  3.9G   0% /dev/shm
                indented    a  b\tc
            """
        let spec = try AlertSpec.Builder().title("Disk usage").message(df).build().get()
        let alert = Alert(id: Fixtures.id, spec: spec, createdAt: Fixtures.created)
        let wide = TerminalRenderer.render(alert, context: Fixtures.delivery, width: 60, colour: false)
        #expect(wide.contains("""
            │ Filesystem      Size  Used Avail Use% Mounted on         │
            │ /dev/sda1        20G   15G  4.2G  79% /                  │
            │ tmpfs           3.9G     0  3.9G   0% /dev/shm           │
            │     indented    a  b    c                                │
            """))
        let narrow = TerminalRenderer.render(alert, context: Fixtures.delivery, width: 36, colour: false)
        #expect(narrow.contains("""
            │ Filesystem      Size  Used Avail │
            │ Use% Mounted on                  │
            │ /dev/sda1        20G   15G  4.2G │
            │ 79% /                            │
            │ tmpfs           3.9G     0  3.9G │
            │ 0% /dev/shm                      │
            │     indented    a  b    c        │
            """), "\(narrow)")
    }

    @Test func colourFollowsModeAndEnvironment() {
        func colour(_ mode: TerminalPresenterConfiguration.ColourMode, _ env: [String: String]) -> Bool {
            TerminalPresenter(configuration: .init(colour: mode), environment: env).usesColour
        }
        #expect(colour(.always, ["NO_COLOR": "1"]))
        #expect(!colour(.never, [:]))
        #expect(!colour(.auto, ["NO_COLOR": "1"]))
        #expect(!colour(.auto, ["TERM": "dumb"]))
        #expect(colour(.auto, [:]) == (isatty(STDOUT_FILENO) == 1))
    }

    @Test func widthFollowsConfigurationThenColumns() {
        #expect(TerminalPresenter(configuration: .init(width: 60), environment: ["COLUMNS": "100"]).width == 60)
        #expect(TerminalPresenter(environment: ["COLUMNS": "100"]).width == 100)
    }

    @Test func presentsToAStream() async {
        // Standard error is never what the test reads, so this only checks the verdict.
        let presenter = TerminalPresenter(configuration: .init(stream: .standardError, colour: .never, width: 40))
        #expect(presenter.name == "terminal")
        #expect(await presenter.present(Fixtures.minimal, delivery: Fixtures.delivery) == .delivered)
    }

    @Test func wholeBuffersNeverInterleaveOnAPipe() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let writer = FileDescriptorWriter(fd: writeEnd)
        let reader = Task.detached { () -> [UInt8] in
            var all: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(readEnd, &buffer, buffer.count)
                if n <= 0 { break }
                all += buffer[0..<n]
            }
            return all
        }
        let blockSize = 100_000  // larger than a pipe's buffer, so the kernel takes it in pieces
        await withTaskGroup(of: Void.self) { group in
            for letter in UInt8(ascii: "a")...UInt8(ascii: "h") {
                group.addTask {
                    for _ in 0..<5 { #expect(writer.write([UInt8](repeating: letter, count: blockSize)) == nil) }
                }
            }
        }
        close(writeEnd)
        let all = await reader.value
        close(readEnd)
        #expect(all.count == 8 * 5 * blockSize)
        for start in stride(from: 0, to: all.count, by: blockSize) {
            let block = all[start..<min(start + blockSize, all.count)]
            #expect(Set(block).count == 1, "block at \(start) is mixed")
        }
    }
}
