import Foundation
import Testing
@testable import AlertModel
@testable import AlertdHTTP
@testable import AlertdDaemon

#if canImport(Glibc)
import Glibc
#endif

/// Wrapping prose (spaces squeezed) and preformatted text (spaces kept).
@Suite struct TextWrapperTests {
    @Test func proseIsRefilled() {
        #expect(TextWrapper.wrap("a  b   c", width: 80) == ["a b c"])
        #expect(TextWrapper.wrap("one two three", width: 7) == ["one two", "three"])
    }

    @Test func preformattedTextKeepsItsSpaces() {
        // Fits: as it is, without trailing spaces.
        #expect(TextWrapper.wrapKeepingSpaces("  a   b  ", width: 80) == ["  a   b"])
        #expect(TextWrapper.wrapKeepingSpaces("", width: 10) == [""])
        #expect(TextWrapper.wrapKeepingSpaces("    ", width: 10) == [""])
        // Too long: break at the last space that fits (a space just past the
        // width counts), drop the spaces at the break, indent like the line.
        #expect(TextWrapper.wrapKeepingSpaces("aaa  bbb  ccc", width: 8) == ["aaa  bbb", "ccc"])
        #expect(TextWrapper.wrapKeepingSpaces("aaa  bbb  ccc", width: 7) == ["aaa", "bbb", "ccc"])
        #expect(TextWrapper.wrapKeepingSpaces("  aaa bbb ccc", width: 9) == ["  aaa bbb", "  ccc"])
        // No space to break at: cut, never breaking inside the indentation.
        #expect(TextWrapper.wrapKeepingSpaces("  abcdefghij", width: 6) == ["  abcd", "  efgh", "  ij"])
        // An indentation over half the width cannot be kept when breaking.
        #expect(TextWrapper.wrapKeepingSpaces("        abc def", width: 10) == ["abc def"])
        #expect(TextWrapper.wrapKeepingSpaces("        abcdef ghijkl", width: 10) == ["abcdef", "ghijkl"])
        // Wide characters count two cells.
        #expect(TextWrapper.wrapKeepingSpaces("ディスク  full", width: 8) == ["ディスク", "full"])
        for width in 1...12 {
            for line in TextWrapper.wrapKeepingSpaces("   x  yy   zzz    🔥🔥 wwwwwwwwwwwwww ", width: width) {
                #expect(TextWrapper.displayWidth(line) <= max(width, 2), "\(width): '\(line)'")
                #expect(!line.hasSuffix(" ") && !line.isEmpty, "\(width): '\(line)'")
            }
        }
    }

    /// The cells each character takes are the C library's (`wcwidth`, which
    /// terminals follow): 🚨 and ✅ were counted one, and a frame's border
    /// drawn a cell out of line.
    @Test func charactersTakeTheCellsTheCLibrarySays() {
        setlocale(LC_CTYPE, "C.UTF-8")
        // Swift's Glibc module leaves wcwidth out (it wants _XOPEN_SOURCE).
        let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth")  // RTLD_DEFAULT
        let wcwidth = unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
        for character in "a é 🚨✅⭐❌⌚🔥😀🦀🪐🛑🗺🌡❤☀漢字ディスク한글ｆｕｌｌ" where character != " " {
            let scalar = character.unicodeScalars.first!
            #expect(TextWrapper.displayWidth(String(character)) == Int(wcwidth(Int32(scalar.value))), "\(character)")
        }
        // Asked to be drawn as an emoji: two cells, as terminals draw it.
        #expect(TextWrapper.displayWidth("❤️") == 2)
    }

    @Test func tabsGoToTheNextStop() {
        #expect(TextWrapper.expandingTabs("a\tb") == "a       b")
        #expect(TextWrapper.expandingTabs("abcdefgh\tb") == "abcdefgh        b")
        #expect(TextWrapper.expandingTabs("\t\tx", tabWidth: 4) == "        x")
        #expect(TextWrapper.expandingTabs("no tabs") == "no tabs")
    }

    /// `silence list` padded by characters: a CJK author pushed the next column over.
    @Test func columnsLineUpByCells() {
        #expect(TextWrapper.columns([["BY", "MATCHERS"], ["山田太郎", "a=1"], ["bob", "b=2"]]) == """
            BY        MATCHERS
            山田太郎  a=1
            bob       b=2

            """)
    }
}
